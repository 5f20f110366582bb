"""Runs at the same time, and a damaged cache.

Two `ownlint check` processes started together on one tree with an empty
cache both fill the cache directory (each entry written to a temporary file and
renamed into place); neither may see the other's half-written entries, and
both must report exactly the findings the fixtures' `# E:` comments ask for.
Then every file of the cache is truncated, as a crash or a full disk might
leave it: a later run must notice, recompute and report the same findings,
and leave a cache that works again.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ownlint.cachedir import ENV_VAR as OWNLINT_CACHE_DIR

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXPECT = re.compile(r"#\s*E:\s*(?P<codes>OWN[0-9]+(?:\s*,\s*OWN[0-9]+)*)")
COMMAND = [sys.executable, "-m", "ownlint", "check", "--format", "json", "tree"]


def expected_findings(tree: Path, root: Path) -> set[tuple[str, int, str]]:
    """(path, line, code) of every `# E:` comment under `tree`, paths relative to `root`
    (not those of a directory whose `select.txt` selects a preview rule the default leaves off)."""
    out = set()
    for path in sorted(tree.rglob("*.py")):
        if (path.parent / "select.txt").is_file():
            continue
        shown = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for match in EXPECT.finditer(line):
                out |= {(shown, number, code.strip()) for code in match["codes"].split(",")}
    return out


def findings_of(status: int, stdout: str, stderr: str) -> list[dict[str, object]]:
    assert "Traceback" not in stderr, stderr
    assert status == 1, (status, stderr)
    document = json.loads(stdout)
    assert document["errors"] == []
    return document["findings"]


def run(cwd: Path) -> list[dict[str, object]]:
    proc = subprocess.run(COMMAND, cwd=cwd, capture_output=True, text=True, timeout=300, env=with_cache(cwd))
    return findings_of(proc.returncode, proc.stdout, proc.stderr)


def with_cache(root: Path) -> dict[str, str]:
    return {**os.environ, OWNLINT_CACHE_DIR: str(root / "cache")}


@pytest.mark.slow  # four real runs over every fixture
def test_concurrent_runs_and_a_truncated_cache(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES, tmp_path / "tree")
    # the configuration lives here; fixture directories with
    # a models.toml (test_fixtures.py) need their model files (qualified names of
    # bindings that are no real API: they change nothing elsewhere)
    models = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "tree").rglob("models.toml"))
    (tmp_path / "ownlint.toml").write_text(f"models = {models!r}\n".replace("'", '"'), encoding="utf-8")
    cache = tmp_path / "cache"
    expected = expected_findings(tmp_path / "tree", tmp_path)
    assert len(expected) > 50

    # two runs at once, on an empty cache
    procs = [
        subprocess.Popen(
            COMMAND, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=with_cache(tmp_path)
        )
        for _ in range(2)
    ]
    outputs = [proc.communicate(timeout=300) for proc in procs]
    first, second = (findings_of(proc.returncode, out, err) for proc, (out, err) in zip(procs, outputs, strict=True))
    assert first == second
    assert {(f["path"], f["line"], f["code"]) for f in first} == expected

    entries = [p for p in cache.rglob("*") if p.is_file() and p.suffix == ".json"]
    assert entries, "the runs wrote no cache entries"
    for entry in entries:  # every entry whole: no half-written file was renamed into place
        assert json.loads(entry.read_bytes().split(b"\n", 2)[2]), entry
    assert not [p for p in cache.rglob(".tmp-*")], "temporary files left behind"

    # a cache whose every file is cut short
    damaged = [p for p in cache.rglob("*") if p.is_file()]
    for path in damaged:
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    assert run(tmp_path) == first

    for entry in [p for p in cache.rglob("*") if p.is_file() and p.suffix == ".json"]:
        assert json.loads(entry.read_bytes().split(b"\n", 2)[2]), entry  # the damaged entries were rewritten
    assert run(tmp_path) == first  # and the repaired cache serves the same answer
