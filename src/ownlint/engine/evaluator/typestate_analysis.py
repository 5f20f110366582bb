"""`FunctionAnalysis`, the driver of the typestate analysis of one function:
its budgets, the solver run, the step of one CFG element (forking where a
call has several outcomes), the conditions assumed on edges, and reporting.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import cast

import libcst as cst

from ownlint.engine.evaluator.field_fates import FieldFate
from ownlint.engine.evaluator.objects import annotated_instances
from ownlint.engine.evaluator.solver import Solution, solve
from ownlint.engine.evaluator.typestate_base import (
    BudgetExceeded,
    RawViolation,
    Resolver,
    Unit,
    _Dead,
    _declared_outer,
    _Fork,
    bound_names,
    literal,
    target_key,
)
from ownlint.engine.evaluator.typestate_calls import annotated_receivers
from ownlint.engine.evaluator.typestate_eval import Evaluator
from ownlint.engine.events import Assume, Death, FrameEnd, WithExit, subscribers
from ownlint.engine.frontend.cfg import CFG, Block, Edge, Elem
from ownlint.engine.frontend.walk import statements, walk
from ownlint.engine.modelling.models import ModelSet
from ownlint.engine.program.summaries import EMPTY_OUTCOME, ENTRY, GLOBAL, RETURN_KEY, Outcome, Summary, outcome_of
from ownlint.engine.values import equalities, status
from ownlint.engine.values.domain import LOOP_VISITS
from ownlint.engine.values.iteration import Previous
from ownlint.engine.values.state import FREED, OWNER, HState, PathState, Step
from ownlint.engine.values.stateset import MAX_PATHS, StateSet
from ownlint.engine.values.values import At, Const, Field, Instance, Obj, Param, Site, Status, Val, objects_in


class FunctionAnalysis:
    """Runs the typestate analysis over one CFG and collects violations."""

    def __init__(
        self,
        unit: Unit,
        cfg: CFG,
        models: ModelSet,
        params: list[str],
        self_name: str | None = None,
        name: str = "",
        resolver: Resolver | None = None,
        checkers: tuple[str, ...] = (),
    ) -> None:
        self.unit = unit
        self.subscribers = subscribers(checkers)
        self.name = name
        self.resolver = resolver
        self.fields: dict[str, Obj] = {}  # self.x read before any write -> its object
        # the attributes of `self` that hold an object of one project class (whole_program.py)
        self.field_classes: Callable[[], Mapping[str, str]] = _no_field_classes
        # the module globals bound once to an object of one project class (whole_program.py)
        self.global_classes: Callable[[], Mapping[str, str]] = _no_field_classes
        # for a `@contextmanager` generator (whole_program.py): what callers see of each state
        # at its `yield` (`yielded`), and the objects it yielded; None for any other function
        self.yields: dict[Outcome, None] | None = None
        self.yielded: dict[Obj, None] = {}
        # what the methods of its class may do to an attribute's value (whole_program.py; None: not a method)
        self.field_fate: Callable[[str, bool], FieldFate | None] = _no_field_fate
        self.last_in_text: cst.CSTNode | None = None  # the function's last statement in its text (`last_statement`)
        self.asked_class = False  # whether `field_fate` was asked (its results then depend on other methods)
        self.evaluator: Evaluator | None = None  # made at the first element run, then pointed at each (Evaluator.begin)
        self.interop_modules: tuple[str, ...] = ()
        self.page_size: int | None = None  # None: the symbol P
        # `global` / `nonlocal` names (none to look for where the text has neither word)
        self.outer_names = _declared_outer(cfg.node) if unit.declares_outer else set()
        self._bound: set[str] | None = None  # the names it binds itself (`binds`), made when first asked
        self.captured: dict[int, set[str]] = {}  # nested function or lambda -> the names it uses
        self.cfg = cfg
        self.models = models
        self.names = unit.names
        self.params = params
        self.self_name = self_name
        self.sites: dict[tuple[int, str, int | str], Site] = {}
        self.creators: dict[Obj, str] = {}  # a handle a call returned -> the callee, qualified
        self.violations: list[RawViolation] | None = None  # where `report` collects, while `run` runs
        self.at: cst.CSTNode | None = None  # the statement of the element being run
        self.solution: Solution[StateSet] | None = None
        self.budget_note = ""
        # whether the paths reaching the block being run were merged past the
        # path budget (stateset.py), forgetting names and facts
        self.merged = False
        self.steps = 0
        # path-insensitive: the path states merged at every join and after
        # every block (code that can touch no tracked value, demand.py: its
        # cost is then linear in its size, and a merge there forgets nothing tracked)
        self.linear = False

    # -- driver ------------------------------------------------------------
    def initial(self) -> StateSet:
        env: dict[str, Val] = {p: Param.of(i) for i, p in enumerate(self.params)}
        instances = annotated_instances(self)  # `buf: HostBuffer`: an object of a project class
        env.update(instances)
        for param, cls in annotated_receivers(self).items():  # `mr: MemoryResource`: a receiver of a modelled class
            if self.params[param.index] not in instances:
                self.creators[param] = cls
        return StateSet.of([PathState(env, {}, {})])

    # Budgets. The states kept at a block grow with the names a function binds
    # and the paths through it; a function whose blocks times names exceed
    # SIZE_BUDGET is not analysed at all. Otherwise the analysis counts steps:
    # one for each element of a block it runs on a path state, and one for
    # each expression it evaluates (so a re-run for a fork counts again). A
    # function may take STEPS_PER_NODE steps for each node of its syntax
    # tree (its size: names, literals, operators, calls, statements, ...),
    # and at least MIN_STEPS. Past that the analysis stops: `budget_note` says
    # so, the findings proved until then are kept, and its summary has no
    # effect. A step does a bounded amount of work (the values it reads and
    # makes are bounded, domain.py), so the cost of a function is at most its
    # size times a constant. The count is deterministic: the same function
    # stops at the same place on any machine.
    SIZE_BUDGET = 4_000_000
    STEPS_PER_NODE = 200
    MIN_STEPS = 20_000
    # forks of expression-level branches (and calls with several outcomes)
    # one function may make; past it, a fork takes its first way only
    FORK_BUDGET = 4_096
    COPY_ENTRIES = 16

    def run(self) -> list[RawViolation]:
        self.budget_note = ""
        self.steps = 0
        self.forks = 0
        elems = sum(len(b.elems) for b in self.cfg.blocks)
        # a lower bound of the size until the limit is reached (see `over_budget`)
        self.step_limit = max(self.MIN_STEPS, self.STEPS_PER_NODE * (elems + len(self.params)))
        self.sized = False
        size = len(self.cfg.blocks) * (len(self.params) + elems)
        if size > self.SIZE_BUDGET:
            self.budget_note = (
                f"too large to analyse ({len(self.cfg.blocks)} blocks, {len(self.params) + elems} names and steps)"
            )
            return []
        # Findings are collected as the solver goes, a block's from its latest
        # run: a worklist solver runs a block again whenever its entry state
        # changes, so its latest run is from its final state (no second pass
        # over the function). Not so where the visit budget cut the solver
        # short: then the blocks are run again from their final states.
        found: dict[int, list[RawViolation]] = {}

        def transfer(block: Block, states: StateSet) -> StateSet:
            self.violations = found[block.id] = []
            return self.transfer(block, states)

        try:
            self.solution = solve(
                self.cfg,
                self.initial(),
                transfer,
                StateSet.join_merged if self.linear else StateSet.join,
                self.edge,
                widen=StateSet.widen,
                widen_after=LOOP_VISITS,
            )
            if self.solution.budget_hit:
                for bid, state in self.solution.ins.items():
                    transfer(self.cfg.blocks[bid], state)
            self.violations = [v for bid in self.solution.ins for v in found.get(bid, ())]
        except BudgetExceeded:
            # every finding recorded so far rests on a path the analysis proved
            # (the states only grow), so they stand; the latest run of each block
            # holds its findings from every earlier run
            self.solution, self.violations = None, None
            self.budget_note = f"used all of its {self.step_limit:,} steps"
            return [v for bid in sorted(found) for v in found[bid]]
        if self.budget_hit and not self.linear:
            self.budget_note = f"has more than {MAX_PATHS} distinct paths at some point: they were merged"
        elif self.forks >= self.FORK_BUDGET and not self.linear:
            self.budget_note = (
                f"branches inside expressions more than {self.FORK_BUDGET:,} times: later ones were followed one way"
            )
        out, self.violations = self.violations, None
        return out

    def close(self) -> None:
        """The analysis has ended (`run`, and `summary_later` if wanted): its
        evaluator is let go (`Evaluator.close`), and so are its states and the
        hook of the whole program that holds it back (`field_fate`)."""
        if self.evaluator is not None:
            self.evaluator.close()
            self.evaluator = None
        self.solution = None
        self.field_fate = _no_field_fate

    def summary(self, defaults: tuple[tuple[int, object], ...] = ()) -> Summary:
        """What callers see of this function (after `run`); nothing, past a budget."""
        return self.summary_later(defaults)()

    def summary_later(self, defaults: tuple[tuple[int, object], ...] = ()) -> Callable[[], Summary]:
        """What makes `summary` when called (most functions' summaries are never
        asked for: nothing calls them). It holds the states at the exit and
        what they are read with, not the analysis (which would keep every
        block's states alive: 99 instead of 63 MB on the dense corpus)."""
        name, index, params, fields, self_name = self.name, self.unit.index, self.params, self.fields, self.self_name
        creators = self.creators  # a dict the closure holds, not the analysis
        prop = _is_property(self.cfg.node) if self_name is not None else False
        if self.solution is None:  # past a budget: no effect
            return lambda: Summary(
                name, index, tuple(params), defaults, self_name is not None, (EMPTY_OUTCOME,), is_property=prop
            )
        exits = self.solution.ins.get(self.cfg.exit)
        if self.yields is not None:
            return self._context_summary(defaults, list(exits or ()))

        def make() -> Summary:
            outcomes: dict[Outcome, None] = {}
            for st in exits or ():
                outcomes[outcome_of(st, params, fields, self_name, creators)] = None
            return Summary(
                name, index, tuple(params), defaults, self_name is not None, tuple(outcomes), is_property=prop
            )

        return make

    def yielded_at(self, value: Val, st: PathState) -> None:
        """A `@contextmanager` generator yields `value` in `st`: to its callers, what a
        `with` on it enters (the state projected as if it returned `value`)."""
        if self.yields is None:
            return
        at = st.copy()
        at.env[RETURN_KEY] = value
        for obj, hs in list(at.heap.items()):
            if hs.kind == OWNER and not hs.escaped and not obj.on_entry:
                # the suspended generator's frame keeps its local owners alive through the `with` block
                at.heap[obj] = hs.but(escaped=True)
        self.yields[outcome_of(at, self.params, self.fields, self.self_name, self.creators)] = None
        for obj in objects_in(value):
            self.yielded[obj] = None

    def _context_summary(
        self, defaults: tuple[tuple[int, object], ...], exits: list[PathState]
    ) -> Callable[[], Summary]:
        """The summary of a `@contextmanager` generator: entering it is reaching its
        `yield`; leaving the `with` block runs the rest, whose effect on the one
        object it yielded is kept where every normal exit releases it."""
        name, index, params, self_name = self.name, self.unit.index, self.params, self.self_name
        outcomes = tuple(self.yields or ()) or (EMPTY_OUTCOME,)
        resumed: HState | None = None
        if len(self.yielded) == 1 and exits:
            obj = next(iter(self.yielded))
            ends = [st.heap.get(obj) for st in exits]
            if all(hs is not None and hs.kind == FREED and not hs.reported for hs in ends):
                resumed = ends[0]
        return lambda: Summary(name, index, tuple(params), defaults, self_name is not None, outcomes, resumed)

    def field_object(self, attr: str) -> Obj:
        obj = self.fields.get(attr)
        if obj is None:
            obj = self.fields[attr] = Field.of(attr)
        return obj

    def entry_attribute(self, attr: str) -> Obj:
        """What `self.<attr>` holds on entry: an object of the project class
        every assignment of the attribute in the class builds (`field_classes`),
        whose own attributes are followed as fields `<attr>.<x>`; otherwise the
        field's object."""
        cls = self.field_classes().get(attr) if self.self_name is not None else None
        if cls is None:
            return self.field_object(attr)
        key = (id(self.cfg), "field", attr)
        obj = self.sites.get(key)
        if type(obj) is not Instance:
            obj = self.sites[key] = Instance(-1_000_000 - len(self.sites), cls, attr)
            obj.key = f"<{self.self_name}.{attr}>"
        return obj

    def binds(self, name: str) -> bool:
        """Whether the function binds `name` itself (a local, or a parameter),
        rather than reading it from an enclosing function or the module (a
        name it declares `global` or `nonlocal` is the outer scope's)."""
        if name in self.params:
            return True
        if self._bound is None:
            source = self.unit.source
            self._bound = bound_names(self.cfg.node, walrus=not source or ":=" in source) - self.outer_names
        return name in self._bound

    def global_object(self, name: str) -> Instance | None:
        """What the module global `name` holds, read in a function that does
        not bind it: the object of the project class it was bound to once at
        module level (`global_classes`), whose attributes are followed as
        fields `::<name>.<x>` (summaries.GLOBAL); otherwise None."""
        if type(self.cfg.node) is not cst.FunctionDef or name in self.params:
            return None
        cls = self.global_classes().get(name)
        if cls is None:
            return None
        key = (id(self.cfg), "global", name)
        obj = self.sites.get(key)
        if type(obj) is not Instance:
            obj = self.sites[key] = Instance(-1_000_000 - len(self.sites), cls, f"{GLOBAL}{name}")
            obj.key = f"<{GLOBAL}{name}>"
        return obj

    @property
    def budget_hit(self) -> bool:
        if self.solution is None:
            return False
        return self.solution.budget_hit or any(s.widened for s in self.solution.ins.values())

    def over_budget(self) -> None:
        """Called when `steps` passes `step_limit`: raises BudgetExceeded when
        the function has used all its steps. The first time, the limit was a
        lower bound (from the number of elements); the function's real size is
        counted then, so that most functions are never walked for it."""
        if not self.sized:
            self.sized = True
            self.step_limit = max(self.step_limit, self.MIN_STEPS, self.STEPS_PER_NODE * self.size())
            if self.steps <= self.step_limit:
                return
        raise BudgetExceeded()

    def size(self) -> int:
        """The syntax nodes of the function (its parameters included)."""
        return sum(1 for _ in walk(self.cfg.node)) + len(self.params)

    def transfer(self, block: Block, states: StateSet) -> StateSet:
        self.merged = states.widened
        current = list(states)
        for elem in block.elems:
            nxt: list[PathState] = []
            for st in current:
                nxt.extend(self.step(elem, st))
            current = nxt
        out = _carrying(StateSet.of([s.collected() for s in current]), states)
        return out.merged() if self.linear else out

    def step(self, elem: Elem, st: PathState) -> list[PathState]:
        """Run one element from `st`; several results when a call forks."""
        # a copy of the path state costs in proportion to what it holds: one
        # step for every COPY_ENTRIES names and objects, so that no step costs
        # more than a constant
        copy_steps = 1 + (len(st.env) + len(st.heap)) // self.COPY_ENTRIES
        self.steps += copy_steps
        if self.steps > self.step_limit:
            self.over_budget()
        s = st.copy()
        try:  # most elements do not fork: one run, no bookkeeping
            self.exec_elem(elem, s, _NO_CHOICES)
        except _Dead:
            return []
        except _Fork as fork:
            pending = [{fork.node: i} for i in range(fork.n)]  # as the loop below would have queued them
        else:
            return [s]
        results: list[PathState] = []
        while pending:
            choices = pending.pop()
            self.steps += copy_steps
            if self.steps > self.step_limit:
                self.over_budget()
            s = st.copy()
            try:
                self.exec_elem(elem, s, choices)
            except _Dead:
                continue
            except _Fork as fork:
                pending.extend({**choices, fork.node: i} for i in range(fork.n))
                continue
            results.append(s)
        return results

    # -- edges: assume a condition ------------------------------------------
    def edge(self, e: Edge, states: StateSet) -> StateSet | None:
        if e.kind not in ("true", "false") or e.test is None:
            if (e.dst == self.cfg.exit or e.dst == self.cfg.raise_exit) and (
                self.subscribers["frame_end"] or self.subscribers["death"]
            ):
                return _carrying(StateSet.of([self.frame_end(e, st) for st in states]), states)
            return states
        want = e.kind == "true"
        kept = []
        assumes = self.subscribers["assume"]
        for st in states:
            s = status.assume(st.last, want, st) if type(st.last) is Status else self.assume(e.test, want, st)
            if s is not None and type(st.last) is Status:
                s = equalities.assume(e.test, want, s)  # a status compared with constants is a local too
            if s is not None:
                failed = st.last.call if type(st.last) is Status and want == st.last.failed_if_true else None
                kept.append(self.assumed(e, want, s, failed) if assumes else s)
        return _carrying(StateSet.of(kept), states) if kept else None

    # -- generic events at edges: a test assumed, the frame's end ---------------
    def assumed(self, e: Edge, want: bool, st: PathState, failed: int | None = None) -> PathState:
        """`st` after the checkers saw `Assume` of the test of `e` taken `want`
        (`failed`: the call whose status the test says failed)."""
        test = e.test
        assert test is not None
        s = st.copy()
        self.at = next((el.stmt for el in reversed(self.cfg.blocks[e.src].elems) if el.stmt is not None), None)
        subject, truth = test, want
        while type(subject) is cst.UnaryOperation and type(subject.operator) is cst.Not:
            subject, truth = subject.expression, not truth
        if type(subject) is cst.NamedExpr:
            subject = subject.target
        value = s.env.get(subject.value) if type(subject) is cst.Name else None
        obj = value if isinstance(value, Obj) else None
        event = Assume(test, truth, obj, s.heap.get(obj) if obj is not None else None, failed)
        ev = self.evaluator_at(s, test)
        for handler, i in ev.on["assume"]:
            handler(event, ev.outs[i])
        return s

    def _released_by_block(self, obj: Obj) -> bool:
        """Whether `obj`, a `with` item's value, is a handle its block releases at its end."""
        made_by = self.creators.get(obj)
        return made_by is not None and self.models.released_by_block(made_by)

    def frame_end(self, e: Edge, st: PathState) -> PathState:
        """`st` after the checkers saw `FrameEnd` and the `Death` of each
        object that only locals held (a function's: a module's or a class
        body's names outlive their code)."""
        how = "raise" if e.dst == self.cfg.raise_exit else "end" if e.kind == "end" else "return"
        dying = self.dying(st, how) if self.subscribers["death"] else []
        if not dying and not self.subscribers["frame_end"]:
            return st  # nothing to tell: the state goes on as it is
        s = st.copy()
        node: cst.CSTNode = self.cfg.node
        self.at = node
        if how == "return":
            ret = next((el for el in reversed(self.cfg.blocks[e.src].elems) if el.kind == "return"), None)
            if ret is not None:
                node, self.at = ret.node, ret.stmt
        elif how == "end":
            node = self.at = self.last_statement(e.src)
        ev = self.evaluator_at(s, node)
        event = FrameEnd(node, how, st.env.get(RETURN_KEY) if how == "return" else None)
        for handler, i in ev.on["frame_end"]:
            handler(event, ev.outs[i])
        deaths = ev.on["death"]
        for obj, hs, name in dying:
            death = Death(obj, hs, node, "frame end", name, how)
            for handler, i in deaths:
                handler(death, ev.outs[i])
        return s

    def dying(self, st: PathState, how: str) -> list[tuple[Obj, HState, str | None]]:
        """The objects of `st` that only locals hold, which die as the frame
        ends (`how`), each with its state and the first name holding it; none
        in a module's or a class body's code, whose names live on after it."""
        if type(self.cfg.node) is cst.Module or type(self.cfg.node) is cst.ClassDef:
            return []
        env = st.env
        holders_of = env.holders
        kept = set(objects_in(env.get(RETURN_KEY))) if how == "return" else set()
        out = []
        for obj, hs in st.heap.items():
            if obj.on_entry or obj in kept:
                continue
            names = holders_of.get(obj)
            if not names:
                continue
            holders = [k for k in names if obj in objects_in(env[k])]
            if not holders or any("." in k for k in holders):
                continue
            out.append((obj, hs, min((k for k in holders if k != RETURN_KEY), default=None)))
        return out

    def assume(self, test: cst.BaseExpression, want: bool, st: PathState) -> PathState | None:
        key: str | None = None
        truth = want
        if type(test) is cst.NamedExpr:
            test = test.target
        lit = literal(test)
        if lit is not None:
            return st if bool(lit.value) == want else None
        if type(test) is cst.Name:
            val = st.env.get(test.value, self.unit.constants.get(test.value))
            if type(val) is Const:
                return st if bool(val.value) == want else None
            key = test.value
        elif type(test) is cst.Attribute:
            # `if self.owns:`, `if obj.flag:`: an attribute the path may test again, or a callee
            # may (summaries.py, `field_conds`)
            key = target_key(test, self.self_name, st.env)
            val = st.env.get(key) if key is not None else None
            if type(val) is Const:
                return st if bool(val.value) == want else None
            if type(val) is Field and self.fields.get(val.name) is val:
                # a field as it was on entry: a fact of the method's outcome, kept after a rebinding
                entry = f"{ENTRY}{val.name}"
                if st.conds.get(entry, want) != want:
                    return None
                st = st.copy()
                st.conds[entry] = want
        elif (
            type(test) is cst.Comparison
            and len(test.comparisons) == 1
            and type(test.left) is cst.Name
            and type(test.comparisons[0].comparator) is cst.Name
            and test.comparisons[0].comparator.value == "None"
            and type(test.comparisons[0].operator) in (cst.Is, cst.IsNot)
        ):
            key = f"{test.left.value} is None"
            truth = want if type(test.comparisons[0].operator) is cst.Is else not want
            known_none = _is_none(st, st.env.get(test.left.value))
            if known_none is not None:
                return st if known_none == truth else None
        if key is None:
            return equalities.assume(test, want, st)
        known = st.conds.get(key)
        if known is not None:
            return st if known == truth else None
        s = st.copy()
        s.conds[key] = truth
        return s

    def last_statement(self, block: int) -> cst.CSTNode:
        """Where a path that falls off the function's end from `block` ends: the
        block's last statement, else (an empty block where branches join) the
        function's last statement in its text, else the function."""
        for el in reversed(self.cfg.blocks[block].elems):
            if el.stmt is not None:
                return el.stmt
        last = self.last_in_text
        if last is None:  # found once: every path that falls off the end from an empty block ends there
            own = {id(el.stmt) for b in self.cfg.blocks for el in b.elems if el.stmt is not None}
            last = self.cfg.node
            for node in statements(self.cfg.node):  # in the order of the text (elements are statements)
                if id(node) in own:
                    last = node
            self.last_in_text = last
        return last

    def evaluator_at(self, st: PathState, site: cst.CSTNode) -> Evaluator:
        """The evaluator, pointed at `st` with `site` the statement being run."""
        ev = self.evaluator
        if ev is None:
            ev = self.evaluator = Evaluator(self, st, _NO_CHOICES)
        ev.begin(st, _NO_CHOICES, site)
        return ev

    # -- statements ----------------------------------------------------------
    def exec_elem(self, elem: Elem, st: PathState, choices: dict[cst.CSTNode, int]) -> None:
        ev = self.evaluator
        if ev is None:
            ev = self.evaluator = Evaluator(self, st, choices)
        self.at = elem.stmt
        node = elem.node
        kind = elem.kind
        ev.begin(st, choices, elem.origin if kind == "with_exit" and elem.origin is not None else node)
        if kind == "eval":
            st.last = ev.expr(cast(cst.BaseExpression, node))  # what an `eval` element holds (cfg.Elem)
            if elem.source == "for":
                assert type(elem.origin) is cst.For
                ev.iteration.loop_entered(elem.origin)
            if elem.source == "with" and st.last is not None:
                st.env[f"<with {id(elem.origin)}>"] = st.last
                if type(st.last) is Instance:  # `with C(...) as x`: x is what `__enter__` returns
                    item = elem.origin
                    as_node = getattr(item, "asname", None) or (item if type(node) is not cst.Call else None)
                    st.last = ev.objects.enter(st.last, as_node)
        elif kind == "with_exit":
            item = elem.origin
            assert type(item) is cst.WithItem
            held = st.env.pop(f"<with {id(item)}>", None)
            if self.subscribers["with_exit"]:
                event = WithExit(held, item, item.asname.name if item.asname is not None else item.item)
                for handler, i in ev.on["with_exit"]:
                    handler(event, ev.outs[i])
            if type(held) is Instance:
                ev.objects.exit(held, item)
            elif isinstance(held, Obj) and ev.replay.resume(item, held):
                pass  # a `@contextmanager` generator ran on past its `yield`
            elif ev.memory.is_buffer(held):
                ev.memory.release_buffer(held, item, "with block ends")
            elif isinstance(held, Obj) and self._released_by_block(held):
                ev.calls.free(held, item, item.asname.name if item.asname is not None else item.item)
        elif kind == "return":
            assert type(node) is cst.Return
            value = ev.expr(node.value) if node.value is not None else None
            if value is not None:
                ev.exprs.returned(value, node)
                st.env[RETURN_KEY] = value
        elif kind == "raise":
            assert type(node) is cst.Raise
            if node.exc is not None:
                ev.expr(node.exc)
        elif kind == "bind":
            value = st.last if elem.source == "with" else None
            if elem.source == "for":
                assert type(elem.origin) is cst.For
                value = ev.iteration.loop_variable(elem.origin)
            ev.names.bind_target(node, value)
        elif kind == "def":
            ev.exprs.capture(node)
            def_name = getattr(node, "name", None)
            if type(def_name) is cst.Name:
                ev.names.bind(def_name.value, None)
        elif kind == "stmt":
            ev.names.small_statement(node)
            ev.objects.temporaries(node)

    # -- objects -------------------------------------------------------------
    def site_object(self, node: cst.CSTNode, role: str, index: int | str = 0) -> Site:
        """The object `node` makes in `role` (the `index`-th of its kind there):
        the same one each time the path passes the node (recency: `forget`)."""
        key = (id(node), role, index)
        obj = self.sites.get(key)
        if obj is None:
            obj = self.sites[key] = Site(len(self.sites))
        return obj

    def path_object(self, text: str) -> At:
        """The object that access path `text` holds (paths.py): one per text."""
        key = (id(self.cfg), "path", text)
        obj = self.sites.get(key)
        if type(obj) is not At:
            obj = self.sites[key] = At(len(self.sites), text)
        return obj

    def instance_object(self, node: cst.CSTNode, cls: str, which: str = "") -> Instance:
        """The object of class `cls` that `node` builds (the same one each time
        the path passes it); `which`: one of several a call hands back."""
        key = (id(node), "instance", f"{cls} {which}" if which else cls)
        obj = self.sites.get(key)
        if type(obj) is not Instance:
            obj = self.sites[key] = Instance(len(self.sites), cls)
        return obj

    def previous_object(self, obj: Obj) -> Previous:
        """The object a site's `obj` of the previous loop iteration is renamed to
        while the site makes a new one (iteration.py)."""
        key = (id(obj), "previous", 0)
        prev = self.sites.get(key)
        if type(prev) is not Previous:
            prev = Previous(len(self.sites))
            self.sites[key] = prev
        return prev

    def step_of(self, node: cst.CSTNode, label: str) -> Step:
        return Step(self.unit.index, node, label, self.at)


def _carrying(out: StateSet, came: StateSet) -> StateSet:
    """`out`, made from the states `came`, marked merged where `came` was:
    what a merge forgot stays forgotten downstream."""
    if came.widened:
        out.widened = True
    return out


_NO_CHOICES: dict[cst.CSTNode, int] = {}  # never written: a fork copies the choices it extends


def _is_none(st: PathState, val: Val) -> bool | None:
    """Whether `val` is None where that is known: the constant None, or a
    mapping's handle (the pointer object a mapping call writes is never
    None); None where it is not known."""
    if type(val) is Const:
        return val.value is None
    if isinstance(val, Obj):
        hs = st.heap.get(val)
        if hs is not None and hs.span is not None:
            return False
    return None


def _no_field_classes() -> Mapping[str, str]:
    return {}


def _no_field_fate(attr: str, elements: bool) -> FieldFate | None:
    return None


def _is_property(node: cst.CSTNode) -> bool:
    """Whether `node` is a method decorated `@property` (or `@functools.cached_property`)."""
    if type(node) is not cst.FunctionDef:
        return False
    for d in node.decorators:
        e = d.decorator
        name = e.value if type(e) is cst.Name else e.attr.value if type(e) is cst.Attribute else ""
        if name in ("property", "cached_property"):
            return True
    return False
