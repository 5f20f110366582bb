"""Nothing from an analysed file reaches the terminal (or the editor) raw.

Every control character (C0 but the tab, DEL, C1), the line and paragraph
separators and the bidi controls of "Trojan Source", taken from a path, a
message, a label or a quoted source line, is shown escaped the way `cat -v`
shows it in the text, concise and statistics outputs, on standard error and in
the language server's messages.
"""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import BUGGY, invoke
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from ownlint.api import RunResult
from ownlint.diagnostics import Diagnostic, FileError, Fix, Related, Span
from ownlint.lines import printable, split_lines
from ownlint.lsp import Positions, to_lsp_diagnostic
from ownlint.lsp_client import OneLine as _OneLine
from ownlint.render import concise, github, json_, statistics, text
from ownlint.report import make_console
from ownlint.suppress import UnusedSuppression

C0 = [chr(code) for code in range(0x20) if code != 0x09]
C1 = [chr(code) for code in range(0x80, 0xA0)]
SEPARATORS_AND_BIDI = ["\u2028", "\u2029", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))]
UNSAFE = [*C0, "\x7f", *C1, *SEPARATORS_AND_BIDI]


def escaped(char: str) -> str:
    """What `printable` shows for one unsafe character, written out by hand."""
    code = ord(char)
    if code < 0x20:
        return "^" + "@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_"[code]
    if code == 0x7F:
        return "^?"
    if 0x80 <= code < 0xA0:
        return "M-^" + "@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_"[code - 0x80]
    return f"<U+{code:04X}>"


def raw_in(output: str) -> list[str]:
    return sorted({repr(c) for c in output if c in UNSAFE and c != "\n"})


# --- the function -------------------------------------------------------


def test_every_unsafe_character_is_shown_like_cat_v() -> None:
    assert len(UNSAFE) == 31 + 1 + 32 + 11
    for char in UNSAFE:
        assert printable(f"a{char}b") == f"a{escaped(char)}b", repr(char)
    assert printable("\x00\x1b\x7f\x80\x9b\x9f") == "^@^[^?M-^@M-^[M-^_"
    assert printable("# \x1b]0;title\x07\x1b[31m") == "# ^[]0;title^G^[[31m"
    assert printable("one\ntwo\r\nthree") == "one^Jtwo^M^Jthree"
    assert printable("a\u202eb\u2066c") == "a<U+202E>b<U+2066>c"


def test_the_tab_and_ordinary_text_are_left_alone() -> None:
    for same in ("", "\t", "x = 1\t# ünïcödé ✓ 漢字 \u00a0 \u200b ^[ M-^@ <U+202E>", "[red]x[/]"):
        assert printable(same) == same


@given(st.text())
def test_the_result_is_safe_and_escaping_twice_changes_nothing(value: str) -> None:
    once = printable(value)
    assert not raw_in(once) and "\n" not in once
    assert printable(once) == once
    if not any(c in UNSAFE for c in value):
        assert once == value


# --- the renderers, with every unsafe character in every field -----------


def findings_with(char: str) -> RunResult:
    """A finding whose path, message, label, related message, help, fix and quoted source lines hold `char`."""
    path = f"pkg/a{char}.py"
    other = f"pkg/b{char}.py"
    in_line = char not in "\n\r"  # only these two end a line
    source = (
        f"p = mk()  # made {char if in_line else ''}\n"
        f"free(p)  # {char if in_line else ''}\n"
        f"free(p)  # again {char if in_line else ''} there\n"
    )
    diagnostic = Diagnostic(
        code="OWN201",
        path=path,
        span=Span(3, 1, 3, 8),
        message=f"`p{char}` is freed a second time",
        related=(
            Related(path, Span(2, 1, 2, 8), f"first freed{char} here"),
            Related(other, Span(9, 1, 9, 2), f"made{char} elsewhere"),
        ),
        fix=Fix("safe", f"remove{char} it", ()),
        help=f"free it{char} once",
        label=f"freed{char} again",
    )
    return RunResult(
        findings=[diagnostic],
        errors=[FileError(f"bad{char}.py", f"not UTF-8{char}: x"), FileError(other, f"too big{char}", "budget")],
        files=[path, other, f"bad{char}.py"],
        seconds=0.1,
        sources={path: source},
        unused_suppressions=[UnusedSuppression(path, 1, 10, f"OWN2{char}03")],
    )


def plain_text(run: RunResult, console: Console | None = None) -> str:
    out = io.StringIO()
    if console is None:
        console = Console(file=out, color_system=None, no_color=True, highlight=False, markup=False, soft_wrap=True)
    else:
        console.file = out
    text.render(run, console, show_unused=True)
    return out.getvalue()


@pytest.mark.parametrize("char", UNSAFE, ids=lambda c: f"U+{ord(c):04X}")
def test_text_output(char: str) -> None:
    output = plain_text(findings_with(char))
    assert not raw_in(output), output
    shown = escaped(char)
    for expected in (
        f"error: bad{shown}.py: not UTF-8{shown}: x",
        f"warning: pkg/b{shown}.py: too big{shown}",
        f"error[OWN201]: `p{shown}` is freed a second time",
        f" --> pkg/a{shown}.py:3:1",
        f" first freed{shown} here",
        f"::: pkg/b{shown}.py:9:1: made{shown} elsewhere",
        f"^^^^^^^ freed{shown} again",
        f"= help: free it{shown} once",
        f"= help: remove{shown} it: `ownlint check --fix` does it",
        f"pkg/a{shown}.py:1:10: unused suppression 'OWN2{shown}03'",
    ):
        assert expected in output, (expected, output)
    if char not in "\n\r":
        assert f"3 | free(p)  # again {shown} there\n" in output
    assert output.count("\n") == plain_text(findings_with("x")).count("\n")  # no line more than with a plain letter


@pytest.mark.parametrize("char", UNSAFE, ids=lambda c: f"U+{ord(c):04X}")
def test_concise_and_statistics_output(char: str) -> None:
    run = findings_with(char)
    shown = escaped(char)
    output = concise.render(run, show_unused=True)
    assert not raw_in(output), output
    assert output.splitlines() == [
        f"error: bad{shown}.py: not UTF-8{shown}: x",
        f"warning: pkg/b{shown}.py: too big{shown}",
        f"pkg/a{shown}.py:3:1: OWN201 [double-free] `p{shown}` is freed a second time",
        f"pkg/a{shown}.py:1:10: unused suppression 'OWN2{shown}03'",
        "Found 1 finding (1 error) in 1 file. 1 path could not be checked. 1 function was analysed only in part."
        " 1 suppression silenced nothing.",
    ]
    counted = statistics.render(run)
    assert not raw_in(counted)
    assert counted.splitlines()[1:] == output.splitlines()[:2]


@pytest.mark.parametrize("char", UNSAFE, ids=lambda c: f"U+{ord(c):04X}")
def test_language_server_messages(char: str) -> None:
    run = findings_with(char)
    diagnostic = run.findings[0]
    source = run.sources[diagnostic.path]
    shown = to_lsp_diagnostic(diagnostic, Positions(split_lines(source), "utf-16"), diagnostic.path)
    first, *rest = shown.message.split("\n")  # the message, then the rule's `help:` advice
    assert first == f"`p{escaped(char)}` is freed a second time"
    assert [line.startswith("help: ") for line in rest] == [True] * len(rest)
    assert [r.message for r in shown.related_information or []] == [
        f"first freed{escaped(char)} here",
        f"made{escaped(char)} elsewhere",
    ]


def test_language_server_log_lines() -> None:
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "bad \x1b]0;t\x07 input\u202e", None, None)
    assert _OneLine().format(record) == "ownlint lsp: error: bad ^[]0;t^G input<U+202E>"


def test_language_server_problem_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from ownlint import lsp

    server = lsp.OwnlintServer()
    shown: list[str] = []
    monkeypatch.setattr(server, "_show", lambda message, kind: shown.append(message))
    server._report_problem("file:///x.py", "pyproject\x1b[31m.toml: bad\nvalue")
    assert shown == ["ownlint: pyproject^[[31m.toml: bad^Jvalue"]


def test_the_underline_stays_under_the_span_of_an_escaped_line() -> None:
    source = 'x = "\x1b[31m\x9b\u202e"; free(p)\n'
    diagnostic = Diagnostic("OWN201", "a.py", Span(1, 16, 1, 23), "twice", label="here")
    run = RunResult([diagnostic], [], ["a.py"], 0.1, sources={"a.py": source})
    lines = plain_text(run).splitlines()
    quoted = next(line for line in lines if line.startswith("1 |"))
    underline = lines[lines.index(quoted) + 1]
    assert quoted == '1 | x = "^[[31mM-^[<U+202E>"; free(p)'
    assert underline == "  | " + " " * (quoted.index("free(p)") - len("1 | ")) + "^^^^^^^ here"
    assert underline.index("^") == quoted.index("free(p)")


def test_rich_markup_in_the_file_is_shown_as_it_is() -> None:
    source = "free(p)  # [red]x[/] [bold]y[/bold] :smile: [link=http://x]z[/link]\n"
    diagnostic = Diagnostic("OWN201", "[b]a[/b].py", Span(1, 1, 1, 8), "`[red]p[/]` twice", label="[/]")
    run = RunResult([diagnostic], [], ["a.py"], 0.1, sources={"[b]a[/b].py": source})
    for console in (
        make_console(io.StringIO()),
        # even a console that would read markup and emoji gets `Text`, never markup
        Console(color_system=None, markup=True, emoji=True, highlight=True, soft_wrap=True),
    ):
        output = plain_text(run, console)
        assert "1 | free(p)  # [red]x[/] [bold]y[/bold] :smile: [link=http://x]z[/link]\n" in output
        assert "error[OWN201]: `[red]p[/]` twice\n" in output
        assert "--> [b]a[/b].py:1:1\n" in output
        assert "^^^^^^^ [/]\n" in output


@pytest.mark.parametrize("char", UNSAFE, ids=lambda c: f"U+{ord(c):04X}")
def test_json_escapes_in_its_own_syntax(char: str) -> None:
    output = json_.render(findings_with(char), show_unused=True)
    assert not raw_in(output)
    assert json.loads(output)["findings"][0]["message"] == f"`p{char}` is freed a second time"  # not cat -v


def test_github_escapes_percent_and_line_ends() -> None:
    line = github.finding_line(Diagnostic("OWN201", "a.py", Span(1, 1, 1, 2), "100%\r\nbad"))
    assert line.endswith("::100%25%0D%0Abad") and "\n" not in line


@pytest.mark.parametrize("char", [c for c in UNSAFE if c not in "\r\n"], ids=lambda c: f"U+{ord(c):04X}")
def test_github_messages_show_control_characters_escaped(char: str) -> None:
    line = github.finding_line(Diagnostic("OWN201", "a.py", Span(1, 1, 1, 2), f"`p{char}` is freed"))
    assert char not in line
    assert line.endswith(f"::`p{printable(char)}` is freed")


# --- end to end ---------------------------------------------------------

HOSTILE = "# \x1b]0;title\x07\x1b[31m"
SHOWN = "# ^[]0;title^G^[[31m"


def hostile_module() -> str:
    assert BUGGY.endswith("    zeMemFree(hctx, host)\n")
    return BUGGY[: -len("\n")] + f"  {HOSTILE}\n"


@pytest.mark.parametrize("output_format", ["text", "concise"])
def test_cli_escapes_the_hostile_comment_and_path(
    output_format: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "alloc.py").write_text(hostile_module(), encoding="utf-8")
    (tmp_path / "bad\x1b]0;x\x07.py").write_bytes(b"\xff\n")
    result = invoke("check", "--no-cache", "--jobs", "1", "--format", output_format, ".")
    assert result.exit_code == 1, result.stderr
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "error: bad^[]0;x^G.py: " in result.stdout
    assert "alloc.py:10:5" in result.stdout
    if output_format == "text":
        assert f"10 |     zeMemFree(hctx, host)  {SHOWN}\n" in result.stdout
        assert "   |     ^^^^^^^^^^^^^^^^^^^^^ freed again here\n" in result.stdout


def test_cli_every_character_python_allows_in_a_comment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    comment = "# " + "".join(c for c in UNSAFE if c not in "\x00\n\r")  # NUL is refused, \n and \r end the line
    (tmp_path / "alloc.py").write_text(BUGGY[: -len("\n")] + f"  {comment}\n", encoding="utf-8")
    result = invoke("check", "--no-cache", "--jobs", "1", "--format", "text", "alloc.py")
    assert result.exit_code == 1, result.stderr
    assert not raw_in(result.stdout)
    assert f"10 |     zeMemFree(hctx, host)  {printable(comment)}\n" in result.stdout
    assert "^A^B^C^D^E^F^G^H^K^L^N" in result.stdout and "^?M-^@M-^A" in result.stdout


def test_cli_text_through_a_pipe_and_errors_on_stderr(tmp_path: Path) -> None:
    (tmp_path / "alloc.py").write_text(hostile_module(), encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "ownlint", "check", "--no-cache", "--format", "text", "alloc.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 1, checked.stderr
    assert f"10 |     zeMemFree(hctx, host)  {SHOWN}\n" in checked.stdout
    assert "\x1b" not in checked.stdout + checked.stderr
    failed = invoke("check", "--config", str(tmp_path / "no\x1b[2J.toml"), str(tmp_path / "alloc.py"))
    assert failed.exit_code == 2
    assert failed.stderr.startswith("ownlint: error: ") and failed.stderr.count("\n") == 1
    assert "no^[[2J.toml" in failed.stderr and "\x1b" not in failed.stderr
