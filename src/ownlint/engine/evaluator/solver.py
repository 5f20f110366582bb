"""One generic forward worklist solver over a CFG (mypyc's analysis/dataflow.py).

`solve` computes, for every reachable block, the fixed point of the state at
its entry: IN[b] = join of edge(e, OUT-or-IN[pred]) over b's incoming edges.
`exc` edges carry the predecessor's IN state (the exception left before the
block's work was done, see cfg.py); every other edge carries its OUT state.

A block is run again whenever its entry state changes, so (unless the
budget below cut the solver short) the latest call of `transfer` for each
block is from its final entry state: a caller may collect what it reports
during the solve, keeping each block's latest, instead of a second pass.

Termination: the caller's lattice must have finite height, or it must
give a `widen`: at a loop head (the target of an edge that goes back in
reverse postorder) visited `widen_after` times already, the new entry state
is `widen(old, join(old, carried))` instead of the join. As a guard against
a lattice that still does not converge (a bug, or a state budget that is
too generous), a block visited more than `max_visits` times is no longer
re-queued, and `Solution.budget_hit` says so: the result is then an
under-approximation that the caller must report, not hide.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from ownlint.engine.frontend.cfg import CFG, Block, Edge

S = TypeVar("S")


@dataclass(slots=True)
class Solution(Generic[S]):
    ins: dict[int, S]
    budget_hit: bool


def solve(
    cfg: CFG,
    initial: S,
    transfer: Callable[[Block, S], S],
    join: Callable[[S, S], S],
    edge: Callable[[Edge, S], S | None] = lambda e, s: s,
    max_visits: int = 200,
    widen: Callable[[S, S], S] | None = None,
    widen_after: int = 3,
) -> Solution[S]:
    """The fixed point of `transfer` over `cfg` from `initial` at the entry.

    `edge` may refine a state along an edge (assume a condition) or return
    None when the edge cannot be taken from it.
    """
    order = {bid: i for i, bid in enumerate(cfg.reverse_postorder())}
    ins: dict[int, S] = {cfg.entry: initial}
    visits: dict[int, int] = {}
    budget_hit = False
    work = [(order[cfg.entry], cfg.entry)]
    queued = {cfg.entry}
    while work:
        _, bid = heapq.heappop(work)
        queued.discard(bid)
        visits[bid] = visits.get(bid, 0) + 1
        block = cfg.blocks[bid]
        state_in = ins[bid]
        state_out = transfer(block, state_in)
        for e in block.succs:
            carried = edge(e, state_in if e.kind == "exc" else state_out)
            if carried is None:
                continue
            old = ins.get(e.dst)
            new = carried if old is None else join(old, carried)
            if old is not None and new == old:
                continue
            if widen is not None and old is not None and visits.get(e.dst, 0) >= widen_after:
                new = widen(old, new)
                if new == old:
                    continue
            ins[e.dst] = new
            if e.dst in queued:
                continue
            if visits.get(e.dst, 0) >= max_visits:
                budget_hit = True
                continue
            queued.add(e.dst)
            heapq.heappush(work, (order.get(e.dst, len(order)), e.dst))
    return Solution(ins, budget_hit)
