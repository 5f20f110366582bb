"""OWN205: tests that build a graph, a stream and an executable graph and
free only the memory (`test_cudart_cudaGraphAddMemcpyNode1D`), or whose
"clean up" ends a capture, which *creates* a graph, and destroys neither it
nor the stream (`test_cudart_cudaStreamGetCaptureInfo`). Both fall off their
end; the findings are on the last statement.

Source: leofang/cuda-python, cuda_bindings/tests/test_cudart.py,
`test_cudart_cudaGraphAddMemcpyNode1D` and `test_cudart_cudaStreamGetCaptureInfo`
(reduced: host arrays and some status checks removed).
"""
import numpy as np

from cuda.bindings import runtime as cudart


def assertSuccess(err):
    assert err == cudart.cudaError_t.cudaSuccess


def test_cudart_cudaGraphAddMemcpyNode1D():
    size = 1024
    err, dptr = cudart.cudaMalloc(size)
    assertSuccess(err)
    h1 = np.full(size, 1).astype(np.uint8)
    h2 = np.full(size, 2).astype(np.uint8)

    err, graph = cudart.cudaGraphCreate(0)
    assertSuccess(err)
    kind = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
    err, h_to_d = cudart.cudaGraphAddMemcpyNode1D(graph, [], 0, dptr, h1, size, kind)
    assertSuccess(err)
    kind = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost
    err, d_to_h = cudart.cudaGraphAddMemcpyNode1D(graph, [h_to_d], 1, h2, dptr, size, kind)
    assertSuccess(err)

    err, stream = cudart.cudaStreamCreate()
    assertSuccess(err)
    err, exec_graph = cudart.cudaGraphInstantiate(graph, 0)
    assertSuccess(err)
    (err,) = cudart.cudaGraphLaunch(exec_graph, stream)
    (err,) = cudart.cudaStreamSynchronize(stream)
    assertSuccess(err)

    # clean up
    (err,) = cudart.cudaFree(dptr)
    assertSuccess(err)  # E: OWN205


def test_cudart_cudaStreamGetCaptureInfo():
    err, stream = cudart.cudaStreamCreate()
    assertSuccess(err)
    mode = cudart.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal
    (err,) = cudart.cudaStreamBeginCapture(stream, mode)
    assertSuccess(err)
    err, status, *info = cudart.cudaStreamGetCaptureInfo(stream)
    assertSuccess(err)

    # clean up
    err, pgraph = cudart.cudaStreamEndCapture(stream)
    assertSuccess(err)  # E: OWN205
