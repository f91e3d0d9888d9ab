"""The play-by-email service around the engine (built in later issues)."""
