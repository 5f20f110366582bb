"""Run every CUDA example program on a GPU and record what the runtime does.

The examples are the fixtures of tests/fixtures/cuda/ and tests/pending/cuda/:
real programs over cuda.bindings, CuPy, PyTorch, JAX and PyCUDA. Each
top-level function named `bug_*` or `clean_*` takes no argument (or only
defaulted ones) and returns what the calls returned. Each one runs in a
process of its own, so that a crash (a signal) or a poisoned CUDA context is
recorded, not fatal to the run.

    python3 gpu/run_cuda_examples.py run --out DIR      # on the GPU machine
    python3 gpu/run_cuda_examples.py one FILE FUNCTION  # one example (what `run` starts)
    python3 gpu/run_cuda_examples.py report RESULTS.json [--doc PATH]
                                                        # here: add ownlint's findings, write the table
    python3 gpu/run_cuda_examples.py docs-run --out DIR # on the GPU machine: the rules' CUDA examples
    python3 gpu/run_cuda_examples.py docs-report RESULTS.json [--doc PATH]

The rules' documentation has CUDA examples of its own (the `invalid` and
`valid` programs of `src/ownlint/checks/ownNNN_*.py` that import a CUDA
library). `docs-run` reads them from the rule modules' source (with `ast`:
ownlint itself need not be installed on the GPU machine), runs each in its
own process after a prelude that makes a CUDA context current, and calls its
function as `DOC_CALLS` says; `docs-report` writes their table.

`report` needs ownlint (it imports `ownlint.api`); `run` and `one` need only
the GPU libraries.
"""

from __future__ import annotations

import argparse
import ast
import enum
import faulthandler
import importlib.util
import json
import os
import platform
import re
import signal
import subprocess
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_DIRS = ("tests/fixtures/cuda", "tests/pending/cuda")
EXPECT = re.compile(r"#\s*E:\s*(?P<codes>OWN[0-9]+(?:\s*,\s*OWN[0-9]+)*)")
MARK = "@@RESULT@@ "
TIMEOUT_S = 120
PACKAGES = ("cuda-bindings", "cuda-core", "cupy-cuda13x", "torch", "jax", "jaxlib", "numba-cuda", "pycuda")


def examples() -> list[tuple[str, str, list[str]]]:
    """(file relative to the repository, function, expected codes) for every example."""
    found = []
    for folder in EXAMPLE_DIRS:
        for path in sorted((REPO / folder).glob("*.py")):
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines()
            for node in ast.parse(text).body:
                if isinstance(node, ast.FunctionDef) and node.name.startswith(("bug_", "clean_")):
                    end = node.end_lineno or node.lineno
                    codes = [
                        code.strip()
                        for line in lines[node.lineno - 1 : end]
                        for m in EXPECT.finditer(line)
                        for code in m["codes"].split(",")
                    ]
                    found.append((path.relative_to(REPO).as_posix(), node.name, codes))
    return found


def plain(value: Any, depth: int = 0) -> Any:
    """A JSON-able account of what an example returned (enums by name)."""
    if depth > 4:
        return repr(value)
    name = getattr(value, "name", None)
    if isinstance(value, enum.Enum) or (type(value) not in (int, bool) and isinstance(name, str)):
        return name  # CUresult / cudaError_t (IntEnum-like in cuda-bindings 13): by name
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [plain(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    return repr(value)


def sticky_status() -> Any:
    """cudaDeviceSynchronize after the example: reveals an error a kernel left behind."""
    try:
        from cuda.bindings import runtime

        (err,) = runtime.cudaDeviceSynchronize()
        return plain(err)
    except Exception as exc:  # the report says what happened, whatever it was
        return f"{type(exc).__name__}: {exc}"


# How to call each CUDA example of the rules' documentation: (code, "invalid"
# or "valid", its function) -> the call, evaluated in the example's module
# after PRELUDE (the arguments a caller would pass).
DOC_CALLS: dict[tuple[str, str, str], str] = {
    ("OWN201", "invalid", "finish"): "finish(_stream())",
    ("OWN201", "valid", "release"): "release(_device_memory())",
    ("OWN203", "invalid", "transform"): "transform()",
    ("OWN204", "invalid", "view"): "view(1 << 20)",
    ("OWN204", "valid", "checksum"): "checksum(1 << 20)",
    ("OWN301", "invalid", "register_halves"): "register_halves()",
    ("OWN301", "valid", "register_again"): "register_again()",
    ("OWN403", "valid", "start"): "start(1 << 20)",
    ("OWN404", "invalid", "copy_back"): "copy_back(_host_memory(), 1 << 20)",
    ("OWN404", "valid", "copy_back"): "copy_back(_host_memory(), 1 << 20)",
    ("OWN501", "invalid", "mirror"): "mirror(torch.arange(16, device='cuda'))",
    ("OWN501", "valid", "mirror"): "mirror(torch.arange(16, device='cuda'))",
}
PRELUDE = """
from cuda.bindings import driver as _driver, runtime as _runtime
(_err,) = _driver.cuInit(0)
_err, _dev = _driver.cuDeviceGet(0)
_err, _ctx = _driver.cuDevicePrimaryCtxRetain(_dev)
(_err,) = _driver.cuCtxSetCurrent(_ctx)
def _stream():
    return _driver.cuStreamCreate(0)[1]
def _device_memory():
    return _runtime.cudaMalloc(1 << 20)[1]
def _host_memory():
    return _runtime.cudaMallocHost(1 << 20)[1]
"""
CUDA_WORDS = ("cuda.bindings", "cupy", "torch", "pycuda")


def doc_examples() -> list[tuple[str, str, int, str, str, list[str]]]:
    """(code, kind, index, function, source, expected codes) of every CUDA example
    in the rules' documentation, read from the rule modules' source."""
    found = []
    for path in sorted((REPO / "src/ownlint/checks").glob("own[0-9]*.py")):
        code = "OWN" + path.name[3:6]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Rule"):
                continue
            for keyword in node.keywords:
                if keyword.arg not in ("invalid", "valid") or not isinstance(keyword.value, ast.Tuple):
                    continue
                for index, element in enumerate(keyword.value.elts):
                    text = element.value if isinstance(element, ast.Constant) else None
                    if not isinstance(text, str) or not any(word in text for word in CUDA_WORDS):
                        continue
                    if "dpctl" in text:
                        continue  # Intel's stack (an example that also imports torch)
                    functions = [n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)]
                    called = [f for f in functions if (code, keyword.arg, f) in DOC_CALLS]
                    expected = [c.strip() for m in EXPECT.finditer(text) for c in m["codes"].split(",")]
                    found.append((code, keyword.arg, index, called[0] if called else "", text, expected))
    return found


def run_doc_one(code: str, kind: str, index: int) -> None:
    faulthandler.enable()
    example = next(e for e in doc_examples() if e[:3] == (code, kind, index))
    call = DOC_CALLS.get((code, kind, example[3]))
    namespace: dict[str, Any] = {"__name__": f"doc_{code}_{kind}_{index}"}
    try:
        exec(compile(PRELUDE, "<prelude>", "exec"), namespace)
        exec(compile(example[4], f"<{code} {kind} example {index}>", "exec"), namespace)
        if call is None:
            raise LookupError(f"no call in DOC_CALLS for {code} {kind} {example[3] or '?'}")
        value = eval(call, namespace)
        record: dict[str, Any] = {"outcome": "returned", "value": plain(value)}
    except Exception as exc:
        record = {"outcome": "raised", "error": f"{type(exc).__name__}: {exc}"}
    record["after"] = sticky_status()
    print(MARK + json.dumps(record), flush=True)


def run_docs(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    results = []
    for code, kind, index, function, _, expected in doc_examples():
        entry = launch((f"doc:{code}:{kind}:{index}", function, expected))
        results.append(entry)
        print(
            f"{code} {kind} {index} {function}: {entry.get('outcome')} {json.dumps(entry.get('value', entry.get('error')))}"
        )
    doc = {"environment": environment(), "results": results}
    (out / "cuda-doc-examples.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


def docs_report(results_path: Path, doc_path: Path | None) -> None:
    from ownlint import api
    from ownlint.config import default_config

    data = json.loads(results_path.read_text(encoding="utf-8"))
    examples = {f"doc:{e[0]}:{e[1]}:{e[2]}": e for e in doc_examples()}
    lines = [
        "| rule example | expected | ownlint today | what the GPU run did |",
        "|---|---|---|---|",
    ]
    for entry in data["results"]:
        example = examples.get(entry["file"])
        found = "(example gone)"
        if example is not None:
            result = api.check_source(example[4].lstrip("\n"), Path("example.py"), default_config(REPO))
            found = ", ".join(sorted(d.code for d in result.findings)) or "none"
        expected = ", ".join(entry["expected"]) or "none"
        mark = "" if found == expected else " (differs)"
        _, code, kind, index = entry["file"].split(":")
        lines.append(f"| {code} {kind} #{index} `{entry['function']}` | {expected} | {found}{mark} | {cell(entry)} |")
    text = "\n".join(lines) + "\n"
    if doc_path is None:
        print(text)
    else:
        doc_path.write_text(text, encoding="utf-8")


def run_one(file: str, function: str) -> None:
    if file.startswith("doc:"):
        _, code, kind, index = file.split(":")
        run_doc_one(code, kind, int(index))
        return
    faulthandler.enable()  # a crash prints the Python line it happened on (stderr_tail)
    record: dict[str, Any] = {}
    try:
        spec = importlib.util.spec_from_file_location(f"cuda_example_{Path(file).stem}", REPO / file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except Exception as exc:
        record = {"outcome": "import-error", "error": f"{type(exc).__name__}: {exc}"}
        print(MARK + json.dumps(record), flush=True)
        return
    try:
        value = getattr(module, function)()
        record = {"outcome": "returned", "value": plain(value)}
    except Exception as exc:
        record = {
            "outcome": "raised",
            "error": f"{type(exc).__name__}: {exc}",
            "where": traceback.format_exc(limit=-2).strip().splitlines()[-3:],
        }
    record["after"] = sticky_status()
    print(MARK + json.dumps(record), flush=True)


def launch(example: tuple[str, str, list[str]]) -> dict[str, Any]:
    file, function, codes = example
    start = time.monotonic()
    entry: dict[str, Any] = {"file": file, "function": function, "expected": codes}
    try:
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "one", file, function],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        entry.update(outcome="timeout", seconds=TIMEOUT_S)
        return entry
    entry["seconds"] = round(time.monotonic() - start, 2)
    entry["returncode"] = proc.returncode
    if proc.returncode < 0:
        entry["signal"] = signal.Signals(-proc.returncode).name
    reported = [line for line in proc.stdout.splitlines() if line.startswith(MARK)]
    if reported:
        entry.update(json.loads(reported[-1][len(MARK) :]))
    else:
        entry["outcome"] = "crashed" if proc.returncode else "no-result"
    entry["stderr_tail"] = proc.stderr.strip().splitlines()[-12:]
    return entry


def environment() -> dict[str, Any]:
    from importlib import metadata

    env: dict[str, Any] = {"python": sys.version.split()[0], "platform": platform.platform()}
    for name in PACKAGES:
        try:
            env[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            env[name] = None
    try:
        smi = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        env["gpu"] = smi.stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        env["gpu"] = f"nvidia-smi: {exc}"
    return env


def run_all(out: Path, workers: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    todo = examples()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(launch, todo))
    for r in results:
        print(f"{r['file']}::{r['function']}: {r.get('outcome')} {json.dumps(r.get('value', r.get('error')))}")
    doc = {"environment": environment(), "results": results}
    (out / "cuda-gpu-results.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


def ownlint_findings() -> dict[tuple[str, str], list[str]]:
    """ownlint's findings today, by (file, function), each file checked alone as the fixture runners do."""
    from ownlint import api
    from ownlint.config import default_config

    found: dict[tuple[str, str], list[str]] = {}
    for folder in EXAMPLE_DIRS:
        root = REPO / folder
        for path in sorted(root.glob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            spans = [(n.lineno, n.end_lineno or n.lineno, n.name) for n in tree.body if isinstance(n, ast.FunctionDef)]
            result = api.check_paths([path], default_config(root))
            for finding in result.findings:
                for first, last, name in spans:
                    if first <= finding.span.line <= last:
                        key = (path.relative_to(REPO).as_posix(), name)
                        found.setdefault(key, []).append(finding.code)
    return found


def cell(entry: dict[str, Any]) -> str:
    outcome = entry.get("outcome")
    if outcome == "returned":
        text = json.dumps(entry.get("value"))
    elif outcome in ("raised", "import-error"):
        text = f"{outcome}: {entry.get('error')}"
    elif outcome == "crashed":
        text = f"crashed: {entry.get('signal', 'exit ' + str(entry.get('returncode')))}"
        stem = Path(entry["file"]).name
        at = [
            m[1] for line in entry.get("stderr_tail", []) if (m := re.search(rf"{re.escape(stem)}\", line (\d+)", line))
        ]
        if at:
            text += f" at line {at[0]}"
    else:
        text = str(outcome)
    after = entry.get("after")
    if after not in (None, "cudaSuccess"):
        text += f"; then cudaDeviceSynchronize: {after}"
    return text.replace("|", "\\|").replace("\n", " ")


def report(results_path: Path, doc_path: Path | None) -> None:
    data = json.loads(results_path.read_text(encoding="utf-8"))
    today = ownlint_findings()
    env = data["environment"]
    lines = [
        "| example | expected | ownlint today | what the GPU run did |",
        "|---|---|---|---|",
    ]
    for entry in data["results"]:
        key = (entry["file"], entry["function"])
        expected = ", ".join(entry["expected"]) or "none"
        found = ", ".join(sorted(today.get(key, []))) or "none"
        mark = "" if sorted(today.get(key, [])) == sorted(entry["expected"]) else " (differs)"
        name = f"`{Path(entry['file']).stem}.{entry['function']}`"
        where = "pending" if entry["file"].startswith("tests/pending") else "fixtures"
        lines.append(f"| {name} ({where}) | {expected} | {found}{mark} | {cell(entry)} |")
    header = ", ".join(f"{k} {v}" for k, v in env.items() if k not in ("python", "platform", "gpu"))
    text = "\n".join(
        [
            f"GPU: {env.get('gpu')}; Python {env.get('python')}; {header}.",
            "",
            *lines,
            "",
        ]
    )
    if doc_path is None:
        print(text)
    else:
        doc_path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run")
    p_run.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "gpu-results")))
    p_run.add_argument("--workers", type=int, default=4)
    p_one = sub.add_parser("one")
    p_one.add_argument("file")
    p_one.add_argument("function")
    p_rep = sub.add_parser("report")
    p_rep.add_argument("results", type=Path)
    p_rep.add_argument("--doc", type=Path, default=None)
    p_docs = sub.add_parser("docs-run")
    p_docs.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "gpu-results")))
    p_docs_rep = sub.add_parser("docs-report")
    p_docs_rep.add_argument("results", type=Path)
    p_docs_rep.add_argument("--doc", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.command == "run":
        run_all(args.out, args.workers)
    elif args.command == "one":
        run_one(args.file, args.function)
    elif args.command == "docs-run":
        run_docs(args.out)
    elif args.command == "docs-report":
        docs_report(args.results, args.doc)
    else:
        report(args.results, args.doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
