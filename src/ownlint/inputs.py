"""Reading the files ownlint is given as input, without trusting them.

Configuration files, model files, baselines and source files come from the
checked repository, so they may be hostile. Here:

- only regular files are read: a file is opened with `O_NONBLOCK` (opening a
  FIFO with no writer, or a device, never waits) and checked with `fstat` on
  the open descriptor before a byte is read, so a file replaced by a FIFO or a
  link to `/dev/zero` between discovery and reading is refused, not read;
- a file is read up to a size bound given by its kind (`MAX_CONFIG_BYTES`,
  ...), and refused when it is larger;
- a parsed TOML or JSON document is refused when it is nested more than
  `MAX_NESTING` levels deep (the check is iterative; a document deep enough to
  exhaust the parser's own recursion is refused with the same reason).

Every refusal is an `InputError` whose str() is a short reason without the
file's name: the caller names the file in its own error type
(`ConfigError`, `ModelError`, `BaselineError`, `FileError`).
"""

from __future__ import annotations

import json
import os
import stat
import sys
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

MAX_NESTING = 32
"""Tables and arrays inside each other; ownlint's own formats need at most 4."""
MAX_CONFIG_BYTES = 1 << 20
MAX_MODEL_BYTES = 4 << 20
MAX_BASELINE_BYTES = 256 << 20
_CHUNK = 1 << 16


class InputError(ValueError):
    """An input file that cannot be used; str() is the reason, without the file's name."""


def read_regular(path: str | os.PathLike[str], max_bytes: int | None = None) -> bytes:
    """The bytes of the regular file at `path` (at most `max_bytes` of them, else an InputError)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror or error}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError("not a regular file")
        if max_bytes is not None and info.st_size > max_bytes:
            raise InputError(f"larger than {_size(max_bytes)}")
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(fd, _CHUNK if max_bytes is None else min(_CHUNK, max_bytes + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if max_bytes is not None and total > max_bytes:  # it grew while being read
                raise InputError(f"larger than {_size(max_bytes)}")
        return b"".join(chunks)
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror or error}") from None
    finally:
        os.close(fd)


def parse_toml(data: bytes) -> dict[str, Any]:
    """A TOML document, nesting bounded."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8: {error.reason} at byte {error.start}") from None
    try:
        document = tomllib.loads(text)
    except RecursionError:
        raise InputError(f"nested more than {MAX_NESTING} levels") from None
    except ValueError as error:  # TOMLDecodeError, or an integer too long to convert
        raise InputError(f"invalid TOML: {_first_line(error)}") from None
    check_nesting(document)
    return document


def parse_json(data: bytes) -> Any:
    """A JSON document, nesting bounded (a syntax error's reason is `json`'s own, unprefixed)."""
    try:
        document = json.loads(data.decode("utf-8"))
    except RecursionError:
        raise InputError(f"nested more than {MAX_NESTING} levels") from None
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8: {error.reason} at byte {error.start}") from None
    except ValueError as error:  # JSONDecodeError, or an integer too long to convert
        raise InputError(_first_line(error)) from None
    check_nesting(document)
    return document


def check_nesting(document: object) -> None:
    """An InputError naming the key under which `document` is nested more than `MAX_NESTING` levels."""
    stack: list[tuple[object, int, str]] = [(document, 0, "")]
    while stack:
        value, depth, key = stack.pop()
        if depth > MAX_NESTING:
            where = f"key {key!r}: " if key else ""
            raise InputError(f"{where}nested more than {MAX_NESTING} levels")
        if isinstance(value, dict):
            stack.extend((v, depth + 1, f"{key}.{k}" if key else str(k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, depth + 1, key) for v in value)


def shorten(value: object, limit: int = 60) -> str:
    """`repr(value)`, cut to about `limit` characters, for a one-line error message."""
    if isinstance(value, (list, dict)) and len(value) > limit:
        text = f"<a {type(value).__name__} of {len(value)} entries>"
    elif isinstance(value, str) and len(value) > limit:
        text = repr(value[:limit])
    else:
        text = repr(value)
    return text if len(text) <= limit + 5 else text[:limit] + "...'"


def _size(count: int) -> str:
    return f"{count >> 20} MiB" if count >= 1 << 20 else f"{count} bytes"


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
