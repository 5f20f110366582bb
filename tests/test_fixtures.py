"""The fixture runner: expected findings are written inline, `# E: OWN201` on the reported line.

Every `tests/fixtures/**/*.py` outside a directory named `*_pkg` is checked
alone; every `*_pkg` directory is checked as one project (all its files
together, for cross-module summaries). The set of (path, line, code)
reported must equal the set expected: a finding on a line without `# E:` is
a failure, and so is an expected one that is missing. Fixtures are checked
with the default configuration, whatever configuration lies around them,
except that a directory holding a `models.toml` checks its fixtures with
that model file too (as a project's `models = [...]` would): general model
features, shown on a binding that is no real API; and a directory holding a
`select.txt` (one code per line) selects those codes too (a preview rule,
off by default: `leaks/on_exception/` selects OWN206).

`# E:` comments are found by a regular expression on each line (not by
`tokenize`), so that fixtures that do not parse (OWN001) can carry them too;
do not put `# E:` inside a string in a fixture.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from ownlint import api, closure, discovery, runner
from ownlint.config import default_config
from ownlint.resolver import Overrides, Resolver

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PKG_SUFFIX = "_pkg"
EXPECT = re.compile(r"#\s*E:\s*(?P<codes>OWN[0-9]+(?:\s*,\s*OWN[0-9]+)*)")

Finding = tuple[str, int, str]  # (path relative to tests/fixtures, line, code)


def in_a_pkg(path: Path) -> bool:
    return any(part.endswith(PKG_SUFFIX) for part in path.relative_to(FIXTURES).parent.parts)


def single_fixtures() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*.py") if not in_a_pkg(p))


def pkg_fixtures() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob(f"*{PKG_SUFFIX}") if p.is_dir() and not in_a_pkg(p))


def expectations(text: str, path: str) -> set[Finding]:
    """The (path, line, code) triples that `# E:` comments in `text` ask for."""
    expected: set[Finding] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        for match in EXPECT.finditer(line):
            expected |= {(path, number, code.strip()) for code in match["codes"].split(",")}
    return expected


def difference(
    expected: set[Finding], reported: set[Finding], messages: dict[Finding, str], root: Path = FIXTURES
) -> str:
    """A readable account of what is missing and what is unexpected, with each line's text."""

    def show(finding: Finding) -> str:
        path, line, code = finding
        lines = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
        source = lines[line - 1].strip() if 0 < line <= len(lines) else "<no such line>"
        note = f"\n        {messages[finding]}" if finding in messages else ""
        return f"  {path}:{line}: {code}    | {source}{note}"

    parts = []
    if missing := sorted(expected - reported):
        parts += ["missing (expected, not reported):", *map(show, missing)]
    if unexpected := sorted(reported - expected):
        parts += ["unexpected (reported, not expected):", *map(show, unexpected)]
    return "\n".join(parts)


_project_walks: dict[tuple[object, ...], discovery.Discovery] = {}


def _walked_once(paths: Sequence[str | os.PathLike[str]], config: object, **options: object) -> discovery.Discovery:
    """`discovery.discover` for `ownlint.closure`, remembered per process: a fixture checked alone is
    in the repository's git work tree, so the closure of its imports lists that whole tree (some 600
    files) for each of some 300 fixtures, the same list every time (half of these tests' time). Only a
    walk under one fixed configuration is remembered, keyed by what the walk reads of it; the tree does
    not change while the tests run. The closure itself (which of those modules a fixture imports) is
    still worked out for each fixture."""
    resolver = Resolver.of(config)  # type: ignore[arg-type]
    fixed = resolver.fixed
    if fixed is None or resolver.overrides != Overrides():
        return discovery.discover(paths, config, **options)  # type: ignore[arg-type]
    # the working directory too: the entries' displayed paths, and the order, are relative to it
    key = (os.getcwd(), tuple(map(os.path.abspath, paths)), fixed.root, fixed.source, fixed.exclude, *options.items())
    if key not in _project_walks:
        _project_walks[key] = discovery.discover(paths, config, **options)  # type: ignore[arg-type]
    return _project_walks[key]


def check_fixture(target: Path, files: list[Path], monkeypatch: pytest.MonkeyPatch, root: Path = FIXTURES) -> None:
    monkeypatch.chdir(root)
    monkeypatch.setattr(closure, "discover", _walked_once)
    # the engine in this process: what a fixture asks for is the findings, and a worker forked
    # from a test process (large, with pytest and hypothesis loaded) for each of some 300
    # fixtures cost a third of these tests' time; the workers are tested on the same fixtures
    # by tests/test_runner.py (one job and two, forked and spawned) and the `slow` whole-tree runs
    monkeypatch.setattr(runner, "ISOLATE", False)
    config = default_config(root)
    model = (target if target.is_dir() else target.parent) / "models.toml"
    if model.is_file():
        config = replace(config, models=(model,))
    selected = (target if target.is_dir() else target.parent) / "select.txt"
    if selected.is_file():
        config = replace(config, select=(*config.select, *selected.read_text(encoding="utf-8").split()))
    result = api.check_paths([target], config)
    assert not result.errors, "\n".join(f"{e.path}: {e.message}" for e in result.errors)
    expected: set[Finding] = set()
    for file in files:
        path = file.relative_to(root).as_posix()
        expected |= expectations(file.read_text(encoding="utf-8", errors="replace"), path)
    reported = {(d.path, d.span.line, d.code) for d in result.findings}
    messages = {(d.path, d.span.line, d.code): d.message for d in result.findings}
    assert reported == expected, "\n" + difference(expected, reported, messages, root)


def _id(path: Path) -> str:
    return path.relative_to(FIXTURES).as_posix()


@pytest.mark.parametrize("fixture", single_fixtures(), ids=_id)
def test_fixture_file(fixture: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    check_fixture(fixture, [fixture], monkeypatch)


@pytest.mark.parametrize("package", pkg_fixtures(), ids=_id)
def test_fixture_package(package: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = sorted(p for p in package.rglob("*") if p.suffix in (".py", ".pyi"))
    check_fixture(package, files, monkeypatch)


def test_expectations_are_read_from_comments() -> None:
    text = "a = 1\nzeMemFree(c, p)  # E: OWN201\nf(p)  # E: OWN201, OWN203\nx = 2  # E:\n"
    assert expectations(text, "m.py") == {("m.py", 2, "OWN201"), ("m.py", 3, "OWN201"), ("m.py", 3, "OWN203")}


def test_difference_names_missing_and_unexpected_with_the_line(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("zeMemFree(c, p)\nuse(p)\n", encoding="utf-8")
    text = difference(
        {("m.py", 1, "OWN201")},
        {("m.py", 2, "OWN203")},
        {("m.py", 2, "OWN203"): "`p` is used after it was freed"},
        root=tmp_path,
    )
    assert text == (
        "missing (expected, not reported):\n"
        "  m.py:1: OWN201    | zeMemFree(c, p)\n"
        "unexpected (reported, not expected):\n"
        "  m.py:2: OWN203    | use(p)\n"
        "        `p` is used after it was freed"
    )
