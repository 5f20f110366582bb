"""The building of control-flow graphs (cfg.py): a module body, a function,
a lambda or a class body, walked statement by statement into blocks and edges.

Approximations, each deliberate:
- Only statements containing a call, `raise` or `assert` may raise.
  Attribute access, subscripts and arithmetic are assumed not to, and so
  are calls a model declares non-raising (`raises = false`: ctypes calls of
  a C API that reports errors as status codes).
- Exceptions leaving the function need no edges: nothing is checked on the
  way out of a function that raises.
- `finally` bodies (and the exits of `with` items) are copied for each way
  they are entered (fall-through, exception, `return`, `break`,
  `continue`), as CPython's compiler does, so paths never cross between
  those continuations.
- A `match` pattern is an unknown condition; a capture or `_` pattern with
  no guard always matches.
- `and`/`or`/`not` are split into blocks only in branch conditions (`if`,
  `while`, `assert`, `elif`, guards); elsewhere an expression is one step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

import libcst as cst

from ownlint.engine.frontend.cfg import CFG, Block, CallRaises, Edge, Elem, may_raise
from ownlint.engine.frontend.loopsyntax import runs_at_most_once
from ownlint.engine.frontend.walk import walk


def _elem_may_raise(elem: Elem, call_raises: CallRaises | None) -> bool:
    if elem.kind == "with_exit":
        return True  # __exit__ runs code
    if elem.kind in ("bind", "def"):
        return False
    return may_raise(elem.node, call_raises)


def _leaves(s: cst.BaseSmallStatement, raising: Callable[[cst.Call], bool]) -> bool:
    return any(type(n) is cst.Call and raising(n) for n in walk(s, into_scopes=False))


@dataclass(slots=True)
class _Frame:
    """A `finally` body or the exits of a `with`, to run on the way out."""

    suite: cst.BaseSuite | None = None
    elems: Sequence[Elem] = ()
    exc_depth: int = 1  # the exception targets in force outside the frame


@dataclass(slots=True)
class _Loop:
    head: int
    after: int
    frames: int  # len(frames) when the loop was entered


class _Builder:
    def __init__(self, name: str, node: cst.CSTNode, call_raises: CallRaises | None = None) -> None:
        self.name = name
        self.node = node
        self.call_raises = call_raises
        self.blocks: list[Block] = []
        self.entry = self.new("entry")
        self.exit = self.new("exit")
        self.raise_exit = self.new("raise")
        self.cur: int | None = self.entry
        self.frames: list[_Frame] = []
        self.loops: list[_Loop] = []
        self.exc: list[int] = [self.raise_exit]
        self.at: cst.CSTNode | None = None  # the statement being built, for Elem.stmt

    # -- plumbing --------------------------------------------------------
    def new(self, label: str = "") -> int:
        b = Block(len(self.blocks), label=label)
        self.blocks.append(b)
        return b.id

    def edge(self, src: int | None, dst: int, kind: str = "next", test: cst.BaseExpression | None = None) -> None:
        if src is None:
            return
        e = Edge(src, dst, kind, test)
        self.blocks[src].succs.append(e)
        self.blocks[dst].preds.append(e)

    def start(self, bid: int) -> None:
        self.cur = bid

    def here(self) -> int:
        """The current block; code after a jump lands in a fresh, unreachable one."""
        if self.cur is None:
            self.cur = self.new()
        return self.cur

    def protected(self) -> bool:
        return self.exc[-1] != self.raise_exit

    def emit(self, elem: Elem) -> None:
        if elem.stmt is None and self.at is not None:
            elem = Elem(elem.kind, elem.node, elem.source, elem.origin, self.at)
        cur = self.cur
        if cur is None:
            cur = self.here()
        if self.exc[-1] != self.raise_exit and _elem_may_raise(elem, self.call_raises):  # protected()
            if self.blocks[cur].elems:
                nxt = self.new()
                self.edge(cur, nxt)
                cur = self.cur = nxt
            self.edge(cur, self.exc[-1], "exc")
        self.blocks[cur].elems.append(elem)

    # -- structured exits ------------------------------------------------
    def run_frames(self, down_to: int) -> None:
        """Copy the `finally` bodies of frames above `down_to`, innermost first."""
        saved, saved_exc = self.frames, self.exc
        for i in range(len(saved) - 1, down_to - 1, -1):
            self.frames = saved[:i]
            self.exc = saved_exc[: saved[i].exc_depth]
            self.run_frame(saved[i])
        self.frames, self.exc = saved, saved_exc

    def run_frame(self, frame: _Frame) -> None:
        for el in frame.elems:
            self.emit(el)
        if frame.suite is not None:
            self.body(frame.suite)

    def jump(self, dst: int, down_to: int, kind: str = "next") -> None:
        if self.cur is None:
            return
        self.run_frames(down_to)
        self.edge(self.cur, dst, kind)
        self.cur = None

    # -- statements ------------------------------------------------------
    def body(self, stmts: Sequence[cst.BaseStatement] | cst.BaseSuite) -> None:
        if type(stmts) is cst.IndentedBlock:
            stmts = stmts.body
        elif type(stmts) is cst.SimpleStatementSuite:
            for small in stmts.body:
                self.small(small)
            return
        # an IndentedBlock's body by now (a suite is one of the two above)
        for s in cast("Sequence[cst.BaseStatement]", stmts):
            self.stmt(s)

    def body_but_the_last(self, suite: cst.BaseSuite) -> None:
        """A block whose last statement a test expects to raise: what runs
        before it, and not it (its effects would not happen; what follows the
        block runs only where it raised)."""
        stmts: Sequence[cst.BaseStatement | cst.BaseSmallStatement]
        stmts = suite.body if type(suite) is cst.IndentedBlock else cast("cst.SimpleStatementSuite", suite).body
        if not stmts:
            return
        *before, last = stmts
        for s in before:
            if isinstance(s, cst.BaseSmallStatement):
                self.small(s)
            else:
                self.stmt(s)
        if type(last) is cst.SimpleStatementLine:
            for small in last.body[:-1]:
                self.small(small)

    def small(self, s: cst.BaseSmallStatement) -> None:
        self.at = s
        if type(s) is cst.Return:
            self.emit(Elem("return", s, stmt=s))
            self.jump(self.exit, 0, "return")
        elif type(s) is cst.Raise:
            self.emit(Elem("raise", s, stmt=s))
            cur = self.here()
            self.edge(cur, self.exc[-1], "raise")
            self.cur = None
        elif type(s) is cst.Break:
            if self.loops:
                loop = self.loops[-1]
                self.jump(loop.after, loop.frames)
        elif type(s) is cst.Continue:
            if self.loops:
                loop = self.loops[-1]
                self.jump(loop.head, loop.frames)
        elif type(s) is cst.Assert:
            ok = self.new()
            fail = self.new()
            self.cond(s.test, ok, fail)
            self.start(fail)
            self.edge(fail, self.exc[-1], "raise")
            self.start(ok)
        else:
            self.emit(Elem("stmt", s, stmt=s))
            raises = self.call_raises
            if (
                type(s) is cst.Expr
                and type(s.value) is cst.Call
                and raises is not None
                and raises.never_returns(s.value)
            ):
                # `pytest.skip(...)`, `sys.exit(...)`: the path goes on only as an exception
                self.edge(self.here(), self.exc[-1], "raise")
                self.cur = None
            elif (
                raises is not None
                and raises.raising is not None
                and not self.protected()
                and _leaves(s, raises.raising)
            ):
                # a call to a function of the program that may raise: the statement's way out by an exception
                cur = self.here()
                self.edge(cur, self.exc[-1], "raise")
                self.start(self.new())
                self.edge(cur, self.here())

    def stmt(self, s: cst.BaseStatement) -> None:
        if type(s) is cst.SimpleStatementLine:
            for small in s.body:
                self.small(small)
            return
        self.at = s
        if type(s) is cst.If:
            self.if_(s)
        elif type(s) is cst.While:
            self.while_(s)
        elif type(s) is cst.For:
            self.for_(s)
        elif type(s) is cst.Try or type(s) is cst.TryStar:
            self.try_(s)
        elif type(s) is cst.With:
            self.with_(s)
        elif type(s) is cst.Match:
            self.match_(s)
        elif type(s) in (cst.FunctionDef, cst.ClassDef):
            self.emit(Elem("def", s))
        else:  # pragma: no cover - every compound statement is listed above
            self.emit(Elem("stmt", s))

    def cond(self, test: cst.BaseExpression, t: int, f: int) -> None:
        """Branch on `test`: to `t` where it holds, to `f` where it fails."""
        if type(test) is cst.BooleanOperation:
            mid = self.new()
            if type(test.operator) is cst.And:
                self.cond(test.left, mid, f)
            else:
                self.cond(test.left, t, mid)
            self.start(mid)
            self.cond(test.right, t, f)
            return
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            self.cond(test.expression, f, t)
            return
        self.emit(Elem("eval", test))
        cur = self.here()
        self.edge(cur, t, "true", test)
        self.edge(cur, f, "false", test)
        self.cur = None

    def if_(self, s: cst.If) -> None:
        then, other, after = self.new(), self.new(), self.new()
        self.at = s  # an `elif` is a statement of its own
        self.cond(s.test, then, other)
        self.start(then)
        self.body(s.body)
        self.edge(self.cur, after)
        self.start(other)
        if type(s.orelse) is cst.If:
            self.if_(s.orelse)
        elif type(s.orelse) is cst.Else:
            self.body(s.orelse.body)
        self.edge(self.cur, after)
        self.start(after)

    def loop_body(self, head: int, after: int, body: cst.BaseSuite) -> None:
        self.loops.append(_Loop(head, after, len(self.frames)))
        self.body(body)
        self.loops.pop()
        self.edge(self.cur, head)

    def while_(self, s: cst.While) -> None:
        head, body, other, after = self.new("loop"), self.new(), self.new(), self.new()
        self.edge(self.here(), head)
        self.start(head)
        self.cond(s.test, body, other)
        self.start(body)
        self.loop_body(head, after, s.body)
        self.start(other)
        if s.orelse is not None:
            self.body(s.orelse.body)
        self.edge(self.cur, after)
        self.start(after)

    def for_(self, s: cst.For) -> None:
        self.emit(Elem("eval", s.iter, "for", s))
        head, body, other, after = self.new("loop"), self.new(), self.new(), self.new()
        self.edge(self.here(), head)
        self.edge(head, body)
        self.edge(head, other)
        self.start(body)
        self.emit(Elem("bind", s.target, "for", s))
        last = self.new() if runs_at_most_once(s.iter) else head  # `range(1)`: no next iteration
        self.loop_body(last, after, s.body)
        self.edge(last if last != head else None, other)
        self.start(other)
        if s.orelse is not None:
            self.body(s.orelse.body)
        self.edge(self.cur, after)
        self.start(after)

    def exc_exit_copy(self, frame: _Frame) -> int:
        """A copy of `frame` for the exception path, continuing to the outer target."""
        saved_cur = self.cur
        bid = self.new("finally-exc")
        self.start(bid)
        self.run_frame(frame)
        self.edge(self.cur, self.exc[-1], "raise")
        self.cur = saved_cur
        return bid

    def try_(self, s: cst.Try | cst.TryStar) -> None:
        after = self.new()
        frame = _Frame(suite=s.finalbody.body if s.finalbody is not None else None, exc_depth=len(self.exc))
        has_finally = s.finalbody is not None
        outer_exc = self.exc_exit_copy(frame) if has_finally else self.exc[-1]
        if has_finally:
            self.frames.append(frame)
        dispatch = self.new("except") if s.handlers else outer_exc
        # the body, protected by the handlers (or straight by the finally)
        self.exc.append(dispatch)
        first = self.new()
        self.edge(self.here(), first)
        self.start(first)
        self.body(s.body)
        self.exc.pop()
        # `else` runs after the body; its exceptions skip the handlers
        self.exc.append(outer_exc)
        if s.orelse is not None:
            self.body(s.orelse.body)
        self.exc.pop()
        self.fallthrough(has_finally, frame, after)
        bare = False
        for h in s.handlers:
            hb = self.new("handler")
            self.edge(dispatch, hb)
            self.start(hb)
            self.exc.append(outer_exc)
            self.at = s
            self.emit(Elem("bind", h.name.name if h.name is not None else cst.Name("_"), "except", h))
            self.body(h.body)
            self.exc.pop()
            self.fallthrough(has_finally, frame, after)
            bare = bare or h.type is None
        if s.handlers and not bare:
            self.edge(dispatch, outer_exc, "raise")
        if has_finally:
            self.frames.pop()
        self.start(after)

    def fallthrough(self, has_finally: bool, frame: _Frame, after: int) -> None:
        if self.cur is None:
            return
        if has_finally:
            self.frames.pop()
            self.run_frame(frame)
            self.frames.append(frame)
        self.edge(self.cur, after)
        self.cur = None

    def with_(self, s: cst.With) -> None:
        exits = []
        for item in s.items:
            self.emit(Elem("eval", item.item, "with", item))
            if item.asname is not None:
                self.emit(Elem("bind", item.asname.name, "with", item))
            exits.append(Elem("with_exit", item.item, "", item, s))
        frame = _Frame(elems=list(reversed(exits)), exc_depth=len(self.exc))
        outer_exc = self.exc_exit_copy(frame)
        self.frames.append(frame)
        self.exc.append(outer_exc)
        raises = self.call_raises
        if raises is not None and any(type(i.item) is cst.Call and raises.expected(i.item) for i in s.items):
            self.body_but_the_last(s.body)  # the last statement is the one expected to raise
        else:
            self.body(s.body)
        self.exc.pop()
        self.frames.pop()
        if self.cur is not None:
            self.run_frame(frame)

    def match_(self, s: cst.Match) -> None:
        self.emit(Elem("eval", s.subject))
        after = self.new()
        test = self.here()
        for case in s.cases:
            self.start(test)
            body = self.new("case")
            nxt = self.new()
            self.edge(test, body)
            irrefutable = type(case.pattern) is cst.MatchAs and case.pattern.pattern is None and case.guard is None
            if not irrefutable:
                self.edge(test, nxt)
            self.start(body)
            self.at = s
            self.emit(Elem("bind", case.pattern, "case", case))
            if case.guard is not None:
                guarded = self.new()
                self.cond(case.guard, guarded, nxt)
                self.start(guarded)
            self.body(case.body)
            self.edge(self.cur, after)
            test = nxt
        self.edge(test, after)
        self.start(after)

    def finish(self) -> CFG:
        self.edge(self.cur, self.exit, "end")  # falling off the end
        return CFG(self.name, self.node, self.blocks, self.entry, self.exit, self.raise_exit)


def build_function_cfg(fn: cst.FunctionDef, name: str | None = None, call_raises: CallRaises | None = None) -> CFG:
    b = _Builder(name or fn.name.value, fn, call_raises)
    b.body(fn.body)
    return b.finish()


def build_lambda_cfg(
    lam: cst.Lambda, name: str = "<lambda>", call_raises: CallRaises | None = None, stmt: cst.CSTNode | None = None
) -> CFG:
    """`stmt`: the statement the lambda is in, if known (a hint for positions)."""
    b = _Builder(name, lam, call_raises)
    b.emit(Elem("eval", lam.body, stmt=stmt))
    return b.finish()


def build_module_cfg(mod: cst.Module, name: str = "<module>", call_raises: CallRaises | None = None) -> CFG:
    b = _Builder(name, mod, call_raises)
    b.body(mod.body)
    return b.finish()


def build_class_cfg(cls: cst.ClassDef, call_raises: CallRaises | None = None) -> CFG:
    b = _Builder(cls.name.value, cls, call_raises)
    b.body(cls.body)
    return b.finish()
