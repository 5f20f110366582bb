"""Editor latency through the protocol: from `didChange` to `publishDiagnostics`.

    python benchmarks/lsp_latency.py [--lines 2000] [--edits 20] [--seed 1729]

Starts `ownlint lsp` (the installed console script's module, with this
interpreter) on a temporary workspace holding one all-interop module of
`--lines` lines (make_corpus.single_file: renamed fixtures one after
another), opens it, waits for its first diagnostics, then makes `--edits`
edits, each one new statement at the top of a different function, sent as
a full-text `didChange` one second after the previous diagnostics arrived (an
edit, not a burst of typing). For each edit it measures the time from
writing the `didChange` to reading the `publishDiagnostics` for that
version: what the user waits for, debounce included. Prints one JSON object
(the first check, every edit's latency, their median and largest).

Nothing but the standard library and ownlint: the client is a few lines of
JSON-RPC over the server's standard input and output.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from queue import Empty, Queue
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_corpus


class Client:
    """A JSON-RPC client over a server's standard streams; messages from the server go to a queue."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.inbox: Queue[tuple[float, dict[str, Any]]] = Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            body = stream.read(length)
            self.inbox.put((time.perf_counter(), json.loads(body)))

    def send(self, message: dict[str, Any]) -> float:
        data = json.dumps({"jsonrpc": "2.0", **message}).encode()
        stream = self.proc.stdin
        assert stream is not None
        sent = time.perf_counter()
        stream.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        stream.flush()
        return sent

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        ident = self.next_id
        self.send({"id": ident, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == ident)[1]

    def notify(self, method: str, params: dict[str, Any]) -> float:
        return self.send({"method": method, "params": params})

    def wait(self, want: Any, timeout: float = 60.0) -> tuple[float, dict[str, Any]]:
        deadline = time.perf_counter() + timeout
        while True:
            try:
                at, message = self.inbox.get(timeout=max(0.0, deadline - time.perf_counter()))
            except Empty:
                raise TimeoutError("no answer from the server") from None
            if want(message):
                return at, message

    def close(self) -> None:
        try:
            self.request("shutdown", {})
            self.notify("exit", {})
            self.proc.wait(timeout=10)
        finally:
            self.proc.kill()


def diagnostics_for(uri: str, version: int) -> Any:
    def match(m: dict[str, Any]) -> bool:
        p = m.get("params") or {}
        return (
            m.get("method") == "textDocument/publishDiagnostics" and p.get("uri") == uri and p.get("version") == version
        )

    return match


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--seed", type=int, default=make_corpus.DEFAULT_SEED)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / "interop_module.py"
        text = make_corpus.single_file(args.lines, args.seed)
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        client = Client([sys.executable, "-c", "from ownlint.cli import main; main()", "lsp"], root)
        try:
            client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
            client.notify("initialized", {})
            opened = client.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
            )
            at, first = client.wait(diagnostics_for(uri, 1))
            findings = len(first["params"]["diagnostics"])
            lines = text.split("\n")
            defs = [i for i, line in enumerate(lines) if line.startswith("def ") and line.rstrip().endswith(":")]
            latencies = []
            for k in range(args.edits):
                time.sleep(1.0)
                where = defs[(k * 7) % len(defs)]
                lines = [*lines[: where + 1], f"    edited_{k} = {k}", *lines[where + 1 :]]
                defs = [d + 1 if d > where else d for d in defs]
                version = k + 2
                sent = client.notify(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"text": "\n".join(lines)}],
                    },
                )
                got, _ = client.wait(diagnostics_for(uri, version))
                latencies.append(got - sent)
        finally:
            client.close()
    print(
        json.dumps(
            {
                "lines": text.count("\n") + 1,
                "findings": findings,
                "first_check_s": round(at - opened, 4),
                "edits": len(latencies),
                "median_s": round(statistics.median(latencies), 4),
                "max_s": round(max(latencies), 4),
                "latencies_s": [round(x, 4) for x in latencies],
            }
        )
    )


if __name__ == "__main__":
    main()
