"""The pre-commit hook, through the real `pre-commit try-repo`.

pre-commit builds ownlint's environment from a git repository, so the test
copies the working tree (with uncommitted changes, without what git ignores)
to a scratch repository, commits it, and points `try-repo` at that. Each
`try-repo` builds the hook's environment anew (a virtual environment, a
wheel of ownlint, pip for the dependencies: the most expensive step of the
suite), so the cases share one run (`hook_runs`); the project once fixed
is checked with the hook's own entry on the files `--all-files` would give
it, in this process. Skipped without `git` or `pre-commit`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_helpers import BUGGY, invoke  # the buggy module the CLI tests share
from click.testing import Result as CliResult

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


def try_repo(
    hook_repo: Path, project: Path, home: Path, *files: str, all_files: bool = False
) -> subprocess.CompletedProcess[str]:
    """`pre-commit try-repo` on the staged files, or on every file (`all_files`), or on `files`."""
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
            *(("--files", *files) if files else ("--all-files",) if all_files else ()),
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

OPTION_NAMES = ("--ignore=OWN", "--write-baseline=setup.py")


@dataclass(frozen=True)
class HookRuns:
    """The hook on one project: `buggy`, the real `try-repo` on the staged
    files (the default of `pre-commit run`); `clean`, the hook's entry on
    every file `--all-files` would give it, once the bugs are fixed."""

    project: Path
    buggy: subprocess.CompletedProcess[str]
    clean: CliResult


def all_files_for_the_hook(project: Path) -> list[str]:
    """What `pre-commit run --all-files` gives the hook: the files git knows
    whose tags (pre-commit's `identify`) meet the hook's `types_or`."""
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit")
    from identify.identify import tags_from_path

    [hook] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=project, check=True, capture_output=True, timeout=60
    ).stdout.decode("utf-8")
    names = [name for name in listed.split("\0") if name]
    return [name for name in names if tags_from_path(str(project / name)) & set(hook["types_or"])]


def run_hook_entry(project: Path, files: list[str]) -> CliResult:
    """The hook's `entry` (ownlint's command line, in this process) on `files`, from `project`."""
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit")
    [hook] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    program, *args = hook["entry"].split()
    assert program == "ownlint"
    here = Path.cwd()
    os.chdir(project)
    try:
        return invoke(*args, *files)
    finally:
        os.chdir(here)


@pytest.fixture(scope="module")
def hook_runs(tmp_path_factory: pytest.TempPathFactory) -> HookRuns:
    """`try-repo` builds the hook's environment anew in a temporary store each
    time it runs (its `PRE_COMMIT_HOME` is not used), so the cases share one
    run on one project.

    The project: `helper.py` and `generated/bad.py` (clean; excluded by the
    configuration) committed; staged on top of them, a caller of the helper
    (`user.py`), a double free in `generated/bad.py`, a buggy module, a buggy
    notebook, a text file, and executable scripts named like options. The
    run gets the staged files only (the caller without its helper, the
    excluded file with them). Then the staged bugs are fixed, and the hook's
    entry is run on every file, the excluded one (still buggy) included."""
    tmp = tmp_path_factory.mktemp("pre-commit")
    hook_repo = copy_of_this_repository(tmp / "ownlint")
    project = tmp / "project"
    (project / "generated").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.ownlint]\nexclude = ["generated/"]\n', encoding="utf-8")
    (project / "helper.py").write_text(HELPER, encoding="utf-8")
    (project / "generated" / "bad.py").write_text(CLEAN, encoding="utf-8")
    git("init", "-q", cwd=project)
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "helper", cwd=project)

    (project / "generated" / "bad.py").write_text(BUGGY, encoding="utf-8")  # staged: named to the hook
    (project / "user.py").write_text(CALLER, encoding="utf-8")
    (project / "alloc.py").write_text(BUGGY, encoding="utf-8")
    (project / "notes.txt").write_text("not Python: the hook does not see it\n", encoding="utf-8")
    shutil.copy(NOTEBOOKS / "double_free.ipynb", project / "gpu.ipynb")
    for name in OPTION_NAMES:  # executable scripts with a Python shebang: pre-commit passes them to the hook
        script = project / name
        script.write_text("#!/usr/bin/env python\n" + BUGGY, encoding="utf-8")
        script.chmod(0o755)
    (project / "setup.py").write_text("# the project's setup.py\n", encoding="utf-8")
    git("add", "-A", cwd=project)
    home = tmp / "pre-commit-home"
    buggy = try_repo(hook_repo, project, home)  # the staged files only

    (project / "user.py").write_text(CALLER.rsplit("    zeMemFree(hctx, p)\n", 1)[0], encoding="utf-8")
    (project / "alloc.py").write_text(CLEAN, encoding="utf-8")
    shutil.copy(NOTEBOOKS / "clean.ipynb", project / "gpu.ipynb")
    for name in OPTION_NAMES:
        (project / name).write_text("#!/usr/bin/env python\n" + CLEAN, encoding="utf-8")
    git("add", "-A", cwd=project)
    files = all_files_for_the_hook(project)
    assert "generated/bad.py" in files and "gpu.ipynb" in files and "notes.txt" not in files
    clean = run_hook_entry(project, files)
    return HookRuns(project, buggy, clean)


def needs_pre_commit(test: Callable[[HookRuns], None]) -> Callable[[HookRuns], None]:
    """The marks of the `try-repo` tests: slow, skipped without pre-commit, and
    run by one worker (`--dist loadgroup`), so that `hook_runs` runs once."""
    for mark in (
        pytest.mark.slow,
        pytest.mark.skipif(not pre_commit_available(), reason="needs git and pre-commit (pip install -e '.[test]')"),
        pytest.mark.skipif(not (REPO / ".git").exists(), reason="needs this checkout to be a git repository"),
        pytest.mark.xdist_group("pre-commit"),
    ):
        test = mark(test)
    return test


@needs_pre_commit
def test_try_repo_fails_on_a_bug_and_the_hook_passes_once_it_is_fixed(hook_runs: HookRuns) -> None:
    buggy, clean = hook_runs.buggy, hook_runs.clean
    assert buggy.returncode != 0, buggy.stdout + buggy.stderr
    assert "ownlint" in buggy.stdout and "Failed" in buggy.stdout, buggy.stdout + buggy.stderr
    assert "OWN201" in buggy.stdout, buggy.stdout + buggy.stderr
    assert "alloc.py:10:5" in buggy.stdout
    assert "gpu.ipynb:cell 4:1:1" in buggy.stdout  # notebooks are staged files the hook checks (types_or: jupyter)
    assert clean.exit_code == 0, clean.stdout


@needs_pre_commit
def test_try_repo_checks_files_named_like_options(hook_runs: HookRuns) -> None:
    """Staged files named `--ignore=OWN` and `--write-baseline=setup.py`: both
    are checked, neither is obeyed."""
    done = hook_runs.buggy
    assert done.returncode != 0, done.stdout + done.stderr
    assert "--ignore=OWN:11:5" in done.stdout, done.stdout + done.stderr
    assert "--write-baseline=setup.py:11:5" in done.stdout
    assert (hook_runs.project / "setup.py").read_text(encoding="utf-8") == "# the project's setup.py\n"


@needs_pre_commit
def test_try_repo_on_a_staged_caller_sees_the_helper_and_skips_excluded_files(hook_runs: HookRuns) -> None:
    staged = hook_runs.buggy  # the caller staged, its helper not: the hook is not given helper.py
    assert staged.returncode != 0, staged.stdout + staged.stderr
    assert "user.py:7:5" in staged.stdout, staged.stdout + staged.stderr
    # generated/bad.py (a double free) is staged: it is named to the hook, and skipped
    assert (
        "generated/bad.py"
        in subprocess.run(
            ["git", "diff", "--cached", "--name-only"],
            cwd=hook_runs.project,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    assert "alloc.py:10:5" in staged.stdout and "generated/bad.py:10:5" not in staged.stdout  # the same module
    # and once the other bugs are fixed, the hook on every file passes, the excluded one among them
    excluded = hook_runs.clean
    assert excluded.exit_code == 0, excluded.stdout
    assert "OWN201" not in excluded.stdout
