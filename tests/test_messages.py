"""What findings say, with the real engine: labels that match the story."""

from __future__ import annotations

from pathlib import Path

from ownlint import api
from ownlint.config import default_config
from ownlint.diagnostics import Diagnostic

USE_AFTER_FREE = """\
from ze import *


def f(hctx, p):
    zeMemFree(hctx, p)
    zeMemcpy(hctx, p)
"""

DOUBLE_FREE = """\
from ze import *


def f(hctx, p):
    zeMemFree(hctx, p)
    zeMemFree(hctx, p)
"""


def labels(source: str, code: str) -> list[str]:
    result = api.check_source(source, "m.py", default_config())
    [finding] = [d for d in result.findings if d.code == code]
    return [r.message for r in finding.related]


def test_a_single_free_is_not_the_first_of_two() -> None:
    assert labels(USE_AFTER_FREE, "OWN203") == ["freed here"]


def test_the_first_of_two_frees_says_so() -> None:
    assert labels(DOUBLE_FREE, "OWN201") == ["first freed here"]


# Wording from the model's stack (issue 35): a CUDA finding speaks of the
# CUDA object its model names (`owner-kind`), not of SYCL or dpctl.
FIXTURES = Path(__file__).parent / "fixtures"
OWN204_SYCL_LINE = 17  # zeContextDestroy(hctx) under a live `make_context(..., keep)`


def finding_on(path: Path, code: str, line: int) -> Diagnostic:
    result = api.check_paths([path], default_config())
    [finding] = [d for d in result.findings if d.code == code and d.span.line == line]
    return finding


def test_a_cupy_view_freed_under_it_is_named_by_its_model() -> None:
    finding = finding_on(FIXTURES / "cuda" / "cupy_unowned.py", "OWN204", 19)
    assert finding.message == "`p` is freed while the CuPy memory built on it is still alive"
    assert finding.help == "delete the CuPy memory built on it (`del obj`) before freeing the handle"
    for text in (finding.message, finding.help):
        assert "SYCL" not in text and "dpctl" not in text and "`keep`" not in text


def test_a_dead_torch_tensor_is_named_by_its_model() -> None:
    finding = finding_on(FIXTURES / "cuda" / "dlpack_torch_cupy.py", "OWN102", 55)
    assert finding.help == "keep the torch tensor that owns it alive for as long as its native handle is used"
    assert "SYCL" not in (finding.help or "") and "dpctl" not in (finding.help or "")


def test_sycl_findings_keep_the_sycl_words() -> None:
    finding = finding_on(FIXTURES / "sycl" / "05_own204_free_while_owner_alive.py", "OWN204", OWN204_SYCL_LINE)
    assert "SYCL context built on it is still alive" in finding.message, finding.message


TORCH_POINTER_FREED = """\
import torch
from cuda.bindings import runtime


def f():
    t = torch.zeros(10, device="cuda")
    p = t.data_ptr()
    runtime.cudaFree(p)
    return t
"""


def test_a_pointer_lent_by_a_torch_tensor_is_freed() -> None:
    result = api.check_source(TORCH_POINTER_FREED, "m.py", default_config())
    [finding] = [d for d in result.findings if d.code == "OWN202"]
    assert finding.message == "`p` belongs to the torch tensor it came from and must not be freed by the application"
    assert finding.help == "let the torch tensor release it"


def test_a_handle_transferred_to_sycl_keeps_the_advice_to_adopt_it_with_keep() -> None:
    finding = finding_on(FIXTURES / "sycl" / "04_own202_free_of_runtime_owned.py", "OWN202", 39)
    assert finding.message == "`hctx` belongs to the SYCL context it came from and must not be freed by the application"
    assert finding.help == (
        "let the SYCL context release it, or adopt it without giving up its ownership (`keep`) "
        "and free it after the SYCL context is gone"
    )


def test_the_call_that_joins_two_files_is_in_the_story() -> None:
    """A helper in another module frees, the caller frees again: the frame
    shows the call in the caller's file as well as the free in the helper's."""
    package = FIXTURES / "summaries" / "cross_pkg"
    result = api.check_paths([package], default_config())
    [finding] = [d for d in result.findings if d.code == "OWN201" and d.path.endswith("app.py") and d.span.line == 23]
    story = [(Path(r.path).name, r.span.line, r.message) for r in finding.related]
    assert story == [
        ("app.py", 22, "freed inside `drop` here"),
        ("alloc.py", 10, "first freed here, inside `drop`"),
    ]
