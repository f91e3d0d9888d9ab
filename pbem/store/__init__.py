"""The database: its tables, sessions and upgrades."""
