"""The handle typestate analysis of one function (or module body, or lambda).

Every value that reaches a modelled call is an abstract object: a parameter,
or what a creator wrote into its out-parameter (recency abstraction: an
object made again at the same site replaces the old one, and names still
holding the old one forget it). Each step of the CFG moves the objects'
typestates along (`state.py`); a step that breaks a rule records a
violation, once per handle per path (after its first finding a handle is
marked `reported` on that path and raises nothing more there).

What counts (RULES.md "What counts"):
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
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from ownlint.engine.cfg import CFG, Block, Edge, Elem, may_raise, source_of
from ownlint.engine.models import ModelSet
from ownlint.engine.names import ModuleNames
from ownlint.engine.solver import Solution, solve
from ownlint.engine.state import FREED, LIVE, HState, PathState, StateSet, Step, Val
from ownlint.engine.summaries import EMPTY_OUTCOME, RETURN_KEY, Outcome, Summary, outcome_of

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


@dataclass(slots=True)
class Unit:
    """One parsed file, as the analysis sees it."""

    index: int
    path: str
    module: cst.Module
    names: ModuleNames
    constants: dict[str, Val] = field(default_factory=dict)


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
    if isinstance(op, cst.Power) and isinstance(a, int) and isinstance(b, int) and 0 <= b <= 128:
        return ("const", a**b)
    if fn is None:
        return None
    if isinstance(a, bool) or isinstance(b, bool):
        return None
    if isinstance(a, int) and isinstance(b, int):
        if isinstance(op, cst.LeftShift) and not 0 <= b <= 128:
            return None
        if isinstance(op, (cst.FloorDivide, cst.Modulo)) and b == 0:
            return None
        return ("const", fn(a, b))
    if isinstance(a, str) and isinstance(b, str) and isinstance(op, cst.Add):
        return ("const", a + b)
    return None


def literal(node: cst.BaseExpression) -> Val:
    """The value of a literal number or string; None for anything else."""
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
        try:
            return ("const", ast.literal_eval(node.value))
        except (ValueError, SyntaxError):
            return None
    if isinstance(node, cst.SimpleString):
        try:
            return ("const", ast.literal_eval(node.value))
        except (ValueError, SyntaxError):
            return None
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return ("const", {"True": True, "False": False, "None": None}[node.value])
    return None


def target_key(node: cst.BaseExpression, self_name: str | None) -> str | None:
    """The env key a target or argument names: `x`, or `self.x` in a method."""
    if isinstance(node, cst.Name):
        return node.value
    if (
        self_name is not None
        and isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == self_name
    ):
        return f"{self_name}.{node.attr.value}"
    return None


def _objects_in(v: Val) -> list[int]:
    if isinstance(v, int):
        return [v]
    if isinstance(v, tuple) and v:
        if v[0] == "ref":
            return _objects_in(v[2])
        if v[0] == "seq":
            return [o for x in v[1] for o in _objects_in(x)]
        if v[0] == "dict":
            return [o for _, x in v[1] for o in _objects_in(x)]
    return []


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
            return ("ref", v[1], _without(v[2], obj))
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
        self.cfg = cfg
        self.models = models
        self.names = unit.names
        self.params = params
        self.self_name = self_name
        self.sites: dict[tuple[int, int], int] = {}
        self.violations: list[RawViolation] | None = None  # collecting only in the final pass
        self.solution: Solution[StateSet] | None = None

    # -- driver ------------------------------------------------------------
    def initial(self) -> StateSet:
        env: dict[str, Val] = {p: -(i + 1) for i, p in enumerate(self.params)}
        return StateSet.of([PathState(env, {}, {})])

    def run(self) -> list[RawViolation]:
        self.solution = solve(self.cfg, self.initial(), self.transfer, StateSet.join, self.edge)
        self.violations = []
        for bid, state in self.solution.ins.items():
            self.transfer(self.cfg.blocks[bid], state)
        out, self.violations = self.violations, None
        return out

    def summary(self, defaults: tuple[tuple[int, object], ...] = ()) -> Summary:
        """What callers see of this function (after `run`)."""
        assert self.solution is not None
        exits = self.solution.ins.get(self.cfg.exit)
        outcomes: dict[Outcome, None] = {}
        for st in exits or ():
            outcomes[outcome_of(st, self.params, self.fields, self.self_name)] = None
        return Summary(
            self.name, self.unit.index, tuple(self.params), defaults, self.self_name is not None, tuple(outcomes)
        )

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

    def transfer(self, block: Block, states: StateSet) -> StateSet:
        current = list(states)
        for elem in block.elems:
            nxt: list[PathState] = []
            for st in current:
                nxt.extend(self.step(elem, st))
            current = nxt
        return StateSet.of(current)

    def step(self, elem: Elem, st: PathState) -> list[PathState]:
        """Run one element from `st`; several results when a call forks."""
        results: list[PathState] = []
        pending: list[dict[cst.CSTNode, int]] = [{}]
        while pending:
            choices = pending.pop()
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
        if isinstance(test, cst.NamedExpr):
            test = test.target
        lit = literal(test)
        if lit is not None:
            return st if bool(lit[1]) == want else None
        if isinstance(test, cst.Name):
            val = st.env.get(test.value, self.unit.constants.get(test.value))
            if isinstance(val, tuple) and val and val[0] == "const":
                return st if bool(val[1]) == want else None
            key = test.value
        elif (
            isinstance(test, cst.Comparison)
            and len(test.comparisons) == 1
            and isinstance(test.left, cst.Name)
            and isinstance(test.comparisons[0].comparator, cst.Name)
            and test.comparisons[0].comparator.value == "None"
            and isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot))
        ):
            key = f"{test.left.value} is None"
            truth = want if isinstance(test.comparisons[0].operator, cst.Is) else not want
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
        node = elem.node
        kind = elem.kind
        if kind == "eval":
            st.last = ev.expr(node)  # type: ignore[arg-type]
        elif kind == "return":
            assert isinstance(node, cst.Return)
            value = ev.expr(node.value) if node.value is not None else None
            if value is not None:
                st.env[RETURN_KEY] = value
        elif kind == "raise":
            assert isinstance(node, cst.Raise)
            if node.exc is not None:
                ev.expr(node.exc)
        elif kind == "bind":
            value = st.last if elem.source == "with" else None
            ev.bind_target(node, value)  # type: ignore[arg-type]
        elif kind == "def":
            name = getattr(node, "name", None)
            if isinstance(name, cst.Name):
                ev.bind(name.value, None)
        elif kind == "stmt":
            ev.small_statement(node)  # type: ignore[arg-type]

    # -- reporting -----------------------------------------------------------
    def report(
        self,
        st: PathState,
        code: str,
        node: cst.CSTNode,
        obj: int,
        handle: str | None,
        facts: tuple[tuple[str, str], ...] = (),
        extra: tuple[Step, ...] = (),
    ) -> None:
        hs = st.heap.get(obj, HState(LIVE))
        st.heap[obj] = hs.mark_reported()
        if self.violations is not None:
            self.violations.append(RawViolation(code, self.unit.index, node, handle, facts, hs.story + extra))

    def site_object(self, node: cst.CSTNode, slot: int = 0) -> int:
        key = (id(node), slot)
        obj = self.sites.get(key)
        if obj is None:
            obj = self.sites[key] = len(self.sites)
        return obj

    def step_of(self, node: cst.CSTNode, label: str) -> Step:
        return Step(self.unit.index, node, label)


class _Eval:
    """Evaluates expressions and statements on one path state, in place."""

    def __init__(self, fa: FunctionAnalysis, st: PathState, choices: dict[cst.CSTNode, int]) -> None:
        self.fa = fa
        self.st = st
        self.choices = choices
        self.models = fa.models

    # -- names ---------------------------------------------------------------
    def bind(self, key: str, value: Val) -> None:
        st = self.st
        st.conds.pop(key, None)
        st.conds.pop(f"{key} is None", None)
        if value is None:
            st.env.pop(key, None)
        else:
            st.env[key] = value

    def bind_target(self, target: cst.BaseExpression, value: Val) -> None:
        key = target_key(target, self.fa.self_name)
        if key is not None:
            if value is None:
                # an unknown value is still one value: freeing it twice is a double free
                value = self.fa.site_object(target, 2)
                self.forget(value)
            self.bind(key, value)
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            elems = value[1] if isinstance(value, tuple) and value and value[0] == "seq" else None
            for i, el in enumerate(target.elements):
                sub = elems[i] if elems is not None and i < len(elems) and not isinstance(el, cst.StarredElement) else None
                inner = el.value
                self.bind_target(inner, sub)
            return
        if isinstance(target, cst.StarredElement):
            self.bind_target(target.value, None)
            return
        if isinstance(target, (cst.MatchAs, cst.MatchStar)):
            if target.name is not None:
                self.bind(target.name.value, None)
            if isinstance(target, cst.MatchAs) and target.pattern is not None:
                self.bind_target(target.pattern, None)  # type: ignore[arg-type]
            return
        if isinstance(target, cst.MatchPattern):
            for child in target.children:
                if isinstance(child, (cst.MatchAs, cst.MatchStar, cst.MatchPattern)):
                    self.bind_target(child, None)  # type: ignore[arg-type]
                else:
                    for sub in _match_captures(child):
                        self.bind(sub, None)
            return
        # a subscript or an attribute of something else: evaluate its parts
        if isinstance(target, cst.Subscript):
            self.expr(target.value)
        elif isinstance(target, cst.Attribute):
            self.expr(target.value)

    def small_statement(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Expr):
            self.expr(node.value)
        elif isinstance(node, cst.Assign):
            value = self.expr(node.value)
            for t in node.targets:
                self.bind_target(t.target, value)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self.bind_target(node.target, self.expr(node.value))
        elif isinstance(node, cst.AugAssign):
            self.expr(node.value)
            key = target_key(node.target, self.fa.self_name)
            if key is not None:
                self.bind(key, None)
            else:
                self.bind_target(node.target, None)
        elif isinstance(node, cst.Del):
            self.delete(node.target)
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            if isinstance(node.names, cst.ImportStar):
                return
            for alias in node.names:
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self.bind(alias.asname.name.value, None)
                else:
                    name = alias.name
                    while isinstance(name, cst.Attribute):
                        name = name.value  # type: ignore[assignment]
                    if isinstance(name, cst.Name):
                        self.bind(name.value, None)

    def delete(self, target: cst.BaseExpression) -> None:
        key = target_key(target, self.fa.self_name)
        if key is not None:
            self.bind(key, None)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self.delete(el.value)
        elif isinstance(target, cst.Subscript):
            self.expr(target.value)

    # -- expressions ---------------------------------------------------------
    def expr(self, node: cst.BaseExpression) -> Val:
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is not None:
            return method(node)  # type: ignore[no-any-return]
        lit = literal(node)
        if lit is not None:
            return lit
        # anything else: evaluate the children for their calls; the value is unknown
        for child in node.children:
            if isinstance(child, cst.BaseExpression):
                self.expr(child)
            elif isinstance(child, (cst.Arg, cst.Element, cst.DictElement, cst.StarredDictElement)):
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
        return self.fa.unit.constants.get(node.value)

    def expr_Attribute(self, node: cst.Attribute) -> Val:
        key = target_key(node, self.fa.self_name)
        if key is not None:
            if key not in self.st.env:
                self.st.env[key] = self.fa.field_object(node.attr.value)
            return self.st.env[key]
        base = self.expr(node.value)
        if node.attr.value in self.models.derive_attributes and _objects_in(base):
            return base
        return None

    def expr_Subscript(self, node: cst.Subscript) -> Val:
        base = self.expr(node.value)
        index: Val = None
        for el in node.slice:
            if isinstance(el.slice, cst.Index):
                index = self.expr(el.slice.value)
            else:
                for part in (el.slice.lower, el.slice.upper, el.slice.step):
                    if part is not None:
                        self.expr(part)
        if isinstance(base, int):
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
        if isinstance(left, int) and isinstance(node.operator, (cst.Add, cst.Subtract)):
            return left  # pointer arithmetic derives from the pointer
        if isinstance(left, tuple) and isinstance(right, tuple) and left and right and left[0] == right[0] == "const":
            return fold(node.operator, left[1], right[1])
        return None

    def expr_UnaryOperation(self, node: cst.UnaryOperation) -> Val:
        v = self.expr(node.expression)
        if isinstance(v, tuple) and v and v[0] == "const":
            if isinstance(node.operator, cst.Minus) and isinstance(v[1], (int, float)) and not isinstance(v[1], bool):
                return ("const", -v[1])
            if isinstance(node.operator, cst.Not):
                return ("const", not v[1])
        return None

    def branch(self, node: cst.CSTNode, test: cst.BaseExpression, n: int = 2) -> int:
        """Take one way through an expression-level branch: fork the path, then
        assume `test` held (choice 0) or failed (choice 1) on this copy."""
        choice = self.choices.get(node)
        if choice is None:
            raise _Fork(node, n)
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
        stops = 1 if isinstance(node.operator, cst.And) else 0
        if self.branch(node, node.left) == stops:
            return left
        return self.expr(node.right)

    def expr_IfExp(self, node: cst.IfExp) -> Val:
        self.expr(node.test)
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

    def _seq(self, elements: tuple[cst.BaseElement, ...] | list[cst.BaseElement]) -> Val:
        vals = []
        starred = False
        for el in elements:
            vals.append(self.expr(el.value))
            starred = starred or isinstance(el, cst.StarredElement)
        return None if starred else ("seq", tuple(vals))

    def expr_Dict(self, node: cst.Dict) -> Val:
        items = []
        known = True
        for el in node.elements:
            if isinstance(el, cst.DictElement):
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
        return None  # analysed as a function of its own

    def _skip(self, node: cst.BaseExpression) -> Val:
        return None

    # comprehensions are scopes of their own (see Known limits)
    expr_ListComp = expr_SetComp = expr_DictComp = expr_GeneratorExp = _skip

    def expr_FormattedString(self, node: cst.FormattedString) -> Val:
        for part in node.parts:
            if isinstance(part, cst.FormattedStringExpression):
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
        if isinstance(node.func, cst.Name) and node.func.value in self.st.env:
            qualified = "?"  # a local (a parameter, a variable) shadows any import
        else:
            qualified = fa.names.qualify(node.func) or "?"
        models = self.models
        if qualified in models.out_parameter and node.args:
            arg = node.args[0].value
            return ("ref", target_key(arg, fa.self_name), self.expr(arg))
        receiver: Val = None
        receiver_store = False
        on_self = False
        if isinstance(node.func, cst.Attribute):
            receiver = self.expr(node.func.value)  # the receiver is evaluated, not used
            receiver_store = node.func.attr.value in models.store_methods
            on_self = isinstance(node.func.value, cst.Name) and node.func.value.value == fa.self_name
        elif not isinstance(node.func, cst.Name):
            self.expr(node.func)
        args = [(a, self.expr(a.value)) for a in node.args]
        if qualified in models.derive:
            return _deref(args[0][1]) if args else None
        if models.is_inspection(qualified) or receiver_store:
            return None
        summary = fa.resolver(node, qualified, on_self) if fa.resolver is not None else None
        if summary is not None:
            return self.apply(summary, node, receiver if on_self else None, args)
        positional = [(a, v) for a, v in args if a.keyword is None and not a.star]
        model = models.call(qualified)
        consumed: set[int] = set()
        if model is not None:
            if model.release is not None:
                i = _index(model.release.handle, len(positional))
                if i is not None:
                    consumed.add(i)
                    self.free(positional[i][1], node, source_of(positional[i][0].value))
            for create in model.creates:
                i = _index(create.out, len(positional))
                if i is not None:
                    consumed.add(i)
                    self.create(positional[i][1], node, create.kind, create.out)
        for i, (a, v) in enumerate(positional):
            if i not in consumed:
                self.use(v, node, source_of(a.value))
        for a, v in args:
            if a.keyword is not None:
                self.use(v, node, source_of(a.value))
        return None

    # -- effects on one object ---------------------------------------------------
    def use(self, value: Val, node: cst.CSTNode, spelled: str, via: Summary | None = None, inner: Step | None = None) -> None:
        for obj in _objects_in(value):
            hs = self.st.heap.get(obj)
            if hs is not None and hs.reported:
                continue
            if hs is not None and hs.kind == FREED:
                self.fa.report(self.st, "OWN203", node, obj, spelled, _via(via), _inner(inner, via, "used here"))
            elif obj < 0 and (hs is None or hs.first is None):
                self.st.heap[obj] = (hs or HState(LIVE)).with_first("use", self.fa.step_of(node, "used here"))

    def free(
        self, value: Val, node: cst.CSTNode, spelled: str, via: Summary | None = None, inner: Step | None = None
    ) -> None:
        for obj in _objects_in(value):
            hs = self.st.heap.get(obj, HState(LIVE))
            if hs.reported:
                continue
            if hs.kind == FREED:
                self.fa.report(self.st, "OWN201", node, obj, spelled, _via(via), _inner(inner, via, "freed again here"))
                continue
            where = inner if inner is not None else self.fa.step_of(node, "")
            label = f"freed here, inside `{via.name}`" if via is not None else "first freed here"
            step = Step(where.unit, where.node, label)
            if obj < 0:
                hs = hs.with_first("free", step)
            self.st.heap[obj] = hs.with_step(FREED, step)

    def create(self, value: Val, node: cst.Call, kind: str, slot: int) -> None:
        if not (isinstance(value, tuple) and value and value[0] == "ref" and value[1] is not None):
            return
        obj = self.fa.site_object(node, slot)
        self.forget(obj)
        verb = "allocated" if kind == "memory" else "created"
        self.st.heap[obj] = HState(LIVE, False, (self.fa.step_of(node, f"{kind} {verb} here"),))
        self.bind(value[1], obj)

    # -- project functions -------------------------------------------------------
    def apply(self, summary: Summary, node: cst.Call, receiver: Val, args: list[tuple[cst.Arg, Val]]) -> Val:
        """Replay a summary at a call site: pick the outcome, then its effects in order."""
        bound = self.bind_arguments(summary, receiver, args)
        outcomes = [o for o in summary.outcomes if self.consistent(o, summary, bound)]
        if not summary.outcomes:
            raise _Dead()  # the callee never returns normally
        if not outcomes:
            outcomes = [EMPTY_OUTCOME]
        if len(outcomes) > 1:
            if node not in self.choices:
                raise _Fork(node, len(outcomes))
            outcome = outcomes[self.choices[node]]
        else:
            outcome = outcomes[0]
        for i, truth in outcome.conds:
            expr = bound.get(i, (None, None))[0]
            if isinstance(expr, cst.Name):
                self.st.conds.setdefault(expr.value, truth)  # correlate with the caller's own branches
        for i, effect in outcome.params:
            expr, value = bound.get(i, (None, None))
            self.replay(effect, value, node, source_of(expr) if expr is not None else summary.params[i], summary)
        caller_self = self.fa.self_name
        if caller_self is not None and receiver is not None:
            for attr, effect in outcome.fields:
                key = f"{caller_self}.{attr}"
                if key not in self.st.env:
                    self.st.env[key] = self.fa.field_object(attr)
                self.replay(effect, self.st.env[key], node, key, summary)
            for attr, desc in outcome.rebinds:
                self.bind(f"{caller_self}.{attr}", self.materialize(desc, bound, node, summary, 1 + len(attr)))
        return self.materialize(outcome.ret, bound, node, summary, 0)

    def bind_arguments(self, summary: Summary, receiver: Val, args: list[tuple[cst.Arg, Val]]) -> dict[int, tuple[cst.BaseExpression | None, Val]]:
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

    def consistent(self, outcome: Outcome, summary: Summary, bound: dict[int, tuple[cst.BaseExpression | None, Val]]) -> bool:
        """Whether the caller's knowledge allows the callee's assumptions."""
        for i, truth in outcome.conds:
            expr, value = bound.get(i, (None, None))
            if isinstance(value, tuple) and value and value[0] == "const":
                if bool(value[1]) != truth:
                    return False
            elif isinstance(expr, cst.Name) and expr.value in self.st.conds:
                if self.st.conds[expr.value] != truth:
                    return False
        return True

    def replay(self, effect: HState, value: Val, node: cst.Call, spelled: str, summary: Summary) -> None:
        """Apply what the callee did to one parameter, in its order."""
        if effect.reported:
            return  # a bug wholly inside the callee, reported there
        if effect.first == "use":
            self.use(value, node, spelled, summary, effect.first_step)
        if effect.kind == FREED:
            where = next((s for s in reversed(effect.story) if s.label.startswith(("first freed", "freed here"))), None)
            self.free(value, node, spelled, summary, where)

    def materialize(self, desc: object, bound: dict[int, tuple[cst.BaseExpression | None, Val]], node: cst.Call, summary: Summary, slot: int) -> Val:
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
            self.st.heap[obj] = HState(hs.kind, hs.reported, hs.story + (step,))
            return obj
        return None

    def forget(self, obj: int) -> None:
        """Recency: a site makes `obj` again, so names holding the old one forget it."""
        st = self.st
        st.heap.pop(obj, None)
        for k, v in list(st.env.items()):
            if obj in _objects_in(v):
                nv = _without(v, obj)
                if nv is None:
                    del st.env[k]
                else:
                    st.env[k] = nv


def _via(summary: Summary | None) -> tuple[tuple[str, str], ...]:
    return (("via", summary.name),) if summary is not None else ()


def _inner(step: Step | None, summary: Summary | None, label: str) -> tuple[Step, ...]:
    if step is None or summary is None:
        return ()
    return (Step(step.unit, step.node, f"{label}, inside `{summary.name}`"),)


def _deref(v: Val) -> Val:
    if isinstance(v, tuple) and v and v[0] == "ref":
        return v[2]  # type: ignore[no-any-return]
    return v


def _index(i: int, n: int) -> int | None:
    j = i if i >= 0 else n + i
    return j if 0 <= j < n else None


def _match_captures(node: cst.CSTNode) -> list[str]:
    names: list[str] = []

    class V(cst.CSTVisitor):
        def visit_MatchAs(self, n: cst.MatchAs) -> None:
            if n.name is not None:
                names.append(n.name.value)

        def visit_MatchStar(self, n: cst.MatchStar) -> None:
            if n.name is not None:
                names.append(n.name.value)

    node.visit(V())
    return names
