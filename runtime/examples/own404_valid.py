"""OWN404 fixed: the event is waited before the memory the kernel fills is released."""

import ctypes

import dpctl
import dpctl.memory
import dpctl.program

SOURCE = """
__kernel void spin_fill(__global int *out, int value, int spins) {
    volatile int acc = 0;  /* volatile: the loop is not folded away */
    for (int k = 0; k < spins; ++k) acc = acc * 1103515245 + 12345;
    out[get_global_id(0)] = value + (acc == 42);
}
"""
N = 256
SPINS = 2_000_000

q = dpctl.SyclQueue()
kernel = dpctl.program.create_program_from_source(q, SOURCE).get_sycl_kernel("spin_fill")
buf = dpctl.memory.MemoryUSMDevice(4 * N, queue=q)
ev = q.submit_async(kernel, [buf, ctypes.c_int(7), ctypes.c_int(SPINS)], [N])
ev.wait()
result = buf.copy_to_host()
del buf
assert set(result[::4]) == {7}, set(result[::4])
print("filled with 7:", ev.execution_status.name)
