"""Clean: a stream destroyed on the failure branch of a status test, then an assert of success
before the stream is used (cuda-python's cuda_bindings/tests/test_cuda.py, test_cuda_graphMem_attr,
reduced; the style of the whole test suite). `err` is unchanged between
`if err == CUDA_ERROR_OUT_OF_MEMORY:` and `assert err == CUDA_SUCCESS`; on the path through the
destroys, err is CUDA_ERROR_OUT_OF_MEMORY, so the assert fails and the later uses are not
reached (xfail_if_mempool_oom, from cuda/bindings/_test_helpers/mempool.py, raises too, but
ownlint need not know it). A false OWN203 (the stream's use in cuGraphLaunch) and a false OWN201
(the graph's second destroy) today.

Why clean: comparisons of an unchanged local with constants are correlated with later tests of
the same local, and two different constant names of one enum are different values (RULES.md
"paths": "Branches on the same unchanged local condition are correlated"; issue 32 point 8:
`x == C`, `x != C`, `x in (...)`, `assert`). The bug look-alike (no assert, so the destroyed
stream is used on the OOM path) is tests/fixtures/correlation/oom_destroy_then_use.py."""
import cuda.bindings.driver as cuda

from cuda.bindings._test_helpers.mempool import xfail_if_mempool_oom


def test_cuda_graphMem_attr(device, params):
    err, stream = cuda.cuStreamCreate(0)
    assert err == cuda.CUresult.CUDA_SUCCESS
    err, graph = cuda.cuGraphCreate(0)
    assert err == cuda.CUresult.CUDA_SUCCESS

    err, allocNode = cuda.cuGraphAddMemAllocNode(graph, None, 0, params)
    if err == cuda.CUresult.CUDA_ERROR_OUT_OF_MEMORY:
        (destroy_err,) = cuda.cuGraphDestroy(graph)
        assert destroy_err == cuda.CUresult.CUDA_SUCCESS
        (destroy_err,) = cuda.cuStreamDestroy(stream)
        assert destroy_err == cuda.CUresult.CUDA_SUCCESS
        xfail_if_mempool_oom(err, "cuGraphAddMemAllocNode", device)
    assert err == cuda.CUresult.CUDA_SUCCESS

    err, graphExec = cuda.cuGraphInstantiate(graph, 0)
    assert err == cuda.CUresult.CUDA_SUCCESS
    (err,) = cuda.cuGraphLaunch(graphExec, stream)
    assert err == cuda.CUresult.CUDA_SUCCESS
    (err,) = cuda.cuStreamSynchronize(stream)
    assert err == cuda.CUresult.CUDA_SUCCESS

    (err,) = cuda.cuGraphExecDestroy(graphExec)
    assert err == cuda.CUresult.CUDA_SUCCESS
    (err,) = cuda.cuGraphDestroy(graph)
    assert err == cuda.CUresult.CUDA_SUCCESS
    (err,) = cuda.cuStreamDestroy(stream)
    assert err == cuda.CUresult.CUDA_SUCCESS


def membership_then_success(params):
    """`x in (...)`, `x != C` and `x == C` on the same unchanged status: the stream is destroyed
    on each error path and used (then destroyed) only when err is success."""
    err, stream = cuda.cuStreamCreate(0)
    assert err == cuda.CUresult.CUDA_SUCCESS
    err, graph = cuda.cuGraphCreate(0)
    assert err == cuda.CUresult.CUDA_SUCCESS
    err, node = cuda.cuGraphAddMemAllocNode(graph, None, 0, params)
    if err in (cuda.CUresult.CUDA_ERROR_OUT_OF_MEMORY, cuda.CUresult.CUDA_ERROR_NOT_SUPPORTED):
        (destroy_err,) = cuda.cuStreamDestroy(stream)
    elif err != cuda.CUresult.CUDA_SUCCESS:
        (destroy_err,) = cuda.cuStreamDestroy(stream)
    if err == cuda.CUresult.CUDA_SUCCESS:
        (sync_err,) = cuda.cuStreamSynchronize(stream)
        (destroy_err,) = cuda.cuStreamDestroy(stream)
    (destroy_err,) = cuda.cuGraphDestroy(graph)
    return err
