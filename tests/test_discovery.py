"""Which files a run checks: suffixes, skipped directories, .gitignore, exclude, explicit files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ownlint.config import Config, default_config
from ownlint.diagnostics import FileError
from ownlint.discovery import discover, display_path


def touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("", encoding="utf-8")


def found(paths: list[str | Path], config: Config | None = None) -> list[str]:
    result = discover(paths, config or default_config())
    return [display_path(p) for p in result.files]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_python_sources_and_stubs_in_sorted_order(tmp_path: Path) -> None:
    touch(tmp_path, "b.py", "a.pyi", "pkg/z.py", "pkg/__init__.py", "notes.txt", "setup.cfg", "x.pyc")
    assert found(["."]) == ["a.pyi", "b.py", "pkg/__init__.py", "pkg/z.py"]


def test_default_skips(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "keep.py",
        ".hidden/a.py",
        "venv/pyvenv.cfg",
        "venv/lib/a.py",
        "env2/lib/site-packages/b.py",
        "__pycache__/c.py",
        "src/.tox/d.py",
        "src/.visible.py",
    )
    assert found(["."]) == ["keep.py", "src/.visible.py"]


def test_gitignore_nested_and_negated(tmp_path: Path) -> None:
    touch(tmp_path, "a.py", "gen.py", "build/x.py", "sub/gen.py", "sub/keep/gen.py", "sub/y.py", "sub/z.log.py")
    (tmp_path / ".gitignore").write_text("build/\ngen.py\n", encoding="utf-8")
    (tmp_path / "sub" / ".gitignore").write_text("!keep/gen.py\n*.log.py\n", encoding="utf-8")
    assert found(["."]) == ["a.py", "sub/keep/gen.py", "sub/y.py"]


def test_gitignore_above_the_checked_directory_counts_only_inside_a_work_tree(tmp_path: Path) -> None:
    touch(tmp_path, "src/a.py", "src/gen/b.py")
    (tmp_path / ".gitignore").write_text("gen/\n", encoding="utf-8")
    assert found(["src"]) == ["src/a.py", "src/gen/b.py"]
    (tmp_path / ".git" / "info").mkdir(parents=True)
    assert found(["src"]) == ["src/a.py"]
    (tmp_path / ".git" / "info" / "exclude").write_text("a.py\n", encoding="utf-8")
    assert found(["src"]) == []


def test_exclude_is_relative_to_the_config_directory(tmp_path: Path) -> None:
    touch(tmp_path, "proj/src/a.py", "proj/third_party/b.py", "proj/src/third_party/c.py", "proj/src/gen_x.py")
    config = Config(root=tmp_path / "proj", exclude=("/third_party/", "gen_*.py"))
    assert found(["proj"], config) == ["proj/src/a.py", "proj/src/third_party/c.py"]


def test_explicit_files_are_always_checked(tmp_path: Path) -> None:
    touch(tmp_path, "build/x.py", "script", ".hidden/h.py")
    (tmp_path / ".gitignore").write_text("build/\n", encoding="utf-8")
    config = Config(root=tmp_path, exclude=("script",))
    assert found(["build/x.py", "script", ".hidden/h.py"], config) == [".hidden/h.py", "build/x.py", "script"]


def test_explicit_directory_is_walked_even_if_hidden(tmp_path: Path) -> None:
    touch(tmp_path, ".config/a.py")
    assert found([".config"]) == [".config/a.py"]


def test_a_directory_named_like_a_module_is_a_directory(tmp_path: Path) -> None:
    touch(tmp_path, "x.py/inner.py")
    assert found(["."]) == ["x.py/inner.py"]


def test_directory_symlinks_are_not_followed(tmp_path: Path) -> None:
    touch(tmp_path, "pkg/a.py", "real.py")
    (tmp_path / "pkg" / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "pkg" / "link.py").symlink_to(tmp_path / "real.py")
    (tmp_path / "pkg" / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    assert found(["."]) == ["pkg/a.py", "pkg/link.py", "real.py"]


def test_missing_path_is_an_error_and_the_rest_is_found(tmp_path: Path) -> None:
    touch(tmp_path, "a.py")
    result = discover(["nope", "a.py"], default_config())
    assert [display_path(p) for p in result.files] == ["a.py"]
    assert result.errors == (FileError("nope", "no such file or directory"),)


def test_duplicates_are_checked_once(tmp_path: Path) -> None:
    touch(tmp_path, "pkg/a.py")
    assert found(["pkg", "pkg/a.py", "./pkg/"]) == ["pkg/a.py"]


def test_paths_outside_the_working_directory_are_absolute(tmp_path: Path) -> None:
    touch(tmp_path, "out/a.py", "cwd/b.py")
    os.chdir(tmp_path / "cwd")
    assert found([tmp_path / "out"]) == [(tmp_path / "out" / "a.py").as_posix()]
    assert display_path(tmp_path / "cwd" / "b.py") == "b.py"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every directory")
def test_unreadable_directory_is_an_error(tmp_path: Path) -> None:
    touch(tmp_path, "a.py", "locked/b.py")
    (tmp_path / "locked").chmod(0)
    try:
        result = discover(["."], default_config())
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert [display_path(p) for p in result.files] == ["a.py"]
    assert [e.path for e in result.errors] == ["locked"]


def test_a_named_directory_that_git_ignores_is_still_checked(tmp_path: Path) -> None:
    # like the standard library under ~/.pyenv, whose repository ignores `versions/`
    touch(tmp_path, "versions/lib/json.py", "versions/lib/skip.tmp.py")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("/versions\n*.tmp.py\n", encoding="utf-8")
    assert found(["versions/lib"]) == ["versions/lib/json.py", "versions/lib/skip.tmp.py"]
    assert found(["."]) == []
