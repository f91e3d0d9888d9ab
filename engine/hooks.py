"""What the benchmarks (`tools/`) reach into, beside the engine's face: timing the listing of
the legal choices without the caches kept across games. Not part of the face (`engine/face.py`,
`engine.__all__`): the service never uses these, and `tests/test_engine_face.py` lets only
`tools/` import this module."""

from __future__ import annotations

from engine.state import State, clear_listing_caches

__all__ = ["clear_listing_caches", "relist"]


def relist(state: State) -> None:
    """Make `state` forget its listed legal choices, so that the next `legal_choices` works
    them out again (to time the listing)."""
    state._relist()
