"""Adoption inputs: the evaluator's `interop` component publishes, for a
call that adopts a native handle, its arguments and whether the handle is
host memory (`AdoptCall`), for the checkers; it decides no rule (capsules,
context provenance, threads and host tasks are checkers' own facts:
checks/interop.py, checks/threads.py).
"""

from __future__ import annotations

import libcst as cst

from ownlint.engine.eval_shared import EvalShared
from ownlint.engine.events import AdoptCall
from ownlint.engine.memvalues import parse_tag
from ownlint.engine.models import Adopt
from ownlint.engine.state import LIVE_STATE
from ownlint.engine.values import Addr, BufRef, Obj, Param, Val


class InteropEval:
    """Adoption inputs, the evaluator's `interop` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev
        self.on = ev.on

    def check_inputs(self, adopt: Adopt, node: cst.Call, handle: Val, args: list[tuple[cst.Arg, Val]]) -> None:
        """An adopting call's arguments, for the checkers (with whether the handle is host memory)."""
        handlers = self.on["adopt_call"]
        if not handlers:
            return
        host = (type(handle) is Addr and not isinstance(handle.buffer, Param)) or type(handle) is BufRef
        if isinstance(handle, Obj):
            host = parse_tag(self.ev.st.heap.get(handle, LIVE_STATE).tag) is not None
        event = AdoptCall(adopt, node, host, tuple(args))
        for handler in handlers:
            handler(event, self.ev)
