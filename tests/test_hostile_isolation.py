"""Checking a hostile repository never runs its code (issue 29, point 1).

The scratch repository holds modules named as those ownlint and Python load
(`multiprocessing.py`, `threading.py`, `libcst.py`, `sitecustomize.py`,
`usercustomize.py`), a `.pth` file and a `conftest.py`, each of which leaves
a marker file behind if it is ever imported or executed. ownlint runs over
it as a subprocess started inside it, with and without a terminal (a
pseudo-terminal, so that the progress display and its thread start), with
one and two jobs, on a small tree and on one large enough to be spread over
workers: no marker, ever, and every file is checked.
"""

from __future__ import annotations

import itertools
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

if not sys.platform.startswith("linux"):  # pseudo-terminals and the start methods under test are Linux's
    pytest.skip("hostile-repository isolation is tested on Linux", allow_module_level=True)

import pty

from ownlint import runner

HOSTILE = ["multiprocessing.py", "threading.py", "libcst.py", "sitecustomize.py", "usercustomize.py", "conftest.py"]
TIMEOUT = 300


def double_free(n: int, padding: int) -> str:
    """A file the prefilter selects, with an OWN201; `padding` comment lines make it larger, not slower."""
    comments = "#\n" * padding
    return f"from ze import *\n\ndef f{n}(ctx, p):\n    zeMemFree(ctx, p)\n{comments}    zeMemFree(ctx, p)\n"


def hostile_repository(root: Path, markers: Path, files: int, padding: int) -> None:
    root.mkdir()
    markers.mkdir()
    for name in HOSTILE:
        (root / name).write_text(f"open({str(markers / name)!r}, 'w').close()\n", encoding="utf-8")
    (root / "evil.pth").write_text(f"import os; open({str(markers / 'evil.pth')!r}, 'w').close()\n", encoding="utf-8")
    for n in range(files):
        (root / f"m{n}.py").write_text(double_free(n, padding), encoding="utf-8")


def run_in_terminal(command: list[str], cwd: Path) -> tuple[int, str]:
    """Runs `command` with a pseudo-terminal as its standard input, output and error."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(command, cwd=cwd, stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    output = bytearray()
    deadline = time.monotonic() + TIMEOUT
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # EIO: every holder of the terminal has closed it
                    break
                if not chunk:
                    break
                output += chunk
            elif process.poll() is not None:
                break
        status = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(leader)
    return status, output.decode("utf-8", "replace")


def run(command: list[str], cwd: Path, terminal: bool) -> tuple[int, str]:
    if terminal:
        return run_in_terminal(command, cwd)
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout + done.stderr


LAUNCHERS = {
    "module": [sys.executable, "-m", "ownlint"],  # the current directory first on the main process's path
    "script": [str(Path(sys.executable).parent / "ownlint")],  # the console script
}
SIZES = {"small": (3, 0), "large": (42, 500)}  # files, padding lines each: large is over PARALLEL_MIN_LINES


def test_the_large_tree_is_large_enough_to_be_spread_over_workers() -> None:
    files, padding = SIZES["large"]
    assert files * double_free(0, padding).count("\n") > runner.PARALLEL_MIN_LINES


def pairwise(*combinations: tuple[object, ...]) -> list[object]:
    """Every combination of the binary choices given, as parameters: those listed
    in the default set (together they hold every pair of choices at least once:
    each real interpreter start costs a second), the rest `slow` (README)."""
    choices = [sorted({c[i] for c in combinations}, key=str) for i in range(len(combinations[0]))]
    listed = set(combinations)
    return [
        pytest.param(*c, marks=() if c in listed else pytest.mark.slow, id="-".join(map(_name, c)))
        for c in itertools.product(*choices)
    ]


def _name(choice: object) -> str:
    return {True: "terminal", False: "pipes"}.get(choice, str(choice)) if isinstance(choice, bool) else str(choice)


@pytest.mark.parametrize(
    "launcher, jobs, terminal",
    pairwise(("module", 1, False), ("module", 2, True), ("script", 1, True), ("script", 2, False)),
)
@pytest.mark.parametrize(
    "size", [pytest.param(s, marks=pytest.mark.slow) if s == "large" else s for s in sorted(SIZES)]
)  # large: spread over workers, end to end
def test_no_code_of_the_checked_repository_ever_runs(
    tmp_path: Path, launcher: str, size: str, jobs: int, terminal: bool
) -> None:
    if launcher == "script" and not (Path(sys.executable).parent / "ownlint").exists():
        pytest.skip("no console script beside this interpreter")
    root, markers = tmp_path / "repo", tmp_path / "markers"
    files, padding = SIZES[size]
    hostile_repository(root, markers, files, padding)
    command = [*LAUNCHERS[launcher], "check", "--no-cache", "--format", "concise", "--jobs", str(jobs), "."]
    status, output = run(command, root, terminal)
    assert sorted(p.name for p in markers.iterdir()) == [], output
    assert (status, output.count("OWN201")) == (1, files), output
    assert "Traceback" not in output and "analysis stopped" not in output, output


def test_a_marker_is_seen_when_the_code_does_run(tmp_path: Path) -> None:
    """The markers work: importing the hostile modules from the repository leaves them."""
    root, markers = tmp_path / "repo", tmp_path / "markers"
    hostile_repository(root, markers, 1, 0)
    subprocess.run([sys.executable, "-c", "import multiprocessing, conftest"], cwd=root, check=True, timeout=TIMEOUT)
    assert sorted(p.name for p in markers.iterdir()) == ["conftest.py", "multiprocessing.py"]


# --- a file's crash costs only that file (issue 29, point 2) -----------------------------------------

HEAD = "from ze import *\n\ndef f(ctx, p):\n    zeMemFree(ctx, p)\n    zeMemFree(ctx, p)\n\n"  # OWN201 at 5
CRASHERS = {  # each made libcst's native parser crash, abort or run for minutes
    "lambdas.py": HEAD + "g = " + "lambda: " * 5000 + "0\n",
    "chain.py": HEAD + "g = (a\n" + ".b\n" * 10000 + ")\n",
    "parens.py": HEAD + "s = '" + ")" * 5000 + "'\n" + "g = " + "(" * 5000 + "0" + ")" * 5000 + "\n",
}
REFUSED = {
    "lambdas.py": "line 7: expression too deeply chained to parse safely (over 1,000 links)",
    "chain.py": "line 1008: expression too deeply chained to parse safely (over 1,000 links)",
    "parens.py": "line 8: brackets nested too deeply to parse safely (more than 200)",
}
CR_ONLY = (HEAD + "".join(f"x{i} = a.b.c + d.e - f.g\n" for i in range(1000))).replace("\n", "\r")


def crash_tree(root: Path) -> None:
    root.mkdir()
    for name, text in CRASHERS.items():
        (root / name).write_text(text, encoding="utf-8")
    (root / "cr.py").write_bytes(CR_ONLY.encode())
    (root / "ok.py").write_text(HEAD, encoding="utf-8")


@pytest.mark.parametrize("jobs, terminal", pairwise(("1", False), ("2", True)))
def test_files_the_parser_cannot_survive_cost_only_themselves(tmp_path: Path, jobs: str, terminal: bool) -> None:
    root = tmp_path / "repo"
    crash_tree(root)
    command = [*LAUNCHERS["module"], "check", "--no-cache", "--format", "concise", "--jobs", jobs, "."]
    status, output = run(command, root, terminal)
    output = output.replace("\r\n", "\n")  # a terminal's line ends
    for name, reason in REFUSED.items():
        assert f"error: {name}: {reason}\n" in output, output
    assert "cr.py:5:5: OWN201 [double-free] `p` is freed a second time\n" in output, output  # CR-only: checked
    assert "ok.py:5:5: OWN201 [double-free] `p` is freed a second time\n" in output, output
    assert status == 1 and "Traceback" not in output and "dense" not in output, output


@pytest.mark.parametrize("name", sorted(CRASHERS))
def test_standard_input_the_parser_cannot_survive_is_one_error(tmp_path: Path, name: str) -> None:
    done = subprocess.run(
        [*LAUNCHERS["module"], "check", "--format", "concise", "--stdin-filename", name],
        input=CRASHERS[name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.stdout.splitlines()[0] == f"error: {name}: {REFUSED[name]}", done.stdout + done.stderr
    assert (done.returncode, done.stderr) == (1, "")


def test_standard_input_whose_analysis_crashes_its_worker_is_one_error(tmp_path: Path) -> None:
    """Past every guard: the worker dies (a fake engine segfaults on `# STOP`); the process goes on."""
    tests = Path(__file__).resolve().parent
    script = (
        f"import sys\nsys.path.insert(0, {str(tests)!r})\nimport isolation_fakes\n"
        "isolation_fakes.install('segfault')\nfrom ownlint.cli import main\n"
        "sys.argv = ['ownlint', 'check', '--format', 'concise', '--stdin-filename', 'stops.py']\nmain()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input="from ze import *\nzeMemFree(ctx, p)  # STOP\n",
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.stdout.splitlines()[0] == (
        "error: stops.py: analysis stopped: the worker process was killed by signal 11 (SIGSEGV)"
    ), done.stdout + done.stderr
    assert done.returncode == 1


# --- exit statuses (issue 29, point 3) -----------------------------------------------------------------


def run_main(tmp_path: Path, prelude: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    script = f"{prelude}\nimport sys\nfrom ownlint.cli import main\nsys.argv = ['ownlint', *{args!r}]\nmain()\n"
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=as_a_shell_starts_it,
    )


def as_a_shell_starts_it() -> None:
    """A Ctrl-C reaches a command a shell starts: SIGINT neither blocked nor ignored, whatever the test
    process inherited (in a full run of the suite, a command started from a pytest-xdist worker once
    found SIGINT blocked or ignored and ran to its end, exit 1: the interrupt never arrived)."""
    import signal

    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def signal_masks(pid: int | str = "self") -> str:
    """The blocked and ignored signals of a process, as /proc shows them (for a failure's message)."""
    status = Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines()
    return " ".join(line.replace("\t", "") for line in status if line.startswith(("SigBlk", "SigIgn")))


def test_a_crash_of_ownlint_itself_exits_2_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text(HEAD, encoding="utf-8")
    prelude = (
        "from ownlint import commands\n"
        "def broken(*args, **kwargs):\n    raise RuntimeError('renderer broke')\n"
        "commands.print_report = broken\n"
    )
    done = run_main(tmp_path, prelude, ["check", "--no-cache", "ok.py"])
    assert done.returncode == 2
    assert done.stderr == "ownlint: error: internal error in ownlint 0.1.0: RuntimeError: renderer broke\n"


def test_a_keyboard_interrupt_exits_130(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text(HEAD, encoding="utf-8")
    prelude = (
        "from ownlint import api\ndef interrupted(*args, **kwargs):\n    raise KeyboardInterrupt\n"
        "api.check_paths = interrupted\n"
    )
    done = run_main(tmp_path, prelude, ["check", "--no-cache", "ok.py"])
    assert done.returncode == 130 and "Traceback" not in done.stderr, done.stderr


def test_ctrl_c_during_a_run_exits_130_and_leaves_no_worker(tmp_path: Path) -> None:
    import signal

    root, markers = tmp_path / "repo", tmp_path / "markers"
    hostile_repository(root, markers, *SIZES["large"])
    process = subprocess.Popen(
        [*LAUNCHERS["module"], "check", "--no-cache", "--jobs", "2", "."],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_a_shell_starts_it,
    )
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    deadline = time.monotonic() + 60
    while process.poll() is None and not children.read_text().split():  # until its workers are started
        assert time.monotonic() < deadline, "no worker started in a minute"
        time.sleep(0.01)
    assert process.poll() is None, "the run ended before it could be interrupted: make the tree larger"
    masks = signal_masks(process.pid)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 130 and "Traceback" not in stderr, (process.returncode, stderr, masks)


def test_ctrl_c_while_a_worker_starts_prints_no_traceback(tmp_path: Path) -> None:
    """A Ctrl-C that lands while multiprocessing makes its bookkeeping for a
    worker (a `Finalize`, half made) once printed "Exception ignored in:
    <Finalize object, dead>" and a traceback when the half-made object died
    (seen in CI). Here every `Finalize` multiprocessing makes is interrupted
    just after its weak reference exists and before it is registered, the
    moment CI hit by chance: the interrupt takes effect once the worker has
    started, and the run exits 130 with nothing on standard error."""
    root, markers = tmp_path / "repo", tmp_path / "markers"
    hostile_repository(root, markers, *SIZES["large"])
    prelude = (
        "import os, signal, types, weakref\nimport multiprocessing.util as util\n"
        "kept = []  # as `Finalize` keeps its weak reference, once it has it\n"
        "def ref(obj, callback=None):\n    kept.append(weakref.ref(obj, callback))\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n    return kept[-1]\n"
        "util.weakref = types.SimpleNamespace(ref=ref, WeakValueDictionary=weakref.WeakValueDictionary)\n"
    )
    done = run_main(
        tmp_path, prelude, ["check", "--no-cache", "--jobs", "2", "repo"]
    )  # not in the hostile tree: the prelude imports
    assert (done.returncode, done.stderr) == (130, "\n"), (
        signal_masks()
    )  # click's blank line, which closes the terminal's ^C


# --- the language server outlives a document that kills its worker (issue 29, point 2) ----------------


def test_the_language_server_outlives_a_document_that_kills_its_worker(tmp_path: Path) -> None:
    """The server's analysis of a document whose worker dies (a fake engine segfaults on `# STOP`)
    is that document's problem only, naming the file (shown with `window/showMessage`, as
    configuration problems are); the next document is checked by a new worker. The fake engine
    reaches the worker only when it is forked, so the server's `analyse` runs here in a process
    with no other thread (pygls's threads would make the worker start fresh, without the fake)."""
    tests = Path(__file__).resolve().parent
    stops, ok = tmp_path / "stops.py", tmp_path / "ok.py"
    (tmp_path / "pyproject.toml").write_text("[tool.ownlint]\n", encoding="utf-8")
    script = (
        f"import sys\nsys.path.insert(0, {str(tests)!r})\nimport isolation_fakes\n"
        "isolation_fakes.install('segfault')\nfrom pathlib import Path\nfrom ownlint.lsp import analyse\n"
        f"first = analyse('from ze import *\\nzeMemFree(ctx, p)  # STOP\\n', Path({str(stops)!r}))\n"
        f"second = analyse({HEAD!r}, Path({str(ok)!r}))\n"
        "print(first.problem)\nprint([f.code for f in first.findings])\n"
        "print(second.problem)\nprint([(f.code, f.span.line) for f in second.findings])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT)
    lines = done.stdout.splitlines()
    assert len(lines) == 4, done.stdout + done.stderr
    assert "stops.py: analysis stopped: the worker process was killed by signal 11 (SIGSEGV)" in lines[0]
    assert lines[1:] == ["[]", "None", "[('OWN201', 5)]"], done.stdout + done.stderr
    assert "Traceback" not in done.stderr
