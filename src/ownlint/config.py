"""Configuration: `[tool.ownlint]` in `pyproject.toml`, or `ownlint.toml` / `.ownlint.toml`.

As in Ruff, each file is governed by the configuration file closest to it
(`Resolver`): in its directory or the nearest one above. Files are not merged,
except through `extend = "path/to/other.toml"`, whose settings the extending
file inherits and overrides key by key. There is no user-wide configuration.
`--config FILE` governs every file; the command line's options
(`Overrides`) apply on top of whichever file governs. Values are validated
when read: an unknown key or a bad value is a `ConfigError` whose message is
one line naming the file and the key.

Rule selection follows Ruff: a code is enabled when the longest `select`
prefix that matches it is longer than the longest `ignore` prefix that matches
it (on a tie, ignore wins). OWN001 (the file does not parse) is reported even
when `select` does not name it, unless something ignores it. A preview rule
(`Rule.preview`) is enabled only where `select` names its exact code: a
prefix does not turn it on. A selector is a code or prefix of ownlint's
(`OWN2`), a code or prefix of a loaded outside checker's rules
(`checkers`, `ownlint.outside`), or a rule's kebab-case name (its code).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ownlint import outside
from ownlint.inputs import MAX_CONFIG_BYTES, InputError, parse_toml, read_regular, shorten
from ownlint.selection import ConfigError as ConfigError  # configuration errors, and the codes they name
from ownlint.selection import is_selected, longest_prefix
from ownlint.selection import normalize_code as normalize_code

CONFIG_FILE_NAMES = (".ownlint.toml", "ownlint.toml", "pyproject.toml")
"""Looked for in this order in each directory; the first one that configures ownlint wins."""

PARSE_ERROR_CODE = "OWN001"
MIN_PAGE_SIZE = 4096
MAX_PAGE_SIZE = 1 << 30

_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_KNOWN_KEYS = frozenset(
    {
        "extend",
        "select",
        "extend-select",
        "ignore",
        "exclude",
        "models",
        "interop-modules",
        "page-size",
        "per-file-ignores",
        "checkers",
    }
)

if TYPE_CHECKING:
    import pathspec  # imported where used: it costs a fully cached run 50 ms

    from ownlint.rule import Rule


@dataclass(frozen=True, slots=True)
class PerFileIgnore:
    """Codes (or prefixes) ignored in the files a gitignore-style pattern matches."""

    pattern: str
    codes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Config:
    """The resolved configuration of one run.

    `root` is the directory that `exclude` and `per-file-ignores` patterns are
    relative to: the configuration file's directory, or the working directory
    when there is no configuration file (`source` is then None).
    """

    root: Path
    source: Path | None = None
    select: tuple[str, ...] = ("OWN",)
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    models: tuple[Path, ...] = ()
    interop_modules: tuple[str, ...] = ()
    page_size: int | None = None  # None: symbolic
    per_file_ignores: tuple[PerFileIgnore, ...] = ()
    checkers: tuple[str, ...] = ()  # checkers from outside ownlint, "module:Class" (`ownlint.outside`)

    def is_enabled(self, code: str, path: str | os.PathLike[str], rules: Mapping[str, Rule] | None = None) -> bool:
        """Whether `code` is reported in the file at `path` (relative to the working directory or absolute);
        `rules`: where to learn whether it is a preview rule (default: the registry)."""
        ignore = self.ignore + self._per_file_codes(path)
        ignored_by = longest_prefix(code, ignore)
        if code == PARSE_ERROR_CODE:
            return ignored_by == 0
        return is_selected(code, self.select, ignored_by, rules)

    def with_overrides(self, select: Iterable[str] | None = None, ignore: Iterable[str] = ()) -> Config:
        """The configuration after the command line's `--select` (replaces) and `--ignore` (extends).

        A command-line `--select` also drops the file's `ignore`, as in Ruff:
        what is selected on the command line is what runs.
        """
        extra_ignore = tuple(normalize_code(c, "--ignore") for c in ignore)
        if select is None:
            return replace(self, ignore=self.ignore + extra_ignore)
        chosen = tuple(normalize_code(c, "--select") for c in select)
        return replace(self, select=chosen, ignore=extra_ignore)

    def exclude_spec(self) -> pathspec.GitIgnoreSpec | None:
        """The `exclude` patterns, matched against paths relative to `root` (None: there are none)."""
        return gitignore_spec(self.exclude) if self.exclude else None

    def relative_to_root(self, path: str | os.PathLike[str]) -> str | None:
        """`path` relative to `root`, with "/", or None when it lies outside `root`."""
        absolute = Path(os.path.abspath(path))
        try:
            return absolute.relative_to(self.root).as_posix()
        except ValueError:
            return None

    def _per_file_codes(self, path: str | os.PathLike[str]) -> tuple[str, ...]:
        if not self.per_file_ignores:
            return ()
        relative = self.relative_to_root(path)
        if relative is None:
            return ()
        return _PerFileMatcher.of(self.per_file_ignores).codes_for(relative)


class _PerFileMatcher:
    """The `per-file-ignores` of one configuration, each pattern compiled once, and the codes found
    for each path remembered: asking per finding costs a dictionary look-up, however many patterns
    there are (compiling them per question made a run with 600 patterns about 50 times slower)."""

    _built: ClassVar[dict[int, tuple[tuple[PerFileIgnore, ...], _PerFileMatcher]]] = {}

    def __init__(self, entries: tuple[PerFileIgnore, ...]) -> None:
        import pathspec

        self._entries = [(pathspec.GitIgnoreSpec.from_lines([e.pattern]), e.codes) for e in entries]
        self._codes: dict[str, tuple[str, ...]] = {}

    @classmethod
    def of(cls, entries: tuple[PerFileIgnore, ...]) -> _PerFileMatcher:
        """The matcher of `entries`, built on first use (keyed by identity: the tuple is kept alive
        beside its matcher, so its id cannot be reused while cached)."""
        cached = cls._built.get(id(entries))
        if cached is not None and cached[0] is entries:
            return cached[1]
        if len(cls._built) >= 8:
            cls._built.clear()
        matcher = cls(entries)
        cls._built[id(entries)] = (entries, matcher)
        return matcher

    def codes_for(self, relative: str) -> tuple[str, ...]:
        codes = self._codes.get(relative)
        if codes is None:
            codes = tuple(c for spec, entry_codes in self._entries if spec.match_file(relative) for c in entry_codes)
            self._codes[relative] = codes
        return codes


@functools.lru_cache(maxsize=256)
def gitignore_spec(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    """Gitignore-style patterns, compiled once."""
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns)


def default_config(root: Path | None = None) -> Config:
    """The configuration used when no file configures ownlint."""
    return Config(root=Path(os.path.abspath(root if root is not None else Path.cwd())))


def find_config_file(start: str | os.PathLike[str]) -> Path | None:
    """The nearest configuration file at or above `start` (a file or a directory, which need not exist)."""
    here = Path(os.path.abspath(start))
    if not os.path.isdir(here):  # os.path: False, not PermissionError, under a directory we may not enter
        here = here.parent
    for directory in (here, *here.parents):
        for name in CONFIG_FILE_NAMES:
            candidate = directory / name
            if os.path.isfile(candidate) and _configures_ownlint(candidate):  # False where we may not look
                return candidate
    return None


def discover_config(start: str | os.PathLike[str] | None = None) -> Config:
    """The configuration for a run on `start` (default: the working directory)."""
    found = find_config_file(start if start is not None else Path.cwd())
    return load_config(found) if found is not None else default_config()


def load_config(path: str | os.PathLike[str], _extending: tuple[Path, ...] = ()) -> Config:
    """Read and validate one configuration file (`--config FILE` or a discovered one), with what it `extend`s."""
    file = Path(os.path.abspath(path))
    if file in _extending:
        chain = " -> ".join(_shown(f) for f in (*_extending, file))
        raise ConfigError(f"{_shown(_extending[-1])}: key 'extend': a cycle: {chain}")
    document = _read_toml(file)
    if file.name == "pyproject.toml":
        tool = document.get("tool", {})
        table = tool.get("ownlint", {}) if isinstance(tool, dict) else {}
        where = f"{_shown(file)}: [tool.ownlint]"
    else:
        table = document
        where = _shown(file) + ":"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    parent = _extended(table, file, where, (*_extending, file))
    return _from_table(table, file, where, parent)


def _extended(table: Mapping[str, Any], file: Path, where: str, chain: tuple[Path, ...]) -> Config | None:
    """The configuration `table`'s `extend` names (relative to `file`'s directory), or None."""
    if "extend" not in table:
        return None
    target = table["extend"]
    if not isinstance(target, str):
        raise ConfigError(f"{where} key 'extend': expected the path of a configuration file, got {target!r}")
    path = Path(os.path.abspath(file.parent / os.path.expanduser(target)))
    if not path.is_file():
        raise ConfigError(f"{where} key 'extend': no such file {target!r}")
    return load_config(path, chain)


def _configures_ownlint(file: Path) -> bool:
    """A pyproject.toml counts only with a [tool.ownlint] table; the other names always count."""
    if file.name != "pyproject.toml":
        return True
    document = _read_toml(file)
    tool = document.get("tool")
    return isinstance(tool, dict) and "ownlint" in tool


def _read_toml(file: Path) -> dict[str, Any]:
    """The document of a configuration file: a regular file, bounded in size and nesting (`ownlint.inputs`)."""
    try:
        return parse_toml(read_regular(file, MAX_CONFIG_BYTES))
    except InputError as error:
        raise ConfigError(f"{_shown(file)}: {error}") from None


def _shown(file: Path) -> str:
    """The file as the user knows it: relative to the working directory when inside it."""
    try:
        return file.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return file.as_posix()


def _from_table(table: Mapping[str, Any], file: Path, where: str, parent: Config | None = None) -> Config:
    for key in table:
        if key not in _KNOWN_KEYS:
            raise ConfigError(f"{where} unknown key {shorten(key)}")
    base = file.parent

    def codes(key: str) -> tuple[str, ...]:
        return tuple(normalize_code(c, f"{where} key {key!r}") for c in _string_list(table, key, where))

    config = replace(parent, root=base, source=file) if parent is not None else Config(root=base, source=file)
    if "checkers" in table:  # first: its rules' codes may be selected below
        config = replace(config, checkers=_checkers(table, where))
    if "select" in table:
        config = replace(config, select=codes("select"))
    if "extend-select" in table:
        config = replace(config, select=config.select + codes("extend-select"))
    if "ignore" in table:
        config = replace(config, ignore=codes("ignore"))
    if "exclude" in table:
        config = replace(config, exclude=_patterns(table, "exclude", where))
    if "models" in table:
        config = replace(config, models=_model_paths(table, base, where))
    if "interop-modules" in table:
        config = replace(config, interop_modules=_module_names(table, where))
    if "page-size" in table:
        config = replace(config, page_size=_page_size(table["page-size"], where))
    if "per-file-ignores" in table:
        config = replace(config, per_file_ignores=_per_file_ignores(table["per-file-ignores"], where))
    return config


def _string_list(table: Mapping[str, Any], key: str, where: str) -> list[str]:
    value = table[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} key {key!r}: expected a list of strings, got {shorten(value)}")
    return value


def _patterns(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    patterns = _string_list(table, key, where)
    try:
        gitignore_spec(tuple(patterns))
    except ValueError as error:
        raise ConfigError(f"{where} key {key!r}: bad pattern: {error}") from None
    return tuple(patterns)


def _model_paths(table: Mapping[str, Any], base: Path, where: str) -> tuple[Path, ...]:
    paths = []
    for entry in _string_list(table, "models", where):
        path = Path(os.path.abspath(base / entry))
        if not path.is_file():
            raise ConfigError(f"{where} key 'models': no such file {shorten(entry)}")
        paths.append(path)
    return tuple(paths)


def _module_names(table: Mapping[str, Any], where: str) -> tuple[str, ...]:
    names = _string_list(table, "interop-modules", where)
    for name in names:
        if not _MODULE_NAME.fullmatch(name):
            raise ConfigError(f"{where} key 'interop-modules': {shorten(name)} is not a dotted module name")
    return tuple(names)


def _checkers(table: Mapping[str, Any], where: str) -> tuple[str, ...]:
    specs = tuple(_string_list(table, "checkers", where))
    for spec in specs:
        try:
            outside.load(spec)
        except outside.CheckerError as error:
            raise ConfigError(f"{where} key 'checkers': {error}") from None
    return specs


def _page_size(value: object, where: str) -> int | None:
    if value == "symbolic":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        if MIN_PAGE_SIZE <= value <= MAX_PAGE_SIZE and value & (value - 1) == 0:
            return value
    raise ConfigError(
        f"{where} key 'page-size': expected \"symbolic\" or a power of two from {MIN_PAGE_SIZE} to {MAX_PAGE_SIZE},"
        f" got {shorten(value)}"
    )


def _per_file_ignores(value: object, where: str) -> tuple[PerFileIgnore, ...]:
    if not isinstance(value, dict):
        raise ConfigError(
            f"{where} key 'per-file-ignores': expected a table of pattern = [codes], got {shorten(value)}"
        )
    entries = []
    for pattern, codes in value.items():
        inner = f"{where} key 'per-file-ignores' {shorten(pattern)}"
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError(f"{inner}: expected a list of codes, got {shorten(codes)}")
        entries.append(PerFileIgnore(pattern, tuple(normalize_code(c, inner) for c in codes)))
    result = tuple(entries)
    try:
        _PerFileMatcher.of(result)  # each pattern compiled once, here (the Config keeps this tuple); a bad one named
    except ValueError:
        for entry in entries:
            try:
                gitignore_spec((entry.pattern,))
            except ValueError as error:
                raise ConfigError(
                    f"{where} key 'per-file-ignores' {shorten(entry.pattern)}: bad pattern: {error}"
                ) from None
        raise
    return result
