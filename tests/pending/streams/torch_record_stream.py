"""OWN404 with a PyTorch tensor used on a side stream (the caching-allocator hazard that
`torch.Tensor.record_stream` exists for, as in PyTorch's CUDA semantics notes and CuPy/TensorRT
samples that hand torch tensors to side streams). `x` is allocated on the current stream; a
kernel queued on `side` reads it; `del x` returns its block to the caching allocator for the
current stream at once, so the next allocation there can reuse it while `side` still reads.

Proof: the tensor is an owner (rules/torch.toml), used in work queued under
`torch.cuda.stream(side)`, and deleted before `side` is synchronized, with no
`x.record_stream(side)`. RULES.md "Asynchronous work keeps its arguments"
("`torch.Tensor.record_stream` keeps a tensor for its stream"); reported at the `del`. The clean
look-alike is tests/fixtures/streams/torch_record_stream_kept.py."""
import torch


def side_stream_then_del(n):
    side = torch.cuda.Stream()
    x = torch.empty(n, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = x * 2
    del x  # E: OWN404
    side.synchronize()
    return y
