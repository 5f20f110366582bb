"""Checking one document of the language server (`ownlint.lsp`): its text, as the file at its path,
with the configuration found from that path upward (as `ownlint check` would for that file), nothing
for a file that `exclude` or a `.gitignore` leaves out, and the other files of its workspace
(`ownlint.lsp_workspace`). Runs on the server's worker thread; talks to no client."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ownlint import api
from ownlint.config import ConfigError, discover_config
from ownlint.diagnostics import Diagnostic
from ownlint.discovery import excluded_reason
from ownlint.engine.modelling.models import ModelError
from ownlint.lsp_workspace import WorkspaceFiles
from ownlint.notebook import Notebook, NotebookIndex
from ownlint.resolver import Resolver


@dataclass(slots=True)
class Analysis:
    """What checking a buffer gave: findings, or the one-line reason there are none."""

    findings: list[Diagnostic] = field(default_factory=list)
    problem: str | None = None
    notebook: NotebookIndex | None = None  # where the lines of a notebook's joined cells come from


def analyse(
    source: str | Notebook,
    path: Path,
    files: WorkspaceFiles | None = None,
    folders: Sequence[Path] = (),
    buffers: dict[str, str] | None = None,
) -> Analysis:
    """Check `source` as the file at `path`, with the configuration found from `path` upward
    and, given `files`, with the other files of its workspace (`WorkspaceFiles.others`)."""
    try:
        if excluded_reason(path, Resolver()) is not None:
            return Analysis()  # excluded or git-ignored: as `ownlint check --force-exclude` would, say nothing
        config = discover_config(path)
        others = files.others(path, config, folders, buffers or {}) if files is not None else []
        result = api.check_source(source, path, config, others=others)
    except (ConfigError, ModelError) as error:
        return Analysis(problem=str(error))
    problem = "; ".join(f"{e.path}: {e.message}" for e in result.errors) or None
    return Analysis(result.findings, problem, next(iter(result.notebooks.values()), None))
