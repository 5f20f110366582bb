"""A file to check, read: its text (decoded as Python decodes source; a
notebook's code cells joined; only a regular file is read, see
`ownlint.inputs`), or why it cannot be checked, and the dotted module name
its packages give it."""

from __future__ import annotations

import functools
import io
import os
import tokenize
from pathlib import Path

from ownlint import notebook
from ownlint.diagnostics import FileError
from ownlint.inputs import InputError, read_regular

_BOM = "\ufeff"


def read_source(path: Path, shown: str) -> str | FileError:
    """The text of the file at `path` (of a notebook: its code cells joined), or why it cannot be checked
    (only a regular file is read: one replaced by a FIFO since it was found is refused, never waited on;
    see `ownlint.inputs`)."""
    if notebook.is_notebook(path):
        loaded = notebook.load(path, shown)
        return loaded if isinstance(loaded, FileError) else loaded.source
    try:
        data = read_regular(path)
    except InputError as error:
        return FileError(shown, str(error))
    return decode_source(data, shown)


def decode_source(data: bytes, shown: str) -> str | FileError:
    """The text of a source file, decoded as Python does: UTF-8 unless a PEP 263
    coding declaration says otherwise; a byte order mark is dropped."""
    if b"\x00" in data:
        return FileError(shown, "contains NUL bytes")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        encoding = "utf-8"  # no usable declaration: say what is wrong with the bytes, if anything
        try:
            data.decode(encoding)
        except UnicodeDecodeError:
            pass
        else:
            return FileError(shown, f"bad coding declaration: {error.msg}")
    try:
        return data.decode(encoding).removeprefix(_BOM)
    except UnicodeDecodeError as error:
        name = "UTF-8" if encoding in ("utf-8", "utf-8-sig") else encoding
        return FileError(shown, f"not {name}: {error.reason} at byte offset {error.start}")
    except LookupError:
        return FileError(shown, f"unknown encoding {encoding!r} in its coding declaration")


def module_name(path: Path) -> str | None:
    """The dotted module name of a source file, from the packages (`__init__.py`) above it; None if it has none.
    A notebook is no module: its name is one that no import can spell (`<notebook /abs/path.ipynb>`), so that
    the engine never takes an import of `helpers` (or a name ending in it) for `helpers.ipynb`."""
    if notebook.is_notebook(path):
        return f"<notebook {os.path.abspath(path)}>"
    if path.suffix not in (".py", ".pyi"):
        return None
    parts = [*_package_of(str(path.parent)), *([] if path.stem == "__init__" else [path.stem])]
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts)


@functools.lru_cache(maxsize=4096)
def _package_of(directory: str) -> tuple[str, ...]:
    """The package names a directory lies in, outermost first (memoized: one
    look for `__init__.py` per directory, not per file)."""
    here = Path(directory)
    if not ((here / "__init__.py").is_file() or (here / "__init__.pyi").is_file()):
        return ()
    if here.parent == here:
        return (here.name,)
    return (*_package_of(str(here.parent)), here.name)
