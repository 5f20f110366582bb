"""Source lines numbered the way the parser numbers them, and shown safely.

Only `\\n`, `\\r\\n` and `\\r` end a line. `str.splitlines` also splits at a
form feed, `\\v`, `\\x1c`-`\\x1e`, `\\x85`, `\\u2028` and `\\u2029`, which
Python source may hold inside a line (a form feed is legal indentation), so it
would number the lines after one of them wrongly.

`printable` is what every human-readable output (text, concise, statistics,
the messages on standard error, the language server's messages) passes text
from an analysed file through, so that none of it reaches a terminal raw.
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


def _caret(code: int) -> str:
    """`cat -v`'s form of a C0 control or DEL: `^@` .. `^_`, `^?`."""
    return "^" + chr(code ^ 0x40)


_PRINTABLE = {code: _caret(code) for code in range(0x20) if code != 0x09}
_PRINTABLE[0x7F] = _caret(0x7F)
_PRINTABLE.update({code: "M-" + _caret(code - 0x80) for code in range(0x80, 0xA0)})
_SEPARATORS_AND_BIDI = (0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_PRINTABLE.update({code: f"<U+{code:04X}>" for code in _SEPARATORS_AND_BIDI})
# a byte of a file name that is not UTF-8, as os.fsdecode gives it ("surrogateescape"): shown as `\\xff`
_PRINTABLE.update({code: f"\\x{code - 0xDC00:02x}" for code in range(0xDC80, 0xDD00)})
_UNPRINTABLE = re.compile("[" + "".join(re.escape(chr(code)) for code in sorted(_PRINTABLE)) + "]")
_UNDECODABLE = {code: f"\\x{code - 0xDC00:02x}" for code in range(0xDC80, 0xDD00)}
_SURROGATE = re.compile("[\udc80-\udcff]")


def escape_undecodable(text: str) -> str:
    """`text` with each byte that did not decode (a file name that is not UTF-8, as `os.fsdecode` gives
    it) shown as `\\xff`: text that can be encoded as UTF-8. It is for showing, not for decoding:
    a name holding the four characters `\\xff` looks the same."""
    return text.translate(_UNDECODABLE) if _SURROGATE.search(text) else text


def printable(text: str) -> str:
    """`text` with every character a terminal or an editor could act on shown escaped, the way `cat -v` does.

    - C0 controls become `^@` .. `^_` (ESC is `^[`, a newline `^J`, a
      carriage return `^M`), DEL becomes `^?`;
    - C1 controls (U+0080 .. U+009F, NEL and CSI among them) become
      `M-^@` .. `M-^_`;
    - the line and paragraph separators U+2028 and U+2029 and the bidi
      embeddings, overrides and isolates of "Trojan Source" (U+202A .. U+202E,
      U+2066 .. U+2069) become `<U+202E>` and so on.

    A byte of a file name that is not UTF-8 (a lone surrogate from
    `os.fsdecode`) becomes `\\xff` (`escape_undecodable`).

    The tab is the one control left as it is: it moves the cursor and does
    nothing else (the text format expands it to four spaces in quoted source
    lines). So the result never spans lines and cannot drive a terminal.
    Like `cat -v`, a `^` already in the text is not escaped: the result is
    for reading, not for decoding, and `printable(printable(s)) == printable(s)`,
    so passing text through twice does no harm.
    """
    return text.translate(_PRINTABLE) if _UNPRINTABLE.search(text) else text
