"""Seeded bugs in real code: how many releases' misuses ownlint finds.

For every statement of a real file that calls a release a model lists
(`cuMemFree(p)`, `check(cudart.cudaGraphDestroy(g))`, `runtime.freeAsync(p, s)`,
`alloc.free()`...), two mutants are made, one at a time:

- **double**: the statement is written twice; ownlint must report OWN201 on
  the copy;
- **use**: `_seeded_use(HANDLE)` is inserted after it (an unknown call that
  is given the released handle); ownlint must report OWN203 there.

Each mutant is checked alone (as the file it came from, with no other file
of its project; with `--with-imports`, with the project modules it imports,
transitively, as `ownlint check FILE` and pre-commit check a file), in this
process, through `ownlint.api.check_source`; a
finding of the expected code on the inserted line counts as found. The
unmutated files are checked too, and their findings listed: a seeded
measure is only worth something where the originals are quiet. The table
is per release function, so a kind that is never found stands out.

    python benchmarks/seeded.py DIR_OR_FILE... [--limit N] [--json OUT] [--with-imports]

Releases inside a lambda (registered to run later, not run there) and
releases of a constant (`cudaFree(0)`, which frees nothing) are skipped.
Releases by key (a device given back: `cuDevicePrimaryCtxRelease(dev)`)
are skipped: the key stays valid after them, so neither mutant is a bug.
A release by method that may run twice (`idempotent`: a `close()` that
resets its object's handle) gets only the use mutant.
A release whose statement is a `return`, or a compound statement's header,
is skipped too (a copy would be unreachable, or not a statement).
A release of a handle the statement itself takes out of a container
(`cudaFree(self.device_memories.pop(name))`) is skipped: the copy takes out
another one (or raises `KeyError`), and the inserted use would take out yet
another, so neither mutant releases or uses the released handle again.
A statement of a nested function is one site, not one more for each
function around it.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from ownlint.api import check_source
from ownlint.config import Config, default_config
from ownlint.engine.modelling.models import load_models

USE = "_seeded_use"
# methods that take their value out of the container they are called on
TAKE_OUT = frozenset({"pop", "popleft", "popitem"})


@dataclass(frozen=True)
class Site:
    path: Path
    release: str  # the release's last name
    stmt_line: int  # first line of the statement (1-based)
    end_line: int  # its last line
    indent: str
    handle: str  # the released handle's source text
    again: bool = False  # a release by method that may run twice (`idempotent`): no double mutant


def release_names() -> tuple[dict[str, int], dict[str, set[str]], dict[str, set[str]]]:
    """Release functions (with their handle index), and release methods with
    the last names of the creators whose values they release. A function of a
    `last-name` model is keyed by its name (`cuMemFree`); one of a `qualified`
    model by its last two dotted names (`runtime.free`), which the callee's
    spelling must end with (`free` alone is far too common). The third table: the
    release methods that may run twice on what those creators made (`idempotent`)."""
    models = load_models()
    by_name: dict[str, int] = {}
    for table, parts in ((models.by_last_name, 1), (models.by_qualified, 2)):
        for name, call in table.items():
            release = call.release
            if release is not None and release.key is None and release.handle >= 0:
                by_name[".".join(name.split(".")[-parts:])] = release.handle
    methods = {m: {c.rpartition(".")[2] for c in of} for m, of in models.release_methods.items()}
    again = {m: {c.rpartition(".")[2] for c in of} for m, of in models.idempotent_releases.items()}
    return by_name, methods, again


def _last_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _release_of(func: ast.expr, functions: dict[str, int]) -> str | None:
    """The key of `functions` the callee `func` matches: its last name, or its last two dotted names."""
    last = _last_name(func)
    if last in functions:
        return last
    if isinstance(func, ast.Attribute):
        two = f"{_last_name(func.value)}.{func.attr}"
        if two in functions:
            return two
    return None


def _in_lambda(fn: ast.AST) -> set[int]:
    """The ids of the calls inside lambdas of `fn` (registered, not run: no site)."""
    return {id(c) for lam in ast.walk(fn) if isinstance(lam, ast.Lambda) for c in ast.walk(lam)}


def sites_in(
    path: Path,
    text: str,
    functions: dict[str, int],
    methods: dict[str, set[str]],
    again: dict[str, set[str]] | None = None,
) -> list[Site]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    lines = text.splitlines()
    found = []
    seen: set[int] = set()  # the statements already looked at (a nested function's are its outer one's too)
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        made_by = _creators_of_names(fn)
        deferred = _in_lambda(fn)
        for stmt in ast.walk(fn):
            if not isinstance(stmt, ast.Expr | ast.Assign | ast.AnnAssign | ast.AugAssign) or id(stmt) in seen:
                continue
            seen.add(id(stmt))
            for call in ast.walk(stmt):
                if not isinstance(call, ast.Call) or id(call) in deferred:
                    continue
                name = _release_of(call.func, functions) or _last_name(call.func)
                handle: ast.expr | None = None
                twice = False
                if name in functions and len(call.args) > functions[name]:
                    handle = call.args[functions[name]]
                elif name in methods and isinstance(call.func, ast.Attribute) and not call.args:
                    receiver = call.func.value
                    # a method release applies to what one of its creators returned
                    if isinstance(receiver, ast.Name) and made_by.get(receiver.id, set()) & methods[name]:
                        handle = receiver
                        twice = bool(made_by[receiver.id] & (again or {}).get(name, set()))
                # `cudaFree(0)` (the idiom that creates the runtime's context) frees nothing
                if handle is None or isinstance(handle, ast.Starred | ast.Constant) or _takes_out(handle):
                    continue
                segment = ast.get_source_segment(text, handle)
                if segment is None or "\n" in segment:
                    continue
                first = lines[stmt.lineno - 1]
                indent = first[: len(first) - len(first.lstrip())]
                if stmt.col_offset != len(indent):  # `if c: free(p)`: it shares its line with a header
                    continue
                end = stmt.end_lineno or stmt.lineno
                found.append(Site(path, name or "", stmt.lineno, end, indent, segment, twice))
                break
    return found


def _takes_out(handle: ast.expr) -> bool:
    """`d.pop(k)` somewhere in `handle`: each evaluation takes out another value."""
    return any(
        isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in TAKE_OUT
        for c in ast.walk(handle)
    )


def _creators_of_names(fn: ast.AST) -> dict[str, set[str]]:
    """The last names of the calls each local name of `fn` is assigned from."""
    made: dict[str, set[str]] = defaultdict(set)
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            callee = _last_name(node.value.func)
            for target in node.targets:
                if isinstance(target, ast.Name) and callee is not None:
                    made[target.id].add(callee)
    return made


def mutate(text: str, site: Site, kind: str) -> tuple[str, int]:
    """The mutant's text and the line (1-based) where its finding must be."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    stmt = lines[site.stmt_line - 1 : site.end_line]
    if kind == "double":
        inserted = stmt
    else:
        inserted = [f"{site.indent}{USE}({site.handle})\n"]
    mutant = lines[: site.end_line] + inserted + lines[site.end_line :]
    return "".join(mutant), site.end_line + 1


def findings(text: str, path: Path, config: Config, others: list[tuple[Path, str]]) -> list[tuple[int, str]]:
    result = check_source(text, path, config, others=others)
    return [(f.span.line, f.code) for f in result.findings]


def imported(path: Path, config: Config) -> list[tuple[Path, str]]:
    """The project modules `path` imports, transitively, with their texts: what
    `ownlint check PATH` (pre-commit, on a staged file) analyses with it."""
    from ownlint.closure import imported_files

    out = []
    for file in imported_files([path], config):
        try:
            out.append((file, file.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--limit", type=int, default=0, help="at most this many sites (0: all)")
    parser.add_argument("--json", type=Path, help="write every site's result here")
    parser.add_argument(
        "--with-imports",
        action="store_true",
        help="check each file with the project modules it imports, as `ownlint check FILE` does",
    )
    args = parser.parse_args()
    functions, methods, again = release_names()
    config = default_config()
    files = sorted({f for p in args.paths for f in ([p] if p.is_file() else p.rglob("*.py")) if f.is_file()})
    started = time.perf_counter()
    totals: Counter[tuple[str, str]] = Counter()
    hits: Counter[tuple[str, str]] = Counter()
    records = []
    originals: dict[str, list[tuple[int, str]]] = defaultdict(list)
    count = 0
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        sites = sites_in(path, text, functions, methods, again)
        if not sites:
            continue
        others = imported(path, config) if args.with_imports else []
        originals[str(path)] = findings(text, path, config, others)
        for site in sites:
            if args.limit and count >= args.limit:
                break
            count += 1
            for kind, code in (("double", "OWN201"), ("use", "OWN203")):
                if kind == "double" and site.again:
                    continue  # a second call is harmless: no bug to find
                mutant, line = mutate(text, site, kind)
                got = (line, code) in findings(mutant, path, config, others)
                totals[(site.release, kind)] += 1
                hits[(site.release, kind)] += got
                records.append(
                    {"file": str(path), "line": site.stmt_line, "release": site.release, "kind": kind, "found": got}
                )
    seconds = time.perf_counter() - started
    print(f"{count} release sites in {len(originals)} files, {seconds:.0f} s")
    print()
    print("| release | double: found | use: found |")
    print("|---|---:|---:|")
    for release in sorted({r for r, _ in totals}):
        cells = [f"{hits[(release, k)]}/{totals[(release, k)]}" for k in ("double", "use")]
        print(f"| `{release}` | {cells[0]} | {cells[1]} |")
    all_hits = sum(hits.values())
    all_total = sum(totals.values())
    print(f"| all | | {all_hits}/{all_total} ({100 * all_hits / max(all_total, 1):.1f}%) |")
    print()
    quiet = sum(1 for v in originals.values() if not v)
    print(f"unmutated files: {quiet} of {len(originals)} with no finding")
    for file, found in sorted(originals.items()):
        for line, code in found:
            print(f"  {file}:{line}: {code}")
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
