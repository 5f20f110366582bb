"""`ownlint lsp` in a real editor: headless Neovim's built-in LSP client on a buggy file.

Skipped where `nvim` is not installed (`.ci/run` installs Debian's neovim when
it runs as root on a machine with apt-get).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import BUGGY  # the buggy module the CLI tests share

DATA = Path(__file__).resolve().parent / "data"
NVIM = shutil.which("nvim")


@pytest.mark.slow
@pytest.mark.skipif(NVIM is None, reason="nvim is not installed (apt-get install neovim)")
def test_neovim_shows_the_double_free(tmp_path: Path) -> None:
    assert NVIM is not None
    source = tmp_path / "alloc.py"
    source.write_text(BUGGY, encoding="utf-8")
    out = tmp_path / "diagnostics.json"
    env = {
        **os.environ,
        "OWNLINT_NVIM_FILE": str(source),
        "OWNLINT_NVIM_OUT": str(out),
        "OWNLINT_NVIM_PYTHON": sys.executable,
        "OWNLINT_NVIM_WAIT_MS": "30000",
        "XDG_STATE_HOME": str(tmp_path / "state"),  # Neovim's LSP log goes there, not into the home directory
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    script = DATA / "nvim_diagnostics.lua"
    run = subprocess.run(
        [NVIM, "--headless", "--clean", "-n", "-c", f"luafile {script}"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.is_file(), f"Neovim wrote no diagnostics (status {run.returncode}): {run.stderr}{run.stdout}"
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["arrived"] is True, report
    [diagnostic] = report["diagnostics"]
    assert diagnostic["code"] == "OWN201"
    assert (diagnostic["lnum"], diagnostic["col"]) == (9, 4)
    assert diagnostic["source"] == "ownlint"
    assert diagnostic["severity"] == 1  # vim.diagnostic.severity.ERROR
    message, *advice = diagnostic["message"].split("\n")  # the message, then the rule's `help:` line
    assert message == "`host` is freed a second time"
    assert [line.startswith("help: ") for line in advice] == [True]
