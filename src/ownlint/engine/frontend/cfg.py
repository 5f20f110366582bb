"""Control-flow graphs of a module body, a function or a lambda.

Basic blocks hold *elements*: a small statement of the source, or a
synthetic step the source implies (evaluating a condition, binding a `for`
target, leaving a `with` block). Edges are typed:

- `next`: ordinary flow, carrying the state after the block;
- `true` / `false`: the two ways out of a condition, with the condition
  expression, so an analysis can assume it held or failed;
- `raise`: an explicit `raise` (or a failed `assert`, or a call outside any
  `try` to a function of the program that may raise), carrying the state
  after the block;
- `exc`: an exception raised *inside* the block, carrying the state at the
  block's entry. Inside a protected region (a `try` or `with` body) every
  statement that may raise starts a block of its own, so the entry state is
  the state just before that statement.

The graphs are built in cfg_builder.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

import libcst as cst

from ownlint.engine.frontend.walk import walk

_EMPTY = cst.Module(body=[])


def source_of(node: cst.CSTNode) -> str:
    """The source text of a node, on one line."""
    if type(node) is cst.Name and not node.lpar:  # most handles: no need to print
        return node.value
    try:
        text = _EMPTY.code_for_node(node)
    except Exception:  # a synthetic node libcst cannot print on its own
        return type(node).__name__
    return " ".join(text.split())


@dataclass(frozen=True, slots=True, eq=False)
class Elem:
    """One step of a block.

    kind:
      - `stmt`: a small statement (`node`);
      - `return`, `raise`: those statements (`node`);
      - `eval`: evaluate an expression (`node`): a condition, a `for`
        iterable, a `with` item, a `match` subject;
      - `bind`: bind `node` (a target) to a value from `source` (`for`,
        `with`, `except`, `case`), whose syntax is `origin`;
      - `with_exit`: leave the `with` item `origin` (its `__exit__` runs);
      - `def`: a nested `def`/`class`/`lambda` binding its name (`node`).
    """

    kind: str
    node: cst.CSTNode
    source: str = ""
    origin: cst.CSTNode | None = None
    stmt: cst.CSTNode | None = None  # the statement the element comes from

    def text(self) -> str:
        if self.kind == "bind":
            target = source_of(self.node) if self.node is not None else "_"
            return f"bind {target} <- {self.source}"
        if self.kind == "with_exit":
            assert self.origin is not None
            return f"exit with {source_of(self.origin)}"
        if self.kind == "eval":
            return f"eval {source_of(self.node)}"
        if self.kind == "def":
            name = getattr(getattr(self.node, "name", None), "value", "<lambda>")
            return f"def {name}"
        return source_of(self.node)


@dataclass(frozen=True, slots=True)
class Edge:
    src: int
    dst: int
    # next | true | false | raise | exc; into the exit: return (after a
    # `return` and the `finally` bodies it runs) or end (falling off the end)
    kind: str
    test: cst.BaseExpression | None = None


@dataclass(slots=True)
class Block:
    id: int
    elems: list[Elem] = field(default_factory=list)
    succs: list[Edge] = field(default_factory=list)
    preds: list[Edge] = field(default_factory=list)
    label: str = ""


@dataclass(slots=True)
class CFG:
    name: str
    node: cst.CSTNode
    blocks: list[Block]
    entry: int
    exit: int  # normal return
    raise_exit: int  # an exception leaves the function

    def dump(self) -> str:
        """A readable text form, one block after another (tested as golden text)."""
        out: list[str] = []
        for b in self.blocks:
            if b.id != self.entry and not b.preds:
                continue  # unreachable
            tag = f" ({b.label})" if b.label else ""
            out.append(f"B{b.id}{tag}:")
            out.extend(f"  {e.text()}" for e in b.elems)
            if b.succs:
                parts = []
                for e in b.succs:
                    if e.kind in ("true", "false") and e.test is not None:
                        parts.append(f"B{e.dst} [{e.kind}: {source_of(e.test)}]")
                    elif e.kind in ("next", "return", "end"):
                        parts.append(f"B{e.dst}")
                    else:
                        parts.append(f"B{e.dst} [{e.kind}]")
                out.append("  -> " + ", ".join(parts))
        return "\n".join(out) + "\n"

    def reverse_postorder(self) -> list[int]:
        seen: set[int] = set()
        order: list[int] = []
        stack: list[tuple[int, Iterator[Edge]]] = [(self.entry, iter(self.blocks[self.entry].succs))]
        seen.add(self.entry)
        while stack:
            bid, it = stack[-1]
            for e in it:
                if e.dst not in seen:
                    seen.add(e.dst)
                    stack.append((e.dst, iter(self.blocks[e.dst].succs)))
                    break
            else:
                stack.pop()
                order.append(bid)
        order.reverse()
        return order


class CallRaises(Protocol):
    """What the models say of calls raising: whether a call may raise (by
    default every call may; the models say which never do: ctypes calls of a
    C API that returns status codes), and whether a call makes a context
    manager whose block must raise (`with pytest.raises(E):`, a model's
    `expects-raise`): the block's last statement is then the one expected to
    fail, and the control-flow graph does not run it; and whether a call
    never returns."""

    def __call__(self, call: cst.Call) -> bool: ...

    def expected(self, call: cst.Call) -> bool: ...

    def never_returns(self, call: cst.Call) -> bool:
        """Whether the call always raises or ends the process (`pytest.skip`,
        `sys.exit`: a model's `no-return`): the path goes on only as an exception."""
        ...

    # whether a call goes to a function of the checked program that may raise
    # (raising.py): outside any `try`, its statement then has a way out to the
    # frame's raise end, with the state after it; None: no call does
    raising: Callable[[cst.Call], bool] | None


def may_raise(node: cst.CSTNode, call_raises: CallRaises | None = None) -> bool:
    if type(node) in (cst.Raise, cst.Assert):
        return True
    for n in walk(node, into_scopes=False):  # a lambda's body runs later, if at all
        if type(n) is cst.Call and (call_raises is None or call_raises(n)):
            return True
    return False
