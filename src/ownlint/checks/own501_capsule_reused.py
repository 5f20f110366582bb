"""OWN501 capsule-reused."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN501",
    name="capsule-reused",
    severity="error",
    summary="A DLPack or dpctl capsule is consumed a second time.",
    what_it_does="""
Reports a second consumption, on some path, of a PyCapsule made by
`x.__dlpack__(...)`, `to_dlpack(x)` or a dpctl `obj._get_capsule()`: passing
it to `from_dlpack` (torch, cupy, tensorflow, `dpctl.tensor`, `dpnp.tensor`,
any `*.from_dlpack`) or to `dpctl.SyclQueue` / `SyclContext` / `SyclEvent`
after an earlier consumer took it, including the same consumption inside a
loop that may run twice.
""",
    why_bad="""
A capsule may be consumed exactly once: the consumer takes ownership of the
tensor or queue it carries and renames the capsule (`"dltensor"` becomes
`"used_dltensor"`, `"SyclQueueRef"` becomes `"used_SyclQueueRef"`). The
second consumer finds the used name and raises at run time.
""",
    invalid=(
        """
import torch.utils.dlpack


def mirror(x):
    cap = x.__dlpack__()
    weights = torch.utils.dlpack.from_dlpack(cap)
    grads = torch.utils.dlpack.from_dlpack(cap)  # E: OWN501
    return weights, grads
""",
    ),
    valid=(
        """
import torch.utils.dlpack


def mirror(x):
    weights = torch.utils.dlpack.from_dlpack(x)  # from_dlpack asks x for a fresh capsule each time
    grads = torch.utils.dlpack.from_dlpack(x)
    return weights, grads
""",
    ),
    known_limits="""
Only the consumers listed above count: some libraries copy a dpctl queue and
leave the capsule's name alone. `from_dlpack(obj)` on an object rather than a
capsule calls `obj.__dlpack__()` itself and may be repeated freely. A capsule
passed to any other call is not assumed consumed.
""",
    references="DLPack exchange protocol (capsule names `dltensor` / `used_dltensor`); dpctl `_get_capsule`.",
    runtime="yes: the second `dpctl.SyclQueue(capsule)` raises `TypeError` on the `used_SyclQueueRef` capsule (`runtime/examples/own501_invalid.py`)",
    cwe=(415,),
    security_severity=7.5,
)


def describe(v: Violation) -> tuple[str, str, str]:
    h = f"capsule `{v.handle}`" if v.handle else "the capsule"
    return (
        f"{h} is consumed a second time; the first consumer already took it{via_suffix(v)}",
        "consumed again here",
        "make a fresh capsule for each consumer (`x.__dlpack__()` again), or pass the array itself to `from_dlpack`",
    )


CHECK = Check(RULE, describe)
