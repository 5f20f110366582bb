"""Which files can produce a finding, decided from their text alone.

A file can produce a finding only if it names something a model knows (a
Level Zero function, `make_queue`, `get_native`, `__dlpack__`,
`SYCL_DEVICE_FILTER`, ...) or calls a function of the checked tree that can
(whose file is itself selected). Everything else is never parsed: that is
what keeps ownlint near the cost of reading the files on a tree that is
mostly not interop code.

Files that may affect each other's findings (one names a function another
defines) are grouped into components: each component is analysed on its
own, in parallel and cached as a unit.

Known limits (deliberate): a file that is not selected is not parsed, so a
syntax error in it is not reported (OWN001 covers the files ownlint
analyses). Names are matched as words, so a common function name can only
make a component larger, never lose a finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ownlint.engine.models import ModelSet
from ownlint.engine.sources import SourceFile

_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_][A-Za-z_0-9]*)", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def trigger_words(models: ModelSet) -> frozenset[str]:
    """Every name whose presence may let a model apply."""
    words = set(models.trigger_words())
    caps = models.capsules
    words |= caps.producer_methods | caps.producer_functions | caps.consumers | caps.export_functions
    words |= models.host_task.native_mem_methods
    words |= models.environment.deprecated
    return frozenset(w for w in words if w)


def defined_names(source: str) -> set[str]:
    """Functions and classes a file defines (dunder methods excepted: they are
    reached through objects, not by name)."""
    return {m for m in _DEF.findall(source) if not (m.startswith("__") and m.endswith("__"))}


def _any_of(names: Iterable[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(n) for n in sorted(set(names), key=lambda n: (-len(n), n)))
    return re.compile(rf"(?<![A-Za-z_0-9])(?:{alternatives})(?![A-Za-z_0-9])")


def select(files: list[SourceFile], models: ModelSet) -> list[list[int]]:
    """The components to analyse: lists of indices into `files`, each sorted,
    the list in a deterministic order. Files in none need no analysis."""
    triggers = trigger_words(models)
    if not triggers:
        return []
    found = _any_of(triggers)
    # a substring test first (memchr-fast), the word-boundary regex only on candidates
    ordered = sorted(triggers)
    selected = {
        i for i, f in enumerate(files) if any(w in f.source for w in ordered) and found.search(f.source)
    }
    defines = {i: defined_names(files[i].source) for i in selected}
    # a file that names a function defined in a selected file is selected too
    frontier = set(selected)
    while frontier:
        names = set().union(*(defines[i] for i in frontier))
        if not names:
            break
        uses = _any_of(names)
        ordered_names = sorted(names)
        frontier = {
            i
            for i, f in enumerate(files)
            if i not in selected and any(n in f.source for n in ordered_names) and uses.search(f.source)
        }
        for i in frontier:
            defines[i] = defined_names(files[i].source)
        selected |= frontier
    # group: files linked by a name one defines and the other uses
    parent = {i: i for i in selected}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, list[int]] = {}
    for i in sorted(selected):
        for name in defines[i]:
            owner.setdefault(name, []).append(i)
    for i in sorted(selected):
        for name in set(_WORD.findall(files[i].source)) & owner.keys():
            for j in owner[name]:
                a, b = find(i), find(j)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for i in sorted(selected):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def lines(files: Iterable[SourceFile]) -> int:
    return sum(f.source.count("\n") + 1 for f in files)
