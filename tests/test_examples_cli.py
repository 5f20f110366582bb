"""The bundled example, through the real program and the real engine (what the README promises)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import forked

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "double_free.py"
CUDA_EXAMPLE = REPO / "examples" / "cuda_round_trip.py"


def line_of(needle: str, occurrence: int = 1, example: Path = EXAMPLE) -> int:
    """The 1-based line of the `occurrence`-th line of the example containing `needle`."""
    hits = [n for n, line in enumerate(example.read_text(encoding="utf-8").splitlines(), 1) if needle in line]
    return hits[occurrence - 1]


SECOND_FREE = line_of("zeMemFree(hctx, host)", occurrence=2)
USE_AFTER_FREE = line_of("zeCommandListAppendMemoryCopy(hcl, out, scratch")
CUDA_SECOND_FREE = line_of("driver.cuMemFree(dptr)", occurrence=3, example=CUDA_EXAMPLE)
CUDA_USE_AFTER_FREE = line_of("driver.cuMemcpyHtoDAsync(dptr", example=CUDA_EXAMPLE)


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return forked.ownlint(*args, cwd=cwd, timeout=120)


def findings(result: subprocess.CompletedProcess[str]) -> set[tuple[str, int, str]]:
    document = json.loads(result.stdout)
    assert document["errors"] == []
    return {(f["path"], f["line"], f["code"]) for f in document["findings"]}


def test_double_free_and_use_after_free_are_found() -> None:
    result = run("check", "--format", "json", "examples/double_free.py")
    assert result.returncode == 1, result.stderr
    assert findings(result) == {
        ("examples/double_free.py", SECOND_FREE, "OWN201"),
        ("examples/double_free.py", USE_AFTER_FREE, "OWN203"),
    }


def test_the_cuda_example_double_free_and_use_after_free_are_found() -> None:
    result = run("check", "--format", "json", "examples/cuda_round_trip.py")
    assert result.returncode == 1, result.stderr
    assert findings(result) == {
        ("examples/cuda_round_trip.py", CUDA_SECOND_FREE, "OWN201"),
        ("examples/cuda_round_trip.py", CUDA_USE_AFTER_FREE, "OWN203"),
    }


def test_the_readme_command_shows_the_double_frees() -> None:
    result = run("check", "examples/")
    assert result.returncode == 1, result.stderr
    assert "error[OWN201]" in result.stdout
    assert f"examples/double_free.py:{SECOND_FREE}:" in result.stdout
    assert f"examples/cuda_round_trip.py:{CUDA_SECOND_FREE}:" in result.stdout
    assert result.stdout.rstrip().endswith("Found 4 findings (4 errors) in 2 files.")


CU_MEM_FREE_URL = (
    "https://nvidia.github.io/cuda-python/cuda-bindings/latest/module/driver.html#cuda.bindings.driver.cuMemFree"
)
LEVEL_ZERO_URL = "https://oneapi-src.github.io/level-zero-spec/level-zero/latest/core/api.html"


def test_the_note_names_the_api_of_the_call_involved() -> None:
    """A CUDA finding's note is its model's reference and the release call; Level Zero keeps the rule's."""
    result = run("check", "--no-cache", "examples/")
    blocks = result.stdout.split("\nerror[")
    cuda = [b for b in blocks if "examples/cuda_round_trip.py:" in b]
    level_zero = [b for b in blocks if "examples/double_free.py:" in b]
    assert len(cuda) == 2 and len(level_zero) == 2, result.stdout
    for block in cuda:
        assert "= note: see CUDA Driver API: `cuMemFree`." in block
        assert f"= note: the API's documentation: {CU_MEM_FREE_URL}\n" in block
        assert "Level Zero" not in block
    for block in level_zero:
        assert "= note: see Level Zero specification: `zeMemFree`, `ze*Destroy`." in block
        assert f"= note: the API's documentation: {LEVEL_ZERO_URL}\n" in block
    sarif = json.loads(run("check", "--no-cache", "--format", "sarif", "examples/").stdout)
    references = {
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r.get("properties", {}).get("reference"),
            r.get("properties", {}).get("referenceUrl"),
        )
        for r in sarif["runs"][0]["results"]
    }
    assert references == {
        ("examples/cuda_round_trip.py", "CUDA Driver API: `cuMemFree`", CU_MEM_FREE_URL),
        ("examples/double_free.py", None, LEVEL_ZERO_URL),
    }
    shown = json.loads(run("check", "--no-cache", "--format", "json", "examples/").stdout)
    urls = {(f["path"], f.get("reference"), f.get("reference_url")) for f in shown["findings"]}
    assert urls == {
        ("examples/cuda_round_trip.py", "CUDA Driver API: `cuMemFree`", CU_MEM_FREE_URL),
        ("examples/double_free.py", None, LEVEL_ZERO_URL),
    }


def test_select_ignore_and_suppression_on_real_findings(tmp_path: Path) -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    (tmp_path / "example.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    only_use = run("check", "--format", "json", "--select", "OWN203", "example.py", cwd=tmp_path)
    assert findings(only_use) == {("example.py", USE_AFTER_FREE, "OWN203")}
    only_free = run("check", "--format", "json", "--ignore", "OWN203", "example.py", cwd=tmp_path)
    assert findings(only_free) == {("example.py", SECOND_FREE, "OWN201")}

    lines[SECOND_FREE - 1] += "  # noqa: OWN201"
    lines[USE_AFTER_FREE - 1] += "  # ownlint: ignore[OWN203]"
    (tmp_path / "example.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    suppressed = run("check", "--format", "json", "--report-unused-suppressions", "example.py", cwd=tmp_path)
    assert suppressed.returncode == 0, suppressed.stdout
    assert json.loads(suppressed.stdout)["unused_suppressions"] == []
