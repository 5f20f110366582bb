"""Source lines numbered the way the parser numbers them.

Only `\\n`, `\\r\\n` and `\\r` end a line. `str.splitlines` also splits at a
form feed, `\\v`, `\\x1c`-`\\x1e`, `\\x85`, `\\u2028` and `\\u2029`, which
Python source may hold inside a line (a form feed is legal indentation), so it
would number the lines after one of them wrongly.
"""

from __future__ import annotations

import re

_LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines of `text` without their line ends; a final line end opens no extra line."""
    lines = text.split("\n") if "\r" not in text else _LINE_END.split(text)
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def line_at(text: str, number: int) -> str:
    """The text of 1-based line `number`, or "" when there is no such line."""
    lines = split_lines(text)
    return lines[number - 1] if 1 <= number <= len(lines) else ""


def line_starts(text: str) -> list[int]:
    """The offset in `text` where each line begins (index 0 is line 1); one more entry for a final line end."""
    return [0, *(match.end() for match in _LINE_END.finditer(text))]
