"""Configuration per file, as Ruff resolves it (issue 35): the closest configuration
governs each file whatever the order of the arguments, `extend` inherits,
`--force-exclude` skips excluded files given explicitly, and an excluded path
given explicitly says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import BUGGY, invoke

from ownlint.config import ConfigError, load_config
from ownlint.discovery import discover
from ownlint.resolver import Overrides, Resolver


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def nested(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """top/ selects everything; top/quiet/ has its own pyproject.toml that ignores OWN201."""
    write(tmp_path / "pyproject.toml", "[tool.ownlint]\n")
    write(tmp_path / "loud.py", BUGGY)
    write(tmp_path / "quiet" / "pyproject.toml", '[tool.ownlint]\nignore = ["OWN201"]\n')
    write(tmp_path / "quiet" / "calm.py", BUGGY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def codes_by_file(output: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in output.splitlines():
        if ": OWN" in line:
            path, _, rest = line.partition(":")
            found.setdefault(path, []).append(rest.split(": ")[1].split(" ")[0])
    return found


@pytest.mark.parametrize("order", [("loud.py", "quiet/calm.py"), ("quiet/calm.py", "loud.py")])
def test_the_closest_configuration_governs_each_file_in_any_order(nested: Path, order: tuple[str, str]) -> None:
    result = invoke("check", "--no-cache", "--format", "concise", *order)
    assert codes_by_file(result.stdout) == {"loud.py": ["OWN201"]}


def test_a_nested_configuration_governs_its_directory_when_walking(nested: Path) -> None:
    result = invoke("check", "--no-cache", "--format", "concise", ".")
    assert codes_by_file(result.stdout) == {"loud.py": ["OWN201"]}


def test_a_nested_exclude_applies_to_its_directory(nested: Path) -> None:
    write(nested / "quiet" / "pyproject.toml", '[tool.ownlint]\nexclude = ["calm.py"]\n')
    assert discover(["."], Resolver()).files == (nested / "loud.py",)


def test_extend_inherits_and_overrides(tmp_path: Path) -> None:
    write(tmp_path / "base.toml", 'ignore = ["OWN203"]\nexclude = ["build/"]\n')
    child = write(tmp_path / "sub" / "ownlint.toml", 'extend = "../base.toml"\nselect = ["OWN2"]\n')
    config = load_config(child)
    assert config.select == ("OWN2",)
    assert config.ignore == ("OWN203",)
    assert config.exclude == ("build/",)
    assert config.source == child


def test_extend_cycle_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "a.toml", 'extend = "b.toml"\n')
    write(tmp_path / "b.toml", 'extend = "a.toml"\n')
    with pytest.raises(ConfigError, match="extend"):
        load_config(tmp_path / "a.toml")


def test_extend_of_a_missing_file_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "a.toml", 'extend = "nope.toml"\n')
    with pytest.raises(ConfigError, match="extend"):
        load_config(tmp_path / "a.toml")


def test_the_command_line_overrides_every_configuration(nested: Path) -> None:
    resolver = Resolver(overrides=Overrides(select=("OWN203",)))
    assert resolver.for_path(nested / "quiet" / "calm.py").select == ("OWN203",)
    assert resolver.for_path(nested / "loud.py").select == ("OWN203",)


@pytest.fixture
def excluded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path / "pyproject.toml", '[tool.ownlint]\nexclude = ["generated/"]\n')
    write(tmp_path / "generated" / "bad.py", BUGGY)
    write(tmp_path / "ok.py", "x = 1\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_excluded_file_given_explicitly_is_checked_without_force_exclude(excluded: Path) -> None:
    result = invoke("check", "--no-cache", "--format", "concise", "generated/bad.py")
    assert "generated/bad.py:10:5: OWN201" in result.stdout


def test_force_exclude_skips_an_excluded_file_given_explicitly(excluded: Path) -> None:
    result = invoke("check", "--no-cache", "--force-exclude", "--format", "concise", "generated/bad.py", "ok.py")
    assert "OWN201" not in result.stdout
    assert result.exit_code == 0


def test_an_excluded_directory_given_explicitly_is_checked_without_force_exclude(excluded: Path) -> None:
    result = invoke("check", "--no-cache", "--format", "concise", "generated")
    assert "generated/bad.py:10:5: OWN201" in result.stdout


def test_an_excluded_path_skipped_says_so(excluded: Path) -> None:
    result = invoke("check", "--no-cache", "--force-exclude", "generated")
    assert "generated: excluded by `exclude` in pyproject.toml" in result.stderr
    assert result.exit_code == 0


def test_exclude_on_the_command_line(excluded: Path) -> None:
    result = invoke("check", "--no-cache", "--format", "concise", "--extend-exclude", "ok.py", "--show-files", ".")
    assert "ok.py: skipped (excluded by `exclude`" in result.stdout
    assert "generated: skipped (excluded by `exclude`" in result.stdout
    result = invoke("check", "--no-cache", "--format", "concise", "--exclude", "ok.py", ".")
    assert "generated/bad.py:10:5: OWN201" in result.stdout  # --exclude replaces the file's patterns
