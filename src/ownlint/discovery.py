"""Which files a run checks.

Under each directory given: every `.py` and `.pyi` file, except what a
`.gitignore` ignores, hidden directories (a name starting with "."), virtual
environments (a directory holding `pyvenv.cfg`), `site-packages`,
`__pycache__`, and the configuration's `exclude` patterns. A file given
explicitly is always checked, whatever its name and whatever excludes it
(Ruff's behaviour without `--force-exclude`).

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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ownlint.config import Config
from ownlint.diagnostics import FileError
from ownlint.inputs import MAX_CONFIG_BYTES, InputError, read_regular

if TYPE_CHECKING:
    import pathspec  # imported where an ignore file is read: it costs a fully cached run 50 ms

PYTHON_SUFFIXES = (".py", ".pyi")
SKIPPED_DIR_NAMES = frozenset({"site-packages", "__pycache__"})
MAX_WORKSPACE_ENTRIES = 50_000
"""The directory entries the language server's walk of a workspace looks at, at most (`discover`'s `max_entries`)."""


@dataclass(frozen=True, slots=True)
class Discovery:
    """The files to check (absolute, symbolic links not resolved) and the paths that could not be walked;
    `complete` is False when the walk stopped at `max_entries`."""

    files: tuple[Path, ...]
    errors: tuple[FileError, ...]
    complete: bool = True


class _TooMany(Exception):
    """A walk went past its `max_entries`."""


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


def discover(paths: Sequence[str | os.PathLike[str]], config: Config, *, max_entries: int | None = None) -> Discovery:
    """The files under `paths`, deduplicated and sorted by their displayed path; with `max_entries`,
    the walk stops after looking at that many directory entries (and the result is not `complete`)."""
    found: dict[str, Path] = {}
    errors: list[FileError] = []
    budget = [max_entries] if max_entries is not None else None
    for given in paths:
        path = Path(os.path.abspath(given))
        try:
            mode = os.stat(path).st_mode
        except OSError as error:
            reason = "no such file or directory" if error.errno in (errno.ENOENT, errno.ENOTDIR) else None
            errors.append(FileError(display_path(path), reason or f"cannot read: {error.strerror or error}"))
            continue
        if stat.S_ISDIR(mode):
            try:
                walked = _walk(path, config, errors, budget)
            except _TooMany:
                return Discovery((), tuple(errors), complete=False)
            for file in walked:
                found.setdefault(os.path.normcase(file), file)
        elif stat.S_ISREG(mode):
            found.setdefault(os.path.normcase(path), path)
        else:
            errors.append(FileError(display_path(path), "not a regular file or directory"))
    shown = {file: display_path(file) for file in found.values()}
    files = sorted(found.values(), key=shown.__getitem__)
    return Discovery(tuple(files), tuple(errors))


def _walk(root: Path, config: Config, errors: list[FileError], budget: list[int] | None = None) -> list[Path]:
    """The Python files under `root`, depth first; the root itself is never skipped. `budget`: the
    directory entries still to look at (a one-element list, shared by the paths of one run)."""
    files: list[Path] = []
    exclude = config.exclude_spec()
    stack: list[tuple[Path, tuple[_IgnoreFile, ...]]] = [(root, _enclosing_ignore_files(root))]
    while stack:
        directory, inherited = stack.pop()
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
                if not _is_skipped_dir(path) and not _is_ignored(path, True, ignores, config, exclude):
                    subdirectories.append((path, ignores))
            elif entry.name.endswith(PYTHON_SUFFIXES):
                try:
                    regular = entry.is_file()
                except OSError as error:  # a symbolic link loop (ELOOP) and the like
                    errors.append(FileError(display_path(path), f"cannot read: {error.strerror or error}"))
                    continue
                if regular and not _is_ignored(path, False, ignores, config, exclude):
                    files.append(path)
        stack.extend(reversed(subdirectories))
    return files


def _is_skipped_dir(path: Path) -> bool:
    name = path.name
    # os.path.isfile: a directory we may not look into is no virtual environment (its walk says why)
    return name.startswith(".") or name in SKIPPED_DIR_NAMES or os.path.isfile(path / "pyvenv.cfg")


def _is_ignored(
    path: Path,
    is_dir: bool,
    ignores: Iterable[_IgnoreFile],
    config: Config,
    exclude: pathspec.GitIgnoreSpec | None,
) -> bool:
    suffix = "/" if is_dir else ""
    if exclude is not None:
        relative = config.relative_to_root(path)
        if relative is not None and exclude.match_file(relative + suffix):
            return True
    ignored = False
    for ignore_file in ignores:  # outermost first: a deeper .gitignore overrides, as in git
        result = ignore_file.spec.check_file(path.relative_to(ignore_file.base).as_posix() + suffix)
        if result.include is not None:
            ignored = result.include
    return ignored


def _enclosing_ignore_files(root: Path) -> tuple[_IgnoreFile, ...]:
    """The ignore files that apply to `root` from above it, when it lies in a git work tree."""
    top = _git_work_tree(root)
    if top is None:
        return ()
    layers = _read_ignore_file(top / ".git" / "info" / "exclude", top)
    directory = top
    for part in root.relative_to(top).parts:
        layers += _read_ignore_file(directory / ".gitignore", directory)
        directory = directory / part
    if root != top and _ignored_by(root, layers):
        # a directory the user names is checked even where git ignores it (as a
        # named file is); the .gitignore files inside it still apply
        return ()
    return layers


def _ignored_by(path: Path, layers: tuple[_IgnoreFile, ...]) -> bool:
    ignored = False
    for layer in layers:
        result = layer.spec.check_file(path.relative_to(layer.base).as_posix() + "/")
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
