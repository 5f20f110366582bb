"""Which configuration governs each file, as Ruff resolves it.

`Resolver.for_path` gives the configuration of a file or directory: the one
`--config` names, else the closest configuration file (`ownlint.config`,
looked up once per directory), else the defaults rooted at the working
directory; then the command line's `Overrides` on top. The command line and
the language server both resolve through it, so a file gets the same
configuration whichever of them checks it and whatever else is checked
with it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from ownlint.config import (
    Config,
    ConfigError,
    default_config,
    find_config_file,
    gitignore_spec,
    load_config,
    normalize_code,
)


@dataclass(frozen=True, slots=True)
class Overrides:
    """The command line's settings, applied over every configuration file.

    `select` replaces the file's `select` (and, as in Ruff, drops its `ignore`);
    `extend_select` and `ignore` add to them; `exclude` replaces the file's
    `exclude` patterns and `extend_exclude` adds to them (both matched, like the
    file's, relative to the configuration file's directory). A code that names
    no rule is a ConfigError when the overrides are applied."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # codes are checked as they are applied (`apply`), once the configuration has loaded its checkers,
        # whose codes they may name
        for patterns in (self.exclude or (), self.extend_exclude):
            gitignore_spec(tuple(patterns))  # ValueError on a bad pattern

    @classmethod
    def from_command_line(
        cls,
        select: tuple[str, ...],
        extend_select: tuple[str, ...],
        ignore: tuple[str, ...],
        exclude: tuple[str, ...],
        extend_exclude: tuple[str, ...],
    ) -> Overrides:
        """The options as given (each repeatable, each value comma-separated); a ConfigError naming the
        option when one is empty (`--select ''`) or wrong."""
        try:
            return cls(
                select=_listed(select, "--select") if select else None,
                extend_select=_listed(extend_select, "--extend-select"),
                ignore=_listed(ignore, "--ignore"),
                exclude=_listed(exclude, "--exclude") if exclude else None,
                extend_exclude=_listed(extend_exclude, "--extend-exclude"),
            )
        except ConfigError:
            raise
        except ValueError as error:  # pathspec's word on a bad pattern
            raise ConfigError(f"--exclude: bad pattern: {error}") from None

    def apply(self, config: Config) -> Config:
        config = config.with_overrides(select=self.select, ignore=self.ignore)
        if self.extend_select:
            extra = tuple(normalize_code(c, "--extend-select") for c in self.extend_select)
            config = replace(config, select=config.select + extra)
        if self.exclude is not None:
            config = replace(config, exclude=self.exclude)
        if self.extend_exclude:
            config = replace(config, exclude=config.exclude + self.extend_exclude)
        return config


def _listed(values: tuple[str, ...], option: str) -> tuple[str, ...]:
    """The entries of a repeatable, comma-separated option; a ConfigError when a value names nothing."""
    entries: list[str] = []
    for value in values:
        named = [e for e in (part.strip() for part in value.split(",")) if e]
        if not named:
            raise ConfigError(
                f"{option} {value!r} is empty; name what it means (codes like OWN201, prefixes like OWN2, patterns)"
            )
        entries += named
    return tuple(entries)


class Resolver:
    """The configuration of each path (see the module's docstring); caches per directory and file."""

    def __init__(self, fixed: Config | None = None, overrides: Overrides | None = None) -> None:
        self.fixed = fixed
        self.overrides = overrides or Overrides()
        self._by_directory: dict[Path, Config] = {}
        self._by_file: dict[Path | None, Config] = {}  # None: the defaults (no file configures ownlint)

    @classmethod
    def of(cls, config: Config | Resolver) -> Resolver:
        """`config` as a resolver: a single configuration governs every file."""
        return config if isinstance(config, Resolver) else cls(fixed=config)

    def for_path(self, path: str | os.PathLike[str]) -> Config:
        """The configuration of the file or directory at `path` (which need not exist)."""
        here = Path(os.path.abspath(path))
        directory = here if here.is_dir() else here.parent
        found = self._by_directory.get(directory)
        if found is None:
            found = self._by_directory[directory] = self._resolve(directory)
        return found

    def _resolve(self, directory: Path) -> Config:
        if self.fixed is not None:
            return self.overrides.apply(self.fixed)
        file = find_config_file(directory)
        config = self._by_file.get(file)
        if config is None:
            loaded = load_config(file) if file is not None else default_config()
            config = self._by_file[file] = self.overrides.apply(loaded)
        return config
