"""Files parsed once per test process, for the tests that compare the engine's
views of a file with libcst's (test_parsing, test_positions, test_walk,
test_scopes): each reads every fixture, and several read each one more than
once. libcst's trees are immutable, so the tests share them; a tree's
`PositionProvider` table (about nine times the cost of the parse) is shared
too. So is the standard library's `ast` tree of each module of ownlint, for
the tests that read the source's shape (test_architecture, test_parsing):
those trees are only read."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ownlint.diagnostics import Span


@functools.cache
def libcst_tree(path: Path) -> cst.Module:
    """libcst's tree of the file at `path` (an OSError or a ParserSyntaxError is raised each time, not kept)."""
    return cst.parse_module(path.read_text(encoding="utf-8"))


def libcst_spans(module: cst.Module) -> dict[cst.CSTNode, Span]:
    """libcst's position of every node of `module`, as ownlint's spans (1-based columns)."""
    table = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {n: Span(r.start.line, r.start.column + 1, r.end.line, r.end.column + 1) for n, r in table.items()}


@functools.cache
def libcst_spans_of(path: Path) -> dict[cst.CSTNode, Span]:
    """`libcst_spans` of the shared tree of the file at `path`."""
    return libcst_spans(libcst_tree(path))


def python_tree(path: Path) -> ast.Module:
    """`ast`'s tree of the file at `path`, parsed once per text (shared: only read, never changed)."""
    return _python_tree(path.read_text(encoding="utf-8"))


@functools.cache
def _python_tree(text: str) -> ast.Module:
    return ast.parse(text)
