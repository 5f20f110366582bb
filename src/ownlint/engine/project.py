"""Analyse a set of source files together (so that helpers in one module are
understood at their call sites in another)."""

from __future__ import annotations

import ast
import contextlib
import gc
import re
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import libcst as cst

with warnings.catch_warnings():  # libcst.metadata's own DeprecationWarnings are not the user's concern
    warnings.simplefilter("ignore")
    from libcst.metadata import MetadataWrapper, PositionProvider

from ownlint import __version__
from ownlint.checks import most_specific, to_diagnostic
from ownlint.diagnostics import FileError, FileReport, Span
from ownlint.engine import incremental, linear, parsing, positions
from ownlint.engine.cfg import CFG, CallRaises, build_class_cfg, build_function_cfg, build_lambda_cfg, build_module_cfg
from ownlint.engine.environment import check_environment
from ownlint.engine.memory import as_lin, lin_value
from ownlint.engine.models import ModelSet
from ownlint.engine.names import ModuleNames, collect_names
from ownlint.engine.sources import EngineOptions, FunctionStats, SourceFile, module_names
from ownlint.engine.state import Step
from ownlint.engine.summaries import EMPTY_OUTCOME, Summary
from ownlint.engine.typestate import FunctionAnalysis, RawViolation, Unit, fold, literal
from ownlint.engine.violations import StoryStep, Violation, ViolationSink
from ownlint.engine.walk import LEAVES, children, compound_children, holds_statements, is_statement


def module_name_for(path: str) -> str:
    """A dotted module name from a relative path (`pkg/sub/mod.py` -> `pkg.sub.mod`)."""
    p = path[:-4] if path.endswith(".pyi") else path[:-3] if path.endswith(".py") else path
    parts = [x for x in p.split("/") if x not in ("", ".", "..")]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@dataclass(slots=True)
class Scope:
    """A body the analysis runs over: a function, lambda, class or module body."""

    cfg: CFG
    params: list[str]
    self_name: str | None
    qualified: str = ""  # `mod.func`, `mod.Class.method`; "" where no call can reach it
    class_qualified: str | None = None  # for methods: `mod.Class`
    defaults: tuple[tuple[int, object], ...] = ()
    generator: bool = False  # a call only makes a generator: no effect at the call site


def _params(p: cst.Parameters) -> list[str]:
    out = [x.name.value for x in (*p.posonly_params, *p.params)]
    if type(p.star_arg) is cst.Param:
        out.append(p.star_arg.name.value)
    out += [x.name.value for x in p.kwonly_params]
    if p.star_kwarg is not None:
        out.append(p.star_kwarg.name.value)
    return out


def _defaults(p: cst.Parameters) -> tuple[tuple[int, object], ...]:
    out = []
    for i, x in enumerate((*p.posonly_params, *p.params)):
        if x.default is not None:
            lit = literal(x.default)
            if lit is not None:
                out.append((i, lit))
    return tuple(out)


def collect_scopes(
    module: cst.Module, modname: str, call_raises: CallRaises | None, source: str | None = None
) -> list[Scope]:
    """Every function, method, lambda and class body of a module, with the
    qualified names that calls can reach (`mod.f`, `mod.Class.m`), in the
    order of a depth-first walk.

    Given the `source`, and it has neither `lambda` nor `yield` anywhere, only
    compound statements are walked: nothing inside an expression or a simple
    statement can matter. Otherwise expressions are searched for lambdas and
    yields too, by a tighter loop (`_lambdas_and_yields`)."""
    full = source is None or "lambda" in source or "yield" in source
    kids = children if full else compound_children
    scopes: list[Scope] = []
    # (node, kind of the scope it is in, that scope's qualified name or None,
    # the function's Scope, the statement the node is in)
    stack: list[tuple[cst.CSTNode, str, str | None, Scope | None, cst.CSTNode | None]] = [
        (c, "module", modname, None, None) for c in reversed(kids(module))
    ]
    while stack:
        node, kind, outer, function, at = stack.pop()
        if full and not holds_statements(node):  # an expression, or a part of one
            _lambdas_and_yields(node, function, at, scopes, call_raises)
            continue
        inner_kind, inner_q, inner_function = kind, outer, function
        if is_statement(node):
            at = node
        if type(node) is cst.ClassDef or type(node) is cst.FunctionDef:
            q = (
                None
                if outer is None or kind == "function"
                else (f"{outer}.{node.name.value}" if outer else node.name.value)
            )
            if isinstance(node, cst.ClassDef):
                scopes.append(Scope(build_class_cfg(node, call_raises), [], None, ""))
                inner_kind, inner_q, inner_function = "class", q, None
            else:
                params = _params(node.params)
                static = any(
                    type(d.decorator) is cst.Name and d.decorator.value == "staticmethod" for d in node.decorators
                )
                in_class = kind == "class"
                self_name = params[0] if in_class and params and not static else None
                scopes.append(
                    Scope(
                        build_function_cfg(node, call_raises=call_raises),
                        params,
                        self_name,
                        q or "",
                        outer if in_class else None,
                        _defaults(node.params),
                    )
                )
                inner_kind, inner_q, inner_function = "function", q, scopes[-1]
        stack.extend((c, inner_kind, inner_q, inner_function, at) for c in reversed(kids(node)))
    return scopes


def _lambdas_and_yields(
    node: cst.CSTNode,
    function: Scope | None,
    at: cst.CSTNode | None,
    scopes: list[Scope],
    call_raises: CallRaises | None,
) -> None:
    """In an expression (which holds no statement): a scope for each lambda, in
    the order of a depth-first walk; a yield outside any lambda makes
    `function` a generator (a yield in a lambda makes the lambda one)."""
    leaves = LEAVES
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.Yield:
            if function is not None:
                function.generator = True
        elif kind is cst.Lambda:
            lam = cast(cst.Lambda, current)
            scopes.append(Scope(build_lambda_cfg(lam, call_raises=call_raises, stmt=at), _params(lam.params), None))
            for child in children(lam):  # before the lambda's siblings, as a walk would
                _lambdas_and_yields(child, None, at, scopes, call_raises)
            continue
        if kind not in leaves:
            stack.extend(reversed(children(current)))


def module_constants(
    module: cst.Module, names: ModuleNames, models: ModelSet, page_size: int | None
) -> dict[str, object]:
    """Module-level names bound exactly once, to a literal, the page size, or
    arithmetic on those (constants are folded, as `ownlint explain OWN302` says)."""
    counts: dict[str, int] = {}
    values: dict[str, cst.BaseExpression] = {}
    for stmt in module.body:
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if type(small) is cst.Assign:
                for t in small.targets:
                    if type(t.target) is cst.Name:
                        counts[t.target.value] = counts.get(t.target.value, 0) + 1
                        values[t.target.value] = small.value
            elif type(small) is cst.AnnAssign and type(small.target) is cst.Name and small.value is not None:
                counts[small.target.value] = counts.get(small.target.value, 0) + 1
                values[small.target.value] = small.value
    out: dict[str, object] = {}
    for name, expr in values.items():
        if counts[name] != 1:
            continue
        v = _const_expr(expr, out, names, models, page_size)
        if v is not None:
            out[name] = v
    return out


def _const_expr(
    expr: cst.BaseExpression, known: dict[str, object], names: ModuleNames, models: ModelSet, page_size: int | None
) -> object:
    lit = literal(expr)
    if lit is not None:
        return lit
    mem = models.memory
    page: object = ("const", page_size) if page_size else ("lin", linear.sym(linear.P))
    if type(expr) is cst.Name:
        return known.get(expr.value)
    if type(expr) is cst.Attribute and names.qualify(expr) in mem.page_size:
        return page
    if type(expr) is cst.Call:
        q = names.qualify(expr.func)
        if q in mem.page_size_calls:
            return page
        if q in mem.page_size_sysconf and expr.args:
            arg = literal(expr.args[0].value)
            if arg is not None and str(arg[1]).startswith("SC_PAGE"):
                return page
        return None
    if type(expr) is cst.BinaryOperation:
        a = _const_expr(expr.left, known, names, models, page_size)
        b = _const_expr(expr.right, known, names, models, page_size)
        if not (isinstance(a, tuple) and isinstance(b, tuple)):
            return None
        if a[0] == b[0] == "const":
            return fold(expr.operator, a[1], b[1])
        la, lb = as_lin(a), as_lin(b)
        if la is None or lb is None:
            return None
        if type(expr.operator) is cst.Multiply:
            prod = linear.mul(la, lb)
            return lin_value(prod) if prod is not None else None
        if type(expr.operator) in (cst.Add, cst.Subtract):
            return lin_value(linear.add(la, lb, 1 if type(expr.operator) is cst.Add else -1))
        return None
    if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
        a = _const_expr(expr.expression, known, names, models, page_size)
        if isinstance(a, tuple) and a[0] == "const" and isinstance(a[1], int):
            return ("const", -a[1])
    return None


def parse(source: str) -> cst.Module:
    return parsing.parse_module(source)


_PIECES = incremental.PieceCache()  # the language server's: one per process


@dataclass(slots=True)
class _Reused:
    """One scope's results, kept for the next check of its file (incremental mode)."""

    scope: Scope
    context: tuple[object, ...]
    deps: list[tuple[Scope, cst.Call, str, bool, str | None]]  # each resolution: its inputs and target
    violations: list[RawViolation]
    summary: Summary | None
    note: tuple[str, str] | None  # (function, budget note)


class _Memory:
    """What incremental checks of a file keep from one check to the next: the
    scopes of each unchanged top-level statement (by its parsed piece), and
    each scope's results. A scope's results are reused when its statement is
    unchanged, the module's names, constants, models and options are the same,
    and every call it resolved resolves to the same function, itself reused in
    this check; otherwise it is analysed again (so are its callers, in turn)."""

    def __init__(self) -> None:
        self.scopes: dict[str, dict[tuple[int, tuple[object, ...]], tuple[cst.Module, list[Scope]]]] = {}
        self.results: dict[str, dict[int, _Reused]] = {}


_MEMORY = _Memory()


def _stat(path: Path) -> tuple[str, int, int]:
    try:
        st = path.stat()
    except OSError:
        return (str(path), -1, -1)
    return (str(path), st.st_mtime_ns, st.st_size)


class _Positions:
    """Positions of nodes, computed only for files that have something to report:
    the fast way (positions.py) where it works, libcst's `PositionProvider` where not."""

    def __init__(self, units: list[Unit | None]) -> None:
        self.units = units
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
            found = positions.spans(
                unit.module, unit.source, wanted, unit.tree
            )  # libcst round-trips: the source is the module's code
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


class Project:
    """The units of one run, their scopes, and the summaries computed on demand."""

    def __init__(self, units: list[Unit], models: ModelSet, options: EngineOptions, reports: list[FileReport]) -> None:
        self.models = models
        self.options = options
        self.scopes: dict[int, list[Scope]] = {}
        self.functions: dict[str, tuple[Unit, Scope]] = {}
        self.by_last_name: dict[str, list[str]] = {}
        self.budget_notes: list[tuple[Unit, cst.CSTNode, str, str]] = []
        self.scope_index: dict[int, int] = {}  # id(scope) -> its index in its unit's scopes
        self.summaries: dict[str, Summary] = {}
        self.later: dict[str, Callable[[], Summary]] = {}  # analysed functions whose summary no call has asked for yet
        self.in_progress: set[str] = set()
        self.violations: dict[tuple[int, int], list[RawViolation]] = {}
        self.units: list[Unit] = []
        # with `stats`: (unit, node, name, steps, seconds, note) of each function analysed
        self.stats: list[tuple[Unit, cst.CSTNode, str, int, int, float, str]] | None = None
        self._nested = 0.0  # seconds spent in analyses started inside the current one
        # incremental mode: what a scope's results depend on beyond its own
        # syntax and the functions it calls (see _Memory)
        self.context: dict[int, tuple[object, ...]] = {}
        self.reused: set[int] = set()  # id() of the scopes whose results this check reused
        self.kept: dict[str, dict[int, _Reused]] = {}
        if options.incremental:
            fingerprint = tuple(_stat(p) for p in models.files)
            for unit in units:
                names = unit.names
                self.context[unit.index] = (
                    unit.path,
                    unit.index,
                    names.module,
                    tuple(sorted(names.imports.items())),
                    tuple(sorted(names.functions)),
                    tuple(sorted(names.classes)),
                    tuple(names.star_modules),
                    repr(sorted(unit.constants.items())),
                    options,
                    fingerprint,
                )
        for unit in units:
            try:
                self._add(unit)
            except RecursionError:
                reports[unit.index].errors.append(FileError(unit.path, "too deeply nested to analyse"))
            else:
                self.units.append(unit)

    def _add(self, unit: Unit) -> None:
        """Build the scopes and control-flow graphs of one file."""
        models = self.models
        names = unit.names

        def call_raises(call: cst.Call) -> bool:
            return not models.never_raises(names.qualify(call.func) or "?")

        scopes = [Scope(build_module_cfg(unit.module, call_raises=call_raises), [], None)]
        if self.options.incremental and unit.pieces:
            before = _MEMORY.scopes.get(unit.path, {})
            now: dict[tuple[int, tuple[object, ...]], tuple[cst.Module, list[Scope]]] = {}
            for piece, _ in unit.pieces:
                key = (id(piece), self.context[unit.index])
                kept = before.get(key)
                if kept is None or kept[0] is not piece:
                    kept = (piece, collect_scopes(piece, unit.names.module, call_raises, unit.source))
                now[key] = kept
                scopes += kept[1]
            _MEMORY.scopes[unit.path] = now
        else:
            scopes += collect_scopes(unit.module, unit.names.module, call_raises, unit.source)
        self.scopes[unit.index] = scopes
        self.scope_index.update((id(sc), i) for i, sc in enumerate(scopes))
        for sc in scopes:
            if sc.qualified and sc.qualified not in self.functions:
                self.functions[sc.qualified] = (unit, sc)
                self.by_last_name.setdefault(sc.qualified.rpartition(".")[2], []).append(sc.qualified)

    def analyze_unit(self, unit: Unit) -> list[RawViolation]:
        out: list[RawViolation] = []
        if any(name in unit.source for name in self.models.environment.deprecated):
            out += check_environment(unit.index, unit.module, unit.names, self.models.environment, unit.constants)
        for i, scope in enumerate(self.scopes[unit.index]):
            out.extend(self.analyze_scope(unit, i, scope))
        return out

    def analyze_scope(self, unit: Unit, i: int, scope: Scope) -> list[RawViolation]:
        key = (unit.index, i)
        if key not in self.violations:
            if scope.qualified:
                self._function(scope.qualified, needed=False)  # analyses it, once
            if key not in self.violations:
                self.violations[key], _ = self._evaluate(unit, scope, summary=False)
        return self.violations[key]

    def _evaluate(
        self, unit: Unit, scope: Scope, summary: bool
    ) -> tuple[list[RawViolation], Callable[[], Summary] | None]:
        """Runs the analysis of `scope` (or, incrementally, reuses its last
        results): its violations and, if `summary`, what makes its summary."""
        context = self.context.get(unit.index)
        if context is not None:
            last = _MEMORY.results.get(unit.path, {}).get(id(scope))
            if (
                last is not None
                and last.scope is scope
                and last.context == context
                and (last.summary is not None or not summary)
                and self._still_hold(last.deps)
            ):
                self.reused.add(id(scope))
                self.kept.setdefault(unit.path, {})[id(scope)] = last
                if last.note is not None:
                    self.budget_notes.append((unit, scope.cfg.node, *last.note))
                return last.violations, _ready(last.summary) if last.summary is not None else None
        deps: list[tuple[Scope, cst.Call, str, bool, str | None]] | None = [] if context is not None else None
        fa = self._analysis(unit, scope, deps)
        if self.stats is None:
            violations = fa.run()
        else:
            outer, self._nested = self._nested, 0.0
            start = time.perf_counter()
            violations = fa.run()
            total = time.perf_counter() - start
            own, self._nested = total - self._nested, outer + total
            self.stats.append(
                (unit, scope.cfg.node, fa.name or scope.cfg.name, fa.steps, fa.size(), own, fa.budget_note)
            )
        summarize = fa.summary_later(scope.defaults) if summary else None
        note = (fa.name or scope.cfg.name, fa.budget_note) if fa.budget_note else None
        if note is not None:
            self.budget_notes.append((unit, scope.cfg.node, *note))
        if context is not None and deps is not None:  # the next check may reuse the summary: made now
            made = summarize() if summarize is not None else None
            self.kept.setdefault(unit.path, {})[id(scope)] = _Reused(scope, context, deps, violations, made, note)
            summarize = _ready(made) if made is not None else None
        return violations, summarize

    def _still_hold(self, deps: list[tuple[Scope, cst.Call, str, bool, str | None]]) -> bool:
        for scope, call, qualified, on_self, target in deps:
            if self._target(scope, call, qualified, on_self) != target:
                return False
            if target is not None:
                self.summary_of(target)
                if id(self.functions[target][1]) not in self.reused:
                    return False
        return True

    def finish(self) -> None:
        """Keeps this check's results for the next (incremental mode)."""
        for path, results in self.kept.items():
            _MEMORY.results[path] = results

    def _analysis(
        self, unit: Unit, scope: Scope, deps: list[tuple[Scope, cst.Call, str, bool, str | None]] | None = None
    ) -> FunctionAnalysis:
        name = scope.qualified.rpartition(".")[2] if scope.qualified else scope.cfg.name
        if scope.class_qualified:
            name = f"{scope.class_qualified.rpartition('.')[2]}.{name}"

        def resolve(call: cst.Call, qualified: str, on_self: bool) -> Summary | None:
            if deps is not None:
                target = self._target(scope, call, qualified, on_self)
                # a call into a function still being analysed (recursion) sees it unfinished:
                # results that depend on the order of analysis are never reused
                deps.append((scope, call, qualified, on_self, "<recursive>" if target in self.in_progress else target))
            return self.resolve(scope, call, qualified, on_self)

        fa = FunctionAnalysis(unit, scope.cfg, self.models, scope.params, scope.self_name, name, resolve)
        fa.interop_modules = self.options.interop_modules
        fa.page_size = self.options.page_size
        return fa

    def summary_of(self, qualified: str) -> Summary:
        summary = self._function(qualified, needed=True)
        assert summary is not None
        return summary

    def _function(self, qualified: str, needed: bool) -> Summary | None:
        """Analyses the function `qualified`, once; its summary if `needed`
        (made when first needed: most functions are called by none)."""
        done = self.summaries.get(qualified)
        if done is not None:
            return done
        later = self.later.get(qualified)
        if later is not None:
            if not needed:
                return None
            del self.later[qualified]
            done = self.summaries[qualified] = later()
            return done
        unit, scope = self.functions[qualified]
        if scope.generator:
            return Summary(
                qualified, unit.index, tuple(scope.params), (), scope.self_name is not None, (EMPTY_OUTCOME,)
            )
        if qualified in self.in_progress:  # recursion: see summaries.py
            return Summary(
                qualified, unit.index, tuple(scope.params), (), scope.self_name is not None, (EMPTY_OUTCOME,)
            )
        self.in_progress.add(qualified)
        try:
            violations, summarize = self._evaluate(unit, scope, summary=True)
            assert summarize is not None
        finally:
            self.in_progress.discard(qualified)
        self.violations[(unit.index, self.scope_index[id(scope)])] = violations
        if not needed:
            self.later[qualified] = summarize
            return None
        summary = self.summaries[qualified] = summarize()
        return summary

    def resolve(self, scope: Scope, call: cst.Call, qualified: str, on_self: bool) -> Summary | None:
        target = self._target(scope, call, qualified, on_self)
        return None if target is None else self.summary_of(target)

    def _target(self, scope: Scope, call: cst.Call, qualified: str, on_self: bool) -> str | None:
        """The function of the checked tree that `call` reaches, if any."""
        target: str | None = None
        if on_self and scope.class_qualified and type(call.func) is cst.Attribute:
            candidate = f"{scope.class_qualified}.{call.func.attr.value}"
            target = candidate if candidate in self.functions else None
        elif qualified in self.functions:
            target = qualified
        elif "." in qualified and not qualified.startswith(("?", "self.")):
            # the checked tree's root may differ from the import root: match by suffix
            candidates = self.by_last_name.get(qualified.rpartition(".")[2], ())
            ends = [q for q in candidates if q.endswith("." + qualified) or qualified.endswith("." + q)]
            target = ends[0] if len(ends) == 1 else None
        return target


def _ready(summary: Summary) -> Callable[[], Summary]:
    """A summary already made, as `_evaluate` hands out the ones it makes later."""
    return lambda: summary


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
    files: list[SourceFile], models: ModelSet, options: EngineOptions, stats: list[FunctionStats] | None = None
) -> list[FileReport]:
    """One report per file, in the order given. Never raises for one file's sake:
    an internal error in a file becomes an error entry in its report. With
    `stats`, what each function's analysis cost is appended to it (for the
    benchmarks and the property tests)."""
    with _trees_outside_gc() as collecting:
        return _analyze_project(files, models, options, collecting, stats)


def _analyze_project(
    files: list[SourceFile],
    models: ModelSet,
    options: EngineOptions,
    collecting: bool,
    stats: list[FunctionStats] | None = None,
) -> list[FileReport]:
    reports = [FileReport(f.path) for f in files]
    modnames = unique_module_names(files)
    units: list[Unit | None] = []
    sink = ViolationSink()
    for i, f in enumerate(files):
        units.append(_load(i, f, modnames[i], reports[i], sink, models, options))
        gc.freeze()
    if collecting:
        gc.enable()  # for the analysis's own garbage; the trees are out of its way
    project = Project([u for u in units if u is not None], models, options, reports)
    if stats is not None:
        project.stats = []
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
    project.finish()
    positions = _Positions(units)
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
        rv_unit = units[rv.unit]
        assert rv_unit is not None
        story = tuple(
            StoryStep(units[s.unit].path, positions.span(units[s.unit], s.node), s.label)  # type: ignore[union-attr,arg-type]
            for s in rv.story
        )
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


# libcst's native parser takes time superlinear in the length of an operator
# or attribute chain and overflows the C stack (a crash no handler can catch)
# at a few thousand levels of nesting or about 10,000 chained terms. Such
# files are refused before they reach it: a line with more than this many
# operator characters, or brackets nested deeper than CPython itself accepts.
MAX_OPERATORS_PER_LINE = 2_000
MAX_NESTING = 200  # CPython: "too many nested parentheses"
_OPERATOR_CHARS = frozenset("+-*/%&|^<>@.")
_BRACKETS = re.compile(r"[()\[\]{}]")


def _too_dense(source: str) -> str | None:
    """Why the parser could not survive this source, if it could not."""
    for number, line in enumerate(source.split("\n"), start=1):
        if len(line) > MAX_OPERATORS_PER_LINE and sum(ch in _OPERATOR_CHARS for ch in line) > MAX_OPERATORS_PER_LINE:
            return f"line {number} is too long and dense to parse safely (over {MAX_OPERATORS_PER_LINE:,} operators)"
    if sum(source.count(b) for b in "([{") > MAX_NESTING:
        depth = 0
        for match in _BRACKETS.finditer(source):
            depth += 1 if match.group() in "([{" else -1
            if depth > MAX_NESTING:
                at_line = source.count("\n", 0, match.start()) + 1
                return f"line {at_line}: brackets nested too deeply to parse safely (more than {MAX_NESTING})"
    return None


def _python_syntax_line(source: str) -> int | None:
    """The line CPython reports for a syntax error (libcst's points at a later token)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<ownlint>", "exec", ast.PyCF_ONLY_AST)
    except SyntaxError as error:
        return error.lineno
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


def _load(
    i: int,
    f: SourceFile,
    modname: str,
    report: FileReport,
    sink: ViolationSink,
    models: ModelSet,
    options: EngineOptions,
) -> Unit | None:
    dense = _too_dense(f.source)
    if dense is not None:
        report.errors.append(FileError(f.path, dense))
        return None
    try:
        if options.incremental:
            parsed = _PIECES.parse(f.source)
            module, pieces, tree = parsed.module, parsed.pieces, parsed.tree
        else:
            module, pieces, tree = parse(f.source), (), None
    except cst.ParserSyntaxError as exc:
        python_line = _python_syntax_line(f.source)
        line = max(1, python_line if python_line is not None else exc.raw_line)
        col = exc.raw_column + 1 if python_line in (None, exc.raw_line) else 1
        reason = str(exc.message).splitlines()[0] if exc.message else "invalid syntax"
        sink.add(Violation("OWN001", f.path, Span(line, col, line, col + 1), None, (("reason", reason),)))
        return None
    except RecursionError:
        report.errors.append(FileError(f.path, "too deeply nested to parse"))
        return None
    try:
        names = collect_names(module, modname, is_package=f.path.endswith("__init__.py"), source=f.source)
        constants = module_constants(module, names, models, options.page_size)
    except RecursionError:
        report.errors.append(FileError(f.path, "too deeply nested to analyse"))
        return None
    return Unit(i, f.path, module, names, constants, f.source, pieces, tree)  # type: ignore[arg-type]


__all__ = ["EngineOptions", "SourceFile", "Step", "analyze_project"]
