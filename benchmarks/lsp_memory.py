"""The language server's memory over many edits of one large function.

    python benchmarks/lsp_memory.py [--edits 1000] [--statements 400]

Checks one buffer the way the language server does after each change
(`api.check_source`, incremental: pieces of the file parsed only when their
text changed, engine/frontend/incremental.py), in this process, `--edits` times; each
edit changes the first line of one large function of `--statements`
modelled calls, so each check makes a new piece of that function's size.
Prints the resident memory (VmRSS, Linux, of this process and of the worker
it keeps for the analysis) after the first check, after 20 edits and after
all of them, and their ratio. Before the cache of pieces
was bounded by size, this grew by megabytes an edit. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

from ownlint import api
from ownlint.config import default_config


def _rss_kib(pid: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _descendants(pid: str) -> list[str]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            found += [child, *_descendants(child)]
    return found


def rss_mib() -> float:
    """This process's resident memory and its children's (the analysis runs in a
    worker the process keeps between checks, as the language server does)."""
    pids = [str(Path("/proc/self").resolve().name)]
    pids += _descendants(pids[0])
    return sum(_rss_kib(pid) for pid in pids) / 1024


def source(edit: int, statements: int) -> str:
    body = "\n".join(f"    (r{i},) = driver.cuMemsetD8(p, {i}, N)" for i in range(statements))
    return (
        "from cuda.bindings import driver\n\nN = 1 << 20\n\n\n"
        "def small():\n    err, q = driver.cuMemAlloc(N)\n    (a,) = driver.cuMemFree(q)\n    return a\n\n\n"
        f"def large():\n    edit = {edit}\n    err, p = driver.cuMemAlloc(N)\n{body}\n    (f,) = driver.cuMemFree(p)\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=1000)
    parser.add_argument("--statements", type=int, default=400)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "edited.py"
        config = default_config(Path(tmp))
        started = time.perf_counter()
        api.check_source(source(0, args.statements), path, config)
        first = rss_mib()
        at: dict[int, float] = {}
        for edit in range(1, args.edits + 1):
            api.check_source(source(edit, args.statements), path, config)
            if edit in (20, args.edits) or edit % 100 == 0:
                gc.collect()
                at[edit] = rss_mib()
                print(f"after {edit:5d} edits: {at[edit]:7.1f} MiB", flush=True)
        wall = time.perf_counter() - started
    last = at[args.edits]
    print(
        f"first check: {first:.1f} MiB; after 20 edits: {at.get(20, float('nan')):.1f} MiB; after {args.edits}: {last:.1f} MiB"
    )
    if 20 in at:
        print(f"ratio {args.edits} / 20 edits: {last / at[20]:.2f} ({wall:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
