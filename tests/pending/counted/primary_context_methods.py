"""OWN201: a primary context retained in one method and released in another, where the release
can run without the retain (issue 32, "Counted handles across methods"; the retain/release pair
of cuda-python's cuda_bindings/tests/test_cufile.py `ctx` fixture, and of
cuda_bindings/examples' device setup, moved into a wrapper class as tinygrad's and numba's
device objects hold theirs). open() retains the device's primary context, close() releases it
by device; close() is reached on the path where open() did not run (the `lazy` branch), or a
second time.

Proof: the release is keyed by `self.dev` and counted (rules/cuda_driver.toml
cuDevicePrimaryCtxRetain: `key = 0`, `counted = true`); on the path through `if not lazy` false,
no retain with that key precedes the release; on the second path, two releases follow one
retain. RULES.md "Counted handles ... are counted across the methods of one object: a release
reachable without a matching retain is OWN201"; reported at the release (the close() call). The
clean look-alike is tests/fixtures/counted/primary_context_paired.py."""
from cuda.bindings import driver


class Device:
    def __init__(self, ordinal):
        err, self.dev = driver.cuDeviceGet(ordinal)
        self.ctx = None

    def open(self):
        err, self.ctx = driver.cuDevicePrimaryCtxRetain(self.dev)
        (err,) = driver.cuCtxSetCurrent(self.ctx)

    def close(self):
        (err,) = driver.cuDevicePrimaryCtxRelease(self.dev)


def run(lazy):
    (err,) = driver.cuInit(0)
    device = Device(0)
    if not lazy:
        device.open()
    device.close()  # E: OWN201


def close_twice():
    (err,) = driver.cuInit(0)
    device = Device(0)
    device.open()
    device.close()
    device.close()  # E: OWN201
