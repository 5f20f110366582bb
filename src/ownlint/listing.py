"""What `ownlint check` prints instead of findings, as Ruff's options do:
`--show-files` (every file checked or skipped, and why), `--show-settings`
(the configuration that governs each path given) and `--diff` (the fixes,
as a unified diff, written nowhere).

A file that discovery keeps but that names nothing a model knows is
"skipped (... prefilter)": it is read, never parsed (`ownlint.engine.frontend.prefilter`).
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path

from ownlint.api import RunResult, module_name, read_source
from ownlint.config import Config
from ownlint.diagnostics import Diagnostic
from ownlint.discovery import discover, display_path
from ownlint.engine.frontend import prefilter
from ownlint.engine.modelling.models import load_models
from ownlint.engine.program.sources import SourceFile
from ownlint.fixes import apply_fixes, is_applicable
from ownlint.resolver import Resolver

PREFILTERED = "names nothing a model knows: prefilter"


def show_files(paths: Sequence[str | os.PathLike[str]], resolver: Resolver, force_exclude: bool, as_json: bool) -> str:
    """One line per path, sorted: `PATH: checked` or `PATH: skipped (why)`; a JSON list with `as_json`."""
    found = discover(paths, resolver, force_exclude=force_exclude)
    entries: dict[str, str | None] = {display_path(s.path): s.reason for s in found.skipped}
    sources: list[SourceFile] = []
    by_models: dict[tuple[Path, ...], list[int]] = {}
    for file in found.files:
        shown = display_path(file)
        text = read_source(file, shown)
        if isinstance(text, str):
            by_models.setdefault(resolver.for_path(file).models, []).append(len(sources))
            sources.append(SourceFile(shown, text, module_name(file)))
        else:
            entries[shown] = text.message
    for models, indices in by_models.items():
        chosen = [sources[i] for i in indices]
        selected = {i for component in prefilter.select(chosen, load_models(models)) for i in component}
        for i, source in enumerate(chosen):
            entries[source.path] = None if i in selected else PREFILTERED
    for error in found.errors:
        entries[error.path] = error.message
    ordered = sorted(entries.items())
    if as_json:
        listed = [
            {"path": path, "checked": why is None, **({"reason": why} if why is not None else {})}
            for path, why in ordered
        ]
        return json.dumps(listed, indent=2) + "\n"
    return "".join(f"{path}: checked\n" if why is None else f"{path}: skipped ({why})\n" for path, why in ordered)


def show_settings(paths: Sequence[str | os.PathLike[str]], resolver: Resolver) -> str:
    """The configuration of each path given (once per configuration), in TOML."""
    blocks: dict[Config, list[str]] = {}
    for path in paths:
        blocks.setdefault(resolver.for_path(path), []).append(display_path(path))
    out: list[str] = []
    for config, shown in blocks.items():
        source = display_path(config.source) if config.source is not None else "none (the defaults)"
        out.append(f"# {', '.join(shown)}\n# configuration file: {source}\n")
        for field in fields(config):
            if field.name == "source":
                continue
            out.append(f"{field.name.replace('_', '-')} = {_toml(getattr(config, field.name))}\n")
        out.append("\n")
    return "".join(out)


def _toml(value: object) -> str:
    if value is None:
        return '"symbolic"'
    if isinstance(value, Path):
        return json.dumps(display_path(value))
    if isinstance(value, tuple):
        if value and hasattr(value[0], "pattern"):  # per-file ignores
            return "{" + ", ".join(f"{json.dumps(e.pattern)} = {_toml(e.codes)}" for e in value) + "}"
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value)
    return str(value)


def diff(result: RunResult, unsafe: bool) -> tuple[str, int]:
    """The fixes `--fix` would apply to `result`'s files, as a unified diff, and how many findings they fix."""
    by_path: dict[str, list[Diagnostic]] = {}
    for finding in result.findings:
        if finding.fix is not None and is_applicable(finding.fix, unsafe):
            by_path.setdefault(finding.path, []).append(finding)
    out: list[str] = []
    count = 0
    for path, findings in sorted(by_path.items()):
        before = result.sources.get(path)
        if before is None:
            continue
        fixed = apply_fixes(before, findings, unsafe=unsafe)
        if fixed.applied == 0 or fixed.source == before:
            continue
        count += fixed.applied
        lines = difflib.unified_diff(
            before.splitlines(keepends=True), fixed.source.splitlines(keepends=True), path, path
        )
        out.extend(line if line.endswith("\n") else line + "\n" for line in lines)
    return "".join(out), count


def fixed_lines(findings: Sequence[Diagnostic]) -> str:
    """`--show-fixes`: the findings whose fixes were applied, one a line."""
    if not findings:
        return ""
    head = f"Fixed {len(findings)} finding{'s' if len(findings) != 1 else ''}:\n"
    return head + "".join(f"  {f.path}:{f.span.line}:{f.span.column}: {f.code} {f.message}\n" for f in findings)
