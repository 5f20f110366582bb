"""Jupyter notebooks (issue 35): each code cell checked, as Ruff does, with positions shown as cell and line.

The fixture notebooks are in tests/data/notebooks/; each test runs the real
CLI on copies of them in a scratch directory."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_helpers import invoke
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from ownlint import notebook

NOTEBOOKS = Path(__file__).resolve().parent / "data" / "notebooks"
SARIF_SCHEMA = json.loads(
    (Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8")
)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for file in NOTEBOOKS.iterdir():
        shutil.copy(file, tmp_path / file.name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*args: str) -> tuple[int, str, str]:
    result = invoke("check", "--no-cache", *args)
    return result.exit_code, result.stdout, result.stderr


def notebook_json(*cells: tuple[str, str | list[str]], metadata: dict[str, Any] | None = None) -> str:
    return json.dumps(
        {
            "cells": [{"cell_type": kind, "metadata": {}, "source": source} for kind, source in cells],
            "metadata": metadata if metadata is not None else {"language_info": {"name": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


class TestPositions:
    def test_concise_says_cell_and_line(self, here: Path) -> None:
        status, out, _ = check("--format", "concise", "double_free.ipynb")
        assert out.splitlines()[0] == "double_free.ipynb:cell 4:1:1: OWN201 [double-free] `p` is freed a second time"
        assert len(out.splitlines()) == 2
        assert status == 1

    def test_text_frames_each_cell_with_its_own_line_numbers(self, here: Path) -> None:
        _, out, _ = check("--format", "text", "double_free.ipynb")
        lines = out.splitlines()
        assert " --> double_free.ipynb:cell 4:1:1" in lines
        assert " ::: double_free.ipynb:cell 3:1:1" in lines
        assert "1 | runtime.cudaFree(p)" in lines
        assert not any(line.startswith(("4 |", "5 |")) for line in lines)  # the concatenated source's numbers

    def test_json_has_the_cell_the_line_in_it_and_the_line_in_the_whole_source(self, here: Path) -> None:
        _, out, _ = check("--format", "json", "double_free.ipynb")
        [finding] = json.loads(out)["findings"]
        assert finding["path"] == "double_free.ipynb"
        assert (finding["line"], finding["column"], finding["end_line"]) == (5, 1, 5)
        assert (finding["cell"], finding["cell_line"], finding["cell_end_line"]) == (4, 1, 1)
        made, freed = finding["related"]
        assert (made["line"], made["column"], made["cell"], made["cell_line"]) == (3, 10, 2, 3)
        assert (freed["line"], freed["cell"], freed["cell_line"], freed["message"]) == (4, 3, 1, "first freed here")

    def test_json_of_a_python_file_has_no_cell_keys(self, here: Path) -> None:
        Path("a.py").write_text(
            "from cuda.bindings import runtime\nerr, p = runtime.cudaMalloc(8)\n"
            "runtime.cudaFree(p)\nruntime.cudaFree(p)\n",
            encoding="utf-8",
        )
        _, out, _ = check("--format", "json", "a.py")
        [finding] = json.loads(out)["findings"]
        assert "cell" not in finding and "cell_line" not in finding

    def test_sarif_region_in_the_whole_source_and_the_cell_as_a_property(self, here: Path) -> None:
        _, out, _ = check("--format", "sarif", "double_free.ipynb")
        document = json.loads(out)
        validator = jsonschema.Draft4Validator(SARIF_SCHEMA)
        assert not list(validator.iter_errors(document))
        [result] = document["runs"][0]["results"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "double_free.ipynb"
        assert location["region"]["startLine"] == 5
        assert result["properties"]["cell"] == 4
        assert result["properties"]["cellLine"] == 1
        assert "cell 4, line 1" in result["message"]["text"]
        made, freed = result["relatedLocations"]
        assert freed["physicalLocation"]["region"]["startLine"] == 4
        assert (made["properties"], freed["properties"]) == ({"cell": 2, "cellLine": 3}, {"cell": 3, "cellLine": 1})

    def test_github_annotates_the_file_and_names_the_cell(self, here: Path) -> None:
        _, out, _ = check("--format", "github", "double_free.ipynb")
        [line] = out.splitlines()
        assert line.startswith("::error file=double_free.ipynb,title=OWN201 double-free::cell 4, line 1, column 1: ")
        assert "line=" not in line  # a line of the concatenated source is no line of the .ipynb file

    def test_standard_input_named_as_a_notebook(self, here: Path) -> None:
        data = Path("double_free.ipynb").read_bytes()
        result = invoke("check", "--no-cache", "--format", "concise", "--stdin-filename", "nb.ipynb", "-", input=data)
        assert result.stdout.startswith("nb.ipynb:cell 4:1:1: OWN201 ")


class TestCells:
    def test_a_clean_look_alike_has_no_finding(self, here: Path) -> None:
        status, out, _ = check("--format", "concise", "clean.ipynb")
        assert out == "All checked! 1 file, no findings.\n"
        assert status == 0

    def test_markdown_and_raw_cells_are_not_code(self) -> None:
        parsed = notebook.parse(
            notebook_json(("markdown", "runtime.cudaFree(p)\n"), ("code", "x = 1\n"), ("raw", "y = (\n"))
        )
        assert parsed.source == "x = 1\n"
        assert parsed.index.cell_of(1) == (2, 1)

    def test_magics_are_blanked_and_the_rest_is_checked(self, here: Path) -> None:
        status, out, _ = check("--format", "concise", "magics.ipynb")
        assert out.splitlines() == [
            "magics.ipynb:cell 6:2:1: OWN201 [double-free] `q` is freed a second time",
            "Found 1 finding (1 error) in 1 file.",
        ]
        assert status == 1

    def test_how_each_kind_of_escape_is_turned_into_python(self) -> None:
        cells = [
            ("code", "%matplotlib inline\n!pip install x\nobj?\n??obj\nfiles = !ls\nfor i in r:\n    %ls\n"),
            ("code", "%time y = f()\n%timeit -n 3 g()\ns = '''\n%kept\n'''\n!echo a \\\n  b\nz = 1  # why?\n"),
            ("code", "%%timeit -n 1\nh()\n"),
            ("code", "%%bash\necho 'open\n"),
        ]
        parsed = notebook.parse(notebook_json(*cells))
        assert parsed.source.splitlines() == [
            "",
            "",
            "",
            "",
            "files = 0",
            "for i in r:",
            "    pass",
            "0;    y = f()",
            "",
            "s = '''",
            "%kept",
            "'''",
            "",
            "",
            "z = 1  # why?",
            "",
            "h()",
            "",
            "",
        ]

    def test_line_map_back_to_cells(self) -> None:
        parsed = notebook.parse(notebook_json(("code", ["a = 1\n", "b = 2"]), ("markdown", "m"), ("code", "c = 3")))
        assert parsed.source == "a = 1\nb = 2\nc = 3\n"
        assert [parsed.index.cell_of(n) for n in (1, 2, 3)] == [(1, 1), (1, 2), (3, 1)]

    def test_a_notebook_of_another_language_has_no_code(self) -> None:
        metadata = {"kernelspec": {"language": "julia"}, "language_info": {"name": "julia"}}
        assert notebook.parse(notebook_json(("code", "x = [1 2]"), metadata=metadata)).source == ""


class TestBadNotebooks:
    def test_not_json_and_not_nbformat_4_are_one_line_errors_and_the_run_goes_on(self, here: Path) -> None:
        status, out, _ = check("--format", "concise", "not_json.ipynb", "nbformat3.ipynb", "double_free.ipynb")
        lines = out.splitlines()
        assert lines[0] == "error: nbformat3.ipynb: not a notebook of nbformat 4 (its nbformat is 3)"
        assert lines[1].startswith("error: not_json.ipynb: not a notebook: invalid JSON (")
        assert lines[2].startswith("double_free.ipynb:cell 4:1:1: OWN201 ")
        assert status == 1

    @pytest.mark.parametrize(
        ("text", "reason"),
        [
            ("[]", "not a notebook: the JSON is not an object"),
            ('{"nbformat": 4}', "not a notebook: it has no list of `cells`"),
            ('{"nbformat": 4, "cells": [3]}', "not a notebook: cell 1 is not an object"),
            ('{"nbformat": 4, "cells": [{"cell_type": "code", "source": 3}]}', "not a notebook: cell 1 has no text"),
            ('{"nbformat": "4", "cells": []}', "not a notebook of nbformat 4 (its nbformat is '4')"),
        ],
    )
    def test_each_malformation_is_named(self, text: str, reason: str) -> None:
        with pytest.raises(notebook.NotebookError) as raised:
            notebook.parse(text)
        assert str(raised.value) == reason


class TestDiscovery:
    def test_a_directory_includes_its_notebooks(self, here: Path) -> None:
        status, out, _ = check("--format", "concise", ".")
        assert "double_free.ipynb:cell 4:1:1: OWN201 [double-free] `p` is freed a second time" in out
        assert "magics.ipynb:cell 6:2:1: OWN201" in out
        assert "error: not_json.ipynb: not a notebook" in out
        assert status == 1

    def test_show_files_lists_notebooks(self, here: Path) -> None:
        _, out, _ = check("--show-files", ".")
        assert "double_free.ipynb: checked" in out.splitlines()

    def test_exclude_leaves_notebooks_out(self, here: Path) -> None:
        Path("ownlint.toml").write_text('exclude = ["*.ipynb"]\n', encoding="utf-8")
        status, out, _ = check("--format", "concise", ".")
        assert out == "All checked! 0 files, no findings.\n"
        assert status == 0


class TestFixes:
    """Fixes are not offered in notebooks: their edits are positions in the joined cells, not in the file."""

    TEXT = notebook_json(("code", 'import os\n\nos.environ["SYCL_DEVICE_FILTER"] = "level_zero:gpu"\n'))

    def test_fix_leaves_a_notebook_as_it_is_and_says_no_more(self, here: Path) -> None:
        Path("env.ipynb").write_text(self.TEXT, encoding="utf-8")
        _, out, _ = check("--format", "concise", "--fix", "env.ipynb")
        assert Path("env.ipynb").read_text(encoding="utf-8") == self.TEXT
        assert out.splitlines()[0].startswith("env.ipynb:cell 1:3:1: OWN601 ")
        assert "error" not in out and "Fixed" not in out

    def test_no_fix_in_text_json_or_diff(self, here: Path) -> None:
        Path("env.ipynb").write_text(self.TEXT, encoding="utf-8")
        _, out, _ = check("--format", "text", "env.ipynb")
        assert "--fix" not in out
        _, out, _ = check("--format", "json", "env.ipynb")
        assert json.loads(out)["findings"][0]["fix"] is None
        status, out, _ = check("--diff", "env.ipynb")
        assert (status, out) == (0, "")

    def test_fix_on_standard_input_passes_the_notebook_through(self, here: Path) -> None:
        result = invoke("check", "--no-cache", "--fix", "--stdin-filename", "env.ipynb", "-", input=self.TEXT.encode())
        assert result.stdout == self.TEXT
        assert "env.ipynb:cell 1:3:1" in result.stderr


class TestProjectModules:
    """A notebook given alone is checked against the project modules it imports, as a file is."""

    @pytest.fixture
    def project(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
        (tmp_path / "helpers.py").write_text(
            "from cuda.bindings import runtime\n\n\ndef release(p):\n    runtime.cudaFree(p)\n", encoding="utf-8"
        )
        text = notebook_json(
            (
                "code",
                "from cuda.bindings import runtime\nfrom helpers import release\n\nerr, p = runtime.cudaMalloc(64)",
            ),
            ("code", "release(p)"),
            ("code", "release(p)"),
        )
        (tmp_path / "uses_helper.ipynb").write_text(text, encoding="utf-8")
        monkeypatch.chdir(tmp_path)
        return text.encode()

    def test_given_as_a_file(self, project: bytes) -> None:
        _, out, _ = check("--format", "concise", "uses_helper.ipynb")
        assert out.startswith("uses_helper.ipynb:cell 3:1:1: OWN201 ")

    def test_given_on_standard_input(self, project: bytes) -> None:
        result = invoke(
            "check", "--no-cache", "--format", "concise", "--stdin-filename", "uses_helper.ipynb", "-", input=project
        )
        assert result.stdout.startswith("uses_helper.ipynb:cell 3:1:1: OWN201 ")


def test_suppressions_work_in_cells_and_unused_ones_name_the_cell(here: Path) -> None:
    Path("quiet.ipynb").write_text(
        notebook_json(
            ("code", "from cuda.bindings import runtime\nerr, p = runtime.cudaMalloc(8)"),
            ("markdown", "text"),
            (
                "code",
                "runtime.cudaFree(p)\nruntime.cudaFree(p)  # ownlint: ignore[OWN201]\nx = 1  # ownlint: ignore[OWN203]",
            ),
        ),
        encoding="utf-8",
    )
    _, out, _ = check("--format", "concise", "--report-unused-suppressions", "quiet.ipynb")
    assert out.splitlines()[0] == "quiet.ipynb:cell 3:3:8: unused suppression 'OWN203'"
    assert "OWN201" not in out


def test_no_import_reaches_a_notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A notebook is no module: `from mylib.helpers import release` is not `helpers.ipynb`'s `release`."""
    (tmp_path / "helpers.ipynb").write_text(
        notebook_json(("code", "from cuda.bindings import runtime\n\ndef release(p):\n    runtime.cudaFree(p)")),
        encoding="utf-8",
    )
    for module in ("helpers", "mylib.helpers"):
        (tmp_path / "user.py").write_text(
            f"from cuda.bindings import runtime\nfrom {module} import release\n\n\n"
            "def f():\n    err, p = runtime.cudaMalloc(8)\n    release(p)\n    release(p)\n",
            encoding="utf-8",
        )
        monkeypatch.chdir(tmp_path)
        status, out, _ = check("--format", "concise", ".")
        assert (status, out) == (0, "All checked! 2 files, no findings.\n"), module


def test_a_helper_defined_in_a_notebook_is_followed_there(here: Path) -> None:
    Path("local.ipynb").write_text(
        notebook_json(
            ("code", "from cuda.bindings import runtime\n\ndef release(p):\n    runtime.cudaFree(p)"),
            ("code", "err, p = runtime.cudaMalloc(8)\nrelease(p)\nrelease(p)"),
        ),
        encoding="utf-8",
    )
    _, out, _ = check("--format", "concise", "local.ipynb")
    assert out.splitlines()[0] == (
        "local.ipynb:cell 2:3:1: OWN201 [double-free] `p` is freed a second time (inside `release`)"
    )


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(
        st.one_of(st.none(), st.text(alphabet="ab =(){}[]'\"#%!?\\\n\t:", max_size=40)),
        max_size=6,
    )
)
def test_joining_keeps_every_line_of_every_code_cell_in_place(cells: list[str | None]) -> None:
    joined = notebook.join(cells)
    lines = joined.source.split("\n")[:-1] if joined.source else []
    expected = [
        (n, k)
        for n, text in enumerate(cells, 1)
        if text
        for k in range(1, len(text.removesuffix("\n").split("\n")) + 1)
    ]
    assert [joined.index.cell_of(line) for line in range(1, len(lines) + 1)] == expected
    for line, (n, k) in zip(lines, expected, strict=True):
        original = (cells[n - 1] or "").removesuffix("\n").split("\n")[k - 1]
        # a line is kept, or it was an escape: blanked (`pass` inside a block), or a statement magic's code kept
        assert line == original or line.strip() in ("", "pass") or line.startswith("0;") or line.endswith("0")


def test_json_places_find_a_cell_line_in_the_json_text_through_escapes() -> None:
    text = notebook_json(
        ("markdown", "m"),
        ("code", ['s = "\u00e9\\t"\n', "t = f(s)  # \U0001f600 ok\n", "u = 1"]),
        ("code", "v = 1\nw = 2"),
    )
    places = notebook.JsonPlaces(text)
    lines = text.split("\n")

    def found(cell: int, line: int, column: int) -> str:
        place = places.at(cell, line, column)
        assert place is not None
        json_line, json_column = place
        return lines[json_line - 1][json_column - 1 :]

    assert found(2, 1, 1).startswith('s = \\"\\u00e9')
    assert found(2, 1, 6).startswith("\\u00e9")
    assert found(2, 1, 7).startswith("\\\\t")
    assert found(2, 2, 15).startswith("ok")
    assert found(3, 2, 1).startswith("w = 2")
    assert places.at(1, 1, 1) is not None and places.at(4, 1, 1) is None


def test_a_notebook_given_alone_reads_the_modules_beside_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No configuration, no git: the project of a notebook is its directory, as for a module outside a package
    (not the directory above it, where another `helpers.py` lies)."""
    for name, body in (("other", "    runtime.cudaFree(p)\n"), ("here", "    pass\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "helpers.py").write_text(
            "from cuda.bindings import runtime\n\n\ndef release(p):\n" + body, encoding="utf-8"
        )
    (tmp_path / "here" / "nb.ipynb").write_text(
        notebook_json(
            ("code", "from cuda.bindings import runtime\nfrom helpers import release\nerr, p = runtime.cudaMalloc(8)"),
            ("code", "release(p)\nrelease(p)"),
        ),
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path / "here")
    assert check("--format", "concise", "nb.ipynb")[1] == "All checked! 1 file, no findings.\n"
