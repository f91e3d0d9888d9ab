"""Running it: the command line, the serve loop, transports (IMAP, SMTP, Maildir), diagnostics."""
