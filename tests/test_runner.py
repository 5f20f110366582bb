"""The runner: prefilter, components, parallel workers and the cache."""

from __future__ import annotations

import functools
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import forked
import pytest

from ownlint import runner
from ownlint.api import RunResult
from ownlint.cache import Cache
from ownlint.cachedir import Store
from ownlint.checks import CHECKERS
from ownlint.engine.frontend import prefilter
from ownlint.engine.modelling.models import load_models
from ownlint.engine.program import project
from ownlint.engine.program.sources import EngineOptions, SourceFile

MODELS = load_models()
OPTIONS = EngineOptions(checkers=CHECKERS)
FIXTURES = Path(__file__).resolve().parent / "fixtures"

HELPER = "from ze import *\n\ndef release(ctx, p):\n    zeMemFree(ctx, p)\n"
CALLER = "from helpers import release\n\ndef f(ctx, p):\n    release(ctx, p)\n    release(ctx, p)\n"
PLAIN = "def unrelated(x):\n    return x + 1\n"


def files(**sources: str) -> list[SourceFile]:
    return [SourceFile(f"{name}.py", text) for name, text in sources.items()]


def test_files_naming_no_model_are_not_analysed() -> None:
    fs = files(helpers=HELPER, plain=PLAIN)
    assert prefilter.select(fs, MODELS) == [[0]]


def test_a_caller_of_a_selected_helper_joins_its_component() -> None:
    fs = files(helpers=HELPER, caller=CALLER, plain=PLAIN)
    assert prefilter.select(fs, MODELS) == [[0, 1]]


def test_unrelated_interop_files_are_separate_components() -> None:
    fs = files(a=HELPER, b=HELPER.replace("release", "drop"))
    assert prefilter.select(fs, MODELS) == [[0], [1]]


def test_the_double_free_through_the_helper_is_found() -> None:
    reports = runner.analyze(files(helpers=HELPER, caller=CALLER, plain=PLAIN), MODELS, OPTIONS, jobs=1)
    assert [(r.path, [(d.span.line, d.code) for d in r.diagnostics]) for r in reports] == [
        ("helpers.py", []),
        ("caller.py", [(5, "OWN201")]),
        ("plain.py", []),
    ]


def fixture_sources() -> list[SourceFile]:
    paths = sorted(p for p in FIXTURES.rglob("*.py") if "_pkg" not in p.as_posix())
    return [SourceFile(p.relative_to(FIXTURES).as_posix(), p.read_text(encoding="utf-8")) for p in paths]


def as_data(reports: list[project.FileReport]) -> list[object]:
    from ownlint.diagnostics import report_to_dict

    return [report_to_dict(r) for r in reports]


def corpus() -> list[SourceFile]:
    """Every fixture, the cross-module packages included."""
    paths = sorted(FIXTURES.rglob("*.py"))
    return [SourceFile(p.relative_to(FIXTURES).as_posix(), p.read_text(encoding="utf-8")) for p in paths]


# the tests that share the analyses below run on one worker of `pytest -n` (`--dist loadgroup`), which does them once
CORPUS_GROUP = pytest.mark.xdist_group("runner-corpus")


@functools.cache
def one_job() -> str:
    """The runner's reports on the corpus with one job (as JSON: nobody can
    change them), computed once: several tests compare other ways to it."""
    return json.dumps(as_data(runner.analyze(corpus(), MODELS, OPTIONS, jobs=1)))


# the whole fixture tree in worker processes, forked or spawned (`slow`, as the other such runs);
# the property tests of tests/test_properties.py compare jobs on generated programs in every run
@pytest.mark.slow
@pytest.mark.parametrize("start", ["default", "spawn"])
@CORPUS_GROUP
def test_parallel_output_is_identical_to_one_job(monkeypatch: pytest.MonkeyPatch, start: str) -> None:
    monkeypatch.setattr(runner, "PARALLEL_MIN_LINES", 0)  # use the worker processes even for this small set
    if start == "spawn":  # as where fork is not used (not Linux, or a thread running)
        import multiprocessing

        monkeypatch.setattr(runner, "_context", lambda: multiprocessing.get_context("spawn"))
    two = runner.analyze(corpus(), MODELS, OPTIONS, jobs=2)
    assert json.loads(one_job()) == as_data(two)
    assert any(r["diagnostics"] for r in json.loads(one_job()))


def test_batches_hold_every_component_once_largest_first() -> None:
    components = [[SourceFile(f"f{i}.py", "x = 1\n" * n)] for i, n in enumerate([5, 400, 1, 30, 30, 2, 90])]
    batches = runner._batches(components, jobs=2)
    flat = [i for batch in batches for i in batch]
    assert sorted(flat) == list(range(len(components)))
    assert flat[0] == 1 and len(batches) > 1
    sizes = [prefilter.lines(components[i]) for i in flat]
    assert sizes == sorted(sizes, reverse=True)


def test_batches_shrink_toward_the_end_so_workers_finish_together() -> None:
    """Guided scheduling: each task takes a share of what is left, so the last
    tasks are small and no worker idles long while another finishes a big one."""
    components = [[SourceFile(f"f{i}.py", "x = 1\n" * 300)] for i in range(200)]
    batches = runner._batches(components, jobs=2)
    lines = [sum(prefilter.lines(components[i]) for i in batch) for batch in batches]
    total = sum(lines)
    assert lines[0] >= total // 5  # the first task is big: few round trips
    assert lines[-1] <= runner.MIN_BATCH_LINES + 301  # the last is small
    assert all(a >= b for a, b in itertools.pairwise(lines[:-1]))  # never growing (but the remainder)
    assert sorted(i for batch in batches for i in batch) == list(range(200))


class TestCache:
    def counting(self, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
        calls: list[list[str]] = []
        real = project.analyze_project

        def spy(fs: list[SourceFile], models: object, options: EngineOptions, **kw: object) -> list[project.FileReport]:
            calls.append([f.path for f in fs])
            return real(fs, models, options, **kw)  # type: ignore[arg-type]

        monkeypatch.setattr(project, "analyze_project", spy)
        monkeypatch.setattr(runner, "ISOLATE", False)  # the spy sees the engine in this process
        return calls

    def test_a_second_run_is_served_from_the_cache(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        calls = self.counting(monkeypatch)
        fs = files(helpers=HELPER, caller=CALLER)
        first = runner.analyze(
            fs, MODELS, OPTIONS, 1, Cache(Store.open(tmp_path / "cache"), tmp_path, MODELS.files, OPTIONS)
        )
        second = runner.analyze(
            fs, MODELS, OPTIONS, 1, Cache(Store.open(tmp_path / "cache"), tmp_path, MODELS.files, OPTIONS)
        )
        assert calls == [["helpers.py", "caller.py"]]
        assert as_data(first) == as_data(second)
        assert (tmp_path / "cache" / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
        assert not (tmp_path / ".ownlint_cache").exists()

    def test_a_changed_helper_invalidates_its_callers(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        calls = self.counting(monkeypatch)
        runner.analyze(
            files(helpers=HELPER, caller=CALLER),
            MODELS,
            OPTIONS,
            1,
            Cache(Store.open(tmp_path / "cache"), tmp_path, MODELS.files, OPTIONS),
        )
        harmless = HELPER.replace("    zeMemFree(ctx, p)", "    if False:\n        zeMemFree(ctx, p)")
        reports = runner.analyze(
            files(helpers=harmless, caller=CALLER),
            MODELS,
            OPTIONS,
            1,
            Cache(Store.open(tmp_path / "cache"), tmp_path, MODELS.files, OPTIONS),
        )
        assert len(calls) == 2
        assert not any(r.diagnostics for r in reports)

    def test_a_corrupted_entry_is_rebuilt(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        calls = self.counting(monkeypatch)
        fs = files(helpers=HELPER, caller=CALLER)
        runner.analyze(fs, MODELS, OPTIONS, 1, Cache(Store.open(tmp_path / "cache"), tmp_path, MODELS.files, OPTIONS))
        entries = list((tmp_path / "cache").rglob("*.json"))
        for entry in entries:
            entry.write_bytes(entry.read_bytes()[: len(entry.read_bytes()) // 2])  # truncated
        cache = Cache(Store.open(tmp_path / "cache"), tmp_path, MODELS.files, OPTIONS)
        reports = runner.analyze(fs, MODELS, OPTIONS, 1, cache)
        assert len(calls) == 2
        assert [d.code for r in reports for d in r.diagnostics] == ["OWN201"]
        assert entries and cache.written == len(entries)  # each damaged entry rewritten
        again = Cache(Store.open(tmp_path / "cache"), tmp_path, MODELS.files, OPTIONS)
        runner.analyze(fs, MODELS, OPTIONS, 1, again)
        assert len(calls) == 2 and again.hits == 1


def write_helper_and_caller(root: Path) -> None:
    """A two-file project with one finding (a helper that frees, a caller that frees again)."""
    (root / "helpers.py").write_text(HELPER, encoding="utf-8")
    (root / "caller.py").write_text(CALLER, encoding="utf-8")


def test_a_fully_cached_run_does_not_import_libcst(tmp_path: Path) -> None:
    write_helper_and_caller(tmp_path)
    script = (
        "import sys\n"
        "from ownlint import api\n"
        "from ownlint.config import default_config\n"
        "result = api.check_paths(['.'], default_config(), use_cache=True)\n"
        "print(len(result.findings), 'libcst' in sys.modules)\n"
    )
    runs = [
        subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    ]
    assert runs == ["1 True\n", "1 False\n"]


OTHER_RELEASE = "from ze import *\n\nclass Pool:\n    def release(self, ctx, p):\n        zeMemFree(ctx, p)\n"
METHOD_USER = "from ze import *\n\ndef f(pool, ctx, p):\n    pool.release(ctx, p)\n"


def test_a_common_name_links_only_where_the_module_is_named() -> None:
    # `pool.release` cannot reach `helpers.release`: the user never names `helpers`
    fs = files(helpers=HELPER, user=METHOD_USER, caller=CALLER)
    assert prefilter.select(fs, MODELS) == [[0, 2], [1]]


def test_a_class_links_where_its_attribute_is_spelled() -> None:
    spelled = "from ze import *\n\ndef f(ctx, p):\n    Pool.release(None, ctx, p)\n"
    assert prefilter.select(files(pools=OTHER_RELEASE, user=spelled), MODELS) == [[0, 1]]
    assert prefilter.select(files(pools=OTHER_RELEASE, user=METHOD_USER), MODELS) == [[0], [1]]


@pytest.mark.parametrize(
    "text, spelled",
    [
        ("Pool.release()", True),
        ("x = Pool .release", True),
        ("Pool\n.release", True),
        ("MyPool.release()", False),  # another name that ends the same
        ("_Pool.release()", False),
        ("Pool2.release()", False),  # one that starts the same
        ("Pool()", False),
        ("y = 1; Pool.x", True),
    ],
)
def test_spells_attribute_of_matches_whole_names_only(text: str, spelled: bool) -> None:
    assert prefilter.spells_attribute_of(text, "Pool") is spelled


def test_definitions_lists_functions_and_classes_but_not_dunders() -> None:
    text = "class Pool:\n    def __init__(self): ...\n    async def drain(self): ...\n\ndef release(p): ...\n"
    assert prefilter.definitions(text) == ({"Pool", "drain", "release"}, {"Pool"})


def test_many_selected_names_use_the_word_lists() -> None:
    """Past `_SUBSTRING_NAMES` names, the frontier compares word sets instead of
    searching for each name: the same components either way."""
    helpers = "from ze import *\n\n" + "".join(f"def h{i}(ctx, p):\n    zeMemFree(ctx, p)\n" for i in range(60))
    caller = "from helpers import h59\n\ndef f(ctx, p):\n    helpers.h59(ctx, p)\n"
    fs = files(helpers=helpers, caller=caller, plain=PLAIN)
    assert prefilter.select(fs, MODELS) == [[0, 1]]


@pytest.mark.slow  # every fixture analysed again: a property of the whole corpus, in the slow set (README)
@CORPUS_GROUP
def test_components_find_what_one_whole_project_finds() -> None:
    # the grouping is an optimisation: analysing every fixture as one project
    # must give the same findings as analysing the components one by one
    sources = corpus()  # with the cross-module packages
    assert len(prefilter.select(sources, MODELS)) > 10
    whole = project.analyze_project(sources, MODELS, OPTIONS)
    assert json.loads(one_job()) == as_data(whole)


def test_workers_fork_only_without_other_threads() -> None:
    import sys
    import threading

    if not sys.platform.startswith("linux"):
        assert runner._context().get_start_method() == "spawn"
        return
    assert runner._context().get_start_method() == ("fork" if threading.active_count() == 1 else "spawn")
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert runner._context().get_start_method() == "spawn"
    finally:
        stop.set()
        other.join()


@pytest.mark.slow  # the run of `forked_run`: every fixture, in a fresh interpreter
@CORPUS_GROUP
def test_workers_leave_libcst_as_it_is(forked_run: dict[str, object]) -> None:
    """No process of a run changes libcst's node classes: not the caller of
    a parallel run, not a worker as it starts (their nodes stay frozen)."""
    assert forked_run["frozen"] == [True, True]


def test_machine_output_does_not_import_rich(tmp_path: Path) -> None:
    """rich draws the terminal outputs and the progress bar; JSON to a pipe needs neither."""
    write_helper_and_caller(tmp_path)
    script = (
        "import sys\n"
        "from ownlint.cli import cli\n"
        "try:\n"
        "    cli.main(['check', '--format', 'json', '--no-cache', '.'], prog_name='ownlint')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('rich' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert done.stderr == "False\n"
    assert json.loads(done.stdout)["findings"]


def test_the_collector_is_handed_back_as_it_was(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """The trees are frozen out of the cyclic collector and the analysis runs
    with a larger youngest generation; afterwards everything is as before."""
    import gc

    seen: list[tuple[bool, int, int]] = []
    real = project.Project.analyze_unit

    def spy(self: project.Project, unit: object) -> list:
        seen.append((gc.isenabled(), gc.get_threshold()[0], gc.get_freeze_count()))
        return real(self, unit)  # type: ignore[arg-type]

    monkeypatch.setattr(project.Project, "analyze_unit", spy)
    if not gc.isenabled():  # the collector as a program has it (an earlier test's library may leave it off)
        gc.enable()
        request.addfinalizer(gc.disable)
    before = (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count())
    project.analyze_project(fixture_sources()[:5], MODELS, OPTIONS)
    assert (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()) == before
    assert seen and all(on and young == project.YOUNG_GC_THRESHOLD and frozen > 0 for on, young, frozen in seen)


def test_words_of_finds_trigger_words_not_their_longer_relatives() -> None:
    """A plain file has no trigger word, nor has one that only names
    `zeMemFreeLater` (a longer relative of `zeMemFree`) or only `zeros` and
    `ones` (trigger words only with their packages' names, cupy's or dpnp's):
    none of them is in a component; a file calling `dpnp.empty` after `import dpnp` is."""
    sources = fixture_sources() + files(
        plain=PLAIN,
        mention="zeMemFreeLater = 1\n",
        common="a1 = zeros(3)\na2 = ones(2)\n",
        packaged="import dpnp\nx = dpnp.empty(3)\n",
    )
    triggers = prefilter.Triggers(MODELS)
    first = [triggers.words_of(f.source) for f in sources]
    assert first[-4:-1] == [None, None, None] and first[-1] is not None
    assert triggers.names(sources[-1].source, first[-1])
    selected = {i for component in prefilter.select(sources, MODELS) for i in component}
    n = len(sources)
    assert selected & {n - 4, n - 3, n - 2} == set() and n - 1 in selected


def run_script(script: str, cwd: Path) -> str:
    """Runs `script` in a fresh interpreter (no pytest threads: workers are
    forked only from a process with one thread); its standard output."""
    done = subprocess.run([sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and not done.stderr, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory outside the repository, the current one of the runs compared below (their paths are absolute)."""
    return tmp_path_factory.mktemp("outside")


@pytest.fixture(scope="module")
def one_process(outside: Path) -> RunResult:
    """`api.check_paths` on the fixtures with one job, in this process, from `outside`: the reference."""
    from ownlint import api
    from ownlint.config import default_config

    here = Path.cwd()
    os.chdir(outside)
    try:
        return api.check_paths([str(FIXTURES)], default_config(), jobs=1)
    finally:
        os.chdir(here)


@pytest.fixture(scope="module")
def forked_run(outside: Path) -> dict[str, object]:
    """A run big enough for two workers, in a fresh interpreter (one thread:
    its workers are forked from it, with the engine loaded): its findings,
    its internal errors, and whether libcst's nodes are still frozen after it
    and after a worker's start."""
    script = (
        "import json\n"
        "import libcst\n"
        "from ownlint import api, runner, workers\n"
        "from ownlint.config import default_config\n"
        "def frozen():\n"
        "    return libcst.Name.__setattr__ is not object.__setattr__\n"
        "runner.PARALLEL_MIN_LINES = 50\n"
        f"pooled = api.check_paths([{str(FIXTURES)!r}], default_config(), jobs=2)\n"
        "after_run = frozen()\n"
        "workers.start_worker()\n"
        "print(json.dumps({\n"
        "    'findings': [[d.path, d.code, d.span.line, d.span.column, d.message] for d in pooled.findings],\n"
        "    'internal': [e.message for e in pooled.errors if 'internal error' in e.message],\n"
        "    'frozen': [after_run, frozen()],\n"
        "}))\n"
    )
    return json.loads(run_script(script, outside))  # type: ignore[no-any-return]


@pytest.mark.slow  # every fixture, in a fresh interpreter and in this one
@CORPUS_GROUP
def test_forked_workers_find_what_one_process_finds(forked_run: dict[str, object], one_process: RunResult) -> None:
    """A run big enough for two workers, forked from a process that has
    loaded the engine: the findings are those of one process."""
    alone = [[d.path, d.code, d.span.line, d.span.column, d.message] for d in one_process.findings]
    assert len(alone) > 100
    assert forked_run["findings"] == alone
    assert forked_run["internal"] == []


def test_a_worker_that_dies_costs_only_the_file_it_had(tmp_path: Path) -> None:
    """A worker killed mid-task (here: it exits while analysing one file):
    that file gets an `analysis stopped` entry; the rest are analysed again
    and keep their findings; nothing hangs.
    (More of this in test_isolation.py.)"""
    script = (
        "import os\n"
        "from ownlint import runner\n"
        "from ownlint.engine.modelling.models import load_models\n"
        "from ownlint.checks import CHECKERS\n"
        "from ownlint.engine.program.sources import EngineOptions, SourceFile\n"
        "runner.PARALLEL_MIN_LINES = 0\n"
        "real = runner._analyze_component\n"
        "def dying(component, models, options):\n"
        "    if component[0].path == 'dies.py':\n"
        "        os._exit(3)\n"
        "    return real(component, models, options)\n"
        "runner._analyze_component = dying\n"
        f"files = [SourceFile('dies.py', {HELPER!r}), SourceFile('helpers.py', {HELPER!r})]\n"
        "reports = runner.analyze(files, load_models(), EngineOptions(checkers=CHECKERS), 2)\n"
        "for r in reports:\n"
        "    print(r.path, [d.code for d in r.diagnostics], [e.message.split(': ')[1] for e in r.errors])\n"
    )
    assert run_script(script, tmp_path).splitlines() == [
        "dies.py [] ['the worker process exited with status 3']",
        "helpers.py [] []",
    ]


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return forked.ownlint("check", "--format", "json", *args, cwd=cwd, timeout=300)


@pytest.mark.slow  # every fixture, through the real command and in this process
@CORPUS_GROUP
def test_the_command_line_gives_what_one_process_gives(outside: Path, one_process: RunResult) -> None:
    """`ownlint check --no-cache --jobs 2` finds what one process finds with
    one job, and prints nothing on standard error."""
    from ownlint.render import json_

    pooled = run_cli(["--no-cache", "--jobs", "2", str(FIXTURES)], outside)
    assert pooled.returncode == 1 and not pooled.stderr
    assert json.loads(pooled.stdout)["findings"] == json_.document(one_process)["findings"]


def test_a_qualified_model_name_triggers_only_with_its_package() -> None:
    """`empty`, `full` and `free` are last names of qualified models
    (`dpnp.empty`, `cupy.cuda.runtime.free`) and common words: found alone they
    selected almost the whole standard library (a run of 0.7 s took 500 s). They
    count only where the file names the package too."""
    plain = SourceFile("queue_like.py", "def empty(self):\n    return not self.items\n\n\ndef free(x):\n    pass\n")
    dpnp_user = SourceFile("arrays.py", "import dpnp\n\n\ndef f(n):\n    return dpnp.empty(n)\n")
    aliased = SourceFile("aliased.py", "from dpnp import empty as make\n\n\ndef g(n):\n    return make(n)\n")
    assert prefilter.select([plain], MODELS) == []
    assert prefilter.select([plain, dpnp_user, aliased], MODELS) == [[1], [2]]


def test_a_file_that_only_chains_descriptors_is_analysed() -> None:
    """A module of descriptor helpers names no modelled function, only the
    chain field: a returned descriptor whose `pNext` points at a local dangles
    (OWN305) all the same, so the chain field is a trigger word."""
    source = (FIXTURES / "memmap" / "06_own305_descriptor_helpers_only.py").read_text(encoding="utf-8")
    assert prefilter.select(files(helpers=source, plain=PLAIN), MODELS) == [[0]]
