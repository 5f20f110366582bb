"""Incremental checking (the editor's path) finds exactly what a fresh check finds.

`api.check_source` re-parses only the top-level statements an edit changed
and reuses the results of unchanged functions whose callees are unchanged
(engine/frontend/incremental.py, whole_program._Memory). Each test here edits a buffer step
by step and compares, after every step, the incremental result with a check
of the same text from nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ownlint import api, runner
from ownlint.config import default_config
from ownlint.engine.frontend import incremental
from ownlint.engine.program import project, whole_program

FIXTURES = Path(__file__).resolve().parent / "fixtures"

HELPER_FREES = "def release(ctx, p):\n    zeMemFree(ctx, p)\n"
HELPER_KEEPS = "def release(ctx, p):\n    return p\n"
MODULE = """from level_zero import zeMemAllocHost, zeMemFree


{helper}

def twice(ctx, p):
    release(ctx, p)
    zeMemFree(ctx, p)


def once(ctx, p):
    zeMemFree(ctx, p)
{tail}"""


@pytest.fixture(autouse=True)
def forget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with nothing remembered, and watches the engine in this process (no worker)."""
    monkeypatch.setattr(runner, "ISOLATE", False)
    monkeypatch.setattr(project, "_PIECES", incremental.PieceCache())
    monkeypatch.setattr(whole_program, "_MEMORY", whole_program._Memory())


def fresh(source: str, path: Path) -> api.RunResult:
    """The same check with nothing remembered, and without pieces at all."""
    saved = project._PIECES, whole_program._MEMORY
    project._PIECES, whole_program._MEMORY = incremental.PieceCache(), whole_program._Memory()
    try:
        from_pieces = api.check_source(source, path, default_config(path.parent))
    finally:
        project._PIECES, whole_program._MEMORY = saved
    path.write_text(source, encoding="utf-8")
    whole = api.check_paths([path], default_config(path.parent), jobs=1)
    assert (whole.findings, whole.errors) == (from_pieces.findings, from_pieces.errors)
    return whole


def check_steps(tmp_path: Path, steps: list[str]) -> list[list[tuple[str, int]]]:
    path = tmp_path / "buffer.py"
    seen = []
    for source in steps:
        result = api.check_source(source, path, default_config(tmp_path))
        expected = fresh(source, path)
        assert result.findings == expected.findings
        assert result.errors == expected.errors
        seen.append([(d.code, d.span.line) for d in result.findings])
    return seen


def test_a_changed_helper_changes_its_callers_findings(tmp_path: Path) -> None:
    frees = MODULE.format(helper=HELPER_FREES, tail="")
    keeps = MODULE.format(helper=HELPER_KEEPS, tail="")
    seen = check_steps(tmp_path, [frees, keeps, frees])
    assert ("OWN201", 10) in seen[0]
    assert ("OWN201", 10) not in seen[1]
    assert seen[2] == seen[0]


OVERRIDE = """from cuda.bindings import runtime as cudart


class Base:
    def close_impl(self):
        pass

    def close(self):
        self.close_impl()


class Derived(Base):
    def __init__(self, size):
        err, self.p = cudart.cudaMalloc(size)

    def close_impl(self):
{body}


def run(size):
    d = Derived(size)
    d.close_impl()
    d.close()
"""


def test_an_edited_override_reached_through_an_inherited_method(tmp_path: Path) -> None:
    """`d.close()` runs `Base.close`, whose `self.close_impl()` is `Derived`'s
    (late binding): editing the override changes what the unchanged caller finds."""
    frees = OVERRIDE.format(body="        cudart.cudaFree(self.p)")
    keeps = OVERRIDE.format(body="        pass")
    seen = check_steps(tmp_path, [frees, keeps, frees])
    assert ("OWN201", 23) in seen[0]
    assert ("OWN201", 23) not in seen[1]
    assert seen[2] == seen[0]


def test_edits_that_move_lines_move_the_findings(tmp_path: Path) -> None:
    base = MODULE.format(helper=HELPER_FREES, tail="")
    moved = "# a comment\n\n\n" + base
    inserted = base.replace("def once(ctx, p):\n", "def once(ctx, p):\n    x = 1\n    y = 2\n")
    seen = check_steps(tmp_path, [base, moved, inserted, base])
    assert [line for _, line in seen[1]] == [line + 3 for _, line in seen[0]]
    assert seen[3] == seen[0]


def test_imports_names_and_new_functions_are_followed(tmp_path: Path) -> None:
    base = MODULE.format(helper=HELPER_FREES, tail="")
    no_import = base.replace("from level_zero import zeMemAllocHost, zeMemFree\n", "")
    renamed = base.replace("def release(", "def release_all(")
    added = base + "\n\ndef release_twice(ctx, p):\n    release(ctx, p)\n    release(ctx, p)\n"
    broken = base + "\ndef (:\n"
    seen = check_steps(tmp_path, [base, no_import, base, renamed, base, added, broken, base, base])
    assert seen[1] != seen[0] or seen[3] != seen[0]
    assert len(seen[5]) > len(seen[4])
    assert [code for code, _ in seen[6]] == ["OWN001"]


@pytest.mark.slow  # every fixture analysed again: a property of the whole corpus, in the slow set (README)
def test_every_fixture_edited_function_by_function(tmp_path: Path) -> None:
    # one long module of the fixtures that stand alone; each step edits one function
    sources = [
        p.read_text(encoding="utf-8")
        for p in sorted(FIXTURES.rglob("*.py"))
        if "_pkg" not in p.as_posix() and "\ndef " in p.read_text(encoding="utf-8")
    ][:12]
    steps = []
    text = "\n\n".join(sources)
    steps.append(text)
    lines = text.split("\n")
    defs = [i for i, line in enumerate(lines) if line.startswith("def ") and line.rstrip().endswith(":")]
    for k, i in enumerate(defs[:: max(1, len(defs) // 8)]):
        lines = [*lines[: i + 1], f"    edited_{k} = {k}", *lines[i + 1 :]]
        steps.append("\n".join(lines))
    steps.append(text)
    seen = check_steps(tmp_path, steps)
    assert seen[0] and seen[-1] == seen[0]


def test_unchanged_statements_are_not_parsed_again(tmp_path: Path) -> None:
    source = MODULE.format(helper=HELPER_FREES, tail="\n\ndef more(ctx, p):\n    zeMemFree(ctx, p)\n")
    path = tmp_path / "buffer.py"
    api.check_source(source, path, default_config(tmp_path))
    parsed = project._PIECES.parsed
    edited = source.replace("def more(ctx, p):\n", "def more(ctx, p):\n    x = 1\n")
    api.check_source(edited, path, default_config(tmp_path))
    assert project._PIECES.parsed == parsed + 1


def test_an_import_that_changes_what_a_name_means(tmp_path: Path) -> None:
    module = "from ze import *\n{imp}\n\n\ndef f(hq, ctx, dev):\n    q = mq(hq, ctx, device=dev)\n    zeCommandQueueSynchronize(hq, 1)\n    return q\n"
    sycl = module.format(imp="from sycl.ext.oneapi.level_zero import make_queue as mq")
    lookalike = module.format(imp="from taskq import make_queue as mq")
    seen = check_steps(tmp_path, [sycl, lookalike, sycl])
    assert seen == [[("OWN101", 7)], [], [("OWN101", 7)]]


def test_deprecated_variable_found_the_same_piece_by_piece(tmp_path: Path) -> None:
    """The OWN601 checker walks, in an editor's re-check, only the functions
    whose text names the variable or a module constant holding it: every way
    the fixture sets or reads it is still found, as a fresh check finds it."""
    fixture = (FIXTURES / "conformance" / "01_own601_device_filter.py").read_text(encoding="utf-8")
    extra = (
        "\n\nKEY = 'SYCL_DEVICE_FILTER'\n\n\n"
        "def through_a_constant():\n    os.environ[KEY] = 'level_zero:gpu'\n\n\n"
        "def unrelated(n):\n    return n + 1\n"
    )
    text = "import os\n" + fixture + extra
    edited = text.replace("    return n + 1\n", "    m = n\n    return m + 1\n")
    seen = check_steps(tmp_path, [text, edited, text])
    assert seen[0] == seen[1] == seen[2]
    assert sum(code == "OWN601" for code, _ in seen[0]) >= 5


def test_the_piece_cache_is_bounded_by_size_not_by_count() -> None:
    """Editing one large function makes a new piece of its size on every
    change (issue 29: the language server grew by 3.4 MB an edit); the cache
    keeps at most `limit` characters of pieces besides the latest parse's,
    and still finds the unchanged pieces of the file it just parsed."""
    body = "\n".join(f"    x{i} = zeMemFree(ctx, p{i})" for i in range(200))
    cache = incremental.PieceCache(limit=20_000)
    for edit in range(30):
        source = f"from ze import *\n\n\ndef small(ctx, p):\n    zeMemFree(ctx, p)\n\n\ndef large(ctx):\n    e = {edit}\n{body}\n"
        cache.parse(source)
    kept = sum(len(text) for text in cache.pieces)
    assert len(source) > 5_000
    assert kept <= cache.limit + len(source)
    assert cache.size == kept
    before = cache.parsed
    cache.parse(source)
    assert cache.parsed == before  # the latest parse's pieces are all kept
