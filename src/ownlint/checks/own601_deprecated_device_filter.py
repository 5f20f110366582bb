"""OWN601 deprecated-device-filter."""

from ownlint.checks.base import Check
from ownlint.diagnostics import Edit, Fix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN601",
    name="deprecated-device-filter",
    severity="warning",
    summary="`SYCL_DEVICE_FILTER` is set or read; it is deprecated in favour of `ONEAPI_DEVICE_SELECTOR`.",
    what_it_does="""
Reports setting or reading the `SYCL_DEVICE_FILTER` environment variable:
`os.environ[...] = `, a read `os.environ[...]`, `os.environ.get`,
`os.environ.setdefault`, `os.environ.update({...})`, `os.getenv`,
`os.putenv`, `"SYCL_DEVICE_FILTER" in os.environ`, and the key of a dict
given as `env=` to `subprocess` or `os.exec*e` (at the key, or at the item
assignment `env["SYCL_DEVICE_FILTER"] = ...`). The name may be a literal or a
constant bound to one.
""",
    why_bad="""
`SYCL_DEVICE_FILTER` is the deprecated name of the device selection variable:
the oneAPI runtime warns about it, and releases that have dropped it ignore
it, so the program silently runs on a different device than intended.
`ONEAPI_DEVICE_SELECTOR` replaces it, with its own syntax (`level_zero:gpu`,
`level_zero:0`, `level_zero:*`).
""",
    invalid=(
        """
import os

os.environ["SYCL_DEVICE_FILTER"] = "level_zero:gpu"  # E: OWN601

import dpctl


def default_queue():
    return dpctl.SyclQueue()
""",
        """
import os


def selected_devices():
    return os.environ.get("SYCL_DEVICE_FILTER", "")  # E: OWN601
""",
    ),
    valid=(
        """
import os

os.environ["ONEAPI_DEVICE_SELECTOR"] = "level_zero:gpu"

import dpctl


def default_queue():
    return dpctl.SyclQueue()
""",
        """
import os


def selected_devices():
    return os.environ.get("ONEAPI_DEVICE_SELECTOR", "")
""",
    ),
    known_limits="""
Removing the variable (`os.environ.pop(...)`, `del os.environ[...]`,
`os.unsetenv`) is not reported, even though `pop` returns the value. A name
built at run time is not recognised. A fix is offered where the key and the
value are literals: it is safe (`ownlint check --fix`) when the selector has
an exact `ONEAPI_DEVICE_SELECTOR` equivalent (`level_zero:gpu`, `level_zero`
-> `level_zero:*`), unsafe (`--unsafe-fixes`) for `level_zero:gpu:N` ->
`level_zero:N`, whose device numbering may differ.
""",
    references="oneAPI DPC++ environment variables (`ONEAPI_DEVICE_SELECTOR`).",
    runtime="yes: the runtime ignores it without a word and selects a device it excluded (`runtime/examples/own601_invalid.py`)",
    cwe=(477,),
    security_severity=2.0,
)

_HOW = {
    "set": ("is set", "set here", "set `ONEAPI_DEVICE_SELECTOR` instead"),
    "read": ("is read", "read here", "read `ONEAPI_DEVICE_SELECTOR` instead"),
    "env": (
        "is passed in a child process's environment",
        "passed to a child process here",
        "put `ONEAPI_DEVICE_SELECTOR` in the child's environment instead",
    ),
}


def describe(v: Violation) -> tuple[str, str, str]:
    what, label, fix = _HOW.get(v.fact("how"), ("is used", "used here", "use `ONEAPI_DEVICE_SELECTOR` instead"))
    return (
        f"`SYCL_DEVICE_FILTER` {what}; it is deprecated and replaced by `ONEAPI_DEVICE_SELECTOR`",
        label,
        f"{fix}, translating the value to its syntax (e.g. `level_zero:gpu`, `level_zero:0`)",
    )


def fix(v: Violation) -> Fix | None:
    """Rename the variable and translate a literal selector: safe where the new
    syntax means exactly the same devices (`level_zero:gpu`), unsafe where device
    numbering may differ (`level_zero:gpu:1` -> `level_zero:1`)."""
    if not v.edits:
        return None
    return Fix(
        applicability="safe" if v.fix_safe else "unsafe",
        message="use `ONEAPI_DEVICE_SELECTOR` with the equivalent selector",
        edits=tuple(Edit(span, text) for span, text in v.edits),
    )


CHECK = Check(RULE, describe, fix)
