"""Issue 22 point 2 (objects): `Device` builds a private queue on an explicitly created context; the capsule its method exports is consumed twice by the caller (OWN501 at the second consumption), and an array it allocates on that queue is exported through DLPack (OWN502 at the export)."""
import dpctl
import dpctl.tensor as dpt
import torch


class Device:
    def __init__(self, dev):
        self._ctx = dpctl.SyclContext(dev)
        self._q = dpctl.SyclQueue(self._ctx, dev)

    def queue_capsule(self):
        return self._q._get_capsule()

    def empty(self, n):
        return dpt.empty(n, dtype="f4", sycl_queue=self._q)


def share_queue(dev):
    d = Device(dev)
    cap = d.queue_capsule()
    q1 = dpctl.SyclQueue(cap)
    q2 = dpctl.SyclQueue(cap)  # E: OWN501
    return q1, q2


def to_torch(dev, n):
    d = Device(dev)
    x = d.empty(n)
    return torch.from_dlpack(x)  # E: OWN502
