"""The faces of pbem's layers: a sub-package's `__init__` names what it offers, and each name
loads its module when first used (PEP 562, as `engine` does), so that importing a layer's
face costs nothing until a name of it is asked for: the command line starts at once."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module


def lazy(package: str, modules: Mapping[str, str]) -> Callable[[str], object]:
    """A module `__getattr__` for `package`'s face: `modules` maps each module of the
    package (by its short name) to the names of it the face offers, separated by spaces."""
    where = {name: module for module, names in modules.items() for name in names.split()}

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
