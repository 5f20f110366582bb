"""What the engine is given: source files and options (no libcst here, so that
a fully cached run never imports it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: str  # as shown to the user: relative to the working directory, with "/"
    source: str
    module: str | None = None  # dotted module name, when known


@dataclass(frozen=True, slots=True)
class FunctionStats:
    """What the analysis of one function (or module body, or lambda) cost:
    `steps` is the deterministic count its budget is kept in (see
    `typestate.FunctionAnalysis.run`), `size` what the budget is proportional
    to, `seconds` the time spent in it, less
    the functions it called that were analysed meanwhile; `note` the budget
    note it got, if any."""

    path: str
    name: str
    line: int
    steps: int
    size: int  # syntax nodes (the unit of its step budget)
    seconds: float
    note: str = ""


@dataclass(frozen=True, slots=True)
class EngineOptions:
    interop_modules: tuple[str, ...] = ()
    page_size: int | None = None  # None: symbolic
    incremental: bool = False  # re-parse only the top-level statements that changed (engine/frontend/incremental.py)
    # parse and analyse only the top-level sections that can hold a tracked value (engine/frontend/relevance.py);
    # the driver asks for it where it applies the prefilter (the engine analyses all it is given otherwise)
    sections: bool = False
    # analyse a function that cannot touch a tracked value (engine/program/demand.py) only when a caller
    # needs its summary; the driver asks for it with `sections`
    demand: bool = False
    # `sections` and `demand` apply only to a component of at least this many characters: a smaller one is
    # analysed whole, every function of it (the driver's choice, as both are; 0: every component)
    sections_from: int = 0
    # the rule families that read the analysis (events.Checker), as "module:Class";
    # ownlint.checks.CHECKERS names ownlint's own
    checkers: tuple[str, ...] = ()


def module_names(paths: list[str]) -> dict[str, str]:
    """Dotted module names, rooted at the first directory up that is not a
    package (has no `__init__.py` among the checked files)."""
    present = set(paths)
    out: dict[str, str] = {}
    for path in paths:
        parts = path.split("/")
        stem = parts[-1].rsplit(".", 1)[0]
        mod = [] if stem == "__init__" else [stem]
        dirs = parts[:-1]
        while dirs and "/".join([*dirs, "__init__.py"]) in present:
            mod.insert(0, dirs.pop())
        out[path] = ".".join(mod)
    return out
