"""The real program in a process of its own, without an interpreter start per run.

A test that runs `python -m ownlint ...` pays for the interpreter's imports
(libcst, ownlint's engine and its classes: about 0.7 s of CPU) before ownlint
does anything; with some 200 such runs that was half of the suite's time. Here
each run is forked from a server process that imported ownlint once
(multiprocessing's `forkserver`, preloaded): every run is still a process of
its own, with its own memory, working directory, environment, arguments,
standard streams, signals and exit status (`main` ends it with `os._exit`, as
the console script does), and whatever a run changes dies with it.

What a forked run cannot show is the interpreter's own start: what `-m` puts on
the import path, a module of the working directory shadowing one of ownlint's,
what is imported at all, stream encodings chosen from the environment other
than `PYTHONIOENCODING`; and its output goes to files, not pipes, so a limit
on the size of files it writes (`RLIMIT_FSIZE`) would cut it. Tests of those start `python -m ownlint` themselves
(tests/test_hostile_isolation.py, tests/test_cli.py's fast-exit and
machine-output tests).

`ownlint(*args, cwd=...)` stands for `subprocess.run([sys.executable, "-m",
"ownlint", *args], capture_output=True, ...)` and `script(source, *args,
cwd=...)` for `subprocess.run([sys.executable, "-c", source, *args], ...)`;
both return a `subprocess.CompletedProcess` (text, or bytes with
`text=False`) and raise `subprocess.TimeoutExpired` past `timeout`, having
killed the run.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# what a run of ownlint imports, imported once in the server
PRELOAD = [
    "forked",
    "ownlint.cli",
    "ownlint.commands",
    "ownlint.api",
    "ownlint.runner",
    "ownlint.processes",
    "ownlint.engine.program.project",
    "ownlint.checks",
    "ownlint.report",
]

_context: Any = None


def _forkserver() -> Any:
    global _context
    if _context is None:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        _context = context
    return _context


def ownlint(
    *args: str,
    cwd: Path | str,
    env: Mapping[str, str] | None = None,
    input: str | bytes | None = None,
    timeout: float = 240,
    text: bool = True,
) -> subprocess.CompletedProcess[Any]:
    """`python -m ownlint ARGS` in `cwd`, forked (see the module's docstring)."""
    return _run(("module", "ownlint"), list(args), cwd, env, input, timeout, text)


def script(
    source: str,
    *args: str,
    cwd: Path | str,
    env: Mapping[str, str] | None = None,
    input: str | bytes | None = None,
    timeout: float = 240,
    text: bool = True,
) -> subprocess.CompletedProcess[Any]:
    """`python -c SOURCE ARGS` in `cwd`, forked (see the module's docstring)."""
    return _run(("script", source), list(args), cwd, env, input, timeout, text)


def _run(
    what: tuple[str, str],
    args: list[str],
    cwd: Path | str,
    env: Mapping[str, str] | None,
    input: str | bytes | None,
    timeout: float,
    text: bool,
) -> subprocess.CompletedProcess[Any]:
    shown = [sys.executable, "-m" if what[0] == "module" else "-c", what[1], *args]
    with tempfile.TemporaryDirectory(prefix="ownlint-forked-") as scratch:
        streams = [os.path.join(scratch, name) for name in ("stdin", "stdout", "stderr")]
        data = input.encode() if isinstance(input, str) else input or b""
        Path(streams[0]).write_bytes(data)
        for path in streams[1:]:
            Path(path).touch()
        process = _forkserver().Process(
            target=_child, args=(what, args, os.fspath(cwd), dict(os.environ if env is None else env), streams)
        )
        process.start()
        process.join(timeout)
        if process.exitcode is None:
            process.kill()
            process.join()
            raise subprocess.TimeoutExpired(shown, timeout)
        out, err = (Path(p).read_bytes() for p in streams[1:])
    if text:
        return subprocess.CompletedProcess(shown, process.exitcode, _decoded(out), _decoded(err))
    return subprocess.CompletedProcess(shown, process.exitcode, out, err)


def _decoded(data: bytes) -> str:
    """As `subprocess.run(..., text=True)` decodes: the locale's encoding, universal newlines."""
    return io.TextIOWrapper(io.BytesIO(data)).read()


def _child(
    what: tuple[str, str],
    args: list[str],
    cwd: str,
    env: dict[str, str],
    streams: list[str],
) -> None:
    """The run, in the forked process: its directory, environment and streams, then ownlint's `main`."""
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    for fd, path in enumerate(streams):
        opened = os.open(path, os.O_RDONLY if fd == 0 else os.O_WRONLY)
        os.dup2(opened, fd)
        os.close(opened)
    encoding, _, errors = env.get("PYTHONIOENCODING", "").partition(":")
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        like = getattr(sys, f"__{name}__")  # the server's, opened as a fresh interpreter opens them
        stream = io.TextIOWrapper(
            open(fd, "rb" if fd == 0 else "wb", closefd=False),
            encoding=encoding or (like.encoding if like is not None else None),
            errors=errors or ("backslashreplace" if fd == 2 else like.errors if like is not None else None),
            line_buffering=fd == 2,
            write_through=fd == 2,
        )
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    if what[0] == "module":
        sys.argv = [what[1], *args]
        from ownlint.cli import main

        main()
    else:
        sys.argv = ["-c", *args]
        exec(compile(what[1], "<string>", "exec"), {"__name__": "__main__"})
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(0)
