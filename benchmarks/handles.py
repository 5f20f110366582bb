"""The cost of one function against the number of handles live in it.

    python benchmarks/handles.py                    # 50, 100, 150, 200 handles, both shapes
    python benchmarks/handles.py --counts 50,200 --shape paths
    python benchmarks/handles.py --print 20 --shape paths   # the generated module, to read

Each generated module has one function `many` that allocates N CUDA device
buffers (`driver.cuMemAlloc`, modelled in rules/), uses each one
(`cuMemsetD8`), and frees them all at the end, so that all N are live in
the middle. Two shapes:

- `branch`: every third buffer is used on one of two branches of an `if`
  on an unknown value; the branches join again (few paths, many names);
- `paths`: each buffer may be freed early on an `if` of its own (and its
  name set to None), and is freed at the end only if it is not None; the
  paths differ in typestates, so the function reaches the bound of 128
  path states and keeps merging (many paths, many names).

Each module is analysed in this process with `analyze_project`; printed:
the function's time (`FunctionStats.seconds`, wall time, the least of
`--repeat` runs), the CPU time of the whole analysis of the module (the
least; on a shared machine it varies less than wall time), the function's
steps and budget note, and the ratios of the times at the largest N to
those at the smallest. A cost per step that does not grow
with the live handles gives a ratio near the ratio of the Ns (4 for 50
and 200). Nothing is asserted; this is a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import sys
import time

from ownlint.checks import CHECKERS
from ownlint.engine.modelling.models import load_models
from ownlint.engine.program.project import analyze_project
from ownlint.engine.program.sources import EngineOptions, FunctionStats, SourceFile

SHAPES = ("branch", "paths")


def source(n: int, shape: str) -> str:
    """A module whose function `many` has `n` buffers live at once."""
    lines = ["from cuda.bindings import driver", "", "N = 1 << 20", "", "", "def many(a, b, c, mode):"]
    for i in range(n):
        lines.append(f"    err, p{i} = driver.cuMemAlloc(N)")
        if shape == "paths":
            lines.append(f"    (r{i},) = driver.cuMemsetD8(p{i}, 0, N)")
            lines.append(f"    if mode > {i}:")
            lines.append(f"        (q{i},) = driver.cuMemFree(p{i})")
            lines.append(f"        p{i} = None")
        elif i % 3 == 0:
            lines.append(f"    if {'abc'[(i // 3) % 3]}:")
            lines.append(f"        (r{i},) = driver.cuMemsetD8(p{i}, 0, N)")
            lines.append("    else:")
            lines.append(f"        (r{i},) = driver.cuMemsetD8(p{i}, 1, N)")
        else:
            lines.append(f"    (r{i},) = driver.cuMemsetD8(p{i}, 0, N)")
    for i in range(n):
        if shape == "paths":
            lines.append(f"    if p{i} is not None:")
            lines.append(f"        (f{i},) = driver.cuMemFree(p{i})")
        else:
            lines.append(f"    (f{i},) = driver.cuMemFree(p{i})")
    lines.append("    return err")
    return "\n".join(lines) + "\n"


def measure(n: int, shape: str, models: object, repeat: int) -> tuple[FunctionStats, float, int]:
    """The function's stats from its fastest run, the least CPU time of the
    whole analysis of the module (parse included), and its findings."""
    best: FunctionStats | None = None
    cpu = float("inf")
    findings = 0
    for _ in range(repeat):
        stats: list[FunctionStats] = []
        start = time.process_time()
        reports = analyze_project(
            [SourceFile("gen.py", source(n, shape))],
            models,  # type: ignore[arg-type]
            EngineOptions(checkers=CHECKERS),
            stats,
        )
        cpu = min(cpu, time.process_time() - start)
        findings = sum(len(r.diagnostics) for r in reports)
        (many,) = (s for s in stats if s.name == "many")
        if best is None or many.seconds < best.seconds:
            best = many
    assert best is not None
    return best, cpu, findings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--counts", default="50,100,150,200", help="numbers of handles (default 50,100,150,200)")
    parser.add_argument("--shape", choices=(*SHAPES, "all"), default="all")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each; the least time is kept (default 1)")
    parser.add_argument("--print", type=int, metavar="N", help="print the module for N handles and stop")
    args = parser.parse_args(argv)
    shapes = SHAPES if args.shape == "all" else (args.shape,)
    if args.print is not None:
        sys.stdout.write(source(args.print, shapes[0]))
        return 0
    counts = [int(c) for c in args.counts.split(",")]
    models = load_models()
    for shape in shapes:
        print(f"shape {shape}:")
        times: list[float] = []
        cpus: list[float] = []
        for n in counts:
            stats, cpu, findings = measure(n, shape, models, args.repeat)
            times.append(stats.seconds)
            cpus.append(cpu)
            note = f", note: {stats.note}" if stats.note else ""
            print(
                f"  {n:4d} handles: function {stats.seconds:6.2f} s wall, module {cpu:6.2f} s CPU, "
                f"{stats.steps:9,} steps, {findings} findings{note}"
            )
        if len(times) > 1 and times[0] > 0 and cpus[0] > 0:
            print(
                f"  ratio {counts[-1]}/{counts[0]} handles: function wall {times[-1] / times[0]:.1f}, "
                f"module CPU {cpus[-1] / cpus[0]:.1f} (linear: {counts[-1] / counts[0]:.1f})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
