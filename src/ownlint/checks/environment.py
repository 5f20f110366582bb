"""Deprecated SYCL environment variables (OWN601): the checker, a syntax walk
run on each loaded module (`ModuleLoaded`).

A syntactic check over the whole module (it is about names and keys, not
about a handle's state), with keys folded through module constants and
locals bound once to a string literal. The variables, the mappings and the
calls come from the `[environment]` table of the models.

Reported: setting or reading the variable through `os.environ[...]`,
`os.environ.get/setdefault/update`, `os.getenv`, `os.putenv`, `K in
os.environ`, and a key of a dict given as a child's environment (`env=` of
`subprocess.*`, the last argument of `os.exec*e`), at the key or at the item
assignment `env[K] = ...`. Not reported: removing it (`pop`, `del`,
`os.unsetenv`).

Known limits: a dict given as `env=` is matched by its name within one
function, whatever the order of the statements; a dict passed through a
helper is not followed.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst

from ownlint.engine.evaluator.typestate import RawViolation
from ownlint.engine.events import Checker, ModuleLoaded
from ownlint.engine.frontend.names import ModuleNames
from ownlint.engine.frontend.walk import children, is_statement, walk
from ownlint.engine.modelling.models import EnvModel
from ownlint.engine.values.values import Val, str_value
from ownlint.lines import line_starts


@dataclass(frozen=True, slots=True)
class Edit:
    node: cst.CSTNode
    text: str


def _string(node: cst.BaseExpression) -> str | None:
    if type(node) is cst.SimpleString:
        with warnings.catch_warnings():  # an invalid escape is the user's business
            warnings.simplefilter("ignore")
            value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _quote(node: cst.SimpleString, text: str) -> str:
    q = node.quote
    return f"{node.prefix}{q}{text}{q}"


class _Finder:
    def __init__(self, unit_index: int, names: ModuleNames, env: EnvModel, constants: Mapping[str, Val]) -> None:
        self.unit = unit_index
        self.names = names
        self.env = env
        self.constants = constants
        self.found: list[RawViolation] = []
        self.skip: set[int] = set()  # nodes under `del`
        self.seen: set[int] = set()
        self.at: cst.CSTNode | None = None  # the statement being walked (a hint for positions)
        # per function: locals bound once to a string; dict name -> deprecated keys set in it
        # (each key set in a dict is kept with the statement it is in)
        self.scopes: list[tuple[dict[str, str], dict[str, list[tuple[cst.CSTNode, str, cst.CSTNode | None]]]]] = [
            ({}, {})
        ]
        self.locals: list[dict[str, str]] = [{}]
        self.dicts: list[dict[str, list[tuple[cst.CSTNode, str, cst.CSTNode | None]]]] = [{}]

    def run(self, module: cst.Module) -> None:
        stack: list[tuple[cst.CSTNode, int, cst.CSTNode | None]] = [(module, 0, None)]
        while stack:
            node, scope, self.at = stack.pop()
            if type(node) is cst.FunctionDef:
                self.scopes.append((_string_locals(node), {}))
                scope = len(self.scopes) - 1
            self.locals, self.dicts = [self.scopes[scope][0]], [self.scopes[scope][1]]
            visit = getattr(self, "visit_" + type(node).__name__, None)
            if visit is not None:
                visit(node)
            stmt = node if is_statement(node) else self.at
            stack.extend((c, scope, stmt) for c in reversed(children(node)))

    # -- keys -------------------------------------------------------------------
    def key(self, node: cst.BaseExpression) -> str | None:
        text = _string(node)
        if text is None and type(node) is cst.Name:
            text = self.locals[-1].get(node.value)
            if text is None:
                v = self.constants.get(node.value)
                text = str_value(v)
        return text if text in self.env.deprecated else None

    def report(
        self,
        node: cst.CSTNode,
        how: str,
        name: str,
        edits: tuple[Edit, ...] = (),
        safe: bool = False,
        at: cst.CSTNode | None = None,
    ) -> None:
        """Reports `node`, which is in statement `at` (by default the one being
        walked; a statement is in itself)."""
        if id(node) in self.seen:
            return
        self.seen.add(id(node))
        if at is None:
            at = node if is_statement(node) else self.at
        facts: list[tuple[str, str]] = [("how", how), ("variable", name), ("replacement", self.env.replacement)]
        self.found.append(RawViolation("OWN601", self.unit, node, name, tuple(facts), (), fix=(edits, safe), stmt=at))

    def fix_for(self, key: cst.BaseExpression, value: cst.BaseExpression | None) -> tuple[tuple[Edit, ...], bool]:
        """Rename the key, and translate a literal value, when both are literals."""
        if type(key) is not cst.SimpleString or value is None:
            return (), False
        old = _string(value)
        if old is None or type(value) is not cst.SimpleString:
            return (), False
        edits = [Edit(key, _quote(key, self.env.replacement))]
        exact = self.env.translations.get(old)
        if exact is not None:
            if exact != old:
                edits.append(Edit(value, _quote(value, exact)))
            return tuple(edits), True
        for prefix, new in self.env.numbered_translations.items():
            number = old[len(prefix) :]
            if old.startswith(prefix) and number.isdigit():
                edits.append(Edit(value, _quote(value, new + number)))
                return tuple(edits), False
        return (), False

    def is_mapping(self, node: cst.BaseExpression) -> bool:
        return (self.names.qualify(node) or "") in self.env.mappings

    # -- statements ------------------------------------------------------------------
    def visit_Del(self, node: cst.Del) -> None:
        for n in _walk(node.target):
            self.skip.add(id(n))

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            target = t.target
            if type(target) is cst.Subscript and len(target.slice) == 1 and type(target.slice[0].slice) is cst.Index:
                k = target.slice[0].slice.value
                name = self.key(k)
                if name is None:
                    continue
                self.skip.add(id(target))
                if self.is_mapping(target.value):
                    edits, safe = self.fix_for(k, node.value)
                    self.report(node, "set", name, edits, safe)
                elif type(target.value) is cst.Name:
                    self.dicts[-1].setdefault(target.value.value, []).append((node, name, node))
            elif type(target) is cst.Name and type(node.value) is cst.Dict:
                for el in node.value.elements:
                    if type(el) is cst.DictElement:
                        name = self.key(el.key)
                        if name is not None:
                            self.dicts[-1].setdefault(target.value, []).append((el.key, name, node))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if id(node) in self.skip or len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
            return
        name = self.key(node.slice[0].slice.value)
        if name is not None and self.is_mapping(node.value):
            self.report(node, "read", name)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        for c in node.comparisons:
            if type(c.operator) is cst.In and self.is_mapping(c.comparator):
                name = self.key(node.left)
                if name is not None:
                    self.report(node, "read", name)

    def visit_Call(self, node: cst.Call) -> None:
        q = self.names.qualify(node.func) or ""
        head, _, last = q.rpartition(".")
        args = [a for a in node.args if a.keyword is None and not a.star]
        if head in self.env.mappings and last in self.env.read_methods and node.args:
            first = node.args[0].value
            if type(first) is cst.Dict:
                for el in first.elements:
                    if type(el) is cst.DictElement and self.key(el.key) is not None:
                        self.report(node, "set", self.key(el.key) or "", *self.fix_for(el.key, el.value))
            else:
                name = self.key(first)
                if name is not None:
                    how = "set" if last == "setdefault" else "read"
                    self.report(node, how, name)
        if q in self.env.read_functions and args:
            name = self.key(args[0].value)
            if name is not None:
                how = "set" if last == "putenv" else "read"
                value = args[1].value if len(args) > 1 else None
                self.report(node, how, name, *(self.fix_for(args[0].value, value) if how == "set" else ((), False)))
        env_values = []
        if q in self.env.env_functions:
            env_values = [
                a.value for a in node.args if a.keyword is not None and a.keyword.value in self.env.env_keywords
            ]
        elif q in self.env.env_last_argument and args:
            env_values = [args[-1].value]
        for value in env_values:
            self.child_environment(value)

    def child_environment(self, value: cst.BaseExpression) -> None:
        if type(value) is cst.Dict:
            for el in value.elements:
                if type(el) is cst.DictElement:
                    name = self.key(el.key)
                    if name is not None:
                        self.report(el.key, "env", name, *self.fix_for(el.key, el.value))
        elif type(value) is cst.Name:
            for node, name, at in self.dicts[-1].get(value.value, []):
                self.report(node, "env", name, at=at)


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    return list(walk(node))


def _string_locals(fn: cst.FunctionDef) -> dict[str, str]:
    """Locals of `fn` bound exactly once, to a string literal."""
    counts: dict[str, int] = {}
    values: dict[str, str | None] = {}
    for node in walk(fn.body, into_scopes=False):
        if type(node) is cst.Assign:
            for t in node.targets:
                if type(t.target) is cst.Name:
                    counts[t.target.value] = counts.get(t.target.value, 0) + 1
                    values[t.target.value] = _string(node.value)
    return {k: v for k, v in values.items() if counts[k] == 1 and v is not None}


def check_environment(
    unit_index: int, module: cst.Module, names: ModuleNames, env: EnvModel, constants: Mapping[str, Val]
) -> list[RawViolation]:
    if not env.deprecated:
        return []
    finder = _Finder(unit_index, names, env, constants)
    finder.run(module)
    return finder.found


class EnvironmentChecker(Checker):
    def on_module_loaded(self, e: ModuleLoaded) -> None:
        env = e.models.environment
        unit = e.unit
        if not env.deprecated or not any(name in unit.source for name in env.deprecated):
            return
        if not unit.pieces:
            e.out.extend(check_environment(unit.index, unit.module, unit.names, env, unit.constants))
            return
        # parsed piece by piece (the editor's re-checks): a function whose text
        # names neither the variable nor a module constant holding it cannot set
        # or read it, and is not walked (a 2,000-line module is mostly such functions)
        words = set(env.deprecated) | {k for k, v in unit.constants.items() if str_value(v) in env.deprecated}
        starts = line_starts(unit.source)
        finder = _Finder(unit.index, unit.names, env, unit.constants)
        for k, (piece, first) in enumerate(unit.pieces):
            begin = starts[first - 1] if first <= len(starts) else len(unit.source)
            nxt = unit.pieces[k + 1][1] if k + 1 < len(unit.pieces) else None
            end = starts[nxt - 1] if nxt is not None and nxt <= len(starts) else len(unit.source)
            only_functions = all(type(stmt) is cst.FunctionDef for stmt in piece.body)
            if only_functions and not any(word in unit.source[begin:end] for word in words):
                continue
            finder.run(piece)
        e.out.extend(finder.found)
