"""Which files a run checks.

Under each directory given: every `.py`, `.pyi` and `.ipynb` file (Jupyter
notebooks, as Ruff since 0.6: `ownlint.notebook`), except what a
`.gitignore` ignores, hidden directories (a name starting with "."), virtual
environments (a directory holding `pyvenv.cfg`), `site-packages`,
`__pycache__`, and the `exclude` patterns of the configuration that governs
each directory (`ownlint.resolver`: the closest one). A file or directory
given explicitly is checked, whatever its name and whatever excludes it,
unless `force_exclude` (Ruff's `--force-exclude`, which the pre-commit hook
uses) applies the excludes to it too. Why each path was left out is kept
(`Discovery.skipped`) for `--show-files` and for the warning about an
excluded path given explicitly.

`.gitignore` files are read from the given directory downward and, when that
directory lies inside a git work tree, from the work tree's root down to it
(with `.git/info/exclude`). Not read: the user's global excludes file
(`core.excludesFile`). Symbolic links to directories are not followed, so a
link loop cannot hang a run; links to files are checked.

A path that cannot be read (a directory or file without permission, found or
named) is an error entry naming it, and the walk goes on. Only regular files
are checked: a FIFO or a device, found or named, is never opened (a named one
is an error entry). `max_entries` bounds a walk for the language server, which
must not walk a whole disk because an editor opened `/`.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ownlint.config import Config
from ownlint.diagnostics import FileError
from ownlint.inputs import MAX_CONFIG_BYTES, InputError, read_regular
from ownlint.resolver import Resolver

if TYPE_CHECKING:
    import pathspec  # imported where an ignore file is read: it costs a fully cached run 50 ms

PYTHON_SUFFIXES = (".py", ".pyi", ".ipynb")
SKIPPED_DIR_NAMES = frozenset({"site-packages", "__pycache__"})
MAX_WORKSPACE_ENTRIES = 50_000
"""The directory entries the language server's walk of a workspace looks at, at most (`discover`'s `max_entries`)."""


@dataclass(frozen=True, slots=True)
class Discovery:
    """The files to check (absolute, symbolic links not resolved) and the paths that could not be walked;
    `complete` is False when the walk stopped at `max_entries`."""

    files: tuple[Path, ...]
    errors: tuple[FileError, ...]
    skipped: tuple[Skipped, ...] = ()
    complete: bool = True


class _TooMany(Exception):
    """A walk went past its `max_entries`."""


@dataclass(frozen=True, slots=True)
class Skipped:
    """A path left out and why ("excluded by `exclude` in pyproject.toml", "ignored by .gitignore", ...);
    `explicit`: it was given on the command line."""

    path: Path
    reason: str
    explicit: bool = False


@dataclass(frozen=True, slots=True)
class _IgnoreFile:
    """The patterns of one `.gitignore`, relative to the directory `base`."""

    base: Path
    spec: pathspec.GitIgnoreSpec


def display_path(path: str | os.PathLike[str]) -> str:
    """A path as ownlint shows it: relative to the working directory with "/", absolute when outside it."""
    absolute = os.path.abspath(path)  # string operations: pathlib costs 40 µs a file here
    cwd = os.getcwd()
    if absolute == cwd:
        return "."
    prefix = cwd if cwd.endswith(os.sep) else cwd + os.sep
    shown = absolute[len(prefix) :] if absolute.startswith(prefix) else absolute
    return shown if os.sep == "/" else shown.replace(os.sep, "/")


def discover(
    paths: Sequence[str | os.PathLike[str]],
    config: Config | Resolver,
    *,
    force_exclude: bool = False,
    max_entries: int | None = None,
) -> Discovery:
    """The files under `paths`, deduplicated and sorted by their displayed path. `config`: one configuration
    for every file, or a `Resolver` that gives each directory its own. With `max_entries`, the walk stops
    after looking at that many directory entries (and the result is not `complete`)."""
    resolver = Resolver.of(config)
    found: dict[str, Path] = {}
    errors: list[FileError] = []
    skipped: list[Skipped] = []
    budget = [max_entries] if max_entries is not None else None
    for given in paths:
        path = Path(os.path.abspath(given))
        try:
            mode = os.stat(path).st_mode
        except OSError as error:
            reason = "no such file or directory" if error.errno in (errno.ENOENT, errno.ENOTDIR) else None
            errors.append(FileError(display_path(path), reason or f"cannot read: {error.strerror or error}"))
            continue
        is_dir = stat.S_ISDIR(mode)
        if (is_dir or stat.S_ISREG(mode)) and force_exclude:
            why = _explicitly_excluded(path, is_dir, resolver)
            if why is not None:
                skipped.append(Skipped(path, why, explicit=True))
                continue
        if is_dir:
            try:
                walked = _walk(path, resolver, errors, skipped, budget)
            except _TooMany:
                return Discovery((), tuple(errors), tuple(skipped), complete=False)
            for file in walked:
                found.setdefault(os.path.normcase(file), file)
        elif stat.S_ISREG(mode):
            found.setdefault(os.path.normcase(path), path)
        else:
            errors.append(FileError(display_path(path), "not a regular file or directory"))
    shown = {file: display_path(file) for file in found.values()}
    files = sorted(found.values(), key=shown.__getitem__)
    return Discovery(tuple(files), tuple(errors), tuple(skipped))


def excluded_reason(path: Path, resolver: Resolver) -> str | None:
    """Why the file or directory at `path`, given explicitly, is left out under `--force-exclude`; None: it is not."""
    absolute = Path(os.path.abspath(path))
    return _explicitly_excluded(absolute, absolute.is_dir(), resolver)


def _explicitly_excluded(path: Path, is_dir: bool, resolver: Resolver) -> str | None:
    """Why `path`, given explicitly, is excluded (with `--force-exclude`): by its configuration's `exclude`,
    the directory above it that is, or a `.gitignore`; None when it is not."""
    for candidate in (path, *path.parents):
        config = resolver.for_path(candidate.parent)
        why = _excluded_by(candidate, is_dir or candidate != path, config, config.exclude_spec())
        if why is not None:
            return why
    layers = _enclosing_ignore_files(path.parent, keep_ignored=True)
    layers += _read_ignore_file(path.parent / ".gitignore", path.parent)
    if _git_work_tree(path.parent) is not None and _ignored_by(path, layers, "/" if is_dir else ""):
        return "ignored by .gitignore"
    return None


def _walk(
    root: Path, resolver: Resolver, errors: list[FileError], skipped: list[Skipped], budget: list[int] | None = None
) -> list[Path]:
    """The Python files under `root`, depth first; the root itself is never skipped, nor excluded by the
    patterns that match it (it was named explicitly). `budget`: the directory entries still to look at
    (a one-element list, shared by the paths of one run)."""
    files: list[Path] = []
    root_config = resolver.for_path(root)
    unexcluded = _without_patterns_matching(root, root_config)
    stack: list[tuple[Path, tuple[_IgnoreFile, ...]]] = [(root, _enclosing_ignore_files(root))]
    while stack:
        directory, inherited = stack.pop()
        config = resolver.for_path(directory)
        if unexcluded is not None and config is root_config:
            config = unexcluded
        exclude = config.exclude_spec()
        ignores = inherited + _read_ignore_file(directory / ".gitignore", directory)
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError as error:
            errors.append(FileError(display_path(directory), f"cannot read: {error.strerror or error}"))
            continue
        if budget is not None:
            budget[0] -= len(entries)
            if budget[0] < 0:
                raise _TooMany
        subdirectories = []
        for entry in entries:
            path = directory / entry.name
            if entry.is_dir(follow_symlinks=False):
                why = _skipped_dir(path) or _is_ignored(path, True, ignores, config, exclude)
                if why is None:
                    subdirectories.append((path, ignores))
                else:
                    skipped.append(Skipped(path, why))
            elif entry.name.endswith(PYTHON_SUFFIXES):
                try:
                    regular = entry.is_file()
                except OSError as error:  # a symbolic link loop (ELOOP) and the like
                    errors.append(FileError(display_path(path), f"cannot read: {error.strerror or error}"))
                    continue
                why = _is_ignored(path, False, ignores, config, exclude) if regular else None
                if why is not None:
                    skipped.append(Skipped(path, why))
                elif regular:
                    files.append(path)
        stack.extend(reversed(subdirectories))
    return files


def _without_patterns_matching(root: Path, config: Config) -> Config | None:
    """`config` without the `exclude` patterns that match `root` itself (None: none does)."""
    relative = config.relative_to_root(root)
    if not config.exclude or relative is None or relative == ".":
        return None
    from ownlint.config import gitignore_spec

    kept = tuple(p for p in config.exclude if not gitignore_spec((p,)).match_file(relative + "/"))
    return replace(config, exclude=kept) if len(kept) < len(config.exclude) else None


def _skipped_dir(path: Path) -> str | None:
    name = path.name
    if name.startswith("."):
        return "hidden directory"
    if name in SKIPPED_DIR_NAMES:
        return f"{name} directory"
    if os.path.isfile(path / "pyvenv.cfg"):  # os.path: a directory we may not look into is no environment
        return "virtual environment"
    return None


def _excluded_by(path: Path, is_dir: bool, config: Config, exclude: pathspec.GitIgnoreSpec | None) -> str | None:
    if exclude is None:
        return None
    relative = config.relative_to_root(path)
    if relative is None or relative == "." or not exclude.match_file(relative + ("/" if is_dir else "")):
        return None
    where = f" in {display_path(config.source)}" if config.source is not None else " on the command line"
    return f"excluded by `exclude`{where}"


def _is_ignored(
    path: Path,
    is_dir: bool,
    ignores: tuple[_IgnoreFile, ...],
    config: Config,
    exclude: pathspec.GitIgnoreSpec | None,
) -> str | None:
    """Why the walk leaves `path` out (its configuration's `exclude`, a `.gitignore`), or None."""
    why = _excluded_by(path, is_dir, config, exclude)
    if why is not None:
        return why
    return "ignored by .gitignore" if _ignored_by(path, ignores, "/" if is_dir else "") else None


def _enclosing_ignore_files(root: Path, keep_ignored: bool = False) -> tuple[_IgnoreFile, ...]:
    """The ignore files that apply to `root` from above it, when it lies in a git work tree."""
    top = _git_work_tree(root)
    if top is None:
        return ()
    layers = _read_ignore_file(top / ".git" / "info" / "exclude", top)
    directory = top
    for part in root.relative_to(top).parts:
        layers += _read_ignore_file(directory / ".gitignore", directory)
        directory = directory / part
    if root != top and not keep_ignored and _ignored_by(root, layers, "/"):
        # a directory the user names is checked even where git ignores it (as a
        # named file is); the .gitignore files inside it still apply
        return ()
    return layers


def _ignored_by(path: Path, layers: tuple[_IgnoreFile, ...], suffix: str) -> bool:
    ignored = False
    for layer in layers:  # outermost first: a deeper .gitignore overrides, as in git
        result = layer.spec.check_file(path.relative_to(layer.base).as_posix() + suffix)
        if result.include is not None:
            ignored = result.include
    return ignored


def _git_work_tree(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        if os.path.exists(directory / ".git"):  # False where we may not look
            return directory
    return None


def _read_ignore_file(file: Path, base: Path) -> tuple[_IgnoreFile, ...]:
    """The patterns of `file`, or nothing when it is missing, unreadable, not a regular file (a FIFO is
    never opened) or invalid (git skips those too)."""
    try:
        text = read_regular(file, MAX_CONFIG_BYTES).decode("utf-8", errors="replace")
    except InputError:
        return ()
    import pathspec  # only where there is an ignore file to read

    try:
        spec = pathspec.GitIgnoreSpec.from_lines(text.splitlines())
    except ValueError:
        return ()
    return (_IgnoreFile(base, spec),)
