"""Which rules a selector names, and whether a code is selected (Ruff's rule selection).

A selector (`select`, `ignore`, `extend-select`, `per-file-ignores`, the
command line's `--select`...) is a code or prefix of ownlint's (`OWN2`,
`OWN201`), a code or prefix of the rules of a loaded outside checker
(`ownlint.outside`), or a rule's kebab-case name (which stands for its code).
A code is selected when the longest `select` entry that is a prefix of it is
longer than the longest `ignore` one (on a tie, ignore wins); a preview rule
(`Rule.preview`) only where a `select` entry is its exact code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ownlint import outside
from ownlint.inputs import shorten

if TYPE_CHECKING:
    from ownlint.rule import Rule

_OWN_CODE_OR_PREFIX = re.compile(r"OWN[0-9]{0,3}")


class ConfigError(ValueError):
    """A configuration that cannot be used; str() is one line naming the file and the key."""


def longest_prefix(code: str, prefixes: Iterable[str]) -> int:
    """The length of the longest of `prefixes` that `code` starts with (0: none)."""
    return max((len(p) for p in prefixes if code.startswith(p)), default=0)


def is_selected(code: str, select: Iterable[str], ignored_by: int, rules: Mapping[str, Rule] | None = None) -> bool:
    """Whether `select` turns `code` on against an ignore prefix of length `ignored_by`; `rules`: where to
    learn whether it is a preview rule (default: the registry)."""
    selected_by = longest_prefix(code, select)
    if selected_by <= ignored_by:
        return False
    return selected_by == len(code) or not _in_preview(code, rules)


def _in_preview(code: str, rules: Mapping[str, Rule] | None) -> bool:
    if rules is None:
        from ownlint.registry import all_rules  # the rules' records: only for a code that a prefix selects

        rules = all_rules()
    rule = rules.get(code)
    return rule is not None and rule.preview


def normalize_code(value: object, where: str) -> str:
    """A selector as its upper-case code or prefix (`own2` -> `OWN2`, `double-free` -> `OWN201`);
    a ConfigError naming `where` when it names no rule of ownlint's nor of a loaded checker."""
    if isinstance(value, str):
        code = value.strip().upper()
        if _OWN_CODE_OR_PREFIX.fullmatch(code) or (code and any(c.startswith(code) for c in outside.rules())):
            return code
        from ownlint.registry import all_rules  # a name: the rules' records, only then

        named = next((r.code for r in all_rules().values() if r.name == value.strip().lower()), None)
        if named is not None:
            return named
    raise ConfigError(f"{where}: {shorten(value)} is not a rule code or prefix (like 'OWN201' or 'OWN2')")
