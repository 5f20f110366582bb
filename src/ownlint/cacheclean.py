"""Removing cache entries: `prune` keeps the cache within its total size
after a run, `clean` empties it for one project or all (`ownlint clean`).

Both touch only names of the cache's layout (`ownlint.cachedir`): project
directories `p-<16 hex>`, version directories `v<version>`, shards of two hex
digits, entries of 64 hex digits and `.json`, and temporary files; never
the key, never anything else found in the cache directory, never through a
symbolic link.

The bound: when the entries take more than `MAX_TOTAL_BYTES` (256 MiB) after
a run that wrote some, the least recently used (by modification time: a hit
refreshes it) are removed until they take at most three quarters of it.
Temporary files older than `STALE_TEMPORARY_SECONDS` (left by a killed
process) are removed too.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from ownlint import cachedir

MAX_TOTAL_BYTES = 256 << 20
STALE_TEMPORARY_SECONDS = 3600

_PROJECT = re.compile(r"p-[0-9a-f]{16}")
_VERSION = re.compile(r"v[0-9A-Za-z.+_-]+")
_SHARD = re.compile(r"[0-9a-f]{2}")
_ENTRY = re.compile(r"[0-9a-f]{64}\.json")


def prune(directory: Path) -> int:
    """Remove the least recently used entries under `directory` while they take more than
    `MAX_TOTAL_BYTES` (down to three quarters of it), and stale temporary files; how many were removed."""
    found: list[tuple[float, int, Path]] = []
    removed = 0
    now = time.time()
    for path, info in _walk(directory):
        if path.name.startswith(cachedir.TEMPORARY_PREFIX):
            if now - info.st_mtime > STALE_TEMPORARY_SECONDS:
                removed += cachedir.unlink(path)
        else:
            found.append((info.st_mtime, info.st_size, path))
    total = sum(size for _, size, _ in found)
    if total <= MAX_TOTAL_BYTES:
        return removed
    found.sort()
    for _, size, path in found:
        if total <= MAX_TOTAL_BYTES * 3 // 4:
            break
        if cachedir.unlink(path):
            removed += 1
            total -= size
    return removed


@dataclass(frozen=True, slots=True)
class Cleaned:
    """What `clean` removed."""

    directory: Path
    projects: int
    entries: int
    size: int


def clean(explicit: str | os.PathLike[str] | None, project_root: Path | None) -> Cleaned:
    """Remove the entries of the project at `project_root` (of every project if None) from the cache
    directory; the key and anything ownlint did not make stay. Raises CacheUnusable or OSError."""
    import shutil  # here: not for a run, which only prunes

    directory = cachedir.chosen_dir(explicit)
    if not os.path.lexists(directory):
        return Cleaned(directory, 0, 0, 0)
    cachedir.check_dir(directory)
    if project_root is not None:
        names = [cachedir.project_dir_name(project_root)]
    else:
        names = sorted(e.name for e in os.scandir(directory) if _PROJECT.fullmatch(e.name))
    projects = entries = size = 0
    for name in names:
        target = directory / name
        if os.path.islink(target) or os.path.isfile(target):
            os.unlink(target)
            projects += 1
        elif os.path.isdir(target):
            found = list(_walk_project(target))
            entries += len(found)
            size += sum(info.st_size for _, info in found)
            shutil.rmtree(target)
            projects += 1
    return Cleaned(directory, projects, entries, size)


def _walk(directory: Path) -> list[tuple[Path, os.stat_result]]:
    """The entries and temporary files of every project under `directory` (no link followed)."""
    out: list[tuple[Path, os.stat_result]] = []
    for project in _subdirs(directory, _PROJECT):
        out.extend(_walk_project(project))
    return out


def _walk_project(project: Path) -> list[tuple[Path, os.stat_result]]:
    out: list[tuple[Path, os.stat_result]] = []
    for version in _subdirs(project, _VERSION):
        for shard in _subdirs(version, _SHARD):
            try:
                with os.scandir(shard) as found:
                    for entry in found:
                        if entry.is_file(follow_symlinks=False) and (
                            _ENTRY.fullmatch(entry.name) or entry.name.startswith(cachedir.TEMPORARY_PREFIX)
                        ):
                            out.append((Path(entry.path), entry.stat(follow_symlinks=False)))
            except OSError:
                continue
    return out


def _subdirs(directory: Path, name: re.Pattern[str]) -> list[Path]:
    try:
        with os.scandir(directory) as found:
            return [Path(e.path) for e in found if name.fullmatch(e.name) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return []
