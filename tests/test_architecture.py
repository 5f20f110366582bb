"""The shape of the house, as tests: no import cycle between the modules of
`src/ownlint` (what the imports run when a module is loaded: the module
level, not TYPE_CHECKING blocks nor imports inside functions, which run
later)."""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def modules(src: Path = SRC) -> dict[str, Path]:
    out = {}
    for path in sorted((src / "ownlint").rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _load_time(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements that run as the module is loaded."""
    for stmt in body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            yield stmt
        elif isinstance(stmt, ast.If):
            if not (isinstance(stmt.test, ast.Name) and stmt.test.id == "TYPE_CHECKING"):
                yield from _load_time(stmt.body)
                yield from _load_time(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            for block in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                yield from _load_time(block)
        elif isinstance(stmt, ast.With):
            yield from _load_time(stmt.body)


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for stmt in _load_time(ast.parse(path.read_text(encoding="utf-8")).body):
        if isinstance(stmt, ast.Import):
            targets = [alias.name for alias in stmt.names]
        else:
            base = stmt.module or ""
            if stmt.level:
                anchor = package.rsplit(".", stmt.level - 1)[0] if stmt.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # `from pkg import mod` imports the module `pkg.mod` where there is one
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in stmt.names]
        found.update(t for t in targets if t in known and t != name)
    return found


def import_cycle(src: Path) -> list[str] | None:
    """A cycle of load-time imports between the modules under `src/ownlint`, if any."""
    known = modules(src)
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        return list(error.args[1])
    return None


def test_no_import_cycle_between_modules() -> None:
    known = modules()
    assert sum(len(imports_of(name, path, known)) for name, path in known.items()) > 100  # imports are found
    assert import_cycle(SRC) is None


def test_a_cycle_is_found_and_type_checking_imports_are_not_one(tmp_path: Path) -> None:
    package = tmp_path / "ownlint"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from ownlint import b\n")
    (package / "b.py").write_text("from . import a\n\n\ndef f():\n    from ownlint import c\n")
    (package / "c.py").write_text("import ownlint.b\n")
    assert import_cycle(tmp_path) is None
    (package / "a.py").write_text("import warnings\n\nwith warnings.catch_warnings():\n    from ownlint.b import f\n")
    cycle = import_cycle(tmp_path)
    assert cycle is not None and set(cycle) == {"ownlint.a", "ownlint.b"}
