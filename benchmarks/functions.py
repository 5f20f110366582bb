"""Run ownlint's flow analysis on many generated interop modules, one at a time.

    python benchmarks/functions.py                       # 10,000 modules, seeds 0..9999
    python benchmarks/functions.py --count 2000 --seed 50000
    python benchmarks/functions.py --tracemalloc         # also the peak Python memory of each analysis (slower)

Each module comes from the generator of the property tests
(`tests/programs.py`, `function_source(random.Random(seed), size)`): imports,
helpers, one to three random functions made of modelled calls, loops,
branches and growing values. Each is analysed on its own with
`analyze_project` and its `FunctionStats`. Printed: how many modules and
functions, the total time and the distribution of the time per module and
per function, the 10 slowest modules with their step counts and seeds, the
largest step count against its function's budget, the largest memory (the
growth of the process's peak RSS that one analysis caused, and with
`--tracemalloc` the peak traced memory of one analysis), every budget note,
every internal error, and any analysis that ran past `--timeout` seconds (it
is stopped and reported as a hang). To see one module:
`python tests/programs.py --seed SEED [--size SIZE]`.

Nothing is asserted; the exit status is 1 if there was an internal error, a
hang or a step count over its budget, else 0.
"""

from __future__ import annotations

import argparse
import random
import re
import resource
import signal
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from programs import function_source  # noqa: E402

from ownlint.checks import CHECKERS  # noqa: E402
from ownlint.engine.evaluator.typestate import FunctionAnalysis  # noqa: E402
from ownlint.engine.modelling.models import load_models  # noqa: E402
from ownlint.engine.program.project import analyze_project  # noqa: E402
from ownlint.engine.program.sources import EngineOptions, FunctionStats, SourceFile  # noqa: E402


class Hang(BaseException):
    """Raised by the alarm; a BaseException so that the engine's per-file isolation does not catch it."""


def _alarm(signum: int, frame: object) -> None:
    raise Hang()


@dataclass
class Outcome:
    seed: int
    seconds: float
    stats: list[FunctionStats] = field(default_factory=list)
    budget: list[str] = field(default_factory=list)
    internal: list[str] = field(default_factory=list)
    rss_growth_kib: int = 0
    traced_peak: int = 0
    hang: bool = False

    @property
    def steps(self) -> int:
        return max((s.steps for s in self.stats), default=0)


def limit(s: FunctionStats) -> int:
    return max(FunctionAnalysis.MIN_STEPS, FunctionAnalysis.STEPS_PER_NODE * s.size)


def slack(s: FunctionStats) -> int:
    """Steps are added before the budget is checked, and a step that copies a
    path state counts one per few names it holds: the last one may pass."""
    return 2 + limit(s) // 100


def analyse(seed: int, size: int, models: object, timeout: float, trace: bool) -> Outcome:
    source = function_source(random.Random(seed), size)
    stats: list[FunctionStats] = []
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if trace:
        tracemalloc.start()
    signal.setitimer(signal.ITIMER_REAL, timeout)
    start = time.perf_counter()
    try:
        reports = analyze_project([SourceFile("gen.py", source)], models, EngineOptions(checkers=CHECKERS), stats)  # type: ignore[arg-type]
    except Hang:
        return Outcome(seed, time.perf_counter() - start, stats, hang=True)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        peak = tracemalloc.get_traced_memory()[1] if trace else 0
        if trace:
            tracemalloc.stop()
    seconds = time.perf_counter() - start
    out = Outcome(seed, seconds, stats, traced_peak=peak)
    out.rss_growth_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    for report in reports:
        for error in report.errors:
            if error.message.startswith("analysis budget"):
                out.budget.append(error.message)
            elif error.message.startswith("internal error"):
                out.internal.append(error.message)
    return out


def quantiles(values: list[float]) -> str:
    if len(values) < 2:
        return "-"
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return f"median {cuts[49] * 1e3:.2f} ms, p90 {cuts[89] * 1e3:.2f} ms, p99 {cuts[98] * 1e3:.2f} ms, max {max(values) * 1e3:.2f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000, help="how many modules (default 10,000)")
    parser.add_argument("--seed", type=int, default=0, help="the first seed; module k has seed SEED + k")
    parser.add_argument("--size", type=int, default=40, help="statements per module, about (default 40)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before one analysis counts as a hang")
    parser.add_argument("--tracemalloc", action="store_true", help="trace the peak Python memory of each analysis")
    args = parser.parse_args(argv)

    models = load_models()
    signal.signal(signal.SIGALRM, _alarm)
    outcomes: list[Outcome] = []
    started = time.perf_counter()
    for k in range(args.count):
        outcomes.append(analyse(args.seed + k, args.size, models, args.timeout, args.tracemalloc))
    wall = time.perf_counter() - started

    functions = [s for o in outcomes for s in o.stats]
    analysed = [s for s in functions if s.name != "<module>"]
    print(f"modules: {len(outcomes)} (seeds {args.seed}..{args.seed + args.count - 1}, size {args.size})")
    print(f"functions analysed: {len(functions)} ({len(analysed)} functions and lambdas, the rest module bodies)")
    print(f"wall: {wall:.1f} s (generation included); analysis: {sum(o.seconds for o in outcomes):.1f} s")
    print(f"time per module: {quantiles([o.seconds for o in outcomes])}")
    print(f"time per function: {quantiles([s.seconds for s in functions])}")
    print(
        f"steps per function: median {statistics.median(s.steps for s in functions) if functions else 0:.0f}, "
        f"max {max((s.steps for s in functions), default=0):,}"
    )
    worst = max(functions, key=lambda s: s.steps / limit(s), default=None)
    if worst is not None:
        print(f"closest to its budget: {worst.steps:,} of {limit(worst):,} steps ({worst.name}, size {worst.size})")

    print("\nslowest 10 modules:")
    for o in sorted(outcomes, key=lambda o: -o.seconds)[:10]:
        slow = max(o.stats, key=lambda s: s.seconds, default=None)
        where = (
            f"{slow.name} line {slow.line}: {slow.seconds * 1e3:.1f} ms, {slow.steps:,} steps, size {slow.size}"
            if slow
            else "-"
        )
        print(f"  seed {o.seed}: {o.seconds * 1e3:.1f} ms, max {o.steps:,} steps; slowest function {where}")

    grew = max(outcomes, key=lambda o: o.rss_growth_kib)
    print(
        f"\nlargest growth of peak RSS in one analysis: {grew.rss_growth_kib / 1024:.1f} MiB (seed {grew.seed}); "
        f"peak RSS of the run {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )
    if args.tracemalloc:
        big = max(outcomes, key=lambda o: o.traced_peak)
        print(f"largest traced peak of one analysis: {big.traced_peak / 2**20:.1f} MiB (seed {big.seed})")

    failed = False
    budget = [o for o in outcomes if o.budget]
    kinds = Counter(re.sub(r"[0-9,]+", "N", note.split(") ", 1)[-1].split(";")[0]) for o in budget for note in o.budget)
    print(f"\nbudget notes: {sum(len(o.budget) for o in budget)} in {len(budget)} modules")
    for kind, n in kinds.most_common():
        print(f"  {n} x {kind}")
    for o in budget[:20]:
        for note in o.budget:
            print(f"  seed {o.seed}: {note}")
    over = [(o.seed, s) for o in outcomes for s in o.stats if s.steps > limit(s) + slack(s)]
    if over:
        failed = True
        print(f"steps over the budget: {len(over)}")
        for seed, s in over[:20]:
            print(f"  seed {seed}: {s.name} line {s.line}: {s.steps:,} > {limit(s):,}")
    errors = [o for o in outcomes if o.internal]
    print(f"internal errors: {len(errors)}")
    for o in errors[:20]:
        failed = True
        for message in o.internal:
            print(f"  seed {o.seed}: {message}")
    hangs = [o for o in outcomes if o.hang]
    print(f"hangs (over {args.timeout:g} s): {len(hangs)}")
    for o in hangs:
        failed = True
        print(f"  seed {o.seed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
