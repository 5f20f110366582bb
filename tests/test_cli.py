"""The command line, in process (click's CliRunner, with a fake engine) and as a real subprocess.

The subprocess tests use the real engine on files it has nothing to say
about, so they hold whatever the engine finds elsewhere.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import forked
import jsonschema
import pytest
from click.testing import CliRunner, Result
from fake_engine import install

from ownlint import __version__, api, runner
from ownlint.cli import cli
from ownlint.engine.modelling.models import ModelError
from ownlint.engine.program import project
from ownlint.registry import rules_markdown_table

FINDING_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": [
        "code",
        "name",
        "severity",
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "message",
        "related",
        "fix",
    ],
    "properties": {
        "code": {"type": "string", "pattern": "^OWN[0-9]{3}$"},
        "name": {"type": "string"},
        "severity": {"enum": ["error", "warning"]},
        "path": {"type": "string"},
        "line": {"type": "integer", "minimum": 1},
        "column": {"type": "integer", "minimum": 1},
        "end_line": {"type": "integer", "minimum": 1},
        "end_column": {"type": "integer", "minimum": 1},
        "message": {"type": "string"},
        "related": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["path", "line", "column", "message"],
                "properties": {
                    "path": {"type": "string"},
                    "line": {"type": "integer"},
                    "column": {"type": "integer"},
                    "message": {"type": "string"},
                },
            },
        },
        "fix": {
            "oneOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["applicability", "message", "edits"],
                    "properties": {
                        "applicability": {"enum": ["safe", "unsafe"]},
                        "message": {"type": "string"},
                        "edits": {"type": "array"},
                    },
                },
            ]
        },
    },
}
JSON_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["version", "findings", "errors", "summary"],
    "properties": {
        "version": {"const": __version__},
        "findings": {"type": "array", "items": FINDING_SCHEMA},
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["path", "message"],
                "properties": {"path": {"type": "string"}, "message": {"type": "string"}},
            },
        },
        "summary": {
            "type": "object",
            "additionalProperties": False,
            "required": ["files", "findings"],
            "properties": {"files": {"type": "integer"}, "findings": {"type": "integer"}},
        },
    },
}


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def invoke(*args: str, stdin: bytes | None = None) -> Result:
    """Run the command line in process; stdout and stderr kept apart on every click version."""
    if "mix_stderr" in inspect.signature(CliRunner).parameters:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]  # click < 8.2 mixes them by default
    else:
        runner = CliRunner()
    return runner.invoke(cli, list(args), input=stdin, catch_exceptions=False)


def one_line_error(result: Result | subprocess.CompletedProcess[str]) -> str:
    stderr = result.stderr
    assert stderr.startswith("ownlint: error: "), stderr
    assert stderr.count("\n") == 1, stderr
    assert "Traceback" not in stderr
    return stderr.strip().removeprefix("ownlint: error: ")


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> list[list[project.SourceFile]]:
    return install(monkeypatch)


class TestCheckInProcess:
    def test_clean_tree(self, tmp_path: Path, engine: object) -> None:
        write(tmp_path / "a.py", "x = 1\n")
        result = invoke("check")
        assert result.exit_code == 0
        assert result.stdout == "All checked! 1 file, no findings.\n"

    def test_findings_exit_1_and_text_frame(self, tmp_path: Path, engine: object) -> None:
        write(tmp_path / "a.py", "free(p)\nfree_again(p)\n")
        result = invoke("check", "a.py")
        assert result.exit_code == 1
        assert result.stdout.startswith("error[OWN201]: `p` is freed a second time\n --> a.py:2:1\n")
        assert "\x1b[" not in result.stdout  # no colour when piped
        assert result.stdout.endswith("Found 1 finding (1 error) in 1 file.\n")

    def test_exit_zero(self, tmp_path: Path, engine: object) -> None:
        write(tmp_path / "a.py", "free_again(p)\n")
        assert invoke("check", "--exit-zero").exit_code == 0

    def test_select_replaces_and_ignore_extends(self, tmp_path: Path, engine: object) -> None:
        write(tmp_path / "a.py", "free_again(p)\nuse_after(p)\n")
        write(tmp_path / "ownlint.toml", 'ignore = ["OWN203"]\n')
        assert invoke("check", "--format", "concise").stdout.splitlines()[:-1] == [
            "a.py:1:1: OWN201 [double-free] `p` is freed a second time"
        ]
        selected = invoke("check", "--format", "concise", "--select", "own203")
        assert selected.stdout.splitlines()[:-1] == ["a.py:2:1: OWN203 [use-after-free] `p` is used after it was freed"]
        ignored = invoke("check", "--ignore", "OWN201, OWN3")
        assert ignored.exit_code == 0

    def test_suppression_comments(self, tmp_path: Path, engine: object) -> None:
        write(tmp_path / "a.py", "free_again(p)  # noqa: OWN201\nuse_after(p)  # ownlint: ignore[OWN203]\n")
        write(tmp_path / "b.py", "# ownlint: ignore-file\nfree_again(p)\n")
        assert invoke("check").exit_code == 0

    def test_report_unused_suppressions(self, tmp_path: Path, engine: object) -> None:
        write(tmp_path / "a.py", "free_again(p)  # noqa: OWN201, OWN203\n")
        assert invoke("check").exit_code == 0
        text = invoke("check", "--report-unused-suppressions")
        assert text.exit_code == 1  # asked for, an unused suppression fails the run (Ruff's RUF100)
        assert text.stdout.splitlines() == [
            "a.py:1:16: unused suppression 'OWN203'",
            "All checked! 1 file, no findings. 1 suppression silenced nothing.",
        ]
        assert invoke("check", "--report-unused-suppressions", "--exit-zero").exit_code == 0
        document = json.loads(invoke("check", "--format", "json", "--report-unused-suppressions").stdout)
        assert document["unused_suppressions"] == [{"path": "a.py", "line": 1, "column": 16, "suppression": "OWN203"}]

    def test_json_output_is_the_same_on_every_run(self, tmp_path: Path, engine: object) -> None:
        write(tmp_path / "a.py", "free(p)\nfree_again(p)\n")
        first, second = invoke("check", "--format", "json"), invoke("check", "--format", "json", "--no-cache")
        assert first.stdout == second.stdout
        assert "seconds" not in json.loads(first.stdout)["summary"]

    def test_json_output_matches_the_schema(self, tmp_path: Path, engine: object) -> None:
        write(tmp_path / "a.py", "free(p)\nfree_again(p)\n")
        write(tmp_path / "bad.py", b"\x80")
        result = invoke("check", "--format", "json")
        assert result.exit_code == 1
        document = json.loads(result.stdout)
        jsonschema.validate(document, JSON_SCHEMA)
        assert [f["line"] for f in document["findings"]] == [2]
        assert document["findings"][0]["related"] == [
            {"path": "a.py", "line": 1, "column": 1, "message": "first freed here"}
        ]
        assert document["errors"] == [{"path": "bad.py", "message": "not UTF-8: invalid start byte at byte offset 0"}]
        assert document["summary"]["files"] == 2

    def test_statistics(self, tmp_path: Path, engine: object) -> None:
        write(tmp_path / "a.py", "free_again(p)\nfree_again(p)\nuse_after(p)\n")
        result = invoke("check", "--statistics")
        assert result.exit_code == 1
        assert result.stdout == "2  OWN201  double-free\n1  OWN203  use-after-free\n"

    def test_stdin(self, tmp_path: Path, engine: list[list[project.SourceFile]]) -> None:
        write(tmp_path / "on_disk.py", "x = 1\n")
        result = invoke("check", "--format", "concise", "--stdin-filename", "on_disk.py", stdin=b"free_again(p)\n")
        assert result.exit_code == 1
        assert result.stdout.startswith("on_disk.py:1:1: OWN201 ")
        assert [f.source for f in engine[0]] == ["free_again(p)\n"]

    def test_stdin_that_is_not_utf8_is_an_error_entry(self, engine: object) -> None:
        result = invoke("check", "--format", "concise", "--stdin-filename", "x.py", stdin=b"\xff")
        assert result.exit_code == 1
        assert result.stdout.startswith("error: x.py: not UTF-8: invalid start byte at byte offset 0\n")

    def test_stdin_with_paths_is_a_usage_error(self, engine: object) -> None:
        result = invoke("check", "--stdin-filename", "x.py", "a.py", stdin=b"")
        assert result.exit_code == 2
        assert one_line_error(result).startswith("--stdin-filename reads the source from standard input")

    def test_missing_path_is_reported_and_the_run_goes_on(self, tmp_path: Path, engine: object) -> None:
        write(tmp_path / "a.py", "free_again(p)\n")
        result = invoke("check", "--format", "concise", "nope.py", "a.py")
        assert result.exit_code == 1
        assert result.stdout.splitlines() == [
            "error: nope.py: no such file or directory",
            "a.py:1:1: OWN201 [double-free] `p` is freed a second time",
            "Found 1 finding (1 error) in 1 file. 1 path could not be checked.",
        ]

    def test_internal_error_exits_2(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        def crash(*args: Any) -> None:
            raise KeyError("oops")

        monkeypatch.setattr(runner, "analyze", crash)
        write(tmp_path / "a.py", "")
        result = invoke("check", "--format", "concise")
        assert result.exit_code == 2
        assert result.stdout.startswith(f"error: a.py: internal error in ownlint {__version__}: KeyError: 'oops'\n")
        assert "internal error" in one_line_error(result)

    def test_model_error_exits_2(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def broken(extra: object = ()) -> None:
            raise ModelError("mine.toml: [api.zeFoo] unknown key 'relase'")

        monkeypatch.setattr(api, "load_models", broken)
        result = invoke("check")
        assert result.exit_code == 2
        assert one_line_error(result) == "mine.toml: [api.zeFoo] unknown key 'relase'"

    def test_bad_select_code(self) -> None:
        result = invoke("check", "--select", "F401")
        assert result.exit_code == 2
        assert one_line_error(result).startswith("--select: 'F401' is not a rule code")

    def test_config_option(self, tmp_path: Path, engine: object) -> None:
        write(tmp_path / "a.py", "free_again(p)\n")
        write(tmp_path / "conf" / "x.toml", 'ignore = ["OWN2"]\n')
        assert invoke("check", "--config", "conf/x.toml").exit_code == 0
        missing = invoke("check", "--config", "conf/none.toml")
        assert missing.exit_code == 2
        assert one_line_error(missing) == "conf/none.toml: cannot read: No such file or directory"

    def test_unknown_format_is_a_click_usage_error(self) -> None:
        assert invoke("check", "--format", "xml").exit_code == 2


class TestOtherCommands:
    def test_version(self) -> None:
        result = invoke("--version")
        assert result.stdout == f"ownlint {__version__}\n"

    def test_rules_table(self) -> None:
        result = invoke("rules")
        assert result.exit_code == 0
        assert "OWN201" in result.stdout
        assert "double-free" in result.stdout

    def test_rules_markdown(self) -> None:
        assert invoke("rules", "--format", "markdown").stdout == rules_markdown_table()

    @pytest.mark.parametrize("name", ["OWN201", "own201", "double-free"])
    def test_explain(self, name: str) -> None:
        result = invoke("explain", name)
        assert result.exit_code == 0
        assert result.stdout.startswith("# OWN201 double-free (error)\n")

    def test_explain_unknown(self) -> None:
        result = invoke("explain", "OWN999")
        assert result.exit_code == 2
        assert one_line_error(result) == "unknown rule 'OWN999'; `ownlint rules` lists them"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real program: `python -m ownlint ARGS` in `cwd` (forked: tests/forked.py)."""
    return forked.ownlint(*args, cwd=cwd, timeout=120)


class TestSubprocess:
    def test_clean_file_exits_0(self, tmp_path: Path) -> None:
        write(tmp_path / "clean.py", "x = 1\n")
        result = run("check", cwd=tmp_path)
        assert (result.returncode, result.stdout, result.stderr) == (0, "All checked! 1 file, no findings.\n", "")

    def test_json_shape(self, tmp_path: Path) -> None:
        write(tmp_path / "clean.py", "def f(x):\n    return x + 1\n")
        result = run("check", "--format", "json", "clean.py", cwd=tmp_path)
        assert result.returncode == 0
        document = json.loads(result.stdout)
        jsonschema.validate(document, JSON_SCHEMA)
        assert document["findings"] == []
        assert document["summary"]["files"] == 1

    def test_non_utf8_file_and_missing_path(self, tmp_path: Path) -> None:
        write(tmp_path / "latin.py", "s = 'caf\u00e9'\n".encode("latin-1"))
        write(tmp_path / "clean.py", "x = 1\n")
        result = run("check", "--format", "concise", ".", "missing.py", cwd=tmp_path)
        assert result.returncode == 1
        assert result.stdout.splitlines() == [
            "error: latin.py: not UTF-8: invalid continuation byte at byte offset 8",
            "error: missing.py: no such file or directory",
            "No findings in 2 files; 2 paths could not be checked.",
        ]
        assert result.stderr == ""

    def test_unknown_config_key(self, tmp_path: Path) -> None:
        write(tmp_path / "pyproject.toml", '[tool.ownlint]\nselct = ["OWN"]\n')
        write(tmp_path / "a.py", "")
        result = run("check", cwd=tmp_path)
        assert result.returncode == 2
        assert result.stdout == ""
        assert one_line_error(result) == "pyproject.toml: [tool.ownlint] unknown key 'selct'"

    def test_broken_pyproject(self, tmp_path: Path) -> None:
        write(tmp_path / "pyproject.toml", "[tool.ownlint\nselect = [\n")
        write(tmp_path / "src" / "a.py", "")
        result = run("check", "src", cwd=tmp_path)
        assert result.returncode == 2
        assert one_line_error(result).startswith("pyproject.toml: invalid TOML: ")

    def test_bad_option_values(self, tmp_path: Path) -> None:
        result = run("check", "--ignore", "OWN2,nope", cwd=tmp_path)
        assert result.returncode == 2
        assert one_line_error(result).startswith("--ignore: 'nope' is not a rule code")
        assert run("check", "--format", "xml", cwd=tmp_path).returncode == 2

    def test_select_and_ignore_accept_codes_and_prefixes(self, tmp_path: Path) -> None:
        write(tmp_path / "a.py", "x = 1\n")
        assert run("check", "--select", "OWN2,OWN203", "--ignore", "own3", cwd=tmp_path).returncode == 0

    def test_suppression_comments_are_accepted(self, tmp_path: Path) -> None:
        write(tmp_path / "a.py", "x = 1  # noqa: OWN201\ny = 2  # ownlint: ignore[OWN203]\n")
        result = run("check", "--format", "concise", "--report-unused-suppressions", cwd=tmp_path)
        assert result.returncode == 1
        assert result.stdout.splitlines() == [
            "a.py:1:8: unused suppression 'OWN201'",
            "a.py:2:8: unused suppression 'OWN203'",
            "All checked! 1 file, no findings. 2 suppressions silenced nothing.",
        ]

    def test_explain_piped_is_plain_markdown(self, tmp_path: Path) -> None:
        result = run("explain", "own203", cwd=tmp_path)
        assert result.returncode == 0
        assert result.stdout.startswith("# OWN203 use-after-free (error)\n")
        unknown = run("explain", "nothing", cwd=tmp_path)
        assert unknown.returncode == 2
        assert one_line_error(unknown) == "unknown rule 'nothing'; `ownlint rules` lists them"


def test_console_script_flushes_everything_before_its_fast_exit(tmp_path: Path) -> None:
    """`main` ends the process with `os._exit` once the command is done: the
    whole output must be out by then, and the status the command chose kept."""
    for i in range(40):  # enough findings that the output is far beyond one pipe buffer
        (tmp_path / f"m{i}.py").write_text(
            "from ze import zeMemAllocHost, zeMemFree\n\n\ndef f(ctx, p):\n    zeMemFree(ctx, p)\n    zeMemFree(ctx, p)\n"
        )
    script = "from ownlint.cli import main\nmain()\n"
    done = subprocess.run(
        [sys.executable, "-c", script, "check", "--format", "json", "--no-cache", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert len(json.loads(done.stdout)["findings"]) == 40
    text = subprocess.run(
        [sys.executable, "-c", script, "check", "--format", "text", "--no-cache", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert text.returncode == 1 and text.stdout.count("OWN201") >= 40
    assert text.stdout.rstrip().endswith("in 40 files.")  # the summary line, written last
    ok = subprocess.run([sys.executable, "-c", script, "--version"], capture_output=True, text=True, timeout=60)
    assert (ok.returncode, ok.stdout) == (0, f"ownlint {__version__}\n")
    bad = subprocess.run(
        [sys.executable, "-c", script, "check", "--jobs", "0"], capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2 and "--jobs" in bad.stderr
