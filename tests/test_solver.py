"""The generic worklist solver: a real fixed point, edge refinement, and the visit budget."""

from pathlib import Path

import libcst as cst
import pytest

from ownlint.engine.debug import cfg_of
from ownlint.engine.evaluator.solver import solve
from ownlint.engine.frontend.cfg import Block, Edge
from ownlint.engine.frontend.cfg_builder import build_function_cfg

LOOP = """
def f(xs):
    a = 1
    for x in xs:
        b = 2
        if x:
            c = 3
    d = 4
"""


def assigned(block: Block, names: frozenset[str]) -> frozenset[str]:
    """May-be-assigned names: a classic finite lattice (sets under union)."""
    out = set(names)
    for e in block.elems:
        if isinstance(e.node, cst.Assign):
            out.update(t.target.value for t in e.node.targets if isinstance(t.target, cst.Name))
    return frozenset(out)


def test_reaches_the_fixed_point_around_a_loop() -> None:
    cfg = cfg_of(LOOP, "f")
    sol = solve(cfg, frozenset(), assigned, lambda a, b: a | b)
    assert sol.ins[cfg.exit] == {"a", "b", "c", "d"}
    loop_head = next(b.id for b in cfg.blocks if b.label == "loop")
    # the head sees the body's assignments only through the back edge
    assert sol.ins[loop_head] == {"a", "b", "c"}
    assert not sol.budget_hit


def test_edge_refinement_can_cut_a_branch() -> None:
    cfg = cfg_of(LOOP, "f")

    def never_true(edge: Edge, state: frozenset[str]) -> frozenset[str] | None:
        return None if edge.kind == "true" else state

    sol = solve(cfg, frozenset(), assigned, lambda a, b: a | b, never_true)
    assert "c" not in sol.ins[cfg.exit]


def test_budget_stops_a_lattice_of_infinite_height() -> None:
    cfg = cfg_of(LOOP, "f")

    def count(block: Block, n: int) -> int:
        return n + 1

    sol = solve(cfg, 0, count, max, max_visits=5)
    assert sol.budget_hit
    assert cfg.exit in sol.ins


def test_exception_edges_carry_the_entry_state() -> None:
    cfg = cfg_of(
        """
def f():
    try:
        a = 1
        g()
    except E:
        pass
""",
        "f",
    )
    sol = solve(cfg, frozenset(), assigned, lambda a, b: a | b)
    handler = next(b.id for b in cfg.blocks if b.label == "handler")
    # g() may raise after `a = 1` ran: the handler sees `a`
    assert sol.ins[handler] == {"a"}


FIXTURES = sorted((Path(__file__).resolve().parent / "fixtures").rglob("*.py"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_each_block_runs_last_from_its_final_state(path: Path) -> None:
    """What lets the analysis collect findings as the solver goes (no second
    pass): every block's latest run is from its entry state at the fixed point."""
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    functions = [n for n in module.body if isinstance(n, cst.FunctionDef)]
    for function in functions:
        cfg = build_function_cfg(function)
        latest: dict[int, frozenset[str]] = {}

        def recording(block: Block, names: frozenset[str]) -> frozenset[str]:
            latest[block.id] = names  # noqa: B023 - solve() below calls it within this iteration, with this `latest`
            return assigned(block, names)

        sol = solve(cfg, frozenset(), recording, lambda a, b: a | b)
        assert not sol.budget_hit
        assert latest == sol.ins, function.name.value
