"""The rules' harm, shown on a real SYCL runtime (docs/runtime.md).

Each example in runtime/examples/ runs in its own interpreter, on dpctl with
Intel's OpenCL CPU runtime (.ci/runtime.sh sets it up: `OCL_ICD_FILENAMES`,
`LD_LIBRARY_PATH`). An `ownNNN_invalid*.py` must fail the way its rule's text
says; its `ownNNN_valid*.py` fix must run clean. Not part of the main suite
(tests/ runs without dpctl); tests/test_runtime_examples.py checks the same
examples statically.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent / "examples"
TIMEOUT = 120


# device selection is the examples' own business (OWN601)
SELECTION = ("SYCL_DEVICE_FILTER", "ONEAPI_DEVICE_SELECTOR")


def run(name: str) -> subprocess.CompletedProcess[str]:
    """Run one example with this interpreter; its stdout and stderr are returned."""
    env = {k: v for k, v in os.environ.items() if k not in SELECTION}
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=env,
        check=False,
    )


def clean(name: str) -> str:
    """A fix: exit 0; its stdout."""
    result = run(name)
    assert result.returncode == 0, f"{name} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def test_the_runtime_is_there() -> None:
    """The setup itself: dpctl sees the OpenCL CPU device (else every test below would prove nothing)."""
    import dpctl

    devices = dpctl.get_devices()
    assert [(d.backend.name, d.device_type.name) for d in devices] == [("opencl", "cpu")], devices


def test_every_example_is_run_here() -> None:
    tested = {"own102", "own404", "own501", "own502", "own601"}
    found = {p.name.split("_", 1)[0] for p in EXAMPLES.glob("own*.py")}
    assert found == tested


# OWN501 capsule-reused: the consumer renames the capsule, the second consumer raises.


def test_own501_second_consumption_raises() -> None:
    result = run("own501_invalid.py")
    assert result.returncode == 1
    assert last_line(result.stderr).startswith(
        'TypeError: Positional argument <capsule object "used_SyclQueueRef" at '
    ), result.stderr
    assert last_line(result.stderr).endswith("is not a filter string or a SyclDevice")
    assert "second consumer got" not in result.stdout


def test_own501_fresh_capsules_run_clean() -> None:
    assert "both consumers got" in clean("own501_valid.py")


# OWN502 dlpack-non-default-context: the export raises.


def test_own502_export_from_an_explicit_context_raises() -> None:
    result = run("own502_invalid.py")
    assert result.returncode == 1
    assert last_line(result.stderr) == (
        "dpnp.tensor._dlpack.DLPackCreationError: to_dlpack_capsule: DLPack can only export arrays "
        "based on USM allocations bound to a default platform SYCL context"
    ), result.stderr
    assert "exported" not in result.stdout


def test_own502_export_from_the_default_context_runs_clean() -> None:
    assert "exported [0 1 2 3]" in clean("own502_valid.py")


# OWN102 dangling-handle: `mem._pointer` read after `mem` died. A 1 MiB
# allocation is unmapped when freed, so the read is a segmentation fault
# (a small one is recycled instead: its contents change, which is not a
# deterministic outcome, so it is not tested).


def test_own102_pointer_read_after_its_owner_died_crashes() -> None:
    result = run("own102_invalid.py")
    assert result.returncode == -signal.SIGSEGV, (result.returncode, result.stdout, result.stderr)
    assert "reading 0x" in result.stdout
    assert "b'ZZZZZZZZ'" not in result.stdout


def test_own102_pointer_read_while_its_owner_lives_runs_clean() -> None:
    assert "b'ZZZZZZZZ'" in clean("own102_valid.py")


# OWN601 deprecated-device-filter: the runtime ignores SYCL_DEVICE_FILTER
# silently; the program runs on a device it excluded.


def test_own601_old_variable_is_ignored() -> None:
    out = clean("own601_invalid.py")
    assert "devices: ['cpu']" in out  # it asked for opencl:gpu only
    assert "running on cpu" in out


def test_own601_selector_is_honoured() -> None:
    out = clean("own601_valid.py")
    assert "devices: []" in out
    assert "running on" not in out


# OWN404 async-argument-released: NOT shown on this runtime. Freeing the USM
# memory (`del buf`, dpctl's sycl::free) waits for the kernel that uses it:
# right after the `del` the kernel's event is already complete. This test
# records that observation; if it ever fails, the runtime no longer masks the
# bug and the example can be turned into a demonstration (docs/runtime.md).


def test_own404_release_waits_for_the_kernel_on_this_runtime() -> None:
    out = clean("own404_invalid.py")
    assert "before del: submitted" in out or "before del: running" in out, out
    assert "after del: complete" in out, out


def test_own404_waited_event_runs_clean() -> None:
    assert "filled with 7: complete" in clean("own404_valid.py")


@pytest.mark.parametrize("name", ["own501_invalid.py", "own502_invalid.py"])
def test_invalid_examples_fail_repeatably(name: str) -> None:
    """The exceptions are not flaky: three more runs, the same outcome."""
    codes = {run(name).returncode for _ in range(3)}
    assert codes == {1}
