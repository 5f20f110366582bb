"""One module per rule: its documentation and how its violations read.

The analysis in `ownlint.engine` proves violations; a check only decides what
the finding says. `RULES` is the registry's source; `to_diagnostic` turns a
violation into the `Diagnostic` the renderers show (for a rule of a checker
from outside ownlint, as `ownlint.outside` words it).
"""

from __future__ import annotations

import importlib
import pkgutil

from ownlint import outside
from ownlint.checks.base import Check
from ownlint.diagnostics import Diagnostic, Related
from ownlint.engine.violations import Violation
from ownlint.rule import Rule


def _load_checks() -> dict[str, Check]:
    """Every `ownNNN_name` module of this package, by code."""
    found: dict[str, Check] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("own") and info.name[3:6].isdigit():
            module = importlib.import_module(f"{__name__}.{info.name}")
            found[module.RULE.code] = module.CHECK
    return found


CHECKS: dict[str, Check] = _load_checks()
RULES: tuple[Rule, ...] = tuple(c.rule for c in CHECKS.values())

# The rule families: what reads the analysis's events and decides which rule
# a finding breaks (events.Checker). The engine imports them by these names
# when it analyses something (EngineOptions.checkers), so that a run whose
# results all come from the cache imports none of them, nor libcst.
CHECKERS: tuple[str, ...] = (
    "ownlint.checks.parse:ParseChecker",
    "ownlint.checks.lifetime:LifetimeChecker",
    "ownlint.checks.leaks:LeakChecker",
    "ownlint.checks.counted:CountedChecker",
    "ownlint.checks.memmap:MemmapChecker",
    "ownlint.checks.interop:InteropChecker",
    "ownlint.checks.threads:ThreadsChecker",
    "ownlint.checks.asynchronous:AsyncChecker",
    "ownlint.checks.parents:ParentsChecker",
    "ownlint.checks.finalizers:FinalizerChecker",
    "ownlint.checks.environment:EnvironmentChecker",
)


# "The most specific rule wins at a site, one finding per handle per site"
# (the rules' "How findings are chosen"): different paths may reach one site with the handle in different
# states; the finding kept is the most specific one.
SUPERSEDES: dict[str, frozenset[str]] = {
    "OWN201": frozenset({"OWN203"}),
    "OWN202": frozenset({"OWN101", "OWN102", "OWN203"}),
    "OWN103": frozenset({"OWN101", "OWN102"}),
    "OWN403": frozenset({"OWN101", "OWN102"}),
    "OWN102": frozenset({"OWN101"}),
}


# Rules reported once per handle (the first site in the file where it holds, by line), whatever number
# of paths reach it at different sites: a handle leaked at two `return`s is one leak. A handle is told
# by the first step of its story (its creation) and, for one a project function made and returned, the
# call that returned it (each caller holds its own).
ONCE_PER_HANDLE = frozenset({"OWN205", "OWN206"})
# A handle that leaks on a normal path (OWN205) is not reported again for the paths of exceptions (OWN206).
LEAKED_ANYWAY = ("OWN205", "OWN206")


def most_specific(violations: list[Violation]) -> list[Violation]:
    """Drop a violation when a more specific one holds at the same site for the same handle,
    and all but the first of a rule reported once per handle."""
    violations = _once_per_handle(violations)
    at_site: dict[tuple[str, object, str | None], set[str]] = {}
    for v in violations:
        at_site.setdefault((v.path, v.span, v.handle), set()).add(v.code)
    return [
        v
        for v in violations
        if not any(v.code in SUPERSEDES.get(other, ()) for other in at_site[(v.path, v.span, v.handle)])
    ]


def _once_per_handle(violations: list[Violation]) -> list[Violation]:
    first: dict[tuple[str, str, object], Violation] = {}
    for v in violations:
        if v.code in ONCE_PER_HANDLE and v.story:
            key = (v.code, v.path, _handle_of(v))
            if key not in first or _site(v) < _site(first[key]):
                first[key] = v
    if not first:
        return violations
    leaked, on_exception = LEAKED_ANYWAY
    for code, path, handle in list(first):
        if code == on_exception and (leaked, path, handle) in first:
            del first[(code, path, handle)]
    kept = {id(v) for v in first.values()}
    return [v for v in violations if v.code not in ONCE_PER_HANDLE or not v.story or id(v) in kept]


def _handle_of(v: Violation) -> tuple[object, ...]:
    """Where the handle a finding is about was made (and, made by a project
    function, where that function returned it: the story steps the replay of
    a summary adds, `returned by ... here`)."""
    returned = [(s.path, s.span) for s in v.story if s.label.startswith("returned by `")]
    return (v.story[0].path, v.story[0].span, *returned[-1:])


def _site(v: Violation) -> tuple[int, int]:
    return (v.span.line, v.span.column)


def to_diagnostic(v: Violation) -> Diagnostic:
    check = CHECKS.get(v.code)
    if check is None:  # a rule of a checker from outside ownlint (`ownlint.outside`)
        return outside.to_diagnostic(outside.rule_of(v.code), v)
    message, label, help_text = check.describe(v)
    related = tuple(Related(s.path, s.span, check.story_label(s.label)) for s in v.story)
    return Diagnostic(
        code=v.code,
        path=v.path,
        span=v.span,
        message=message,
        related=related,
        fix=check.fix(v),
        handle=v.handle,
        help=help_text,
        label=label,
        reference=v.fact("reference") or None,
        reference_url=v.fact("reference_url") or None,
    )
