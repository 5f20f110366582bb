"""The handle typestate analysis of one function (or module body, or lambda).

Every value that reaches a modelled call is an abstract object: a parameter,
or what a creator wrote into its out-parameter (recency abstraction: an
object made again at the same site replaces the old one, and names still
holding the old one forget it). Each step of the CFG moves the objects'
typestates along (`state.py`); a step that breaks a rule records a
violation, once per handle per path (after its first finding a handle is
marked `reported` on that path and raises nothing more there).

What counts (the rules' shared definitions):
- a *use* is passing a handle, an alias or a derived value to a call that is
  not an inspection built-in, or reading through it (`h[0]`);
- `h.value`, `int(h)`, `ctypes.cast(h, T)`, `c_void_p(h.value)`, `h + n` are
  the handle itself for this purpose (the python model's `derive` lists);
- `self.x` inside a method is a local.

Expression-level branches (`a if c else b`, and `a and f(b)` where the right
operand calls something) fork the path, each copy assuming its way through
the condition, so they are as path-aware as statements.

Known limits (each an under-approximation: findings lost, none invented):
- Comprehensions and nested functions are separate scopes: a handle freed
  in a comprehension is not seen as freed after it.
- Stores into attributes of anything but `self`, or into containers other
  than literals, forget the handle.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import libcst as cst

from ownlint.engine import domain, linear
from ownlint.engine.cfg import CFG, Block, Edge, Elem, may_raise, source_of
from ownlint.engine.interop import InteropEval
from ownlint.engine.memory import MemoryEval, addr_value, parse_tag
from ownlint.engine.models import Adopt, Borrow, ModelSet
from ownlint.engine.names import ModuleNames
from ownlint.engine.solver import Solution, solve
from ownlint.engine.state import (
    BORROWED,
    CONSUMED,
    FREED,
    KEPT,
    LIVE,
    MAX_PATHS,
    OWNER,
    OWNER_DEAD,
    TRANSFERRED,
    HState,
    PathState,
    StateSet,
    Step,
    Val,
    objects_in,
)
from ownlint.engine.summaries import EMPTY_OUTCOME, RETURN_KEY, Outcome, Summary, outcome_of
from ownlint.engine.walk import names_used, statements, walk

# Finds the summary of the project function a call reaches, or None.
Resolver = Callable[[cst.Call, str, bool], "Summary | None"]


@dataclass(frozen=True, slots=True)
class RawViolation:
    """A violation still holding syntax nodes (positions come later, if needed)."""

    code: str
    unit: int
    node: cst.CSTNode
    handle: str | None
    facts: tuple[tuple[str, str], ...]
    story: tuple[Step, ...]
    fix: tuple[Any, ...] = ()  # (edits with .node and .text, safe) when the finding offers one
    stmt: cst.CSTNode | None = None  # the statement `node` is in, if known (see Step.stmt)


@dataclass(slots=True)
class Unit:
    """One parsed file, as the analysis sees it."""

    index: int
    path: str
    module: cst.Module
    names: ModuleNames
    constants: dict[str, Val] = field(default_factory=dict)
    source: str = ""
    pieces: tuple[tuple[cst.Module, int], ...] = ()  # see incremental.Parsed; () = the module itself, from line 1
    tree: ast.Module | None = None  # CPython's tree of `source`, when one was made already
    # whether a `global` or `nonlocal` statement may be in it (there is none where the text has neither word)
    declares_outer: bool = field(init=False)

    def __post_init__(self) -> None:
        self.declares_outer = not self.source or "global" in self.source or "nonlocal" in self.source


class BudgetExceeded(Exception):
    """The analysis of one function went past its budget (see FunctionAnalysis)."""


class _Dead(Exception):
    """The path cannot go on: it called a function that never returns normally."""


class _Fork(Exception):
    """Evaluation reached a call with several possible outcomes: re-run per outcome."""

    def __init__(self, node: cst.CSTNode, n: int) -> None:
        self.node = node
        self.n = n


_ARITH: dict[type, Callable[[object, object], object]] = {
    cst.Add: lambda a, b: a + b,  # type: ignore[operator]
    cst.Subtract: lambda a, b: a - b,  # type: ignore[operator]
    cst.Multiply: lambda a, b: a * b,  # type: ignore[operator]
    cst.FloorDivide: lambda a, b: a // b,  # type: ignore[operator]
    cst.Modulo: lambda a, b: a % b,  # type: ignore[operator]
    cst.LeftShift: lambda a, b: a << b,  # type: ignore[operator]
    cst.BitOr: lambda a, b: a | b,  # type: ignore[operator]
    cst.BitAnd: lambda a, b: a & b,  # type: ignore[operator]
}


def fold(op: cst.BaseBinaryOp, a: object, b: object) -> Val:
    """Constant-fold `a op b` for small ints (and str +); None when unknown."""
    fn = _ARITH.get(type(op))
    if type(op) is cst.Power and isinstance(a, int) and isinstance(b, int) and 0 <= b <= 128:
        return domain.constant(a**b)
    if fn is None:
        return None
    if isinstance(a, bool) or isinstance(b, bool):
        return None
    if isinstance(a, int) and isinstance(b, int):
        if type(op) is cst.LeftShift and not 0 <= b <= 128:
            return None
        if type(op) in (cst.FloorDivide, cst.Modulo) and b == 0:
            return None
        return domain.constant(fn(a, b))
    if isinstance(a, str) and isinstance(b, str) and type(op) is cst.Add:
        return domain.constant(a + b)
    return None


def literal(node: cst.BaseExpression) -> tuple[Any, ...] | None:
    """The value of a literal number or string; None for anything else."""
    kind = type(node)
    if kind is cst.Integer:
        try:
            return ("const", int(node.value, 0))  # type: ignore[attr-defined]
        except ValueError:
            pass  # "010" and the like: literal_eval says what Python says
    elif kind is cst.SimpleString:
        text = node.value  # type: ignore[attr-defined]
        if len(text) >= 6 and text[:3] in ('"""', "'''"):  # no prefix (libcst checked the closing quotes)
            inner = text[3:-3]  # a docstring, say: its text, unless an escape or a CR needs Python's reading
            if "\\" not in inner and "\r" not in inner:
                return ("const", inner)
        elif len(text) >= 2 and text[0] == text[-1] in "'\"":
            inner = text[1:-1]  # no prefix, and one quote each side: a plain string
            if text[0] not in inner and "\\" not in inner:
                return ("const", inner)  # nothing to unescape, the common case: no parse needed
    if type(node) is cst.Integer or type(node) is cst.Float or type(node) is cst.Imaginary:
        try:
            return ("const", ast.literal_eval(node.value))
        except (ValueError, SyntaxError):
            return None
    if type(node) is cst.SimpleString:
        try:
            if "\\" not in node.value:
                return ("const", ast.literal_eval(node.value))
            with warnings.catch_warnings():  # an invalid escape is the user's business, not ownlint's output
                warnings.simplefilter("ignore")
                return ("const", ast.literal_eval(node.value))
        except (ValueError, SyntaxError):
            return None
    if type(node) is cst.Name and node.value in ("True", "False", "None"):
        return ("const", {"True": True, "False": False, "None": None}[node.value])
    return None


def target_key(node: cst.CSTNode, self_name: str | None) -> str | None:
    """The env key a target or argument names: `x`, or `self.x` in a method."""
    if type(node) is cst.Name:
        return node.value
    if (
        self_name is not None
        and type(node) is cst.Attribute
        and type(node.value) is cst.Name
        and node.value.value == self_name
    ):
        return f"{self_name}.{node.attr.value}"
    return None


_objects_in = objects_in


def _without(v: Val, obj: int) -> Val:
    """`v` with every occurrence of `obj` forgotten."""
    if v == obj and isinstance(v, int):
        return None
    if isinstance(v, tuple) and v:
        if v[0] == "seq":
            return ("seq", tuple(_without(x, obj) for x in v[1]))
        if v[0] == "dict":
            return ("dict", tuple((k, _without(x, obj)) for k, x in v[1]))
        if v[0] == "ref":
            return ("ref", v[1], _without(v[2], obj), *v[3:])
    return v


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
    ) -> None:
        self.unit = unit
        self.name = name
        self.resolver = resolver
        self.fields: dict[str, int] = {}  # self.x read before any write -> its object
        self.interop_modules: tuple[str, ...] = ()
        self.page_size: int | None = None  # None: the symbol P
        # `global` / `nonlocal` names (none to look for where the text has neither word)
        self.outer_names = _declared_outer(cfg.node) if unit.declares_outer else set()
        self.captured: dict[int, set[str]] = {}  # nested function or lambda -> the names it uses
        self.cfg = cfg
        self.models = models
        self.names = unit.names
        self.params = params
        self.self_name = self_name
        self.sites: dict[tuple[int, int], int] = {}
        self.violations: list[RawViolation] | None = None  # where `report` collects, while `run` runs
        self.at: cst.CSTNode | None = None  # the statement of the element being run
        self.solution: Solution[StateSet] | None = None
        self.budget_note = ""
        self.steps = 0

    # -- driver ------------------------------------------------------------
    def initial(self) -> StateSet:
        env: dict[str, Val] = {p: -(i + 1) for i, p in enumerate(self.params)}
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
            self.solution = solve(self.cfg, self.initial(), transfer, StateSet.join, self.edge, widen=StateSet.widen)
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
        if self.budget_hit:
            self.budget_note = f"has more than {MAX_PATHS} distinct paths at some point: they were merged"
        elif self.forks >= self.FORK_BUDGET:
            self.budget_note = (
                f"branches inside expressions more than {self.FORK_BUDGET:,} times: later ones were followed one way"
            )
        out, self.violations = self.violations, None
        return out

    def summary(self, defaults: tuple[tuple[int, object], ...] = ()) -> Summary:
        """What callers see of this function (after `run`); nothing, past a budget."""
        return self.summary_later(defaults)()

    def summary_later(self, defaults: tuple[tuple[int, object], ...] = ()) -> Callable[[], Summary]:
        """What makes `summary` when called (most functions' summaries are never
        asked for: nothing calls them). It holds the states at the exit and
        what they are read with, not the analysis (which would keep every
        block's states alive: 99 instead of 63 MB on the dense corpus)."""
        name, index, params, fields, self_name = self.name, self.unit.index, self.params, self.fields, self.self_name
        if self.solution is None:  # past a budget: no effect
            return lambda: Summary(name, index, tuple(params), defaults, self_name is not None, (EMPTY_OUTCOME,))
        exits = self.solution.ins.get(self.cfg.exit)

        def make() -> Summary:
            outcomes: dict[Outcome, None] = {}
            for st in exits or ():
                outcomes[outcome_of(st, params, fields, self_name)] = None
            return Summary(name, index, tuple(params), defaults, self_name is not None, tuple(outcomes))

        return make

    def field_object(self, attr: str) -> int:
        obj = self.fields.get(attr)
        if obj is None:
            obj = self.fields[attr] = -(10_000 + len(self.fields))
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
        current = list(states)
        for elem in block.elems:
            nxt: list[PathState] = []
            for st in current:
                nxt.extend(self.step(elem, st))
            current = nxt
        return StateSet.of([s.collected() for s in current])

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
            s.touched()
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
            s.touched()
            results.append(s)
        return results

    # -- edges: assume a condition ------------------------------------------
    def edge(self, e: Edge, states: StateSet) -> StateSet | None:
        if e.kind not in ("true", "false") or e.test is None:
            return states
        want = e.kind == "true"
        kept = [s for s in (self.assume(e.test, want, st) for st in states) if s is not None]
        return StateSet.of(kept) if kept else None

    def assume(self, test: cst.BaseExpression, want: bool, st: PathState) -> PathState | None:
        key: str | None = None
        truth = want
        if type(test) is cst.NamedExpr:
            test = test.target
        lit = literal(test)
        if lit is not None:
            return st if bool(lit[1]) == want else None
        if type(test) is cst.Name:
            val = st.env.get(test.value, self.unit.constants.get(test.value))
            if isinstance(val, tuple) and val and val[0] == "const":
                return st if bool(val[1]) == want else None
            key = test.value
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
        if key is None:
            return st
        known = st.conds.get(key)
        if known is not None:
            return st if known == truth else None
        s = st.copy()
        s.conds[key] = truth
        return s

    # -- statements ----------------------------------------------------------
    def exec_elem(self, elem: Elem, st: PathState, choices: dict[cst.CSTNode, int]) -> None:
        ev = _Eval(self, st, choices)
        self.at = elem.stmt
        node = elem.node
        kind = elem.kind
        ev.site = elem.origin if kind == "with_exit" and elem.origin is not None else node
        if kind == "eval":
            st.last = ev.expr(node)  # type: ignore[arg-type]
            if elem.source == "with" and st.last is not None:
                st.env[f"<with {id(elem.origin)}>"] = st.last
        elif kind == "with_exit":
            held = st.env.pop(f"<with {id(elem.origin)}>", None)
            if ev.is_buffer(held):
                name = source_of(elem.origin.asname.name) if getattr(elem.origin, "asname", None) else source_of(node)  # type: ignore[union-attr]
                ev.release_buffer(held, elem.origin, "with block ends", name)  # type: ignore[arg-type]
        elif kind == "return":
            assert type(node) is cst.Return
            value = ev.expr(node.value) if node.value is not None else None
            if value is not None:
                ev.returned(value, node)
                st.env[RETURN_KEY] = value
        elif kind == "raise":
            assert type(node) is cst.Raise
            if node.exc is not None:
                ev.expr(node.exc)
        elif kind == "bind":
            value = st.last if elem.source == "with" else None
            ev.bind_target(node, value)
        elif kind == "def":
            ev.capture(node)
            def_name = getattr(node, "name", None)
            if type(def_name) is cst.Name:
                ev.bind(def_name.value, None)
        elif kind == "stmt":
            ev.small_statement(node)

    # -- reporting -----------------------------------------------------------
    def report(
        self,
        st: PathState,
        code: str,
        node: cst.CSTNode,
        obj: int,
        handle: str | cst.CSTNode | None,  # a node is rendered only when the finding is kept
        facts: tuple[tuple[str, str], ...] = (),
        extra: tuple[Step, ...] = (),
    ) -> None:
        hs = st.heap.get(obj, HState(LIVE))
        st.heap[obj] = hs.mark_reported()
        if self.violations is not None:
            text = source_of(handle) if isinstance(handle, cst.CSTNode) else handle
            self.violations.append(
                RawViolation(code, self.unit.index, node, text, facts, hs.story + extra, stmt=self.at)
            )

    def site_object(self, node: cst.CSTNode, slot: int = 0) -> int:
        key = (id(node), slot)
        obj = self.sites.get(key)
        if obj is None:
            obj = self.sites[key] = len(self.sites)
        return obj

    def step_of(self, node: cst.CSTNode, label: str) -> Step:
        return Step(self.unit.index, node, label, self.at)


_NO_CHOICES: dict[cst.CSTNode, int] = {}  # never written: a fork copies the choices it extends
_UNKNOWN = object()
_EXPR: dict[type, object] = {}  # node class -> its `_Eval.expr_<Class>` method, or None


class _Eval(MemoryEval, InteropEval):
    """Evaluates expressions and statements on one path state, in place."""

    def __init__(self, fa: FunctionAnalysis, st: PathState, choices: dict[cst.CSTNode, int]) -> None:
        self.fa = fa
        self.st = st
        self.choices = choices
        self.models = fa.models
        self.site: cst.CSTNode = fa.cfg.node  # the statement being run (owners die there)

    # -- names ---------------------------------------------------------------
    def bind(self, key: str, value: Val) -> None:
        st = self.st
        if isinstance(value, tuple) and not domain.fits(value):
            self.escape(value)  # forgotten: whatever it held may be held elsewhere
            value = None
        st.conds.pop(key, None)
        st.conds.pop(f"{key} is None", None)
        old = st.env.get(key)
        if value is None:
            st.env.pop(key, None)
        else:
            st.env[key] = value
        if old is not None and old != value:
            self.drop(old, f"`{key}`", "deleted" if value is None else "rebound")

    def refs(self, obj: int) -> bool:
        """Whether a local name (or `self.x`) still holds `obj`."""
        return any(obj in _objects_in(v) for k, v in self.st.env.items() if k != RETURN_KEY)

    def drop(self, old: Val, name: str, how: str = "deleted") -> None:
        """A reference went away: an owner nobody else may hold dies here."""
        for obj in _objects_in(old):
            hs = self.st.heap.get(obj)
            if hs is not None and hs.kind == OWNER and not hs.escaped and obj >= 0 and not self.refs(obj):
                if parse_tag(hs.tag) is not None:
                    self.release_buffer(obj, self.site, how, name.strip("`"))
                else:
                    self.st.heap[obj] = hs.with_step(OWNER_DEAD, self.fa.step_of(self.site, f"{name} dies here"))

    def escape(self, value: Val) -> None:
        """Something outside the locals may now hold the owners in `value`."""
        if value is None:  # most values: nothing tracked
            return
        for obj in _objects_in(value):
            hs = self.st.heap.get(obj)
            if hs is not None and hs.kind == OWNER and not hs.escaped:
                self.st.heap[obj] = hs.but(escaped=True)

    def bind_target(self, target: cst.CSTNode, value: Val) -> None:
        key = target_key(target, self.fa.self_name)
        if key is not None:
            if value is None:
                # an unknown value is still one value: freeing it twice is a double free
                value = self.fa.site_object(target, 2)
                self.forget(value)
            if "." in key:
                self.escape(value)  # `self.x` outlives the method
                self.escapes_task(self.site, value, "attribute")
            elif key in self.fa.outer_names:
                self.escapes_task(self.site, value, "global")
            self.bind(key, value)
            return
        if type(target) is cst.Tuple or type(target) is cst.List:
            elems = value[1] if isinstance(value, tuple) and value and value[0] == "seq" else None
            for i, el in enumerate(target.elements):
                sub = elems[i] if elems is not None and i < len(elems) and type(el) is not cst.StarredElement else None
                inner = el.value
                self.bind_target(inner, sub)
            return
        if type(target) is cst.StarredElement:
            self.bind_target(target.value, None)
            return
        if type(target) is cst.MatchAs or type(target) is cst.MatchStar:
            if target.name is not None:
                self.bind(target.name.value, None)
            if type(target) is cst.MatchAs and target.pattern is not None:
                self.bind_target(target.pattern, None)
            return
        if isinstance(target, cst.MatchPattern):
            for child in target.children:
                if isinstance(child, (cst.MatchAs, cst.MatchStar, cst.MatchPattern)):
                    self.bind_target(child, None)
                else:
                    for sub in _match_captures(child):
                        self.bind(sub, None)
            return
        # a field of a local descriptor, or something stored away
        if type(target) is cst.Attribute and self.set_field(target, value):
            return
        self.escape(value)
        if type(target) is cst.Attribute:
            self.escapes_task(self.site, value, "attribute")
        elif type(target) is cst.Subscript and self.outside(target.value):
            self.escapes_task(self.site, value, "container")
        if type(target) is cst.Subscript:
            self.expr(target.value)
        elif type(target) is cst.Attribute:
            self.expr(target.value)

    def small_statement(self, node: cst.CSTNode) -> None:
        if type(node) is cst.Expr:
            self.expr(node.value)
        elif type(node) is cst.Assign:
            value = self.expr(node.value)
            for t in node.targets:
                self.bind_target(t.target, value)
        elif type(node) is cst.AnnAssign:
            if node.value is not None:
                self.bind_target(node.target, self.expr(node.value))
        elif type(node) is cst.AugAssign:
            self.expr(node.value)
            key = target_key(node.target, self.fa.self_name)
            if key is not None:
                self.bind(key, None)
            else:
                self.bind_target(node.target, None)
        elif type(node) is cst.Del:
            self.delete(node.target)
        elif type(node) is cst.Import or type(node) is cst.ImportFrom:
            if isinstance(node.names, cst.ImportStar):
                return
            for alias in node.names:
                if alias.asname is not None and type(alias.asname.name) is cst.Name:
                    self.bind(alias.asname.name.value, None)
                else:
                    name = alias.name
                    while type(name) is cst.Attribute:
                        name = name.value  # type: ignore[assignment]
                    if type(name) is cst.Name:
                        self.bind(name.value, None)

    def delete(self, target: cst.BaseExpression) -> None:
        key = target_key(target, self.fa.self_name)
        if key is not None:
            self.bind(key, None)
        elif type(target) is cst.Tuple or type(target) is cst.List:
            for el in target.elements:
                self.delete(el.value)
        elif type(target) is cst.Subscript:
            self.expr(target.value)

    # -- expressions ---------------------------------------------------------
    def expr(self, node: cst.BaseExpression) -> Val:
        fa = self.fa
        fa.steps += 1
        if fa.steps > fa.step_limit:
            fa.over_budget()
        kind = type(node)
        method = _EXPR.get(kind, _UNKNOWN)
        if method is _UNKNOWN:
            method = _EXPR[kind] = getattr(_Eval, "expr_" + kind.__name__, None)
        if method is not None:
            return method(self, node)  # type: ignore[no-any-return,operator]
        lit = literal(node)
        if lit is not None:
            return lit
        # anything else: evaluate the children for their calls; the value is unknown
        for child in node.children:
            if isinstance(child, cst.BaseExpression):
                self.expr(child)
            elif type(child) in (cst.Arg, cst.Element, cst.DictElement, cst.StarredDictElement):
                for sub in child.children:
                    if isinstance(sub, cst.BaseExpression):
                        self.expr(sub)
        return None

    def expr_Name(self, node: cst.Name) -> Val:
        if node.value in self.st.env:
            return self.st.env[node.value]
        lit = literal(node)
        if lit is not None:
            return lit
        if node.value in self.fa.unit.constants:
            return self.fa.unit.constants[node.value]
        if node.value in self.fa.names.imports:
            return ("sym", self.fa.names.imports[node.value])
        return None

    def expr_Attribute(self, node: cst.Attribute) -> Val:
        key = target_key(node, self.fa.self_name)
        if key is not None:
            if key not in self.st.env:
                self.st.env[key] = self.fa.field_object(node.attr.value)
            return self.st.env[key]
        head = node.value
        while type(head) is cst.Attribute:
            head = head.value
        if type(head) is cst.Name and head.value not in self.st.env and head.value not in self.fa.unit.constants:
            # a dotted name from an import or a global: a symbol (`ownership.keep`)
            qualified = self.fa.names.qualify(node)
            if qualified in self.models.memory.page_size:
                return self.page_size()
            return ("sym", qualified)
        base = self.expr(node.value)
        handled, value = self.memory_attribute(node, base)
        if handled:
            return value
        if node.attr.value in self.models.derive_attributes and _objects_in(base):
            return base
        return None

    def expr_Subscript(self, node: cst.Subscript) -> Val:
        base = self.expr(node.value)
        index: Val = None
        for el in node.slice:
            if type(el.slice) is cst.Index:
                index = self.expr(el.slice.value)
            else:  # a Slice, BaseSlice's other kind
                sl = cast(cst.Slice, el.slice)
                for part in (sl.lower, sl.upper, sl.step):
                    if part is not None:
                        self.expr(part)
        handled, value = self.memory_subscript(base, index)
        if handled:
            return value
        if isinstance(base, int) and self.st.heap.get(base, HState(LIVE)).prov == "explicit":
            view = self.fa.site_object(node, 7)  # a slice or view keeps the context
            self.forget(view)
            self.st.heap[view] = HState(LIVE, False, self.st.heap[base].story, prov="explicit")
            return view
        if isinstance(base, int) and not self.is_buffer(base):
            self.use(base, node, node.value)
            return None
        if isinstance(base, tuple) and base and isinstance(index, tuple) and index and index[0] == "const":
            if base[0] == "seq" and isinstance(index[1], int) and -len(base[1]) <= index[1] < len(base[1]):
                return base[1][index[1]]  # type: ignore[no-any-return]
            if base[0] == "dict":
                for k, v in base[1]:
                    if k == index[1]:
                        return v  # type: ignore[no-any-return]
        return None

    def expr_BinaryOperation(self, node: cst.BinaryOperation) -> Val:
        left = self.expr(node.left)
        right = self.expr(node.right)
        value = self.arith(node.operator, left, right)
        if value is not None:
            return value
        if isinstance(left, int) and type(node.operator) in (cst.Add, cst.Subtract):
            return left  # pointer arithmetic derives from the pointer
        if isinstance(left, tuple) and isinstance(right, tuple) and left and right and left[0] == right[0] == "const":
            return fold(node.operator, left[1], right[1])
        if (isinstance(left, tuple) and left and left[0] == "oneof") or (
            isinstance(right, tuple) and right and right[0] == "oneof"
        ):
            options: list[Val] = []
            for a in left[1] if isinstance(left, tuple) and left and left[0] == "oneof" else (left,):
                for b in right[1] if isinstance(right, tuple) and right and right[0] == "oneof" else (right,):
                    v = self.arith(node.operator, a, b)
                    if (
                        v is None
                        and isinstance(a, tuple)
                        and isinstance(b, tuple)
                        and a
                        and b
                        and a[0] == b[0] == "const"
                    ):
                        v = fold(node.operator, a[1], b[1])
                    if v is None:
                        return None
                    options.append(v)
            return domain.oneof(options)
        return None

    def expr_UnaryOperation(self, node: cst.UnaryOperation) -> Val:
        v = self.expr(node.expression)
        if isinstance(v, tuple) and v and v[0] == "const":
            if type(node.operator) is cst.Minus and isinstance(v[1], (int, float)) and not isinstance(v[1], bool):
                return ("const", -v[1])
            if type(node.operator) is cst.Not:
                return ("const", not v[1])
        return None

    def branch(self, node: cst.CSTNode, test: cst.BaseExpression, n: int = 2) -> int:
        """Take one way through an expression-level branch: fork the path, then
        assume `test` held (choice 0) or failed (choice 1) on this copy."""
        choice = self.choices.get(node)
        if choice is None:
            if self.fa.forks < self.fa.FORK_BUDGET:
                self.fa.forks += n - 1
                raise _Fork(node, n)
            # past the budget of paths: one way only, the first the path can take
            # (findings on the other ways are lost, none invented)
            choice = 0 if self.fa.assume(test, True, self.st) is not None else 1
        refined = self.fa.assume(test, choice == 0, self.st)
        if refined is None:
            raise _Dead()
        if refined is not self.st:
            self.st.conds = refined.conds
        return choice

    def expr_BooleanOperation(self, node: cst.BooleanOperation) -> Val:
        left = self.expr(node.left)
        if not may_raise(node.right):
            self.expr(node.right)
            return None
        # `a and b` stops where `a` fails; `a or b` where it holds
        stops = 1 if type(node.operator) is cst.And else 0
        if self.branch(node, node.left) == stops:
            return left
        return self.expr(node.right)

    def expr_IfExp(self, node: cst.IfExp) -> Val:
        self.expr(node.test)
        if not (may_raise(node.body) or may_raise(node.orelse)):
            # a choice between plain values is one merged value: a fact that could
            # be either (`own = keep if b else transfer`) is unknown, and no finding
            # may rest on it (findings rest on proof, not suspicion)
            a, b = self.expr(node.body), self.expr(node.orelse)
            if a == b:
                return a
            if all(isinstance(x, tuple) and x and x[0] in ("const", "lin", "oneof") for x in (a, b)):
                return domain.oneof((a, b))  # sizes and the like: checks need every one to fail
            return None
        if self.branch(node, node.test) == 0:
            return self.expr(node.body)
        return self.expr(node.orelse)

    def expr_NamedExpr(self, node: cst.NamedExpr) -> Val:
        value = self.expr(node.value)
        self.bind_target(node.target, value)
        return value

    def expr_Tuple(self, node: cst.Tuple) -> Val:
        return self._seq(node.elements)

    def expr_List(self, node: cst.List) -> Val:
        return self._seq(node.elements)

    def _seq(self, elements: Sequence[cst.BaseElement]) -> Val:
        vals = []
        starred = False
        for el in elements:
            vals.append(self.expr(el.value))
            starred = starred or type(el) is cst.StarredElement
        return None if starred else ("seq", tuple(vals))

    def expr_Dict(self, node: cst.Dict) -> Val:
        items = []
        known = True
        for el in node.elements:
            if type(el) is cst.DictElement:
                k = self.expr(el.key)
                v = self.expr(el.value)
                if isinstance(k, tuple) and k and k[0] == "const":
                    items.append((k[1], v))
                else:
                    known = False
            else:
                self.expr(el.value)
                known = False
        return ("dict", tuple(items)) if known else None

    def expr_Lambda(self, node: cst.Lambda) -> Val:
        self.capture(node)
        return None  # analysed as a function of its own

    def capture(self, node: cst.CSTNode) -> None:
        """A nested function or lambda may keep the owners it names alive."""
        if not any(hs.kind == OWNER and not hs.escaped for hs in self.st.heap.values()):
            return
        names = self.fa.captured.get(id(node))
        if names is None:
            names = self.fa.captured[id(node)] = _names_in(node)
        for name in names:
            if name in self.st.env:
                self.escape(self.st.env[name])

    def expr_Yield(self, node: cst.Yield) -> Val:
        if isinstance(node.value, cst.BaseExpression):
            value = self.expr(node.value)
            self.escapes_task(node, value, "yield")
            self.escape(value)
        elif node.value is not None:
            self.expr(node.value.item)
        return None

    def returned_memory(self, value: Val, node: cst.Return, returned: set[int]) -> None:
        """A returned descriptor linking to a local (OWN305), or a returned live
        mapping of a local buffer that dies with the frame (OWN304)."""
        leaving = {k for k in self.st.env if "." not in k and not k.startswith("<")} - set(self.fa.params)
        for struct, _ in self.chain(value):
            link = dict(struct[2]).get(self.models.memory.chain_field)  # type: ignore[index]
            if self.dangling_link(link, leaving):
                self.report_plain("OWN305", node, source_of(node.value) if node.value else None)
                break
        for obj in returned:
            hs = self.st.heap.get(obj)
            m = hs.mapping if hs is not None else None
            if hs is None or m is None or hs.kind == FREED or hs.reported:
                continue
            if isinstance(m[0], tuple) and m[0] and m[0][0] == "addr":
                buf = m[0][1]
                bh = self.st.heap.get(buf)
                if bh is not None and bh.kind == OWNER and not bh.escaped and buf >= 0 and buf not in returned:
                    self.report_plain(
                        "OWN304",
                        node,
                        source_of(node.value) if node.value else None,
                        (("how", "returned"),),
                        hs.story[:1],
                    )

    def returned(self, value: Val, node: cst.Return) -> None:
        """`return value`: a borrowed or transferred handle whose local owner dies
        with this frame dangles in the caller (OWN102)."""
        returned = set(_objects_in(value))
        self.escapes_task(node, value, "return")
        self.returned_memory(value, node, returned)
        for obj in returned:
            hs = self.st.heap.get(obj)
            if hs is None or hs.reported or hs.kind not in (BORROWED, TRANSFERRED) or hs.owner is None:
                continue
            owner = self.st.heap.get(hs.owner)
            if owner is None or hs.owner < 0 or hs.owner in returned:
                continue
            if owner.kind == OWNER_DEAD or (owner.kind == OWNER and not owner.escaped):
                step = self.fa.step_of(node, "its owner dies when the function returns")
                self.fa.report(self.st, "OWN102", node, obj, source_of(node.value) if node.value else None, (), (step,))
        self.escape(value)

    def _skip(self, node: cst.BaseExpression) -> Val:
        return None

    # comprehensions are scopes of their own (see Known limits)
    expr_ListComp = expr_SetComp = expr_DictComp = expr_GeneratorExp = _skip

    def expr_FormattedString(self, node: cst.FormattedString) -> Val:
        for part in node.parts:
            if type(part) is cst.FormattedStringExpression:
                self.expr(part.expression)  # shown, not used
        return None

    def expr_Comparison(self, node: cst.Comparison) -> Val:
        self.expr(node.left)
        for c in node.comparisons:
            self.expr(c.comparator)
        return None

    # -- calls ---------------------------------------------------------------
    def expr_Call(self, node: cst.Call) -> Val:
        fa = self.fa
        if type(node.func) is cst.Name and node.func.value in self.st.env:
            qualified = "?"  # a local (a parameter, a variable) shadows any import
        else:
            qualified = fa.names.qualify(node.func) or "?"
        models = self.models
        if qualified in models.out_parameter and node.args:
            arg = node.args[0].value
            how = "pointer" if qualified in models.memory.keeps_alive else "byref"
            return ("ref", target_key(arg, fa.self_name), self.expr(arg), how)
        receiver: Val = None
        receiver_store = False
        on_self = False
        method = type(node.func) is cst.Attribute
        if type(node.func) is cst.Attribute:
            receiver = self.expr(node.func.value)  # the receiver is evaluated, not used
            receiver_store = node.func.attr.value in models.store_methods
            on_self = type(node.func.value) is cst.Name and node.func.value.value == fa.self_name
            if isinstance(receiver, tuple) and receiver and receiver[0] == "sym":
                method = False  # `lz.get_native(...)`: a module's function, not a method
        elif type(node.func) is not cst.Name:
            self.expr(node.func)
        args = [(a, self.expr(a.value)) for a in node.args]
        if qualified in models.derive:
            if not args:
                return None
            first = args[0][1]
            if isinstance(first, tuple) and first and first[0] in ("ref", "bufref", "addr"):
                return first  # a cast of a pointer is the same pointer
            return _deref(first)
        handled, value = self.memory_call(node, qualified, receiver, args)
        if handled:
            return value
        handled, value = self.interop_call(node, qualified, receiver, args, method)
        if handled:
            return value
        capsule_in = self.consume_capsule(node, qualified, args)
        if models.is_inspection(qualified):
            return None
        if receiver_store:
            assert type(node.func) is cst.Attribute
            for _, v in args:
                self.escape(v)
                if self.outside(node.func.value):
                    self.escapes_task(node, v, "container")
            return None
        model = models.call(qualified)
        if model is not None and model.borrow is not None:
            b = model.borrow
            if (method and b.method == "any") or (method and b.method == "tracked" and self.is_owner(receiver)):
                return self.borrow(b, receiver, node, node.func.value)  # type: ignore[attr-defined]
            positional = [v for a, v in args if a.keyword is None and not a.star]
            if (
                not method
                and 0 <= b.owner < len(positional)
                and (self.guarded(qualified, b.guard_modules) or self.is_owner(positional[b.owner]))
            ):
                return self.borrow(b, positional[b.owner], node, node.args[b.owner].value)
        summary = fa.resolver(node, qualified, on_self) if fa.resolver is not None else None
        if summary is not None:
            for _, v in args:
                self.escape(v)
            return self.apply(summary, node, receiver if on_self else None, args)
        positional_args = [(a, v) for a, v in args if a.keyword is None and not a.star]
        consumed: set[int] = set()
        result: Val = None
        mapping = None
        if model is not None:
            if model.record:
                return ("dict", tuple((a.keyword.value, v) for a, v in args if a.keyword is not None))
            self.check_chain(node, args)
            if model.maps is not None:
                mapping = self.mapping_of(model.maps, args)
            if model.adopt is not None:
                adopted = self.adopt(model.adopt, qualified, node, positional_args, args)
                if adopted is not None:
                    consumed.add(model.adopt.handle)
                    result = adopted
            if model.release is not None:
                i = _index(model.release.handle, len(positional_args))
                if i is not None:
                    consumed.add(i)
                    self.free(positional_args[i][1], node, positional_args[i][0].value)
            for create in model.creates:
                i = _index(create.out, len(positional_args))
                if i is not None:
                    consumed.add(i)
                    made = self.create(positional_args[i][1], node, create.kind, create.out)
                    if made is not None and mapping is not None:
                        checked = self.check_mapping(node, mapping)
                        self.st.heap[made] = self.st.heap[made].but(mapping=checked)
        for i, (a, v) in enumerate(positional_args):
            if i not in consumed:
                self.use(v, node, a.value)
                self.escape(v)
        for a, v in args:
            if a.keyword is not None:
                self.use(v, node, a.value)
                self.escape(v)
        if model is not None and model.owner_kind is not None:
            result = self.new_owner(node, model.owner_kind, "made here")
        last = qualified.rpartition(".")[2]
        if last in self.models.forbidden:
            return ("prop", last)
        if result is None and model is None and any(isinstance(v, tuple) and v and v[0] == "prop" for _, v in args):
            return ("seq", tuple(v for a, v in args if a.keyword is None))  # a property list
        return self.provenance(node, qualified, args, result, capsule_in)

    def is_owner(self, value: Val) -> bool:
        objs = _objects_in(value)
        return len(objs) == 1 and self.st.heap.get(objs[0], HState(LIVE)).kind in (OWNER, OWNER_DEAD)

    def guarded(self, qualified: str, modules: tuple[str, ...]) -> bool:
        """The precision guard: the callee's module is an interop module (`interop-modules`)."""
        module = qualified.rpartition(".")[0]
        words = (*modules, *self.fa.interop_modules)
        return any(w in module for w in words)

    def new_owner(self, node: cst.CSTNode, kind: str, label: str) -> int:
        obj = self.fa.site_object(node, 0)
        self.forget(obj)
        self.st.heap[obj] = HState(OWNER, False, (self.fa.step_of(node, f"{kind} {label}"),), tag=kind)
        return obj

    # -- SYCL interop --------------------------------------------------------------
    def ownership_of(self, adopt: Adopt, first: Val, args: list[tuple[cst.Arg, Val]]) -> str:
        """ "keep", "transfer", or "unknown" (the ownership spellings the models list)."""
        own = adopt.ownership
        value: Val = None
        given = False
        for a, v in args:
            if a.keyword is not None and a.keyword.value in own.keywords:
                value, given = v, True
        if not given and isinstance(first, tuple) and first and first[0] == "dict":
            for k, v in first[1]:
                if k in own.fields:
                    value, given = v, True
        if not given:
            return "transfer"
        word = None
        if isinstance(value, tuple) and value and value[0] in ("const", "sym") and isinstance(value[1], str):
            word = value[1].rpartition(".")[2]
        if word in own.keep:
            return "keep"
        if word in own.transfer:
            return "transfer"
        return "unknown"

    def adopt(
        self,
        adopt: Adopt,
        qualified: str,
        node: cst.Call,
        positional: list[tuple[cst.Arg, Val]],
        args: list[tuple[cst.Arg, Val]],
    ) -> Val:
        """`make_*(h, ...)`: a new owner of `h`, or None when the call is not interop."""
        if not 0 <= adopt.handle < len(positional):
            return None
        spelled_node: cst.CSTNode = positional[adopt.handle][0].value
        first = positional[adopt.handle][1]
        handle = first
        record = isinstance(first, tuple) and bool(first) and first[0] == "dict"
        if record:
            handle = next((v for k, v in first[1] if k in adopt.ownership.handle_fields), None)  # type: ignore[index]
        interop = (
            self.guarded(qualified, adopt.ownership.guard_modules)
            or record
            or any(a.keyword is not None and a.keyword.value in adopt.ownership.keywords for a, _ in args)
            or any(self.st.heap.get(o, HState(LIVE)).tag == "native" for o in _objects_in(handle))
        )
        if not interop:
            return None
        self.check_inputs(adopt, node, handle, args)
        mode = self.ownership_of(adopt, first, args)
        owner = self.new_owner(node, adopt.owner_kind, "made here")
        spelled = spelled_node
        for obj in _objects_in(handle):
            hs = self.st.heap.get(obj, HState(LIVE))
            if hs.reported:
                continue
            if mode == "transfer":
                self.transfer(obj, owner, node, spelled)
            elif mode == "keep":
                self.use(obj, node, spelled)
                hs = self.st.heap.get(obj, HState(LIVE))
                if not hs.reported and hs.kind in (LIVE, KEPT):
                    self.st.heap[obj] = hs.with_step(
                        KEPT, self.fa.step_of(node, "adopted with `keep` here"), owner=owner
                    )
                    self.st.heap[owner] = self.st.heap[owner].but(owner=obj)
            else:  # unknown ownership: nothing may rest on it
                self.use(obj, node, spelled)
                if not self.st.heap.get(obj, HState(LIVE)).reported:
                    self.st.heap.pop(obj, None)
        return owner

    def transfer(
        self,
        obj: int,
        owner: int,
        node: cst.CSTNode,
        spelled: str | cst.CSTNode,
        via: Summary | None = None,
        inner: Step | None = None,
    ) -> None:
        hs = self.st.heap.get(obj, HState(LIVE))
        if hs.reported:
            return
        if hs.kind == TRANSFERRED:
            self.fa.report(
                self.st, "OWN103", node, obj, spelled, _via(via), _inner(inner, via, "transferred again here")
            )
            return
        if hs.kind == FREED:
            self.fa.report(self.st, "OWN203", node, obj, spelled, _via(via), _inner(inner, via, "used here"))
            return
        where = inner if inner is not None else self.fa.step_of(node, "")
        label = f"ownership transferred here, inside `{via.name}`" if via is not None else "ownership transferred here"
        self.st.heap[obj] = hs.with_step(TRANSFERRED, Step(where.unit, where.node, label, where.stmt), owner=owner)

    def borrow(self, b: Borrow, owner_val: Val, node: cst.Call, spelled: cst.CSTNode) -> Val:
        """`get_native(q)` / `q.addressof_ref()`: a handle valid while `q` lives."""
        objs = _objects_in(owner_val)
        self.use(owner_val, node, spelled)
        if len(objs) != 1:
            return None
        owner = objs[0]
        hs = self.st.heap.get(owner)
        if hs is None or hs.kind not in (OWNER, OWNER_DEAD):
            return None  # not an object ownlint follows: nothing is known of its lifetime
        if hs.tag in b.unsupported:
            if self.fa.violations is not None:
                self.fa.violations.append(
                    RawViolation(
                        "OWN401",
                        self.fa.unit.index,
                        node,
                        source_of(spelled),
                        (("kind", hs.tag),),
                        hs.story,
                        stmt=self.fa.at,
                    )
                )
            return None
        if hs.owner is not None and hs.kind == OWNER:
            return hs.owner  # made with keep: the application's own handle
        result = self.fa.site_object(node, 1)
        self.forget(result)
        self.st.heap[result] = HState(
            BORROWED, False, (self.fa.step_of(node, f"borrowed from `{source_of(spelled)}` here"),), owner=owner
        )
        if hs.kind == OWNER and not hs.escaped and not self.refs(owner):
            self.st.heap[owner] = hs.with_step(
                OWNER_DEAD, self.fa.step_of(node, "a temporary: it dies at the end of this statement")
            )
        return result

    # -- effects on one object ---------------------------------------------------
    def use(
        self,
        value: Val,
        node: cst.CSTNode,
        spelled: str | cst.CSTNode,
        via: Summary | None = None,
        inner: Step | None = None,
    ) -> None:
        if value is None:  # most values: nothing tracked
            return
        for obj in _objects_in(value):
            hs = self.st.heap.get(obj)
            if hs is not None and hs.reported:
                continue
            if hs is not None and hs.kind == FREED:
                self.fa.report(self.st, "OWN203", node, obj, spelled, _via(via), _inner(inner, via, "used here"))
            elif hs is not None and hs.kind in (TRANSFERRED, BORROWED):
                owner = self.st.heap.get(hs.owner) if hs.owner is not None else None
                if owner is not None and owner.kind == OWNER_DEAD:
                    extra = owner.story[-1:] + _inner(inner, via, "used here")
                    self.fa.report(self.st, "OWN102", node, obj, spelled, _via(via), extra)
                elif hs.kind == TRANSFERRED:
                    self.fa.report(self.st, "OWN101", node, obj, spelled, _via(via), _inner(inner, via, "used here"))
            elif obj < 0 and (hs is None or hs.first is None):
                self.st.heap[obj] = (hs or HState(LIVE)).with_first("use", self.fa.step_of(node, "used here"))

    def free(
        self,
        value: Val,
        node: cst.CSTNode,
        spelled: str | cst.CSTNode,
        via: Summary | None = None,
        inner: Step | None = None,
    ) -> None:
        for obj in _objects_in(value):
            hs = self.st.heap.get(obj, HState(LIVE))
            if hs.reported:
                continue
            if hs.kind == FREED:
                self.fa.report(self.st, "OWN201", node, obj, spelled, _via(via), _inner(inner, via, "freed again here"))
                continue
            if hs.kind in (TRANSFERRED, BORROWED):
                self.fa.report(self.st, "OWN202", node, obj, spelled, _via(via), _inner(inner, via, "freed here"))
                continue
            if hs.kind == KEPT and hs.owner is not None:
                owner = self.st.heap.get(hs.owner)
                if owner is not None and owner.kind == OWNER and self.refs(hs.owner):
                    self.fa.report(self.st, "OWN204", node, obj, spelled, _via(via), _inner(inner, via, "freed here"))
                    continue
            where = inner if inner is not None else self.fa.step_of(node, "")
            label = f"freed here, inside `{via.name}`" if via is not None else "first freed here"
            step = Step(where.unit, where.node, label, where.stmt)
            if obj < 0:
                hs = hs.with_first("free", step)
            self.st.heap[obj] = hs.with_step(FREED, step, owner=None)

    def create(self, value: Val, node: cst.Call, kind: str, slot: int) -> int | None:
        if not (isinstance(value, tuple) and value and value[0] == "ref" and value[1] is not None):
            return None
        obj = self.fa.site_object(node, slot)
        self.forget(obj)
        verb = "allocated" if kind == "memory" else "created"
        self.st.heap[obj] = HState(LIVE, False, (self.fa.step_of(node, f"{kind} {verb} here"),), tag="native")
        self.bind(value[1], obj)
        return obj

    # -- project functions -------------------------------------------------------
    def apply(self, summary: Summary, node: cst.Call, receiver: Val, args: list[tuple[cst.Arg, Val]]) -> Val:
        """Replay a summary at a call site: pick the outcome, then its effects in order."""
        bound = self.bind_arguments(summary, receiver, args)
        outcomes = [o for o in summary.outcomes if self.consistent(o, summary, bound)]
        if not summary.outcomes:
            raise _Dead()  # the callee never returns normally
        if not outcomes:
            outcomes = [EMPTY_OUTCOME]
        if len(outcomes) > 1 and node not in self.choices and self.fa.forks >= self.fa.FORK_BUDGET:
            outcomes = outcomes[:1]  # past the budget of paths (see `branch`)
        if len(outcomes) > 1:
            if node not in self.choices:
                self.fa.forks += len(outcomes) - 1
                raise _Fork(node, len(outcomes))
            outcome = outcomes[self.choices[node]]
        else:
            outcome = outcomes[0]
        for i, truth in outcome.conds:
            expr = bound.get(i, (None, None))[0]
            if type(expr) is cst.Name:
                self.st.conds.setdefault(expr.value, truth)  # correlate with the caller's own branches
        ret = self.materialize(outcome.ret, bound, node, summary, 0)
        for i, effect, owner in outcome.params:
            expr, value = bound.get(i, (None, None))
            spelled = expr if expr is not None else summary.params[i]
            self.replay(effect, owner, value, ret, bound, node, spelled, summary, 2000 + i)
        caller_self = self.fa.self_name
        if caller_self is not None and receiver is not None:
            for attr, effect, owner in outcome.fields:
                key = f"{caller_self}.{attr}"
                if key not in self.st.env:
                    self.st.env[key] = self.fa.field_object(attr)
                self.replay(effect, owner, self.st.env[key], ret, bound, node, key, summary, 3000)
            for attr, desc in outcome.rebinds:
                self.bind(f"{caller_self}.{attr}", self.materialize(desc, bound, node, summary, 1 + len(attr)))
        return ret

    def substitute(self, v: Val, bound: dict[int, tuple[cst.BaseExpression | None, Val]]) -> Val:
        """A callee's value in terms of its parameters, in the caller's terms."""
        if isinstance(v, int) and v < 0 and -v - 1 in bound:
            return bound[-v - 1][1]
        if isinstance(v, tuple) and v and v[0] == "addr" and isinstance(v[1], int) and v[1] < 0:
            outer = bound.get(-v[1] - 1, (None, None))[1]
            if self.is_buffer(outer):
                return ("addr", outer, v[2])
            if isinstance(outer, tuple) and outer and outer[0] == "addr" and outer[2] is not None and v[2] is not None:
                return addr_value(outer[1], linear.add(outer[2], v[2]))
            return None
        return v

    def bind_arguments(
        self, summary: Summary, receiver: Val, args: list[tuple[cst.Arg, Val]]
    ) -> dict[int, tuple[cst.BaseExpression | None, Val]]:
        bound: dict[int, tuple[cst.BaseExpression | None, Val]] = {}
        offset = 0
        if summary.is_method and receiver is not None:
            bound[0] = (None, receiver)
            offset = 1
        pos = 0
        for a, v in args:
            if a.star:
                break
            if a.keyword is None:
                bound[offset + pos] = (a.value, v)
                pos += 1
            elif a.keyword.value in summary.params:
                bound[summary.params.index(a.keyword.value)] = (a.value, v)
        for i, default in summary.defaults:
            bound.setdefault(i, (None, default))  # type: ignore[arg-type]
        return bound

    def consistent(
        self, outcome: Outcome, summary: Summary, bound: dict[int, tuple[cst.BaseExpression | None, Val]]
    ) -> bool:
        """Whether the caller's knowledge allows the callee's assumptions."""
        for i, truth in outcome.conds:
            expr, value = bound.get(i, (None, None))
            if isinstance(value, tuple) and value and value[0] == "const":
                if bool(value[1]) != truth:
                    return False
            elif type(expr) is cst.Name and expr.value in self.st.conds:
                if self.st.conds[expr.value] != truth:
                    return False
        return True

    def replay(
        self,
        effect: HState,
        owner: object,
        value: Val,
        ret: Val,
        bound: dict[int, tuple[cst.BaseExpression | None, Val]],
        node: cst.Call,
        spelled: str | cst.CSTNode,
        summary: Summary,
        slot: int,
    ) -> None:
        """Apply what the callee did to one parameter, in its order."""
        if effect.reported:
            return  # a bug wholly inside the callee, reported there
        if effect.first == "use":
            self.use(value, node, spelled, summary, effect.first_step)
        last = effect.story[-1] if effect.story else None
        if effect.kind == CONSUMED:
            for obj in _objects_in(value):
                hs = self.st.heap.get(obj)
                if hs is None or hs.tag != "capsule" or hs.reported:
                    continue
                if hs.kind == CONSUMED:
                    self.fa.report(
                        self.st,
                        "OWN501",
                        node,
                        obj,
                        spelled,
                        _via(summary),
                        _inner(last, summary, "consumed again here"),
                    )
                else:
                    label = f"consumed here, inside `{summary.name}`"
                    self.st.heap[obj] = hs.with_step(
                        CONSUMED, Step(last.unit, last.node, label, last.stmt) if last else self.fa.step_of(node, label)
                    )
        if effect.kind == FREED:
            where = next((s for s in reversed(effect.story) if s.label.startswith(("first freed", "freed here"))), None)
            self.free(value, node, spelled, summary, where)
        elif effect.kind in (TRANSFERRED, KEPT):
            owner_obj = self.owner_for(owner, ret, bound, node, slot, summary)
            for obj in _objects_in(value):
                if effect.kind == TRANSFERRED:
                    self.transfer(obj, owner_obj, node, spelled, summary, last)
                else:
                    hs = self.st.heap.get(obj, HState(LIVE))
                    if not hs.reported and hs.kind in (LIVE, KEPT):
                        step = (
                            Step(last.unit, last.node, f"adopted with `keep` here, inside `{summary.name}`", last.stmt)
                            if last
                            else self.fa.step_of(node, "adopted with `keep` here")
                        )
                        self.st.heap[obj] = hs.with_step(KEPT, step, owner=owner_obj)

    def owner_for(
        self,
        desc: object,
        ret: Val,
        bound: dict[int, tuple[cst.BaseExpression | None, Val]],
        node: cst.Call,
        slot: int,
        summary: Summary,
    ) -> int:
        """The caller's object for the owner the callee linked a handle to."""
        if isinstance(desc, tuple) and desc:
            if desc[0] == "ret" and isinstance(ret, int):
                return ret
            if desc[0] == "param":
                objs = _objects_in(bound.get(desc[1], (None, None))[1])
                if len(objs) == 1:
                    return objs[0]
            if desc[0] == "dead":
                obj = self.fa.site_object(node, slot)
                self.forget(obj)
                step = self.fa.step_of(node, f"the SYCL object made inside `{summary.name}` dies when it returns")
                self.st.heap[obj] = HState(OWNER_DEAD, False, desc[1] + (step,))
                return obj
        obj = self.fa.site_object(node, slot)  # held somewhere the caller cannot see
        self.forget(obj)
        self.st.heap[obj] = HState(OWNER, escaped=True)
        return obj

    def materialize(
        self,
        desc: object,
        bound: dict[int, tuple[cst.BaseExpression | None, Val]],
        node: cst.Call,
        summary: Summary,
        slot: int,
    ) -> Val:
        """The caller's value for what the callee handed back."""
        if not isinstance(desc, tuple):
            return None
        if desc[0] == "param":
            return bound.get(desc[1], (None, None))[1]
        if desc[0] == "field":
            key = f"{self.fa.self_name}.{desc[1]}"
            return self.st.env.get(key)
        if desc[0] == "fresh":
            hs: HState = desc[1]
            obj = self.fa.site_object(node, 1000 + slot)
            self.forget(obj)
            step = self.fa.step_of(node, f"returned by `{summary.name}` here")
            owner = self.owner_for(desc[2], None, bound, node, 4000 + slot, summary) if hs.owner is not None else None
            mapping = hs.mapping
            if mapping is not None:
                # the callee mapped what the caller passed: check it here, with the caller's values
                mapping = (self.substitute(mapping[0], bound), self.substitute(mapping[1], bound), *mapping[2:])
                mapping = self.check_mapping(node, mapping, summary)
            self.st.heap[obj] = HState(
                hs.kind, hs.reported, (*hs.story, step), tag=hs.tag, owner=owner, mapping=mapping
            )
            return obj
        return None

    def forget(self, obj: int) -> None:
        """Recency: a site makes `obj` again, so names holding the old one forget it."""
        st = self.st
        st.heap.pop(obj, None)
        for k, v in list(st.env.items()):
            if v is None:
                continue
            if isinstance(v, int):  # most values: one object (as _objects_in and _without have it)
                if v == obj:
                    del st.env[k]
                continue
            if obj in _objects_in(v):
                nv = _without(v, obj)
                if nv is None:
                    del st.env[k]
                else:
                    st.env[k] = nv
            elif isinstance(v, tuple) and v and v[0] in ("addr", "bufref", "aiface") and v[1] == obj:
                del st.env[k]
        symbol = f"#{obj}"
        for o, hs in list(st.heap.items()):
            m = hs.mapping
            if m is None:
                continue
            addr, size = m[0], m[1]
            if (
                isinstance(addr, tuple)
                and addr
                and addr[0] == "addr"
                and (addr[1] == obj or _mentions(addr[2], symbol))
            ):
                addr = None
            if isinstance(size, tuple) and size and size[0] == "lin" and _mentions(size[1], symbol):
                size = None
            if (addr, size) != (m[0], m[1]):
                st.heap[o] = hs.but(mapping=(addr, size, *m[2:]))


def _mentions(form: object, symbol: str) -> bool:
    return isinstance(form, tuple) and any(symbol in m for m, _ in form)


def _via(summary: Summary | None) -> tuple[tuple[str, str], ...]:
    return (("via", summary.name),) if summary is not None else ()


def _inner(step: Step | None, summary: Summary | None, label: str) -> tuple[Step, ...]:
    if step is None or summary is None:
        return ()
    return (Step(step.unit, step.node, f"{label}, inside `{summary.name}`", step.stmt),)


def _declared_outer(node: cst.CSTNode) -> set[str]:
    """Names a function declares `global` or `nonlocal` (not in nested functions)."""
    if type(node) is not cst.FunctionDef:
        return set()
    return {
        x.name.value
        for n in statements(node.body, into_scopes=False)
        if type(n) is cst.Global or type(n) is cst.Nonlocal
        for x in n.names
    }


def _names_in(node: cst.CSTNode) -> set[str]:
    return names_used(node)


def _deref(v: Val) -> Val:
    if isinstance(v, tuple) and v and v[0] == "ref":
        return v[2]  # type: ignore[no-any-return]
    return v


def _index(i: int, n: int) -> int | None:
    j = i if i >= 0 else n + i
    return j if 0 <= j < n else None


def _match_captures(node: cst.CSTNode) -> list[str]:
    return [
        n.name.value for n in walk(node) if (type(n) is cst.MatchAs or type(n) is cst.MatchStar) and n.name is not None
    ]
