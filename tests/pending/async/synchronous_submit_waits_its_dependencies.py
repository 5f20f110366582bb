"""Clean: dpctl's `q.submit(kernel, args, gS, lS, dEvents=[ev1])` is synchronous
(`submit_async` then `e.wait()`, dpctl/_sycl_queue.pyx `SyclQueue.submit`): when it
returns, its kernel and every event it depended on are complete, so memory an earlier
`memcpy_async` (ev1) reads is no longer in flight. Reduced from dpctl's
tests/test_raw_kernel_arg.py (`test_submit_raw_kernel_arg`) and test_sycl_program.py,
test_work_group_memory.py, test_work_group_memory_opencl.py: five false OWN404 found
running ownlint on dpctl once it followed functions that fall off their end.

Needs: the models to say `submit` waits the event it makes (and so what that event
waited for); the bug look-alike keeps the asynchronous spelling."""

import dpctl
import dpctl.memory as dpm
import numpy as np


def test_submit_after_async_copy(q, kernel, n):
    x = np.ones(n, dtype="i4")
    y = np.zeros_like(x)
    x_usm = dpm.MemoryUSMDevice(x.nbytes, queue=q)
    y_usm = dpm.MemoryUSMDevice(y.nbytes, queue=q)
    ev1 = q.memcpy_async(dest=x_usm, src=x, count=x.nbytes)
    ev2 = q.submit(kernel, [x_usm, y_usm], [n], [n], dEvents=[ev1])
    ev3 = q.memcpy_async(dest=y, src=y_usm, count=y.nbytes, dEvents=[ev2])
    ev3.wait()
    assert np.all(y == 9)


def test_submit_async_after_async_copy(q, kernel, n):
    x = np.ones(n, dtype="i4")
    x_usm = dpm.MemoryUSMDevice(x.nbytes, queue=q)
    ev1 = q.memcpy_async(dest=x_usm, src=x, count=x.nbytes)
    q.submit_async(kernel, [x_usm], [n], [n], dEvents=[ev1])
    print(n)  # E: OWN404
