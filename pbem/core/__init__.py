"""The lowest layer: settings, errors, kinds, time arithmetic, names and addresses, reply-address
tokens."""
