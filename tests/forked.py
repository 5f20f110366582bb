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
    timeout: float = 240,
    text: bool = True,
) -> subprocess.CompletedProcess[Any]:
    """`python -m ownlint ARGS` in `cwd`, forked (see the module's docstring)."""
    return _run(("module", "ownlint"), list(args), cwd, env, timeout, text)


def script(
    source: str,
    *args: str,
    cwd: Path | str,
    env: Mapping[str, str] | None = None,
    timeout: float = 240,
    text: bool = True,
) -> subprocess.CompletedProcess[Any]:
    """`python -c SOURCE ARGS` in `cwd`, forked (see the module's docstring)."""
    return _run(("script", source), list(args), cwd, env, timeout, text)


def _run(
    what: tuple[str, str],
    args: list[str],
    cwd: Path | str,
    env: Mapping[str, str] | None,
    timeout: float,
    text: bool,
) -> subprocess.CompletedProcess[Any]:
    shown = [sys.executable, "-m" if what[0] == "module" else "-c", what[1], *args]
    with tempfile.TemporaryDirectory(prefix="ownlint-forked-") as scratch:
        streams = [os.path.join(scratch, name) for name in ("stdin", "stdout", "stderr")]
        for path in streams:  # standard input: empty
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
    for fd, path in enumerate(streams):
        opened = os.open(path, os.O_RDONLY if fd == 0 else os.O_WRONLY)
        os.dup2(opened, fd)
        os.close(opened)
    _start(cwd, env)
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


def _start(cwd: str, env: dict[str, str]) -> None:
    """A new run's directory and environment, and Python's streams on its file descriptors 0, 1 and 2."""
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
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


# --- a server process started by a client (the language server under pytest-lsp) ------------------------
#
# pytest-lsp starts the server itself, as a command whose standard streams are its pipes. The command
# here is a launcher of the standard library alone (`python -I -S`: a few milliseconds) that hands its
# three streams, its directory, environment and arguments to a zygote, a process of this module that
# imported ownlint and the language server's libraries once. For each launch the zygote forks a keeper,
# which forks the server on the launcher's streams, tells the launcher its process id and, when it ends,
# its exit status. The launcher passes on the signals it gets (a client's `terminate`) and exits with the
# server's status; the keeper kills the server if the launcher goes away first. Where no zygote
# answers, the launcher runs `python -m ownlint` itself.

LAUNCHER = r"""
import json, os, signal, socket, struct, sys
path, args = sys.argv[1], sys.argv[2:]
try:
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(path)
except OSError:
    os.execv(sys.executable, [sys.executable, "-m", "ownlint", *args])
body = json.dumps({"cwd": os.getcwd(), "env": dict(os.environ), "args": args}).encode()
socket.send_fds(sock, [struct.pack("!I", len(body)) + body], [0, 1, 2])
reader = sock.makefile("rb")
pid = int(reader.readline())
for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(number, lambda number, frame: os.kill(pid, number))
status = reader.read(4)
code = struct.unpack("!i", status)[0] if len(status) == 4 else 1
os._exit(code if code >= 0 else 128 - code)
"""

_zygote: subprocess.Popen[bytes] | None = None
_socket: str | None = None


def command(*args: str) -> list[str]:
    """A command that runs `python -m ownlint ARGS` forked from the zygote (started here, once per
    process; it ends with this process)."""
    global _zygote, _socket
    if _zygote is None:
        scratch = tempfile.mkdtemp(prefix="ownlint-zygote-")
        _socket = os.path.join(scratch, "socket")
        _zygote = subprocess.Popen(
            [sys.executable, "-c", "import forked; forked._serve()", _socket],
            cwd=os.path.dirname(os.path.abspath(__file__)),
            stdin=subprocess.DEVNULL,
        )
        import atexit
        import shutil

        atexit.register(shutil.rmtree, scratch, True)
        atexit.register(_zygote.kill)  # registered last: runs first
    return [sys.executable, "-I", "-S", "-c", LAUNCHER, _socket or "", *args]


def _serve() -> None:
    """The zygote: ownlint and the language server's libraries imported, then a fork per launch."""
    import ctypes
    import signal
    import socket

    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: it ends with the test process
    for name in [*PRELOAD[1:], "ownlint.lsp", "pygls.lsp.server", "lsprotocol.types"]:
        __import__(name)
    path = sys.argv[1]
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path + ".new")
    listener.listen(16)
    os.rename(path + ".new", path)  # launchers connect only once it listens
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # keepers are reaped by the system
    while True:
        connection, _ = listener.accept()
        if os.fork() == 0:
            listener.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            _keep(connection)
        connection.close()


def _keep(connection: Any) -> None:
    """A keeper: forks the server on the launcher's streams and reports how it ended."""
    import select
    import signal
    import socket
    import struct

    data, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
    size = struct.unpack("!I", data[:4])[0]
    while len(data) < 4 + size:
        data += connection.recv(1 << 20)
    request = __import__("json").loads(data[4 : 4 + size])
    pid = os.fork()
    if pid == 0:
        connection.close()
        for fd, received in enumerate(fds):
            os.dup2(received, fd)
            os.close(received)
        _start(request["cwd"], request["env"])
        sys.argv = ["ownlint", *request["args"]]
        from ownlint.cli import main

        main()
        os._exit(0)
    for received in fds:
        os.close(received)
    connection.sendall(f"{pid}\n".encode())
    while True:
        ended, status = os.waitpid(pid, os.WNOHANG)
        if ended:
            break
        if select.select([connection], [], [], 0.05)[0]:  # the launcher is gone
            os.kill(pid, signal.SIGKILL)
    try:
        connection.sendall(struct.pack("!i", os.waitstatus_to_exitcode(status)))
    except OSError:
        pass
    os._exit(0)
