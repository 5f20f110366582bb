"""One file that kills, exhausts or hangs its worker costs that file only.

Each test runs a fresh interpreter (workers are forked only from a process
with one thread) in which `isolation_fakes` makes the engine fail on the
files marked `# STOP`: the worker exits, is killed, crashes, sleeps past its
time limit, or allocates past its memory limit (both limits are made small
here). The file gets one `analysis stopped: <reason>` entry; every other
file gets the report a run without the failure gives it; nothing hangs.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import forked
import pytest

if not sys.platform.startswith("linux"):  # the workers are forked, and the memory limit is Linux's
    pytest.skip("worker isolation is tested on Linux", allow_module_level=True)

TESTS = Path(__file__).resolve().parent

HELPER = "from ze import *\n\ndef release(ctx, p):\n    zeMemFree(ctx, p)\n"
CALLER = "from helpers import release\n\ndef f(ctx, p):\n    release(ctx, p)\n    release(ctx, p)\n"  # OWN201 at 5
USER = "from helpers import release\n\ndef g(ctx, p):\n    release(ctx, p)  # STOP\n"  # joins the helper's component
STOPS = "from ze import *\n\ndef h(ctx, p):\n    zeMemFree(ctx, p)  # STOP\n"
CLEAN = "from ze import *\n\ndef c(ctx, p):\n    zeMemFree(ctx, p)\n"


def double_free(i: int) -> str:
    return f"from ze import *\n\ndef f{i}(ctx, p):\n    zeMemFree(ctx, p)\n    zeMemFree(ctx, p)\n"  # OWN201 at 5


ALONE = {
    **{f"d{i}.py": double_free(i) for i in range(3)},
    "stops.py": STOPS,
    **{f"e{i}.py": double_free(i) for i in range(3)},
}
IN_A_COMPONENT = {
    "helpers.py": HELPER,
    "caller.py": CALLER,
    "user.py": USER,
    "d0.py": double_free(0),
    "d1.py": double_free(1),
}

SETUP = f"""
import json, sys
sys.path.insert(0, {str(TESTS)!r})
import isolation_fakes
from ownlint import runner, workers
runner.PARALLEL_MIN_LINES = 0
workers.TASK_SECONDS = 1.5
workers.TASK_SECONDS_PER_LINE = 0.0
workers.WORKER_MEMORY = 256 << 20
"""

MEMORY = "ran out of memory (a worker process may use 0.25 GiB more than it starts with)"
REASONS = {
    "exit": "the worker process exited with status 3",
    "kill": "the worker process was killed by signal 9 (SIGKILL; out of memory?)",
    "segfault": "the worker process was killed by signal 11 (SIGSEGV)",
    "hang": "ran past the time limit of 1.5 s",
    "allocate": MEMORY,
    "raise": MEMORY,
}


def run_script(script: str, cwd: Path) -> str:
    done = forked.script(script, cwd=cwd, timeout=300)
    assert done.returncode == 0 and not done.stderr, (done.returncode, done.stderr)
    return done.stdout


def analyze(
    sources: dict[str, str], tmp_path: Path, how: str | None = None, jobs: int = 2, setup: str = ""
) -> list[list[object]]:
    """Each file's [path, [[code, line], ...], [error message, ...]], from `runner.analyze` in a fresh interpreter."""
    script = (
        SETUP
        + setup
        + (
            "from ownlint.engine.modelling.models import load_models\n"
            "from ownlint.checks import CHECKERS\n"
            "from ownlint.engine.program.sources import EngineOptions, SourceFile\n"
            + (f"isolation_fakes.install({how!r})\n" if how is not None else "")
            + f"files = [SourceFile(path, text) for path, text in {sorted(sources.items())!r}]\n"
            f"reports = runner.analyze(files, load_models(), EngineOptions(checkers=CHECKERS), {jobs})\n"
            "print(json.dumps([[r.path, [[d.code, d.span.line] for d in r.diagnostics], [e.message for e in r.errors]] for r in reports]))\n"
        )
    )
    return json.loads(run_script(script, tmp_path))  # type: ignore[no-any-return]


@functools.cache
def _normal(sources: tuple[tuple[str, str], ...]) -> str:
    from ownlint import runner
    from ownlint.checks import CHECKERS
    from ownlint.engine.modelling.models import load_models
    from ownlint.engine.program.sources import EngineOptions, SourceFile

    reports = runner.analyze(
        [SourceFile(path, text) for path, text in sources], load_models(), EngineOptions(checkers=CHECKERS), 1
    )
    return json.dumps(
        [[r.path, [[d.code, d.span.line] for d in r.diagnostics], [e.message for e in r.errors]] for r in reports]
    )


def normal(sources: dict[str, str]) -> list[list[object]]:
    """What `analyze` gives with nothing failing, computed once per set of files,
    in this process (it is the reference, not what is tested)."""
    return json.loads(_normal(tuple(sorted(sources.items()))))  # type: ignore[no-any-return]


def assert_only(stopped: dict[str, str], got: list[list[object]], reference: list[list[object]]) -> None:
    """The files in `stopped` have just their entry; every other has its reference report."""
    assert [r[0] for r in got] == [r[0] for r in reference]  # every file, in order
    for report, expected in zip(got, reference, strict=True):
        path = report[0]
        if path in stopped:
            assert report == [path, [], [f"analysis stopped: {stopped[path]}"]]
        else:
            assert report == expected


@pytest.mark.parametrize("how", sorted(REASONS))
def test_a_file_that_stops_its_worker_costs_only_that_file(tmp_path: Path, how: str) -> None:
    """All the files here make one task: the others of it run again, in another worker."""
    expected = normal(ALONE)
    assert sum(len(r[1]) for r in expected if isinstance(r[1], list)) == 6
    assert_only({"stops.py": REASONS[how]}, analyze(ALONE, tmp_path, how), expected)


@pytest.mark.parametrize("how", ["kill", "hang"])
def test_with_many_tasks(tmp_path: Path, how: str) -> None:
    expected = normal(ALONE)
    got = analyze(ALONE, tmp_path, how, setup="runner.MIN_BATCH_LINES = 1\n")
    assert_only({"stops.py": REASONS[how]}, got, expected)


def test_even_a_small_set_runs_in_a_worker(tmp_path: Path) -> None:
    """Below the parallel threshold the files still go to one forked worker:
    the run survives the file."""
    sources = {"stops.py": STOPS, "d0.py": double_free(0)}
    expected = normal(sources)
    got = analyze(sources, tmp_path, "exit", setup="runner.PARALLEL_MIN_LINES = 10 ** 9\n")
    assert_only({"stops.py": REASONS["exit"]}, got, expected)


def test_the_rest_of_the_culprits_component_is_analysed_together(tmp_path: Path) -> None:
    """The worker knows the component, not the file: each of its files is
    analysed alone (user.py stops), then the others together again, so the
    caller keeps the double free it has through the helper."""
    expected = normal(IN_A_COMPONENT)
    assert [r for r in expected if r[0] == "caller.py"] == [["caller.py", [["OWN201", 5]], []]]
    got = analyze(IN_A_COMPONENT, tmp_path, "exit")
    assert_only({"user.py": REASONS["exit"]}, got, expected)


def test_files_that_stop_the_analysis_only_together_keep_what_they_give_alone(tmp_path: Path) -> None:
    sources = {
        "pool.py": "from ze import *\n\ndef drop(ctx, p):  # TOGETHER\n    zeMemFree(ctx, p)\n",
        "user.py": "from pool import drop\n\ndef g(ctx, p):  # TOGETHER\n    drop(ctx, p)\n    drop(ctx, p)\n",
        "d0.py": double_free(0),
    }
    got = {r[0]: r for r in analyze(sources, tmp_path, "exit")}
    note = "analysis stopped: the worker process exited with status 3 when analysed with 1 other file; its findings are those of the file alone"
    assert got["pool.py"] == ["pool.py", [], [note]]
    assert got["user.py"] == ["user.py", [], [note]]  # alone, the double free through `drop` is not seen
    assert got["d0.py"] == ["d0.py", [["OWN201", 5]], []]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_memory_error_in_one_files_analysis(tmp_path: Path, jobs: int) -> None:
    """The engine catches a MemoryError in one file's analysis and reports it
    as an internal error; the runner says what it is: the worker's memory
    limit, with one job as with two (one job is one worker)."""
    setup = (
        "from ownlint.engine.program import project\n"
        "real = project.Project.analyze_unit\n"
        "def analyze_unit(self, unit):\n"
        "    if unit.path == 'stops.py':\n"
        "        raise MemoryError()\n"
        "    return real(self, unit)\n"
        "project.Project.analyze_unit = analyze_unit\n"
    )
    expected = normal(ALONE)
    assert_only({"stops.py": MEMORY}, analyze(ALONE, tmp_path, jobs=jobs, setup=setup), expected)


def test_a_memory_error_out_of_the_engine_in_this_process(tmp_path: Path) -> None:
    """With `runner.ISOLATE` off (tests only), in this process, where there is no memory limit to name."""
    expected = normal(IN_A_COMPONENT)
    here = "runner.ISOLATE = False\n"
    assert_only(
        {"user.py": "ran out of memory"}, analyze(IN_A_COMPONENT, tmp_path, "raise", jobs=1, setup=here), expected
    )


@pytest.mark.parametrize("how", ["segfault", "allocate"])
def test_one_job_is_one_worker(tmp_path: Path, how: str) -> None:
    """`--jobs 1` analyses in a worker too: a crash or a runaway allocation costs the file, not the run."""
    assert_only({"stops.py": REASONS[how]}, analyze(ALONE, tmp_path, how, jobs=1), normal(ALONE))


def run_cli(args: list[str], cwd: Path, how: str | None) -> subprocess.CompletedProcess[str]:
    script = SETUP + (
        (f"isolation_fakes.install({how!r})\n" if how is not None else "") + "from ownlint.cli import cli\n"
        f"cli.main(['check', '--format', 'json', *{args!r}], prog_name='ownlint')\n"
    )
    return forked.script(script, cwd=cwd, timeout=300)


@pytest.mark.parametrize("cache", [True, False])
def test_the_exit_status_is_that_of_a_file_that_could_not_be_checked(tmp_path: Path, cache: bool) -> None:
    """1, as for an unreadable file (0 with --exit-zero), not 2: ownlint did
    not fail. A stopped analysis is not cached: the next run tries again."""
    (tmp_path / "stops.py").write_text(STOPS, encoding="utf-8")
    (tmp_path / "clean.py").write_text(CLEAN, encoding="utf-8")
    options = ["--jobs", "2", "."] if cache else ["--no-cache", "--jobs", "2", "."]
    for exit_zero in (False, True):
        done = run_cli(options + (["--exit-zero"] if exit_zero else []), tmp_path, "kill")
        assert "Traceback" not in done.stderr and done.stderr == ""
        assert done.returncode == (0 if exit_zero else 1)
        document = json.loads(done.stdout)
        assert document["findings"] == []
        assert document["errors"] == [{"path": "stops.py", "message": f"analysis stopped: {REASONS['kill']}"}]
    again = run_cli(options, tmp_path, None)
    assert (again.returncode, json.loads(again.stdout)["errors"]) == (0, [])


def test_workers_do_not_outlive_a_run_that_is_killed(tmp_path: Path) -> None:
    """A run killed while its worker is stuck on a file (with an hour's time
    limit here) takes the worker with it: the output pipes it inherited
    close at once, instead of when the hour is up."""
    script = SETUP + (
        "import time\n"
        "workers.TASK_SECONDS = 3600.0\n"
        "def stuck():\n"
        "    print('stuck', flush=True)\n"
        "    time.sleep(3600)\n"
        "isolation_fakes.FAILURES['hang'] = stuck\n"
        "isolation_fakes.install('hang')\n"
        "from ownlint.engine.modelling.models import load_models\n"
        "from ownlint.checks import CHECKERS\n"
        "from ownlint.engine.program.sources import EngineOptions, SourceFile\n"
        f"files = [SourceFile(path, text) for path, text in {sorted(ALONE.items())!r}]\n"
        "runner.analyze(files, load_models(), EngineOptions(checkers=CHECKERS), 2)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "stuck\n"
        proc.kill()
        out, err = proc.communicate(timeout=30)  # every holder of the pipes is gone
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (out, err) == ("", "")
