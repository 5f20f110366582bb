"""The Project class: the units of one run, their scopes, the analysis of each
scope with summaries made on demand, the resolution of calls across modules,
and what incremental checks keep from one check to the next."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import libcst as cst

from ownlint.diagnostics import FileError, FileReport
from ownlint.engine.evaluator import field_fates
from ownlint.engine.evaluator.field_fates import FieldFate
from ownlint.engine.evaluator.typestate import FunctionAnalysis, RawViolation, Unit
from ownlint.engine.events import ModuleLoaded, subscribers
from ownlint.engine.frontend.cfg_builder import build_function_cfg, build_module_cfg
from ownlint.engine.frontend.names import ModuleNames
from ownlint.engine.frontend.scopes import Scope, assignments, collect_scopes, dataclass_fields, module_bindings
from ownlint.engine.modelling.models import ModelSet
from ownlint.engine.program import raising
from ownlint.engine.program.demand import Demand
from ownlint.engine.program.sources import EngineOptions
from ownlint.engine.program.summaries import EMPTY_OUTCOME, FromParam, Outcome, Summary


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


# A helper is analysed when a caller first needs its summary, inside the
# caller's analysis, so a chain of calls nests analyses (and Python frames).
# Past MAX_CALL_DEPTH analyses under way, a call to a helper not yet analysed
# is taken to have no effect and to return nothing known, as a recursive
# call is (summaries.py); the helper is analysed later on its own. What it
# gives up: effects that reach the caller only through a chain of more than
# MAX_CALL_DEPTH helpers. The Clang analyzer inlines 5 calls deep.
MAX_CALL_DEPTH = 16


class Project:
    """The units of one run, their scopes, and the summaries computed on demand."""

    def __init__(self, units: list[Unit], models: ModelSet, options: EngineOptions, reports: list[FileReport]) -> None:
        self.models = models
        self.options = options
        self.subscribers = subscribers(options.checkers)
        self.scopes: dict[int, list[Scope]] = {}
        self.functions: dict[str, tuple[Unit, Scope]] = {}
        self.by_last_name: dict[str, list[str]] = {}
        self.by_suffix: dict[str, str | None] = {}  # `_target`'s match of a dotted callee by suffix, once each
        # the project's classes (`mod.Class`) and their bases, qualified as the class's module spells them
        self.classes: dict[str, tuple[str, ...]] = {}
        self.inherited: dict[str, str | None] = {}  # `_inherited`'s answers, once each
        self.late: dict[tuple[str, str], bool] = {}  # `_rebinds`' answers, once each
        self.self_calls: dict[str, frozenset[str]] = {}  # the methods a method calls on its `self`
        self.class_of: dict[str, str | None] = {}  # `_class`'s answers, once each
        self.methods: dict[str, list[tuple[Unit, Scope]]] = {}  # class -> its methods
        # dataclasses with no `__init__` of their own: class -> (its file, its fields, their literal defaults)
        self.dataclasses: dict[str, tuple[int, tuple[str, ...], tuple[tuple[int, object], ...]]] = {}
        self.attribute_classes: dict[str, dict[str, str]] = {}  # `field_classes`' answers, once each
        self.module_classes: dict[int, dict[str, str]] = {}  # `global_classes`' answers, by unit
        self.fates: dict[tuple[str, str, bool], FieldFate] = {}  # `field_fate`'s answers, once each
        self.related: dict[str, tuple[str, ...]] = {}  # `_related`'s answers, once each
        self.ancestry: dict[str, tuple[str, ...]] = {}  # `_bases`' answers, once each
        # id(scope) of a method -> the nodes `field_fate` reads of it, and whether it releases a field
        self.method_reads: dict[int, tuple[tuple[cst.CSTNode, ...], bool]] = {}
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
        if self.subscribers["death"] or self.subscribers["frame_end"]:
            self._raise_edges()
        # the functions analysed only when a caller needs their summary (demand.py)
        self.inert: set[str] = self._inert() if options.demand else set()

    def _add(self, unit: Unit) -> None:
        """Build the scopes and control-flow graphs of one file."""
        models = self.models
        names = unit.names

        call_raises = _Raising(models, names)

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
            if sc.defines and sc.defines not in self.classes:
                self.classes[sc.defines] = tuple(q for b in sc.bases if (q := names.qualify(b)) and q[0] != "?")
                generated = dataclass_fields(sc.cfg.node, names.qualify)
                if generated is not None:
                    self.dataclasses[sc.defines] = (unit.index, *generated)
            if sc.class_qualified and sc.self_name is not None:
                self.methods.setdefault(sc.class_qualified, []).append((unit, sc))
            if sc.qualified and sc.qualified not in self.functions:
                self.functions[sc.qualified] = (unit, sc)
                self.by_last_name.setdefault(sc.qualified.rpartition(".")[2], []).append(sc.qualified)

    def _raise_edges(self) -> None:
        """Give the calls to functions of the program that may raise
        (raising.py) their way out by an exception, in the control-flow
        graphs of the functions that make them (built again, those only)."""
        targets: dict[int, str | None] = {}  # id(call) -> the function it reaches
        calls: dict[int, list[cst.Call]] = {}  # id(function node) -> its own calls
        no_return = self.models.no_return

        def target(unit: Unit, scope: Scope, call: cst.Call) -> str | None:
            if id(call) not in targets:
                qualified = unit.names.qualify(call.func) or "?"
                func = call.func
                on_self = (
                    scope.self_name is not None
                    and type(func) is cst.Attribute
                    and type(func.value) is cst.Name
                    and func.value.value == scope.self_name
                )
                targets[id(call)] = self._target(scope, call, qualified, on_self)
            return targets[id(call)]

        def calls_of(node: cst.CSTNode) -> list[cst.Call]:
            if id(node) not in calls:
                calls[id(node)] = raising.own_calls(node)
            return calls[id(node)]

        by_unit: dict[int, list[str]] = {}  # a file -> the functions of it that calls can reach
        for q, (unit, sc) in self.functions.items():
            if _is_def(sc):
                by_unit.setdefault(unit.index, []).append(q)
        spells_raise = ("raise", "assert", *{n.rpartition(".")[2] for n in no_return})
        raisers: list[str] = []
        for unit in self.units:
            if unit.index in by_unit and (not unit.source or any(w in unit.source for w in spells_raise)):
                qualify = unit.names.qualify

                def never_returns(
                    call: cst.Call, qualify: Callable[[cst.BaseExpression], str | None] = qualify
                ) -> bool:
                    return (qualify(call.func) or "?") in no_return

                raisers += (
                    q
                    for q in by_unit[unit.index]
                    if raising.raises_itself(self.functions[q][1].cfg.node, never_returns)
                )

        def callers(last: frozenset[str]) -> list[tuple[str, list[cst.Call]]]:
            return [
                (q, calls_of(self.functions[q][1].cfg.node))
                for unit in self.units
                if unit.index in by_unit and (not unit.source or any(n in unit.source for n in last))
                for q in by_unit[unit.index]
            ]

        found = raising.may_raise(raisers, callers, lambda q, call: target(*self.functions[q], call))
        last = raising.last_names(found)
        for unit in self.units:
            spelled = not unit.source or any(n in unit.source for n in last)
            for sc in self.scopes[unit.index]:
                if sc.plain is not None:  # built again by an earlier check (incremental mode)
                    sc.cfg, sc.plain = sc.plain, None
                if not spelled or not _is_def(sc):
                    continue

                def reaches(call: cst.Call, unit: Unit = unit, sc: Scope = sc) -> str | None:
                    return target(unit, sc, call)

                node = cast("cst.FunctionDef", sc.cfg.node)
                if raising.calls_one(calls_of(node), found, last, reaches):
                    sc.plain = sc.cfg
                    leaves = _Leaves(found, last, reaches)
                    sc.cfg = build_function_cfg(node, sc.cfg.name, _Raising(self.models, unit.names, leaves))

    def _inert(self) -> set[str]:
        functions = {q: (unit, sc.cfg.node, sc.class_qualified) for q, (unit, sc) in self.functions.items()}
        units = {u.index: u for u in self.units}
        classes = {}
        for index, scopes in self.scopes.items():
            for sc in scopes:
                if sc.defines and sc.defines in self.classes and sc.defines not in classes:
                    classes[sc.defines] = (units[index], sc.cfg.node, self.classes[sc.defines])
        fields = {c: self.field_classes(c) for c in self.methods}
        return Demand(self.models).solve(self.units, functions, classes, fields)

    def analyze_unit(self, unit: Unit) -> list[RawViolation]:
        out: list[RawViolation] = []
        handlers = self.subscribers["module_loaded"]
        if handlers:
            loaded = ModuleLoaded(unit, self.models, out)
            for handler in handlers:
                handler(loaded)
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
        self, unit: Unit, scope: Scope, summary: bool, receiver: str | None = None
    ) -> tuple[list[RawViolation], Callable[[], Summary] | None]:
        """Runs the analysis of `scope` (or, incrementally, reuses its last
        results): its violations and, if `summary`, what makes its summary.
        With `receiver`, an inherited method analysed for an object of that
        class (`_late`): never kept for the next check."""
        context = self.context.get(unit.index) if receiver is None else None
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
        fa = self._analysis(unit, scope, deps, receiver)
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
        fa.close()
        note = (fa.name or scope.cfg.name, fa.budget_note) if fa.budget_note else None
        if note is not None:
            self.budget_notes.append((unit, scope.cfg.node, *note))
        if context is not None and deps is not None:  # the next check may reuse the summary: made now
            made = summarize() if summarize is not None else None
            if not fa.asked_class:
                self.kept.setdefault(unit.path, {})[id(scope)] = _Reused(scope, context, deps, violations, made, note)
            summarize = _ready(made) if made is not None else None
        return violations, summarize

    def _still_hold(self, deps: list[tuple[Scope, cst.Call, str, bool, str | None]]) -> bool:
        for scope, call, qualified, on_self, target in deps:
            if self._target(scope, call, qualified, on_self) != target:
                return False
            if target is not None and "@" in target:
                return False  # an inherited method analysed for a derived class (`_late`): never kept
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
        self,
        unit: Unit,
        scope: Scope,
        deps: list[tuple[Scope, cst.Call, str, bool, str | None]] | None = None,
        receiver: str | None = None,
    ) -> FunctionAnalysis:
        name = scope.qualified.rpartition(".")[2] if scope.qualified else scope.cfg.name
        if scope.class_qualified:
            name = f"{scope.class_qualified.rpartition('.')[2]}.{name}"

        def resolve(call: cst.Call, qualified: str, on_self: bool) -> Summary | None:
            if deps is not None:
                target = self._target(scope, call, qualified, on_self)
                # a call into a function still being analysed (recursion) sees it unfinished:
                # results that depend on the order of analysis are never reused
                deps.append((scope, call, qualified, on_self, "<recursive>" if self._cut(target) else target))
            return self.resolve(scope, call, qualified, on_self, receiver)

        fa = FunctionAnalysis(
            unit, scope.cfg, self.models, scope.params, scope.self_name, name, resolve, self.options.checkers
        )
        if scope.class_qualified and scope.self_name is not None:
            owner = receiver or scope.class_qualified
            fa.field_classes = lambda: self.field_classes(owner)

            def fate(attr: str, elements: bool) -> FieldFate:
                fa.asked_class = True  # its results depend on the other methods of its class
                return self.field_fate(owner, attr, elements)

            fa.field_fate = fate
        fa.global_classes = lambda: self.global_classes(unit)
        if scope.generator and _context_generator(scope.cfg.node, unit.names):
            fa.yields = {}
        fa.linear = scope.qualified in self.inert  # analysed only for a caller's summary (demand.py)
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
        defined, _, receiver = qualified.partition("@")  # `_late`'s name of an inherited method
        unit, scope = self.functions[defined]
        if not needed and not receiver and qualified in self.inert:  # analysed only if a caller needs it
            self.violations.setdefault((unit.index, self.scope_index[id(scope)]), [])
            return None
        if scope.generator and not _context_generator(scope.cfg.node, unit.names):
            return Summary(
                qualified, unit.index, tuple(scope.params), (), scope.self_name is not None, (EMPTY_OUTCOME,)
            )
        if qualified in self.in_progress or len(self.in_progress) >= MAX_CALL_DEPTH:  # see summaries.py
            return Summary(
                qualified, unit.index, tuple(scope.params), (), scope.self_name is not None, (EMPTY_OUTCOME,)
            )
        self.in_progress.add(qualified)
        try:
            violations, summarize = self._evaluate(unit, scope, summary=True, receiver=receiver or None)
            assert summarize is not None
        finally:
            self.in_progress.discard(qualified)
        if not receiver:  # the method's own findings come from its analysis for its own class
            if qualified in self.inert:  # no finding of its own (demand.py)
                self.violations.setdefault((unit.index, self.scope_index[id(scope)]), [])
            else:
                self.violations[(unit.index, self.scope_index[id(scope)])] = violations
        if not needed:
            self.later[qualified] = summarize
            return None
        summary = self.summaries[qualified] = summarize()
        return summary

    def _cut(self, target: str | None) -> bool:
        """Whether a call to `target` now gets no summary of its own: a
        recursive call, or one past MAX_CALL_DEPTH nested analyses."""
        if target is None:
            return False
        if target in self.in_progress:
            return True
        return len(self.in_progress) >= MAX_CALL_DEPTH and target not in self.summaries and target not in self.later

    def resolve(
        self, scope: Scope, call: cst.Call, qualified: str, on_self: bool, receiver: str | None = None
    ) -> Summary | None:
        target = self._target(scope, call, qualified, on_self, receiver)
        if target is None and qualified.endswith(".__init__"):
            return self._generated_init(qualified[: -len(".__init__")])
        return None if target is None else self.summary_of(target)

    def _generated_init(self, spelled: str) -> Summary | None:
        """The `__init__` a `@dataclass` generates for a project class that
        defines none: each field (an annotated name of the class body, in
        order, a literal default where one is written) is a parameter stored
        in the attribute of its name. None for any other class."""
        cls = spelled if spelled in self.dataclasses else self._class(spelled)
        fields = self.dataclasses.get(cls) if cls is not None else None
        if cls is None or fields is None:
            return None
        unit_index, names, defaults = fields
        params = ("self", *names)
        rebinds = tuple(sorted((name, FromParam(1 + i)) for i, name in enumerate(names)))
        outcome = Outcome((), (), (), rebinds, None)
        return Summary(f"{cls.rpartition('.')[2]}.__init__", unit_index, params, defaults, True, (outcome,))

    def _target(
        self, scope: Scope, call: cst.Call, qualified: str, on_self: bool, receiver: str | None = None
    ) -> str | None:
        """The function of the checked tree that `call` reaches, if any
        (`receiver`: the class of the object `scope`'s `self` is, where it is
        analysed for a class derived from its own, `_late`)."""
        target: str | None = None
        own = receiver or scope.class_qualified
        if qualified.startswith("super().") and scope.class_qualified and own:
            # `super().m(...)` in a method: `m` of the first base (in order) that has it
            method = qualified[len("super().") :]
            for base in self.classes.get(scope.class_qualified, ()):
                target = self._inherited(f"{base}.{method}")
                if target is not None:
                    return self._late(target, own)
        elif on_self and own and type(call.func) is cst.Attribute:
            target = self._inherited(f"{own}.{call.func.attr.value}")
            if target is not None:
                return self._late(target, own)
        elif qualified in self.functions:
            target = qualified
        elif "." in qualified and not qualified.startswith(("?", "self.")):
            target = self._by_suffix(qualified, self.by_last_name)
            if target is None:
                target = self._inherited(qualified)
                cls = self._class(qualified.rpartition(".")[0])
                if target is not None and cls is not None:
                    return self._late(target, cls)
        return target

    def _late(self, target: str, receiver: str) -> str:
        """`target`, a method reached on an object of the class `receiver`:
        where it is inherited and a `self.m()` in it (or in a method it calls
        so) reaches another method on `receiver` than on its own class (an
        override), the name `target@receiver`, analysed with its `self` of
        that class (late binding, as Python resolves `self.m()`)."""
        own = self.functions[target][1].class_qualified
        if own is None or own == receiver or not self._rebinds(target, receiver):
            return target
        return f"{target}@{receiver}"

    def _rebinds(self, target: str, receiver: str) -> bool:
        """Whether a `self.m()` in `target` (or, in turn, in a method it so
        calls) reaches another method on `receiver` than on `target`'s class."""
        key = (target, receiver)
        if key in self.late:
            return self.late[key]
        self.late[key] = False  # a cycle of calls ends here
        scope = self.functions[target][1]
        own = scope.class_qualified
        found = False
        for name in self._self_calls(target):
            there = self._inherited(f"{receiver}.{name}")
            if there != self._inherited(f"{own}.{name}") or (there is not None and self._rebinds(there, receiver)):
                found = True
                break
        self.late[key] = found
        return found

    def _self_calls(self, target: str) -> frozenset[str]:
        """The names `m` of the calls `self.m(...)` in the method `target`."""
        done = self.self_calls.get(target)
        if done is None:
            scope = self.functions[target][1]
            done = self.self_calls[target] = (
                frozenset(_self_calls(scope.cfg.node, scope.self_name)) if scope.self_name else frozenset()
            )
        return done

    def _by_suffix(self, qualified: str, by_last_name: dict[str, list[str]]) -> str | None:
        """The one function of the checked tree whose qualified name ends like
        `qualified` or that `qualified` ends with: the checked tree's root may
        differ from the import root (a common last name has many candidates,
        and the same call is evaluated on every path: answered once each)."""
        if qualified not in self.by_suffix:
            candidates = by_last_name.get(qualified.rpartition(".")[2], ())
            ends = [q for q in candidates if q.endswith("." + qualified) or qualified.endswith("." + q)]
            self.by_suffix[qualified] = ends[0] if len(ends) == 1 else None
        return self.by_suffix[qualified]

    def _inherited(self, qualified: str) -> str | None:
        """`Class.method` where `Class` is one of the project's classes: the
        method it defines, or the one it inherits (its bases searched depth
        first, left to right: Python's order wherever no two bases share a
        base of their own). None where the class or the method is unknown."""
        if qualified in self.inherited:
            return self.inherited[qualified]
        self.inherited[qualified] = None  # a cycle of bases ends here
        cls, _, method = qualified.rpartition(".")
        found: str | None = None
        known = cls if cls in self.classes else self._class(cls)
        if known is not None:
            if f"{known}.{method}" in self.functions:
                found = f"{known}.{method}"
            else:
                for base in self.classes[known]:
                    found = self._inherited(f"{base}.{method}")
                    if found is not None:
                        break
        self.inherited[qualified] = found
        return found

    def field_classes(self, cls: str) -> dict[str, str]:
        """The attributes of `cls`'s objects known to hold an object of one
        project class: every assignment of `self.<attr>` in the methods of
        `cls` and of its bases builds that class (`self.prior =
        Pipeline(...)`) or is None, and at least one builds it. An attribute
        also assigned anything else, unpacked into, deleted or augmented is
        not one of them. Assignments from outside the class
        (`demo.prior = other`) are not seen."""
        done = self.attribute_classes.get(cls)
        if done is not None:
            return done
        self.attribute_classes[cls] = {}  # a cycle of bases ends here
        seen: dict[str, str | None] = {}
        for unit, scope in self.methods.get(cls, ()):
            assert scope.self_name is not None
            for attr, what in assignments(scope.cfg.node, scope.self_name):
                if what is None:  # `self.x = None`
                    seen.setdefault(attr, "")
                    continue
                known = None
                if type(what) is cst.Call:
                    qualified = unit.names.qualify(what.func)
                    known = self._class(qualified) if qualified is not None else None
                before = seen.get(attr, "")
                seen[attr] = known if known is not None and before in ("", known) else None
        out = {attr: c for attr, c in seen.items() if c}
        for base in self.classes.get(cls, ()):
            known = base if base in self.classes else self._class(base)
            if known is not None:
                for attr, c in self.field_classes(known).items():
                    if attr not in seen:
                        out[attr] = c
        self.attribute_classes[cls] = out
        return out

    def global_classes(self, unit: Unit) -> dict[str, str]:
        """The module globals of `unit` known to hold an object of one project
        class: bound once at module level, by `g = C(...)`, and never bound
        anywhere else in the module (a `global g` declaration, another
        assignment, an import, a loop or `with` target) nor given an attribute
        outside a method of its class (`g.x = ...`, `del g.x`), by the text."""
        done = self.module_classes.get(unit.index)
        if done is not None:
            return done
        built: dict[str, str | None] = {}
        for name, call in module_bindings(unit.module):
            known = None
            if call is not None and name not in built:
                qualified = unit.names.qualify(call.func)
                known = self._class(qualified) if qualified is not None else None
            built[name] = known
        out = {}
        for name, cls in built.items():
            if cls is None:
                continue
            if unit.declares_outer and re.search(rf"^[ \t]*global\b[^\n]*\b{re.escape(name)}\b", unit.source, re.M):
                continue
            if re.search(_ATTRIBUTE_BOUND.replace("NAME", re.escape(name)), unit.source):
                continue
            out[name] = cls
        self.module_classes[unit.index] = out
        return out

    def field_fate(self, cls: str, attr: str, elements: bool) -> FieldFate:
        """What the methods of `cls`, of its project bases and of the
        project classes derived from it may do to what `self.<attr>` holds
        (field_fates.py): whether one may let go of it, and the methods that
        give some attribute to a model's release."""
        key = (cls, attr, elements)
        done = self.fates.get(key)
        if done is not None:
            return done
        lets_go_in: list[str] = []
        releasers: list[str] = []
        for c in self._related(cls):
            for unit, scope in self.methods.get(c, ()):
                node, self_name = scope.cfg.node, scope.self_name
                if type(node) is not cst.FunctionDef or self_name is None:
                    continue
                name = f"{c.rpartition('.')[2]}.{node.name.value}"
                read = self.method_reads.get(id(scope))
                if read is None:
                    nodes = field_fates.statements(node)
                    read = self.method_reads[id(scope)] = (
                        nodes,
                        field_fates.releases_some_field(nodes, self_name, unit.names, self.models),
                    )
                if field_fates.lets_go(read[0], self_name, attr, unit.names, self.models, elements):
                    lets_go_in.append(name)
                if read[1]:
                    releasers.append(name)
        done = self.fates[key] = FieldFate(cls.rpartition(".")[2], tuple(lets_go_in), tuple(releasers))
        return done

    def _related(self, cls: str) -> tuple[str, ...]:
        """`cls`, its project bases (transitively) and the project classes derived from it."""
        done = self.related.get(cls)
        if done is not None:
            return done
        bases = self._bases(cls)
        derived = [c for c in self.classes if c not in bases and cls in self._bases(c)]
        done = self.related[cls] = (*bases, *derived)
        return done

    def _bases(self, cls: str) -> tuple[str, ...]:
        """`cls` and its project bases, transitively."""
        done = self.ancestry.get(cls)
        if done is not None:
            return done
        out = [cls]
        i = 0
        while i < len(out):
            for base in self.classes.get(out[i], ()):
                known = base if base in self.classes else self._class(base)
                if known is not None and known not in out:
                    out.append(known)
            i += 1
        done = self.ancestry[cls] = tuple(out)
        return done

    def _class(self, spelled: str) -> str | None:
        """The project class `spelled` names: matched by suffix as functions
        are, or else the one class of that name in a module below the package
        `spelled` names (`pipeline.Pipeline` for `pipeline/pipeline_base.py`'s
        class, which the package's `__init__` re-exports)."""
        if not spelled or spelled[0] == "?":
            return None
        if spelled in self.class_of:
            return self.class_of[spelled]
        found = self.class_of[spelled] = self._match_class(spelled)
        return found

    def _match_class(self, spelled: str) -> str | None:
        package, _, last = spelled.rpartition(".")
        same = [q for q in self.classes if q.rpartition(".")[2] == last]
        ends = [q for q in same if q == spelled or q.endswith("." + spelled) or spelled.endswith("." + q)]
        if not ends and package:
            ends = [q for q in same if q.startswith(package + ".") or f".{package}." in q]
        return ends[0] if len(ends) == 1 else None


def _self_calls(node: cst.CSTNode, self_name: str) -> set[str]:
    """The names `m` of the calls `<self_name>.m(...)` anywhere in `node`."""
    found: set[str] = set()

    class Calls(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            f = call.func
            if type(f) is cst.Attribute and type(f.value) is cst.Name and f.value.value == self_name:
                found.add(f.attr.value)

    node.visit(Calls())
    return found


# where a module global `NAME` has an attribute bound, deleted or augmented, by the text
# (an annotated assignment `NAME.x: T = ...` as well, and, for safety, any `NAME.x:`)
_ATTRIBUTE_BOUND = r"(\bdel\s+|\bsetattr\(\s*)NAME\b|\bNAME\.\w+\s*(:|(\*\*|//|>>|<<|[-+*/%&|^@])?=(?!=))"


def _context_generator(node: cst.CSTNode, names: ModuleNames) -> bool:
    """Whether `node` is a generator function decorated `@contextlib.contextmanager`."""
    if type(node) is not cst.FunctionDef:
        return False
    return any(names.qualify(d.decorator) == "contextlib.contextmanager" for d in node.decorators)


def _ready(summary: Summary) -> Callable[[], Summary]:
    """A summary already made, as `_evaluate` hands out the ones it makes later."""
    return lambda: summary


def _is_def(scope: Scope) -> bool:
    return type(scope.cfg.node) is cst.FunctionDef


class _Leaves:
    """Whether a call reaches a function that may raise."""

    __slots__ = ("found", "last", "reaches")

    def __init__(self, found: frozenset[str], last: frozenset[str], reaches: Callable[[cst.Call], str | None]) -> None:
        self.found = found
        self.last = last
        self.reaches = reaches

    def __call__(self, call: cst.Call) -> bool:
        return raising.calls_one([call], self.found, self.last, self.reaches)


class _Raising:
    """What the models say of one file's calls raising (cfg.CallRaises), and
    (`raising`) which calls go to a function of the program that may raise."""

    __slots__ = ("models", "names", "raising")

    def __init__(self, models: ModelSet, names: ModuleNames, raising: Callable[[cst.Call], bool] | None = None) -> None:
        self.models = models
        self.names = names
        self.raising = raising

    def __call__(self, call: cst.Call) -> bool:
        return not self.models.never_raises(self.names.qualify(call.func) or "?")

    def expected(self, call: cst.Call) -> bool:
        return self.models.expects_raise(self.names.qualify(call.func) or "?")

    def never_returns(self, call: cst.Call) -> bool:
        return (self.names.qualify(call.func) or "?") in self.models.no_return
