"""Relevance below the file (engine/frontend/relevance.py): only the sections that can
hold a tracked value are parsed and analysed, and that loses no finding.

The proof on the fixtures is `tests/test_selection.py` (every fixture gives
the same reports with and without the selection and demand, as a run has
them both; its helpers for reading the
fixtures are here); these tests are the selection's own cases.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ownlint.api import read_source
from ownlint.checks import CHECKERS
from ownlint.diagnostics import FileError, FileReport
from ownlint.engine.frontend import relevance
from ownlint.engine.modelling.models import ModelSet, load_models
from ownlint.engine.program.project import analyze_project, unique_module_names
from ownlint.engine.program.sources import EngineOptions, SourceFile

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _targets() -> list[tuple[Path, list[Path]]]:
    pkgs = sorted(
        p
        for p in FIXTURES.rglob("*_pkg")
        if p.is_dir() and not any(q.endswith("_pkg") for q in p.relative_to(FIXTURES).parent.parts)
    )
    in_pkg = {f for p in pkgs for f in p.rglob("*.py")}
    singles = [(f, [f]) for f in sorted(FIXTURES.rglob("*.py")) if f not in in_pkg]
    return singles + [(p, sorted(f for f in p.rglob("*") if f.suffix in (".py", ".pyi"))) for p in pkgs]


def _sources(files: list[Path]) -> list[SourceFile]:
    out = []
    for f in files:
        text = read_source(f, f.relative_to(FIXTURES).as_posix())
        if not isinstance(text, FileError):
            out.append(SourceFile(f.relative_to(FIXTURES).as_posix(), text, None))
    return out


def _models(target: Path, cache: dict[Path, ModelSet]) -> ModelSet:
    model = (target if target.is_dir() else target.parent) / "models.toml"
    key = model if model.is_file() else FIXTURES
    if key not in cache:
        cache[key] = load_models([model] if model.is_file() else [])
    return cache[key]


def _shown(reports: list[FileReport]) -> list[object]:
    return [(r.path, sorted(map(repr, r.diagnostics)), sorted(map(repr, r.errors))) for r in reports]


def _kept(source: str, name: str = "mod.py") -> str:
    files = [SourceFile(name, source, None)]
    return relevance.kept_texts(files, unique_module_names(files), load_models())[0][0]


HEAD = "from cuda import cudart\nimport torch\nimport cutlass.cute as cute\n"


def test_a_section_that_names_no_model_is_emptied_line_for_line() -> None:
    source = HEAD + (
        "def arith(a, b):\n    return a * b\n\n\n"
        "def alloc():\n    err, p = cudart.cudaMalloc(8)\n    cudart.cudaFree(p)\n"
    )
    kept = _kept(source)
    assert kept.count("\n") == source.count("\n")
    assert "arith" not in kept and "cudaMalloc" in kept
    assert kept.splitlines()[8] == source.splitlines()[8]  # lines keep their places


def test_a_package_word_counts_only_where_the_file_binds_the_package() -> None:
    source = HEAD + (
        "def kernel(x):\n    t = cute.empty(x)\n    return t\n\n"  # `empty` of CuTe: not torch's
        "def host(n):\n    return torch.empty(n)\n"
    )
    kept = _kept(source)
    assert "cute.empty" not in kept and "torch.empty" in kept


def test_an_alias_of_a_package_counts() -> None:
    source = "import torch as T\nxp = T\n\ndef a(n):\n    return xp.empty(n)\n\ndef b(n):\n    return n.empty()\n"
    kept = _kept(source)
    assert "xp.empty" in kept and "n.empty" not in kept


def test_callers_and_callees_of_relevant_sections_are_kept() -> None:
    source = HEAD + (
        "def ident(x):\n    return x\n\n"
        "def alloc():\n    err, p = cudart.cudaMalloc(8)\n    return ident(p)\n\n"
        "def caller():\n    q = alloc()\n    return q\n\n"
        "def lonely():\n    return 3\n"
    )
    kept = _kept(source)
    assert "def ident" in kept and "def caller" in kept and "def lonely" not in kept


def test_an_import_inside_a_skipped_definition_is_kept_when_a_kept_section_spells_it() -> None:
    source = "def setup():\n    from cuda import cudart as rt\n\ndef alloc():\n    return rt.cudaMalloc(8)\n"
    assert "from cuda import cudart as rt" in _kept(source)


@pytest.mark.parametrize(
    "source",
    [
        "def f(:\n    pass\n",  # CPython rejects it: parsed whole
        "x = 1\n",  # nothing to skip
        "from cuda import cudart\ndef f():\n    return cudart.cudaMalloc(8)\n",  # everything relevant
    ],
)
def test_a_file_is_left_whole_where_nothing_is_skipped(source: str) -> None:
    files = [SourceFile("mod.py", source, None)]
    assert relevance.kept_texts(files, ["mod"], load_models())[0][0] is source


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_findings_after_skipped_sections_keep_their_lines_and_columns(newline: str) -> None:
    path = FIXTURES / "free" / "skipped_sections.py"
    source = path.read_text(encoding="utf-8").replace("\n", newline)
    files = [SourceFile("skipped_sections.py", source, None)]
    models = load_models()
    assert relevance.kept_texts(files, ["skipped_sections"], models)[0][0] is not source
    with_selection = analyze_project(files, models, EngineOptions(checkers=CHECKERS, sections=True))
    without = analyze_project(files, models, EngineOptions(checkers=CHECKERS))
    assert _shown(with_selection) == _shown(without)
    (line,) = [n for n, text in enumerate(source.split(newline), start=1) if "# E: OWN201" in text]
    assert [(d.code, d.span.line, d.span.column) for d in with_selection[0].diagnostics] == [("OWN201", line, 5)]
