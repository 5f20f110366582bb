"""Clean: a capsule consumed a second time on purpose, inside `pytest.raises`, to test that the
runtime refuses it (cupy's tests/cupy_tests/core_tests/test_dlpack.py,
test_multiple_consumption_error, reduced). The second `fromDlpack` raises ValueError, which the
`with pytest.raises(ValueError)` block expects: the misuse is the test's subject, and the code
after the block runs only where the call failed. A false OWN501 today (found running ownlint on
cupy, 2026-11-26; the line carries a bare `# noqa`, which no longer silences ownlint).

Why clean: a call inside `with pytest.raises(...)` (or `self.assertRaises(...)`) is expected to
fail; its effects must not be assumed to have happened. The same shape as
tests/pending/correlation/asserted_registration_failure.py, where a status is asserted to be a
failure."""
import cupy
import pytest


def test_multiple_consumption_error():
    array = cupy.empty(10)
    tensor = array.toDlpack()
    array2 = cupy.fromDlpack(tensor)  # noqa
    with pytest.raises(ValueError) as e:
        array3 = cupy.fromDlpack(tensor)  # noqa
    assert "consumed multiple times" in str(e.value)
    return array2
