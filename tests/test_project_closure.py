"""Changed files checked against the whole project (issue 35): `ownlint check FILES`
and standard input read the project modules those files import, transitively,
and report the given files' findings only.

The project is a copy of `tests/fixtures/summaries/cross_pkg`: `app.py` calls
helpers of `ring/alloc.py` that free their argument; `ring/user.py` does too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_helpers import invoke

from ownlint import api, closure, runner
from ownlint.config import default_config

FIXTURE = Path(__file__).parent / "fixtures" / "summaries" / "cross_pkg"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    shutil.copytree(FIXTURE, root)
    monkeypatch.chdir(root)
    return root


def findings(output: str) -> list[str]:
    return [line.split(" [")[0] for line in output.splitlines() if ": OWN" in line]


def test_a_caller_checked_alone_sees_the_helper_that_frees(project: Path) -> None:
    result = invoke("check", "--no-cache", "--format", "concise", "app.py")
    assert findings(result.stdout) == ["app.py:12:5: OWN203", "app.py:18:5: OWN201", "app.py:23:5: OWN201"]
    assert result.exit_code == 1


def test_only_the_given_files_are_reported(project: Path) -> None:
    # ring/user.py has findings of its own; it is read (app.py imports it) but not reported
    result = invoke("check", "--no-cache", "--format", "concise", "app.py")
    assert "ring/user.py" not in result.stdout
    assert "in 1 file" in result.stdout


def test_relative_imports_inside_a_package(project: Path) -> None:
    result = invoke("check", "--no-cache", "--format", "concise", "ring/user.py")
    assert findings(result.stdout) == ["ring/user.py:10:5: OWN201", "ring/user.py:15:5: OWN201"]


def test_standard_input_is_checked_against_the_project(project: Path) -> None:
    source = (project / "app.py").read_bytes()
    result = invoke("check", "--no-cache", "--format", "concise", "--stdin-filename", "app.py", input=source)
    assert findings(result.stdout) == ["app.py:12:5: OWN203", "app.py:18:5: OWN201", "app.py:23:5: OWN201"]


def test_a_module_nobody_imports_is_not_read(project: Path) -> None:
    (project / "broken.py").write_bytes(b"\xff\xfe not UTF-8, and nobody imports it\n")
    result = invoke("check", "--no-cache", "--format", "concise", "app.py")
    assert "broken.py" not in result.stdout + result.stderr
    assert len(findings(result.stdout)) == 3


def test_the_closure_follows_imports_transitively(project: Path) -> None:
    config = default_config(project)
    found = closure.imported_files([project / "app.py"], config)
    assert sorted(p.relative_to(project).as_posix() for p in found) == [
        "ring/__init__.py",
        "ring/alloc.py",
        "ring/user.py",
    ]
    # user.py imports only its package's alloc (relatively)
    found = closure.imported_files([project / "ring" / "user.py"], config)
    assert sorted(p.relative_to(project).as_posix() for p in found) == ["ring/__init__.py", "ring/alloc.py"]


def test_the_api_reports_the_given_files_only(project: Path) -> None:
    result = api.check_paths([Path("app.py")], default_config(project))
    assert {f.path for f in result.findings} == {"app.py"}
    assert result.files == ["app.py"]
    assert set(result.sources) == {"app.py"}


HELPER = "from ze import *\n\n\ndef release(hctx, p):\n    zeMemFree(hctx, p)\n"
CALLER = "from helper import release\nfrom ze import *\n\n\ndef recycle(hctx, p):\n    release(hctx, p)\n    zeMemFree(hctx, p)\n"


@pytest.mark.parametrize("first", [["user.py"], ["."]], ids=["same-files", "whole-project"])
def test_the_closure_comes_from_the_cache_when_nothing_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: list[str]
) -> None:
    """A second `ownlint check user.py` (pre-commit runs it on every commit), after
    the same command or after `ownlint check .`, analyses nothing: the reports of
    the caller with its helper are the cache's (the engine would fail here)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "helper.py").write_text(HELPER, encoding="utf-8")
    (tmp_path / "user.py").write_text(CALLER, encoding="utf-8")
    config = default_config(tmp_path)
    api.check_paths(first, config, use_cache=True)

    def analysed(*args: object) -> None:
        raise AssertionError("analysed again")

    monkeypatch.setattr(runner, "_run", analysed)
    again = api.check_paths(["user.py"], config, use_cache=True)
    assert [(f.path, f.span.line, f.code) for f in again.findings] == [("user.py", 7, "OWN201")]


HELPERS = "from ze import *\n\ndef release(ctx, p):\n    zeMemFree(ctx, p)\n"
UNRELATED = "def release(ctx, p):\n    pass\n"
TEST_FILE = "from conftest import release\n\ndef test_f(ctx, p):\n    release(ctx, p)\n    release(ctx, p)\n"


def test_a_top_level_name_several_files_have_is_the_nearest_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Test suites of several packages in one repository each have a `conftest.py` (cuda-python: the
    repository's, `cuda_core/tests/`, `cuda_bindings/tests/`), and a test in a folder below one imports it
    as `from conftest import ...` (cuda_core/tests/memory/test_managed_ops.py): pytest puts the folders of
    the test file and of its conftest files first on the path, so the nearest `conftest.py` at or above
    the importing file is the one imported, not the first one found in the repository."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "conftest.py").write_text(UNRELATED, encoding="utf-8")
    (root / "a_tests").mkdir()
    (root / "a_tests" / "conftest.py").write_text(UNRELATED, encoding="utf-8")
    (root / "b_tests" / "memory").mkdir(parents=True)
    (root / "b_tests" / "conftest.py").write_text(HELPERS, encoding="utf-8")
    (root / "b_tests" / "memory" / "test_x.py").write_text(TEST_FILE, encoding="utf-8")
    monkeypatch.chdir(root)
    given = root / "b_tests" / "memory" / "test_x.py"
    assert closure.imported_files([given], default_config()) == [root / "b_tests" / "conftest.py"]
    result = invoke("check", "--no-cache", "--format", "concise", "b_tests/memory/test_x.py")
    assert findings(result.stdout) == ["b_tests/memory/test_x.py:5:5: OWN201"]
    # the same test file beside an unrelated conftest.py of its own: that one is imported, and frees nothing
    (root / "b_tests" / "memory" / "conftest.py").write_text(UNRELATED, encoding="utf-8")
    assert closure.imported_files([given], default_config()) == [root / "b_tests" / "memory" / "conftest.py"]
