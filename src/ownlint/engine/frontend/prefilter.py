"""Which files can produce a finding, decided from their text alone.

A file can produce a finding only if it names something a model knows (a
function, a method, an attribute, an environment variable a model file
lists, a class whose receivers a model gives methods: a parameter may be
annotated with it) or calls a function of the checked tree that can
(whose file is itself selected). Everything else is never parsed: that is
what keeps ownlint near the cost of reading the files on a tree that is
mostly not interop code.

Files that may affect each other's findings (one can call a function the
other defines: see `select`) are grouped into components: each component is
analysed on its own, in parallel and cached as a unit.

A module that spells a success value of a model is selected with the selected
files that name it as a module (it may define `OK = lib.Result.SUCCESS`).

Known limits (deliberate): a file that is not selected is not parsed, so a
syntax error in it is not reported (parse errors are reported for the
files ownlint analyses). Names are matched as words, so a common function name can only
make a component larger, never lose a finding.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from ownlint.engine.modelling.models import ModelSet
from ownlint.engine.program.sources import SourceFile

# searched in the text after a newline: a pattern that starts with a literal
# is searched for fast; one that starts with `^` is tried at every character
_DEF = re.compile(r"\n[ \t]*(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_][A-Za-z_0-9]*)")
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
# above this many names, a file's words are listed once instead of searching its text for each name
_SUBSTRING_NAMES = 50


def trigger_words(models: ModelSet) -> frozenset[str]:
    """Every name whose presence may let a model apply."""
    words = set(models.trigger_words())
    caps = models.capsules
    words |= (
        caps.producer_methods
        | caps.producer_functions
        | {q.rpartition(".")[2] for q in models.observed}
        | caps.export_functions
    )
    words |= models.host_task.native_mem_methods
    words |= models.environment.deprecated
    # a descriptor chain can dangle without any modelled call (a returned
    # descriptor whose `pNext` points at a local structure)
    words.add(models.memory.chain_field)
    return frozenset(w for w in words if w)


def root_conditions(models: ModelSet) -> dict[str, frozenset[str]]:
    """The trigger words that only qualified model names give (`empty` of
    `arrays.empty`, `free` of `gpulib.runtime.free`), each with the packages a
    file must also name for it to count: without them the standard library's
    `empty`, `full` and `free` selected almost every file."""
    caps = models.capsules
    plain = set(models.by_last_name) | models.keep_alive_methods()
    plain |= (
        caps.producer_methods
        | caps.producer_functions
        | {q.rpartition(".")[2] for q in models.observed}
        | caps.export_functions
    )
    plain |= models.host_task.native_mem_methods | models.environment.deprecated
    return {w: frozenset(r) for w, r in models.qualified_roots().items() if w not in plain and w not in r}


def definitions(source: str) -> tuple[set[str], set[str]]:
    """The functions and classes a file defines (dunder methods excepted: they
    are reached through objects, not by name), and which of them are classes."""
    names: set[str] = set()
    classes: set[str] = set()
    for kind, name in _DEF.findall("\n" + source):
        if not (name.startswith("__") and name.endswith("__")):
            names.add(name)
            if kind == "class":
                classes.add(name)
    return names, classes


def spells_attribute_of(source: str, name: str) -> bool:
    """Whether `source` spells an attribute of `name` (`Name.m`), such as a
    class's. (The literal name first, then a look at the character before it:
    a pattern that starts with a look-behind searches many times slower.)"""
    for match in re.finditer(re.escape(name) + r"\s*\.", source):
        start = match.start()
        if start == 0 or source[start - 1] not in _WORD_CHARS:
            return True
    return False


_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789")


def module_words(f: SourceFile) -> set[str]:
    """The names by which other files can spell `f`'s module as the last part:
    its file name, or its directory's for an `__init__.py`."""
    parts = [p for p in f.path.replace("\\", "/").split("/") if p]
    stem = parts[-1].rsplit(".", 1)[0] if parts else ""
    words = {stem}
    if stem == "__init__" and len(parts) > 1:
        words.add(parts[-2])
    if f.module:
        words.add(f.module.rpartition(".")[2])
    return words


def _any_of(names: Iterable[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(n) for n in sorted(set(names), key=lambda n: (-len(n), n)))
    return re.compile(rf"(?<![A-Za-z_0-9])(?:{alternatives})(?![A-Za-z_0-9])")


# the bytes of an identifier (ASCII: as `_WORD` reads them) kept, every other byte a space:
# `bytes.translate` and `split` then cut a file into its words in two C passes
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789")
_SPACE_BUT_WORDS = bytes(b if b in _WORD_BYTES else 0x20 for b in range(256))


class Triggers:
    """The prefilter's test of one file on its own: whether it names a
    trigger word. A cheap test first: the file's words, cut from its bytes,
    include a trigger word that needs no package, or one that needs a package
    and the name of such a package (most files fail it: `empty` or `free`
    alone is no reason to look further); then, for a file that passes, its
    words as `names` reads them."""

    def __init__(self, models: ModelSet) -> None:
        self.words = trigger_words(models)
        self._roots = root_conditions(models)
        self._plain = {w for w in self.words if _WORD.fullmatch(w)}
        odd = self.words - self._plain
        self._odd = _any_of(odd) if odd else None
        self._unconditional = frozenset(w.encode() for w in self._plain if w not in self._roots)
        self._conditional = frozenset(w.encode() for w in self._plain if w in self._roots)
        self._packages = frozenset(r.encode() for roots in self._roots.values() for r in roots)

    def words_of(self, text: str) -> set[str] | None:
        """The words of `text` if it may name a trigger word; None if it
        cannot (most files: then its words are not needed)."""
        tokens = text.encode("utf-8", "replace").translate(_SPACE_BUT_WORDS).split()
        if (
            self._unconditional.isdisjoint(tokens)
            and (self._conditional.isdisjoint(tokens) or self._packages.isdisjoint(tokens))
            and (self._odd is None or self._odd.search(text) is None)
        ):
            return None
        return set(_WORD.findall(text))

    def plain_words(self) -> frozenset[str]:
        """The trigger words that are identifiers."""
        return frozenset(self._plain)

    def root_words(self) -> dict[str, frozenset[str]]:
        """The trigger words that count only with a package, each with its packages (`root_conditions`)."""
        return self._roots

    def may_name_oddly(self) -> bool:
        """Whether some trigger word is no identifier (searched for in the text)."""
        return self._odd is not None

    def names_oddly(self, text: str) -> bool:
        """Whether `text` spells a trigger word that is no identifier."""
        return self._odd is not None and self._odd.search(text) is not None

    def names(self, text: str, words: set[str] | None) -> bool:
        """Whether `text`, whose `words_of` are `words`, names a trigger word."""
        if words is None:
            return False
        roots = self._roots
        for w in self._plain & words:
            needed = roots.get(w)
            if needed is None or not needed.isdisjoint(words):
                return True
        return self._odd is not None and self._odd.search(text) is not None


def select(files: list[SourceFile], models: ModelSet) -> list[list[int]]:
    """The components to analyse: lists of indices into `files`, each sorted,
    the list in a deterministic order. Files in none need no analysis."""
    test = Triggers(models)
    if not test.words:
        return []
    word_cache: dict[int, set[str]] = {}
    for i, f in enumerate(files):
        words = test.words_of(f.source)
        if words is not None:
            word_cache[i] = words

    def words_of(i: int) -> set[str]:
        found = word_cache.get(i)
        if found is None:
            found = word_cache[i] = set(_WORD.findall(files[i].source))
        return found

    selected = {i for i, words in word_cache.items() if test.names(files[i].source, words)}
    found = {i: definitions(files[i].source) for i in selected}
    defines = {i: found[i][0] for i in selected}
    # a file that names a function defined in a selected file is selected too
    frontier = set(selected)
    while frontier:
        names = set().union(*(defines[i] for i in frontier))
        if not names:
            break
        # a substring test per name is memchr-fast, but with many names one
        # pass over the file's words is cheaper (a selected tree can define
        # thousands of functions)
        ordered_names = sorted(names) if len(names) <= _SUBSTRING_NAMES else []
        frontier = {
            i
            for i, f in enumerate(files)
            if i not in selected
            and (not ordered_names or any(n in f.source for n in ordered_names))
            and not names.isdisjoint(words_of(i))
        }
        for i in frontier:
            found[i] = definitions(files[i].source)
            defines[i] = found[i][0]
        selected |= frontier
    links = _success_alias_modules(files, models, selected, words_of)
    for j in {j for _, j in links} - selected:
        found[j] = definitions(files[j].source)
    selected |= {j for _, j in links}
    # group: files linked by a name one defines and the other can reach. A
    # function of another file is reached only through a dotted name whose
    # last part but one is its module's or its class's (`helper.release`,
    # `Holder.release`, after `from helper import release` too), so a use of
    # `release` links to a file defining it only if the user also names that
    # file's module; a class links where the user writes `Holder.` (a
    # `from helper import Holder` names the module, and links by that).
    parent = {i: i for i in selected}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(i: int, j: int) -> None:
        a, b = find(i), find(j)
        if a != b:
            parent[max(a, b)] = min(a, b)

    by_class: dict[str, list[int]] = {}
    by_function: dict[str, list[int]] = {}
    for i in sorted(selected):
        names, classes = found[i]
        for name in names:
            (by_class if name in classes else by_function).setdefault(name, []).append(i)
    reach = {i: module_words(files[i]) for i in selected}
    for i in sorted(selected):
        words = words_of(i)
        for name in sorted(words & by_class.keys()):
            if spells_attribute_of(files[i].source, name):
                for j in by_class[name]:
                    union(i, j)
        for name in words & by_function.keys():
            for j in by_function[name]:
                if reach[j] & words:
                    union(i, j)
    for i, j in links:
        union(i, j)
    groups: dict[int, list[int]] = {}
    for i in sorted(selected):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def _success_alias_modules(
    files: list[SourceFile], models: ModelSet, selected: set[int], words_of: Callable[[int], set[str]]
) -> list[tuple[int, int]]:
    """(importer, module) pairs: a module of the tree that binds a name at its
    top level to a model's success value (`OK = lib.Result.SUCCESS`,
    constants.py), and a selected file that names it as a module. The module
    is selected too, in the importer's component, so that `from status import
    OK` is the success value there."""
    spelled = sorted(w for w in models.success if _WORD.fullmatch(w) and not w[0].isdigit())
    if not spelled:
        return []
    alias = re.compile(rf"^[A-Za-z_]\w*[ \t]*(?::[^=\n]*)?=[^=\n]*\b(?:{'|'.join(spelled)})\b", re.MULTILINE)
    named: set[str] = set().union(*(words_of(i) for i in selected))  # the modules a selected file may import
    definers: dict[int, set[str]] = {}
    for j, f in enumerate(files):  # read only the files so named (none, on a tree without interop code)
        reach = module_words(f)
        if not reach.isdisjoint(named) and any(w in f.source for w in spelled) and alias.search(f.source):
            definers[j] = reach
    by_word: dict[str, list[int]] = {}
    for j, reach in definers.items():
        for word in reach:
            by_word.setdefault(word, []).append(j)
    links: list[tuple[int, int]] = []
    for i in sorted(selected):
        for word in sorted(by_word.keys() & words_of(i)):
            links += [(i, j) for j in by_word[word] if j != i]
    return links


def lines(files: Iterable[SourceFile]) -> int:
    return sum(f.source.count("\n") + 1 for f in files)
