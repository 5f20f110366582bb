"""The engine's parse: `libcst.parse_module`, as libcst provides it, behind
a guard (`refusal`) for the sources its native parser cannot survive.

libcst's native parser recurses once per level of an expression's tree, and
overflows its stack (SIGSEGV), aborts on a failed allocation (SIGABRT) or
takes minutes on deep enough input: `lambda: lambda: ...` 5,000 deep, an
attribute chain of 10,000 lines, 5,000 nested parentheses. No handler can
catch that; every analysis runs in a worker process (`ownlint.runner`), so
such a file would cost only itself, but the guard refuses it first, in
milliseconds, with a reason. It reads real tokens (`tokenize`), so brackets
and operators inside strings and comments do not count, and it counts per
statement, whatever its physical lines (a chain split over 10,000 lines, a
file whose lines end with CR alone):

- brackets nested deeper than `MAX_NESTING` (CPython's own limit);
- an element of an expression (between commas, at one level of brackets,
  plus the deepest element of each bracket inside it) with more than
  `MAX_CHAIN` links: operators (unary, binary, comparison, `.`), the words
  that make conditional expressions, lambdas, `not`, `await`, `and`/`or`,
  calls and subscripts chained on a call or subscript (`f()()`, `a[0][0]`).
  Each link is at most one level of
  the parser's recursion, so the count bounds its depth.

Known limits: the count is an upper bound, not the depth: one element of a
single statement with more than `MAX_CHAIN` operators that is flat in fact
(a sum of 1,500 terms: libcst parses those, slowly) is refused too; a table
of many elements (a list of negative numbers, a dict) is not, as each
element counts alone, nor are strings concatenated by juxtaposition (libcst
parses 5,000 of them). The cheap first look (`_could_be_deep`) finds strings
with a regular expression, not the tokenizer: where it misreads one, a deep
file may reach the parser, whose crash then costs that file alone (its
worker process).

An earlier version made libcst's parse cheaper by reaching into libcst and the
interpreter (generated `__init__`s for the node classes that skipped
validation, the node classes unfrozen in the worker processes, the native
parser called from a frame with a no-op `__import__`). Each of those depended
on libcst's and CPython's internals and would break silently with a new
release of either, and users install whatever libcst is current; they are
gone. The engine's own costs around the parse that use public APIs only stay
(`gc.freeze` of the trees in `ownlint.engine.program.project`, the prefilter that
parses only files naming modelled calls).
"""

from __future__ import annotations

import io
import re
import tokenize

import libcst as cst

MAX_NESTING = 200  # CPython: "too many nested parentheses"
MAX_CHAIN = 1_000  # links in one element of an expression (see the module's docstring)

_OPENING = frozenset("([{")
_CLOSING = frozenset(")]}")
_SEPARATORS = frozenset({",", ";", "=", ":=", "->"})  # end an element: what follows starts afresh
_LINKS = frozenset({"lambda", "if", "else", "not", "await", "and", "or", "in", "is", "yield", "for"})
_TRAILER_AFTER = frozenset({")", "]"})  # `f()(...)`, `a[0][...]`: one more level of the chain


def parse_module(source: str) -> cst.Module:
    """`libcst.parse_module(source)`: a `libcst.ParserSyntaxError` for a file
    that does not parse. Call `refusal` first."""
    return cst.parse_module(source)


def refusal(source: str) -> str | None:
    """Why the parser could not safely be given `source` (one line), or None.
    A source that does not tokenize is left to the parser, which says
    what is wrong with it."""
    if not _could_be_deep(source):
        return None
    levels = [[0, 0]]  # per open bracket: links in the current element, most links in any element so far
    previous = ""
    try:
        for token in tokenize.generate_tokens(io.StringIO(source, newline=None).readline):
            kind, text = token.type, token.string
            if kind == tokenize.NEWLINE:
                levels, previous = [[0, 0]], ""
                continue
            if kind in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
                continue
            here = levels[-1]
            if kind == tokenize.OP and text in _OPENING:
                if previous in _TRAILER_AFTER:
                    here[0] += 1
                levels.append([0, 0])
                if len(levels) > MAX_NESTING + 1:
                    return (
                        f"line {token.start[0]}: brackets nested too deeply to parse safely (more than {MAX_NESTING})"
                    )
            elif kind == tokenize.OP and text in _CLOSING:
                if len(levels) > 1:
                    inner = levels.pop()
                    levels[-1][0] += max(inner)
            elif kind == tokenize.OP and text in _SEPARATORS:
                here[1] = max(here)
                here[0] = 0
            elif kind == tokenize.OP or (kind == tokenize.NAME and text in _LINKS):
                here[0] += 1
            previous = text
            if levels[-1][0] > MAX_CHAIN:
                return (
                    f"line {token.start[0]}: expression too deeply chained to parse safely (over {MAX_CHAIN:,} links)"
                )
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    return None


_STRING_OR_COMMENT = re.compile(  # unrolled loops: no backtracking; an unterminated string runs to its end
    r"""'\'\'[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*(?:'\'\'|$)|"\"\"[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*(?:\"\"\"|$)"""
    r"""|'[^'\\\n]*(?:\\.[^'\\\n]*)*'?|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|\#[^\n]*""",
    re.DOTALL,
)


STRING_OR_COMMENT = _STRING_OR_COMMENT  # a string or a comment, for other cheap passes over the text


def _could_be_deep(source: str) -> bool:
    """Whether `source` might reach either limit, found cheaply (a few
    string operations per line, no tokens): with strings and comments
    taken out, brackets nested deeper than `MAX_NESTING`, or a statement
    longer than `MAX_CHAIN` characters less its indentation (each link
    takes a character at least). Most files have neither, and are not
    tokenized; the others are, and `refusal` says whether they are deep."""
    text = _STRING_OR_COMMENT.sub("S ", source.replace("\r\n", "\n").replace("\r", "\n"))
    if len(text) <= MAX_CHAIN and sum(text.count(b) for b in "([{") <= MAX_NESTING:
        return False
    depth = length = 0
    for line in text.split("\n"):
        opens = line.count("(") + line.count("[") + line.count("{")
        if depth + opens > MAX_NESTING:
            return True
        depth = max(0, depth + opens - line.count(")") - line.count("]") - line.count("}"))
        length += len(line.lstrip())
        if depth == 0 and not line.endswith("\\"):
            if length > MAX_CHAIN:
                return True
            length = 0
    return False
