"""The project modules that files given explicitly import, transitively.

`ownlint check user.py` (what pre-commit runs on the staged files) must see
what `ownlint check .` sees: a helper in `helpers.py` that frees its argument
makes a second free in `user.py` a double free. So the files given explicitly
are analysed together with the project modules they import, directly or
through other project modules; only the given files are reported.

The project is the directory of the configuration file that governs the file,
else the git work tree holding it, else the directory above its outermost
package. Its modules are the files `ownlint check PROJECT` would check (the
same excludes, `.gitignore` and skipped directories), named as the engine
names them (`ownlint.api.module_name`); where several have one name (a
`conftest.py` per test suite of a repository), an import is of the one
nearest above the importing file, as pytest and a script's own folder put
it first on the path. Imports are read with the standard
library's `ast` (a fraction of libcst's cost) from the given files and the
modules they reach, and from no other file.

Known limits: an import the code computes (`importlib.import_module(name)`)
is not followed; a module outside the project (an installed package) is
not read, as in `ownlint check .`.
"""

from __future__ import annotations

import ast
import os
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

from ownlint.config import Config
from ownlint.discovery import discover, display_path
from ownlint.resolver import Resolver


def project_root(file: Path, config: Config) -> Path:
    """The directory whose modules `file` may import (see the module's docstring)."""
    here = Path(os.path.abspath(file))
    if config.source is not None and here.is_relative_to(config.root):
        return config.root
    for directory in here.parents:
        if (directory / ".git").exists():
            return directory
    from ownlint.api import module_name
    from ownlint.notebook import is_notebook

    name = None if is_notebook(here) else module_name(here)  # a notebook is in no package: its directory
    depth = len(name.split(".")) if name is not None else 1
    return here.parents[depth - 1] if depth <= len(here.parents) else here.parent


def imported_files(
    files: Sequence[Path], config: Config | Resolver, sources: dict[Path, str] | None = None
) -> list[Path]:
    """The project modules `files` import, transitively, other than `files` themselves (absolute paths,
    in the order found). `sources`: texts already known (an editor's buffer, standard input), by path."""
    from ownlint.api import module_name

    resolver = Resolver.of(config)
    known = {Path(os.path.abspath(p)): t for p, t in (sources or {}).items()}
    given = [Path(os.path.abspath(f)) for f in files]
    by_module: dict[str, list[Path]] = {}
    for root in dict.fromkeys(project_root(f, resolver.for_path(f)) for f in given):
        for found in discover([root], resolver).files:
            name = module_name(found)
            if name is not None and found not in by_module.setdefault(name, []):
                by_module[name].append(found)
    seen = {os.path.normcase(f) for f in given}
    order: list[Path] = []
    queue = list(given)
    while queue:
        file = queue.pop(0)
        text = known.get(file)
        if text is None:
            text = _read(file)
        if text is None:
            continue
        for name in _imported_modules(text, module_name(file), file.name.startswith("__init__.")):
            target = _nearest(by_module.get(name), name, file)
            if target is None or os.path.normcase(target) in seen:
                continue
            seen.add(os.path.normcase(target))
            order.append(target)
            queue.append(target)
    return order


def _nearest(candidates: list[Path] | None, name: str, importer: Path) -> Path | None:
    """Of the project's files named `name`, the one `importer` imports: where several are (a
    `conftest.py` per test suite), the one whose import root (the folder its outermost package, or
    the module itself, lies in) is the importer's folder or the nearest folder above it, as pytest
    and a script's own folder put those first on the path; else the first found."""
    if not candidates:
        return None
    if len(candidates) == 1:
        return candidates[0]
    depth = len(name.split("."))
    best, best_depth = candidates[0], -1
    for candidate in candidates:
        root = candidate.parents[depth if candidate.name.startswith("__init__.") else depth - 1]
        if importer.is_relative_to(root) and len(root.parts) > best_depth:
            best, best_depth = candidate, len(root.parts)
    return best


def _read(file: Path) -> str | None:
    from ownlint.api import read_source

    text = read_source(file, display_path(file))
    return text if isinstance(text, str) else None  # what cannot be read is not read: only given files are reported


def _imported_modules(source: str, module: str | None, is_package: bool) -> Iterable[str]:
    """Every module an import statement of `source` may load: the module named and the packages above it,
    and for `from m import x`, `m.x` too (x may be a submodule)."""
    try:
        with warnings.catch_warnings():  # the checked code's invalid escapes are not ownlint's to report
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []  # the file's own report says why it does not parse
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module, node.level, module, is_package)
            if base is None:
                continue
            names.append(base)
            names += [f"{base}.{alias.name}" if base else alias.name for alias in node.names if alias.name != "*"]
    wanted: list[str] = []
    for name in names:
        parts = name.split(".")
        wanted += [".".join(parts[: i + 1]) for i in range(len(parts)) if parts[0]]
    return dict.fromkeys(wanted)


def _absolute(name: str | None, level: int, module: str | None, is_package: bool) -> str | None:
    """The absolute module of `from <level dots><name> import ...` in `module`; None when it leaves the packages."""
    if level == 0:
        return name
    if module is None:
        return None
    package = module.split(".") if is_package else module.split(".")[:-1]
    if level - 1 > len(package):
        return None
    base = package[: len(package) - (level - 1)]
    return ".".join([*base, *([name] if name else [])])
