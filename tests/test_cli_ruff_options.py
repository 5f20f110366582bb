"""The options a Ruff user reaches for (issue 35): `-` for standard input,
`--select` accumulated and never empty, `--extend-select`, `--show-files`,
`--show-settings`, `--diff` and `--show-fixes`. The real engine, on small files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import BUGGY, invoke

SAFE = 'os.environ["SYCL_DEVICE_FILTER"] = "level_zero:gpu"\n'
FIXABLE = "import os\n\n" + SAFE


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "alloc.py").write_text(BUGGY, encoding="utf-8")
    (tmp_path / "plain.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / ".gitignore").write_text("ignored.py\n", encoding="utf-8")
    (tmp_path / "ignored.py").write_text(BUGGY, encoding="utf-8")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_dash_reads_standard_input(project: Path) -> None:
    result = invoke("check", "--no-cache", "--format", "concise", "-", input=BUGGY.encode())
    assert "-:10:5: OWN201" in result.stdout
    assert result.exit_code == 1


def test_dash_with_a_stdin_filename(project: Path) -> None:
    result = invoke("check", "--no-cache", "--format", "concise", "--stdin-filename", "x.py", "-", input=BUGGY.encode())
    assert "x.py:10:5: OWN201" in result.stdout


def test_dash_with_other_paths_is_a_usage_error(project: Path) -> None:
    result = invoke("check", "-", "alloc.py", input=b"")
    assert result.exit_code == 2
    assert "standard input" in result.stderr


def test_an_empty_select_is_an_error(project: Path) -> None:
    result = invoke("check", "--select", "", "alloc.py")
    assert result.exit_code == 2
    assert "--select" in result.stderr and "empty" in result.stderr


def test_a_repeated_select_accumulates(project: Path) -> None:
    result = invoke("check", "--select", "OWN203", "--select", "OWN201", "--show-settings", "alloc.py")
    settings = result.stdout
    assert 'select = ["OWN203", "OWN201"]' in settings


def test_extend_select_adds_to_the_files_select(project: Path) -> None:
    (project / "ownlint.toml").write_text('select = ["OWN3"]\n', encoding="utf-8")
    result = invoke("check", "--no-cache", "--format", "concise", "alloc.py")
    assert "OWN201" not in result.stdout
    result = invoke("check", "--no-cache", "--format", "concise", "--extend-select", "OWN201", "alloc.py")
    assert "OWN201" in result.stdout


def test_show_settings_names_the_governing_file(project: Path) -> None:
    (project / "ownlint.toml").write_text('ignore = ["OWN203"]\n', encoding="utf-8")
    result = invoke("check", "--show-settings", "alloc.py")
    assert result.exit_code == 0
    assert "ownlint.toml" in result.stdout
    assert 'ignore = ["OWN203"]' in result.stdout


def test_show_files_lists_checked_and_skipped_and_why(project: Path) -> None:
    result = invoke("check", "--show-files", ".")
    lines = result.stdout.splitlines()
    assert "alloc.py: checked" in lines
    assert "plain.py: skipped (names nothing a model knows: prefilter)" in lines
    assert "ignored.py: skipped (ignored by .gitignore)" in lines
    assert ".git: skipped (hidden directory)" in lines
    assert result.exit_code == 0


def test_show_files_as_json(project: Path) -> None:
    result = invoke("check", "--show-files", "--format", "json", ".")
    shown = {entry["path"]: entry for entry in json.loads(result.stdout)}
    assert shown["alloc.py"]["checked"] is True
    assert shown["ignored.py"] == {"path": "ignored.py", "checked": False, "reason": "ignored by .gitignore"}


def test_diff_prints_the_fixes_and_writes_nothing(project: Path) -> None:
    (project / "env.py").write_text(FIXABLE, encoding="utf-8")
    result = invoke("check", "--no-cache", "--diff", "env.py")
    assert (project / "env.py").read_text(encoding="utf-8") == FIXABLE
    assert "--- env.py" in result.stdout and "+++ env.py" in result.stdout
    assert '-os.environ["SYCL_DEVICE_FILTER"] = "level_zero:gpu"' in result.stdout
    assert '+os.environ["ONEAPI_DEVICE_SELECTOR"] = "level_zero:gpu"' in result.stdout
    assert result.exit_code == 1  # as Ruff: 1 when there is something to fix


def test_diff_with_nothing_to_fix(project: Path) -> None:
    result = invoke("check", "--no-cache", "--diff", "plain.py")
    assert result.stdout == ""
    assert result.exit_code == 0


def test_show_fixes_lists_what_was_fixed(project: Path) -> None:
    (project / "env.py").write_text(FIXABLE, encoding="utf-8")
    result = invoke("check", "--no-cache", "--fix", "--show-fixes", "--format", "concise", "env.py")
    assert "Fixed 1 finding:" in result.stdout
    assert "env.py:" in result.stdout and "OWN601" in result.stdout
