"""Two versions of ownlint in the same run: a commit against the checkout, beside the parse floor and Ruff.

    python benchmarks/compare.py --rev HEAD~3                    # the dense corpus of the checkout's fixtures
    python benchmarks/compare.py --rev e001fcf --corpus-rev e001fcf   # ... of that commit's fixtures
    python benchmarks/compare.py --rev e001fcf --corpus stdlib --base ruff --rounds 7

A speed claim ("no slower than before", "x times the parse") holds only
for numbers taken on the same machine in the same minutes: on a shared
machine the same command's time moves by a third from one minute to the
next. So both versions, the libcst parse floor and Ruff run here in
interleaved rounds (every other round in reverse order, as in run.py), and
the report gives, for each, the least and the median wall and CPU time, and
its wall and CPU time divided by the parse floor's (or Ruff's, `--base
ruff`) of the same round, with the median of those ratios: the figure to
quote.

`--rev` is checked out with `git worktree` into a temporary directory (its
`src/` and `rules/`, byte-compiled as pip would), and the checkout's
`src/` and `rules/` are snapshotted the same way, so that both are measured
as installed copies and a commit landing meanwhile changes nothing. The
dense corpus is made by `make_corpus.py` from the fixtures of `--corpus-rev`
(default: the checkout's). A version that cannot analyse the other's
fixtures (an older engine that did not yet end on every program, say) is
compared on its own fixtures instead: pass its commit as `--corpus-rev`.
Each version's findings are printed beside the number the corpus's `# E:`
comments expect. Ruff and the parse floor are those of `run.py`
(`benchmarks/.venv`, `parse_loop.py`).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import run  # noqa: E402 - a sibling script: its measuring, its tools and its corpora

DENSE_LINES = 50_000


def checkout(rev: str, target: Path) -> Path:
    """A work tree of `rev` at `target` (removed again by `forget`)."""
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", "--force", str(target), rev],
        check=True,
        capture_output=True,
    )
    return target


def forget(tree: Path) -> None:
    subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], check=False)


def installed_copy(source: Path, target: Path) -> Path:
    """`source`'s `src/ownlint` and `rules`, copied to `target` and byte-compiled; returns the PYTHONPATH entry."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(source / "src" / "ownlint", target / "src" / "ownlint", ignore=ignore)
    shutil.copytree(source / "rules", target / "rules", ignore=ignore)
    if not compileall.compile_dir(target / "src", quiet=1):
        raise SystemExit(f"compare.py: {source} does not byte-compile")
    return str(target / "src")


def dense_corpus(fixtures_from: Path, target: Path) -> tuple[int, int, int]:
    """Writes the dense corpus of `fixtures_from`'s fixtures with that tree's own make_corpus.py."""
    maker = fixtures_from / "benchmarks" / "make_corpus.py"
    out = subprocess.run(
        [sys.executable, str(maker), str(target), "--lines", str(DENSE_LINES)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    files, lines, expected = (int(w) for w in _numbers(out, ("files", "lines", "expected")))
    return files, lines, expected


def _numbers(text: str, words: tuple[str, ...]) -> list[str]:
    tokens = text.replace(",", " ").split()
    return [tokens[tokens.index(w) - 1] for w in words]


def findings(m: run.Measurement) -> str:
    try:
        summary = json.loads(m.stdout)["summary"]
    except (ValueError, KeyError, TypeError):
        return f"exit {m.exit}, no JSON"
    return f"{summary['findings']} findings"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", required=True, help="the commit to compare the checkout with")
    parser.add_argument("--corpus", choices=["dense", "stdlib"], default="dense")
    parser.add_argument(
        "--corpus-rev", help="make the dense corpus from this commit's fixtures (default: the checkout's)"
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--base", choices=["floor", "ruff"], default="floor", help="what the ratios divide by")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))[: args.cores]
    os.sched_setaffinity(0, cores)

    workspace = Path(tempfile.mkdtemp(prefix="ownlint-compare-"))
    trees: list[Path] = []
    try:
        old_tree = checkout(args.rev, workspace / "rev")
        trees.append(old_tree)
        paths = {
            args.rev: installed_copy(old_tree, workspace / "rev-copy"),
            "checkout": installed_copy(REPO, workspace / "checkout-copy"),
        }
        corpus = workspace / "corpus"
        if args.corpus == "stdlib":
            stdlib = run.make_stdlib(workspace, 1.0)
            stdlib.path.rename(corpus)
            files, lines = stdlib.files, stdlib.lines
            what = "the standard library"
        else:
            source = REPO
            if args.corpus_rev:
                source = old_tree if args.corpus_rev == args.rev else checkout(args.corpus_rev, workspace / "fixtures")
                if source is not old_tree:
                    trees.append(source)
            files, lines, expected = dense_corpus(source, corpus)
            what = f"the dense corpus of {args.corpus_rev or 'the checkout'}'s fixtures ({expected} expected findings)"
        tools = run.find_tools()
        python = sys.executable
        commands: dict[str, tuple[list[str], dict[str, str] | None]] = {
            "floor": ([python, str(HERE / "parse_loop.py"), "--jobs", str(len(cores)), "corpus"], None),
            "ruff": (
                [tools.ruff, "check", "--no-cache", "--isolated", "corpus"],
                {"RAYON_NUM_THREADS": str(len(cores))},
            ),
        }
        if args.corpus == "stdlib" and args.base == "ruff":
            del commands["floor"]  # 40 s a round on the standard library, and not what the ratios divide by
        for name, path in paths.items():
            check = [python, "-m", "ownlint", "check", "--no-cache", "--format", "json", "--jobs", str(len(cores))]
            commands[f"ownlint {name}"] = ([*check, "corpus"], {"PYTHONPATH": path})
        print(f"{what}: {files} files, {lines} lines; {args.rounds} rounds on CPUs {cores}", flush=True)
        runs: dict[str, list[run.Measurement]] = {name: [] for name in commands}
        for r in range(args.rounds):
            order = list(commands) if r % 2 == 0 else list(reversed(commands))
            for name in order:
                command, extra = commands[name]
                env = {**os.environ, **(extra or {})}
                m = run.measure(name, args.corpus, command, workspace, args.timeout, env)
                runs[name].append(m)
                print(f"  round {r + 1}: {name} {run.fmt(m.wall, 2)} s wall, {run.fmt(m.cpu, 2)} s CPU", flush=True)
        base = runs[args.base]
        print()
        print(
            f"| command | least wall s | median wall s | least CPU s | wall / {args.base} (median) | CPU / {args.base} (median) | output |"
        )
        print("|---|---:|---:|---:|---:|---:|---|")
        for name, ms in runs.items():
            walls = [m.wall for m in ms if m.wall is not None]
            cpus = [m.cpu for m in ms if m.cpu is not None]
            ratio_w = [m.wall / b.wall for m, b in zip(ms, base, strict=True) if m.wall and b.wall]
            ratio_c = [m.cpu / b.cpu for m, b in zip(ms, base, strict=True) if m.cpu and b.cpu]
            output = findings(ms[-1]) if name.startswith("ownlint") else f"exit {ms[-1].exit}"
            print(
                f"| {name} | {min(walls):.2f} | {statistics.median(walls):.2f} | {min(cpus):.2f} "
                f"| {statistics.median(ratio_w):.2f} | {statistics.median(ratio_c):.2f} | {output} |"
            )
    finally:
        for tree in trees:
            forget(tree)
        shutil.rmtree(workspace, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
