"""Mail going out: who gets which mail, letters, envelopes, the MIME parts, the calendar, the
answer budget."""
