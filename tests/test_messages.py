"""What findings say, with the real engine: labels that match the story."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ownlint import api
from ownlint.config import default_config
from ownlint.diagnostics import Diagnostic, Span

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


# The other rules that spoke of SYCL whatever the stack (OWN101, OWN103,
# OWN401, OWN403, OWN502): their words come from the model (the owner's
# `owner-kind`, the call, the context's maker), so that a finding of another
# stack names its own objects, and a SYCL finding still names SYCL's.
SYCL_WORDS = ("SYCL", "dpctl", "Level Zero", "make_*", "ownership=keep")


def assert_no_sycl_words(finding: Diagnostic) -> None:
    for text in (finding.message, finding.help or ""):
        for word in SYCL_WORDS:
            assert word not in text, (word, text)


NUMBA_POINTER_TO_A_THREAD = """\
import threading

import numba.cuda


def work(p):
    pass


def f():
    a = numba.cuda.device_array(10)
    p = a.__cuda_array_interface__["data"][0]
    t = threading.Thread(target=work, args=(p,))
    t.start()
    t.join()
    return a
"""


def test_a_device_pointer_borrowed_from_a_numba_array_may_go_to_a_thread() -> None:
    """A CUDA device pointer is valid in every thread of the process: the
    numba model's borrow is thread-safe, so this is no OWN403 (it was one,
    worded for SYCL, before the model said so). How OWN403 words an owner of
    another stack: the next test."""
    result = api.check_source(NUMBA_POINTER_TO_A_THREAD, "m.py", default_config())
    assert [d.code for d in result.findings] == []


def test_a_handle_of_a_model_of_ones_own_handed_to_a_thread_speaks_of_its_owner(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    directory = FIXTURES / "thread_safe"
    monkeypatch.chdir(directory)
    config = replace(default_config(directory), models=(directory / "models.toml",))
    result = api.check_paths([directory / "01_thread_safe_borrow.py"], config)
    [finding] = [d for d in result.findings if d.code == "OWN403"]
    assert "owned by the buffer object" in finding.message, finding.message
    assert_no_sycl_words(finding)


def test_sycl_thread_findings_keep_the_sycl_words() -> None:
    path = FIXTURES / "threads" / "01_own403_threads.py"
    transferred = finding_on(path, "OWN403", 28)  # make_queue(hq, ...) took it over
    assert transferred.message.startswith("a native handle is owned by the SYCL queue"), transferred.message
    assert transferred.help == (
        "pass the SYCL queue itself, or adopt the handle without giving up its ownership (`keep`) "
        "and serialize every use of it in one thread"
    )


ADOPTING_MODEL = """\
[model]
name = "graphs"
match = "qualified"

[[create]]
functions = ["graphs.make"]
result = 0
kind = "graph"
released-by = ["graphs.destroy"]

[[release]]
functions = ["graphs.destroy"]
handle = 0

[[adopt]]
functions = ["graphs.adopt"]
handle = 0
ownership = "transfer"
owner-kind = "graph object"

[[owner]]
functions = ["graphs.Stream"]
owner-kind = "graph stream"

[[borrow]]
functions = ["native"]  # a borrow is matched by its last name
owner = 0
unsupported-owner-kinds = ["graph stream"]
"""

ADOPTIONS = """\
import graphs


def use_after():
    h = graphs.make()
    g = graphs.adopt(h)
    graphs.launch(h)
    return g


def twice():
    h = graphs.make()
    g = graphs.adopt(h)
    k = graphs.adopt(h)
    return g, k


def unsupported():
    s = graphs.Stream()
    return graphs.native(s)
"""


def test_a_transfer_of_a_model_of_ones_own_speaks_of_its_owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "graphs.toml").write_text(ADOPTING_MODEL, encoding="utf-8")
    (tmp_path / "m.py").write_text(ADOPTIONS, encoding="utf-8")
    config = replace(default_config(tmp_path), models=(tmp_path / "graphs.toml",))
    result = api.check_paths([tmp_path / "m.py"], config)
    by_code = {d.code: d for d in result.findings}
    assert sorted(by_code) == ["OWN101", "OWN103", "OWN401"], [(d.code, d.message) for d in result.findings]
    used, twice, unsupported = by_code["OWN101"], by_code["OWN103"], by_code["OWN401"]
    assert used.message == "`h` is used after its ownership was transferred to the graph object"
    assert used.help == (
        "use the graph object instead of the handle, or adopt the handle without giving up its ownership (`keep`) "
        "if the application must go on using it"
    )
    assert twice.message == "`h` is transferred to a second owner"
    assert unsupported.message == "`native` is not supported on a graph stream (`s`)"
    for finding in (used, twice, unsupported):
        assert_no_sycl_words(finding)


def test_sycl_transfers_and_get_native_keep_the_sycl_words() -> None:
    used = finding_on(FIXTURES / "sycl" / "03_own103_transfer_twice.py", "OWN103", 14)
    assert "adopt a native handle with `transfer` once" in (used.help or ""), used.help
    result = api.check_paths([FIXTURES / "sycl" / "06_own401_get_native_unsupported.py"], default_config())
    unsupported = [d for d in result.findings if d.code == "OWN401"]
    assert unsupported
    for finding in unsupported:
        assert "`get_native` is not supported on a SYCL " in finding.message, finding.message


def test_an_export_from_an_explicit_context_names_its_maker_not_sycl() -> None:
    from ownlint.checks import CHECKS
    from ownlint.engine.violations import Violation

    finding = Violation("OWN502", "m.py", Span(1, 1, 1, 2), "x", (("context", "cuCtxCreate"),))
    message, _, help_text = CHECKS["OWN502"].describe(finding)
    assert message == (
        "`x` is bound to a context created explicitly (by `cuCtxCreate`), so its DLPack export raises at run time"
    )
    for text in (message, help_text):
        assert "SYCL" not in text and "dpctl" not in text, text
