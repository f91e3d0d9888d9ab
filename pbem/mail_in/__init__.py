"""The door: a mail read within bounds, its reply text, its sender checks, automatic mail."""
