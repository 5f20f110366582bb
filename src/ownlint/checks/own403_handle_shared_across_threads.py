"""OWN403 handle-shared-across-threads."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN403",
    name="handle-shared-across-threads",
    severity="warning",
    summary="A native handle owned by the SYCL runtime is handed to another thread or process.",
    what_it_does="""
Reports a runtime-owned Level Zero handle (one transferred to a `make_*`
object, or a `get_native` result of an object not made with `keep`), or an
alias of it, passed to `threading.Thread(target=..., args=...)`, a
`multiprocessing` `Process` or `Pool` method, or `submit` / `map` of a
`concurrent.futures` executor made by `ThreadPoolExecutor(...)` or
`ProcessPoolExecutor(...)`.
""",
    why_bad="""
Level Zero handles are not thread-safe (4.4.4): the SYCL runtime drives a
handle it owns from its own threads, and another application thread calling
into it races with them. In another process the handle is only a number: it
names nothing there.
""",
    invalid=(
        """
import threading

from ze import *
from sycl.ext.oneapi import level_zero as lz


def poll(hq):
    while zeCommandQueueSynchronize(hq, 0) == ZE_RESULT_NOT_READY:
        pass


def start(hq, ctx, dev):
    q = lz.make_queue(hq, ctx, device=dev)
    watcher = threading.Thread(target=poll, args=(hq,))  # E: OWN403
    watcher.start()
    return q, watcher
""",
    ),
    valid=(
        """
import threading

from sycl.ext.oneapi import level_zero as lz


def drain(q):
    q.wait()


def start(hq, ctx, dev):
    q = lz.make_queue(hq, ctx, device=dev)
    watcher = threading.Thread(target=drain, args=(q,))  # share the SYCL queue, not its native handle
    watcher.start()
    return q, watcher
""",
        """
import threading

import torch
from cuda.bindings import runtime


def fill(p, n):
    runtime.cudaMemset(p, 2, n)


def start(n):
    t = torch.zeros(n, dtype=torch.uint8, device="cuda")
    worker = threading.Thread(target=fill, args=(t.data_ptr(), n))  # CUDA pointers may cross threads
    worker.start()
    worker.join()
    return t
""",
    ),
    known_limits="""
Handles the application owns (adopted with `keep`, or never given to
`make_*`) are its own business and are not reported, and so are handles of
an API whose handles are thread-safe (a `[[borrow]]` with `thread-safe =
true`: the CUDA pointer of a PyTorch tensor, `t.data_ptr()`, rules/torch.toml). An executor is
recognised only when ownlint sees it made; what the target does with the
handle is not examined. A handle that a project function or method returns
(`get_native` of a parameter, or of a field of its object) is judged by the
caller's object, so a helper that borrows from a queue made with `keep` is
not reported.
""",
    references="SYCL Level-Zero backend specification 4.4.1, 4.4.3, 4.4.4.",
    cwe=(362,),
    security_severity=5.5,
    precision="medium",
)


def describe(v: Violation) -> tuple[str, str, str]:
    h = f"`{v.handle}`" if v.handle else "a native handle"
    api = v.fact("api")
    to = f"`{api}`" if api else "another thread"
    process = any(word in api for word in ("multiprocessing", "Process", "Pool"))
    # the owner as its model names it (`owner-kind`: "SYCL queue", "numba device array"), if known
    kind = v.fact("owner")
    owner = f"the {kind}" if kind else "the runtime"
    keep = (
        ", or adopt the handle without giving up its ownership (`keep`) and serialize"
        if v.fact("transferred")
        else ", or serialize"
    )
    return (
        f"{h} is owned by {owner} and is passed to {to}, whose {'process' if process else 'thread'} "
        f"its model does not let it reach{via_suffix(v)}",
        "handed to another process here" if process else "handed to another thread here",
        f"pass {owner if kind else 'the object that owns it'} itself{keep} every use of "
        f"{'it' if v.fact('transferred') else 'the handle'} in one thread",
    )


CHECK = Check(RULE, describe)
