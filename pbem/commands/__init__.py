"""The registry of commands and each command: the players', the observers', the game master's, and
the help made from them."""
