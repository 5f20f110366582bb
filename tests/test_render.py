"""Renderers: the text frame, concise lines, the JSON object, statistics, summary lines."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from ownlint import registry, render
from ownlint.api import RunResult
from ownlint.diagnostics import Diagnostic, Edit, FileError, Fix, Related, Span
from ownlint.lines import split_lines
from ownlint.lsp import Positions, to_lsp_diagnostic
from ownlint.registry import Rule
from ownlint.render import concise, json_, sarif, statistics, text
from ownlint.suppress import UnusedSuppression

SOURCE = """\
def f(ctx, p):
\tzeMemFree(ctx, p)
    log(p)

    zeMemFree(ctx, p)
"""

DOUBLE_FREE = Diagnostic(
    code="OWN201",
    path="pkg/a.py",
    span=Span(5, 5, 5, 22),
    message="`p` is freed a second time",
    related=(
        Related("pkg/a.py", Span(2, 2, 2, 19), "first freed here"),
        Related("pkg/helpers.py", Span(1, 1, 1, 4), "made here"),
    ),
    help="free it once",
    label="freed again here",
)


def result(*findings: Diagnostic, errors: tuple[FileError, ...] = (), files: int = 2) -> RunResult:
    return RunResult(
        findings=list(findings),
        errors=list(errors),
        files=[f"f{i}.py" for i in range(files)],
        seconds=0.12345,
        sources={"pkg/a.py": SOURCE, "pkg/helpers.py": "mk(p)\n"},
        unused_suppressions=[UnusedSuppression("pkg/a.py", 3, 12, "OWN203")],
    )


def plain_text(run: RunResult, show_unused: bool = False) -> str:
    out = io.StringIO()
    console = Console(file=out, color_system=None, no_color=True, highlight=False, markup=False, soft_wrap=True)
    text.render(run, console, show_unused=show_unused)
    return out.getvalue()


def test_text_frame_like_rustc() -> None:
    assert (
        plain_text(result(DOUBLE_FREE))
        == """\
error[OWN201]: `p` is freed a second time
 --> pkg/a.py:5:5
  |
2 |     zeMemFree(ctx, p)
  |     ----------------- first freed here
...
5 |     zeMemFree(ctx, p)
  |     ^^^^^^^^^^^^^^^^^ freed again here
 ::: pkg/helpers.py:1:1
  |
1 | mk(p)
  | --- made here
  |
  = help: free it once
  = note: see Level Zero specification: `zeMemFree`, `ze*Destroy`.
  = note: `ownlint explain OWN201` shows the rule's documentation

Found 1 finding (1 error) in 1 file.
"""
    )


def test_text_note_prefers_the_reference_of_the_api() -> None:
    """A finding whose model names its API's reference shows it instead of the rule's."""
    cuda = Diagnostic(
        code="OWN201",
        path="pkg/a.py",
        span=Span(5, 5, 5, 22),
        message="`p` is freed a second time",
        reference="CUDA Driver API: `cuMemFree`",
    )
    shown = plain_text(result(cuda))
    assert "  = note: see CUDA Driver API: `cuMemFree`.\n" in shown
    assert "Level Zero" not in shown


CU_MEM_FREE_URL = (
    "https://nvidia.github.io/cuda-python/cuda-bindings/latest/module/driver.html#cuda.bindings.driver.cuMemFree"
)


def test_the_page_of_the_api_is_linked_in_every_format() -> None:
    """A finding whose call's model gives the address of its documentation
    links it: a note of the text output, JSON's `reference_url`, SARIF's
    `properties.referenceUrl`, the language server's `codeDescription`; a
    finding without one keeps the rule's weakness page in the editor."""
    cuda = Diagnostic(
        code="OWN201",
        path="pkg/a.py",
        span=Span(5, 5, 5, 22),
        message="`p` is freed a second time",
        reference="CUDA Driver API: `cuMemFree`",
        reference_url=CU_MEM_FREE_URL,
    )
    shown = plain_text(result(cuda))
    assert f"  = note: the API's documentation: {CU_MEM_FREE_URL}\n" in shown
    [finding] = json.loads(json_.render(result(cuda)))["findings"]
    assert (finding["reference"], finding["reference_url"]) == ("CUDA Driver API: `cuMemFree`", CU_MEM_FREE_URL)
    [plain] = json.loads(json_.render(result(DOUBLE_FREE)))["findings"]
    assert "reference_url" not in plain and "reference" not in plain
    [scanned] = json.loads(sarif.render(result(cuda)))["runs"][0]["results"]
    assert scanned["properties"] == {"reference": "CUDA Driver API: `cuMemFree`", "referenceUrl": CU_MEM_FREE_URL}
    positions = Positions(split_lines(SOURCE), "utf-16")
    editor = to_lsp_diagnostic(cuda, positions, "pkg/a.py")
    assert editor.code_description is not None and editor.code_description.href == CU_MEM_FREE_URL
    weakness = to_lsp_diagnostic(DOUBLE_FREE, positions, "pkg/a.py").code_description
    assert weakness is not None and weakness.href == "https://cwe.mitre.org/data/definitions/415.html"


def test_text_splits_only_the_files_it_shows() -> None:
    """Found on a 560-file run: every finding split every analysed file into
    lines (4,608 findings took 19 s to print). Only shown files are split,
    each once."""

    reads: list[str] = []

    class Counting(dict[str, str]):
        def __getitem__(self, path: str) -> str:
            reads.append(path)
            return super().__getitem__(path)

    sources = Counting({"pkg/a.py": SOURCE, "pkg/helpers.py": "mk(p)\n", **{f"other{i}.py": "x\n" for i in range(50)}})
    run = result(DOUBLE_FREE, DOUBLE_FREE)
    run.sources = sources
    plain_text(run)
    assert sorted(reads) == ["pkg/a.py", "pkg/helpers.py"]


def test_text_errors_unused_and_summary() -> None:
    run = result(errors=(FileError("bad.py", "not UTF-8: invalid start byte at byte offset 0"),))
    assert plain_text(run, show_unused=True) == (
        "error: bad.py: not UTF-8: invalid start byte at byte offset 0\n"
        "pkg/a.py:3:12: unused suppression 'OWN203'\n"
        "No findings in 2 files; 1 path could not be checked. 1 suppression silenced nothing.\n"
    )


def test_text_without_source_still_names_the_place() -> None:
    finding = Diagnostic("OWN203", "gone.py", Span(9, 1, 9, 2), "`p` is used after it was freed")
    assert plain_text(result(finding)).splitlines()[:3] == [
        "error[OWN203]: `p` is used after it was freed",
        " --> gone.py:9:1",
        "  |",
    ]


def test_concise() -> None:
    run = result(DOUBLE_FREE, errors=(FileError("nope", "no such file or directory"),))
    assert concise.render(run, show_unused=True) == (
        "error: nope: no such file or directory\n"
        "pkg/a.py:5:5: OWN201 [double-free] `p` is freed a second time\n"
        "pkg/a.py:3:12: unused suppression 'OWN203'\n"
        "Found 1 finding (1 error) in 1 file. 1 path could not be checked. 1 suppression silenced nothing.\n"
    )


def test_json_has_exactly_the_documented_keys() -> None:
    fix = Fix("unsafe", "free once", (Edit(Span(5, 1, 6, 1), ""),))
    finding = Diagnostic("OWN201", "pkg/a.py", Span(5, 5, 5, 22), "msg", DOUBLE_FREE.related[:1], fix)
    document = json.loads(json_.render(result(finding, errors=(FileError("b.py", "contains NUL bytes"),))))
    assert document == {
        "version": "0.1.0",
        "findings": [
            {
                "code": "OWN201",
                "name": "double-free",
                "severity": "error",
                "path": "pkg/a.py",
                "line": 5,
                "column": 5,
                "end_line": 5,
                "end_column": 22,
                "message": "msg",
                "related": [{"path": "pkg/a.py", "line": 2, "column": 2, "message": "first freed here"}],
                "fix": {
                    "applicability": "unsafe",
                    "message": "free once",
                    "edits": [{"line": 5, "column": 1, "end_line": 6, "end_column": 1, "content": ""}],
                },
            }
        ],
        "errors": [{"path": "b.py", "message": "contains NUL bytes"}],
        "summary": {"files": 2, "findings": 1},
    }


def test_json_puts_each_finding_and_error_on_a_line_of_its_own() -> None:
    tricky = Diagnostic("OWN201", "pkg/ä.py", Span(5, 5, 5, 22), 'a "quoted"\nmessage \\ é', DOUBLE_FREE.related)
    run = result(DOUBLE_FREE, tricky, errors=(FileError("b.py", "contains NUL bytes"),))
    rendered = json_.render(run, show_unused=True)
    assert json.loads(rendered) == json_.document(run, show_unused=True)
    lines = rendered.splitlines()
    assert lines[0] == "{" and lines[-1] == "}" and lines[1] == '  "version": "0.1.0",'
    assert lines[2] == '  "findings": [' and lines[5] == "  ],"
    assert [json.loads(line.strip().rstrip(",")) for line in lines[3:5]] == json_.document(run)["findings"]
    assert lines[6:9] == ['  "errors": [', '    {"path": "b.py", "message": "contains NUL bytes"}', "  ],"]
    assert json_.render(result()).splitlines()[2] == '  "findings": [],'


def test_json_unused_suppressions_only_on_request() -> None:
    document = json.loads(json_.render(result(), show_unused=True))
    assert document["unused_suppressions"] == [{"path": "pkg/a.py", "line": 3, "column": 12, "suppression": "OWN203"}]
    assert "unused_suppressions" not in json.loads(json_.render(result()))


def test_statistics() -> None:
    second = Diagnostic("OWN203", "pkg/a.py", Span(1, 1, 1, 2), "m")
    run = result(DOUBLE_FREE, second, DOUBLE_FREE)
    assert statistics.render(run) == "2  OWN201  double-free\n1  OWN203  use-after-free\n"
    assert json.loads(statistics.render(run, as_json=True))[0] == {
        "code": "OWN201",
        "name": "double-free",
        "severity": "error",
        "count": 2,
    }


def test_summary_counts_warnings_and_plurals(monkeypatch: pytest.MonkeyPatch) -> None:
    warning = Rule("OWN999", "made-up", "warning", "s", "", "", "", "", "", "")
    rules = {**registry.all_rules(), "OWN999": warning}
    monkeypatch.setattr("ownlint.render.all_rules", lambda: rules)
    other = Diagnostic("OWN999", "b.py", Span(1, 1, 1, 2), "m")
    assert render.summary_line(result(DOUBLE_FREE, DOUBLE_FREE, other)) == (
        "Found 3 findings (2 errors, 1 warning) in 2 files."
    )
    assert render.summary_line(result(files=12)) == "All checked! 12 files, no findings."
    assert render.summary_line(result(files=1)) == "All checked! 1 file, no findings."


@pytest.mark.parametrize("code", ["OWN301", "OWN302", "OWN303", "OWN304", "OWN305", "OWN402", "OWN404"])
def test_text_notes_are_one_line_without_escaped_newlines(code: str) -> None:
    # the rules' References run over several lines of their docstring: a note joins them
    finding = Diagnostic(code, "pkg/a.py", Span(5, 5, 5, 22), "msg")
    notes = [line for line in plain_text(result(finding)).splitlines() if "= note:" in line]
    assert notes and all("^J" not in line and "\\n" not in line for line in notes)
    assert any(" ".join(registry.rule(code).references.split()) in line for line in notes)


def test_budget_notes_are_not_counted_as_paths_that_could_not_be_checked() -> None:
    """A budget note (a function analysed only in part) is no unchecked path: the summary
    counts it apart (cupy gave "14 paths could not be checked" for 14 budget notes)."""
    from ownlint.render import summary_line

    note = FileError("a.py", "analysis budget: `f` (line 3) used all of its 100 steps", kind="budget")
    unreadable = FileError("b.py", "cannot read: Permission denied")
    result = RunResult([], [note, note, unreadable], ["a.py", "b.py"], 0.1)
    assert summary_line(result) == (
        "No findings in 2 files; 1 path could not be checked. 2 functions were analysed only in part."
    )
    assert summary_line(RunResult([], [note], ["a.py"], 0.1)) == (
        "All checked! 1 file, no findings. 1 function was analysed only in part."
    )
