"""The pre-commit hook, through the real `pre-commit try-repo`.

pre-commit builds ownlint's environment from a git repository, so the test
copies the working tree (with uncommitted changes, without what git ignores)
to a scratch repository, commits it, and points `try-repo` at that. The
environment is built once (pip reaches PyPI for the dependencies); both runs
share it. Skipped without `git` or `pre-commit`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import BUGGY  # the buggy module the CLI tests share

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "tests" / "data" / "notebooks"
TIMEOUT = 600  # building the hook's environment installs ownlint's dependencies from PyPI

CLEAN = BUGGY.rsplit("    zeMemFree(hctx, host)\n", 1)[0]

GIT = ["git", "-c", "user.name=ownlint tests", "-c", "user.email=tests@ownlint.invalid", "-c", "commit.gpgsign=false"]


def pre_commit_available() -> bool:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        return False
    return shutil.which("git") is not None


def git(*args: str, cwd: Path) -> None:
    subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def working_tree_files() -> list[str]:
    """The files of this checkout that git would commit: tracked ones and untracked ones not ignored."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=60,
    ).stdout.decode("utf-8")
    return sorted({name for name in listed.split("\0") if name and (REPO / name).is_file()})


def copy_of_this_repository(destination: Path) -> Path:
    for name in working_tree_files():
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)
    git("init", "-q", cwd=destination)
    git("add", "-A", cwd=destination)
    git("commit", "-q", "-m", "ownlint under test", cwd=destination)
    return destination


def try_repo(hook_repo: Path, project: Path, home: Path, *files: str) -> subprocess.CompletedProcess[str]:
    """`pre-commit try-repo` on every file (`--all-files`), or on `files`."""
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never", "NO_COLOR": "1"}
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(hook_repo),
            "ownlint",
            *(("--files", *files) if files else ("--all-files",)),
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def test_hooks_file_declares_the_ownlint_hook() -> None:
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit")
    [hook] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "ownlint"
    # pre-commit appends the file names after the `--`; --force-exclude: the configuration's `exclude` still applies
    assert hook["entry"] == "ownlint check --force-exclude --"
    assert hook["language"] == "python"
    assert hook["types_or"] == ["python", "pyi", "jupyter"]
    assert hook["require_serial"] is True


@pytest.mark.slow
@pytest.mark.skipif(not pre_commit_available(), reason="needs git and pre-commit (pip install -e '.[test]')")
@pytest.mark.skipif(not (REPO / ".git").exists(), reason="needs this checkout to be a git repository")
def test_try_repo_fails_on_a_bug_and_passes_once_it_is_fixed(tmp_path: Path) -> None:
    hook_repo = copy_of_this_repository(tmp_path / "ownlint")
    project = tmp_path / "project"
    project.mkdir()
    (project / "alloc.py").write_text(BUGGY, encoding="utf-8")
    (project / "notes.txt").write_text("not Python: the hook does not see it\n", encoding="utf-8")
    shutil.copy(NOTEBOOKS / "double_free.ipynb", project / "gpu.ipynb")
    git("init", "-q", cwd=project)
    git("add", "-A", cwd=project)

    buggy = try_repo(hook_repo, project, tmp_path / "pre-commit-home")
    assert buggy.returncode != 0, buggy.stdout + buggy.stderr
    assert "OWN201" in buggy.stdout, buggy.stdout + buggy.stderr
    assert "alloc.py:10:5" in buggy.stdout
    assert "gpu.ipynb:cell 4:1:1" in buggy.stdout  # notebooks are staged files the hook checks (types_or: jupyter)

    (project / "alloc.py").write_text(CLEAN, encoding="utf-8")
    shutil.copy(NOTEBOOKS / "clean.ipynb", project / "gpu.ipynb")
    git("add", "-A", cwd=project)
    clean = try_repo(hook_repo, project, tmp_path / "pre-commit-home")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout


@pytest.mark.slow
@pytest.mark.skipif(not pre_commit_available(), reason="needs git and pre-commit (pip install -e '.[test]')")
@pytest.mark.skipif(not (REPO / ".git").exists(), reason="needs this checkout to be a git repository")
def test_try_repo_checks_files_named_like_options(tmp_path: Path) -> None:
    """Staged files named `--ignore=OWN` and `--write-baseline=setup.py` (executable
    scripts with a Python shebang, so that pre-commit passes them to the hook):
    both are checked, neither is obeyed."""
    hook_repo = copy_of_this_repository(tmp_path / "ownlint")
    project = tmp_path / "project"
    project.mkdir()
    for name in ("--ignore=OWN", "--write-baseline=setup.py"):
        script = project / name
        script.write_text("#!/usr/bin/env python\n" + BUGGY, encoding="utf-8")
        script.chmod(0o755)
    (project / "setup.py").write_text("# the project's setup.py\n", encoding="utf-8")
    git("init", "-q", cwd=project)
    git("add", "-A", cwd=project)

    done = try_repo(hook_repo, project, tmp_path / "pre-commit-home")
    assert done.returncode != 0, done.stdout + done.stderr
    assert "--ignore=OWN:11:5" in done.stdout, done.stdout + done.stderr
    assert "--write-baseline=setup.py:11:5" in done.stdout
    assert (project / "setup.py").read_text(encoding="utf-8") == "# the project's setup.py\n"


HELPER = """\
from ze import *


def release(hctx, p):
    zeMemFree(hctx, p)
"""

CALLER = """\
from helper import release
from ze import *


def recycle(hctx, p):
    release(hctx, p)
    zeMemFree(hctx, p)
"""


@pytest.mark.slow
@pytest.mark.skipif(not pre_commit_available(), reason="needs git and pre-commit (pip install -e '.[test]')")
@pytest.mark.skipif(not (REPO / ".git").exists(), reason="needs this checkout to be a git repository")
def test_try_repo_on_a_staged_caller_sees_the_helper_and_skips_excluded_files(tmp_path: Path) -> None:
    hook_repo = copy_of_this_repository(tmp_path / "ownlint")
    project = tmp_path / "project"
    (project / "generated").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.ownlint]\nexclude = ["generated/"]\n', encoding="utf-8")
    (project / "helper.py").write_text(HELPER, encoding="utf-8")
    (project / "generated" / "bad.py").write_text(BUGGY, encoding="utf-8")
    git("init", "-q", cwd=project)
    git("add", "-A", cwd=project)
    home = tmp_path / "pre-commit-home"

    excluded = try_repo(hook_repo, project, home)  # every file: the excluded one is named, and skipped
    assert excluded.returncode == 0, excluded.stdout + excluded.stderr
    assert "OWN201" not in excluded.stdout

    git("commit", "-q", "-m", "helper", cwd=project)
    (project / "user.py").write_text(CALLER, encoding="utf-8")
    git("add", "user.py", cwd=project)
    staged = try_repo(hook_repo, project, home, "user.py")  # the caller alone, as when it alone is staged
    assert staged.returncode != 0, staged.stdout + staged.stderr
    assert "OWN201" in staged.stdout, staged.stdout + staged.stderr
    assert "user.py:7:5" in staged.stdout
