"""Baselines: `--write-baseline` records today's findings, `--baseline` hides exactly those."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import BUGGY, invoke
from click.testing import Result
from fake_engine import install


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def one_line_error(result: Result) -> str:
    assert result.exit_code == 2
    assert result.stderr.startswith("ownlint: error: ") and result.stderr.count("\n") == 1, result.stderr
    return result.stderr.strip().removeprefix("ownlint: error: ")


def test_baseline_survives_an_edit_above_and_a_new_finding_still_fails(tmp_path: Path) -> None:
    source = tmp_path / "src" / "alloc.py"
    source.parent.mkdir()
    source.write_text(BUGGY, encoding="utf-8")
    written = invoke("check", "--write-baseline", "ownlint-baseline.json", "src")
    assert written.exit_code == 0
    assert written.stderr == "ownlint: wrote 1 finding to the baseline ownlint-baseline.json\n"
    assert written.stdout == "All checked! 1 file, no findings. 1 known finding hidden by the baseline.\n"
    assert json.loads((tmp_path / "ownlint-baseline.json").read_text(encoding="utf-8")) == {
        "ownlint-baseline": 1,
        "findings": [
            {"path": "src/alloc.py", "code": "OWN201", "handle": "host", "text": "zeMemFree(hctx, host)", "count": 1}
        ],
    }
    assert invoke("check", "src").exit_code == 1

    moved = BUGGY.replace("def upload", "# a comment\n\n\ndef upload").replace(
        "    host =", "    n = n + 0\n    host ="
    )
    source.write_text(moved, encoding="utf-8")
    assert invoke("check", "--baseline", "ownlint-baseline.json", "src").exit_code == 0

    source.write_text(
        moved + "\n\ndef again(hctx, p):\n    zeMemFree(hctx, p)\n    zeMemFree(hctx, p)\n", encoding="utf-8"
    )
    result = invoke("check", "--baseline", "ownlint-baseline.json", "--format", "concise", "src")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "src/alloc.py:19:5: OWN201 [double-free] `p` is freed a second time",
        "Found 1 finding (1 error) in 1 file. 1 known finding hidden by the baseline.",
    ]


def test_multiset_semantics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch)
    (tmp_path / "a.py").write_text("free_again(p)\nx = 1\n", encoding="utf-8")
    assert invoke("check", "--write-baseline", "base.json").exit_code == 0
    (tmp_path / "a.py").write_text("x = 0\nfree_again(p)\n\nfree_again(p)\n", encoding="utf-8")
    result = invoke("check", "--baseline", "base.json", "--format", "concise")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == "a.py:4:1: OWN201 [double-free] `p` is freed a second time"
    assert len(result.stdout.splitlines()) == 2


def test_baseline_paths_are_relative_to_the_baseline_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("free_again(p)\n", encoding="utf-8")
    (tmp_path / "ci").mkdir()
    assert invoke("check", "--write-baseline", "ci/base.json").exit_code == 0
    entry = json.loads((tmp_path / "ci" / "base.json").read_text(encoding="utf-8"))["findings"][0]
    assert entry["path"] == "../pkg/a.py"
    monkeypatch.chdir(tmp_path / "pkg")
    assert invoke("check", "--baseline", "../ci/base.json", ".").exit_code == 0


def test_written_baseline_is_sorted_and_counts_duplicates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch)
    (tmp_path / "b.py").write_text("use_after(p)\nfree_again(p)\nfree_again(p)\n", encoding="utf-8")
    (tmp_path / "a.py").write_text("free_again(p)\n", encoding="utf-8")
    assert invoke("check", "--write-baseline", "base.json").exit_code == 0
    lines = (tmp_path / "base.json").read_text(encoding="utf-8").splitlines()
    assert lines == [
        "{",
        '  "ownlint-baseline": 1,',
        '  "findings": [',
        '    {"path": "a.py", "code": "OWN201", "handle": "p", "text": "free_again(p)", "count": 1},',
        '    {"path": "b.py", "code": "OWN201", "handle": "p", "text": "free_again(p)", "count": 2},',
        '    {"path": "b.py", "code": "OWN203", "handle": "p", "text": "use_after(p)", "count": 1}',
        "  ]",
        "}",
    ]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "base.json: cannot read: No such file or directory"),
        ("{", "base.json: not an ownlint baseline: Expecting property name enclosed in double quotes"),
        ('{"findings": []}', 'base.json: not an ownlint baseline: expected an object with "ownlint-baseline": 1'),
        ('{"ownlint-baseline": 1, "findings": [{"path": "a.py"}]}', "base.json: entry 1: expected an object with keys"),
        (
            '{"ownlint-baseline": 1, "findings": [{"path": "a.py", "code": "OWN201", "handle": null, "text": "", "count": 0}]}',
            "base.json: entry 1: count must be a positive integer",
        ),
    ],
)
def test_missing_or_broken_baseline_is_a_usage_error(tmp_path: Path, content: str | None, reason: str) -> None:
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    if content is not None:
        (tmp_path / "base.json").write_text(content, encoding="utf-8")
    assert one_line_error(invoke("check", "--baseline", "base.json")).startswith(reason)
