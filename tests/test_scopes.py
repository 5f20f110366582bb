"""Scope collection (engine/scopes.collect_scopes): the statement-only walk,
taken when the text has no `lambda` and no `yield`, finds every scope the
walk over all nodes finds."""

from __future__ import annotations

import sysconfig
from collections.abc import Callable
from pathlib import Path

import libcst as cst
import pytest
from trees import libcst_tree

from ownlint import api, runner
from ownlint.config import default_config
from ownlint.engine.evaluator.typestate import FunctionAnalysis
from ownlint.engine.frontend.cfg_builder import build_class_cfg, build_function_cfg, build_lambda_cfg
from ownlint.engine.frontend.scopes import Scope, _defaults, _params, collect_scopes
from ownlint.engine.frontend.walk import children

FIXTURES = sorted((Path(__file__).resolve().parent / "fixtures").rglob("*.py"))

NESTED = """\
import ctypes

if ctypes:
    def in_if(a):
        def inner(b):
            return b
        return inner(a)
else:
    class InElse:
        def m(self, x):
            pass

try:
    def in_try(): pass
except Exception:
    def in_handler(): pass
finally:
    def in_finally(): pass

with open("x") as f:
    @staticmethod
    def in_with(y): pass

for i in range(3):
    def in_for(): pass
while False:
    def in_while(): pass

match 1:
    case 1:
        def in_case(): pass

class Outer:
    class Inner:
        def deep(self): pass
"""


def described(scopes: list[Scope]) -> list[tuple]:
    return [
        (s.cfg.node, tuple(s.params), s.self_name, s.qualified, s.class_qualified, s.defaults, s.generator)
        for s in scopes
    ]


def test_every_scope_below_compound_statements() -> None:
    module = cst.parse_module(NESTED)
    shortcut = collect_scopes(module, "m", None, NESTED)
    names = [getattr(s.cfg.node, "name", None) for s in shortcut]
    found = {n.value for n in names if isinstance(n, cst.Name)}
    assert found == {
        "in_if",
        "inner",
        "InElse",
        "m",
        "in_try",
        "in_handler",
        "in_finally",
        "in_with",
        "in_for",
        "in_while",
        "in_case",
        "Outer",
        "Inner",
        "deep",
    }
    assert described(shortcut) == described(collect_scopes(module, "m", None))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_same_scopes_as_the_full_walk(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    module = libcst_tree(path)  # the tree the other tests of the fixture share (trees.py), not a parse of its own
    assert described(collect_scopes(module, "m", None, source)) == described(collect_scopes(module, "m", None))


LAMBDAS_AND_YIELDS = """\
@register(lambda f: f)
def gen(a=lambda: (yield), b=[x for x in (yield)]):
    yield lambda c: (yield c, lambda d: d)
    def inner():
        return (yield from gen())
    class K(base(lambda: 1)):
        key = sorted(key=lambda e: e)
        def m(self, f=lambda: 0):
            return [lambda: g for g in f]
    return lambda: inner
x = (lambda *a, **k: (lambda: a)(), lambda: (yield))
if (yield_ := lambda: 1):
    pass
"""
STDLIB = Path(sysconfig.get_paths()["stdlib"])
SYNTAX = [
    STDLIB / n for n in ("ast.py", "typing.py", "asyncio/tasks.py", "inspect.py", "contextlib.py", "functools.py")
]


def walked_scopes(module: cst.Module) -> list[Scope]:
    """The scopes a walk over every node finds (how collect_scopes once did it)."""
    scopes: list[Scope] = []
    stack: list[tuple] = [(c, "module", "m", None) for c in reversed(children(module))]
    while stack:
        node, kind, outer, function = stack.pop()
        inner_kind, inner_q, inner_function = kind, outer, function
        if type(node) is cst.Yield and function is not None:
            function.generator = True
        if type(node) is cst.ClassDef:
            q = (
                None
                if outer is None or kind == "function"
                else (f"{outer}.{node.name.value}" if outer else node.name.value)
            )
            scopes.append(Scope(build_class_cfg(node, None), [], None, ""))
            inner_kind, inner_q, inner_function = "class", q, None
        elif type(node) is cst.FunctionDef:
            q = (
                None
                if outer is None or kind == "function"
                else (f"{outer}.{node.name.value}" if outer else node.name.value)
            )
            params = _params(node.params)
            static = any(type(d.decorator) is cst.Name and d.decorator.value == "staticmethod" for d in node.decorators)
            self_name = params[0] if kind == "class" and params and not static else None
            scopes.append(
                Scope(
                    build_function_cfg(node),
                    params,
                    self_name,
                    q or "",
                    outer if kind == "class" else None,
                    _defaults(node.params),
                )
            )
            inner_kind, inner_q, inner_function = "function", q, scopes[-1]
        elif type(node) is cst.Lambda:
            scopes.append(Scope(build_lambda_cfg(node), _params(node.params), None))
            inner_function = None
        stack.extend((c, inner_kind, inner_q, inner_function) for c in reversed(children(node)))
    return scopes


@pytest.mark.parametrize("path", [*FIXTURES, *SYNTAX, None], ids=lambda p: p.name if p else "lambdas-and-yields")
def test_same_scopes_as_a_walk_over_every_node(path: Path | None) -> None:
    """Where the text has a lambda or a yield, expressions are searched by a
    loop of their own; the scopes, their order and which are generators are
    those of a plain walk over every node."""
    try:
        source = path.read_text(encoding="utf-8") if path else LAMBDAS_AND_YIELDS
        module = libcst_tree(path) if path else cst.parse_module(source)
    except (OSError, cst.ParserSyntaxError):
        pytest.skip("not parsed here")
    assert described(collect_scopes(module, "m", None, source)) == described(walked_scopes(module))


@pytest.mark.parametrize("text", ["p", "(p)", "( p )", "a.b", "f(x,\n  y)", "lst[0]"])
def test_source_of_prints_what_libcst_prints_on_one_line(text: str) -> None:
    """A plain name is returned without printing; everything else is printed."""
    from ownlint.engine.frontend.cfg import source_of

    node = cst.parse_expression(text)
    assert source_of(node) == " ".join(cst.Module(body=[]).code_for_node(node).split())


SUMMARIES = """\
from ctypes import c_void_p
from level_zero import zeMemAllocHost, zeMemFree


def release(ctx, p):
    zeMemFree(ctx, p)


def unused(ctx, p):
    zeMemFree(ctx, p)


def main(ctx):
    p = c_void_p()
    zeMemAllocHost(ctx, None, 64, 64, p)
    release(ctx, p)
    zeMemFree(ctx, p)
"""


def test_only_the_summaries_a_call_asks_for_are_made(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every function is analysed (its own findings), but a summary is made
    only for a function some call reaches: here `release`, not `unused` or
    `main`. The double free through `release` is still found. (The language
    server's incremental checks make every summary: the next check may reuse
    it.)"""
    made: list[str] = []
    real = FunctionAnalysis.summary_later

    def spy(self: FunctionAnalysis, *args: object) -> Callable[[], object]:
        make = real(self, *args)  # type: ignore[arg-type]

        def counted() -> object:
            made.append(self.name)
            return make()

        return counted

    monkeypatch.setattr(FunctionAnalysis, "summary_later", spy)
    monkeypatch.setattr(runner, "ISOLATE", False)  # the spy counts in this process, not in a worker
    (tmp_path / "lazy.py").write_text(SUMMARIES, encoding="utf-8")
    result = api.check_paths([tmp_path / "lazy.py"], default_config(), jobs=1)
    assert [(d.span.line, d.code) for d in result.findings] == [(17, "OWN201")]
    assert made == ["release"]
    made.clear()
    result = api.check_source(SUMMARIES, "lazy.py", default_config())
    assert [(d.span.line, d.code) for d in result.findings] == [(17, "OWN201")]
    assert sorted(made) == ["main", "release", "unused"]
