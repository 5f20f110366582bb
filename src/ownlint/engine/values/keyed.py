"""Handles released through a key (`[[create]] key`, `counted`; `[[release]]
key`): the creator names the handle by one of its arguments (a device), and
the release names that argument instead of the handle.

A keyed handle carries its key in its tag: `key:<k>` (`counted:<k>` where n
creations allow n releases), and `given:<k>` once a counted release gave its
reference back while others remain (the handle is still valid: all of them
name one object). A keyed release ends the last live reference: every
handle of the key is freed then. With none live and one freed already on the
path, the release is a release of that one again (a second release). The key itself is
no handle: using it after the release is fine.

The key is a tracked object (a local bound once, a parameter) or a constant;
anything else keys nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ownlint.engine.evaluator.eval_shared import EvalShared
from ownlint.engine.values.state import FREED, LIVE, HState
from ownlint.engine.values.values import Const, Obj, Val

if TYPE_CHECKING:
    pass

_PREFIXES = ("key", "counted", "given")


def key_of(value: Val) -> str | None:
    """How a key value is written in tags; None: it names nothing."""
    if isinstance(value, Obj):
        return value.symbol
    if type(value) is Const and isinstance(value.value, (int, str)):
        return f"={value.value!r}"
    return None


class KeyedEval:
    """Handles kept under a key, the evaluator's `keyed` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev

    def key_handle(self, obj: Obj, key: Val, counted: bool) -> None:
        """`obj` was created with `key`."""
        k = key_of(key)
        hs = self.ev.st.heap.get(obj)
        if k is not None and hs is not None:
            self.ev.st.heap[obj] = hs.but(tag=f"{'counted' if counted else 'key'}:{k}")

    def keyed(self, key: Val) -> list[tuple[Obj, HState]]:
        """The handles created with `key`, in the order they were made."""
        k = key_of(key)
        if k is None:
            return []
        out = []
        for obj, hs in self.ev.st.heap.items():
            prefix, _, rest = hs.tag.partition(":")
            if rest == k and prefix in _PREFIXES:
                out.append((obj, hs))
        return out

    def release_keyed(self, node: cst.Call, arg: cst.Arg, key: Val) -> None:
        """A release that names the key: give one reference back."""
        mine = self.keyed(key)
        live = [(o, hs) for o, hs in mine if hs.kind == LIVE and not hs.tag.startswith("given:")]
        if len(live) > 1 and live[-1][1].tag.startswith("counted:"):
            obj, hs = live[-1]
            self.ev.st.heap[obj] = hs.but(tag="given:" + hs.tag.partition(":")[2])
            return
        if live:
            for obj, hs in mine:
                if hs.kind == LIVE:
                    self.ev.calls.free(obj, node, arg.value)
            return
        freed = [o for o, hs in mine if hs.kind == FREED]
        if freed:
            self.ev.calls.free(freed[-1], node, arg.value)
