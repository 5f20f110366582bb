"""`--fix` / `--unsafe-fixes`, and the edit machinery under them."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ownlint.cli import cli
from ownlint.diagnostics import Diagnostic, Edit, Fix, Span
from ownlint.fixes import apply_fixes, encode_like

SAFE = 'os.environ["SYCL_DEVICE_FILTER"] = "level_zero:gpu"\n'
UNSAFE = 'os.environ["SYCL_DEVICE_FILTER"] = "level_zero:gpu:1"\n'
SOURCE = "import os\n\n" + SAFE + UNSAFE


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)


def invoke(*args: str, stdin: bytes | None = None) -> Result:
    if "mix_stderr" in inspect.signature(CliRunner).parameters:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    else:
        runner = CliRunner()
    return runner.invoke(cli, list(args), input=stdin, catch_exceptions=False)


class TestCommandLine:
    def test_only_safe_fixes_by_default(self, tmp_path: Path) -> None:
        path = tmp_path / "env.py"
        path.write_text(SOURCE, encoding="utf-8")
        result = invoke("check", "--fix", "--format", "concise", "env.py")
        assert path.read_text(encoding="utf-8") == (
            'import os\n\nos.environ["ONEAPI_DEVICE_SELECTOR"] = "level_zero:gpu"\n' + UNSAFE
        )
        assert result.exit_code == 1  # the unsafe one is left
        assert result.stdout.splitlines() == [
            (
                "env.py:4:1: OWN601 [deprecated-device-filter] `SYCL_DEVICE_FILTER` is set; "
                "it is deprecated and replaced by `ONEAPI_DEVICE_SELECTOR`"
            ),
            "Fixed 1 finding. Found 1 finding (1 warning) in 1 file.",
        ]

    def test_unsafe_fixes_too(self, tmp_path: Path) -> None:
        path = tmp_path / "env.py"
        path.write_text(SOURCE, encoding="utf-8")
        result = invoke("check", "--fix", "--unsafe-fixes", "env.py")
        assert path.read_text(encoding="utf-8") == (
            'import os\n\nos.environ["ONEAPI_DEVICE_SELECTOR"] = "level_zero:gpu"\n'
            'os.environ["ONEAPI_DEVICE_SELECTOR"] = "level_zero:1"\n'
        )
        assert result.exit_code == 0
        assert result.stdout == "Fixed 2 findings. All checked! 1 file, no findings.\n"

    def test_without_fix_nothing_is_written_and_the_text_says_how(self, tmp_path: Path) -> None:
        path = tmp_path / "env.py"
        path.write_text(SOURCE, encoding="utf-8")
        result = invoke("check", "env.py")
        assert path.read_text(encoding="utf-8") == SOURCE
        assert (
            "= help: use `ONEAPI_DEVICE_SELECTOR` with the equivalent selector: `ownlint check --fix` does it"
            in result.stdout
        )
        assert "`ownlint check --fix --unsafe-fixes` does it" in result.stdout

    def test_stdin_fix_writes_the_fixed_source_to_stdout(self, tmp_path: Path) -> None:
        (tmp_path / "env.py").write_text("on disk, untouched\n", encoding="utf-8")
        result = invoke("check", "--fix", "--format", "concise", "--stdin-filename", "env.py", stdin=SOURCE.encode())
        assert result.stdout == 'import os\n\nos.environ["ONEAPI_DEVICE_SELECTOR"] = "level_zero:gpu"\n' + UNSAFE
        assert result.stderr.splitlines()[-1] == "Fixed 1 finding. Found 1 finding (1 warning) in 1 file."
        assert result.exit_code == 1
        assert (tmp_path / "env.py").read_text(encoding="utf-8") == "on disk, untouched\n"

    def test_stdin_fix_keeps_crlf_and_bom(self) -> None:
        data = ("\ufeff" + SOURCE.replace("\n", "\r\n")).encode("utf-8")
        result = invoke("check", "--fix", "--unsafe-fixes", "--stdin-filename", "env.py", stdin=data)
        assert result.stdout_bytes == data.replace(b"SYCL_DEVICE_FILTER", b"ONEAPI_DEVICE_SELECTOR").replace(
            b"level_zero:gpu:1", b"level_zero:1"
        )
        assert result.exit_code == 0

    def test_files_keep_bom_and_line_ends(self, tmp_path: Path) -> None:
        path = tmp_path / "env.py"
        path.write_bytes(("\ufeff" + SOURCE.replace("\n", "\r\n")).encode("utf-8"))
        assert invoke("check", "--fix", "env.py").exit_code == 1
        assert path.read_bytes().startswith(b'\xef\xbb\xbfimport os\r\n\r\nos.environ["ONEAPI_DEVICE_SELECTOR"]')
        assert path.read_bytes().endswith(b'"level_zero:gpu:1"\r\n')

    def test_stdin_that_cannot_be_read_comes_back_unchanged(self) -> None:
        result = invoke("check", "--fix", "--format", "concise", "--stdin-filename", "x.py", stdin=b"\xff")
        assert result.stdout_bytes == b"\xff"
        assert result.stderr.startswith("error: x.py: not UTF-8")
        assert result.exit_code == 1

    def test_unsafe_fixes_needs_fix(self) -> None:
        result = invoke("check", "--unsafe-fixes")
        assert result.exit_code == 2
        assert result.stderr == "ownlint: error: --unsafe-fixes only applies together with --fix\n"


def diagnostic(line: int, *edits: tuple[int, int, int, int, str], applicability: str = "safe") -> Diagnostic:
    fix = Fix(applicability, "fix it", tuple(Edit(Span(a, b, c, d), text) for a, b, c, d, text in edits))
    return Diagnostic("OWN601", "a.py", Span(line, 1, line, 2), "m", fix=fix)


class TestApplyFixes:
    def test_bottom_up_several_edits_on_a_line(self) -> None:
        fixed = apply_fixes("abc def ghi\n", [diagnostic(1, (1, 1, 1, 4, "A"), (1, 9, 1, 12, "GHI!"))])
        assert (fixed.source, fixed.applied) == ("A def GHI!\n", 1)

    def test_overlapping_fix_waits_for_the_next_round(self) -> None:
        first = diagnostic(1, (1, 1, 1, 5, "X"))
        second = diagnostic(1, (1, 3, 1, 7, "Y"))
        later = diagnostic(2, (2, 1, 2, 2, "Z"))
        fixed = apply_fixes("abcdefg\nq\n", [second, later, first])
        assert (fixed.source, fixed.applied) == ("Xefg\nZ\n", 2)

    def test_same_fix_from_two_findings_counts_twice_applies_once(self) -> None:
        edit = (1, 1, 1, 2, "Z")
        fixed = apply_fixes("a\n", [diagnostic(1, edit), diagnostic(1, edit)])
        assert (fixed.source, fixed.applied) == ("Z\n", 2)

    def test_two_insertions_at_one_place_conflict(self) -> None:
        fixed = apply_fixes("ab\n", [diagnostic(1, (1, 2, 1, 2, "X")), diagnostic(1, (1, 2, 1, 2, "Y"))])
        assert (fixed.source, fixed.applied) == ("aXb\n", 1)

    def test_unsafe_only_when_asked(self) -> None:
        unsafe = diagnostic(1, (1, 1, 1, 2, "Z"), applicability="unsafe")
        assert apply_fixes("a\n", [unsafe]).applied == 0
        assert apply_fixes("a\n", [unsafe], unsafe=True).source == "Z\n"

    def test_edit_outside_the_source_is_skipped(self) -> None:
        assert apply_fixes("a\n", [diagnostic(1, (1, 1, 1, 9, "Z"))]).applied == 0
        assert apply_fixes("a\n", [diagnostic(1, (5, 1, 5, 1, "Z"))]).applied == 0
        assert apply_fixes("a\n", [diagnostic(1, (2, 1, 2, 1, "z\n"))]).source == "a\nz\n"

    def test_lines_are_counted_as_the_parser_counts_them(self) -> None:
        # a form feed is not a line end for Python, though str.splitlines says it is
        fixed = apply_fixes("a\x0cb\r\nc\rd\n", [diagnostic(3, (3, 1, 3, 2, "D"))])
        assert fixed.source == "a\x0cb\r\nc\rD\n"


def test_fixed_text_is_encoded_as_the_source_was() -> None:
    assert encode_like(b"\xef\xbb\xbfx = 1\n", "y = 2\n") == b"\xef\xbb\xbfy = 2\n"
    assert encode_like(b"# coding: latin-1\n", "# coding: latin-1\ns = '\xe9'\n") == b"# coding: latin-1\ns = '\xe9'\n"
    assert encode_like(b"# coding: latin-1\n", "\u4e00") is None
    assert encode_like(b"x = 1\n", "\u4e00") == "\u4e00".encode()
