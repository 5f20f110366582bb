"""What several CLI tests share: a buggy module and a CliRunner call that keeps
standard error apart from standard output on every click version."""

from __future__ import annotations

import inspect

from click.testing import CliRunner, Result

from ownlint.cli import cli

BUGGY = """\
import ctypes

from ze import *


def upload(hctx, desc, n):
    host = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), n, 64, ctypes.byref(host))
    zeMemFree(hctx, host)
    zeMemFree(hctx, host)
"""


def invoke(*args: str, input: bytes | None = None) -> Result:
    if "mix_stderr" in inspect.signature(CliRunner).parameters:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    else:
        runner = CliRunner()
    return runner.invoke(cli, list(args), input=input, catch_exceptions=False)
