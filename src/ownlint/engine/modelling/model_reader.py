"""Reading one table of a model file, validated: the one place that decides what a
value may be, so that every error is one line naming the file and the key.

Bounds (a model file may come from the checked repository):

- integers are positional indexes, tuple elements or bit numbers: from 0 to
  `MAX_INDEX` unless `_INT_RANGES` says otherwise (`out` counts from the end
  when negative; `owner` and `dependencies` use -1 for none); the integers of
  a `path` (constant subscripts) lie within 32 bits;
- every string in a list is a name (a function, a method, a module, a
  keyword, a constant) and must not be empty or blank.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ownlint.inputs import shorten

MAX_INDEX = 255
"""Positional indexes and tuple elements: CPython calls take at most a few hundred arguments in practice."""
_INT_RANGES: dict[str, tuple[int, int]] = {
    "out": (-MAX_INDEX - 1, MAX_INDEX),
    "owner": (-1, MAX_INDEX),
    "dependencies": (-1, MAX_INDEX),
    "read-only-bit": (0, 63),
}
_PATH_RANGE = (-(1 << 31), (1 << 31) - 1)


class ModelError(ValueError):
    """A model file that cannot be used; str() is one line naming the file and key."""


class ModelWarning(UserWarning):
    """A model file that loads but should be rewritten (one line naming the file); the CLI shows it."""


class TableReader:
    """Validates one TOML table, naming the file and key in every error."""

    def __init__(self, path: Path, where: str, table: Any) -> None:
        self.path = path
        self.where = where
        if not isinstance(table, dict):
            self.fail("", "must be a table")
        self.table: dict[str, Any] = table
        self.used: set[str] = set()

    def fail(self, key: str, why: str) -> None:
        k = f"{self.where}.{key}" if key else self.where
        raise ModelError(f"{self.path}: {k}: {why}")

    def get(self, key: str, kind: type | str, default: Any = None, required: bool = False) -> Any:
        self.used.add(key)
        if key not in self.table:
            if required:
                self.fail(key, "missing")
            return default
        value = self.table[key]
        if kind == "tables":
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                raise ModelError(f"{self.path}: [[{key}]]: must be an array of tables")
        elif kind == "list of tables":  # inline tables: `effects = [{ release = 0 }]`
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                self.fail(key, "must be a list of tables (`[{ release = 0 }]`)")
        elif kind is list:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                self.fail(key, "must be a list of strings")
            for name in value:
                if not name.strip():
                    self.fail(key, f"empty name in {shorten(value)}")
        elif kind == "path":  # constant subscripts: strings and integers
            if not isinstance(value, list) or not all(
                isinstance(v, (str, int)) and not isinstance(v, bool) for v in value
            ):
                self.fail(key, "must be a list of strings and integers")
            self._in_range(key, [v for v in value if isinstance(v, int)], _PATH_RANGE)
        elif kind == "ints":
            if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                self.fail(key, "must be a list of integers")
            self._in_range(key, value, _INT_RANGES.get(key, (0, MAX_INDEX)))
        elif kind is int:
            if not isinstance(value, int) or isinstance(value, bool):
                self.fail(key, "must be an integer")
            self._in_range(key, [value], _INT_RANGES.get(key, (0, MAX_INDEX)))
        elif isinstance(kind, type) and not isinstance(value, kind):
            self.fail(key, f"must be a {kind.__name__}")
        return value

    def name(self, key: str) -> str:
        """A required string that names something: not empty."""
        value: str = self.get(key, str, required=True)
        if not value.strip():
            self.fail(key, "empty name")
        return value

    def done(self) -> None:
        extra = sorted(set(self.table) - self.used)
        if extra:
            self.fail(extra[0][:60], "unknown key")

    def _in_range(self, key: str, values: list[int], bounds: tuple[int, int]) -> None:
        low, high = bounds
        for value in values:
            if not low <= value <= high:
                self.fail(key, f"must be from {low} to {high}, got {shorten(value)}")
