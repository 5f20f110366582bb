"""ownlint against Ruff, pyflakes, Fixit and the libcst parse floor, on the stdlib and a dense interop corpus.

    python benchmarks/run.py            # the full run; writes benchmarks/RESULTS.md
    python benchmarks/run.py --quick    # 10% of the stdlib, a small dense corpus; writes RESULTS-quick.md

See benchmarks/README.md for what each number means. The tools other than
ownlint are installed into `benchmarks/.venv` (created on first use, with
the pins of `requirements.txt`), so that Fixit's `click<8.2` does not
downgrade the click ownlint runs with. That venv sees the system packages,
so Fixit runs on the same libcst as ownlint.

Each command runs in a new session, pinned to the same `--cores` CPUs,
with a timeout (default 20 minutes) after which its process group is killed
and "timeout" is recorded. Its CPU time and largest RSS come from GNU time
(`/usr/bin/time`), or from `wait4` where there is none (they include the
worker processes it waited for); the peak RSS of the whole process tree is
the largest sum of the RSS of the session's processes, sampled every 0.1 s.
ownlint runs from a snapshot of the checkout taken at the start, so that
commits landing during a run do not change what is measured.

The commands whose ratios are targets (the parse floor, Ruff, ownlint cold
and warm, and the doubled corpus) run `--repeat` times (default 3), in
interleaved rounds, and each reports its least wall time and least CPU
time over the runs: on a shared machine, other work only ever adds time, so
the least is the best estimate of what the command itself costs (the
practice of hyperfine's and pyperf's minimum). Memory is the largest over
the runs. Every run's numbers are in the JSON file. pyflakes and Fixit run
once.
"""

from __future__ import annotations

import argparse
import collections
import compileall
import datetime
import json
import os
import platform
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import make_corpus  # noqa: E402 - a sibling script, not a package: importable once HERE is on sys.path

VENV = Path(os.environ.get("OWNLINT_BENCH_VENV", HERE / ".venv"))
TIMEOUT = 20 * 60
DENSE_LINES = 50_000
QUICK_DENSE_LINES = 6_000
QUICK_STDLIB_SHARE = 0.10
MANY_IFS = 3_000
LSP_LINES = 2_000
LSP_REPEATS = 9
SEED = make_corpus.DEFAULT_SEED
FIXIT_CONFIG = """\
# Written by ownlint's benchmarks/run.py: Fixit with one local no-op rule.
[tool.fixit]
root = true
disable = ["fixit.rules"]
enable = [".fixit_noop"]
"""
FIXIT_FALLBACK_RULE = "fixit.rules:NoStaticIfCondition"


# ---------------------------------------------------------------- measuring one command


@dataclass
class Measurement:
    tool: str
    corpus: str
    command: list[str]
    wall: float | None = None  # seconds
    cpu: float | None = None  # user + sys seconds, the command and the children it waited for
    max_rss_kb: int | None = None  # largest single process (wait4's ru_maxrss)
    tree_rss_kb: int | None = None  # largest sampled sum over the process tree
    exit: int | None = None
    timed_out: bool = False
    skipped: str = ""
    note: str = ""
    stdout: str = field(default="", repr=False)
    stderr: str = field(default="", repr=False)
    runs: list[tuple[float | None, float | None]] = field(default_factory=list)  # (wall, cpu) of each run


def least(samples: list[Measurement]) -> Measurement:
    """One row for several runs of a command: the least wall and the least CPU
    time, the largest memory; the output of the last run (a timeout wins)."""
    timed_out = [m for m in samples if m.timed_out]
    if timed_out:
        return timed_out[0]
    runs = [(m.wall, m.cpu) for m in samples]
    best = samples[-1]
    walls = [m.wall for m in samples if m.wall is not None]
    cpus = [m.cpu for m in samples if m.cpu is not None]
    best.wall = min(walls) if walls else None
    best.cpu = min(cpus) if cpus else None
    best.max_rss_kb = max((m.max_rss_kb or 0) for m in samples)
    best.tree_rss_kb = max((m.tree_rss_kb or 0) for m in samples)
    best.runs = runs
    return best


def _session_rss_kb(session: int, page_kb: int) -> int:
    """The summed RSS of every process whose session is `session` (shared pages counted once per process)."""
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        # after the command name: state, ppid, pgrp, session, ... rss is field 24 overall
        if int(fields[3]) == session:
            total += int(fields[21]) * page_kb
    return total


def measure(
    tool: str,
    corpus: str,
    command: list[str],
    cwd: Path,
    timeout: float,
    env: dict[str, str] | None = None,
) -> Measurement:
    """Run `command` once and measure it; it inherits the CPUs `main` pinned this process to."""
    result = Measurement(tool, corpus, command)
    with (
        tempfile.TemporaryFile() as out_file,
        tempfile.TemporaryFile() as err_file,
        tempfile.NamedTemporaryFile("r") as usage_file,
    ):
        # GNU time, when there is one, forks the command from a small process: the command's
        # max RSS then does not start at the size of this Python process (Linux keeps the
        # high-water mark of the forked copy across exec).
        wrapped = [GNU_TIME, "-o", usage_file.name, "-f", "%U %S %M", *command] if GNU_TIME else command
        _run(result, wrapped, cwd, timeout, env, out_file, err_file)
        if GNU_TIME and not result.timed_out:
            lines = usage_file.read().split("\n")
            last = [line for line in lines if line.strip()][-1:]
            user, system, rss = last[0].split() if last else ("nan", "nan", "0")
            result.cpu = float(user) + float(system)
            result.max_rss_kb = int(rss)
        result.tree_rss_kb = max(result.tree_rss_kb or 0, result.max_rss_kb or 0)
        for handle, name in ((out_file, "stdout"), (err_file, "stderr")):
            handle.seek(0)
            setattr(result, name, handle.read().decode("utf-8", "replace"))
    return result


def _gnu_time() -> str | None:
    """/usr/bin/time if it is GNU time (takes -f and -o), else None."""
    if not Path("/usr/bin/time").exists():
        return None
    probe = subprocess.run(["/usr/bin/time", "-o", os.devnull, "-f", "%M", "true"], capture_output=True, check=False)
    return "/usr/bin/time" if probe.returncode == 0 else None


GNU_TIME = _gnu_time()


def _run(
    result: Measurement,
    command: list[str],
    cwd: Path,
    timeout: float,
    env: dict[str, str] | None,
    out_file: IO[bytes],
    err_file: IO[bytes],
) -> None:
    started = time.perf_counter()
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=out_file,
        stderr=err_file,
        start_new_session=True,
    )
    page_kb = os.sysconf("SC_PAGE_SIZE") // 1024
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            peak[0] = max(peak[0], _session_rss_kb(proc.pid, page_kb))

    def kill() -> None:
        result.timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    timer = threading.Timer(timeout, kill)
    timer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    timer.cancel()
    done.set()
    sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
    if result.timed_out:
        # the rest of the group may outlive the leader; it was killed with it
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    result.wall = wall
    result.cpu = usage.ru_utime + usage.ru_stime
    result.max_rss_kb = usage.ru_maxrss
    result.tree_rss_kb = peak[0]
    result.exit = proc.returncode


# ---------------------------------------------------------------- tools


@dataclass
class Tools:
    python: str  # the interpreter running ownlint (this one)
    venv_python: str
    ruff: str
    fixit: str
    ownlint_has_jobs: bool
    versions: dict[str, str]


def ensure_venv(python: str = sys.executable) -> Path:
    """`benchmarks/.venv` with requirements.txt installed; created when missing."""
    venv_python = VENV / "bin" / "python"
    stamp = VENV / ".requirements"
    wanted = (HERE / "requirements.txt").read_text(encoding="utf-8")
    if venv_python.exists() and stamp.exists() and stamp.read_text(encoding="utf-8") == wanted:
        return venv_python
    print(f"setting up {VENV} (pip install -r benchmarks/requirements.txt) ...", flush=True)
    if not venv_python.exists():
        subprocess.run([python, "-m", "venv", "--system-site-packages", str(VENV)], check=True)
    subprocess.run(
        [str(venv_python), "-m", "pip", "install", "--quiet", "-r", str(HERE / "requirements.txt")],
        check=True,
    )
    stamp.write_text(wanted, encoding="utf-8")
    return venv_python


def _output(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return (done.stdout + done.stderr).strip()


def find_tools() -> Tools:
    venv_python = str(ensure_venv())
    ruff = _output([venv_python, "-c", "from ruff.__main__ import find_ruff_bin; print(find_ruff_bin())"])
    fixit = str(VENV / "bin" / "fixit")
    help_text = _output([sys.executable, "-m", "ownlint", "check", "--help"])
    versions = {
        "ownlint": _output([sys.executable, "-m", "ownlint", "--version"]),
        "ruff": _output([ruff, "--version"]),
        "pyflakes": _output([venv_python, "-m", "pyflakes", "--version"]).splitlines()[0],
        "fixit": _output([fixit, "--version"]),
        "libcst": _output([sys.executable, "-c", "import importlib.metadata as m; print(m.version('libcst'))"]),
        "libcst (Fixit's)": _output([venv_python, "-c", "import importlib.metadata as m; print(m.version('libcst'))"]),
    }
    versions = {tool: _version_number(text) for tool, text in versions.items()}
    return Tools(sys.executable, venv_python, ruff, fixit, "--jobs" in help_text, versions)


def _version_number(text: str) -> str:
    found = re.search(r"\d+\.\d+(\.\d+)?\S*", text)
    return found.group(0).rstrip(",") if found else text


# ---------------------------------------------------------------- corpora


@dataclass
class Corpus:
    name: str
    path: Path
    files: int
    lines: int
    description: str


def count_lines(root: Path) -> tuple[int, int]:
    files = lines = 0
    for path in root.rglob("*.py"):
        files += 1
        lines += path.read_bytes().count(b"\n")
    return files, lines


def stdlib_files() -> tuple[Path, list[Path]]:
    root = Path(sysconfig.get_paths()["stdlib"])
    found = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "__pycache__") and not d.startswith("."))
        found.extend(Path(directory, f) for f in sorted(files) if f.endswith(".py"))
    return root, found


def make_stdlib(workspace: Path, share: float) -> Corpus:
    """A copy of the running Python's stdlib `.py` files (a random `share` of them, by a fixed seed)."""
    root, files = stdlib_files()
    if share < 1:
        files = sorted(random.Random(SEED).sample(files, max(1, round(len(files) * share))))
    target = workspace / "stdlib"
    for path in files:
        copy = target / path.relative_to(root)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
    count, lines = count_lines(target)
    what = "every" if share >= 1 else f"a {share:.0%} sample (seed {SEED}) of the"
    return Corpus("stdlib", target, count, lines, f"{what} `.py` file of {root} (no site-packages), copied")


def make_dense(workspace: Path, name: str, copies: int) -> tuple[Corpus, make_corpus.CorpusInfo]:
    target = workspace / name
    info = make_corpus.generate(target, copies, SEED)
    description = (
        f"{copies} renamed copies of tests/fixtures (make_corpus.py, seed {SEED}); "
        f"{info.expected} findings expected by `# E:` comments"
    )
    return Corpus(name, target, info.files, info.lines, description), info


def write_fixit_config(workspace: Path) -> None:
    (workspace / "pyproject.toml").write_text(FIXIT_CONFIG, encoding="utf-8")
    shutil.copyfile(HERE / "fixit_noop.py", workspace / "fixit_noop.py")


def fixit_rule_args(tools: Tools, workspace: Path, sample: Path) -> tuple[list[str], str]:
    """Fixit's extra arguments and a note: the local no-op rule if Fixit runs it, else a small built-in rule."""
    probe = subprocess.run(
        [tools.fixit, "--print-metrics", "lint", str(sample.relative_to(workspace))],
        cwd=workspace,
        capture_output=True,
        text=True,
        check=False,
    )
    if "NoOpCall" in probe.stdout + probe.stderr:
        return [], "local no-op rule `NoOpCall` (benchmarks/fixit_noop.py), built-in rules disabled"
    return ["--rules", FIXIT_FALLBACK_RULE], (
        f"FALLBACK: the local no-op rule did not run, so Fixit ran its built-in `{FIXIT_FALLBACK_RULE}`"
    )


# ---------------------------------------------------------------- reading tool output


def ownlint_note(m: Measurement) -> tuple[str, dict]:
    try:
        data = json.loads(m.stdout)
    except json.JSONDecodeError:
        tail = (m.stderr.strip().splitlines() or ["no output"])[-1]
        return f"no JSON: {tail[:120]}", {}
    codes = collections.Counter(f["code"] for f in data["findings"])
    kinds = collections.Counter(e["kind"] for e in data["errors"] if "kind" in e)
    internal = [e for e in data["errors"] if e["message"].startswith("internal error")]
    parts = [f"{data['summary']['files']} files", f"{len(data['findings'])} findings"]
    if 0 < len(codes) <= 4:
        parts.append("(" + ", ".join(f"{c} {n}" for c, n in sorted(codes.items())) + ")")
    elif codes:
        parts.append(f"({len(codes)} codes)")
    parts.append(f"{len(data['errors'])} error entries")
    if kinds:
        parts.append("(" + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) + ")")
    if internal:
        parts.append(f"({len(internal)} internal errors)")
    return " ".join(parts), data


def ruff_note(m: Measurement) -> str:
    found = re.search(r"Found (\d+) errors?", m.stdout + m.stderr)
    if found:
        return f"{found.group(1)} findings"
    lines = (m.stdout + m.stderr).strip().splitlines()
    return lines[-1][:80] if lines else "no output"


def pyflakes_note(m: Measurement) -> str:
    messages = [line for line in (m.stdout + m.stderr).splitlines() if re.match(r"^\S+:\d+:", line)]
    return f"{len(messages)} messages"


def fixit_note(m: Measurement) -> str:
    lines = [line.strip() for line in (m.stdout + m.stderr).splitlines() if line.strip()]
    summary = [line for line in lines if "files checked" in line or "clean" in line]
    reported = [line for line in lines if re.match(r"^\S+@\d+:\d+ ", line)]
    exceptions = [line.split(": EXCEPTION: ")[0] for line in lines if ": EXCEPTION: " in line]
    text = f"{len(reported)} reports, {len(exceptions)} files failed (EXCEPTION"
    text += (": " + ", ".join(f"`{path}`" for path in exceptions[:3]) if exceptions else "") + ")"
    return text + (f"; {summary[-1].strip('🛠️🧼 ')}" if summary else "")


def parse_note(m: Measurement) -> str:
    try:
        data = json.loads(m.stdout)
    except json.JSONDecodeError:
        return "no output"
    return f"{data['parsed']} parsed, {data['syntax_error']} syntax errors, {data['undecodable']} not UTF-8"


# ---------------------------------------------------------------- the runs


def run_corpus(
    corpus: Corpus, tools: Tools, cores: list[int], timeout: float, fixit_args: list[str], repeat: int
) -> dict:
    jobs = ["--jobs", str(len(cores))] if tools.ownlint_has_jobs else []
    env = {"RAYON_NUM_THREADS": str(len(cores))}
    # Run from the workspace, naming the corpus directory: from inside a copy of the stdlib, a
    # Python process (`-m`, `-c`, multiprocessing's spawned workers) would import the copy's
    # `collections.py` or `email/` instead of the real ones.
    here = corpus.path.parent
    target = corpus.path.name
    rows: list[Measurement] = []
    extra: dict = {}

    def once(tool: str, command: list[str], describe) -> Measurement:
        print(f"  {corpus.name}: {tool} ...", end="", flush=True)
        m = measure(tool, corpus.name, command, here, timeout, env)
        if m.timed_out:
            m.note = "timeout"
        else:
            m.note = describe(m)
        print(f" {m.wall:.1f}s {m.note}", flush=True)
        return m

    ownlint = [tools.python, "-m", "ownlint", "check", "--format", "json", *jobs]

    def describe_ownlint(m: Measurement) -> str:
        note, data = ownlint_note(m)
        extra[m.tool] = data
        return note

    floor = [tools.python, str(HERE / "parse_loop.py"), "--jobs", str(len(cores)), target]
    compared = [
        ("libcst parse floor", floor, parse_note),
        ("ruff", [tools.ruff, "check", "--no-cache", "--isolated", target], ruff_note),
        ("ownlint cold", [*ownlint, "--no-cache", target], describe_ownlint),
    ]
    samples: dict[str, list[Measurement]] = {tool: [] for tool, _, _ in compared}
    for round_ in range(repeat):
        # interleaved rounds, every other one in reverse order: a slow spell of
        # the machine, or a drift across the run, hits every tool alike
        for tool, command, describe in compared if round_ % 2 == 0 else compared[::-1]:
            if not any(m.timed_out for m in samples[tool]):
                samples[tool].append(once(tool, command, describe))
    floor_row, ruff_row, cold = (least(samples[tool]) for tool, _, _ in compared)
    rows += [floor_row, ruff_row]
    rows.append(once("pyflakes", [tools.venv_python, "-m", "pyflakes", target], pyflakes_note))
    rows.append(once("fixit (no-op rule)", [tools.fixit, *fixit_args, "lint", target], fixit_note))
    rows.append(cold)
    if cold.timed_out:
        rows.append(Measurement("ownlint warm", corpus.name, [*ownlint, target], skipped="cold run timed out"))
        print(f"  {corpus.name}: ownlint warm skipped (cold run timed out)", flush=True)
    else:
        print(f"  {corpus.name}: ownlint (priming the cache) ...", flush=True)
        measure("ownlint prime", corpus.name, [*ownlint, target], here, timeout, env)
        rows.append(least([once("ownlint warm", [*ownlint, target], describe_ownlint) for _ in range(repeat)]))
    return {"rows": rows, "ownlint": extra}


def run_linearity(
    dense: Corpus,
    cold: Measurement,
    workspace: Path,
    copies: int,
    tools: Tools,
    cores: list[int],
    timeout: float,
    repeat: int,
) -> dict:
    doubled, info = make_dense(workspace, "dense-doubled", copies * 2)
    jobs = ["--jobs", str(len(cores))] if tools.ownlint_has_jobs else []

    def command(corpus: Corpus) -> list[str]:
        return [tools.python, "-m", "ownlint", "check", "--format", "json", *jobs, "--no-cache", corpus.path.name]

    # each round runs the doubled corpus and the single one (every other round
    # in reverse order), so that the ratio compares runs of the same minute
    samples: list[Measurement] = []
    pairs: list[tuple[Measurement, Measurement]] = []
    for round_ in range(repeat):
        got: dict[str, Measurement] = {}
        for which, corpus in (("doubled", doubled), ("single", dense))[:: 1 if round_ % 2 == 0 else -1]:
            print(f"  linearity: ownlint cold on {corpus.lines} lines ...", end="", flush=True)
            one = measure("ownlint cold", corpus.name, command(corpus), corpus.path.parent, timeout)
            one.note = "timeout" if one.timed_out else ownlint_note(one)[0]
            print(f" {one.wall:.1f}s {one.note}", flush=True)
            got[which] = one
        samples.append(got["doubled"])
        if any(m.timed_out for m in got.values()):
            break
        pairs.append((got["doubled"], got["single"]))
    m = least(samples)
    result: dict = {"corpus": doubled, "measurement": m, "expected": info.expected}
    if not m.timed_out and not cold.timed_out and cold.wall and cold.cpu:
        result["wall_ratio"] = m.wall / cold.wall
        result["cpu_ratio"] = m.cpu / cold.cpu
    result["rounds"] = [(d.wall / s1.wall, d.cpu / s1.cpu) for d, s1 in pairs if s1.wall and s1.cpu]
    return result


def run_many_ifs(workspace: Path, tools: Tools, timeout: float) -> dict:
    target = workspace / "many-ifs"
    target.mkdir()
    (target / "many_ifs.py").write_text(make_corpus.many_ifs(MANY_IFS), encoding="utf-8")
    print(f"  {MANY_IFS} sequential ifs: ownlint ...", end="", flush=True)
    m = measure(
        "ownlint cold",
        "many-ifs",
        [tools.python, "-m", "ownlint", "check", "--format", "json", "--no-cache", "many_ifs.py"],
        target,
        timeout,
    )
    if m.timed_out:
        m.note = "timeout"
        printed = ""
    else:
        m.note = ownlint_note(m)[0]
        try:
            printed = json.dumps(json.loads(m.stdout), indent=1)
        except json.JSONDecodeError:
            printed = m.stdout[-2000:]
        if m.stderr.strip():
            printed += "\nstderr: " + m.stderr.strip()[-2000:]
    print(f" {m.wall:.1f}s {m.note}", flush=True)
    lines = (target / "many_ifs.py").read_text(encoding="utf-8").count("\n")
    return {"measurement": m, "printed": printed, "lines": lines}


LSP_SCRIPT = """
import json, statistics, sys, time
from pathlib import Path
from ownlint import api
from ownlint.config import default_config
path = Path(sys.argv[1]); repeats = int(sys.argv[2])
source = path.read_text(encoding="utf-8")
config = default_config(path.parent)
started = time.perf_counter(); result = api.check_source(source, path, config)
first = time.perf_counter() - started
# each re-check follows an edit: one new statement in a different function each time
lines = source.split("\\n")
defs = [i for i, line in enumerate(lines) if line.startswith("def ") and line.rstrip().endswith(":")]
times = []
for k in range(repeats):
    at = defs[(k * 7) % len(defs)]
    lines = lines[: at + 1] + [f"    edited_{k} = {k}"] + lines[at + 1 :]
    defs = [d + 1 if d > at else d for d in defs]
    edited = "\\n".join(lines)
    started = time.perf_counter(); result = api.check_source(edited, path, config)
    times.append(time.perf_counter() - started)
print(json.dumps({"first": first, "times": times, "findings": len(result.findings),
                  "errors": [e.message for e in result.errors]}))
"""


def run_lsp(workspace: Path, tools: Tools, timeout: float) -> dict:
    target = workspace / "lsp"
    target.mkdir()
    path = target / "interop_module.py"
    path.write_text(make_corpus.single_file(LSP_LINES, SEED), encoding="utf-8")
    lines = path.read_text(encoding="utf-8").count("\n")
    print(f"  editor re-check of a {lines}-line file ...", end="", flush=True)
    m = measure(
        "api.check_source", "lsp", [tools.python, "-c", LSP_SCRIPT, str(path), str(LSP_REPEATS)], target, timeout
    )
    result: dict = {"measurement": m, "lines": lines}
    if m.timed_out:
        print(" timeout", flush=True)
        return result
    try:
        result.update(json.loads(m.stdout))
    except json.JSONDecodeError:
        result["failure"] = (m.stderr.strip().splitlines() or ["no output"])[-1]
        print(f" failed: {result['failure']}", flush=True)
        return result
    print(f" first {result['first']:.2f}s, then median {statistics.median(result['times']):.2f}s", flush=True)
    return result


# ---------------------------------------------------------------- the report


def fmt(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def status(m: Measurement) -> str:
    if m.skipped:
        return f"skipped: {m.skipped}"
    if m.timed_out:
        return "timeout"
    return ""


def table(corpus: Corpus, rows: list[Measurement]) -> list[str]:
    by_tool = {m.tool: m for m in rows}
    ruff = by_tool.get("ruff")
    floor = by_tool.get("libcst parse floor")

    def ratio(m: Measurement, base: Measurement | None, attr: str) -> str:
        if base is None or m.timed_out or m.skipped or base.timed_out:
            return "–"
        a, b = getattr(m, attr), getattr(base, attr)
        if a is None or not b:
            return "–"
        return f"{a / b:,.1f}×" if a / b >= 0.1 else f"{a / b:.3f}×"

    out = [
        f"### {corpus.name}: {corpus.files:,} files, {corpus.lines:,} lines",
        "",
        corpus.description + ".",
        "",
        "| tool | wall s | CPU s | lines/s (wall) | max RSS MiB | tree RSS MiB | wall × Ruff | wall × parse | CPU × parse | exit | output |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for m in rows:
        if m.skipped or m.timed_out:
            out.append(
                f"| {m.tool} | {status(m)}{' (> ' + fmt(m.wall, 0) + ' s)' if m.timed_out else ''} "
                "| – | – | – | – | – | – | – | – | – |"
            )
            continue
        speed = corpus.lines / m.wall if m.wall else None
        out.append(
            f"| {m.tool} | {fmt(m.wall, 2)} | {fmt(m.cpu, 2)} | {fmt(speed, 0)} | {fmt(m.max_rss_kb / 1024, 0)} "
            f"| {fmt(m.tree_rss_kb / 1024, 0)} | {ratio(m, ruff, 'wall')} | {ratio(m, floor, 'wall')} "
            f"| {ratio(m, floor, 'cpu')} | {m.exit} | {m.note} |"
        )
    return out


def snapshot_ownlint(target: Path) -> None:
    """Copy ownlint's sources and models to `target` and make every Python started from here import that copy.

    The checkout may change while a run goes on (other work commits to it);
    the snapshot keeps every measurement on the same code. The copy keeps the
    layout `src/ownlint` + `rules` that ownlint finds its models by. It is
    byte-compiled, as pip does when it installs a package: otherwise, where
    `PYTHONDONTWRITEBYTECODE` is set, every run would compile ownlint's
    modules again (about 0.1 s), which no installed copy does.
    """
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "src" / "ownlint", target / "src" / "ownlint", ignore=ignore)
    shutil.copytree(REPO / "rules", target / "rules", ignore=ignore)
    if not compileall.compile_dir(target / "src", quiet=1):
        raise SystemExit("run.py: the ownlint snapshot does not byte-compile")
    previous = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(target / "src") + (os.pathsep + previous if previous else "")
    where = _output([sys.executable, "-c", "import ownlint; print(ownlint.__file__)"])
    if not where.startswith(str(target)):
        raise SystemExit(f"run.py: the ownlint snapshot is not the one imported ({where})")


def ownlint_revision() -> str:
    """The commit of the ownlint checkout measured, and whether its sources had local changes."""
    head = _output(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    changed = _output(["git", "-C", str(REPO), "status", "--porcelain", "--", "src", "rules"])
    return head + (f" with uncommitted changes to {len(changed.splitlines())} files" if changed else "")


def machine() -> dict[str, str]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return {
        "nproc": _output(["nproc"]),
        "cpu": cpu,
        "memory": memory,
        "os": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})",
    }


def ownlint_problems(results: dict) -> list[str]:
    """Errors and findings that ownlint printed on the stdlib: there should be none but OWN001 on files that do not parse."""
    out = []
    for tool, data in results.get("ownlint", {}).items():
        if not data:
            continue
        for error in data.get("errors", [])[:25]:
            out.append(f"- {tool}: error `{error['path']}`: {error['message']}")
        if len(data.get("errors", [])) > 25:
            out.append(f"- {tool}: ... {len(data['errors']) - 25} more errors")
        for finding in data.get("findings", [])[:25]:
            out.append(f"- {tool}: {finding['code']} `{finding['path']}:{finding['line']}`: {finding['message']}")
        if len(data.get("findings", [])) > 25:
            out.append(f"- {tool}: ... {len(data['findings']) - 25} more findings")
        break  # cold and warm print the same; one is enough
    return out


def round_ratios(rows: list[Measurement], tool: str, base: str) -> str:
    """`tool` against `base` round by round (the runs were interleaved): less
    sensitive to a lucky or unlucky run than the ratio of the least times."""
    by_tool = {m.tool: m for m in rows}
    a, b = by_tool.get(tool), by_tool.get(base)
    if a is None or b is None or len(a.runs) < 2 or len(a.runs) != len(b.runs):
        return ""
    parts = []
    for i, what in ((0, "wall"), (1, "CPU")):
        ratios = [x[i] / y[i] for x, y in zip(a.runs, b.runs, strict=True) if x[i] and y[i]]
        if ratios:
            shown = ", ".join(f"{r:.2f}" for r in ratios)
            parts.append(f"{what} {shown} (median **{statistics.median(ratios):.2f}×**)")
    return f"{tool} ÷ {base}, round by round: " + "; ".join(parts) + "."


def dense_check(dense: Corpus, results: dict) -> str:
    data = results.get("ownlint", {}).get("ownlint cold") or {}
    if not data:
        return "ownlint's cold run printed no JSON: nothing to compare."
    expected = {(f"{dense.path.name}/{p}", line, code) for p, line, code in make_corpus.expected_in(dense.path)}
    reported = {(f["path"], f["line"], f["code"]) for f in data["findings"]}
    missing, extra = sorted(expected - reported), sorted(reported - expected)
    text = (
        f"ownlint reported {len(reported)} findings; the `# E:` comments expect {len(expected)}: "
        f"{len(missing)} missing, {len(extra)} unexpected."
    )
    for kind, items in (("missing", missing), ("unexpected", extra)):
        for path, line, code in items[:10]:
            text += f"\n- {kind}: {code} at `{path}:{line}`"
    return text


def report(args, tools: Tools, corpora: list[Corpus], results: dict, extras: dict, info: dict) -> str:
    m = info["machine"]
    out = [
        f"# ownlint benchmark{' (quick)' if args.quick else ''}",
        "",
        f"Generated by `python benchmarks/run.py{' --quick' if args.quick else ''}` on {info['date']}.",
        "",
        f"- machine: `nproc` {m['nproc']}, {m['cpu']}, {m['memory']}; {m['os']}",
        f"- Python: {m['python']}",
        "- tools: " + ", ".join(f"{k} {v}" for k, v in tools.versions.items()),
        f"- ownlint: {info['revision']}, run from a snapshot of `src/` and `rules/` taken at the start",
        f"- cores: every command pinned to CPUs {args.cores_list} ({len(args.cores_list)} cores); "
        f"Ruff with `RAYON_NUM_THREADS={len(args.cores_list)}`, Fixit and the parse floor with "
        f"{len(args.cores_list)} worker processes; "
        + (
            f"ownlint with `--jobs {len(args.cores_list)}`"
            if tools.ownlint_has_jobs
            else "ownlint in one process (`ownlint check --help` lists no `--jobs`)"
        )
        + "; pyflakes in one process.",
        f"- load average (1 min) before: {info['load_before']:.2f}, after: {info['load_after']:.2f}. "
        "The machine may be shared with other work; a load above the core count means the wall "
        "times below are inflated (CPU times much less so).",
        f"- Fixit: {info['fixit_mode']}.",
        f"- runs: the parse floor, Ruff and ownlint (cold, warm, doubled corpus) {args.repeat} times each, "
        "in interleaved rounds, each row their least wall and least CPU time (largest memory); "
        f"pyflakes and Fixit once; timeout {args.timeout:.0f} s per command.",
        "",
        (
            "Columns: see benchmarks/README.md. In short: CPU = user + sys of the command and its "
            "waited-for children; max RSS = the largest single process; tree RSS = the largest sampled "
            "sum over all of the command's processes; ratios divide this tool's number by Ruff's or "
            "the parse floor's."
        ),
        "",
    ]
    for corpus in corpora:
        out += table(corpus, results[corpus.name]["rows"])
        out.append("")
        bases = ["ruff", "libcst parse floor"] if corpus.name == "stdlib" else ["libcst parse floor"]
        for base in bases:  # the targets: stdlib against Ruff, dense against the parse floor
            line = round_ratios(results[corpus.name]["rows"], "ownlint cold", base)
            if line:
                out += [line, ""]
        if corpus.name == "dense":
            out += ["Check of the dense corpus: " + dense_check(corpus, results[corpus.name]), ""]
        if corpus.name == "stdlib":
            problems = ownlint_problems(results[corpus.name])
            out += ["What ownlint printed on the stdlib (findings and errors, up to 25 each):", ""]
            out += problems or ["- nothing: no findings, no errors"]
            out.append("")
    if "linearity" in extras:
        lin = extras["linearity"]
        lm: Measurement = lin["measurement"]
        out += ["### Linearity", ""]
        if "wall_ratio" in lin:
            out.append(
                f"ownlint cold on the dense corpus doubled ({lin['corpus'].lines:,} lines, "
                f"{lin['expected']} expected findings): {fmt(lm.wall, 2)} s wall, {fmt(lm.cpu, 2)} s CPU, "
                f"{fmt(lm.max_rss_kb / 1024, 0)} MiB; "
                f"{lin['wall_ratio']:.2f}× the wall time and {lin['cpu_ratio']:.2f}× the CPU time of the "
                f"single corpus's least times (target ≤ 2.1×). Output: {lm.note}."
            )
            rounds = lin.get("rounds") or []
            if rounds:
                walls = ", ".join(f"{w:.2f}" for w, _ in rounds)
                cpus = ", ".join(f"{c:.2f}" for _, c in rounds)
                out += [
                    "",
                    f"Doubled ÷ single, each round running both: wall {walls} "
                    f"(median **{statistics.median(w for w, _ in rounds):.2f}×**); CPU {cpus} "
                    f"(median **{statistics.median(c for _, c in rounds):.2f}×**).",
                ]
        else:
            out.append(f"Not measured: {lm.note or 'the single corpus timed out'}.")
        out.append("")
    if "many_ifs" in extras:
        mi = extras["many_ifs"]
        mm: Measurement = mi["measurement"]
        out += [
            f"### {MANY_IFS} sequential `if` statements in one function",
            "",
            f"One generated function ({mi['lines']:,} lines): {MANY_IFS} handles allocated with "
            f"`zeMemAllocHost`, then `if flag_i: zeMemFree(ctx, p_i)` for each, then one more "
            "`zeMemFree(ctx, p_0)` (a double free on the paths where `flag_0` held).",
            "",
            (
                f"Result: {'timeout after ' + fmt(mm.wall, 0) + ' s' if mm.timed_out else 'finished'}; "
                f"wall {fmt(mm.wall, 2)} s, CPU {fmt(mm.cpu, 2)} s, max RSS {fmt(mm.max_rss_kb / 1024, 0)} MiB, "
                f"exit {mm.exit}; {mm.note}."
            ),
            "",
        ]
        if mi["printed"]:
            out += ["What it printed (findings and errors):", "", "```", mi["printed"][:4000], "```", ""]
    if "lsp" in extras:
        ls = extras["lsp"]
        out += ["### Editor-style re-check of one file", ""]
        if "times" in ls:
            out.append(
                f"`api.check_source` on a {ls['lines']:,}-line interop module (renamed fixtures one after "
                f"another), in one process: first call {ls['first']:.3f} s, then {len(ls['times'])} re-checks, "
                f"each after an edit (one statement added to a different function): "
                f"median **{statistics.median(ls['times']):.3f} s**, min {min(ls['times']):.3f} s, "
                f"max {max(ls['times']):.3f} s; {ls['findings']} findings, {len(ls['errors'])} errors."
            )
        else:
            out.append(f"Failed: {ls.get('failure', 'timeout')}.")
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10%% of the stdlib and a small dense corpus")
    parser.add_argument(
        "--only", choices=["stdlib", "dense"], help="run one corpus (with dense: also linearity, ifs, re-check)"
    )
    parser.add_argument("--cores", type=int, default=2, help="CPUs every tool may use (default 2)")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per command (default 1200)")
    parser.add_argument("--output", type=Path, help="default: benchmarks/RESULTS.md, or RESULTS-quick.md")
    parser.add_argument("--keep", action="store_true", help="keep the temporary corpora and print where")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of the compared commands, least time kept (default 3)"
    )
    args = parser.parse_args()
    available = sorted(os.sched_getaffinity(0))
    args.cores_list = available[: args.cores]
    # Every command inherits this: the same CPUs for all tools (and for this process's sampler).
    os.sched_setaffinity(0, args.cores_list)
    output = args.output or HERE / ("RESULTS-quick.md" if args.quick else "RESULTS.md")

    workspace = Path(tempfile.mkdtemp(prefix="ownlint-bench-"))
    info = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load_before": os.getloadavg()[0],
        "revision": ownlint_revision(),
    }
    try:
        snapshot_ownlint(workspace / "ownlint-snapshot")
        tools = find_tools()
        write_fixit_config(workspace)
        corpora: list[Corpus] = []
        copies = make_corpus.copies_for(QUICK_DENSE_LINES if args.quick else DENSE_LINES)
        if args.only in (None, "stdlib"):
            corpora.append(make_stdlib(workspace, QUICK_STDLIB_SHARE if args.quick else 1.0))
        if args.only in (None, "dense"):
            corpora.append(make_dense(workspace, "dense", copies)[0])
        sample = min(corpora[-1].path.rglob("*.py"))
        fixit_args, info["fixit_mode"] = fixit_rule_args(tools, workspace, sample)
        results: dict = {}
        extras: dict = {}
        for corpus in corpora:
            print(f"{corpus.name}: {corpus.files} files, {corpus.lines} lines", flush=True)
            results[corpus.name] = run_corpus(corpus, tools, args.cores_list, args.timeout, fixit_args, args.repeat)
        if args.only in (None, "dense"):
            dense = next(c for c in corpora if c.name == "dense")
            cold = next(m for m in results["dense"]["rows"] if m.tool == "ownlint cold")
            extras["linearity"] = run_linearity(
                dense, cold, workspace, copies, tools, args.cores_list, args.timeout, args.repeat
            )
            extras["many_ifs"] = run_many_ifs(workspace, tools, args.timeout)
            extras["lsp"] = run_lsp(workspace, tools, args.timeout)
        info["load_after"] = os.getloadavg()[0]
        text = report(args, tools, corpora, results, extras, info)
        output.write_text(text + "\n", encoding="utf-8")
        raw = {
            "info": info,
            "versions": tools.versions,
            "corpora": [{**asdict(c), "path": str(c.path)} for c in corpora],
            "measurements": [
                {k: v for k, v in asdict(m).items() if k not in ("stdout", "stderr")}
                for r in results.values()
                for m in r["rows"]
            ],
            "linearity_rounds": (extras.get("linearity") or {}).get("rounds"),
        }
        output.with_suffix(".json").write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")
        print()
        print(text)
        print(f"\nwritten: {output} and {output.with_suffix('.json')}")
    finally:
        if args.keep:
            print(f"corpora kept in {workspace}")
        else:
            shutil.rmtree(workspace, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
