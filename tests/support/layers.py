"""The layers of `pbem/` as the code has them: which module imports which (read from the
source, imports inside functions and under TYPE_CHECKING included), and the sizes the
layering test bounds."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Lower never imports higher: a module imports its own sub-package and those before it.
LAYERS = ("core", "store", "game", "views", "commands", "mail_out", "mail_in", "flow", "host")


def module_name(path: Path, root: Path = ROOT) -> str:
    """`pbem/views/news.py` -> `pbem.views.news`; a package's face is its own name."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(package: str = "pbem", root: Path = ROOT) -> dict[str, Path]:
    """Every module and package face of `package`, by dotted name."""
    return {module_name(path, root): path for path in sorted((root / package).rglob("*.py"))}


def imports(path: Path, known: set[str], package: str = "pbem") -> set[str]:
    """The modules of `package` (among `known`) that the module at `path` imports, anywhere in
    it: `from pbem.views import news` imports `pbem.views.news`, `from pbem.views import
    Name` the face `pbem.views`."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module != package and not node.module.startswith(f"{package}."):
                continue
            for alias in node.names:
                whole = f"{node.module}.{alias.name}"
                found.add(whole if whole in known else node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith(f"{package}.")}
    return found & known


def layer(name: str) -> str | None:
    """The sub-package a module belongs to (None for a module at the top of pbem/)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS) else None


@dataclass(frozen=True)
class Size:
    where: str  # module, module:Class or module:function
    lines: int


def sizes(path: Path, name: str) -> tuple[list[Size], list[Size]]:
    """The functions (methods included) and the classes of a module, with their lengths."""
    functions: list[Size] = []
    classes: list[Size] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            size = Size(f"{name}:{node.name}", (node.end_lineno or node.lineno) - node.lineno + 1)
            (classes if isinstance(node, ast.ClassDef) else functions).append(size)
    return functions, classes
