"""`--format sarif` (valid against the official SARIF 2.1.0 schema) and `--format github` (workflow commands)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_helpers import BUGGY, invoke
from fake_engine import install

from ownlint import __version__
from ownlint.api import RunResult
from ownlint.diagnostics import Diagnostic, Edit, FileError, Fix, Span
from ownlint.registry import all_rules
from ownlint.render import github, sarif

SCHEMA = json.loads((Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def validate(document: dict[str, Any]) -> None:
    validator = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def sarif_of(*args: str) -> dict[str, Any]:
    result = invoke("check", "--format", "sarif", *args)
    assert result.exit_code in (0, 1), result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    validate(document)
    return document


class TestSarif:
    def test_every_rule_says_what_weakness_it_finds(self) -> None:
        rules = sarif.document(RunResult([], [], [], 0.0))["runs"][0]["tool"]["driver"]["rules"]
        by_id = {r["id"]: r["properties"] for r in rules}
        cwe = {code: [t for t in p["tags"] if t.startswith("external/cwe/")] for code, p in by_id.items()}
        assert cwe["OWN201"] == ["external/cwe/cwe-415"] and cwe["OWN203"] == ["external/cwe/cwe-416"]
        assert cwe["OWN102"] == ["external/cwe/cwe-825"]
        for code, properties in by_id.items():
            assert properties["precision"] in ("very-high", "high", "medium", "low")
            assert properties["problem.severity"] in ("error", "warning", "recommendation")
            if "security" in properties["tags"]:
                assert cwe[code] and 0.0 < float(properties["security-severity"]) <= 10.0
            else:
                assert "security-severity" not in properties, code
        assert "security" not in by_id["OWN001"]["tags"] and "security" not in by_id["OWN002"]["tags"]

    def test_no_address_of_a_repository_that_does_not_exist(self) -> None:
        text = sarif.render(RunResult([], [], [], 0.0))
        assert "github.com/ownlint" not in text

    def test_real_finding_is_valid_and_complete(self, tmp_path: Path) -> None:
        (tmp_path / "pkg").mkdir()
        (tmp_path / "pkg" / "alloc.py").write_text(BUGGY, encoding="utf-8")
        (tmp_path / "bad.py").write_bytes(b"\xff")
        document = sarif_of()
        assert document["version"] == "2.1.0"
        [run] = document["runs"]
        driver = run["tool"]["driver"]
        assert (driver["name"], driver["version"]) == ("ownlint", __version__)
        assert "informationUri" not in driver  # there is no public repository yet: no made-up address
        assert [r["id"] for r in driver["rules"]] == list(all_rules())
        rule = next(r for r in driver["rules"] if r["id"] == "OWN201")
        assert rule["name"] == "double-free"
        assert rule["defaultConfiguration"] == {"level": "error"}
        assert rule["help"]["markdown"] == all_rules()["OWN201"].markdown()
        assert rule["helpUri"] == "https://cwe.mitre.org/data/definitions/415.html"
        assert rule["properties"] == {
            "tags": ["security", "external/cwe/cwe-415"],
            "precision": "high",
            "problem.severity": "error",
            "security-severity": "8.0",
        }
        assert rule["shortDescription"]["text"] == all_rules()["OWN201"].summary
        assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"

        [result] = run["results"]
        assert result["ruleId"] == "OWN201"
        assert driver["rules"][result["ruleIndex"]]["id"] == "OWN201"
        assert result["level"] == "error"
        assert (
            result["message"]["text"]
            == "`host` is freed a second time ([memory allocated here](1), [first freed here](2))"
        )
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {"uri": "pkg/alloc.py", "uriBaseId": "%SRCROOT%"}
        assert location["region"] == {"startLine": 10, "startColumn": 5, "endLine": 10, "endColumn": 26}
        related = [
            (r["id"], r["physicalLocation"]["region"]["startLine"], r["message"]["text"])
            for r in result["relatedLocations"]
        ]
        assert related == [(1, 8, "memory allocated here"), (2, 9, "first freed here")]
        [flow] = result["codeFlows"]
        steps = [
            (step["location"]["physicalLocation"]["region"]["startLine"], step["location"]["message"]["text"])
            for step in flow["threadFlows"][0]["locations"]
        ]
        assert steps == [(8, "memory allocated here"), (9, "first freed here"), (10, "freed again here")]
        assert set(result["partialFingerprints"]) == {"primaryLocationLineHash"}

        [invocation] = run["invocations"]
        assert invocation["executionSuccessful"] is True
        [notification] = invocation["toolExecutionNotifications"]
        assert notification["message"]["text"].startswith("bad.py: not UTF-8")

    def test_fingerprint_survives_lines_added_above(self, tmp_path: Path) -> None:
        path = tmp_path / "alloc.py"
        path.write_text(BUGGY, encoding="utf-8")
        before = sarif_of()["runs"][0]["results"][0]
        path.write_text(
            '"""A module."""\n\n# more words\n' + BUGGY.replace("    host =", "\n    host ="), encoding="utf-8"
        )
        after = sarif_of()["runs"][0]["results"][0]
        lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in (before, after)]
        assert lines == [10, 14]
        assert before["partialFingerprints"] == after["partialFingerprints"]

    def test_fingerprint_changes_with_the_reported_line_and_counts_duplicates(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        install(monkeypatch)
        (tmp_path / "a.py").write_text(
            "free_again(p)\nfree_again(p)\n  free_again(p)  \nfree_again(q)\n", encoding="utf-8"
        )
        hashes = [r["partialFingerprints"]["primaryLocationLineHash"] for r in sarif_of()["runs"][0]["results"]]
        digests = [h.split(":")[0] for h in hashes]
        assert [h.split(":")[1] for h in hashes] == ["1", "2", "3", "1"]
        assert digests[0] == digests[1] == digests[2] != digests[3]

    def test_fix_and_absolute_paths(self, tmp_path: Path) -> None:
        fix = Fix("safe", "rename it", (Edit(Span(1, 12, 1, 32), '"ONEAPI_DEVICE_SELECTOR"'),))
        outside = Diagnostic("OWN601", "/elsewhere/e.py", Span(1, 1, 1, 40), "deprecated", fix=fix)
        run = RunResult([outside], [FileError("/elsewhere/x.py", "cannot read")], ["/elsewhere/e.py"], 0.1)
        document = sarif.document(run, root=tmp_path)
        validate(document)
        [result] = document["runs"][0]["results"]
        assert result["level"] == "warning"
        assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "file:///elsewhere/e.py"}
        assert "relatedLocations" not in result
        [replacement] = result["fixes"][0]["artifactChanges"][0]["replacements"]
        assert replacement["insertedContent"] == {"text": '"ONEAPI_DEVICE_SELECTOR"'}

    def test_clean_run_is_valid(self, tmp_path: Path) -> None:
        (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
        document = sarif_of()
        assert document["runs"][0]["results"] == []


class TestGithub:
    def test_one_command_per_finding(self, tmp_path: Path) -> None:
        (tmp_path / "alloc.py").write_text(BUGGY, encoding="utf-8")
        (tmp_path / "env.py").write_text(
            'import os\nos.environ["SYCL_DEVICE_FILTER"] = "level_zero:gpu"\n', encoding="utf-8"
        )
        result = invoke("check", "--format", "github")
        assert result.exit_code == 1
        assert result.stdout.splitlines() == [
            "::error file=alloc.py,line=10,col=5,endLine=10,endColumn=26,title=OWN201 double-free::`host` is freed a second time",
            (
                "::warning file=env.py,line=2,col=1,endLine=2,endColumn=52,title=OWN601 deprecated-device-filter::"
                "`SYCL_DEVICE_FILTER` is set; it is deprecated and replaced by `ONEAPI_DEVICE_SELECTOR`"
            ),
        ]

    def test_escaping(self) -> None:
        diagnostic = Diagnostic("OWN201", "dir,x/a:b%.py", Span(1, 2, 3, 4), "100% bad\r\nreally: yes, bad")
        assert github.finding_line(diagnostic) == (
            "::error file=dir%2Cx/a%3Ab%25.py,line=1,col=2,endLine=3,endColumn=4,title=OWN201 double-free"
            "::100%25 bad%0D%0Areally: yes, bad"
        )

    def test_file_errors(self) -> None:
        run = RunResult([], [FileError("bad.py", "not UTF-8: x")], ["bad.py"], 0.1)
        assert github.render(run) == "::error file=bad.py::not UTF-8: x\n"
