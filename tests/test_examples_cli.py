"""The bundled example, through the real program and the real engine (what the README promises)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "double_free.py"


def line_of(needle: str, occurrence: int = 1) -> int:
    """The 1-based line of the `occurrence`-th line of the example containing `needle`."""
    hits = [n for n, line in enumerate(EXAMPLE.read_text(encoding="utf-8").splitlines(), 1) if needle in line]
    return hits[occurrence - 1]


SECOND_FREE = line_of("zeMemFree(hctx, host)", occurrence=2)
USE_AFTER_FREE = line_of("zeCommandListAppendMemoryCopy(hcl, out, scratch")


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ownlint", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


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


def test_the_readme_command_shows_the_double_free() -> None:
    result = run("check", "examples/")
    assert result.returncode == 1, result.stderr
    assert "error[OWN201]" in result.stdout
    assert f"examples/double_free.py:{SECOND_FREE}:" in result.stdout
    assert result.stdout.rstrip().endswith("in 1 file.")


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
