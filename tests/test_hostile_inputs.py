"""Hostile inputs (issue 29, points 4, 5 and 7): what a stranger's repository,
pull request or editor session can hand ownlint besides source code.

- Names are names: a file named like an option is checked as a file.
- File names that are not UTF-8 are escaped in every human format, kept
  losslessly in JSON and SARIF, and never break another file's result.
- An unreadable file or directory, named or found, is an error entry naming it;
  the run goes on (exit 1, as the README says).
- Every input file (configuration, model, baseline) is validated: bounded
  nesting and size, integers in range, names non-empty, descriptor patterns
  that cannot backtrack; read only from regular files (a FIFO never blocks).
- The language server rejects an absurd `Content-Length` and never walks a
  root that is not a project.

Each case runs the real program (a subprocess: a traceback, a hang or a death
shows as it would for a user) or, where that is enough, the function at fault.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import forked
import pytest
from test_bad_input import (
    GOOD,
    Outcome,
    _parse,
    assert_no_traceback,
    one_line_error,
    run_in_process,
    run_subprocess,
    write,
)

from ownlint import config as config_module
from ownlint.config import load_config
from ownlint.engine.modelling.models import ModelError, load_models

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 60

DOUBLE_FREE = GOOD  # `good`: zeMemFree twice, the finding on line 6, column 5


def findings_of(outcome: Outcome) -> set[tuple[str, int, str]]:
    return {(path, line, code) for path, line, _, code in outcome.findings}


# ---------------------------------------------------------------- names are names


def test_the_pre_commit_hook_ends_the_options_before_the_file_names() -> None:
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit")
    [hook] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    # pre-commit appends the staged names to `entry`: `--` must come last
    assert hook["entry"].split()[-1] == "--"  # after any option the entry gives


def test_names_after_the_double_dash_are_files_never_options(tmp_path: Path) -> None:
    write(tmp_path / "--ignore=OWN", DOUBLE_FREE)
    write(tmp_path / "--write-baseline=setup.py", DOUBLE_FREE)
    setup = write(tmp_path / "setup.py", "# the project's own setup.py\n")
    outcome = run_subprocess(tmp_path, ["--", "--ignore=OWN", "--write-baseline=setup.py", "setup.py"])
    assert_no_traceback(outcome)
    assert outcome.status == 1
    assert findings_of(outcome) == {("--ignore=OWN", 6, "OWN201"), ("--write-baseline=setup.py", 6, "OWN201")}
    assert setup.read_text(encoding="utf-8") == "# the project's own setup.py\n"


# ---------------------------------------------------------------- names that are not UTF-8

BAD_NAME = b"bad\xff.py"


@pytest.fixture
def undecodable_tree(tmp_path: Path) -> Path:
    """`tree/bad\\xff.py` and `tree/good.py`, each with a double free on line 6."""
    tree = tmp_path / "tree"
    tree.mkdir()
    try:
        fd = os.open(os.fsencode(tree) + b"/" + BAD_NAME, os.O_WRONLY | os.O_CREAT, 0o644)
    except OSError as error:  # a file system that only takes UTF-8 names (APFS, some mounts)
        pytest.skip(f"this file system refuses a name that is not UTF-8: {error}")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(DOUBLE_FREE)
    write(tree / "good.py", DOUBLE_FREE)
    return tmp_path


def run_raw(cwd: Path, args: list[str]) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    return forked.ownlint("check", "--no-cache", *args, cwd=cwd, timeout=TIMEOUT, env=env, text=False)


@pytest.mark.parametrize("output_format", ["text", "concise", "github"])
def test_a_name_that_is_not_utf8_is_escaped_in_human_formats(undecodable_tree: Path, output_format: str) -> None:
    done = run_raw(undecodable_tree, ["--format", output_format, "tree"])
    assert b"Traceback" not in done.stderr, done.stderr.decode("utf-8", "replace")
    assert done.returncode == 1, (done.stdout, done.stderr)
    shown = done.stdout.decode("utf-8")  # strictly UTF-8: no raw byte, no surrogate
    assert "tree/bad\\xff.py:6" in shown or "file=tree/bad\\xff.py,line=6" in shown
    assert "tree/good.py:6" in shown or "file=tree/good.py,line=6" in shown
    assert "internal error" not in shown


def test_a_name_that_is_not_utf8_is_kept_losslessly_in_json(undecodable_tree: Path) -> None:
    done = run_raw(undecodable_tree, ["--format", "json", "tree"])
    assert done.returncode == 1, (done.stdout, done.stderr)
    document = json.loads(done.stdout.decode("utf-8"))
    assert "\udcff" not in json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogatepass").decode("utf-8")
    by_path = {f["path"]: f for f in document["findings"]}
    assert set(by_path) == {"tree/bad\\xff.py", "tree/good.py"}
    bad = by_path["tree/bad\\xff.py"]
    assert base64.b64decode(bad["path_base64"]) == b"tree/" + BAD_NAME
    assert all(base64.b64decode(r["path_base64"]) == b"tree/" + BAD_NAME for r in bad["related"])
    assert "path_base64" not in by_path["tree/good.py"]  # only where the name needs it
    assert document["errors"] == []


def test_a_name_that_is_not_utf8_is_a_percent_encoded_uri_in_sarif(undecodable_tree: Path) -> None:
    done = run_raw(undecodable_tree, ["--format", "sarif", "tree"])
    assert b"Traceback" not in done.stderr, done.stderr.decode("utf-8", "replace")
    log = json.loads(done.stdout.decode("utf-8"))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {"tree/bad%FF.py", "tree/good.py"}
    assert urllib.parse.unquote_to_bytes("tree/bad%FF.py") == b"tree/" + BAD_NAME


def test_a_baseline_records_and_hides_a_finding_in_a_file_whose_name_is_not_utf8(undecodable_tree: Path) -> None:
    written = run_raw(undecodable_tree, ["--format", "json", "--write-baseline", "baseline.json", "tree"])
    assert written.returncode == 0, written.stderr
    (undecodable_tree / "baseline.json").read_text(encoding="utf-8")  # the file is UTF-8
    again = run_raw(undecodable_tree, ["--format", "json", "--baseline", "baseline.json", "tree"])
    assert again.returncode == 0, (again.stdout, again.stderr)
    assert json.loads(again.stdout)["findings"] == []


# ---------------------------------------------------------------- permissions


def unreadable_tree(root: Path) -> None:
    """`locked/` (mode 000, with a file in it), `secret.py` (mode 000) and `good.py` (a double free)."""
    write(root / "good.py", DOUBLE_FREE)
    write(root / "locked" / "inside.py", DOUBLE_FREE)
    write(root / "secret.py", DOUBLE_FREE)
    os.chmod(root / "locked", 0)
    os.chmod(root / "secret.py", 0)


def test_unreadable_paths_are_error_entries_simulated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a non-root user sees, wherever the tests run (root reads everything): the
    system calls on the locked paths fail with EACCES."""
    write(tmp_path / "good.py", DOUBLE_FREE)
    write(tmp_path / "locked" / "inside.py", DOUBLE_FREE)
    write(tmp_path / "secret.py", DOUBLE_FREE)
    locked, secret = str(tmp_path / "locked"), str(tmp_path / "secret.py")

    def denied(name: str, path: object) -> bool:
        """A mode-000 file can still be stat'ed (its directory allows it), not opened; nothing under
        a mode-000 directory can be stat'ed or opened, and the directory cannot be listed."""
        shown = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else ""
        if shown.startswith(locked + os.sep):
            return True
        return (name == "open" and shown == secret) or (name == "scandir" and shown == locked)

    def guard(name, real):  # type: ignore[no-untyped-def]
        def call(path, *args, **kwargs):  # type: ignore[no-untyped-def]
            if denied(name, path):
                raise PermissionError(13, "Permission denied", os.fsdecode(path))
            return real(path, *args, **kwargs)

        return call

    for name in ("stat", "open", "scandir", "lstat"):
        monkeypatch.setattr(os, name, guard(name, getattr(os, name)))
    monkeypatch.chdir(tmp_path)
    for args in (["--jobs", "1", "."], ["--jobs", "1", "secret.py", "good.py", "locked/inside.py"]):
        outcome = run_in_process(tmp_path, args)
        assert_no_traceback(outcome)
        assert outcome.status == 1, (outcome.stdout, outcome.stderr)
        assert findings_of(outcome) == {("good.py", 6, "OWN201")}
        errors = dict(outcome.errors)
        assert "Permission denied" in errors["secret.py"]
        if "." in args:
            assert "Permission denied" in errors["locked"]
        else:
            assert "Permission denied" in errors["locked/inside.py"]


def _as_nobody() -> list[str] | None:
    """How to run this interpreter as an unprivileged user: nothing to do when
    the tests are not run as root; as root, the child drops to `nobody` itself
    (os.setuid) after importing what it needs (this interpreter may live where
    `nobody` cannot read, such as under /root)."""
    if not hasattr(os, "geteuid"):
        return None
    if os.geteuid() != 0:
        return []
    try:
        import pwd

        nobody = pwd.getpwnam("nobody")
    except (ImportError, KeyError):
        return None
    return [str(nobody.pw_uid), str(nobody.pw_gid)]


# As root, the child first checks the readable `good.py` once, so that every module a run imports
# lazily is loaded before it drops to `nobody` (who may not read this interpreter's library).
FLAGS = ["--jobs", "1", "--format", "json"]
_DROP_AND_RUN = """
import os, sys
# the interpreter lives under /root (0700): whatever the run imports after dropping to `nobody` is
# imported before, by the same command run once as root on a readable file (and, for the worker,
# what it imports lazily)
import ctypes, encodings.ascii, resource, traceback
import libcst  # and the parser's native module, loaded at its first parse (in a worker)
libcst.parse_module("x = 1")
from ownlint.processes import load_engine
load_engine()
from ownlint.cli import _run_cli, main  # main() ends the process; _run_cli returns
ids, args = [i for i in sys.argv[1:3] if i], sys.argv[3:]
if ids:
    sys.argv = ["ownlint", *[a for a in args if a not in ("secret.py", ".")], "-o", os.devnull, "good.py"]
    _run_cli()
    os.setgroups([]); os.setgid(int(ids[1])); os.setuid(int(ids[0]))
sys.argv = ["ownlint", *args]
main()
"""


@pytest.mark.skipif(_as_nobody() is None, reason="needs a POSIX system and, as root, a `nobody` user")
def test_unreadable_paths_are_error_entries_for_a_real_unprivileged_user() -> None:
    ids = _as_nobody()
    assert ids is not None
    root = Path(tempfile.mkdtemp(prefix="ownlint-perm-"))  # not under pytest's root-only tmp_path
    try:
        os.chmod(root, 0o755)
        unreadable_tree(root)
        for target in (["."], ["secret.py", "good.py"]):
            done = subprocess.run(
                [sys.executable, "-c", _DROP_AND_RUN, *(ids or ["", ""])[:2], "check", "--no-cache", *FLAGS, *target],
                cwd=root,
                capture_output=True,
                timeout=TIMEOUT,
                env={**os.environ, "PYTHONPATH": str(REPO / "src")},
            )
            stderr = done.stderr.decode("utf-8", "replace")
            assert "Traceback" not in stderr, stderr
            assert done.returncode == 1, (done.returncode, done.stdout, stderr)
            document = _parse(done.stdout.decode("utf-8"))
            assert document is not None
            assert {(f["path"], f["code"]) for f in document["findings"]} == {("good.py", "OWN201")}
            errors = {e["path"]: e["message"] for e in document["errors"]}
            assert "Permission denied" in errors["secret.py"]
            if target == ["."]:
                assert "Permission denied" in errors["locked"]
    finally:
        os.chmod(root / "locked", 0o755)
        shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------- configuration, models, baselines


def _short(value: object) -> str | None:
    """A test id of at most 40 characters (an id holding 200,000 brackets went into the
    environment of the tests' subprocesses, PYTEST_CURRENT_TEST, past the kernel's limit)."""
    return repr(value)[:40] if isinstance(value, str) else None


def deep_toml(depth: int) -> str:
    return "x = " + "[" * depth + "]" * depth + "\n"


@pytest.mark.parametrize(
    ("name", "text", "fragment"),
    [
        ("ownlint.toml", deep_toml(100_000), "nested more than"),
        ("pyproject.toml", "[tool.ownlint]\nselect = " + "[" * 50 + "]" * 50 + "\n", "nested more than"),
        ("ownlint.toml", "page-size = 100000000000000000000\n", "page-size"),
        ("ownlint.toml", "page-size = " + str(2**80) + "\n", "page-size"),
        ("ownlint.toml", "select = ['" + "x" * 3_000_000 + "']\n", "larger than"),
    ],
    ids=_short,
)
def test_a_hostile_configuration_is_one_line_naming_the_file(
    tmp_path: Path, name: str, text: str, fragment: str
) -> None:
    write(tmp_path / name, text)
    write(tmp_path / "good.py", GOOD)
    outcome = run_subprocess(tmp_path, ["good.py"])
    assert_no_traceback(outcome)
    reason = one_line_error(outcome)
    assert reason.startswith(name) and fragment in reason, reason
    assert len(reason) < 400


MODEL_HEAD = "[model]\nname = 'mine'\n"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (deep_toml(100_000), "nested more than"),
        ("[model]\nname = 'x'\nsuccess = ['OK']\nstatus = 100000000000000000000\n", "[model].status: must be"),
        (MODEL_HEAD + "[[release]]\nfunctions = ['f']\nhandle = -3\n", "[[release]][0].handle: must be"),
        (MODEL_HEAD + "[[create]]\nfunctions = ['f']\nout = 99999999999\n", "[[create]][0].out: must be"),
        (MODEL_HEAD + "[[submit]]\nfunctions = ['f']\narguments = [-1]\n", "[[submit]][0].arguments: must be"),
        (MODEL_HEAD + "[[release]]\nfunctions = ['']\nhandle = 0\n", "[[release]][0].functions: empty name"),
        (MODEL_HEAD + "[[release]]\nfunctions = ['  ']\nhandle = 0\n", "[[release]][0].functions: empty name"),
        ("[model]\nname = ''\n", "[model].name: empty name"),
        (MODEL_HEAD + "[memory]\ndescriptor-pattern = '(?=a)b'\n", "[memory].descriptor-pattern:"),
        (MODEL_HEAD + "[memory]\ndescriptor-pattern = '(x)\\1'\n", "[memory].descriptor-pattern:"),
        (MODEL_HEAD + "[memory]\ndescriptor-pattern = '" + "(" * 40 + "x" + ")" * 40 + "'\n", "nested"),
    ],
    ids=_short,
)
def test_a_hostile_model_is_one_line_naming_the_file_and_the_key(tmp_path: Path, text: str, fragment: str) -> None:
    path = write(tmp_path / "mine.toml", text)
    with pytest.raises(ModelError) as caught:
        load_models([path])
    message = str(caught.value)
    assert message.startswith(str(path)) and fragment in message, message
    assert "\n" not in message and len(message) < 400


def test_a_hostile_model_through_the_command_line_exits_2(tmp_path: Path) -> None:
    write(tmp_path / "mine.toml", "[model]\nname = 'x'\nsuccess = ['OK']\nstatus = 100000000000000000000\n")
    write(tmp_path / "ownlint.toml", "models = ['mine.toml']\n")
    write(tmp_path / "good.py", GOOD)
    outcome = run_subprocess(tmp_path, ["good.py"])
    assert_no_traceback(outcome)
    assert "mine.toml" in one_line_error(outcome)


@pytest.mark.parametrize(
    ("pattern", "name", "matches"),
    [
        ("_desc_t$", "ze_device_mem_alloc_desc_t", True),
        ("_desc_t$", "ze_desc_t_x", False),
        ("^ze_.*_desc_t$", "ze_host_mem_alloc_desc_t", True),
        ("^ze_.*_desc_t$", "xze_host_desc_t", False),
        ("Desc(riptor)?$", "MemDescriptor", True),
        ("Desc(riptor)?$", "MemDesc", True),
        ("[A-Z]+_DESC|_desc_t$", "ZE_DESC", True),
        ("[^a-z]desc$", "_desc", True),
        ("[^a-z]desc$", "xdesc", False),
        ("de\\.sc", "de.sc", True),
        ("a{2,3}b$", "aab", True),
        ("a{2,3}b$", "ab", False),
        ("(a+)+$", "xaaa", True),
        ("\\w+_t$", "desc_t", True),
        ("\\d", "desc", False),
    ],
)
def test_descriptor_patterns_keep_their_meaning(pattern: str, name: str, matches: bool) -> None:
    from ownlint.engine.modelling.name_pattern import NamePattern

    compiled = NamePattern.compile(pattern)
    assert compiled.search(name) is matches
    assert bool(re.search(pattern, name)) is matches  # the same meaning as a Python regular expression


def test_a_descriptor_pattern_matches_in_linear_time() -> None:
    from ownlint.engine.modelling.name_pattern import NamePattern

    # the classic catastrophic cases for a backtracking matcher (each takes Python's `re` hours)
    for pattern in ("(a+)+$", "(a|a)*b$", "a*a*a*a*a*a*a*a*a*a*b$", "(a*)*(b|c)"):
        compiled = NamePattern.compile(pattern)
        started = time.perf_counter()
        assert not compiled.search("a" * 5_000 + "!")
        assert time.perf_counter() - started < 5.0, pattern


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"ownlint-baseline": 1, "findings": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested more than"),
        (
            '{"ownlint-baseline": 1, "findings": [{"path": "a.py", "code": "OWN201", "handle": null, '
            '"text": "x", "count": 100000000000000000000}]}',
            "count must be",
        ),
        (
            '{"ownlint-baseline": 1, "findings": [{"path": "", "code": "OWN201", "handle": null, '
            '"text": "x", "count": 1}]}',
            "path",
        ),
    ],
    ids=_short,
)
def test_a_hostile_baseline_is_one_line_naming_the_file(tmp_path: Path, text: str, fragment: str) -> None:
    write(tmp_path / "baseline.json", text)
    write(tmp_path / "good.py", GOOD)
    outcome = run_subprocess(tmp_path, ["--baseline", "baseline.json", "good.py"])
    assert_no_traceback(outcome)
    reason = one_line_error(outcome)
    assert reason.startswith("baseline.json") and fragment in reason, reason


# ---------------------------------------------------------------- regular files only


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this system")
    path = tmp_path / "pipe"
    os.mkfifo(path)
    yield path


@pytest.mark.parametrize("option", ["--config", "--baseline"])
def test_a_fifo_given_as_an_input_file_never_blocks(tmp_path: Path, fifo: Path, option: str) -> None:
    write(tmp_path / "good.py", GOOD)
    outcome = run_subprocess(tmp_path, [option, str(fifo), "good.py"], timeout=TIMEOUT)
    assert_no_traceback(outcome)
    assert "not a regular file" in one_line_error(outcome)


def test_a_fifo_in_the_tree_is_not_read(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this system")
    write(tmp_path / "good.py", GOOD)
    os.mkfifo(tmp_path / "pipe.py")
    outcome = run_subprocess(tmp_path, ["."])
    assert_no_traceback(outcome)
    assert findings_of(outcome) == {("good.py", 6, "OWN201")}
    named = run_subprocess(tmp_path, ["pipe.py", "good.py"])
    assert ("pipe.py", "not a regular file or directory") in named.errors


def test_a_file_replaced_by_a_fifo_after_discovery_is_not_read(tmp_path: Path) -> None:
    """The window between discovery and reading, made deterministic: the reader
    itself is given a FIFO where a file was found."""
    from ownlint import api

    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this system")
    os.mkfifo(tmp_path / "swapped.py")
    outcome: list[object] = []
    reader = threading.Thread(target=lambda: outcome.append(api.read_source(tmp_path / "swapped.py", "swapped.py")))
    reader.start()
    reader.join(10)
    if reader.is_alive():  # unblock it so that the test run can end
        with open(tmp_path / "swapped.py", "wb"):
            pass
        reader.join(10)
        pytest.fail("reading a FIFO blocked")
    [error] = outcome
    assert getattr(error, "message", "") == "not a regular file"


# ---------------------------------------------------------------- per-file-ignores


def test_many_per_file_ignores_are_compiled_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pathspec

    lines = "\n".join(f'"gen{n}/*.py" = ["OWN201"]' for n in range(600))
    write(tmp_path / "ownlint.toml", f"[per-file-ignores]\n{lines}\n")
    config = load_config(tmp_path / "ownlint.toml")
    compiled = 0
    real = pathspec.GitIgnoreSpec.from_lines.__func__  # type: ignore[attr-defined]

    def counting(cls, *args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal compiled
        compiled += 1
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(pathspec.GitIgnoreSpec, "from_lines", classmethod(counting))
    config_module.gitignore_spec.cache_clear()
    for n in range(50):
        path = tmp_path / f"gen{n}" / "x.py"
        assert not config.is_enabled("OWN201", path)
        assert config.is_enabled("OWN203", path)
        assert config.is_enabled("OWN201", tmp_path / "src" / f"y{n}.py")
    assert compiled <= 600, compiled  # once per pattern, not once per pattern and question (90,000 before)


# ---------------------------------------------------------------- the language server


def test_an_absurd_content_length_is_rejected_and_the_server_goes_on(tmp_path: Path) -> None:
    def frame(body: bytes, length: bytes | None = None) -> bytes:
        return b"Content-Length: " + (length or str(len(body)).encode()) + b"\r\n\r\n" + body

    initialize = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}}
    ).encode()
    shutdown = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}).encode()
    exit_ = json.dumps({"jsonrpc": "2.0", "method": "exit"}).encode()
    stream = b"".join(
        [
            frame(b'{"jsonrpc": "2.0", "method": "x"}', b"99999999999999999999"),
            frame(initialize),
            frame(shutdown),
            frame(exit_),
        ]
    )
    done = subprocess.run(
        [sys.executable, "-m", "ownlint", "lsp"], input=stream, capture_output=True, timeout=TIMEOUT, cwd=tmp_path
    )
    assert b"Traceback" not in done.stderr, done.stderr.decode("utf-8", "replace")
    assert done.returncode == 0, done.stderr
    assert b"capabilities" in done.stdout  # initialize, after the rejected message, was answered
    assert b"Content-Length" in done.stderr  # and the rejection was said, on one line
    assert all(line.startswith(b"ownlint lsp: ") for line in done.stderr.splitlines())


def test_the_server_does_not_walk_a_root_that_is_not_a_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ownlint import discovery
    from ownlint.config import default_config
    from ownlint.lsp_workspace import WorkspaceFiles, root_of

    document = write(tmp_path / "proj" / "a.py", GOOD)
    config = default_config(tmp_path / "proj")
    home = Path(os.path.expanduser("~"))
    assert root_of(document, config, [Path("/")]) is None
    assert root_of(home / "x" / "a.py", config, [home]) is None
    walked: list[str] = []
    real_scandir = os.scandir

    def counting(path):  # type: ignore[no-untyped-def]
        walked.append(os.fsdecode(path))
        return real_scandir(path)

    monkeypatch.setattr(discovery.os, "scandir", counting)
    assert WorkspaceFiles().others(document, config, [Path("/")], {}) == []
    assert walked == []


def test_the_server_bounds_its_walk_of_a_large_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ownlint import discovery
    from ownlint.config import default_config
    from ownlint.lsp_workspace import WorkspaceFiles

    monkeypatch.setattr(discovery, "MAX_WORKSPACE_ENTRIES", 50)
    root = tmp_path / "big"
    write(root / "pyproject.toml", "[project]\nname = 'big'\n")
    for n in range(40):
        write(root / f"d{n}" / "m.py", "x = 1\n")
    document = write(root / "a.py", GOOD)
    assert WorkspaceFiles().others(document, default_config(root), [root], {}) == []
    small = tmp_path / "small"
    write(small / "pyproject.toml", "[project]\nname = 'small'\n")
    write(small / "b.py", "x = 1\n")
    document = write(small / "a.py", GOOD)
    assert [p.name for p, _ in WorkspaceFiles().others(document, default_config(small), [small], {})] == ["b.py"]
