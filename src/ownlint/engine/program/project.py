"""Analyse a set of source files together (so that helpers in one module are
understood at their call sites in another): `analyze_project`, the loading of
each file (refusing what the parser could not survive, parsing, its names and
constants), and the positions of what is reported. The Project class is in
whole_program.py, scope collection in scopes.py, module constants in
constants.py."""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import gc
import re
import warnings
from collections.abc import Callable, Iterator

import libcst as cst

with warnings.catch_warnings():  # libcst.metadata's own DeprecationWarnings are not the user's concern
    warnings.simplefilter("ignore")
    from libcst.metadata import MetadataWrapper, PositionProvider

from ownlint import __version__
from ownlint.checks import most_specific, to_diagnostic
from ownlint.diagnostics import FileError, FileReport, Span
from ownlint.engine.evaluator.typestate import RawViolation, Unit
from ownlint.engine.events import Unparsable, subscribers
from ownlint.engine.frontend import incremental, parsing, positions, relevance
from ownlint.engine.frontend.constants import import_constants, module_constants
from ownlint.engine.frontend.names import collect_names
from ownlint.engine.frontend.scopes import Scope
from ownlint.engine.modelling.models import ModelSet
from ownlint.engine.program.sources import EngineOptions, FunctionStats, SourceFile, module_names
from ownlint.engine.program.whole_program import Project
from ownlint.engine.values.state import Step
from ownlint.engine.violations import StoryStep, Violation, ViolationSink
from ownlint.lines import split_lines


def module_name_for(path: str) -> str:
    """A dotted module name from a relative path (`pkg/sub/mod.py` -> `pkg.sub.mod`)."""
    p = path[:-4] if path.endswith(".pyi") else path[:-3] if path.endswith(".py") else path
    parts = [x for x in p.split("/") if x not in ("", ".", "..")]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def parse(source: str) -> cst.Module:
    return parsing.parse_module(source)


_PIECES = incremental.PieceCache()  # the language server's: one per process


class _Positions:
    """Positions of nodes, computed only for files that have something to report:
    the fast way (positions.py) where it works, libcst's `PositionProvider` where not."""

    def __init__(self, units: list[Unit | None], texts: list[str]) -> None:
        self.units = units
        self.texts = texts  # the text each unit's module was parsed from (relevance.kept_texts)
        self.wanted: dict[int, dict[cst.CSTNode, cst.CSTNode | None]] = {}
        self.cache: dict[int, dict[cst.CSTNode, Span]] = {}

    def want(self, unit: int, node: cst.CSTNode, stmt: cst.CSTNode | None = None) -> None:
        """Asks for `node`'s span; `stmt` is the statement it is in, if known."""
        table = self.wanted.setdefault(unit, {})
        if table.get(node) is None:
            table[node] = stmt

    def span(self, unit: Unit, node: cst.CSTNode) -> Span:
        table = self.cache.get(unit.index)
        if table is None:
            table = self.cache[unit.index] = self._compute(unit)
        found = table.get(node)
        if found is None:
            table.update(self._slow(unit))
            found = table.get(node, Span(1, 1, 1, 1))
        return found

    def _compute(self, unit: Unit) -> dict[cst.CSTNode, Span]:
        wanted = self.wanted.get(unit.index, {})
        try:
            text = self.texts[unit.index]
            found = positions.spans(
                unit.module, text, wanted, unit.tree if text is unit.source else None
            )  # libcst round-trips: the text is the module's code
        except (positions.NotFound, SyntaxError, ValueError, RecursionError):
            return self._slow(unit)
        return found if wanted.keys() <= found.keys() else {**self._slow(unit), **found}

    def _slow(self, unit: Unit) -> dict[cst.CSTNode, Span]:
        out: dict[cst.CSTNode, Span] = {}
        for module, first in unit.pieces or ((unit.module, 1),):
            shift = first - 1
            wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
            out.update(
                (node, Span(r.start.line + shift, r.start.column + 1, r.end.line + shift, r.end.column + 1))
                for node, r in wrapper.resolve(PositionProvider).items()
            )
        return out


def _analysed(units: list[Unit | None], index: int) -> Unit:
    """The unit of file `index`, one that was analysed (a finding and its story are only in those)."""
    unit = units[index]
    assert unit is not None
    return unit


def unique_module_names(files: list[SourceFile]) -> list[str]:
    """Each file's module name; where two files would share one (`one/tool.py`
    and `two/tool.py`, outside any package), both get a name from their path
    instead (`one.tool`, `two.tool`), so that neither's functions stand for the
    other's, and an import of the shared name resolves to neither."""
    computed = module_names([f.path for f in files])
    names = [f.module if f.module is not None else computed[f.path] for f in files]
    seen: dict[str, int] = {}
    for name in names:
        seen[name] = seen.get(name, 0) + 1
    out = []
    for f, name in zip(files, names, strict=True):
        if seen[name] > 1:
            stem = f.path[: -len(".pyi")] if f.path.endswith(".pyi") else f.path.removesuffix(".py")
            parts = [p for p in stem.replace("\\", "/").split("/") if p not in ("", ".", "..")]
            name = ".".join(p if p.isidentifier() else "_" for p in parts)
        out.append(name)
    return out


@contextlib.contextmanager
def _trees_outside_gc() -> Iterator[bool]:
    """Keeps the cyclic garbage collector off the syntax trees.

    A libcst tree is a few hundred thousand objects with no reference cycles;
    the trees of a component stay alive through its analysis, and every full
    collection would walk all of them again (measured: a quarter of the parse
    time on the dense corpus). Each tree is frozen out of the collector once
    built (`gc.freeze`); reference counting still frees it when it is dropped,
    and `gc.unfreeze` at the end hands back whatever else was frozen. The
    collector is off while the trees are built; yields whether it was on.

    While the analysis runs, the youngest generation is collected every
    `YOUNG_GC_THRESHOLD` allocations instead of Python's default 700: the
    analysis makes short-lived objects by the million, nearly all freed by
    reference counting before any collection would see them (measured: 1% of
    a run on the dense corpus spent collecting, nine tenths of it saved)."""
    enabled = gc.isenabled()
    thresholds = gc.get_threshold()
    gc.disable()
    gc.set_threshold(max(thresholds[0], YOUNG_GC_THRESHOLD), *thresholds[1:])
    try:
        yield enabled
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
        if enabled:
            gc.enable()


YOUNG_GC_THRESHOLD = 10_000


def analyze_project(
    files: list[SourceFile],
    models: ModelSet,
    options: EngineOptions,
    stats: list[FunctionStats] | None = None,
    analysed: Callable[[int], None] | None = None,
) -> list[FileReport]:
    """One report per file, in the order given. Never raises for one file's sake:
    an internal error in a file becomes an error entry in its report. With
    `stats`, what each function's analysis cost is appended to it (for the
    benchmarks and the property tests). `analysed(n)` is told as `n` more
    files are analysed (those that could not be loaded, once all are loaded),
    so that a progress bar can advance within one large call; what is left
    after the last file (positions, the reports) is a small part of the whole."""
    with _trees_outside_gc() as collecting:
        return _analyze_project(files, models, options, collecting, stats, analysed or _told_nobody)


def _told_nobody(count: int) -> None:
    pass


def _analyze_project(
    files: list[SourceFile],
    models: ModelSet,
    options: EngineOptions,
    collecting: bool,
    stats: list[FunctionStats] | None,
    analysed: Callable[[int], None],
) -> list[FileReport]:
    reports = [FileReport(f.path) for f in files]
    modnames = unique_module_names(files)
    units: list[Unit | None] = []
    sink = ViolationSink()
    if options.sections and sum(len(f.source) for f in files) < options.sections_from:
        options = dataclasses.replace(options, sections=False, demand=False)
    kept = (
        relevance.kept_texts(files, modnames, models)
        if options.sections and not options.incremental
        else [(f.source, None) for f in files]
    )
    texts = [text for text, _ in kept]
    for i, f in enumerate(files):
        units.append(_load(i, f, kept[i], modnames[i], reports[i], sink, models, options))
        gc.freeze()
    if collecting:
        gc.enable()  # for the analysis's own garbage; the trees are out of its way
    import_constants([u for u in units if u is not None])
    project = Project([u for u in units if u is not None], models, options, reports)
    if stats is not None:
        project.stats = []
    if len(project.units) < len(files):
        analysed(len(files) - len(project.units))
    raw: list[RawViolation] = []
    for unit in project.units:
        try:
            raw.extend(project.analyze_unit(unit))
        except RecursionError:
            reports[unit.index].errors.append(FileError(unit.path, "too deeply nested to analyse"))
        except Exception as exc:  # the one place a file's analysis is isolated from the others
            reports[unit.index].errors.append(
                FileError(unit.path, f"internal error in ownlint {__version__}: {type(exc).__name__}: {exc}")
            )
        analysed(1)
    project.finish()
    positions = _Positions(units, texts)
    for unit, node, _, _ in project.budget_notes:
        positions.want(unit.index, node, node if isinstance(node, cst.BaseCompoundStatement) else None)
    for unit, node, *_ in project.stats or ():
        positions.want(unit.index, node, node if isinstance(node, cst.BaseCompoundStatement) else None)
    for rv in raw:
        positions.want(rv.unit, rv.node, rv.stmt)
        for step in rv.story:
            positions.want(step.unit, step.node, step.stmt)
        for edit in rv.fix[0] if rv.fix else ():
            positions.want(rv.unit, edit.node, rv.stmt)  # a fix edits the statement of its finding
    for unit, node, name, note in project.budget_notes:
        line = positions.span(unit, node).line
        reports[unit.index].errors.append(
            FileError(
                unit.path, f"analysis budget: `{name}` (line {line}) {note}; its findings may be incomplete", "budget"
            )
        )
    if stats is not None:
        for unit, node, name, steps, size, seconds, note in project.stats or ():
            stats.append(FunctionStats(unit.path, name, positions.span(unit, node).line, steps, size, seconds, note))
    for rv in raw:
        rv_unit = _analysed(units, rv.unit)
        told: list[StoryStep] = []
        for s in rv.story:
            step_unit = _analysed(units, s.unit)
            told.append(StoryStep(step_unit.path, positions.span(step_unit, s.node), s.label))
        story = tuple(told)
        edits: tuple[tuple[Span, str], ...] = ()
        safe = False
        if rv.fix:
            fix_edits, safe = rv.fix
            edits = tuple((positions.span(rv_unit, e.node), e.text) for e in fix_edits)
        sink.add(
            Violation(rv.code, rv_unit.path, positions.span(rv_unit, rv.node), rv.handle, rv.facts, story, edits, safe)
        )
    index_of = {f.path: i for i, f in enumerate(files)}
    for v in most_specific(list(sink)):
        index = index_of[v.path]
        reports[index].diagnostics.append(to_diagnostic(v))
    for r in reports:
        r.diagnostics.sort(key=lambda d: d.sort_key())
    return reports


def _python_syntax_error(source: str) -> tuple[int, int, str] | None:
    """Where CPython's parser stops (1-based line and column) and why, if it
    rejects `source` (libcst's error often points at a later token, at column 0)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<ownlint>", "exec", ast.PyCF_ONLY_AST)
    except SyntaxError as error:
        if error.lineno is None:
            return None
        return error.lineno, error.offset or 1, (error.msg or "invalid syntax").splitlines()[0]
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


# the position libcst's native parser writes into its message ("parser error: error at 5:4: expected ...")
_AT_POSITION = re.compile(r"(?:parser error: )?error at (\d+):(\d+): ")


def _syntax_error(source: str, exc: cst.ParserSyntaxError) -> tuple[int, int, str]:
    """Where the parser stops (1-based line and column) and why, in one line that
    quotes no position of its own: CPython's verdict where it rejects the file
    too (the interpreter's words, at its position), else libcst's, at the
    position its native parser names in its message, else at libcst's own."""
    python = _python_syntax_error(source)
    if python is not None:
        line, column, reason = python
    else:
        reason = str(exc.message).splitlines()[0] if exc.message else "invalid syntax"
        quoted = _AT_POSITION.search(reason)
        reason = _AT_POSITION.sub("", reason, count=1) or "invalid syntax"
        if quoted is not None:
            line, column = int(quoted.group(1)), int(quoted.group(2)) + 1
        else:
            line, column = exc.raw_line, exc.raw_column + 1
    lines = split_lines(source) or [""]
    line = min(max(1, line), len(lines))
    column = min(max(1, column), len(lines[line - 1]) + 1)
    return line, column, reason


def _load(
    i: int,
    f: SourceFile,
    kept: tuple[str, ast.Module | None],
    modname: str,
    report: FileReport,
    sink: ViolationSink,
    models: ModelSet,
    options: EngineOptions,
) -> Unit | None:
    dense = parsing.refusal(f.source)
    if dense is not None:
        report.errors.append(FileError(f.path, dense))
        return None
    try:
        if options.incremental:
            parsed = _PIECES.parse(f.source)
            module, pieces, tree = parsed.module, parsed.pieces, parsed.tree
        elif kept[0] is f.source:
            module, pieces, tree = parse(f.source), (), kept[1]
        else:
            try:
                module, pieces, tree = parse(kept[0]), (), None
            except cst.ParserSyntaxError:
                module, pieces, tree = parse(f.source), (), None  # the whole file's error, where it is
    except cst.ParserSyntaxError as exc:
        line, col, reason = _syntax_error(f.source, exc)
        found: list[Violation] = []
        event = Unparsable(f.path, line, col, reason, found)
        for handler in subscribers(options.checkers)["unparsable"]:
            handler(event)
        for v in found:
            sink.add(v)
        return None
    except RecursionError:
        report.errors.append(FileError(f.path, "too deeply nested to parse"))
        return None
    try:
        names = collect_names(module, modname, is_package=f.path.endswith("__init__.py"), source=f.source)
        constants = module_constants(module, names, models, options.page_size, f.source)
    except RecursionError:
        report.errors.append(FileError(f.path, "too deeply nested to analyse"))
        return None
    return Unit(i, f.path, module, names, constants, f.source, pieces, tree)


__all__ = ["EngineOptions", "Project", "Scope", "SourceFile", "Step", "analyze_project"]
