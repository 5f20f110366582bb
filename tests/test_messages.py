"""What findings say, with the real engine: labels that match the story."""

from __future__ import annotations

from ownlint import api
from ownlint.config import default_config

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
