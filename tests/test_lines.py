"""Line numbering shared by fixes, fingerprints and the language server."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from ownlint.fingerprint import FindingKey, line_hash, normalise, with_occurrences
from ownlint.lines import line_at, line_starts, split_lines


def test_only_newlines_end_lines() -> None:
    text = "a\x0cb\r\nc\rd\ne\x85f\n"
    assert split_lines(text) == ["a\x0cb", "c", "d", "e\x85f"]
    assert line_at(text, 4) == "e\x85f"
    assert line_at(text, 5) == ""
    assert line_starts(text) == [0, 5, 7, 9, 13]
    assert split_lines("") == [""]
    assert split_lines("x") == ["x"]


def test_normalise_and_occurrences() -> None:
    assert normalise("  zeMemFree( ctx,\tp )  # noqa  ") == "zeMemFree( ctx, p ) # noqa"
    a, b = FindingKey("a.py", "OWN201", "p", "free(p)"), FindingKey("a.py", "OWN201", "q", "free(q)")
    assert with_occurrences([a, b, a]) == [(a, 1), (b, 1), (a, 2)]
    assert line_hash(a, 1).endswith(":1") and line_hash(a, 1).split(":")[0] == line_hash(a, 2).split(":")[0]
    assert line_hash(a, 1) != line_hash(b, 1)


@given(st.text(alphabet=st.sampled_from(["a", "\n", "\r", "\x0c", "\x85", "é"]), max_size=40))
def test_split_lines_is_the_split_at_line_ends(text: str) -> None:
    lines = re.split(r"\r\n|\r|\n", text)
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    assert split_lines(text) == lines
