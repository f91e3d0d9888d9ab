"""How the packages are put together: one base error class per package."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import engine
import pbem
from engine import EngineError
from pbem.errors import PbemError


@pytest.mark.parametrize(("package", "base"), [(engine, EngineError), (pbem, PbemError)])
def test_every_error_a_package_defines_has_its_base(package: object, base: type) -> None:
    """A caller tells the package's own errors from faults by one class."""
    path = package.__path__  # type: ignore[attr-defined]
    names = [info.name for info in pkgutil.iter_modules(path) if not info.name.startswith("__")]
    found = []
    for name in names:
        module = importlib.import_module(f"{package.__name__}.{name}")  # type: ignore[attr-defined]
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, Exception) and value.__module__ == module.__name__:
                found.append(value)
    assert len(found) >= 5
    assert [error for error in found if not issubclass(error, base)] == []
