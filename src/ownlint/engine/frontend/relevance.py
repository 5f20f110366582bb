"""Relevance below the file: which top-level sections of the files of one
component can hold a tracked value, found from their text and CPython's
`ast` (no libcst parse); only those are parsed by libcst and analysed.

A file the prefilter selects is cut into sections (`Section`): each
top-level `def` or `class` (with its decorators), and each other top-level
statement (statements that share a line are one). The names a section's
code spells are read from its text with strings and comments left out (an
f-string kept): bare (`name`) or as an attribute (`x.name`), not the name a
`def` or `class` line defines (a dunder's excepted: Python calls it).

A section is *relevant* when

- its code names a trigger word of the models (the prefilter's words: a
  modelled function, method, type or attribute; in strings too, an
  environment variable a model lists) that needs no package; or one that
  does (`empty` of `arrays.empty`) together with a name the file binds to
  such a package: the package, an `import ... as` alias of it or of a module
  below it, a name imported from it, a module name assigned from one of
  those, or any name where the file imports `*` from it or is part of it;
  or a name the file imports a trigger word as (`from m import malloc as m`);
- or, to a fixpoint over the component, its code names what a relevant
  section binds at the top level of its file: a definition's name, or a
  name a plain statement assigns (`VAR = "SOME_MODELLED_VARIABLE"`). Bare
  in the same file; as an attribute, or bare after a `*` import, in a file
  that spells the binding module's name (its file's or, for a package, its
  directory's) or that of a package whose `__init__` spells it; and a plain
  `from m import name` of it passes it on under the name it binds.

Kept are the relevant sections, every top-level statement that is not a
definition (imports, constants, aliases: the module's names are those of
the whole file), and, again to a fixpoint, every definition whose name a
kept section's code spells (bare in its own file, or in a file that names
its module as above: a callee whose summary a relevant caller needs, a base
class, a class whose objects it builds), and every definition holding an
import of a name a kept section of its file spells.

Names are those of top-level definitions, not of methods: the engine
resolves a method call only on an object whose class it knows, and it knows
it where the caller spells the class (building it, `Class.method`, a base
class, `super()` in a subclass, an attribute assigned an object of it in the
class) or calls a function that returns one, which spells the class in turn
and is kept with it. A class is kept whole, with all its methods.

The kept sections are parsed as one module, from the file's text with every
other line emptied (its line ending kept), so every line and column of a
finding is the one in the file (`kept_texts`). The file is parsed whole, as
without this module, when CPython's parser rejects it, or when the kept
text does not parse (the whole file's error is then the one reported).

Why a skipped section loses no finding: its code names no trigger word, so
no modelled call, type or attribute is spelled in it and nothing in it can
create, release or borrow a tracked value; it names nothing a relevant
section binds, so no tracked value reaches it through a call, a return, a
module name or an object of a relevant class; and no kept section names
what it defines, so no analysed code calls it, inherits from it or builds
its objects (a name the analysed code never spells resolves the same
whether the section is parsed or not). The tests are on words, so a word
that is not what it looks like (a local that shares a function's name, a
module name shared by two files) can only keep a section, never skip one.

The selection is the driver's, as the prefilter is (`EngineOptions.sections`,
which `ownlint.api` sets): `analyze_project` on its own analyses every
statement it is given. Checkers from outside see what ownlint's own see:
the files the prefilter selects, and in them the sections kept.

Known limits: a trigger word that reaches a section only through an alias
the file's text does not bind (an attribute of another object:
`obj.xp.empty()` with `obj.xp = arrays` elsewhere) does not make it relevant;
the engine does not resolve such a call to the model either. A name used
only through a string (`getattr(m, "release")`) links nothing; the engine
does not follow it either. A skipped section is not parsed, so a syntax
error that libcst alone rejects in it is not reported (CPython's are: the
file is then parsed whole).
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field

from ownlint.engine.frontend.parsing import STRING_OR_COMMENT
from ownlint.engine.frontend.prefilter import Triggers, module_words
from ownlint.engine.modelling.models import ModelSet
from ownlint.engine.program.sources import SourceFile

# the bytes of a word (an ASCII identifier's, or any byte of a non-ASCII
# character, so that a non-ASCII identifier stays one word) kept, every other byte a space
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789") | frozenset(range(128, 256))
_SPACE_BUT_WORDS = bytes(b if b in _WORD_BYTES else 0x20 for b in range(256))
_LINE_CONTENT = re.compile(r"[^\r\n]+")
# a name in code: after a dot (an attribute), after `def` or `class` (a definition), or bare
_SPELLED = re.compile(r"(\.\s*|\bdef\s+|\bclass\s+)?\b([^\W\d]\w*)")
_DEFINITION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

Key = tuple[int, int]  # (file, section)


def _words(text: str) -> frozenset[str]:
    return frozenset(
        t.decode("utf-8", "replace") for t in text.encode("utf-8", "surrogatepass").translate(_SPACE_BUT_WORDS).split()
    )


def _spelled(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The names the code of `text` spells (its strings and comments left
    out): bare (`name`), and as attributes (`x.name`); not those it defines."""
    bare: set[str] = set()
    attrs: set[str] = set()
    for before, name in _SPELLED.findall(STRING_OR_COMMENT.sub(lambda m: _unless_formatted(m, text), text)):
        if not before:
            bare.add(name)
        elif before[0] == ".":
            attrs.add(name)
        elif name.startswith("__") and name.endswith("__"):
            bare.add(name)  # `def __dlpack__`: Python calls it
    return frozenset(bare), frozenset(attrs)


def _unless_formatted(m: re.Match[str], text: str) -> str:
    """A space for a string or comment, the string itself where it may be an
    f-string (an `f` just before it): the names in its fields are code."""
    return m.group(0) if "f" in text[max(0, m.start() - 2) : m.start()].lower() else " "


@dataclass(slots=True)
class Section:
    """One top-level definition, or one other top-level statement, of a file."""

    first: int  # its first line (1-based, its first decorator's)
    end: int  # the first line of the next section (the number of lines plus one after the last)
    definition: bool  # a `def` or a `class`
    words: frozenset[str]  # the words of its text (comments and strings included)
    bare: frozenset[str]  # the names its code spells bare
    attrs: frozenset[str]  # the names its code spells as attributes
    defines: frozenset[str]  # a definition's name, or the module names a plain statement assigns
    imported: frozenset[tuple[str, str]]  # a plain `from m import name as bound`: (name, bound)
    imports: frozenset[str]  # the names imports inside a definition bind


@dataclass(slots=True)
class _File:
    sections: list[Section]
    aliases: dict[str, frozenset[str]]  # a name the file binds -> the top-level packages it stands for
    whole: frozenset[str]  # the packages every name may stand for (a `*` import, the file's own)
    star: bool  # whether it imports `*` from somewhere
    offsets: list[int]  # where each line begins
    renamed: set[str] = field(default_factory=set)  # names a trigger word is imported as (`import malloc as m`)
    tree: ast.Module | None = None  # CPython's tree of the file, kept for positions.py in a small component


def _first_line(stmt: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(stmt, "decorator_list", [])
    return min([stmt.lineno, *(d.lineno for d in decorators)])


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """Every statement in `body`, at any depth (not inside expressions)."""
    out: list[ast.stmt] = []
    stack = list(body)
    while stack:
        stmt = stack.pop()
        out.append(stmt)
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, list):
                stack.extend(s for s in inner if isinstance(s, ast.stmt))
        for handler in getattr(stmt, "handlers", ()):
            stack.extend(handler.body)
        for case in getattr(stmt, "cases", ()):
            stack.extend(case.body)
    return out


def _cut(f: SourceFile, modname: str, keep_tree: bool) -> _File | None:
    """`f`'s sections, or None when CPython's parser rejects it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(f.source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    own = modname.partition(".")[0]
    aliases: dict[str, set[str]] = {}
    whole: set[str] = {own} if own else set()
    star = False
    groups: list[tuple[int, list[ast.stmt]]] = []
    end = 0
    for stmt in tree.body:
        first = _first_line(stmt)
        if groups and first <= end:
            groups[-1][1].append(stmt)  # on the line where the last one ends
        else:
            groups.append((first, [stmt]))
        end = max(end, stmt.end_lineno or stmt.lineno)
    offsets = _line_offsets(f.source)
    lines = len(offsets) + 1  # past the last line
    sections: list[Section] = []
    for k, (first, stmts) in enumerate(groups):
        start = 1 if k == 0 else first
        nxt = groups[k + 1][0] if k + 1 < len(groups) else lines
        text = f.source[offsets[start - 1] : offsets[nxt - 1] if nxt - 1 < len(offsets) else None]
        head = stmts[0]
        definition = len(stmts) == 1 and isinstance(head, _DEFINITION)
        imported: set[tuple[str, str]] = set()
        imports: set[str] = set()
        if definition and isinstance(head, _DEFINITION):
            defines = {head.name}
        else:
            defines, imported = _bound(stmts)
        for s in _statements(stmts):
            if isinstance(s, ast.Import):
                for a in s.names:
                    bound = a.asname or a.name.partition(".")[0]
                    aliases.setdefault(bound, set()).add(a.name.partition(".")[0])
                    imports.add(bound)
            elif isinstance(s, ast.ImportFrom):
                root = own if s.level else (s.module or "").partition(".")[0]
                for a in s.names:
                    if a.name == "*":
                        whole.add(root)
                        star = True
                    else:
                        bound = a.asname or a.name
                        aliases.setdefault(bound, set()).add(root)
                        imports.add(bound)
            elif not definition and isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None:
                _assigned_alias(s, aliases)
        bare, attrs = _spelled(text)
        sections.append(
            Section(
                start,
                nxt,
                definition,
                _words(text),
                bare,
                attrs,
                frozenset(defines),
                frozenset(imported),
                frozenset(imports) if definition else frozenset(),
            )
        )
    found = _File(sections, {k: frozenset(v) for k, v in aliases.items()}, frozenset(whole), star, offsets)
    if keep_tree:
        found.tree = tree
    return found


def _bound(stmts: list[ast.stmt]) -> tuple[set[str], set[tuple[str, str]]]:
    """The module names plain top-level statements bind: by assignment
    (`VAR = "..."`, `for k in ...`), and by `from ... import`, each with the
    name it imports (`from .helper import Holder as H`: `(Holder, H)`)."""
    out: set[str] = set()
    imported: set[tuple[str, str]] = set()
    for stmt in _statements(stmts):
        if isinstance(stmt, ast.ImportFrom):
            imported.update((a.name, a.asname or a.name) for a in stmt.names if a.name != "*")
            continue
        targets: list[ast.expr] = []
        if isinstance(stmt, ast.Assign):
            targets = stmt.targets
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            targets = [stmt.target]
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            targets = [i.optional_vars for i in stmt.items if i.optional_vars is not None]
        for t in targets:
            out.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
    return out, imported


def _assigned_alias(s: ast.Assign | ast.AnnAssign, aliases: dict[str, set[str]]) -> None:
    """`xp = arrays`, `rt = gpulib.runtime` at the top level: the targets stand
    for what the names of the value stand for."""
    assert s.value is not None
    stands: set[str] = set()
    for node in ast.walk(s.value):
        if isinstance(node, ast.Name) and node.id in aliases:
            stands |= aliases[node.id]
    if not stands:
        return
    targets = s.targets if isinstance(s, ast.Assign) else [s.target]
    for t in targets:
        for node in ast.walk(t):
            if isinstance(node, ast.Name):
                aliases.setdefault(node.id, set()).update(stands)


def _line_offsets(source: str) -> list[int]:
    """Where each line begins (as `ast` counts lines: after `\\n`, `\\r\\n` or a lone `\\r`)."""
    offsets = [0]
    offsets += [m.end() for m in re.finditer(r"\r\n|\r|\n", source)]
    return offsets


class _Test:
    """The trigger test of one section: the prefilter's words, with a
    package's words counted only where the file binds a name to the package."""

    def __init__(self, triggers: Triggers, in_strings: frozenset[str]) -> None:
        self.triggers = triggers
        self.plain = triggers.plain_words()
        self.roots = triggers.root_words()
        self.in_strings = in_strings & self.plain

    def code_words(self, section: Section) -> frozenset[str]:
        """The trigger test's words of `section`: the names its code spells,
        and the words of its strings that a model reads in strings (an
        environment variable's name); not its comments and docstrings."""
        return section.bare | section.attrs | (section.words & self.in_strings)

    def names(self, section: Section, text: str, file: _File) -> bool:
        words = self.code_words(section)
        if not file.renamed.isdisjoint(words):
            return True
        for w in self.plain & words:
            needed = self.roots.get(w)
            if needed is None or not needed.isdisjoint(file.whole) or not needed.isdisjoint(words):
                return True
            for name in words:
                stands = file.aliases.get(name)
                if stands is not None and not needed.isdisjoint(stands):
                    return True
        return self.triggers.names_oddly(text)


_TESTS: dict[int, tuple[ModelSet, _Test]] = {}  # one per model set (a run has one)


def _test(models: ModelSet) -> _Test:
    known = _TESTS.get(id(models))
    if known is None or known[0] is not models:
        known = _TESTS[id(models)] = (models, _Test(Triggers(models), frozenset(models.environment.deprecated)))
    return known[1]


class _Component:
    """The sections of the files of one component, and which file can name which."""

    def __init__(self, files: list[SourceFile], modnames: list[str]) -> None:
        self.files = files
        small = sum(len(f.source) for f in files) <= KEEP_TREES
        self.cut = [_cut(f, m, small) for f, m in zip(files, modnames, strict=True)]
        self.keys = [(i, k) for i, c in enumerate(self.cut) if c is not None for k in range(len(c.sections))]
        self.words = [
            frozenset().union(*(s.bare | s.attrs for s in c.sections)) if c is not None else frozenset()
            for c in self.cut
        ]
        self.module = [module_words(f) for f in files]
        self.packages = [
            j for j, f in enumerate(files) if f.path.replace("\\", "/").rpartition("/")[2] == "__init__.py"
        ]
        self._reached: dict[int, frozenset[int]] = {}

    def section(self, key: Key) -> Section:
        c = self.cut[key[0]]
        assert c is not None
        return c.sections[key[1]]

    def text(self, key: Key) -> str:
        c = self.cut[key[0]]
        assert c is not None
        s, offsets = c.sections[key[1]], c.offsets
        return self.files[key[0]].source[
            offsets[s.first - 1] : offsets[s.end - 1] if s.end - 1 < len(offsets) else None
        ]

    def reaches(self, i: int) -> frozenset[int]:
        """The files whose module file `i` may name: by the module's own
        word, or through a package's `__init__` it names that names it."""
        found = self._reached.get(i)
        if found is None:
            direct = {j for j in range(len(self.files)) if not self.module[j].isdisjoint(self.words[i])}
            for p in [p for p in self.packages if p in direct]:
                direct |= {j for j in range(len(self.files)) if not self.module[j].isdisjoint(self.words[p])}
            found = self._reached[i] = frozenset(direct)
        return found

    def sees(self, key: Key, name: str, j: int) -> bool:
        """Whether section `key` may name the `name` that file `j` binds at its top level."""
        s = self.section(key)
        i = key[0]
        if name in s.bare:
            c = self.cut[i]
            return i == j or (c is not None and c.star and j in self.reaches(i))
        return name in s.attrs and j in self.reaches(i)


def _relevant(comp: _Component, test: _Test) -> set[Key]:
    """The sections that name a trigger word, and, to a fixpoint, those that
    name what a relevant section defines (a plain `from m import name` of it
    passing it on under the name it binds)."""
    for c in comp.cut:
        for sec in c.sections if c is not None else ():
            assert c is not None
            c.renamed.update(b for name, b in sec.imported if name in test.plain and b != name)
    relevant: set[Key] = set()
    for key in comp.keys:
        c = comp.cut[key[0]]
        assert c is not None
        s = comp.section(key)
        if test.triggers.may_name_oddly() or not test.plain.isdisjoint(s.words) or not c.renamed.isdisjoint(s.words):
            if test.names(s, comp.text(key), c):
                relevant.add(key)
    given: set[tuple[str, int]] = set()  # (name, the file that binds it)
    pending = {(n, k[0]) for k in relevant for n in comp.section(k).defines}
    while pending:
        pending -= given
        given |= pending
        by_name: dict[str, set[int]] = {}
        for name, j in pending:
            by_name.setdefault(name, set()).add(j)
        pending = set()
        for key in comp.keys:
            s = comp.section(key)
            if s.imported:
                for name, bound in s.imported:
                    if any(j in comp.reaches(key[0]) for j in by_name.get(name, ())):
                        pending.add((bound, key[0]))
            if key in relevant:
                continue
            spelled = (s.bare | s.attrs) & by_name.keys()
            if any(comp.sees(key, n, j) for n in spelled for j in by_name[n]):
                relevant.add(key)
                pending |= {(n, key[0]) for n in s.defines}
    return relevant


def _kept(comp: _Component, relevant: set[Key]) -> set[Key]:
    """The relevant sections, every plain statement, and, to a fixpoint, each
    definition a kept section may name (or, inside a definition, an import
    that binds a name a kept section of its file spells)."""
    kept = set(relevant) | {k for k in comp.keys if not comp.section(k).definition}
    by_name: dict[str, list[Key]] = {}
    by_import: dict[tuple[int, str], list[Key]] = {}
    for k in comp.keys:
        s = comp.section(k)
        if s.definition:
            for name in s.defines:
                by_name.setdefault(name, []).append(k)
            for name in s.imports:
                by_import.setdefault((k[0], name), []).append(k)
    frontier = set(kept)
    while frontier:
        callees: set[Key] = set()
        for k in frontier:
            s = comp.section(k)
            i = k[0]
            for w in s.bare | s.attrs:
                callees.update(d for d in by_name.get(w, ()) if d[0] == i or d[0] in comp.reaches(i))
                callees.update(by_import.get((i, w), ()))
        frontier = callees - kept
        kept |= frontier
    return kept


# a component of at most this many characters keeps CPython's trees of its
# files for positions.py (which would parse them again for the findings);
# a larger one would hold them all in memory at once
KEEP_TREES = 1_000_000


def kept_texts(files: list[SourceFile], modnames: list[str], models: ModelSet) -> list[tuple[str, ast.Module | None]]:
    """Each file's text with the lines of its skipped sections emptied (the
    file's own text, the same object, where nothing is skipped or where it
    cannot be cut), and, where it is the file's own text in a small
    component, CPython's tree of it."""
    comp = _Component(files, modnames)
    kept = _kept(comp, _relevant(comp, _test(models)))
    out: list[tuple[str, ast.Module | None]] = []
    for i, f in enumerate(files):
        c = comp.cut[i]
        if c is None or all((i, k) in kept for k in range(len(c.sections))):
            out.append((f.source, c.tree if c is not None else None))
            continue
        parts: list[str] = []
        for j, sec in enumerate(c.sections):
            begin = c.offsets[sec.first - 1]
            end = c.offsets[sec.end - 1] if sec.end - 1 < len(c.offsets) else len(f.source)
            piece = f.source[begin:end]
            parts.append(piece if (i, j) in kept else _LINE_CONTENT.sub("", piece))
        out.append(("".join(parts), None))
    return out
