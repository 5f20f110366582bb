"""Generate the dense interop corpus: renamed copies of ownlint's test fixtures.

    python benchmarks/make_corpus.py OUT_DIR [--lines 50000] [--seed 1729]
    python benchmarks/make_corpus.py OUT_DIR --copies 32   # an exact number of copies

Every copy holds each file of `tests/fixtures/**/*.py` once (except the
stress tests of `tests/fixtures/terminates/`: functions generated to run near
their analysis budget, which measure the budget, not ownlint's speed on the
code people write, and the fixtures of a directory that holds its own
`models.toml`: they exercise a model file of their own, which a plain
`ownlint check` of the corpus does not load, so their `# E:` comments could
not hold), so every file is
full of calls that ownlint's models describe (Level Zero, SYCL interop, dpctl,
DLPack, mmap). Within copy `k` the project's own identifiers get the copy's
suffix (`release` -> `release_k3q7`): function and method names (at their
definitions, call sites, `obj.name` accesses and `from m import name`),
parameters and local variables (bare names only), the `ring` package of the
cross-module fixture (directory and imports) and the file name of every
module outside that package (`app.py` -> `app_k3q7.py`), so that no two
copies share a module name. Keyword arguments are renamed only in calls to a
function or class the fixtures define (whether or not its own name is kept).

Never renamed (the "API names"): anything an import binds, any identifier
that appears in `rules/*.toml` (the models), `ze*`/`ZE_*` names, `make_*`,
`get_native`, builtins, keywords, `self`/`cls`, dunders, and names bound
directly in a class body (they are attributes). The renaming is done on the
libcst tree, so line numbers are unchanged and the `# E: OWN201` comments of
the fixtures still sit on the lines where ownlint should report; `expected`
counts them.

Output is reproducible: the same seed and size give byte-identical files. The
seed picks each copy's suffix and the order in which fixtures are written.

Also here: `single_file` (one long module made of renamed fixtures, for the
editor re-check timing) and `many_ifs` (one function of N sequential `if`
statements, each freeing its own handle).
"""

from __future__ import annotations

import argparse
import builtins
import keyword
import random
import re
import string
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - ownlint depends on tomli there
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
STRESS = frozenset({"terminates"})  # fixture directories left out of the corpus (see the docstring)
MODELS = REPO / "rules"
DEFAULT_SEED = 1729
EXPECT = re.compile(r"#\s*E:\s*(?P<codes>OWN[0-9]+(?:\s*,\s*OWN[0-9]+)*)")
_API_NAME = re.compile(r"^(ze[A-Z_]|ZE_|ze_|zex|zes|zet|make_|get_native$)")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class Fixture:
    relpath: Path  # relative to the fixtures directory
    text: str
    module: cst.Module | None  # None: the fixture does not parse (copied verbatim)


@dataclass(frozen=True, slots=True)
class Names:
    """What the fixtures define (renamed per copy) and what they must keep."""

    callables: frozenset[str]  # functions, methods and packages: renamed wherever they appear
    defined: frozenset[str]  # every function, method and class the fixtures define (renamed or not)
    locals_by_file: dict[Path, frozenset[str]]  # renamed as bare names only
    protected: frozenset[str]


@dataclass(slots=True)
class CorpusInfo:
    files: int = 0
    lines: int = 0
    copies: int = 0
    expected: int = 0  # findings the `# E:` comments ask for
    renamed: int = 0  # distinct (copy, identifier) renames
    verbatim: int = 0  # files copied without renaming (they do not parse)


def _own_model(path: Path, root: Path) -> bool:
    """Whether a directory between `root` and `path` holds a `models.toml` (tests/test_fixtures.py loads it)."""
    return any((d / "models.toml").is_file() for d in path.parents if d != root and d.is_relative_to(root))


def load_fixtures(root: Path = FIXTURES) -> list[Fixture]:
    fixtures = []
    for path in sorted(root.rglob("*.py")):
        if path.relative_to(root).parts[0] in STRESS or _own_model(path, root):
            continue
        text = path.read_text(encoding="utf-8")
        try:
            module: cst.Module | None = cst.parse_module(text)
        except cst.ParserSyntaxError:
            module = None
        fixtures.append(Fixture(path.relative_to(root), text, module))
    return fixtures


def model_identifiers(models: Path = MODELS) -> set[str]:
    """Every identifier in a string value of the model files: a name a model may match on."""
    names: set[str] = set()
    for path in sorted(models.glob("*.toml")):
        for value in _strings(tomllib.loads(path.read_text(encoding="utf-8"))):
            names.update(_IDENTIFIER.findall(value))
    return names


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


class _Binder(cst.CSTVisitor):
    """Collects the names one module defines and binds, and the ones it must keep."""

    def __init__(self) -> None:
        self.defs: set[str] = set()
        self.classes: set[str] = set()
        self.bound: set[str] = set()
        self.imported: set[str] = set()
        self.class_body: set[str] = set()
        self._scopes: list[str] = ["module"]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.defs.add(node.name.value)
        self._scopes.append("function")

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._scopes.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.add(node.name.value)
        self._scopes.append("class")

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._scopes.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._scopes.append("function")

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._scopes.pop()

    def visit_Param(self, node: cst.Param) -> None:
        self.bound.add(node.name.value)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if alias.asname is not None:
                self._bind_import(alias.asname.name)
            else:
                self.imported.add(_first_name(alias.name))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            self._bind_import(alias.asname.name if alias.asname is not None else alias.name)

    def _bind_import(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.imported.add(target.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        # `with ... as x`, `except E as x`; import aliases are handled (and kept) above.
        self._bind(node.name)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self._bind(node.name)

    def _bind(self, target: cst.BaseExpression | cst.BaseAssignTargetExpression) -> None:
        if isinstance(target, cst.Name):
            (self.class_body if self._scopes[-1] == "class" else self.bound).add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value)


def _first_name(expr: cst.BaseExpression) -> str:
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    assert isinstance(expr, cst.Name)
    return expr.value


def _last_name(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return None


def collect_names(fixtures: list[Fixture]) -> Names:
    protected = set(keyword.kwlist) | set(dir(builtins)) | {"self", "cls"} | model_identifiers()
    defs: set[str] = set()
    classes: set[str] = set()
    binders: dict[Path, _Binder] = {}
    for fixture in fixtures:
        if fixture.module is None:
            continue
        binder = _Binder()
        fixture.module.visit(binder)
        binders[fixture.relpath] = binder
        defs |= binder.defs
        classes |= binder.classes
        protected |= binder.imported | binder.class_body

    def renamable(name: str) -> bool:
        return not (name in protected or _API_NAME.match(name) or (name.startswith("__") and name.endswith("__")))

    packages = {p.parent.name for p in (f.relpath for f in fixtures) if p.name == "__init__.py"}
    callables = frozenset(n for n in defs | packages if renamable(n))
    locals_by_file = {
        path: frozenset(n for n in binder.bound if renamable(n) and n not in callables and n not in classes)
        for path, binder in binders.items()
    }
    return Names(callables, frozenset(defs | classes), locals_by_file, frozenset(protected))


class _Renamer(cst.CSTTransformer):
    """Renames one copy's identifiers; which `Name` nodes may change depends on where they stand."""

    def __init__(
        self, names: Names, local_names: frozenset[str], suffix: str, modules: frozenset[str] = frozenset()
    ) -> None:
        self.names = names
        self.local_names = local_names
        self.suffix = suffix
        self.modules = modules  # top-level modules beside this file: their files get the suffix
        self._module_names: set[int] = set()  # `from MODULE import ...` of one of them
        self._only_callables: set[int] = set()  # attribute names, imported names
        self._keywords_renamed: set[int] = set()  # keyword arguments of calls to project functions
        self._kept: set[int] = set()  # other keyword arguments, pattern keywords
        self.renamed: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._only_callables.add(id(node.attr))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if not node.relative and isinstance(node.module, cst.Name) and node.module.value in self.modules:
            self._module_names.add(id(node.module))

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if isinstance(node.name, cst.Name):
            self._only_callables.add(id(node.name))

    def visit_Call(self, node: cst.Call) -> None:
        callee = _last_name(node.func)
        # Parameters are renamed in every function, so keywords follow in calls to any function
        # or class defined here (the callee's own name may be kept, as `release` is).
        ours = callee is not None and callee in self.names.defined
        for arg in node.args:
            if arg.keyword is not None:
                (self._keywords_renamed if ours else self._kept).add(id(arg.keyword))

    def visit_MatchKeywordElement(self, node: cst.MatchKeywordElement) -> None:
        self._kept.add(id(node.key))

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        key = id(original_node)
        name = original_node.value
        if key in self._module_names:
            return updated_node.with_changes(value=name + self.suffix)
        if key in self._kept:
            return updated_node
        if key in self._keywords_renamed:
            rename = name in self.names.callables or name in self.local_names
        elif key in self._only_callables:
            rename = name in self.names.callables
        else:
            rename = name in self.names.callables or name in self.local_names
        if not rename:
            return updated_node
        self.renamed.add(name)
        return updated_node.with_changes(value=name + self.suffix)


def rename_fixture(
    fixture: Fixture, names: Names, suffix: str, modules: frozenset[str] = frozenset()
) -> tuple[str, int]:
    """The fixture's text with this copy's suffix, and how many distinct identifiers changed;
    `modules`: the modules outside any package beside it, whose files `renamed_path` renames."""
    if fixture.module is None:
        return fixture.text, 0
    renamer = _Renamer(names, names.locals_by_file.get(fixture.relpath, frozenset()), suffix, modules)
    return fixture.module.visit(renamer).code, len(renamer.renamed)


def renamed_path(relpath: Path, names: Names, suffix: str, packages: set[str]) -> Path:
    """Where a fixture goes in a copy: project packages and modules outside them get the suffix."""
    parts = [p + suffix if p in names.callables and p in packages else p for p in relpath.parent.parts]
    stem = relpath.stem
    in_package = any(p in packages for p in relpath.parent.parts)
    if not in_package:
        # Unique basenames too: ownlint names a module outside any package by its stem, and two
        # files of the same stem in different directories share their functions' names.
        stem += suffix
    return Path(*parts, stem + relpath.suffix)


def copy_suffixes(copies: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = string.ascii_lowercase + string.digits
    return [f"_k{k}{''.join(rng.choice(alphabet) for _ in range(3))}" for k in range(copies)]


def count_expected(text: str) -> int:
    return len(expected_findings(text, ""))


def expected_findings(text: str, path: str) -> set[tuple[str, int, str]]:
    """The (path, line, code) triples that the `# E:` comments of `text` ask for."""
    found = set()
    for number, line in enumerate(text.splitlines(), start=1):
        for match in EXPECT.finditer(line):
            found |= {(path, number, code.strip()) for code in match["codes"].split(",")}
    return found


def expected_in(root: Path) -> set[tuple[str, int, str]]:
    """Every expected finding under `root`, with paths relative to it (as ownlint shows them from there)."""
    found = set()
    for path in sorted(root.rglob("*.py")):
        found |= expected_findings(path.read_text(encoding="utf-8"), path.relative_to(root).as_posix())
    return found


def copies_for(min_lines: int, fixtures: list[Fixture] | None = None) -> int:
    fixtures = fixtures if fixtures is not None else load_fixtures()
    per_copy = sum(f.text.count("\n") for f in fixtures)
    return max(1, -(-min_lines // per_copy))


def generate(out: Path, copies: int, seed: int = DEFAULT_SEED) -> CorpusInfo:
    """Write `copies` renamed copies of the fixtures under `out` (which must not exist or be empty)."""
    fixtures = load_fixtures()
    names = collect_names(fixtures)
    packages = {f.relpath.parent.name for f in fixtures if f.relpath.name == "__init__.py"}
    modules: dict[Path, set[str]] = {}  # directory -> its modules outside any package
    for f in fixtures:
        if not any(p in packages for p in f.relpath.parent.parts):
            modules.setdefault(f.relpath.parent, set()).add(f.relpath.stem)
    info = CorpusInfo(copies=copies)
    rng = random.Random(seed + 1)
    for k, suffix in enumerate(copy_suffixes(copies, seed)):
        order = list(fixtures)
        rng.shuffle(order)
        for fixture in order:
            text, renamed = rename_fixture(fixture, names, suffix, frozenset(modules.get(fixture.relpath.parent, ())))
            target = out / f"c{k:04d}" / renamed_path(fixture.relpath, names, suffix, packages)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            info.files += 1
            info.lines += text.count("\n")
            info.expected += count_expected(text)
            info.renamed += renamed
            info.verbatim += fixture.module is None
    return info


def single_file(min_lines: int, seed: int = DEFAULT_SEED) -> str:
    """One module of at least `min_lines` lines: renamed single-module fixtures one after another.

    Fixtures of a package (cross-module imports) are left out. Each piece gets
    its own suffix, so no function is defined twice.
    """
    fixtures = [f for f in load_fixtures() if f.module is not None and "cross_pkg" not in f.relpath.parts]
    names = collect_names(fixtures)
    rng = random.Random(seed)
    pieces: list[str] = []
    lines = 0
    piece = 0
    while lines < min_lines:
        fixture = fixtures[rng.randrange(len(fixtures))]
        text, _ = rename_fixture(fixture, names, f"_s{piece}")
        pieces.append(text)
        lines += text.count("\n")
        piece += 1
    return "\n".join(pieces)


def many_ifs(count: int) -> str:
    """One function with `count` handles, each allocated, then freed under its own `if flag_i:`.

    A last unconditional `zeMemFree(ctx, p_0)` is a double free on the paths
    where `flag_0` held: the planted finding.
    """
    lines = [
        '"""Generated: one function, many independent conditional frees (path-explosion test)."""',
        "import ctypes",
        "",
        "from ze import *",
        "",
        "",
        "def release_some(ctx, flags):",
        "    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC)",
    ]
    for i in range(count):
        lines.append(f"    p_{i} = ctypes.c_void_p()")
        lines.append(f"    zeMemAllocHost(ctx, ctypes.byref(desc), 64, 64, ctypes.byref(p_{i}))")
    for i in range(count):
        lines.append(f"    flag_{i} = flags[{i}]")
    for i in range(count):
        lines.append(f"    if flag_{i}:")
        lines.append(f"        zeMemFree(ctx, p_{i})")
    lines.append("    zeMemFree(ctx, p_0)  # double free when flag_0 held")
    return "\n".join(lines) + "\n"


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="directory to write (created; must be empty if it exists)")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--lines", type=int, default=50_000, help="at least this many lines (default 50000)")
    size.add_argument("--copies", type=int, help="exactly this many copies of the fixtures")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.out.exists() and any(args.out.iterdir()):
        parser.error(f"{args.out} is not empty")
    copies = args.copies if args.copies is not None else copies_for(args.lines)
    info = generate(args.out, copies, args.seed)
    print(
        f"{info.files} files, {info.lines} lines, {info.copies} copies, "
        f"{info.expected} expected findings, {info.renamed} renames, {info.verbatim} copied verbatim"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
