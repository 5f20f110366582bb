"""The progress bar (standard error, terminals only, long runs only) and colour (`NO_COLOR`)."""

from __future__ import annotations

import io
import json
import threading
import time
from pathlib import Path

import forked
import pytest
from rich.console import Console
from rich.text import Text

from ownlint import api
from ownlint.checks import CHECKERS
from ownlint.cli import make_console
from ownlint.config import default_config
from ownlint.engine.evaluator.typestate import RawViolation, Unit
from ownlint.engine.modelling.models import load_models
from ownlint.engine.program import project
from ownlint.engine.program.sources import EngineOptions, SourceFile
from ownlint.progress import ProgressBar, progress_for


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def terminal_console(out: io.StringIO) -> Console:
    return Console(file=out, force_terminal=True, color_system="standard", width=80)


def test_no_bar_when_standard_error_is_not_a_terminal() -> None:
    assert progress_for(io.StringIO()) is None


def test_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert isinstance(progress_for(FakeTerminal()), ProgressBar)


def test_a_quick_run_draws_nothing_and_leaves_no_thread() -> None:
    threads = threading.active_count()
    out = io.StringIO()
    with ProgressBar(terminal_console(out), delay=30.0) as bar:
        bar.start(3)
        assert threading.active_count() == threads + 1  # the bar's timer
        bar.advance(3)
    assert out.getvalue() == ""
    assert not bar.shown
    assert threading.active_count() == threads  # ended when the run did, not some moment later


def test_a_long_run_draws_the_bar_then_removes_it() -> None:
    out = io.StringIO()
    with ProgressBar(terminal_console(out), delay=0.0) as bar:
        bar.start(4)
        deadline = time.monotonic() + 10
        while not bar.shown and time.monotonic() < deadline:
            time.sleep(0.01)
        bar.advance(4)
    assert bar.shown
    assert "checking" in out.getvalue()
    assert "4/4" in out.getvalue()


def test_check_paths_reports_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("y = 2\n", encoding="utf-8")
    events: list[tuple[str, int]] = []

    class Recorder:
        def start(self, total: int) -> None:
            events.append(("start", total))

        def advance(self, count: int) -> None:
            events.append(("advance", count))

    api.check_paths(["."], default_config(tmp_path), progress=Recorder())
    assert events == [("start", 2), ("advance", 2)]  # neither names anything modelled: both done at once


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_advances_as_each_component_is_analysed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    # it showed 0/600 files for a 40-second run, then all at once at the end
    monkeypatch.chdir(tmp_path)
    for i in range(4):  # four components: files that do not reach each other
        (tmp_path / f"m{i}.py").write_text(
            f"from ze import *\n\n\ndef f{i}(ctx, p):\n    zeMemFree(ctx, p)\n    zeMemFree(ctx, p)\n" * 40,
            encoding="utf-8",
        )
    (tmp_path / "plain.py").write_text("x = 1\n", encoding="utf-8")
    events: list[tuple[str, int]] = []

    class Recorder:
        def start(self, total: int) -> None:
            events.append(("start", total))

        def advance(self, count: int) -> None:
            events.append(("advance", count))

    result = api.check_paths(["."], default_config(tmp_path), progress=Recorder(), jobs=jobs)
    assert len(result.findings) == 4 * 40
    assert events[0] == ("start", 5)
    advances = [n for kind, n in events[1:] if kind == "advance"]
    assert sum(advances) == 5
    assert len(advances) >= 4, events  # at least once per component (and once for the file none needs)


def test_the_engine_tells_of_each_file_as_its_analysis_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """`analyze_project(..., analysed=...)` is told of each file as it is done
    (an unparsable one once loading is over), not of the whole component at the end."""
    seen: list[tuple[str, object]] = []
    real = project.Project.analyze_unit

    def spy(self: project.Project, unit: Unit) -> list[RawViolation]:
        seen.append(("analyse", unit.path))
        return real(self, unit)

    monkeypatch.setattr(project.Project, "analyze_unit", spy)
    helper = "from ze import *\n\n\ndef release(ctx, p):\n    zeMemFree(ctx, p)\n"
    caller = "from helpers import release\n\n\ndef f(ctx, p):\n    release(ctx, p)\n    release(ctx, p)\n"
    sources = [SourceFile("helpers.py", helper), SourceFile("broken.py", "def (:\n"), SourceFile("caller.py", caller)]
    reports = project.analyze_project(
        sources, load_models(), EngineOptions(checkers=CHECKERS), analysed=lambda n: seen.append(("done", n))
    )
    assert [d.code for r in reports for d in r.diagnostics] == ["OWN001", "OWN201"]
    assert seen == [
        ("done", 1),  # broken.py: nothing to analyse once it failed to parse
        ("analyse", "helpers.py"),
        ("done", 1),
        ("analyse", "caller.py"),
        ("done", 1),
    ]


_SLOW_RUN = """
import json, sys, time
from ownlint import api, processes
from ownlint.config import default_config
from ownlint.engine.program import project

real = project.Project.analyze_unit

def slow(self, unit):
    time.sleep(0.25)  # slower than the parent looks (workers.PROGRESS_SECONDS, 0.1 s), so that it sees each file
    return real(self, unit)

project.Project.analyze_unit = slow  # the forked worker inherits the slow engine
events = []

class Recorder:
    def start(self, total):
        events.append(("start", total))

    def advance(self, count):
        events.append(("advance", count))

assert processes.can_fork()
result = api.check_paths(["."], default_config("."), progress=Recorder(), jobs=int(sys.argv[1]))
print(json.dumps({"findings": len(result.findings), "events": events}))
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_advances_within_one_component_as_the_worker_goes(tmp_path: Path, jobs: int) -> None:
    # a 40-second run of 600 files (one component: they import each other) showed 0/600, then all at once
    helpers = "from ze import *\n\n\ndef release(ctx, p):\n    zeMemFree(ctx, p)\n"
    (tmp_path / "helpers.py").write_text(helpers, encoding="utf-8")
    for i in range(3):
        (tmp_path / f"c{i}.py").write_text(
            "from helpers import release\n\n\ndef f(ctx, p):\n    release(ctx, p)\n    release(ctx, p)\n",
            encoding="utf-8",
        )
    # in a process of its own (tests/forked.py): the worker is forked and must inherit the slowed engine, and forking needs a
    # process of one thread, which a pytest-xdist worker is not always (CI once saw a `Dummy-1` thread there:
    # a thread the threading module did not start, registered when something running on it asked for
    # `threading.current_thread()`; such an entry never goes away)
    run = forked.script(_SLOW_RUN, str(jobs), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    events = [tuple(e) for e in out["events"]]
    assert out["findings"] == 3
    assert events[0] == ("start", 4)
    advances = [n for kind, n in events[1:] if kind == "advance" and n]
    assert sum(advances) == 4
    assert len(advances) >= 3, events  # one component, told of file by file (the last ones may come together)


@pytest.mark.parametrize(("no_color", "coloured"), [(None, True), ("1", False)])
def test_text_output_colour_follows_no_color(
    monkeypatch: pytest.MonkeyPatch, no_color: str | None, coloured: bool
) -> None:
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    out = FakeTerminal()
    make_console(out).print(Text("error", style="bold red"))
    assert ("\x1b[" in out.getvalue()) is coloured
