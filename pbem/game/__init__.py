"""The table: a game loaded with its seats, state and clock; a move applied, recorded and saved."""
