"""The play-by-email service around the engine: games, mail in and out, the `pbem` command."""

from engine import __version__

__all__ = ["__version__"]
