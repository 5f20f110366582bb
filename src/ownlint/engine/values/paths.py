"""Access paths: what `bufs[0][1]`, `self.states[name].ptr` or `buf.handle`
holds, followed as one value from one read to the next.

A subscript with a literal or a name as key, or an attribute, read from a
name (a local, a parameter, `self`, a global) where the analysis does not
know what is there, is one object per path text (`values.At`): reading the
same path again gives the same object, so freeing `bufs[0][1]` twice frees
one handle twice, and reading it after the free uses a freed handle.

The object stands for what the path held until the path may have changed;
then its typestate is forgotten (`NamesEval.forget`: recency, as a site that
makes its object again; a name that copied the old value keeps it, renamed),
and the next read is a new value. A path may have changed when

- a name it mentions is bound again: its root (`bufs = ...`, a loop over
  `buf`), or a key (`for i in ...: free(bufs[i])` frees one element per round);
- something under its root is assigned or deleted (`bufs[0] = h`,
  `self.x = ...`, `del bufs[k]`);
- a call is given its root, or a path the path extends, as an argument or a
  receiver (`bufs.pop(0)`, `state.update(ptr=p)`, `f(self)`): the callee may
  change what is below it (a read-only method of a container, such as
  `items` or `get`, and a builtin function change nothing);
- for a root that is no local, parameter or `self` (a global): any call of
  a function no model describes (it may change the global);
- a `yield` (the consumer runs in between).

A container literal a name holds (`bufs = [d]`, a `Seq` or a `Dict`) that
is changed in place the same ways (an item assigned or deleted, a method
other than a read-only one) is forgotten too, unless it is empty: its
elements escape, and the name holds an unknown value from there on.

Known limits: a container changed through an alias (`other = bufs;
other.pop()`) is not seen to change; two different keys (`bufs[i]`,
`bufs[0]`) are two values even where they name one element (findings are
lost, none made). A path's value is the function's own: what a callee does
to its caller's paths is not in its summary.
"""

from __future__ import annotations

import builtins

import libcst as cst

from ownlint.engine.evaluator.eval_shared import EvalShared
from ownlint.engine.values.values import At, Dict, Seq, Val

# methods of Python's containers that change nothing
_READ_ONLY = frozenset({"index", "count", "copy", "get", "keys", "values", "items"})

_Path = tuple[str, str, tuple[str, ...]]  # (text, root, key names)


def _path(node: cst.BaseExpression) -> _Path | None:
    """The text, root name and key names of an access path, or None when
    `node` is none (a call, a slice, a computed key)."""
    keys: list[str] = []
    parts: list[str] = []
    while True:
        if type(node) is cst.Name:
            parts.append(node.value)
            return "".join(reversed(parts)), node.value, tuple(keys)
        if type(node) is cst.Attribute:
            parts.append(f".{node.attr.value}")
            node = node.value
        elif type(node) is cst.Subscript:
            if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
                return None
            key = node.slice[0].slice.value
            if type(key) is cst.Integer or type(key) is cst.SimpleString:
                text = key.value
            elif type(key) is cst.Name:
                text = key.value
                keys.append(key.value)
            elif (
                type(key) is cst.UnaryOperation
                and type(key.operator) is cst.Minus
                and type(key.expression) is cst.Integer
            ):
                text = f"-{key.expression.value}"
            else:
                return None
            parts.append(f"[{text}]")
            node = node.value
        else:
            return None


class PathsEval:
    """Access paths, the evaluator's `paths` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev
        self.fa = ev.fa
        self.models = ev.models
        self.made: dict[str, At] = {}  # path text -> its object
        self.mentioning: dict[str, list[At]] = {}  # a name -> the paths it is the root or a key of
        self.rooted: dict[str, list[At]] = {}  # a root -> its paths
        self.global_roots: set[str] = set()  # roots that are no local, parameter or `self`
        self._paths: dict[int, _Path | None] = {}

    def _path_of(self, node: cst.BaseExpression) -> _Path | None:
        key = id(node)
        if key not in self._paths:
            self._paths[key] = _path(node)
        return self._paths[key]

    def read(self, node: cst.BaseExpression) -> Val:
        """The value of access path `node` where nothing else says what it holds."""
        path = self._path_of(node)
        if path is None:
            return None
        text, root, keys = path
        obj = self.made.get(text)
        if obj is None:
            unit = self.fa.unit
            if root in unit.constants or root in self.fa.names.imports:
                return None
            obj = self.made[text] = self.fa.path_object(text)
            for name in dict.fromkeys((root, *keys)):
                self.mentioning.setdefault(name, []).append(obj)
            self.rooted.setdefault(root, []).append(obj)
            if root not in self.ev.st.env and root not in self.fa.params and root != self.fa.self_name:
                self.global_roots.add(root)
        return obj

    def _forget(self, objs: list[At], below: str | None = None, itself: bool = False) -> None:
        """Forgets the paths `objs` (those strictly under path `below`, and
        `below` itself where `itself`)."""
        st = self.ev.st
        for obj in objs:
            if (obj in st.heap or obj in st.env.holders) and (
                below is None or obj.text.startswith((f"{below}.", f"{below}[")) or (itself and obj.text == below)
            ):
                self.ev.names.forget(obj)

    def rebound(self, key: str) -> None:
        """Env key `key` (`x`, `self.x`) is bound again."""
        if not self.made or key[:1] == "<":
            return
        name = key.partition(".")[0]
        objs = self.mentioning.get(name)
        if objs:
            self._forget(objs)

    def changed(self, node: cst.BaseExpression, contents: bool) -> None:
        """Something under `node` may have changed (it is an assignment's or a
        `del`'s target, or a call is given it); `contents`: `node` itself
        changed in place (a target, a receiver of a method that is no
        read-only one), so a container literal its root holds is forgotten."""
        path = self._path_of(node) if type(node) is cst.Name or self.made or contents else None
        if path is None:
            return
        text, root, _ = path
        if contents:
            self._forget_literal(root)
        objs = self.rooted.get(root)
        if objs:
            # a name given to a call still names what it named (a callee cannot
            # rebind it): what is under it may have changed, not the name's own path
            self._forget(objs, text, contents and text != root)

    def _forget_literal(self, root: str) -> None:
        env = self.ev.st.env
        held = env.get(root)
        if (type(held) is Seq or type(held) is Dict) and held.items:
            # (an empty one is left as it is: reading it finds nothing, so its
            # elements are read as paths, which the change forgets; and a
            # list filled on one branch only does not split the paths)
            self.ev.names.escape(held)
            unknown = self.fa.site_object(self.fa.cfg.node, "changed in place", root)
            self.ev.names.forget(unknown)
            env[root] = unknown

    def after_call(self, node: cst.Call, callee: str) -> None:
        """The call `node` has run: what it was given may have changed."""
        func = node.func
        if type(func) is cst.Name and func.value not in self.ev.st.env and hasattr(builtins, func.value):
            return  # a builtin changes none of its arguments
        if self.global_roots and self.models.call(callee) is None:
            for root in self.global_roots:
                self._forget(self.rooted[root])
        if type(func) is cst.Attribute:
            self.changed(func.value, func.attr.value not in _READ_ONLY)
        if self.made:
            for arg in node.args:
                self.changed(arg.value, False)

    def yielded(self) -> None:
        """A `yield`: the consumer runs, and may change anything."""
        for objs in self.rooted.values():
            self._forget(objs)
