"""The base of every error the service raises on purpose: a caller (the CLI, the runner) can
tell them from faults."""

from __future__ import annotations


class PbemError(Exception):
    """An error of the service with a message for the person who caused it."""
