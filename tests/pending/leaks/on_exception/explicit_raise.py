"""OWN206 (preview, OWN206 selected): the input buffer is handed off (stored
and returned) on the normal path, but when the second allocation fails the
explicit `raise` leaves the first one allocated and unreachable. The
`raise` after the first allocation is not a leak point: its allocation
failed, so nothing was made.

Source: NVIDIA/TensorRT, quickstart/IntroNotebooks/onnx_helper.py,
`ONNXClassifierWrapper.allocate_memory` (reduced: locals instead of fields,
returned instead of registered with the finalizer).
"""
from cuda.bindings import runtime as cudart


def allocate_memory(batch_nbytes, output_nbytes):
    err, d_input = cudart.cudaMalloc(batch_nbytes)
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"Failed to allocate input memory: {err}")

    err, d_output = cudart.cudaMalloc(output_nbytes)
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"Failed to allocate output memory: {err}")  # E: OWN206

    return d_input, d_output
