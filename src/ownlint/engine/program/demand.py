"""Demand inside the project: which functions can touch a tracked value at
all, found from the names their code spells (no analysis); the others are
not analysed unless a caller needs their summary.

A function is *inert* when no word its code spells (a name, an attribute,
a word of a string literal) is

- a trigger word of the models (the prefilter's words, relevance.py's
  test: a word that counts only with a package counts where the function
  spells the package, or a name its file imports from or as the package, or
  a name a top-level statement of its file binds from a name imported from
  the package (`xp = pkg`), or where the file imports `*`
  or is part of the package); a name its file imports a trigger word as;
  or, where a model's trigger is no identifier, the function's text spells
  it. Not a word every model of which only borrows (`t.data_ptr()`): a
  borrow makes a finding only from an owner, and an owner comes into a
  function only through a word of the other kinds;
- the last name of a project function (not a method) that is not inert, or
  the name of a project class that is not inert (one with a method, or a base
  class, that is not inert, or whose body names a trigger word), also under
  a name its file imports it as;
- for a method, the name of a method that is not inert of a class of its
  family (the classes joined to its own through their bases: what `self.m()`
  and `super().m()` reach). A method of another class is reached only on an
  object of that class, which the code can only have from spelling the class
  or calling a function that returns one (and spells the class in turn), or
  from an attribute of `self` (below): the class is then not inert either;
- an attribute of `self` that the methods of its class assign an object of
  a class that is not inert (`Project.field_classes`);
- a name a top-level statement of a module (not a definition; each simple
  statement of a compound one, `if __name__ == "__main__":`, on its own)
  binds (an assignment, `for`, `with ... as`, `:=`) where that statement is
  not inert by these rules, or that a live function declares `global` (a
  handle kept in a module name).

This is a greatest fixpoint over the project: every function starts inert,
and one that spells what is not inert stops being inert, until nothing
changes.

What is cut short, and why it loses no finding: an inert function is not
analysed for its own findings (it has none: no modelled call, type or
attribute is spelled in it, so nothing in it can create, release, borrow or
check a tracked value; it calls no project function that can, builds no
object of a project class that can, and reads no module name or attribute of
`self` that can hold one; a parameter is a symbol the analysis follows only
into calls, and every call it makes is to code that does nothing to it).
Its summary: when a caller first needs it, the function is analysed then,
path-insensitively (`FunctionAnalysis.linear`, `StateSet.merged`: after
every block and at every join, the path states with the same heap are merged
into one that keeps the names and assumptions they agree on), so its cost is
linear in its size. What it does to its parameters and fields (the heap)
stays apart per path, so a caller passing a handle to it sees each way it
can use, keep or hand back that handle; what merges is values no model reads
(constants, counters, the DSL's objects). A return value that differs
between paths of the same heap is forgotten (unknown to the caller), which
can only lose a finding, never make one. No budget note is given for those
merges, nor for its expression-level forks past the fork budget (followed
one way): they are the design, and lose nothing of the function's own (a
run out of steps is still noted: its summary is then lost). Most
inert functions are never asked for a summary, as most inert code is only
called from inert code; a budget note is then never given to code that had
nothing to find. The test is on words, so a word that is not what it looks
like (a local that shares a method's name) can only make a function not
inert, never the reverse.

`tests/test_selection.py` runs every fixture with and without it (and the
sections, as a run has both) and compares the findings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import libcst as cst

from ownlint.engine.evaluator.typestate_base import Unit
from ownlint.engine.frontend.prefilter import Triggers
from ownlint.engine.frontend.walk import walk
from ownlint.engine.modelling import effects as fx
from ownlint.engine.modelling.models import ModelSet

_WORD = re.compile(r"[^\W\d]\w*")
_TRIGGERS: dict[int, tuple[ModelSet, Triggers]] = {}


_WORDS: dict[int, tuple[ModelSet, tuple[frozenset[str], frozenset[str]]]] = {}


def _triggers(models: ModelSet) -> Triggers:
    known = _TRIGGERS.get(id(models))
    if known is None or known[0] is not models:
        known = _TRIGGERS[id(models)] = (models, Triggers(models))
    return known[1]


def _words_of(models: ModelSet, triggers: Triggers) -> tuple[frozenset[str], frozenset[str]]:
    """The models' words looked for in strings, and their trigger words less those that only borrow (once per models)."""
    known = _WORDS.get(id(models))
    if known is None or known[0] is not models:
        plain = triggers.plain_words()
        in_strings = frozenset(models.environment.deprecated) & plain
        known = _WORDS[id(models)] = (models, (in_strings, plain - _borrowing_only(models)))
    return known[1]


def spelled(nodes: Iterable[cst.CSTNode], in_strings: frozenset[str] = frozenset()) -> frozenset[str]:
    """The words the code of `nodes` spells: names and attributes, and the
    words of its string literals that are among `in_strings`."""
    return _spelled(nodes, in_strings, None)


def _spelled(nodes: Iterable[cst.CSTNode], in_strings: frozenset[str], declared: set[str] | None) -> frozenset[str]:
    """`spelled`; with `declared`, the names the code declares `global` are added to it (in the same walk)."""
    out: set[str] = set()
    for node in nodes:
        for n in walk(node):
            t = type(n)
            if t is cst.Name:
                out.add(n.value)  # type: ignore[attr-defined]
            elif t is cst.SimpleString or t is cst.FormattedStringText:
                if in_strings:
                    out.update(w for w in _WORD.findall(n.value) if w in in_strings)  # type: ignore[attr-defined]
            elif t is cst.Global and declared is not None:
                declared.update(x.name.value for x in n.names)  # type: ignore[attr-defined]
    return frozenset(out)


def _plain_statements(body: Iterable[cst.CSTNode]) -> list[cst.CSTNode]:
    """The statements of `body` that are no definition, no import and no bare string (a docstring)."""
    out: list[cst.CSTNode] = []
    for s in body:
        if type(s) is cst.FunctionDef or type(s) is cst.ClassDef:
            continue
        if type(s) is cst.SimpleStatementLine and all(
            type(x) in (cst.Import, cst.ImportFrom)
            or (type(x) is cst.Expr and type(x.value) in (cst.SimpleString, cst.ConcatenatedString))
            for x in s.body
        ):
            continue
        out.append(s)
    return out


def _targets(nodes: Iterable[cst.CSTNode]) -> frozenset[str]:
    """The names in the targets of the bindings in `nodes`: assignments,
    `for` and `with ... as`, `:=`, `except ... as`, `del` and `global`."""
    out: set[str] = set()
    for node in nodes:
        for n in walk(node):
            t = type(n)
            target: cst.CSTNode | None = None
            if t is cst.AssignTarget or t is cst.AnnAssign or t is cst.AugAssign or t is cst.For:
                target = n.target  # type: ignore[attr-defined]
            elif t is cst.NamedExpr:
                target = n.target  # type: ignore[attr-defined]
            elif t is cst.AsName:
                target = n.name  # type: ignore[attr-defined]
            elif t is cst.Del:
                target = n.target  # type: ignore[attr-defined]
            elif t is cst.Global or t is cst.Nonlocal:
                out.update(x.name.value for x in n.names)  # type: ignore[attr-defined]
            if target is not None:
                out.update(x.value for x in walk(target) if type(x) is cst.Name)
    return frozenset(out)


def _names(node: cst.CSTNode) -> set[str]:
    return {x.value for x in walk(node) if type(x) is cst.Name}


class _File:
    """What one file binds that a function's words may stand for, and its own module-level code."""

    def __init__(self, unit: Unit, in_strings: frozenset[str]) -> None:
        names = unit.names
        self.unit = unit
        self.imports = names.imports
        self.whole = {m.partition(".")[0] for m in names.star_modules}
        if names.module:
            self.whole.add(names.module.partition(".")[0])
        self.top = _plain_statements(unit.module.body)
        # each top-level statement's words and the names it binds
        self.statements: list[tuple[frozenset[str], frozenset[str], cst.CSTNode]] = []
        for top in self.top:
            if type(top) is cst.SimpleStatementLine:
                self.statements.append((spelled([top], in_strings), _targets([top]), top))
                continue
            # a compound statement (`if __name__ == "__main__":`): each simple statement in it on its own
            for n in walk(top):
                if type(n) is cst.SimpleStatementLine:
                    self.statements.append((spelled([n], in_strings), _targets([n]), n))
                elif type(n) is cst.For:
                    self.statements.append((spelled([n.iter], in_strings), frozenset(_names(n.target)), n.iter))
                elif type(n) is cst.WithItem:
                    self.statements.append((spelled([n.item], in_strings), _targets([n]), n.item))
                elif type(n) is cst.NamedExpr:
                    self.statements.append((spelled([n.value], in_strings), frozenset(_names(n.target)), n.value))
        # a name a top-level statement binds -> the packages the names it spells are imported from (`xp = pkg`)
        self.stands: dict[str, set[str]] = {}
        for _, _, top in self.statements:
            for n in walk(top):
                t = type(n)
                if t is cst.Assign or t is cst.AnnAssign or t is cst.AugAssign or t is cst.NamedExpr:
                    value = n.value  # type: ignore[attr-defined]
                    if value is None:
                        continue
                    roots = {q.partition(".")[0] for w in spelled([value]) if (q := self.imports.get(w)) is not None}
                    if roots:
                        for name in _targets([n]) if t is not cst.NamedExpr else _names(n.target):  # type: ignore[attr-defined]
                            self.stands.setdefault(name, set()).update(roots)


def _borrowing_only(models: ModelSet) -> frozenset[str]:
    """The trigger words every model of which only borrows (`p = t.ptr()`: a
    value valid while its source lives). A borrow makes a finding only from
    an owner, and an owner reaches a function only through a word that is not
    one of these (a creating or adopting call, a project function returning
    one): alone, they make no function live."""
    found: dict[str, list[tuple[fx.Effect, ...]]] = {}
    for name, cm in models.by_last_name.items():
        found.setdefault(name, []).append(cm.effects)
    for name, cm in models.by_qualified.items():
        found.setdefault(name.rpartition(".")[2], []).append(cm.effects)
    for name, cm in models.by_method.items():
        found.setdefault(name, []).append(cm.effects)
    capsules = models.capsules
    special = (
        capsules.producer_methods
        | capsules.producer_functions
        | capsules.export_functions
        | {q.rpartition(".")[2] for q in models.observed}
        | models.host_task.native_mem_methods
        | models.environment.deprecated
        | {models.memory.chain_field}
    )
    return frozenset(
        w
        for w, all_effects in found.items()
        if w not in special and all(effects and all(type(e) is fx.Borrow for e in effects) for effects in all_effects)
    )


def _families(classes: dict[str, tuple[Unit, cst.CSTNode, tuple[str, ...]]]) -> Callable[[str], str]:
    """The family of each class (qualified): the classes joined to it through
    their bases (by last name), whose methods `self.m()` and `super().m()` may reach."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for c, (_, _, bases) in classes.items():
        for b in bases:
            a, z = find(c.rpartition(".")[2]), find(b.rpartition(".")[2])
            if a != z:
                parent[a] = z
    return lambda c: find(c.rpartition(".")[2])


class Demand:
    """The inert functions of one project (see the module's docstring)."""

    def __init__(self, models: ModelSet) -> None:
        self.triggers = _triggers(models)
        self.roots = self.triggers.root_words()
        self.in_strings, self.plain = _words_of(models, self.triggers)

    def names_trigger(self, words: frozenset[str], file: _File, nodes: list[cst.CSTNode]) -> bool:
        """Whether `words`, spelled by `nodes` of `file`, name a trigger word of the models."""
        for name in words:
            target = file.imports.get(name)
            if target is not None and target.rpartition(".")[2] in self.plain:
                return True
        for w in self.plain & words:
            needed = self.roots.get(w)
            if needed is None or not needed.isdisjoint(words) or not needed.isdisjoint(file.whole):
                return True
            for name in words:
                target = file.imports.get(name)
                if target is not None and target.partition(".")[0] in needed:
                    return True
                if not needed.isdisjoint(file.stands.get(name, ())):
                    return True
        if self.triggers.may_name_oddly():
            return any(self.triggers.names_oddly(file.unit.module.code_for_node(n)) for n in nodes)
        return False

    def solve(
        self,
        units: Iterable[Unit],
        functions: dict[str, tuple[Unit, cst.CSTNode, str | None]],
        classes: dict[str, tuple[Unit, cst.CSTNode, tuple[str, ...]]],
        field_classes: dict[str, dict[str, str]],
    ) -> set[str]:
        """The inert functions among `functions` (qualified -> its unit, its
        node and its class, qualified, for a method), given the project's
        classes (qualified -> its unit, its node, its bases, qualified) and
        the attributes of `self` holding objects of a project class (class
        -> attribute -> class)."""
        files = {u.index: _File(u, self.in_strings) for u in units}
        # the module-level statements that may bind a handle: (file, statement) -> (its words, what it binds)
        statements = {(i, k): (w, t) for i, f in files.items() for k, (w, t, _) in enumerate(f.statements) if t}
        live_statements = {
            key
            for key, (w, _) in statements.items()
            if self.names_trigger(w, files[key[0]], [files[key[0]].statements[key[1]][2]])
        }
        family = _families(classes)
        # the names of what is not inert that any code may spell: functions that
        # are no methods, classes, module names that may hold a handle
        live_words: set[str] = set().union(*(statements[k][1] for k in live_statements))
        live_methods: dict[str, set[str]] = {}  # a family of classes -> its methods that are not inert
        words: dict[str, frozenset[str]] = {}
        live: set[str] = set()

        def became_live(q: str) -> None:
            live.add(q)
            owner = functions[q][2]
            last = q.rpartition(".")[2]
            # the module names it declares `global` may hold what it made
            live_words.update(declares.get(q, ()))
            if owner is None:
                live_words.add(last)
            else:
                live_methods.setdefault(family(owner), set()).add(last)

        declares: dict[str, set[str]] = {}  # a function -> the module names it declares `global`
        for q, (unit, node, owner) in functions.items():
            f = files[unit.index]
            declared: set[str] = set()
            w = _spelled([node], self.in_strings, declared)
            if declared:
                declares[q] = declared
            if owner is not None:
                attrs = field_classes.get(owner, {})
                w = w | {c.rpartition(".")[2] for a, c in attrs.items() if a in w}
            w = w | {t.rpartition(".")[2] for n in w if (t := f.imports.get(n)) is not None}  # `import C as D`
            words[q] = w
            if self.names_trigger(w, f, [node]):
                became_live(q)
        class_words: dict[str, frozenset[str]] = {}
        live_classes: set[str] = set()
        methods: dict[str, list[str]] = {}
        for q, (_, _, owner) in functions.items():
            if owner is not None:
                methods.setdefault(owner, []).append(q)
        for c, (unit, cls, _) in classes.items():
            block = cls.body if type(cls) is cst.ClassDef else cls
            body = _plain_statements(block.body) if type(block) is cst.IndentedBlock else [block]
            cw = class_words[c] = spelled(body, self.in_strings)
            if self.names_trigger(cw, files[unit.index], body):
                live_classes.add(c)
                live_words.add(c.rpartition(".")[2])
        changed = True
        while changed:
            changed = False
            for key, (w, bound) in statements.items():
                if key not in live_statements and not live_words.isdisjoint(w):
                    live_statements.add(key)
                    live_words |= bound
                    changed = True
            for q, w in words.items():
                if q in live:
                    continue
                owner = functions[q][2]
                if not live_words.isdisjoint(w) or (
                    owner is not None and not live_methods.get(family(owner), set()).isdisjoint(w)
                ):
                    became_live(q)
                    changed = True
            for c, (_, _, bases) in classes.items():
                if c in live_classes:
                    continue
                if (
                    any(m in live for m in methods.get(c, ()))
                    or any(b.rpartition(".")[2] in live_words for b in bases)
                    or not live_words.isdisjoint(class_words[c])
                ):
                    live_classes.add(c)
                    live_words.add(c.rpartition(".")[2])
                    changed = True
        return set(functions) - live
