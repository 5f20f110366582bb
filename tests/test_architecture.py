"""The shape of the house, as tests: no import cycle between the modules of
`src/ownlint`, counting the imports made only for the type checker (`if
TYPE_CHECKING:`) too: a cycle hidden there is still two modules that cannot be
understood apart (imports inside functions, made late to keep start-up fast,
are not counted). No class inherits from more than one class of the project
(parts are composed, not mixed in), and no `if TYPE_CHECKING:` block defines
functions (stubs of methods some other class provides)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from trees import python_tree  # each module parsed once per process, shared with test_parsing

SRC = Path(__file__).resolve().parent.parent / "src"


def modules(src: Path = SRC) -> dict[str, Path]:
    out = {}
    for path in sorted((src / "ownlint").rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_level(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of the module level, `if TYPE_CHECKING:` blocks included."""
    for stmt in body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            yield stmt
        elif isinstance(stmt, ast.If):
            yield from _module_level(stmt.body)
            yield from _module_level(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            for block in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                yield from _module_level(block)
        elif isinstance(stmt, ast.With):
            yield from _module_level(stmt.body)


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for stmt in _module_level(python_tree(path).body):
        if isinstance(stmt, ast.Import):
            targets = [alias.name for alias in stmt.names]
        else:
            base = stmt.module or ""
            if stmt.level:
                anchor = package.rsplit(".", stmt.level - 1)[0] if stmt.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # `from pkg import mod` imports the module `pkg.mod` where there is one
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in stmt.names]
        found.update(t for t in targets if t in known and t != name)
    return found


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of `graph` with more than one node
    (Tarjan's algorithm, iterative: each is a set of modules importing each
    other, directly or not), each sorted, in a stable order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def import_cycles(src: Path) -> list[list[str]]:
    """The groups of modules under `src/ownlint` that import each other
    (module-level imports, `if TYPE_CHECKING:` ones included)."""
    known = modules(src)
    return strongly_connected({name: imports_of(name, path, known) for name, path in known.items()})


def test_no_import_cycle_between_modules() -> None:
    known = modules()
    assert sum(len(imports_of(name, path, known)) for name, path in known.items()) > 100  # imports are found
    assert import_cycles(SRC) == []


def test_a_cycle_is_found_type_checking_imports_included(tmp_path: Path) -> None:
    package = tmp_path / "ownlint"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from ownlint import b\n")
    (package / "b.py").write_text("from . import a\n\n\ndef f():\n    from ownlint import c\n")
    (package / "c.py").write_text("import ownlint.b\n")
    assert import_cycles(tmp_path) == [["ownlint.a", "ownlint.b"]]  # the TYPE_CHECKING import counts
    (package / "a.py").write_text("def g():\n    from ownlint import b\n")
    assert import_cycles(tmp_path) == []  # an import inside a function does not
    (package / "a.py").write_text("import warnings\n\nwith warnings.catch_warnings():\n    from ownlint.b import f\n")
    (package / "c.py").write_text("import ownlint.a\n")
    (package / "d.py").write_text("from ownlint import e\n")
    (package / "e.py").write_text("from ownlint import d\n")
    assert import_cycles(tmp_path) == [["ownlint.a", "ownlint.b"], ["ownlint.d", "ownlint.e"]]


def _classes(known: dict[str, Path]) -> dict[str, list[tuple[str, list[ast.expr]]]]:
    """Each module's classes: (name, the expressions of its bases)."""
    return {
        name: [(n.name, n.bases) for n in ast.walk(python_tree(path)) if isinstance(n, ast.ClassDef)]
        for name, path in known.items()
    }


def project_bases(src: Path) -> dict[str, list[str]]:
    """`module.Class` -> the classes of the project it inherits from directly,
    for every class of `src/ownlint` (a base is found through the module's own
    classes and its `from ownlint... import Name` and `import ownlint...`)."""
    known = modules(src)
    classes = _classes(known)
    defined = {f"{module}.{cls}" for module, found in classes.items() for cls, _ in found}
    out: dict[str, list[str]] = {}
    for module, found in classes.items():
        path = known[module]
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        scope = {cls: f"{module}.{cls}" for cls, _ in found}
        for stmt in _module_level(python_tree(path).body):
            if isinstance(stmt, ast.ImportFrom):
                base = stmt.module or ""
                if stmt.level:
                    anchor = package.rsplit(".", stmt.level - 1)[0] if stmt.level > 1 else package
                    base = f"{anchor}.{base}" if base else anchor
                for alias in stmt.names:
                    scope[alias.asname or alias.name] = f"{base}.{alias.name}"
            else:
                for alias in stmt.names:
                    scope[alias.asname or alias.name] = alias.name
        for cls, bases in found:
            resolved = []
            for b in bases:
                spelled = ast.unparse(b)
                head, _, rest = spelled.partition(".")
                full = scope.get(head, head) + (f".{rest}" if rest else "")
                if full in defined:
                    resolved.append(full)
            out[f"{module}.{cls}"] = resolved
    return out


def test_no_class_inherits_from_two_classes_of_the_project() -> None:
    bases = project_bases(SRC)
    assert sum(len(b) for b in bases.values()) > 3  # project bases are found
    assert {cls: b for cls, b in bases.items() if len(b) > 1} == {}


def test_inheriting_from_two_project_classes_is_found(tmp_path: Path) -> None:
    package = tmp_path / "ownlint"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("class A:\n    pass\n\n\nclass B(A):\n    pass\n")
    (package / "b.py").write_text(
        "from typing import Protocol\n\nimport ownlint.a\nfrom ownlint.a import A as AA\n\n\n"
        "class C(AA, ownlint.a.B):\n    pass\n\n\nclass D(AA, Protocol):\n    pass\n"
    )
    bases = project_bases(tmp_path)
    assert bases["ownlint.b.C"] == ["ownlint.a.A", "ownlint.a.B"]
    assert bases["ownlint.b.D"] == ["ownlint.a.A"]
    assert bases["ownlint.a.B"] == ["ownlint.a.A"]


def stubs_for_the_type_checker(src: Path) -> list[str]:
    """`module:line function` for each function defined inside an `if
    TYPE_CHECKING:` block (a stub of a method another class provides)."""
    found = []
    for name, path in modules(src).items():
        for node in ast.walk(python_tree(path)):
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                for inner in node.body + node.orelse:
                    for sub in ast.walk(inner):
                        if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
                            found.append(f"{name}:{sub.lineno} {sub.name}")
    return found


def test_no_type_checking_block_defines_functions() -> None:
    assert stubs_for_the_type_checker(SRC) == []


def test_a_stub_for_the_type_checker_is_found(tmp_path: Path) -> None:
    package = tmp_path / "ownlint"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(
        "import typing\n\n\nclass A:\n    if typing.TYPE_CHECKING:\n\n        def f(self) -> int: ...\n"
    )
    assert stubs_for_the_type_checker(tmp_path) == ["ownlint.a:7 f"]


def test_the_evaluators_components_meet_only_through_the_shared_interface() -> None:
    """Each component of the evaluator (a module importing `eval_shared`) imports
    no other: the evaluator itself (`typestate_eval`) is the one that builds them."""
    known = modules()
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    components = {name for name, imported in graph.items() if "ownlint.engine.evaluator.eval_shared" in imported}
    components.discard("ownlint.engine.evaluator.typestate_eval")
    assert len(components) >= 12
    assert {name: sorted(graph[name] & components) for name in components if graph[name] & components} == {}
    assert not graph["ownlint.engine.evaluator.eval_shared"] & components


ENGINE = SRC / "ownlint" / "engine"
RULES = SRC.parent / "rules"
# the stacks' names as people write them, and the spellings of their C APIs'
# identifiers; with the root package of every qualified callee of the bundled
# model files (`cupy` of `cupy.cuda.runtime.malloc`)
STACK_WORDS = (
    r"CUDA|[Cc]uda|CuPy|[Cc]upy|PyTorch|torch|numba|PyCUDA|pycuda|SYCL|sycl|dpctl|dpnp|HIP|hip|"
    r"DLPack|dlpack|NVRTC|nvrtc|[Ll]evel[ _][Zz]ero|TensorRT|tinygrad|OpenCL"
)
C_IDENTIFIERS = r"(?:cu|cuda|hip|ze|zex|nvrtc|cl)[A-Z][A-Za-z0-9_]*"
RULE_CODE = r"OWN[0-9]{3}"


def _api_words() -> set[str]:
    import tomllib

    words = set()
    for path in RULES.glob("*.toml"):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for table in data.values():
            for entry in table if isinstance(table, list) else ():
                for name in (*entry.get("functions", ()), *entry.get("methods", ())):
                    if "." in name:
                        words.add(name.split(".")[0])
    return {w for w in words if w} - {"ctypes", "weakref", "contextlib", "threading", "concurrent", "os", "sys", "mmap"}


def engine_mentions(root: Path = ENGINE) -> list[str]:
    """Every place the engine's text (code, comments, docstrings) names an API
    or a rule: the engine models Python; what an API does is `rules/`, what a
    rule reports is `ownlint.checks`."""
    words = "|".join(sorted(re.escape(w) for w in _api_words()))
    pattern = re.compile(rf"\b(?:{STACK_WORDS}|{words})\b|\b{C_IDENTIFIERS}\b|\b{RULE_CODE}\b")
    found = []
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in pattern.finditer(line):
                found.append(f"{path.relative_to(root)}:{number}: {m.group(0)}")
    return found


def test_the_engine_names_no_api_and_no_rule() -> None:
    assert engine_mentions() == []


def test_an_api_name_or_a_rule_code_in_the_engine_is_found(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text('"""Like `cudaFree(p)`."""\nx = 1  # OWN201\ny = "cupy"\n', encoding="utf-8")
    (tmp_path / "b.py").write_text('"""`lib.free(p)`, `current`, `hipster`, `cuddle`."""\n', encoding="utf-8")
    assert engine_mentions(tmp_path) == ["a.py:1: cudaFree", "a.py:2: OWN201", "a.py:3: cupy"]
