"""Run ownlint's analysis over whole source trees and show where its time goes.

    python benchmarks/tree.py /tmp/corpus/dpctl /tmp/corpus/numba-dpex
    python benchmarks/tree.py --all --top 20 SOME/TREE    # every .py file, not only those the prefilter selects

Every `.py` file under the given paths is read as `ownlint check` reads it
(`ownlint.api.read_source`: PEP 263 coding, BOM, NUL bytes). The files the
prefilter selects (those that name a modelled API, and those that call
their functions: `ownlint.engine.frontend.prefilter.select`), or with `--all` every
file, are analysed in one call of `analyze_project`, as `ownlint check`
analyses one component, in this process, with its `FunctionStats`.

Printed: how many files and lines (found, selected), the wall time of
reading, selecting and analysing, the peak RSS, the slowest functions
(`path:line name`, seconds, steps, size), every error entry (unreadable
files, syntax errors, internal errors), every budget note, and the number of
findings by code. Nothing is asserted; the exit status is 1 if there was an
internal error.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from collections import Counter
from pathlib import Path

from ownlint.api import module_name, read_source
from ownlint.checks import CHECKERS
from ownlint.diagnostics import FileError
from ownlint.engine.frontend import prefilter
from ownlint.engine.modelling.models import load_models
from ownlint.engine.program.project import analyze_project
from ownlint.engine.program.sources import EngineOptions, FunctionStats, SourceFile

SKIPPED_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", ".nox", "node_modules", ".mypy_cache"}


def python_files(roots: list[str]) -> list[Path]:
    found: list[Path] = []
    for root in roots:
        path = Path(root)
        if path.is_file():
            found.append(path)
            continue
        for directory, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            found += [Path(directory) / f for f in sorted(files) if f.endswith(".py")]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="files or directories")
    parser.add_argument("--all", action="store_true", help="analyse every file, not only those the prefilter selects")
    parser.add_argument("--top", type=int, default=10, help="how many of the slowest functions to show (default 10)")
    parser.add_argument(
        "--no-demand", action="store_true", help="analyse every function, inert or not (engine/program/demand.py)"
    )
    args = parser.parse_args(argv)

    models = load_models()
    started = time.perf_counter()
    paths = python_files(args.paths)
    sources: list[SourceFile] = []
    errors: list[FileError] = []
    for path in paths:
        name = path.as_posix()  # as given on the command line, below its root
        text = read_source(path, name)
        if isinstance(text, FileError):
            errors.append(text)
        else:
            sources.append(SourceFile(name, text, module_name(path.resolve())))
    read = time.perf_counter() - started

    started = time.perf_counter()
    if args.all:
        chosen = sources
    else:
        chosen = [sources[i] for component in prefilter.select(sources, models) for i in component]
    selected = time.perf_counter() - started

    stats: list[FunctionStats] = []
    started = time.perf_counter()
    reports = (
        analyze_project(
            chosen, models, EngineOptions(checkers=CHECKERS, sections=True, demand=not args.no_demand), stats
        )
        if chosen
        else []
    )
    analysed = time.perf_counter() - started

    all_lines = prefilter.lines(sources)
    chosen_lines = prefilter.lines(chosen)
    print(
        f"files: {len(paths)} found, {len(sources)} read, {len(chosen)} analysed{' (all)' if args.all else ' (selected by the prefilter)'}"
    )
    print(f"lines: {all_lines:,} read, {chosen_lines:,} analysed")
    print(
        f"wall: read {read:.2f} s, select {selected:.2f} s, analyse {analysed:.2f} s"
        f" ({chosen_lines / analysed if analysed else 0:,.0f} lines/s)"
    )
    print(
        f"functions analysed: {len(stats)}, steps {sum(s.steps for s in stats):,}, "
        f"time in them {sum(s.seconds for s in stats):.2f} s"
    )
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")

    print(f"\nslowest {args.top} functions:")
    for s in sorted(stats, key=lambda s: -s.seconds)[: args.top]:
        note = f"  [{s.note}]" if s.note else ""
        print(f"  {s.path}:{s.line} {s.name}: {s.seconds * 1e3:.1f} ms, {s.steps:,} steps, size {s.size}{note}")

    entries = errors + [e for r in reports for e in r.errors]
    budget = [e for e in entries if e.kind == "budget" or e.message.startswith("analysis budget")]
    other = [e for e in entries if e not in budget]
    print(f"\nerror entries: {len(other)}")
    for e in other:
        print(f"  {e.path}: {e.message}")
    print(f"budget notes: {len(budget)}")
    for e in budget:
        print(f"  {e.path}: {e.message}")

    codes = Counter(d.code for r in reports for d in r.diagnostics)
    print(f"\nfindings: {sum(codes.values())}")
    for code, n in sorted(codes.items()):
        print(f"  {code}: {n}")
    return 1 if any(e.message.startswith("internal error") for e in other) else 0


if __name__ == "__main__":
    sys.exit(main())
