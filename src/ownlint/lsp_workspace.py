"""The other files of a document's workspace, for the language server (`ownlint.lsp`).

`ownlint check` analyses a file together with the files of its prefilter
component (`ownlint.engine.frontend.prefilter.select`), so that a helper in another
module that frees its argument is seen. The server does the same for the
document it checks: its root is the innermost workspace folder holding the
file, else the directory of the configuration file found for it; the files
under that root are found as `ownlint check ROOT` finds them (the
configuration's excludes apply), and read from the editor's buffer when it has
them open, else from disk. `api.check_source` keeps the document's component
and reports the document's findings only.

Discovery is cached per root and configuration, and forgotten when a document
is saved or the client reports changed files (`forget`); a file's text read
from disk is cached by its modification time and size.

Discovery is bounded, because an editor may open any folder: a root that is
the file system's root, the user's home directory or a directory above it is
never walked (the document is analysed alone), and a walk that looks at more
than `discovery.MAX_WORKSPACE_ENTRIES` directory entries is abandoned (the
document is analysed alone, and the log says so once per root).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pygls.uris import to_fs_path

from ownlint import api, discovery
from ownlint.config import Config
from ownlint.discovery import discover, display_path

logger = logging.getLogger(__name__)


def key_of(path: str | os.PathLike[str]) -> str:
    """How paths are compared here (symbolic links not resolved, as discovery does)."""
    return os.path.normcase(os.path.abspath(path))


def snapshot(workspace: Any, uris: set[str]) -> tuple[list[Path], dict[str, str]]:
    """The folders of a pygls `workspace` (its root when it has none) and the
    texts of its open documents `uris`, by `key_of` their path."""
    folders = [Path(p) for f in workspace.folders.values() if (p := to_fs_path(f.uri))]
    if not folders and workspace.root_path:
        folders = [Path(workspace.root_path)]
    buffers: dict[str, str] = {}
    for uri in uris:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if path:
            buffers[key_of(path)] = workspace.get_text_document(uri).source
    return folders, buffers


def root_of(path: Path, config: Config, folders: Sequence[Path]) -> Path | None:
    """The directory whose files are analysed with `path`; None: `path` is analysed alone."""
    here = Path(os.path.abspath(path))
    holding = [Path(os.path.abspath(f)) for f in folders if here.is_relative_to(os.path.abspath(f))]
    if holding:
        innermost = max(holding, key=lambda f: len(f.parts))
        return innermost if not _too_wide(innermost) else None
    if config.source is not None and here.is_relative_to(config.root) and not _too_wide(config.root):
        return config.root
    return None


def _too_wide(root: Path) -> bool:
    """Whether `root` is the file system's root, the home directory or above it: no project to walk."""
    home = Path(os.path.abspath(os.path.expanduser("~")))
    return root.parent == root or home.is_relative_to(root)


class WorkspaceFiles:
    """Discovered files per root and their texts on disk, cached between checks
    (used from the server's one worker thread; `forget` from its event loop)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._found: dict[tuple[Path, Config], tuple[Path, ...]] = {}
        self._texts: dict[str, tuple[int, int, str | None]] = {}

    def forget(self) -> None:
        """Discover again on the next check (a file may have been added or removed)."""
        with self._lock:
            self._found.clear()

    def others(
        self, path: Path, config: Config, folders: Sequence[Path], buffers: Mapping[str, str]
    ) -> list[tuple[Path, str]]:
        """The other files (path, text) that `ownlint check` could analyse with
        `path`; `buffers`: the texts of the open documents, by `key_of` their path."""
        root = root_of(path, config, folders)
        if root is None:
            return []
        with self._lock:
            files = self._found.get((root, config))
        if files is None:
            walk = discover([root], config, max_entries=discovery.MAX_WORKSPACE_ENTRIES)
            files = walk.files
            if not walk.complete:
                logger.warning(
                    "%s holds more than %d entries: its files are not analysed with the documents in it",
                    display_path(root),
                    discovery.MAX_WORKSPACE_ENTRIES,
                )
            with self._lock:
                self._found[(root, config)] = files
        skip = key_of(path)
        found: list[tuple[Path, str]] = []
        for file in files:
            key = key_of(file)
            if key == skip:
                continue
            text = buffers.get(key)
            if text is None:
                text = self._read(file, key)
            if text is not None:
                found.append((file, text))
        return found

    def _read(self, file: Path, key: str) -> str | None:
        try:
            stat = file.stat()
        except OSError:
            return None
        cached = self._texts.get(key)
        if cached is not None and cached[:2] == (stat.st_mtime_ns, stat.st_size):
            return cached[2]
        text = api.read_source(file, display_path(file))
        kept = text if isinstance(text, str) else None  # an unreadable file is left out, as from its component
        self._texts[key] = (stat.st_mtime_ns, stat.st_size, kept)
        return kept
