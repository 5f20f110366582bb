"""Threads and host tasks (OWN402, OWN403): native values that cross into
code running elsewhere, or outlive the code they were lent to.

The family keeps its own facts of objects (events.Findings.fact), from the
generic events alone:

- the value of a call of a `[host-task]` `native-mem-methods` method
  (`ih.get_native_mem(acc)`) is `NATIVE_MEM`, valid only while the host task
  runs: stored where it outlives the function (`Stored`: an attribute, a
  global, a container made outside, a `return` or `yield`) it is OWN402;
- the value of a `[threads]` `executor-constructors` call
  (`ThreadPoolExecutor()`) is `EXECUTOR`;
- a handle lent by a borrow whose model says `thread-safe` is `THREAD_SAFE`.

Before a call runs (`CallPre`), the values it hands to another thread or
process are looked at: the `argument-keywords` arguments of a
`thread-constructors` call (`Thread(target=f, args=(h,))`), and every
argument but the first of an `executor-methods` method of an executor
(`ex.submit(f, h)`). A handle the runtime owns there (transferred to an
owner, or borrowed from one that is not host memory, and not thread-safe)
is OWN403.

Known limits: a host task is the function that calls a native-memory
method; a helper it calls with the pointer is not followed. An executor is
known only where this function made it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ownlint.engine.events import Borrowed, CallPost, CallPre, Checker, Facts, Findings, Stored
from ownlint.engine.values.memvalues import is_buffer_tag
from ownlint.engine.values.state import BORROWED, TRANSFERRED
from ownlint.engine.values.values import Obj, Val, objects_in


@dataclass(frozen=True, slots=True)
class NativeMem:
    """A pointer to memory a host task may use only while it runs."""


@dataclass(frozen=True, slots=True)
class Executor:
    """A thread or process pool: what its methods are given runs elsewhere."""


@dataclass(frozen=True, slots=True)
class ThreadSafe:
    """A handle its API lets any thread use."""


NATIVE_MEM = NativeMem()
EXECUTOR = Executor()
THREAD_SAFE = ThreadSafe()


class ThreadsChecker(Checker):
    def on_call_pre(self, e: CallPre, out: Findings) -> None:
        threads = out.models.threads
        if e.callee in threads.thread_constructors:
            for a, v in e.args:
                if a.keyword is not None and a.keyword.value in threads.argument_keywords:
                    _to_thread(e, v, e.callee, out)
            return
        last = e.callee.rpartition(".")[2]
        if e.method and last in threads.executor_methods:
            objs = objects_in(e.receiver)
            if len(objs) == 1 and type(out.fact(objs[0])) is Executor:
                for _, v in e.args[1:]:
                    _to_thread(e, v, f"executor.{last}", out)

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        if e.callee in out.models.threads.executor_constructors:
            out.set_fact(out.result_object(e.node, "the executor is made here"), EXECUTOR)
        elif e.method and e.callee.rpartition(".")[2] in out.models.host_task.native_mem_methods:
            out.set_fact(out.result_object(e.node, "the native memory pointer is taken here"), NATIVE_MEM)

    def on_borrowed(self, e: Borrowed, out: Findings) -> None:
        handle = e.handle
        if e.borrow.thread_safe and isinstance(handle, Obj) and handle != e.owner_state.owner:
            out.set_fact(handle, THREAD_SAFE)

    def on_stored(self, e: Stored, out: Findings) -> None:
        if type(out.fact(e.obj)) is NativeMem:  # OWN402: a host task's native pointer outlives it
            out.report("OWN402", e.node, None, (("where", e.where),), obj=e.obj)


def _to_thread(e: CallPre, value: Val, api: str, out: Findings) -> None:
    """`value` handed to another thread or process by `api`: OWN403 for each
    runtime-owned handle in it (transferred, or borrowed from an owner that
    is not host memory) that its model does not let cross threads."""
    for obj in dict.fromkeys(objects_in(value)):
        state = out.state(obj)
        if state is None or state.reported or state.kind not in (TRANSFERRED, BORROWED):
            continue
        if type(out.fact(obj)) is ThreadSafe:
            continue
        owner = out.state(state.owner) if state.owner is not None else None
        if owner is not None and is_buffer_tag(owner.tag):
            continue
        facts: Facts = (("api", api),)
        if owner is not None and owner.tag and owner.tag != "keep":  # the owner's kind, as its model names it
            facts += (("owner", owner.tag),)
        if state.kind == TRANSFERRED:
            facts += (("transferred", "yes"),)
        out.report("OWN403", e.node, None, facts, obj=obj)
