"""The play-by-email service around the engine: games, mail in and out, the `pbem` command."""
