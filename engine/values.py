"""Immutable values made by the thousand in a game (choices, events, decisions)."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")


@dataclass_transform(frozen_default=True)
def value(cls: type[T]) -> type[T]:
    """`dataclass(frozen=True)`, but its `__init__` stores the fields in the instance's dict
    at once: the one a frozen dataclass writes calls `object.__setattr__` for each field, most
    of the cost of making an event. Equality, hashing, `repr`, `fields`, `replace` and the
    refusal to change a field are the dataclass's own."""
    assert not hasattr(cls, "__post_init__"), f"{cls.__name__}: the __init__ below skips it"
    made = dataclass(frozen=True)(cls)
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
    lines = [f"def __init__(self, {', '.join(params)}):", "    kept = self.__dict__"]
    lines += [f"    kept[{name!r}] = {name}" for name in names]
    source = "\n".join(lines) + "\n"
    namespace: dict[str, Any] = {}
    exec(source, defaults, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    made.__init__ = init  # type: ignore[method-assign]
    return made
