"""`--format gitlab` (GitLab Code Quality) and `--format junit` (JUnit XML), each
valid against the format's published schema, bundled in tests/data/; and
`-o/--output-file`."""

from __future__ import annotations

import functools
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import xmlschema
from cli_helpers import BUGGY, invoke

from ownlint.api import RunResult
from ownlint.diagnostics import Diagnostic, FileError, Span
from ownlint.render import gitlab, junit

DATA = Path(__file__).resolve().parent / "data"
GITLAB_SCHEMA = json.loads((DATA / "gitlab-codequality.schema.json").read_text(encoding="utf-8"))


@functools.cache
def junit_schema() -> xmlschema.XMLSchema10:
    """The JUnit schema, read when a test first needs it: reading it costs a second,
    which every pytest-xdist worker paid at collection."""
    return xmlschema.XMLSchema10(DATA / "junit-10.xsd")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def two_findings_on_one_line() -> RunResult:
    same = Diagnostic("OWN201", "pkg/a.py", Span(3, 5, 3, 20), "`p` is freed a second time")
    return RunResult(
        findings=[
            same,
            Diagnostic("OWN203", "pkg/a.py", Span(4, 1, 4, 9), "`p` is used <after> it was freed & \x1b"),
            Diagnostic("OWN601", "b.py", Span(1, 1, 1, 30), "`SYCL_DEVICE_FILTER` is deprecated"),
        ],
        errors=[FileError("bad.py", "not UTF-8: invalid start byte at byte offset 0")],
        files=["pkg/a.py", "b.py", "bad.py", "clean.py"],
        seconds=0.0,
        sources={"pkg/a.py": "a\nb\nfree(p)\nuse(p)\n", "b.py": "x\n"},
    )


class TestGitlab:
    def issues(self, run: RunResult) -> list[dict[str, Any]]:
        document: list[dict[str, Any]] = json.loads(gitlab.render(run))
        jsonschema.Draft7Validator(GITLAB_SCHEMA).validate(document)
        return document

    def test_valid_and_complete(self) -> None:
        issues = self.issues(two_findings_on_one_line())
        assert [(i["check_name"], i["location"]["path"], i["location"]["lines"]["begin"]) for i in issues] == [
            ("OWN201", "pkg/a.py", 3),
            ("OWN203", "pkg/a.py", 4),
            ("OWN601", "b.py", 1),
        ]
        assert issues[0]["description"] == "OWN201 [double-free] `p` is freed a second time"
        assert [i["severity"] for i in issues] == ["critical", "critical", "minor"]
        assert len({i["fingerprint"] for i in issues}) == 3  # GitLab keeps one issue per fingerprint

    def test_fingerprints_do_not_depend_on_the_line_number(self) -> None:
        run = two_findings_on_one_line()
        moved = Diagnostic("OWN201", "pkg/a.py", Span(4, 5, 4, 20), "`p` is freed a second time")
        later = RunResult([moved], [], run.files, 0.0, {"pkg/a.py": "a\nb\nc\nfree(p)\n"})
        assert self.issues(later)[0]["fingerprint"] == self.issues(run)[0]["fingerprint"]

    def test_empty_run_is_an_empty_list(self) -> None:
        assert self.issues(RunResult([], [], ["a.py"], 0.0)) == []

    def test_from_the_command_line(self, tmp_path: Path) -> None:
        (tmp_path / "alloc.py").write_text(BUGGY, encoding="utf-8")
        result = invoke("check", "--format", "gitlab")
        assert result.exit_code == 1
        [issue] = json.loads(result.stdout)
        assert (issue["check_name"], issue["location"]["lines"]["begin"]) == ("OWN201", 10)


class TestJunit:
    def tree(self, run: RunResult) -> ET.Element:
        text = junit.render(run)
        junit_schema().validate(text)
        return ET.fromstring(text)

    def test_valid_one_testcase_per_file_one_failure_per_finding(self) -> None:
        root = self.tree(two_findings_on_one_line())
        [suite] = root.findall("testsuite")
        assert (suite.get("name"), suite.get("tests"), suite.get("failures"), suite.get("errors")) == (
            "ownlint",
            "4",
            "2",
            "1",
        )
        cases = {case.get("name"): case for case in suite.findall("testcase")}
        assert list(cases) == ["b.py", "bad.py", "clean.py", "pkg/a.py"]
        failures = [(f.get("type"), f.get("message")) for f in cases["pkg/a.py"].findall("failure")]
        assert failures == [
            ("OWN201", "3:5: `p` is freed a second time"),
            ("OWN203", "4:1: `p` is used <after> it was freed & ^["),
        ]
        assert (
            cases["pkg/a.py"].findall("failure")[0].text
            == "pkg/a.py:3:5: OWN201 [double-free] `p` is freed a second time"
        )
        [error] = cases["bad.py"].findall("error")
        assert error.get("message") == "not UTF-8: invalid start byte at byte offset 0"
        assert not list(cases["clean.py"])

    def test_from_the_command_line_to_a_file(self, tmp_path: Path) -> None:
        (tmp_path / "alloc.py").write_text(BUGGY, encoding="utf-8")
        result = invoke("check", "--format", "junit", "-o", "report/junit.xml")
        assert result.exit_code == 1
        assert result.stdout == ""
        text = (tmp_path / "report" / "junit.xml").read_text(encoding="utf-8")
        junit_schema().validate(text)
        assert ET.fromstring(text).find("testsuite/testcase/failure").get("type") == "OWN201"  # type: ignore[union-attr]


class TestOutputFile:
    def test_every_format_can_go_to_a_file(self, tmp_path: Path) -> None:
        (tmp_path / "alloc.py").write_text(BUGGY, encoding="utf-8")
        for fmt in ("text", "concise", "json", "sarif", "github", "gitlab", "junit"):
            result = invoke("check", "--format", fmt, "--output-file", f"out.{fmt}")
            assert result.exit_code == 1 and result.stdout == "", fmt
            assert "OWN201" in (tmp_path / f"out.{fmt}").read_text(encoding="utf-8"), fmt

    def test_an_unwritable_output_file_is_a_one_line_error(self, tmp_path: Path) -> None:
        (tmp_path / "alloc.py").write_text(BUGGY, encoding="utf-8")
        result = invoke("check", "-o", "alloc.py/report.txt")  # a file where a directory should be
        assert result.exit_code == 2
        assert result.stderr.startswith("ownlint: error: cannot write alloc.py/report.txt:")
        assert len(result.stderr.splitlines()) == 1


class TestQuietAndVerbose:
    def test_quiet_prints_the_findings_and_nothing_else(self, tmp_path: Path) -> None:
        (tmp_path / "alloc.py").write_text(BUGGY, encoding="utf-8")
        (tmp_path / "clean.py").write_text("x = 1\n", encoding="utf-8")
        loud = invoke("check", "--format", "concise")
        quiet = invoke("check", "--format", "concise", "-q")
        assert quiet.exit_code == loud.exit_code == 1
        assert quiet.stdout.splitlines() == loud.stdout.splitlines()[:-1]  # without the summary
        assert "Found 1 finding" not in invoke("check", "--quiet").stdout
        assert invoke("check", "-q", "clean.py").stdout == ""
        assert invoke("check", "-q", "--format", "concise", "clean.py").stdout == ""

    def test_verbose_says_what_was_read_on_standard_error(self, tmp_path: Path) -> None:
        (tmp_path / "alloc.py").write_text(BUGGY, encoding="utf-8")
        result = invoke("check", "--format", "json", "-v")
        json.loads(result.stdout)  # standard output is the report alone
        assert "ownlint: checked 1 file" in result.stderr
        assert "configuration:" in result.stderr

    def test_quiet_and_verbose_together_is_a_usage_error(self) -> None:
        result = invoke("check", "-q", "-v")
        assert result.exit_code == 2
