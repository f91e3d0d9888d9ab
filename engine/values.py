"""Immutable values made by the thousand in a game (choices, events, decisions)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")

# a function of each value class that makes one as its __init__ would, without calling the
# class (Python 3.11 runs a class's __init__ in a new run of its interpreter: half the cost)
_MAKERS: dict[type, Callable[..., Any]] = {}


def maker(cls: type[T]) -> Callable[..., T]:
    """The function that makes a `cls` from its fields, as calling `cls` does but cheaper."""
    return _MAKERS[cls]


@dataclass_transform(frozen_default=True)
def value(cls: type[T]) -> type[T]:
    """`dataclass(frozen=True, slots=True)`, but its `__init__` stores each field through its
    slot's own setter: the one a frozen dataclass writes calls `object.__setattr__` for each
    field. Slots, not a dict: Python 3.11 reads an attribute of a slot at once, where it reads
    one of an instance's dict made by reading `__dict__` through its slow general path (the
    engine reads the choices' fields at every step). Equality, hashing, `repr`, `fields`,
    `replace` and the refusal to change a field are the dataclass's own."""
    assert not hasattr(cls, "__post_init__"), f"{cls.__name__}: the __init__ below skips it"
    made = dataclass(frozen=True, slots=True)(cls)
    names = [f.name for f in fields(made)]  # type: ignore[arg-type]
    defaults: dict[str, Any] = {}
    params = []
    for f in fields(made):  # type: ignore[arg-type]
        assert f.init and f.default_factory is MISSING, f"{cls.__name__}.{f.name}"
        if f.default is MISSING:
            params.append(f.name)
        else:
            defaults[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        defaults[f"_set_{f.name}"] = made.__dict__[f.name].__set__
    sets = [f"    _set_{name}(self, {name})" for name in names]
    lines = [f"def __init__(self, {', '.join(params)}):", *sets, "    pass"]
    # `make` writes a draft, of a class with the same slots that is not frozen, so that each
    # field is stored at once (a slot's setter is a call through Python's general path), then
    # turns it into the value by giving it its class: 250 ns where the setters take 600
    drafts = [f"    self.{name} = {name}" for name in names]
    lines += [f"def make({', '.join(params)}):", "    self = _new(_draft)", *drafts]
    lines += ["    self.__class__ = _cls", "    return self"]
    source = "\n".join(lines) + "\n"
    draft = type(f"{cls.__name__}Draft", made.__bases__, {"__slots__": made.__dict__["__slots__"]})
    namespace: dict[str, Any] = {}
    exec(source, {**defaults, "_new": object.__new__, "_cls": made, "_draft": draft}, namespace)
    init = namespace["__init__"]
    _MAKERS[made] = namespace["make"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    made.__init__ = init  # type: ignore[method-assign]
    return made
