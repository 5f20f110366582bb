"""Parsing only what an edit changed: the language server's path.

An editor re-checks the same file after every change, and a change touches
one function. The file is cut at its top-level statements (CPython's `ast`
finds them in a few milliseconds); each piece is parsed by libcst on its own
and remembered by its text, so an unchanged function keeps its very syntax
nodes from one check to the next. The pieces are put together into one
module whose statements are the pieces' statements.

Each piece is an exact slice of the source, from the first line of its
statement (or decorator) to the line before the next one, so a position
inside a piece is the same position in the file, shifted by the piece's
first line. The put-together module does not keep the pieces' comments
between statements; nothing in the analysis reads them, and positions come
from the pieces (`Parsed.pieces`), never from printing the whole module.

Whenever CPython and libcst disagree about the source (a syntax error, or
syntax the installed libcst does not know), the whole file is parsed the
ordinary way, so errors are reported exactly as without this module.
"""

from __future__ import annotations

import ast
import itertools
import warnings
from collections import OrderedDict
from dataclasses import dataclass

import libcst as cst

from ownlint.engine.frontend.parsing import parse_module
from ownlint.lines import line_starts


@dataclass(frozen=True, slots=True)
class Parsed:
    module: cst.Module
    pieces: tuple[tuple[cst.Module, int], ...]  # each parsed piece and its first line in the file
    tree: ast.Module | None = None  # CPython's tree of the same source, when it was made


def parse_whole(source: str) -> Parsed:
    module = parse_module(source)
    return Parsed(module, ((module, 1),))


class PieceCache:
    """Parsed pieces by their text, the most recently used kept while their
    texts add up to at most `limit` characters.

    The bound is on size, not on the number of pieces: an editor that edits
    one large function makes a new piece of that size on every change, and a
    bound of 4,096 pieces let the language server grow by about 3.4 MB an
    edit. A libcst tree costs roughly a hundred bytes of memory for each
    character of its source, so the default (400,000 characters) keeps the
    trees to a few tens of megabytes. The pieces of the latest parse are kept
    whatever their size, so the next check of the same file finds them."""

    LIMIT = 400_000

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self.pieces: OrderedDict[str, cst.Module] = OrderedDict()
        self.size = 0  # characters of the texts in `pieces`
        self.parsed = 0  # pieces parsed (not found), for tests and measurements

    def parse(self, source: str) -> Parsed:
        tree = _ast_of(source)
        starts = _piece_starts(tree) if tree is not None else None
        if starts is None or len(starts) < 2:
            return parse_whole(source)
        offsets = [*line_starts(source), len(source)]  # where line n begins: offsets[n - 1]
        bounds = [*starts, len(offsets)]
        modules: list[cst.Module] = []
        used: set[str] = set()
        try:
            for first, nxt in itertools.pairwise(bounds):
                text = source[offsets[first - 1] : offsets[nxt - 1]]
                module = self.pieces.get(text) if text not in used else None  # never the same nodes twice in a file
                if module is None:
                    module = parse_module(text)
                    self.parsed += 1
                    if text not in used:
                        self.pieces[text] = module
                        self.size += len(text)
                self.pieces.move_to_end(text)
                used.add(text)
                modules.append(module)
        except (cst.ParserSyntaxError, RecursionError):
            return parse_whole(source)  # reported as the whole file's error, where it is
        self._evict(keep=len(used))
        body = [stmt for m in modules for stmt in m.body]
        whole = cst.Module(body=body, header=modules[0].header, footer=modules[-1].footer)
        return Parsed(whole, tuple(zip(modules, starts, strict=True)), tree)

    def _evict(self, keep: int) -> None:
        """Drops the least recently used pieces until the texts fit in
        `limit`, never the `keep` most recent (the latest parse's)."""
        pieces = self.pieces
        while self.size > self.limit and len(pieces) > keep:
            text, _ = pieces.popitem(last=False)
            self.size -= len(text)


def _ast_of(source: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _piece_starts(tree: ast.Module) -> list[int]:
    """The first line of each piece: 1, then each top-level statement's first
    line (its first decorator's) that does not share a line with the statement
    before."""
    starts: list[int] = []
    end = 0
    for stmt in tree.body:
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
        if first > end:
            starts.append(first)
        end = max(end, stmt.end_lineno or stmt.lineno)
    if starts:
        starts[0] = 1
    return starts
