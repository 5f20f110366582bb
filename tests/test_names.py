"""Name collection (engine/frontend/names.py): the text shortcut finds what the full walk finds."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from ownlint.engine.frontend.names import collect_names

FIXTURES = sorted((Path(__file__).resolve().parent / "fixtures").rglob("*.py"))

NESTED = """\
import ctypes
from ze import zeMemFree as free

def f():
    x = 1; import os
    from dpctl import SyclQueue as Q
    if x:
        import numpy as np

class C:
    def m(self):
        from . import helper
"""


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_source_shortcut_finds_the_same_imports(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    module = cst.parse_module(source)
    walked = collect_names(module, "pkg.mod")
    shortcut = collect_names(module, "pkg.mod", source=source)
    assert (shortcut.imports, shortcut.star_modules) == (walked.imports, walked.star_modules)


def test_imports_below_the_top_level_are_found() -> None:
    names = collect_names(cst.parse_module(NESTED), "pkg.mod", source=NESTED)
    assert names.imports == {
        "ctypes": "ctypes",
        "free": "ze.zeMemFree",
        "os": "os",
        "Q": "dpctl.SyclQueue",
        "np": "numpy",
        "helper": "pkg.helper",
    }


def test_top_level_imports_alone_need_no_walk() -> None:
    source = "import ctypes\nfrom ze import *\nx = 1; import os as o\n"
    names = collect_names(cst.parse_module(source), "m", source=source)
    assert names.imports == {"ctypes": "ctypes", "o": "os"} and names.star_modules == ["ze"]
