"""Pending (rules/CUDA-NEEDS.md, feature 7): a pointer borrowed from a live
PyTorch tensor (`t.data_ptr()`) may be handed to another thread: CUDA
handles are thread-safe, unlike the Level Zero handles OWN403 is about. This
clean program gets a false OWN403 today (rules/torch.toml's [[borrow]]).

Runnable on a GPU: gpu/run_cuda_examples.py calls each `clean_*` function in
its own process and records what the runtime returns.
"""
import threading

import torch
from cuda.bindings import runtime

N = 1 << 20


def _fill(p, results):
    (err,) = runtime.cudaMemset(p, 2, N)
    runtime.cudaDeviceSynchronize()
    results.append(err)


def clean_data_ptr_to_a_thread():
    t = torch.zeros(N, dtype=torch.uint8, device="cuda")
    results = []
    worker = threading.Thread(target=_fill, args=(t.data_ptr(), results))
    worker.start()
    worker.join()
    return results, int(t.sum().item())
