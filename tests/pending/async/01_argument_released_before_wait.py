"""OWN404: a memory object passed to an asynchronous submission is released while the
submission may still run (issue 23, point 3). q.submit_async(...) and q.memcpy_async(...) return
an event at once (API.md section 4, "Asynchronous submission"); the USM memory in their arguments
must live until that event, or a later one depending on it, is waited, or be handed to
q._submit_keep_args_alive. Proof: on the straight-line path the argument's last local reference
is deleted or rebound (in a loop: by the next iteration's assignment, the loop may run twice),
or its owner's scope ends at a `return`, before any wait and with no
keep-alive (RULES.md OWN404; reported at the del/rebind, or at the return)."""
import dpctl
import dpctl.memory
import dpctl.program
import dpctl.tensor as dpt


def del_before_wait(q, kernel, n):
    buf = dpctl.memory.MemoryUSMDevice(n * 4, queue=q)
    ev = q.submit_async(kernel, [buf], [n])
    del buf  # E: OWN404
    ev.wait()


def rebound_source_in_loop(q, dst, chunks, nbytes):
    events = []
    for chunk in chunks:
        src = dpctl.memory.MemoryUSMHost(nbytes, queue=q)  # E: OWN404
        src.copy_from_host(chunk)
        events.append(q.memcpy_async(dst, src, nbytes))
    dpctl.SyclEvent.wait_for(events)


def returns_unwaited_event(q, kernel, n):
    tmp = dpt.empty(n, dtype="f4", sycl_queue=q)
    ev = q.submit_async(kernel, [tmp, n], [n])
    return ev  # E: OWN404


def rebound_before_wait(q, dst, host_bytes, nbytes):
    src = dpctl.memory.MemoryUSMShared(nbytes, queue=q)
    src.copy_from_host(host_bytes)
    ev = q.memcpy_async(dst, src, nbytes)
    src = None  # E: OWN404
    ev.wait()


def freed_on_error_path(q, kernel, n, check):
    buf = dpctl.memory.MemoryUSMDevice(n * 4, queue=q)
    ev = q.submit_async(kernel, [buf], [n])
    if not check(n):
        del buf  # E: OWN404
        raise ValueError(n)
    ev.wait()
