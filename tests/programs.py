"""A generator of random interop modules that reach ownlint's flow analysis.

`function_source(rng, size)` writes one whole module: the imports it needs,
a few helper functions that free, use, wrap or consume their arguments, one
to a few functions built at random from the calls `rules/*.toml` models
(Level Zero through ctypes, SYCL interop `make_*` / `get_native`, dpctl
queues and events, DLPack capsules, external memory mappings, threads), and
sometimes a class and a few module-level statements. Every generated
function names a modelled call, so the prefilter lets the file through and
every function is analysed (random programs that name no modelled call are
skipped before the analysis, which is how a hang once went unnoticed).

The statements mix the shapes that stress a flow analysis: loops (for over
ranges and lists, while with counters, `while True` with a break, nested
loops, `for ... else`), branches, try/except/else/finally, with, match,
if-expressions (nested, and inside arithmetic: `n = n * (1 if i % 2 == 0 else
2)`), boolean operators, break/continue/return/raise, values that grow on
each iteration (`n = n * 2`, `off += size`, `s = s + s`, `x = [x]`,
`x = (x, x)`), handles rebound in loops, calls of the module's own
functions (recursion included), nested functions and lambdas.

Only `rng` is drawn from, so a seed reproduces a program, and hypothesis can
drive the generator with `st.randoms(use_true_random=False)` and shrink what
it finds (the first choice of each table is the simplest, so that draws
shrunk towards 0 give short, plain programs). The programs are never run:
they need to be valid Python (checked with `compile` before they are
returned), not meaningful.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

__all__ = ["HEADER", "function_source"]

HEADER = """\
import concurrent.futures
import ctypes
import mmap
import threading
from ctypes import byref, pointer

import dpctl
import dpctl.memory
import dpctl.program
import dpctl.tensor as dpt
import torch
import torch.utils.dlpack
from torch.utils.dlpack import to_dlpack

from ze import *
from sycl.ext.oneapi import level_zero as lz
from sycl.ext.oneapi.level_zero import BackendInput, ownership
from sycl.ext.oneapi.level_zero import make_queue as mq

PAGE = mmap.PAGESIZE
INF = 2**64 - 1
LOCK = threading.Lock()


class ZeError(RuntimeError):
    pass
"""

# Helpers the generated functions may call: (name, parameter count, text).
# They free, destroy, use, wrap or consume an argument, map a range, or
# allocate and return a handle, so that summaries matter at their calls.
LIBRARY: tuple[tuple[str, int, str], ...] = (
    ("release", 2, "def release(hctx, p):\n    zeMemFree(hctx, p)\n"),
    (
        "use_mem",
        3,
        "def use_mem(hcl, p, n):\n    zeCommandListAppendMemoryFill(hcl, p, None, 1, n, None, 0, None)\n    return n\n",
    ),
    ("destroy_event", 1, "def destroy_event(hev):\n    return zeEventDestroy(hev)\n"),
    ("consume", 1, "def consume(cap):\n    return torch.utils.dlpack.from_dlpack(cap)\n"),
    (
        "map_range",
        3,
        "def map_range(hctx, addr, nbytes):\n"
        "    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC,"
        " pNext=None, pSystemMemory=addr, size=nbytes)\n"
        "    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC,"
        " pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)\n"
        "    ptr = ctypes.c_void_p()\n"
        "    zeMemAllocHost(hctx, ctypes.byref(desc), nbytes, PAGE, ctypes.byref(ptr))\n"
        "    return ptr\n",
    ),
    ("wrap_queue", 3, "def wrap_queue(hq, ctx, dev):\n    return lz.make_queue(hq, ctx, device=dev)\n"),
    ("worker", 1, "def worker(h, *args):\n    return h\n"),
    (
        "alloc",
        3,
        "def alloc(hctx, hdev, n):\n"
        "    p = ctypes.c_void_p()\n"
        "    desc = ze_device_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC)\n"
        "    zeMemAllocDevice(hctx, ctypes.byref(desc), n, 64, hdev, ctypes.byref(p))\n"
        "    return p\n",
    ),
    (
        "maybe_free",
        3,
        "def maybe_free(hctx, p, flag):\n    if flag:\n        zeMemFree(hctx, p)\n        return None\n    return p\n",
    ),
    (
        "chain",
        2,
        "def chain(desc, ext):\n    desc.pNext = ctypes.cast(ctypes.byref(ext), ctypes.c_void_p)\n    return desc\n",
    ),
    (
        "submit_all",
        3,
        "def submit_all(q, k, evs):\n"
        "    for ev in evs:\n"
        "        evs = [q.submit_async(k, [ev], [1], None, evs)]\n"
        "    return evs\n",
    ),
)

# Names by the kind of value they usually hold. A name may be used before it
# is bound (then it is a global the analysis knows nothing of): the programs
# only need to be valid Python.
MEM = ("p", "p2", "ptr", "dst")
INTS = ("n", "m", "i", "j", "off", "size", "count")
ANY = ("x", "s", "box", "r", "t")
SYCL = ("sq", "sctx", "sev", "sbuf")
DQ = ("q", "q2")
EVENTS = ("ev", "ev2")
CAPS = ("cap", "cap2")
TENSORS = ("t", "x", "arr")
BUFS = ("buf", "ring")
PARAMS = (
    "hctx", "hdev", "hcl", "hq", "hev", "ctx", "dev", "q", "k", "n", "m", "p", "p2",
    "items", "flag", "x", "buf", "cap", "evs", "box", "done",
)  # fmt: skip

# Level Zero objects: handle variables, their type, how they are created,
# destroyed and used (`{v}` is the handle variable).
ZE: dict[str, tuple[tuple[str, ...], str, str, str, tuple[str, ...]]] = {
    "event": (
        ("hev", "hev2"),
        "ze_event_handle_t",
        "zeEventCreate(hpool, byref(edesc), byref({v}))",
        "zeEventDestroy({v})",
        (
            "zeEventHostSignal({v})",
            "zeEventQueryStatus({v})",
            "zeEventHostSynchronize({v}, INF)",
            "zeCommandListAppendSignalEvent(hcl, {v})",
        ),
    ),
    "queue": (
        ("hq", "hq2"),
        "ze_command_queue_handle_t",
        "zeCommandQueueCreate(hctx, hdev, byref(qdesc), ctypes.byref({v}))",
        "zeCommandQueueDestroy({v})",
        ("zeCommandQueueSynchronize({v}, INF)", "zeCommandQueueExecuteCommandLists({v}, 1, ctypes.byref(hcl), None)"),
    ),
    "list": (
        ("hcl", "imm"),
        "ze_command_list_handle_t",
        "zeCommandListCreate(hctx, hdev, byref(ldesc), byref({v}))",
        "zeCommandListDestroy({v})",
        ("zeCommandListClose({v})", "zeCommandListReset({v})", "zeCommandListAppendBarrier({v}, None, 0, None)"),
    ),
    "fence": (
        ("fence",),
        "ze_fence_handle_t",
        "zeFenceCreate(hq, byref(fdesc), pointer({v}))",
        "zeFenceDestroy({v})",
        ("zeFenceHostSynchronize({v}, INF)", "zeFenceQueryStatus({v})"),
    ),
    "context": (
        ("hctx", "hctx2"),
        "ze_context_handle_t",
        "zeContextCreate(hdrv, byref(cdesc), ctypes.pointer({v}))",
        "zeContextDestroy({v})",
        ("zeContextGetStatus({v})",),
    ),
    "kernel": (
        ("hk",),
        "ze_kernel_handle_t",
        "zeKernelCreate(hmod, byref(kdesc), byref({v}))",
        "zeKernelDestroy({v})",
        (
            "zeKernelSetGroupSize({v}, 64, 1, 1)",
            "zeCommandListAppendLaunchKernel(hcl, {v}, byref(groups), None, 0, None)",
        ),
    ),
    "module": (
        ("hmod",),
        "ze_module_handle_t",
        "zeModuleCreate(hctx, hdev, byref(mdesc), byref({v}), byref(hlog))",
        "zeModuleDestroy({v})",
        ("zeKernelCreate({v}, byref(kdesc), byref(hk))", "zeModuleGetProperties({v}, byref(props))"),
    ),
}

ALLOCS = (
    "zeMemAllocHost(hctx, ctypes.byref(hdesc), {n}, 64, ctypes.byref({v}))",
    "zeMemAllocDevice(hctx, byref(ddesc), {n}, 64, hdev, byref({v}))",
    "zeMemAllocShared(hctx, byref(ddesc), byref(hdesc), {n}, 64, hdev, pointer({v}))",
    "ze.zeMemAllocDevice(hctx, ctypes.byref(ddesc), {n}, 64, hdev, ctypes.pointer({v}))",
)

OWNERSHIP = (
    "",
    ", ownership=ownership.keep",
    ", ownership=ownership.transfer",
    ', ownership="keep"',
    ", ownership=lz.ownership.transfer",
    ", ownership=ownership.keep if flag else ownership.transfer",
)


class _Scope:
    """Where a statement is written: how deep, inside how many loops, in a function or not."""

    def __init__(self, indent: int, loops: int, function: bool, method: bool, depth: int) -> None:
        self.indent = indent
        self.loops = loops
        self.function = function
        self.method = method
        self.depth = depth  # nesting of compound statements

    def inner(self, loop: bool = False) -> _Scope:
        return _Scope(self.indent + 1, self.loops + (1 if loop else 0), self.function, self.method, self.depth + 1)


class _Gen:
    MAX_DEPTH = 5

    def __init__(self, rng: random.Random, size: int) -> None:
        self.rng = rng
        self.size = max(1, size)
        self.lines: list[str] = []
        self.callables: list[tuple[str, int]] = []  # functions of the module: name, parameter count
        self.counter = 0

    # -- small draws -------------------------------------------------------------
    def pick(self, options: Sequence[str]) -> str:
        return options[self.rng.randrange(len(options))]

    def chance(self, p: float) -> bool:
        # a draw shrunk to 0.0 makes the rarer choice false when p <= 0.5
        return self.rng.random() >= 1.0 - p

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}_{self.counter}"

    def mem(self, scope: _Scope) -> str:
        if scope.method and self.chance(0.3):
            return "self.ptr"
        return self.pick(MEM)

    def handle(self, scope: _Scope) -> str:
        """Any handle-like value: memory, a Level Zero object, a native handle, an element."""
        return self.pick((self.mem(scope), "hev", "hq", "hcl", "nat", "h", "box[0]", "hctx"))

    # -- expressions ---------------------------------------------------------------
    def int_expr(self, depth: int = 0) -> str:
        leaves = ("n", "1", "m", "i", "2", "off", "size", "PAGE", "count", "len(items)", "j")
        if depth >= 3 or self.chance(0.45):
            return self.pick(leaves)
        form = self.rng.randrange(8)
        a, b = self.int_expr(depth + 1), self.int_expr(depth + 1)
        if form == 0:
            return f"{a} + {b}"
        if form == 1:
            return f"{a} * ({b})"
        if form == 2:
            return f"({a} if {self.cond(depth + 1)} else {b})"
        if form == 3:
            return f"{a} * (1 if i % 2 == 0 else 2)"
        if form == 4:
            return f"({a}) // 2"
        if form == 5:
            return f"{a} - {b}"
        if form == 6:
            return f"({a} if {self.cond(depth + 1)} else ({b} if {self.cond(depth + 1)} else 0))"
        return f"max({a}, {b})"

    def size_expr(self) -> str:
        return self.pick(
            (
                "PAGE",
                "2 * PAGE",
                "size",
                "n * PAGE",
                "(size if flag else PAGE)",
                "4 * PAGE",
                "PAGE * (1 if i % 2 == 0 else 2)",
            )
        )

    def addr_expr(self) -> str:
        return self.pick(
            (
                "base",
                "base + off",
                "base + i * PAGE",
                "base + 2 * PAGE",
                "addr",
                "base + (PAGE if flag else 0)",
                "base + off + size",
            )
        )

    def cond(self, depth: int = 0, scope: _Scope | None = None) -> str:
        simple = (
            "flag",
            "n > m",
            "not flag",
            "i % 2 == 0",
            "p is None",
            "p is not None",
            "done",
            "items",
            "off < size",
            "zeEventQueryStatus(hev) == ZE_RESULT_SUCCESS",
            "zeMemFree(hctx, p) != ZE_RESULT_SUCCESS",
            "isinstance(k, dpctl.program.SyclKernel)",
            "n * (1 if flag else 2) > m",
            "(n if flag else m) > 0",
            "count == 0",
            "zeFenceQueryStatus(fence) == ZE_RESULT_SUCCESS",
            "ev is not None",
        )
        if depth >= 2 or self.chance(0.7):
            return self.pick(simple)
        form = self.rng.randrange(4)
        a, b = self.cond(depth + 1), self.cond(depth + 1)
        if form == 0:
            return f"{a} and {b}"
        if form == 1:
            return f"{a} or {b}"
        if form == 2:
            return f"not ({a})"
        return f"({a} if {b} else {self.cond(depth + 1)})"

    # -- simple statements ---------------------------------------------------------
    def modelled(self, scope: _Scope) -> list[str]:
        """One statement (or two) with a call a model knows."""
        families: list[Callable[[_Scope], list[str]]] = [
            self.s_free,
            self.s_alloc,
            self.s_use_mem,
            self.s_ze_object,
            self.s_sycl,
            self.s_dpctl,
            self.s_dlpack,
            self.s_memmap,
            self.s_thread,
            self.s_helper_call,
        ]
        return families[self.rng.randrange(len(families))](scope)

    def s_free(self, scope: _Scope) -> list[str]:
        v = self.mem(scope)
        return [
            self.pick(
                (
                    f"zeMemFree(hctx, {v})",
                    f"release(hctx, {v})",
                    f"rc = zeMemFree(hctx, {v})",
                    f"{v} = maybe_free(hctx, {v}, flag)",
                )
            )
        ]

    def s_alloc(self, scope: _Scope) -> list[str]:
        v = self.mem(scope)
        out = [] if self.chance(0.2) else [f"{v} = ctypes.c_void_p()"]
        if self.chance(0.2):
            return [f"{v} = alloc(hctx, hdev, {self.int_expr(2)})"]
        return [*out, self.pick(ALLOCS).format(v=v, n=self.int_expr(2))]

    def s_use_mem(self, scope: _Scope) -> list[str]:
        v, w = self.mem(scope), self.mem(scope)
        return [
            self.pick(
                (
                    f"zeCommandListAppendMemoryCopy(hcl, {v}, {w}, n, None, 0, None)",
                    f"use_mem(hcl, {v}, n)",
                    f"ctypes.memmove({v}, {w}, n)",
                    f"addr = {v}.value",
                    f"fp = ctypes.cast({v}, ctypes.POINTER(ctypes.c_float))",
                    f"base = int({v})",
                    f"zeCommandListAppendMemoryFill(hcl, ctypes.c_void_p({v}.value + off), None, 1, n, None, 0, None)",
                    f"zeMemGetAllocProperties(hctx, {v}, byref(props), None)",
                    f"print({v}, hex({v}.value))",
                )
            )
        ]

    def s_ze_object(self, scope: _Scope) -> list[str]:
        kind = self.pick(tuple(ZE))
        names, type_, create, destroy, uses = ZE[kind]
        v = self.pick(names)
        op = self.rng.randrange(4)
        if op == 0:
            return [self.pick(uses).format(v=v)]
        if op == 1:
            return [destroy.format(v=v)]
        if op == 2:
            return [f"{v} = {type_}()", create.format(v=v)]
        return [create.format(v=v)]

    def s_sycl(self, scope: _Scope) -> list[str]:
        s = self.pick(SYCL)
        own = self.pick(OWNERSHIP)
        forms = (
            f"{s} = lz.make_queue({self.pick(('hq', 'hcl', 'hq2', 'h'))}, ctx, device=dev{own})",
            f"{s} = lz.make_context({self.pick(('hctx', 'hctx2'))}, devices=[dev]{own})",
            f"{s} = lz.make_event({self.pick(('hev', 'hev2'))}, ctx{own})",
            f"{s} = lz.make_buffer({self.mem(scope)}, ctx{own})",
            f"{s} = mq(BackendInput(native_handle={self.pick(('hq', 'hcl'))}, device=dev, ownership=ownership.keep), ctx)",
            f"nat = lz.get_native({s})",
            f"nat = {s}.get_native()",
            f"del {s}",
            f"{s} = None",
            f"{s}.wait()",
            f"{s} = wrap_queue(hq, ctx, dev)",
            f'{s} = lz.make_event({{"NativeHandle": hev, "Ownership": ownership.keep}}, ctx)',
            f"{s} = lz.make_kernel(hk, ctx, kernel_bundle=kb{own})",
        )
        return [self.pick(forms)]

    def s_dpctl(self, scope: _Scope) -> list[str]:
        q, ev = self.pick(DQ), self.pick(EVENTS)
        forms = (
            f"{q} = dpctl.SyclQueue(dev)",
            f"{ev} = {q}.submit_async(k, [{self.mem(scope)}, n], [n], None, [{self.pick(EVENTS)}])",
            f"{ev} = {q}.submit_async(k, args, r, None, evs)",
            f"evs.append({ev})",
            f"evs = evs + [{ev}]",
            f"{ev}.wait()",
            f"{q} = dpctl.SyclQueue(sctx, dev)",
            f'{q} = dpctl.SyclQueue("level_zero:gpu")',
            f"mem = dpctl.memory.MemoryUSMDevice({self.int_expr(2)}, queue={q})",
            f"mem = dpctl.memory.MemoryUSMShared(n, queue={q})",
            f"addr = {q}.addressof_ref()",
            "assert isinstance(k, dpctl.program.SyclKernel)",
            "sctx = dpctl.SyclContext(dev)",
            f"{ev} = {q}.submit(k, [x], [n])",
            f"evs = submit_all({q}, k, evs)",
            f"{q}.wait()",
            f"{ev} = {q}.submit_async(k, [mem], [n], None, [{ev}] if {ev} is not None else [])",
        )
        return [self.pick(forms)]

    def s_dlpack(self, scope: _Scope) -> list[str]:
        c, t = self.pick(CAPS), self.pick(TENSORS)
        forms = (
            f"{c} = {t}.__dlpack__()",
            f"{t} = torch.from_dlpack({c})",
            f"{c} = to_dlpack({t})",
            f"{c} = {self.pick(DQ)}._get_capsule()",
            f"{t} = consume({c})",
            f"{t} = dpt.asarray(x, sycl_queue={self.pick(DQ)})",
            f"{t} = torch.utils.dlpack.from_dlpack({c})",
            f"{self.pick(DQ)} = dpctl.SyclQueue({c})",
            f"{t} = torch.from_dlpack({t})",
            f"{c} = {t}.__dlpack__(stream=None)",
        )
        return [self.pick(forms)]

    def s_memmap(self, scope: _Scope) -> list[str]:
        b = self.pick(BUFS)
        v = self.mem(scope)
        forms: tuple[Callable[[], list[str]], ...] = (
            lambda: [f"{b} = mmap.mmap(-1, {self.pick(('8', 'n', '4'))} * PAGE)"],
            lambda: [f"base = ctypes.addressof(ctypes.c_char.from_buffer({b}))"],
            lambda: [
                f"ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC,"
                f" pNext=None, pSystemMemory={self.addr_expr()}, size={self.size_expr()})"
            ],
            lambda: [f"ext.pSystemMemory = {self.addr_expr()}", f"ext.size = {self.size_expr()}"],
            lambda: [
                "hdesc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC,"
                f" pNext=ctypes.cast(ctypes.{self.pick(('pointer', 'byref'))}(ext), ctypes.c_void_p), flags=0)"
            ],
            lambda: [f"hdesc.pNext = ctypes.cast(ctypes.byref({self.pick(('ext', 'ext2'))}), ctypes.c_void_p)"],
            lambda: ["ext.pNext = ctypes.cast(ctypes.pointer(ext2), ctypes.c_void_p)"],
            lambda: [
                f"{v} = ctypes.c_void_p()",
                f"zeMemAllocHost(hctx, ctypes.byref(hdesc), {self.size_expr()}, PAGE, ctypes.byref({v}))",
            ],
            lambda: [f"{v} = map_range(hctx, {self.addr_expr()}, {self.size_expr()})"],
            lambda: [f"{b}.close()"],
            lambda: [f"{b} = bytearray({self.int_expr(2)})"],
            lambda: [f"{b} = mmap.mmap(-1, PAGE, access=mmap.ACCESS_READ)"],
            lambda: ["hdesc = chain(hdesc, ext)"],
            lambda: ["hdesc.pNext = ctypes.addressof(ext)"],
            lambda: [f"off = off + {self.size_expr()}"],
        )
        return forms[self.rng.randrange(len(forms))]()

    def s_thread(self, scope: _Scope) -> list[str]:
        h = self.handle(scope)
        return [
            self.pick(
                (
                    f"th = threading.Thread(target=worker, args=({h},))",
                    "th.start()",
                    "th.join()",
                    f"fut = pool.submit(worker, {h})",
                    "pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)",
                    f"res = list(pool.map(worker, [{h}]))",
                )
            )
        ]

    def s_helper_call(self, scope: _Scope) -> list[str]:
        if not self.callables:
            return self.s_free(scope)
        name, arity = self.callables[self.rng.randrange(len(self.callables))]
        args = ", ".join(
            self.pick(("hctx", self.mem(scope), "n", "flag", "hcl", "cap", "q", "k", "evs", "x", "base + off"))
            for _ in range(arity)
        )
        target = self.pick(("r", self.mem(scope), "x", "evs", "cap"))
        return [f"{target} = {name}({args})" if self.chance(0.6) else f"{name}({args})"]

    def plain(self, scope: _Scope) -> list[str]:
        """A statement with no modelled call: arithmetic, rebinding, containers."""
        v, w = self.mem(scope), self.mem(scope)
        forms = (
            "n = n * (1 if i % 2 == 0 else 2)",
            "off += size",
            "n = n * 2",
            "s = s + s",
            "x = [x]",
            "x = (x, x)",
            f"{self.pick(INTS)} = {self.int_expr()}",
            f"{self.pick(INTS)} += {self.int_expr(1)}",
            "n -= 1",
            "count = count + (1 if p else 0)",
            'x = {"k": x, "n": n}',
            "x = x[0]",
            f"box.append({self.handle(scope)})",
            "box = [box, box]",
            "box = box + box",
            's = f"{s}{n}"',
            "t = (p, t)",
            f"{v} = {w}",
            f"{v}, {w} = {w}, {v}",
            f"{v} = {v} if flag else {w}",
            f"{v} = box[0]",
            f"{v} = box.pop()",
            f"{v} = ctypes.c_void_p({w}.value + off)",
            f"{v} = None",
            "flag = flag and n > m",
            "flag = not flag",
            "done = p is not None or flag",
            "done = zeEventQueryStatus(hev) == ZE_RESULT_SUCCESS",
            "size = size * 2 if flag else size",
            "s += str(n)",
            f"del {self.pick(('x', 'box', 'nat', 't'))}",
            "box = []",
            "evs = []",
            "i = i + 1",
            "n = n % 7 + m",
            f"{self.pick(ANY)} = {self.pick(ANY)}",
            f"cb = lambda: zeMemFree(hctx, {v})",
            "cb()",
            f"box = [{v}, {w}]",
            f"ptrs = [ctypes.c_void_p() for _ in range({self.int_expr(2)})]",
            f"[zeMemFree(hctx, h) for h in box if h is not {v}]",
            f"x = {self.int_expr()}",
            "s = s * 2",
            "x = x, n",
        )
        return [self.pick(forms)]

    def simple(self, scope: _Scope) -> list[str]:
        return self.modelled(scope) if self.chance(0.55) else self.plain(scope)

    # -- compound statements --------------------------------------------------------
    def block(self, scope: _Scope, budget: int, first_modelled: bool = False) -> list[str]:
        """Statements for a body of about `budget` statements, indented for `scope` (never empty)."""
        out: list[str] = []
        pad = "    " * scope.indent
        if first_modelled:
            out += [pad + s for s in self.modelled(scope)]
            budget -= 1
        count = self.rng.randint(1, max(1, budget)) if budget > 0 else 0
        used = 0
        while used < count:
            left = count - used
            kind = self.rng.randrange(20)
            if kind < 9 or scope.depth >= self.MAX_DEPTH or left < 2:
                jump = self.jump(scope) if kind == 8 else None
                out += [pad + s for s in (jump or self.simple(scope))]
                used += 1
                continue
            sub = self.rng.randint(1, min(left - 1, 8))
            out += self.compound(scope, sub)
            used += sub + 1
        if not out:
            out.append(pad + "pass")
        return out

    def jump(self, scope: _Scope) -> list[str] | None:
        """break / continue / return / raise where they are allowed, under a condition or not."""
        options = []
        if scope.loops:
            options += ["break", "continue"]
        if scope.function:
            options += [
                "return",
                "return p",
                "return n",
                "return t, cap",
                f"return {self.mem(scope)} if flag else None",
            ]
        options.append('raise ZeError("failed")')
        stmt = self.pick(options)
        if self.chance(0.6):
            pad = "    "
            return [f"if {self.cond(scope=scope)}:", pad + stmt]
        return [stmt]

    def compound(self, scope: _Scope, budget: int) -> list[str]:
        pad = "    " * scope.indent
        inner = scope.inner()
        loop = scope.inner(loop=True)
        kind = self.rng.randrange(13)
        if kind == 0:  # if / elif / else
            out = [f"{pad}if {self.cond(scope=scope)}:", *self.block(inner, budget)]
            if self.chance(0.3):
                out += [f"{pad}elif {self.cond(scope=scope)}:", *self.block(inner, max(1, budget // 2))]
            if self.chance(0.5):
                out += [f"{pad}else:", *self.block(inner, max(1, budget // 2))]
            return out
        if kind == 1:  # for over a range
            var = self.pick(("i", "j", "_"))
            head = self.pick(("range(5)", "range(n)", f"range({self.int_expr(2)})", "range(1, m, 2)"))
            out = [f"{pad}for {var} in {head}:", *self.block(loop, budget)]
            if self.chance(0.2):
                out += [f"{pad}else:", *self.block(inner, 1)]
            return out
        if kind == 2:  # for over a list of handles
            var = self.pick(("h", self.mem(scope), "item", "ev"))
            head = self.pick(("items", "[p, p2]", "box", "evs", "list(box)", "ptrs", "reversed(box)", "[hev, hev2]"))
            if self.chance(0.3):
                return [f"{pad}for i, {var} in enumerate({head}):", *self.block(loop, budget)]
            return [f"{pad}for {var} in {head}:", *self.block(loop, budget)]
        if kind == 3:  # while with a counter
            c = self.pick(("j", "count", "i"))
            return [
                f"{pad}{c} = 0",
                f"{pad}while {c} < {self.pick(('n', 'm', '10', 'len(items)'))}:",
                f"{pad}    {c} += 1",
                *self.block(loop, budget),
            ]
        if kind == 4:  # while True with a break under a condition
            body = self.block(loop, budget)
            return [f"{pad}while True:", *body, f"{pad}    if {self.cond(scope=scope)}:", f"{pad}        break"]
        if kind == 5:  # while over a work list
            return [
                f"{pad}while {self.pick(('box', 'pending', 'evs'))}:",
                f"{pad}    {self.pick(('h', 'p', 'ev'))} = {self.pick(('box', 'pending', 'evs'))}.pop()",
                *self.block(loop, budget),
            ]
        if kind == 6:  # try / except / else / finally
            out = [f"{pad}try:", *self.block(inner, budget)]
            handlers = self.rng.randrange(3)
            for _ in range(handlers):
                exc = self.pick(("ZeError", "Exception", "(OSError, ValueError)", "RuntimeError as exc"))
                out += [f"{pad}except {exc}:", *self.block(inner, max(1, budget // 2))]
            if handlers and self.chance(0.3):
                out += [f"{pad}else:", *self.block(inner, 1)]
            if not handlers or self.chance(0.4):
                out += [f"{pad}finally:", *self.block(inner, max(1, budget // 2))]
            return out
        if kind == 7:  # with
            head = self.pick(
                (
                    "LOCK",
                    "concurrent.futures.ThreadPoolExecutor() as pool",
                    "mmap.mmap(-1, 4 * PAGE) as buf",
                    'dpctl.device_context("level_zero:gpu")',
                    "open(path, 'rb') as fh",
                    "LOCK, mmap.mmap(-1, n * PAGE) as ring",
                )
            )
            return [f"{pad}with {head}:", *self.block(inner, budget)]
        if kind == 8:  # nested loops
            half = max(1, budget // 2)
            return [
                f"{pad}for i in range({self.pick(('5', 'n', '3'))}):",
                f"{pad}    for j in {self.pick(('range(i)', 'range(m)', 'items', 'box'))}:",
                *self.block(loop.inner(loop=True), half),
                *self.block(loop, budget - half),
            ]
        if kind == 9:  # match
            out = [f"{pad}match {self.pick(('n', 'kind', 'flag'))}:"]
            cases = self.rng.sample(("0", '"host" | "shared"', "1", "None", "_"), self.rng.randint(1, 3))
            for case in sorted(cases, key=lambda c: c == "_"):  # a wildcard must come last
                out += [f"{pad}    case {case}:", *self.block(inner.inner(), max(1, budget // 2))]
            return out
        if kind == 10:  # a nested function, then a call of it or a thread running it
            name = self.fresh("inner")
            fscope = _Scope(scope.indent + 1, 0, True, False, scope.depth + 1)
            out = [f"{pad}def {name}({self.pick(('', 'h', 'h, n'))}):", *self.block(fscope, budget)]
            call = self.pick((f"{name}(p)", f"th = threading.Thread(target={name}, args=(p,))", f"r = {name}(hev)"))
            return [*out, pad + call]
        if kind == 11:  # the shape: a loop that grows a value through an if-expression
            return [
                f"{pad}for i in range({self.pick(('5', 'n', '10'))}):",
                f"{pad}    n = n * (1 if i % 2 == 0 else 2)",
                f"{pad}    if n > m:",
                f"{pad}        break",
                *self.block(loop, budget),
            ]
        # a loop that maps consecutive pages of a buffer
        return [
            f"{pad}off = 0",
            f"{pad}for i in range({self.pick(('4', 'n', 'npages'))}):",
            f"{pad}    {self.mem(scope)} = map_range(hctx, base + {self.pick(('off', 'i * PAGE'))}, {self.pick(('PAGE', 'size'))})",
            f"{pad}    off += {self.pick(('size', 'PAGE', '2 * PAGE'))}",
            *self.block(loop, budget),
        ]

    # -- module --------------------------------------------------------------------
    def function(self, name: str, budget: int, method: bool = False) -> list[str]:
        count = self.rng.randint(1, 8)
        params = self.rng.sample(PARAMS, count)
        if method:
            params.insert(0, "self")
        if self.chance(0.2):
            default = self.pick(("n=4", "flag=False", "kind=None"))
            if default.split("=")[0] not in params:
                params.append(default)
        pad = "    " if method else ""
        scope = _Scope(2 if method else 1, 0, True, method, 0)
        head = [f"{pad}def {name}({', '.join(params)}):"]
        return head + self.block(scope, budget, first_modelled=True)

    def module(self) -> str:
        out = [HEADER.rstrip("\n")]
        library = list(LIBRARY)
        chosen = self.rng.sample(range(len(library)), self.rng.randint(1, len(library)))
        for index in sorted(chosen):
            name, arity, text = library[index]
            out += ["", "", text.rstrip("\n")]
            self.callables.append((name, arity))
        if self.chance(0.3):  # module-level statements (the module body is analysed too)
            scope = _Scope(0, 0, False, False, 1)
            out += ["", "", *self.block(scope, self.rng.randint(1, 4), first_modelled=True)]
        functions = self.rng.randint(1, 3)
        budgets = [max(1, self.size // functions)] * functions
        for index, budget in enumerate(budgets):
            name = f"f{index}"
            arity = self.rng.randint(1, 4)
            # generated functions may call each other (and themselves)
            self.callables.append((name, arity))
            out += ["", "", *self.function(name, budget)]
        if self.chance(0.25):
            out += [
                "",
                "",
                "class Arena:",
                "    def __init__(self, hctx, n):",
                "        self.hctx = hctx",
                "        self.ptr = ctypes.c_void_p()",
                "        zeMemAllocHost(hctx, ctypes.byref(hdesc), n, 64, ctypes.byref(self.ptr))",
                "",
                "    def release(self):",
                "        zeMemFree(self.hctx, self.ptr)",
                "",
                *self.function("grow", max(1, self.size // 3), method=True),
            ]
        return "\n".join(out) + "\n"


def function_source(rng: random.Random, size: int = 40) -> str:
    """A whole module (imports, helpers, one to three generated functions of
    about `size` statements in all); the same draws from `rng` give the same text."""
    source = _Gen(rng, size).module()
    compile(source, "<generated>", "exec")  # the generator's own check: always valid Python
    return source


def main() -> None:  # pragma: no cover - a manual look at a few programs
    import argparse

    parser = argparse.ArgumentParser(description="print generated programs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=40)
    args = parser.parse_args()
    print(function_source(random.Random(args.seed), args.size))


if __name__ == "__main__":  # pragma: no cover
    main()
