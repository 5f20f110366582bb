"""Bad input: every file or configuration a user can throw at `ownlint check`.

Each case builds a small tree in a temporary directory: the bad file, and next
to it `good.py`, whose double free must still be reported (one bad file never
stops the run). The case is run as the real program (`python -m ownlint check
--format json --no-cache`, in a subprocess: a crash, a hang or a traceback
shows up as it would for a user) or, where that is safe, in process through
click's CliRunner, with the same assertions (the analysis runs in a worker
process either way). The cases that may crash or hang the parser run as
the real program only; of the others, one of each kind (a file, a special
file, a link, the configuration, a model) runs both ways (`BOTH_WAYS`). Every run must end with the documented
status (0 clean, 1 findings or unreadable files, 2 usage, configuration or
model errors), with nothing like a traceback on standard error.

Bad-input files mention `zeMemFree` (most hold their own double free), so the
prefilter selects them and the parser and the analysis really see them.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import forked
import libcst as cst
import pytest
from click.testing import CliRunner

from ownlint import api, runner
from ownlint.cli import cli
from ownlint.config import default_config

GOOD = "from ze import *\n\n\ndef good(ctx, p):\n    zeMemFree(ctx, p)\n    zeMemFree(ctx, p)\n"
GOOD_FINDING = ("good.py", 6, 5, "OWN201")
DOUBLE_FREE = "def g(ctx, p):\n    zeMemFree(ctx, p)\n    zeMemFree(ctx, p)\n"  # the finding: its line 3, column 5

Finding = tuple[str, int, int, str]  # (path, line, column, code)


# ---------------------------------------------------------------- running


@dataclass
class Outcome:
    status: int
    stdout: str
    stderr: str
    document: dict | None = None  # the JSON report, when standard output holds one
    exception: BaseException | None = None  # in process only: what escaped the command, if anything

    @property
    def findings(self) -> set[Finding]:
        assert self.document is not None, (self.status, self.stdout, self.stderr)
        return {(f["path"], f["line"], f["column"], f["code"]) for f in self.document["findings"]}

    @property
    def errors(self) -> list[tuple[str, str]]:
        assert self.document is not None, (self.status, self.stdout, self.stderr)
        return [(e["path"], e["message"]) for e in self.document["errors"]]


def _parse(stdout: str) -> dict | None:
    try:
        document = json.loads(stdout)
    except ValueError:
        return None
    return document if isinstance(document, dict) else None


def run_subprocess(cwd: Path, args: list[str], timeout: float = 120) -> Outcome:
    """The real program in `cwd`: `python -m ownlint check --format json --no-cache ARGS`."""
    proc = forked.ownlint("check", "--format", "json", "--no-cache", *args, cwd=cwd, timeout=timeout, text=False)
    stdout = proc.stdout.decode("utf-8", "replace")
    stderr = proc.stderr.decode("utf-8", "replace")
    return Outcome(proc.returncode, stdout, stderr, _parse(stdout))


def run_in_process(cwd: Path, args: list[str], output_format: str = "json") -> Outcome:
    """The same command through click's CliRunner (the test's working directory must be `cwd`)."""
    assert Path.cwd().resolve() == cwd.resolve()
    if "mix_stderr" in inspect.signature(CliRunner).parameters:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]  # click < 8.2 mixes them by default
    else:
        runner = CliRunner()
    result = runner.invoke(cli, ["check", "--format", output_format, "--no-cache", *args], catch_exceptions=True)
    escaped = result.exception if not isinstance(result.exception, SystemExit) else None
    return Outcome(result.exit_code, result.stdout, result.stderr, _parse(result.stdout), escaped)


def assert_no_traceback(outcome: Outcome) -> None:
    assert outcome.exception is None, f"escaped: {outcome.exception!r}"
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert "Traceback" not in outcome.stdout, outcome.stdout
    assert outcome.status >= 0, f"killed by signal {-outcome.status} (stdout {outcome.stdout[:300]!r})"
    assert outcome.status in (0, 1, 2), outcome.status


def one_line_error(outcome: Outcome) -> str:
    """The reason of a status-2 run: one `ownlint: error: ...` line on standard error, nothing on standard output."""
    assert outcome.status == 2, (outcome.status, outcome.stdout, outcome.stderr)
    assert outcome.stdout == ""
    assert outcome.stderr.startswith("ownlint: error: "), outcome.stderr
    assert outcome.stderr.count("\n") == 1, outcome.stderr
    return outcome.stderr.strip().removeprefix("ownlint: error: ")


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


# ---------------------------------------------------------------- the cases


@dataclass
class Expect:
    """What a run over the tree must give. `errors` must match exactly (by path, and a fragment of each
    message); a path in `either` may have any one-line error entry, an OWN001, or else exactly its findings."""

    status: int = 1
    args: list[str] = field(default_factory=lambda: ["."])
    findings: set[Finding] = field(default_factory=set)  # besides good.py's, which is always expected
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, message fragment), exactly these paths
    either: dict[str, set[Finding]] = field(default_factory=dict)  # path: an error entry or OWN001, or these findings
    error_words: tuple[str, ...] = ()  # an error entry for an `either` path must use one of these words
    config_error: tuple[str, ...] = ()  # status 2: fragments of the one-line reason
    timeout: float = 120


Setup = Callable[[Path], Expect]


def case_not_utf8(tmp: Path) -> Expect:
    write(tmp / "bad.py", b'from ze import *\ns = "caf\xe9"\n\n\n' + DOUBLE_FREE.encode())
    return Expect(errors=[("bad.py", "not UTF-8")])


def case_latin1_declared(tmp: Path) -> Expect:
    # a valid latin-1 file that says so is checked as Python reads it; the column counts characters
    source = '# -*- coding: latin-1 -*-\nfrom ze import *\n\n\ndef g(ctx, p):\n    zeMemFree(ctx, p)\n    s = "caf\xe9\xe9"; zeMemFree(ctx, p)\n'
    write(tmp / "latin.py", source.encode("latin-1"))
    return Expect(findings={("latin.py", 7, 18, "OWN201")})


def case_bad_coding_declaration(tmp: Path) -> Expect:
    write(tmp / "bad.py", "# -*- coding: klingon -*-\nfrom ze import *\n\n\n" + DOUBLE_FREE)
    return Expect(errors=[("bad.py", "klingon")])


def case_declared_ascii_with_high_byte(tmp: Path) -> Expect:
    write(tmp / "bad.py", b'# coding: ascii\nfrom ze import *\ns = "\xc3\xa9"\n\n\n' + DOUBLE_FREE.encode())
    return Expect(errors=[("bad.py", "ascii")])


def case_utf8_bom(tmp: Path) -> Expect:
    # the finding on line 1: its column must not count the byte order mark
    write(tmp / "bom.py", "\ufeffdef g(ctx, p): zeMemFree(ctx, p); zeMemFree(ctx, p)\n")
    return Expect(findings={("bom.py", 1, 35, "OWN201")})


def case_crlf(tmp: Path) -> Expect:
    source = 'from ze import *\nDOC = """one\ntwo\n"""\n\n\n' + DOUBLE_FREE
    write(tmp / "crlf.py", source.replace("\n", "\r\n").encode())
    return Expect(findings={("crlf.py", 9, 5, "OWN201")})


def case_cr_only(tmp: Path) -> Expect:
    source = 'from ze import *\nDOC = """one\ntwo\n"""\n\n\n' + DOUBLE_FREE
    write(tmp / "cr.py", source.replace("\n", "\r").encode())
    return Expect(findings={("cr.py", 9, 5, "OWN201")})


def case_nul_bytes(tmp: Path) -> Expect:
    write(tmp / "nul.py", b"from ze import *\nx = 1\x00\n\n\n" + DOUBLE_FREE.encode())
    return Expect(errors=[("nul.py", "NUL")])


def case_empty_file(tmp: Path) -> Expect:
    write(tmp / "empty.py", b"")
    write(tmp / "bom_only.py", b"\xef\xbb\xbf")
    return Expect()


def case_missing_path(tmp: Path) -> Expect:
    return Expect(
        args=["missing.py", "good.py", "missing_dir/"],
        errors=[("missing.py", "no such file"), ("missing_dir", "no such file")],
    )


def case_fifo(tmp: Path) -> Expect:
    os.mkfifo(tmp / "pipe.py")  # found under "." it is skipped; named, it is reported (and never read)
    return Expect(args=[".", "pipe.py"], errors=[("pipe.py", "not a regular file")])


def case_unreadable(tmp: Path) -> Expect:
    secret = write(tmp / "secret.py", "from ze import *\n\n\n" + DOUBLE_FREE)
    secret.chmod(0)
    if os.access(secret, os.R_OK):
        secret.chmod(0o644)
        pytest.skip("the file stays readable (running as root)")
    return Expect(errors=[("secret.py", "cannot read")])


def case_symlink_directory_loop(tmp: Path) -> Expect:
    write(tmp / "pkg" / "mod.py", "from ze import *\n\n\n" + DOUBLE_FREE)
    (tmp / "pkg" / "again").symlink_to("..", target_is_directory=True)
    (tmp / "pkg" / "self").symlink_to(".", target_is_directory=True)
    return Expect(findings={("pkg/mod.py", 6, 5, "OWN201")})


def case_symlink_file_loop(tmp: Path) -> Expect:
    # a.py -> b.py -> a.py, and self.py -> self.py: a walk that asks whether they are files gets ELOOP
    (tmp / "a.py").symlink_to("b.py")
    (tmp / "b.py").symlink_to("a.py")
    (tmp / "self.py").symlink_to("self.py")
    return Expect(either={"a.py": set(), "b.py": set(), "self.py": set()})


def case_symlink_loop_named(tmp: Path) -> Expect:
    (tmp / "self.py").symlink_to("self.py")
    return Expect(args=["self.py", "good.py"], errors=[("self.py", "")])


def case_directory_named_x_py(tmp: Path) -> Expect:
    write(tmp / "x.py" / "inner.py", "from ze import *\n\n\n" + DOUBLE_FREE)
    return Expect(args=[".", "x.py"], findings={("x.py/inner.py", 6, 5, "OWN201")})


def case_newer_python_syntax(tmp: Path) -> Expect:
    # Python 3.12: a parser that knows it checks the file (its double free, line 11), one that does not says OWN001
    write(tmp / "new.py", "from ze import *\n\ntype X = int\n\n\ndef f[T](x: T): ...\n\n\n" + DOUBLE_FREE)
    return Expect(either={"new.py": {("new.py", 11, 5, "OWN201")}})


def case_ten_megabytes(tmp: Path) -> Expect:
    # a generated file: a header, 10 MB of generated lines, and one double free at the end
    head = "from ze import *\n\n"
    filler = "# generated: the quick brown fox jumps over the lazy dog 0123456789 abcdefghijklmnopqrstuvwxyz\n"
    count = 10 * 1024 * 1024 // len(filler) + 1
    write(tmp / "huge.py", head + filler * count + "\n\n" + DOUBLE_FREE)
    line = 2 + count + 2 + 3
    # if ownlint ever rejects a file for its size, the reason must say so
    return Expect(
        either={"huge.py": {("huge.py", line, 5, "OWN201")}},
        error_words=("MB", "bytes", "large", "size"),
        timeout=600,
    )


def deep(expression: str, timeout: float = 120) -> Setup:
    def setup(tmp: Path) -> Expect:
        write(tmp / "deep.py", f"from ze import *\n\nx = {expression}\n\n\n" + DOUBLE_FREE)
        return Expect(either={"deep.py": {("deep.py", 8, 5, "OWN201")}}, timeout=timeout)

    return setup


def case_broken_pyproject(tmp: Path) -> Expect:
    write(tmp / "pyproject.toml", '[tool.ownlint\nselect = ["OWN"]\n')
    return Expect(status=2, config_error=("pyproject.toml", "TOML"))


def bad_model(model: str | None, *fragments: str) -> Setup:
    def setup(tmp: Path) -> Expect:
        write(tmp / "pyproject.toml", '[tool.ownlint]\nmodels = ["mine.toml"]\n')
        if model is not None:
            write(tmp / "mine.toml", model)
        return Expect(status=2, config_error=fragments)

    return setup


SEGFAULT = (
    "libcst's native parser overflows the C stack on deeply nested expressions (about 3,000 levels) and the "
    "process dies with SIGSEGV: no output at all, status -11, good.py's finding lost"
)

LONG_ATTRIBUTE_CHAIN = (
    "the guard against lines too dense for libcst counts operators, not dots: on `a.b.b...` 10,000 long the "
    "native parser runs for about 100 s, then overflows the C stack (SIGSEGV, no output; 15 s allowed here)"
)
FILE_LOOP = (
    "discovery._walk calls entry.is_file() on a symbolic link loop (a.py -> b.py -> a.py): OSError ELOOP "
    "escapes as a traceback with status 1"
)

CASES: list[tuple[str, Setup, bool, str | None]] = [
    # (id, setup, safe in process, xfail reason)
    ("not_utf8", case_not_utf8, True, None),
    ("latin1_declared", case_latin1_declared, True, None),
    ("bad_coding_declaration", case_bad_coding_declaration, True, None),
    ("declared_ascii_with_high_byte", case_declared_ascii_with_high_byte, True, None),
    ("utf8_bom", case_utf8_bom, True, None),
    ("crlf", case_crlf, True, None),
    ("cr_only", case_cr_only, True, None),
    ("nul_bytes", case_nul_bytes, True, None),
    ("empty_file", case_empty_file, True, None),
    ("ten_megabytes", case_ten_megabytes, False, None),
    ("nested_parens_10000", deep("(" * 10_000 + "1" + ")" * 10_000), False, None),
    ("addition_chain_10000", deep(" + ".join(["1"] * 10_000), timeout=60), False, None),
    ("attribute_chain_10000", deep("a" + ".b" * 10_000, timeout=15), False, None),
    ("unary_minus_5000", deep("-" * 5_000 + "1"), False, None),
    ("newer_python_syntax", case_newer_python_syntax, True, None),
    ("unreadable", case_unreadable, True, None),
    ("symlink_directory_loop", case_symlink_directory_loop, True, None),
    ("symlink_file_loop", case_symlink_file_loop, True, None),
    ("symlink_loop_named", case_symlink_loop_named, True, None),
    ("directory_named_x_py", case_directory_named_x_py, True, None),
    ("fifo", case_fifo, True, None),
    ("broken_pyproject", case_broken_pyproject, True, None),
    ("model_unknown_key", bad_model('[model]\nname = "mine"\nbogus = 1\n', "mine.toml", "bogus"), True, None),
    (
        "model_wrong_type",
        bad_model(
            '[model]\nname = "mine"\n[[release]]\nfunctions = ["myFree"]\nhandle = "zero"\n', "mine.toml", "handle"
        ),
        True,
        None,
    ),
    ("model_invalid_toml", bad_model("[model\n", "mine.toml", "TOML"), True, None),
    ("model_missing", bad_model(None, "pyproject.toml", "models", "mine.toml"), True, None),
    ("missing_path", case_missing_path, True, None),
]


# cases safe in process that run as the real program too: one of each kind (each
# subprocess costs a fresh interpreter, and these ran both ways once, for 40 cases)
BOTH_WAYS = {"not_utf8", "nul_bytes", "fifo", "symlink_file_loop", "broken_pyproject", "model_invalid_toml"}


def _params() -> list[object]:
    out = []
    for name, setup, in_process, xfail in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
        if not in_process or name in BOTH_WAYS:
            out.append(pytest.param(setup, "subprocess", id=f"{name}-subprocess", marks=marks))
        if in_process:
            out.append(pytest.param(setup, "in_process", id=f"{name}-in_process", marks=marks))
    return out


@pytest.mark.parametrize(("setup", "how"), _params())
def test_bad_input(setup: Setup, how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "good.py", GOOD)
    expect = setup(tmp_path)
    if how == "subprocess":
        outcome = run_subprocess(tmp_path, expect.args, timeout=expect.timeout)
    else:
        outcome = run_in_process(tmp_path, expect.args)
    assert_no_traceback(outcome)

    if expect.config_error:
        reason = one_line_error(outcome)
        for fragment in expect.config_error:
            assert fragment in reason, reason
        return

    assert outcome.document is not None, (outcome.status, outcome.stdout[:500], outcome.stderr[:500])
    assert outcome.status == expect.status, (outcome.status, outcome.stderr)
    assert outcome.stderr == ""
    findings, errors = outcome.findings, outcome.errors
    assert GOOD_FINDING in findings, "good.py must still be checked"
    for path, message in errors:
        assert "\n" not in message and not message.startswith("internal error"), (path, message)

    for path, alternative in expect.either.items():
        mine = {f for f in findings if f[0] == path}
        reasons = [m for p, m in errors if p == path]
        own001 = {f for f in mine if f[3] == "OWN001"}
        assert reasons or own001 or mine == alternative, (path, mine, errors)
        for reason in reasons:
            assert not expect.error_words or any(w in reason for w in expect.error_words), (path, reason)
        findings = {f for f in findings if f[0] != path}
        errors = [(p, m) for p, m in errors if p != path]

    assert findings == {GOOD_FINDING, *expect.findings}
    assert sorted(p for p, _ in errors) == sorted(p for p, _ in expect.errors), errors
    for (path, message), (_, fragment) in zip(sorted(errors), sorted(expect.errors), strict=True):
        assert fragment in message, (path, message)


def test_unreadable_file_as_root_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What `unreadable` checks, where chmod cannot take the right to read away (root): the read itself fails."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "good.py", GOOD)
    secret = write(tmp_path / "secret.py", "from ze import *\n\n\n" + DOUBLE_FREE)
    real_open = os.open  # source files are read through os.open (ownlint.inputs.read_regular)

    def refuse(path: str | os.PathLike[str], *args: Any, **kwargs: Any) -> int:
        if os.path.basename(os.fsdecode(path)) == secret.name:
            raise PermissionError(13, "Permission denied", os.fsdecode(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    outcome = run_in_process(tmp_path, ["."])
    assert_no_traceback(outcome)
    assert outcome.status == 1
    assert outcome.findings == {GOOD_FINDING}
    assert outcome.errors == [("secret.py", "cannot read: Permission denied")]


# ---------------------------------------------------------------- found while writing the cases above


def test_own001_names_the_file_and_a_line_inside_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the parser's verdict on 3.12 syntax, a reported OWN001 points inside the file."""
    monkeypatch.chdir(tmp_path)
    source = "from ze import *\n\ntype X = int\n\n\ndef f[T](x: T): ...\n\n\n" + DOUBLE_FREE
    result = api.check_source(source, "new.py", default_config())
    lines = source.count("\n")
    for finding in result.findings:
        assert finding.path == "new.py"
        assert 1 <= finding.span.line <= lines


SYNTAX_ERRORS = {
    # name: (source, the line CPython reports)
    "missing_colon": ("from ze import *\n\n\ndef f(ctx, p)\n    zeMemFree(ctx, p)\n\n\nx = 1\n", 4),
    "unclosed_paren": ("from ze import *\n\nx = (1,\n\n\ndef f(ctx, p):\n    zeMemFree(ctx, p)\n", 3),
    "unexpected_indent": (
        "from ze import *\n\n\ndef f(ctx, p):\n    zeMemFree(ctx, p)\n      zeMemFree(ctx, p)\n\n\nx = 1\n",
        6,
    ),
}


@pytest.mark.parametrize("name", sorted(SYNTAX_ERRORS))
def test_own001_points_at_the_line_python_reports(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """OWN001 is reported where the user has to look: the line CPython names."""
    monkeypatch.chdir(tmp_path)
    source, line = SYNTAX_ERRORS[name]
    with pytest.raises(SyntaxError) as python:
        compile(source, f"{name}.py", "exec")
    assert python.value.lineno == line
    result = api.check_source(source, f"{name}.py", default_config())
    assert [(f.code, f.span.line) for f in result.findings] == [("OWN001", line)]
    # at the parser's column, and the message quotes no other position (it said
    # "cannot parse: parser error: error at 5:4: ..." at column 1 of line 4)
    [finding] = result.findings
    assert finding.span.column == python.value.offset
    assert not re.search(r"\d+:\d+", finding.message), finding.message
    assert finding.message == f"cannot parse: {python.value.msg}"  # what the interpreter would say


# Characters `str.splitlines` breaks at but Python does not (inside a string or a comment they are legal)
SEPARATORS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]
SEPARATOR_SOURCE = (
    "from ze import *\n"
    "S = 'a{sep}b{sep}c{sep}d'  # e{sep}f\n"
    "\n\n"
    "def g(ctx, p):\n"
    "    zeMemFree(ctx, p)\n"
    "    if p:\n"
    "        zeMemFree(ctx, p)\n"
)


@pytest.mark.parametrize("sep", SEPARATORS, ids=[f"U+{ord(s):04X}" for s in SEPARATORS])
def test_unusual_line_separator_does_not_move_findings(
    sep: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A form feed, U+2028 ... inside a string or a comment ends no line for Python, so it moves no finding
    (positions once took a line's indent from `str.splitlines`, which splits there)."""
    monkeypatch.chdir(tmp_path)
    plain = api.check_source(SEPARATOR_SOURCE.format(sep="x"), "sep.py", default_config())
    odd = api.check_source(SEPARATOR_SOURCE.format(sep=sep), "sep.py", default_config())
    spans = [(f.code, f.span) for f in plain.findings]
    assert [(f.code, f.span.line, f.span.column) for f in plain.findings] == [("OWN201", 8, 9)]
    assert [(f.code, f.span) for f in odd.findings] == spans


def test_text_frame_shows_the_reported_line_after_a_line_separator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The text frame numbers source lines as the parser does (it once showed the line before, after a U+2028)."""
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path / "sep.py",
        "from ze import *\n# a\u2028b\n\n\ndef g(ctx, p):\n    zeMemFree(ctx, p)  # first\n    zeMemFree(ctx, p)  # second\n",
    )
    outcome = run_in_process(tmp_path, ["sep.py"], output_format="text")
    assert outcome.status == 1
    assert " --> sep.py:7:5" in outcome.stdout
    assert "7 |     zeMemFree(ctx, p)  # second" in outcome.stdout, outcome.stdout


def test_many_functions_are_not_quadratic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A generated module of many small functions is analysed in time linear in their number: finding a
    scope's index once compared it with every scope before it (a 10 MB module of functions ran for hours)."""
    from ownlint.engine.program import project

    monkeypatch.chdir(tmp_path)
    compared = 0
    original = project.Scope.__eq__

    def counting(self: object, other: object) -> bool:
        nonlocal compared
        compared += 1
        return original(self, other)

    monkeypatch.setattr(project.Scope, "__eq__", counting)
    monkeypatch.setattr(runner, "ISOLATE", False)  # counted in this process, not in a worker
    functions = 400
    source = "from ze import *\n" + "".join(
        f"\n\ndef f{i}(ctx, p):\n    zeMemFree(ctx, p + {i})\n" for i in range(functions)
    )
    result = api.check_source(source, "generated.py", default_config())
    assert result.errors == []
    assert compared <= 4 * functions, f"{compared} scope comparisons for {functions} functions"


def test_checked_code_with_invalid_escape_prints_no_warning(tmp_path: Path) -> None:
    """Warnings about the checked code (not ownlint's) never reach standard error."""
    write(
        tmp_path / "escape.py",
        'from ze import *\n\n\ndef g(ctx, p):\n    z = "\\d+"\n    zeMemFree(ctx, p)\n    zeMemFree(ctx, p)\n',
    )
    proc = subprocess.run(
        # what 3.12 shows by default, on every Python
        [
            sys.executable,
            "-W",
            "always::SyntaxWarning",
            "-W",
            "always::DeprecationWarning",
            "-m",
            "ownlint",
            "check",
            "--format",
            "json",
            "--no-cache",
            "escape.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert {(f["path"], f["line"]) for f in json.loads(proc.stdout)["findings"]} == {("escape.py", 7)}
    assert "invalid escape sequence" not in proc.stderr, proc.stderr


def test_own001_where_only_libcst_rejects_the_file_is_at_its_parser_s_position() -> None:
    """Syntax the interpreter accepts and libcst does not (newer grammar): the
    position libcst's native parser names, without quoting it in the message."""
    from ownlint.engine.program.project import _syntax_error

    valid = "x = 1\ny = 2\nz = 3\nw = 44\n"  # CPython accepts it: libcst's error (made here) decides
    exc = cst.ParserSyntaxError(
        "parser error: error at 4:5: expected one of ,, ]", lines=valid.splitlines(True), raw_line=4, raw_column=0
    )
    assert _syntax_error(valid, exc) == (4, 6, "expected one of ,, ]")
    plain = cst.ParserSyntaxError("tokenizer error: unmatched ')'", lines=[], raw_line=2, raw_column=3)
    assert _syntax_error(valid, plain) == (2, 4, "tokenizer error: unmatched ')'")
