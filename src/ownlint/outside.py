"""Checkers from outside ownlint (Fixit's local rules): a user's `events.Checker`
subclass, named in the configuration as "module:Class"
(`checkers = ["mypkg.rules:MyChecker"]`), with rule records of its own.

What a checker must be, checked when it is loaded (`load`), each failure a
`CheckerError` of one line naming the spec and the reason: a class that
subclasses `ownlint.engine.events.Checker`, can be made without arguments
(the engine makes one per process), and declares its rules in a class
attribute `rules`, a non-empty tuple of `ownlint.rule.Rule`, each code
upper-case letters then digits (`ABC101`), not starting with `OWN`
(ownlint's own), and not declared by another checker loaded already.

Where it is imported from: the environment's import path only (the
standard library, installed packages, editable installs, `PYTHONPATH`),
never the current directory, which is usually the checked tree (README,
"Security"): a repository's configuration naming a module that exists only
inside it gets "No module named ...", and that module never runs. The
engine's worker processes import checkers by the same names, on the same
path (`ownlint.processes.own_import_path`).

The rules of every checker loaded in this process are known to the registry
(`rules`); in a worker process, which imports a checker without loading it
here, `rule_of` finds a code's rule on the checker classes imported.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from ownlint.inputs import shorten
from ownlint.processes import own_import_path
from ownlint.rule import Rule

if TYPE_CHECKING:
    from ownlint.diagnostics import Diagnostic
    from ownlint.engine.violations import Violation

SPEC = re.compile(r"(?P<module>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):(?P<name>[A-Za-z_]\w*)", re.ASCII)
CODE = re.compile(r"[A-Z]+[0-9]+")
NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
OWN_PREFIX = "OWN"  # ownlint's own codes
SEVERITIES = ("error", "warning")


class CheckerError(ValueError):
    """A checker that cannot be used; str() is one line: the spec, then the reason."""


@dataclass(frozen=True, slots=True)
class Outside:
    """A checker loaded: its spec, its rules and the file of its module (hashed into the cache's key)."""

    spec: str
    rules: tuple[Rule, ...]
    source: Path | None


_LOADED: dict[str, Outside] = {}
_RULES: dict[str, tuple[Rule, str]] = {}  # every loaded checker's rules, by code, with the spec that declares it
_BY_CODE: dict[str, Rule] = {}
_VIEW: Mapping[str, Rule] = MappingProxyType(_BY_CODE)


def load(spec: str) -> Outside:
    """The checker `spec` names, imported, made once and its rules registered (once per process)."""
    loaded = _LOADED.get(spec)
    if loaded is not None:
        return loaded
    match = SPEC.fullmatch(spec)
    if match is None:
        raise CheckerError(f"{shorten(spec)}: expected 'module:Class' (like 'mypkg.rules:MyChecker')")
    module_name, class_name = match["module"], match["name"]
    module = _imported(spec, module_name)
    cls = getattr(module, class_name, None)
    if cls is None:
        raise CheckerError(f"{spec!r}: {module_name!r} has no {class_name!r}")
    from ownlint.engine.events import Checker  # libcst: only where a checker is named

    if not isinstance(cls, type) or not issubclass(cls, Checker):
        raise CheckerError(f"{spec!r}: is not an ownlint checker (a subclass of ownlint.engine.events.Checker)")
    rules = _rules(spec, cls)
    try:
        cls()
    except Exception as error:  # the user's code: whatever it raises is one line, never a traceback
        raise CheckerError(f"{spec!r}: cannot be made without arguments: {_reason(error)}") from None
    file = getattr(module, "__file__", None)
    loaded = _LOADED[spec] = Outside(spec, rules, Path(file) if isinstance(file, str) else None)
    for rule in rules:
        _RULES[rule.code] = (rule, spec)
        _BY_CODE[rule.code] = rule
    return loaded


def rules() -> Mapping[str, Rule]:
    """The rules of every checker loaded in this process, by code (read-only, and kept current)."""
    return _VIEW


def rule_of(code: str) -> Rule | None:
    """The rule of an outside checker with this code: loaded here, or declared by a checker class this
    process imported (a worker's engine imports them by name)."""
    found = _RULES.get(code)
    if found is not None:
        return found[0]
    from ownlint.engine.events import Checker

    pending = list(Checker.__subclasses__())
    while pending:
        cls = pending.pop()
        pending += cls.__subclasses__()
        for rule in getattr(cls, "rules", ()):
            if isinstance(rule, Rule) and rule.code == code:
                return rule
    return None


def to_diagnostic(rule: Rule | None, v: Violation) -> Diagnostic:
    """An outside checker's finding: its message the fact `message` if the checker gave one (where
    `{handle}` stands for the handle as the source spells it), else its rule's summary; the story's
    labels as the checker told them."""
    from ownlint.diagnostics import Diagnostic, Related

    summary = rule.summary if rule is not None else f"{v.code} (a rule no loaded checker declares)"
    return Diagnostic(
        code=v.code,
        path=v.path,
        span=v.span,
        message=(v.fact("message") or summary).replace("{handle}", v.handle or "the handle"),
        related=tuple(Related(s.path, s.span, s.label) for s in v.story),
        handle=v.handle,
        label=v.fact("label") or None,
    )


def source_files(specs: tuple[str, ...]) -> tuple[Path, ...]:
    """The module files of the loaded checkers among `specs` (what the result cache's key hashes)."""
    return tuple(loaded.source for spec in specs if (loaded := _LOADED.get(spec)) and loaded.source is not None)


def _imported(spec: str, module_name: str) -> object:
    """The module, imported from the environment's import path without the current directory."""
    saved = sys.path[:]
    sys.path[:] = own_import_path(saved)
    try:
        return importlib.import_module(module_name)
    except Exception as error:  # the user's code runs as it is imported: any failure is one line
        raise CheckerError(f"{spec!r}: cannot import {module_name!r}: {_reason(error)}") from None
    finally:
        sys.path[:] = saved


def _rules(spec: str, cls: type) -> tuple[Rule, ...]:
    declared = getattr(cls, "rules", None)
    if not isinstance(declared, tuple) or not declared or not all(isinstance(r, Rule) for r in declared):
        raise CheckerError(f"{spec!r}: declares no rules (a class attribute `rules`, a tuple of ownlint.rule.Rule)")
    seen: set[str] = set()
    for rule in declared:
        if not CODE.fullmatch(rule.code):
            raise CheckerError(
                f"{spec!r}: rule code {shorten(rule.code)} is not upper-case letters then digits (like 'ABC101')"
            )
        if rule.code.startswith(OWN_PREFIX):
            raise CheckerError(f"{spec!r}: rule code {rule.code!r} is ownlint's own: choose another prefix")
        if not NAME.fullmatch(rule.name):
            raise CheckerError(f"{spec!r}: rule {rule.code} name {shorten(rule.name)} is not kebab-case")
        if rule.severity not in SEVERITIES:
            raise CheckerError(f"{spec!r}: rule {rule.code} severity {shorten(rule.severity)}: not error or warning")
        other = _RULES.get(rule.code)
        if rule.code in seen or (other is not None and other[1] != spec):
            by = f" by {other[1]!r}" if other is not None else ""
            raise CheckerError(f"{spec!r}: rule code {rule.code!r} is declared twice{by}")
        seen.add(rule.code)
    return declared


def _reason(error: BaseException) -> str:
    return " ".join(f"{type(error).__name__}: {error}".split())
