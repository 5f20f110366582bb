"""The fast positions (engine/frontend/positions.py) agree with libcst's PositionProvider."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest
from trees import libcst_spans, libcst_spans_of, libcst_tree

from ownlint import api, runner
from ownlint.config import default_config
from ownlint.diagnostics import Span
from ownlint.engine.frontend import positions
from ownlint.engine.frontend.walk import walk

FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"
FIXTURES = sorted(FIXTURES_DIR.rglob("*.py"))
REPORTED = (
    cst.Call,
    cst.Return,
    cst.WithItem,
    cst.Assign,
    cst.Subscript,
    cst.Comparison,
    cst.SimpleString,
    cst.Expr,
    cst.Yield,
    cst.Await,
)


slow = libcst_spans  # the reference: libcst's PositionProvider


def statement_of(module: cst.Module) -> dict[cst.CSTNode, cst.CSTNode]:
    """Each node's statement, as the analysis hints it: a small statement, or
    a compound statement for the nodes of its header."""
    out: dict[cst.CSTNode, cst.CSTNode] = {}
    for stmt in walk(module):
        if isinstance(stmt, cst.BaseSmallStatement):
            out.update((n, stmt) for n in walk(stmt))
        elif isinstance(stmt, cst.BaseCompoundStatement):
            out.update((n, stmt) for n in positions._header(stmt) if n not in out)
    return out


@pytest.mark.slow  # every fixture analysed again: a property of the whole corpus, in the slow set (README)
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fast_positions_equal_libcst_positions(path: Path) -> None:
    """Each fixture read with three kinds of hints (in one test: libcst's
    positions of the file, the reference, are made once)."""
    source = path.read_text(encoding="utf-8")
    module = libcst_tree(path)
    nodes = [n for n in walk(module) if isinstance(n, REPORTED)]
    stmts = statement_of(module)
    first = next(n for n in walk(module) if isinstance(n, cst.BaseSmallStatement))
    expected = libcst_spans_of(path)
    # everything but string patterns of `match` cases (never reported) is placed the fast way
    in_patterns = {n for case in walk(module) if isinstance(case, cst.MatchCase) for n in walk(case.pattern)}
    hints: dict[str, dict[cst.CSTNode, cst.CSTNode | None]] = {
        "none": dict.fromkeys(nodes),
        "right": {n: stmts.get(n) for n in nodes},
        "wrong": {n: first for n in nodes},  # a wrong hint costs time, never a wrong position
    }
    for kind, wanted in hints.items():
        fast = positions.spans(module, source, wanted)
        assert {n: expected[n] for n in fast} == fast, kind
        assert wanted.keys() - in_patterns <= fast.keys(), kind


@pytest.mark.parametrize(
    "source",
    [
        "x = f(g(a))(h(b), k=(m(c)))\n",
        "x = (f(a))\n",
        "y = f'{g(a)} {h(b)!r}' + k(c)\n",
        "z = [f(i) for i in g(a)] or (lambda: h(b))()\n",
        "w = f(\n    g(a),\n    h(\n        b),\n)\n",
        "s = 'é✓' + f(g('ü'))\n",
        "if a: v = f(a); g(b)\n",
        "for i in range(3):\n    del d[f(i)]\n",
    ],
)
def test_hinted_calls_in_tricky_statements(source: str) -> None:
    module = cst.parse_module(source)
    stmts = statement_of(module)
    wanted = {n: stmts.get(n) for n in walk(module) if isinstance(n, (cst.Call, cst.BaseSmallStatement))}
    fast = positions.spans(module, source, wanted)
    expected = slow(module)
    assert fast == {n: expected[n] for n in wanted}


KINDS = (cst.Call, cst.Subscript, cst.Comparison, cst.SimpleString, cst.Yield, cst.Await)


@pytest.mark.parametrize(
    "source",
    [
        'os.environ["A"] = env["B"][k["C"]]\n',
        'x = "a" "b" + "c"\n',  # adjacent strings are one `ast` constant
        "x = b'\\x00' + rb'\\d' + u'é' + \"\"\"ü\n✓\"\"\"\n",
        'y = f"{d[\'k\']}" + "s"\n',  # an f-string: placed by code generation
        'if "A" in os.environ and a < b < c and (d == e):\n    pass\nelif e[f"{g}"] > "h":\n    pass\n',
        "while q[0] is not None:\n    q.pop()\n",
        "for k in d['x'][1:]:\n    pass\n",
        "def g():\n    x = yield q[0]\n    yield from (yield)\n    return x\n",
        "async def h():\n    return await f('a') + await (g('b'))\n",
        "z = (a[0])[1] if ('s') else m[\n    'é'\n]\n",
    ],
    ids=["subscripts", "adjacent", "prefixes", "f-string", "if-elif", "while", "for", "yield", "await", "parens"],
)
def test_hinted_expressions_in_tricky_statements(source: str) -> None:
    module = cst.parse_module(source)
    stmts = statement_of(module)
    wanted = {n: stmts.get(n) for n in walk(module) if isinstance(n, KINDS) and n in stmts}
    assert wanted
    fast = positions.spans(module, source, wanted)
    expected = slow(module)
    assert fast == {n: expected[n] for n in wanted}


def test_expressions_are_placed_without_code_generation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hinted strings, subscripts, comparisons and calls, in small statements
    and in the headers of `if`, `while` and `for`, come from `ast` alone:
    regenerating a statement's code (`_alone`) costs about a millisecond."""
    source = (
        "import os\n\ndef f(d, k):\n    os.environ['A'] = d['B']\n    os.putenv('C', 'x')\n"
        "    if 'D' in os.environ and k < 2:\n        return os.environ['E']\n"
        "    while d[k] is not None:\n        d.pop(k)\n    for x in d['F']:\n        yield x\n"
    )
    monkeypatch.setattr(positions, "_alone", lambda *a: pytest.fail("code generated"))
    fast, expected = hinted_spans(source, (*KINDS, cst.BaseSmallStatement))
    assert fast == expected and len(fast) > 15


def test_decorated_functions_and_unicode_columns() -> None:
    source = "import f\n\n@f.deco\ndef g(p):\n    s = 'é✓'; zeMemFree(c, p)\n    return p\n"
    module = cst.parse_module(source)
    fn = module.body[1]
    call = next(
        n
        for n in walk(module)
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "zeMemFree"
    )
    fast = positions.spans(module, source, {fn: None, call: None})
    assert fast[call] == slow(module)[call] == Span(5, 15, 5, 30)
    assert fast[fn].line == 4


def hinted_spans(
    source: str, kinds: tuple[type, ...] = (cst.Call, cst.BaseSmallStatement)
) -> tuple[dict[cst.CSTNode, Span], dict[cst.CSTNode, Span]]:
    """The fast spans of every node of `kinds` (calls and small statements),
    each hinted with its statement, and libcst's spans of the same nodes."""
    module = cst.parse_module(source)
    stmts = statement_of(module)
    wanted = {n: stmts[n] for n in walk(module) if isinstance(n, kinds) and n in stmts}
    expected = slow(module)
    return positions.spans(module, source, wanted), {n: expected[n] for n in wanted}


TWO_FUNCTIONS = (
    "import ze\n\n\ndef first(ctx, p):\n    x = 1\n    return x\n\n\n"
    "@ze.deco(\n    1,\n)\n# between\n@ze.other\nasync def second(ctx, p):\n    ze.zeMemFree(ctx, p)\n\n\n"
    "class Holder:\n    def release(self, ctx, p):\n        ze.zeMemFree(ctx, p)\n\n\nend = ze.done(1)\n"
)


@pytest.mark.parametrize(
    "source",
    [
        TWO_FUNCTIONS,
        TWO_FUNCTIONS.replace("\n", "\r\n"),
        TWO_FUNCTIONS.replace("\n", "\r"),
        # a line inside a string that looks like the next definition
        '"""Usage:\n\ndef second(ctx, p):\n    pass\n"""\n' + TWO_FUNCTIONS,
        'X = """\nclass Holder:\n"""\n' + TWO_FUNCTIONS,
        TWO_FUNCTIONS.replace("    x = 1\n", '    x = """\nasync def second(ctx, p):\n"""\n'),
        # definitions inside a top-level `if` are not where the file is cut
        "import sys\nif sys.argv:\n    def f(p):\n        g(p)\nelse:\n    def f(p):\n        h(p)\n\ndef k():\n    m(1)\n",
        "def a(): f(1); g(2)\ndef b(): h(3)\n",
        "def é(p):\n    f(p)\n\ndef ü(p):\n    g(p)\n",
    ],
    ids=[
        "plain",
        "crlf",
        "cr",
        "def-in-docstring",
        "class-in-string",
        "def-in-string-after",
        "nested-defs",
        "one-line-defs",
        "unicode-names",
    ],
)
def test_cut_files_place_what_libcst_places(source: str) -> None:
    fast, expected = hinted_spans(source)
    assert fast == expected


def test_only_the_parts_holding_a_hinted_statement_are_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    real = positions.ast.parse

    def spy(text: str, *args: object, **kwargs: object) -> object:
        parsed.append(text)
        return real(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(positions.ast, "parse", spy)
    module = cst.parse_module(TWO_FUNCTIONS)
    call = next(
        n
        for n in walk(module)
        if isinstance(n, cst.Call) and getattr(n.func, "attr", None) and n.func.attr.value == "zeMemFree"
    )
    stmt = statement_of(module)[call]
    fast = positions.spans(module, TWO_FUNCTIONS, {call: stmt})
    assert fast[call] == slow(module)[call] == Span(15, 5, 15, 25)
    assert (
        len(parsed) == 1
        and parsed[0].startswith("@ze.deco(")
        and "first" not in parsed[0]
        and "Holder" not in parsed[0]
    )


def test_a_file_that_only_looks_cut_is_parsed_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """The line `async def second` inside the string in `first` is taken for
    the definition: the part cut there does not parse, and the whole file is
    parsed instead."""
    source = TWO_FUNCTIONS.replace("    x = 1\n", '    x = """\nasync def second(ctx, p):\n"""\n')
    parsed: list[str] = []
    real = positions.ast.parse
    monkeypatch.setattr(positions.ast, "parse", lambda text, *a, **k: parsed.append(text) or real(text, *a, **k))
    fast, expected = hinted_spans(source)
    assert fast == expected
    assert parsed[-1] == source


def test_trees_that_do_not_line_up_raise_not_found() -> None:
    """The documented way out when CPython's tree and libcst's differ (here a
    tree of other source, one statement short): `NotFound`, which sends the
    caller to `PositionProvider`, never another exception."""
    source = "import ze\n\ndef f(ctx, p):\n    ze.free(ctx, p)\n    ze.free(ctx, p)\n"
    module = cst.parse_module(source)
    call = next(n for n in walk(module) if isinstance(n, cst.Call))
    short = ast.parse("import ze\n")
    with pytest.raises(positions.NotFound):
        positions.spans(module, source, {call: None}, short)


@pytest.mark.slow  # every fixture analysed again: a property of the whole corpus, in the slow set (README)
def test_the_analysis_hints_every_node_it_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each finding, story step and fix edit of the fixtures comes with the
    statement it is in: a node without one (or with a wrong one) is searched
    for in the header of every statement of a whole-file parse. One run over
    every fixture (a run per file cost 20 s of the suite's CPU time)."""
    searched: list[str] = []

    def header(stmt: cst.CSTNode) -> list[cst.CSTNode]:
        searched.append(type(stmt).__name__)
        raise AssertionError(f"searched for a node in {type(stmt).__name__}")

    monkeypatch.setattr(positions, "_header", header)
    monkeypatch.setattr(runner, "ISOLATE", False)  # the patch holds in this process, not in a worker
    result = api.check_paths([str(FIXTURES_DIR)], default_config(), jobs=1, use_cache=False)
    assert len(result.findings) > 100 and len(result.files) == len(FIXTURES)
    assert not searched
    assert not [e for e in result.errors if "internal error" in e.message]


ONE_LINE_STATEMENTS = '''"""A module whose statements each take one line
(but this docstring).
"""
import ze


@ze.deco
# a comment between
def first(ctx, p):
    ze.zeMemFree(ctx, p)  # a comment
    try:
        ze.a(p)
    except ValueError:
        ze.b(p)
    else:
        ze.c(p)

    finally:
        ze.d(p)
    for q in ze.items(p):
        ze.e(q)
    else:
        ze.f(p)
    while ze.g(p):
        x = 1; ze.h(x)
    with ze.ctx(p) as c:
        ze.i(c)
    if p:
        ze.j(p)
    elif q:
        ze.k(p)
    else:
        ze.m(p)
    match p:
        case 1:
            ze.n(p)
    # the end of the body


class Holder:
    """One line."""

    def release(self, ctx, p):
        ze.zeMemFree(ctx, p)
'''


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_where_every_statement_takes_one_line_only_those_lines_are_parsed(
    newline: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted from libcst's tree, the lines add up to the file's: each hinted
    statement's own line is parsed, and nothing else."""
    source = ONE_LINE_STATEMENTS.replace("\n", newline)
    parsed: list[str] = []
    real = positions.ast.parse
    monkeypatch.setattr(positions.ast, "parse", lambda text, *a, **k: parsed.append(text) or real(text, *a, **k))
    fast, expected = hinted_spans(source, (cst.Call,))
    assert fast == expected and len(fast) == 17
    assert len(parsed) == 1 and "ze.k(p)" in parsed[0]
    assert "else:" not in parsed[0] and "# the end" not in parsed[0]  # as cutting at definitions would


@pytest.mark.parametrize(
    "source",
    [
        ONE_LINE_STATEMENTS.replace("elif q:", "elif ze.q(p):"),  # an `elif` does not parse alone
        ONE_LINE_STATEMENTS.replace("    if p:\n        ze.j(p)\n", "    if p: ze.j(p)\n"),  # a suite
        ONE_LINE_STATEMENTS.replace("ze.a(p)", "ze.a(\n            p)"),  # the lines do not add up
        ONE_LINE_STATEMENTS.replace("    try:", "    x = '''\n    try:\n'''\n    try:"),
    ],
    ids=["elif", "suite", "continued", "string"],
)
def test_files_not_cut_into_lines_are_placed_all_the_same(source: str) -> None:
    fast, expected = hinted_spans(source)
    assert fast == expected and len(fast) > 30


@pytest.mark.parametrize("source", ["", "\n", "x = 1", "x = 1\n\n\n", "if x:\r\n    pass\r\n", TWO_FUNCTIONS])
def test_the_module_is_placed_from_its_text(monkeypatch: pytest.MonkeyPatch, source: str) -> None:
    """A module-level scope's note asks for the module's own span, with no
    statement to hint: it is placed from the text alone (as libcst places
    it), and asks for no parse, nor keeps the hinted nodes beside it from
    taking the cut way (a whole-file `PositionProvider` on every file cost
    two thirds of a one-component run of the dense corpus)."""
    parsed: list[str] = []
    real = positions.ast.parse
    monkeypatch.setattr(positions.ast, "parse", lambda text, *a, **k: parsed.append(text) or real(text, *a, **k))
    module = cst.parse_module(source)
    calls = [n for n in walk(module) if isinstance(n, cst.Call)]
    stmts = statement_of(module)
    fast = positions.spans(module, source, {module: None, **{c: stmts[c] for c in calls}})
    expected = slow(module)
    assert fast == {n: expected[n] for n in (module, *calls)}
    assert all(text != source for text in parsed) if calls else parsed == []
