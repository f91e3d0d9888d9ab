"""The way a reply takes through the code: every call from one module into another and every
return to the caller's module, from the mailbox (`runner.take`) to the answer in the outbox.

`Way.modules` is that sequence with repeats of one module in a row made one; it counts the
engine as one module and leaves out the standard library and third-party code (called from
a module, they are part of its step)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any


def _module(frame: FrameType | None) -> str | None:
    """The project module a frame runs in (`pbem.flow.replies`, `engine`), or None."""
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name.startswith("pbem.") or name == "pbem":
            return str(name)
        if name == "engine" or name.startswith("engine."):
            return "engine"
        frame = frame.f_back  # a library called by project code: the caller's step
    return None


def _ours(frame: FrameType | None) -> bool:
    """Whether `frame` runs in the project's code (not the standard library's or a
    library's)."""
    if frame is None:
        return False
    name = str(frame.f_globals.get("__name__", ""))
    return name.startswith(("pbem.", "engine.")) or name in ("pbem", "engine")


@dataclass
class Way:
    modules: list[str] = field(default_factory=list)

    def _note(self, name: str | None) -> None:
        if name is not None and (not self.modules or self.modules[-1] != name):
            self.modules.append(name)

    @property
    def hops(self) -> int:
        return max(0, len(self.modules) - 1)

    @property
    def passed(self) -> set[str]:
        return set(self.modules)

    @property
    def comebacks(self) -> int:
        """How many times the way came back to a module it had left."""
        seen: set[str] = set()
        back = 0
        for name in self.modules:
            back += name in seen
            seen.add(name)
        return back

    def coarse(self, depth: int) -> Way:
        """The way seen from `depth` dotted parts (2: the layers, `pbem.flow`)."""
        way = Way()
        for name in self.modules:
            way._note(".".join(name.split(".")[:depth]))
        return way


# the layers that hand a reply on: the host's loop and the flow
GUIDES = ("pbem.host.", "pbem.flow.")
# the lowest layer is called from everywhere, as the standard library is: not a step
UNDER = ("pbem.core", "pbem.faces")


@contextmanager
def traced(guided: bool = False) -> Iterator[Way]:
    """Record the way of everything run inside the block; `guided`: only the steps the host
    and the flow hand the reply to (what those modules do inside is their step, and so is
    what a library they call calls back, such as a database hook at a commit), without the
    lowest layer (`pbem.core`)."""
    way = Way()

    def step(caller: str | None, callee: str | None) -> bool:
        if caller is None or callee is None or caller == callee:
            return False
        if not guided:
            return True
        if callee.startswith(UNDER) or caller.startswith(UNDER):
            return False
        return caller.startswith(GUIDES) or callee.startswith(GUIDES)

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event not in ("call", "return"):
            return
        if guided and not _ours(frame.f_back):
            # called back by a library (a database hook run by a commit): part of the step
            # of the module that called the library
            return
        callee, caller = _module(frame), _module(frame.f_back)
        if step(caller, callee):
            way._note(callee if event == "call" else caller)

    previous: Callable[..., Any] | None = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield way
    finally:
        sys.setprofile(previous)
