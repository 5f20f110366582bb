"""ownlint on real repositories, against the libcst parse floor of the same files.

    python benchmarks/real_repos.py --jobs 2 /work/repos/pycuda /work/repos/dpctl
    python benchmarks/real_repos.py --jobs 2 --timeout 300 --slowest 0 /work/repos/cutlass

The repositories are given as paths (fetched elsewhere; nothing here is
committed). For each, in one run, on the same number of worker processes:

- files and lines: every `.py` file as `parse_loop.py` finds them;
- the parse floor: `parse_loop.py --jobs N DIR` (`libcst.parse_module` on
  every file, nothing else), its wall and CPU time;
- ownlint cold: `ownlint check --format json --no-cache --jobs N DIR`, its
  wall and CPU time (of the command and the worker processes it waited for,
  `os.wait4`), or "over T s" when it ran past `--timeout` and was killed;
- the ratios of ownlint's wall and CPU time to the floor's (the machine may
  be shared: CPU time and the ratio are steadier than wall time);
- the budget notes, each with whether its function names a modelled API
  (the prefilter's trigger test on the function's own text);
- with `--slowest K` (default 10), the K slowest functions, from a second
  analysis in a child process (`analyze_project` on each component the
  prefilter selects, with `FunctionStats`), not timed with the rest.

`--json FILE` writes every number. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
_BUDGET = re.compile(r"analysis budget: `([^`]*)` \(line (\d+)\)")


def python_files(root: Path) -> list[Path]:
    sys.path.insert(0, str(HERE))
    from parse_loop import python_files as found

    return found(root)


def timed(cmd: list[str], timeout: float) -> tuple[float, float, int | None, str]:
    """(wall s, CPU s, exit status or None when killed for time, stdout) of `cmd`."""
    started = time.perf_counter()
    with open(os.devnull, "w") as null:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=null, text=True, start_new_session=True)
        out: list[str] = []
        import threading

        reader = threading.Thread(target=lambda: out.append(proc.stdout.read() if proc.stdout else ""))
        reader.start()
        deadline = started + timeout
        status: int | None = None
        while True:
            pid, raw, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                status = os.waitstatus_to_exitcode(raw)
                break
            if time.perf_counter() > deadline:
                os.killpg(proc.pid, 9)
                pid, raw, usage = os.wait4(proc.pid, 0)
                status = None
                break
            time.sleep(0.05)
        proc.returncode = -1
        reader.join()
    wall = time.perf_counter() - started
    return wall, usage.ru_utime + usage.ru_stime, status, out[0] if out else ""


def names_a_modelled_api(path: str, line: int, name: str) -> bool | None:
    """Whether the function of a budget note (at `line` of `path`) names a
    trigger word of the models, by the prefilter's test on its own text."""
    from ownlint.engine.frontend import prefilter
    from ownlint.engine.modelling.models import load_models

    try:
        source = Path(path).read_text(encoding="utf-8")
        tree = ast.parse(source)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
    test = prefilter.Triggers(load_models())
    if name == "<module>":  # the module's own statements
        text = "\n".join(
            ast.get_source_segment(source, n) or ""
            for n in tree.body
            if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        )
        return test.names(text, test.words_of(text))
    last = name.rpartition(".")[2]
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.lineno <= line:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if first <= line <= (node.end_lineno or node.lineno) and node.name == last:
                text = ast.get_source_segment(source, node) or ""
                return test.names(text, test.words_of(text))
    return None


def slowest(root: Path, top: int) -> list[dict[str, object]]:
    """The `top` slowest functions of `root` (run in a child process)."""
    from ownlint.api import module_name, read_source
    from ownlint.checks import CHECKERS
    from ownlint.diagnostics import FileError
    from ownlint.engine.frontend import prefilter
    from ownlint.engine.modelling.models import load_models
    from ownlint.engine.program.project import analyze_project
    from ownlint.engine.program.sources import EngineOptions, FunctionStats, SourceFile

    models = load_models()
    sources = []
    for path in python_files(root):
        text = read_source(path, str(path))
        if not isinstance(text, FileError):
            sources.append(SourceFile(str(path), text, module_name(path.resolve())))
    stats: list[FunctionStats] = []
    # as `ownlint check` analyses (an older version has no `sections` or `demand`)
    as_check = {k: True for k in ("sections", "demand") if k in EngineOptions.__dataclass_fields__}
    options = EngineOptions(checkers=CHECKERS, **as_check)  # type: ignore[arg-type]
    for component in prefilter.select(sources, models):
        analyze_project([sources[i] for i in component], models, options, stats)
    ordered = sorted(stats, key=lambda s: -s.seconds)[:top]
    return [
        {
            "where": f"{s.path}:{s.line}",
            "name": s.name,
            "seconds": round(s.seconds, 3),
            "steps": s.steps,
            "size": s.size,
        }
        | ({"note": s.note} if s.note else {})
        for s in ordered
    ]


def measure(root: Path, jobs: int, timeout: float, top: int) -> dict[str, object]:
    files = python_files(root)
    lines = 0
    for f in files:
        try:
            lines += f.read_bytes().count(b"\n")
        except OSError:
            pass
    row: dict[str, object] = {"repository": root.name, "files": len(files), "lines": lines, "jobs": jobs}
    floor_wall, floor_cpu, _, _ = timed(
        [sys.executable, str(HERE / "parse_loop.py"), "--jobs", str(jobs), str(root)], 3600
    )
    row |= {"floor_wall": floor_wall, "floor_cpu": floor_cpu}
    cmd = [sys.executable, "-m", "ownlint", "check", "--format", "json", "--no-cache", "--jobs", str(jobs), str(root)]
    wall, cpu, status, out = timed(cmd, timeout)
    row |= {"ownlint_wall": wall, "ownlint_cpu": cpu, "finished": status is not None}
    row["wall_ratio"] = wall / floor_wall
    row["cpu_ratio"] = cpu / floor_cpu
    if status is not None:
        try:
            report = json.loads(out)
        except json.JSONDecodeError:
            report = {"findings": [], "errors": []}
        row["findings"] = len(report.get("findings", []))
        notes = []
        for e in report.get("errors", []):
            m = _BUDGET.search(e.get("message", ""))
            if m:
                path = e.get("path", "")
                notes.append(
                    {
                        "where": f"{path}:{m.group(2)}",
                        "name": m.group(1),
                        "names_modelled_api": names_a_modelled_api(path, int(m.group(2)), m.group(1)),
                    }
                )
        row["budget_notes"] = notes
        row["finding_keys"] = sorted(
            f"{d.get('path')}:{d.get('line')}:{d.get('column')}:{d.get('code')}: {d.get('message')}"
            for d in report.get("findings", [])
        )
    if top:
        child = [sys.executable, __file__, "--_slowest", str(top), str(root)]
        _, _, status, out = timed(child, timeout)
        row["slowest"] = json.loads(out) if status == 0 and out.strip() else f"not finished in {timeout:.0f} s"
    return row


def table(rows: list[dict[str, object]]) -> str:
    out = [
        "| repository | files | lines | floor wall s | floor CPU s | ownlint wall s | ownlint CPU s"
        " | wall ratio | CPU ratio | findings | budget notes (naming no modelled API) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        over = "" if r["finished"] else "over "
        notes = r.get("budget_notes")
        note_cell = (
            f"{len(notes)} ({sum(1 for n in notes if n['names_modelled_api'] is False)})"
            if isinstance(notes, list)
            else ""
        )
        out.append(
            f"| {r['repository']} | {r['files']:,} | {r['lines']:,} | {r['floor_wall']:.1f} | {r['floor_cpu']:.1f}"
            f" | {over}{r['ownlint_wall']:.1f} | {over}{r['ownlint_cpu']:.1f} | {over}{r['wall_ratio']:.2f}"
            f" | {over}{r['cpu_ratio']:.2f} | {r.get('findings', '')} | {note_cell} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600, help="seconds before ownlint is killed (default 600)")
    parser.add_argument("--slowest", type=int, default=10, help="how many slowest functions to list (0: none)")
    parser.add_argument("--json", type=Path, help="write every number here")
    parser.add_argument("--_slowest", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._slowest:
        json.dump(slowest(args.roots[0], args._slowest), sys.stdout)
        return 0
    rows = []
    for root in args.roots:
        row = measure(root, args.jobs, args.timeout, args.slowest)
        rows.append(row)
        print(table([row]).splitlines()[-1], flush=True)
    print()
    print(table(rows))
    for r in rows:
        for n in r.get("budget_notes") or []:
            print(
                f"budget note: {r['repository']}: {n['where']} `{n['name']}` names a modelled API: {n['names_modelled_api']}"
            )
        for s in r.get("slowest") if isinstance(r.get("slowest"), list) else []:
            print(
                f"slow: {r['repository']}: {s['where']} {s['name']} {s['seconds']} s, {s['steps']:,} steps, size {s['size']}"
            )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
