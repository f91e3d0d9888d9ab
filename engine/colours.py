"""The six player colours and their one-letter codes."""

from __future__ import annotations

COLOURS = ("blue", "red", "green", "yellow", "orange", "purple")
LETTERS = {colour: colour[0].upper() for colour in COLOURS}
BY_LETTER = {letter: colour for colour, letter in LETTERS.items()}
BOATS_PER_PLAYER = 15
