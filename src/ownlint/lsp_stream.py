"""The language server's standard input, with the message size bounded.

pygls reads a `Content-Length: N` header and then asks for N bytes; an absurd
N (`99999999999999999999`) ends the server with a traceback, and a large one
makes it wait for, then hold, that much memory. `BoundedInput` sits between
standard input and pygls: a message declared larger than
`MAX_MESSAGE_BYTES` is rejected with one line on standard error, and its
bytes are skipped up to the next `Content-Length:` header, where the server
goes on (the best a stream without message boundaries allows: a header text
inside the skipped body would be taken for the next message). Header lines
are read at most `MAX_LINE_BYTES` at a time, so a line without an end cannot
grow without bound either.
"""

from __future__ import annotations

import logging
import re
from typing import BinaryIO

MAX_MESSAGE_BYTES = 64 << 20
"""A message's body, at most: a document of tens of megabytes, in JSON."""
MAX_LINE_BYTES = 1 << 16
_HEADER = b"Content-Length:"
_CONTENT_LENGTH = re.compile(rb"Content-Length: *(\d+)\r\n")

logger = logging.getLogger(__name__)


class BoundedInput:
    """The `readline` and `read` pygls uses, over a binary stream (see the module's docstring)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._skipping = False

    def readline(self) -> bytes:
        while True:
            line = self._stream.readline(MAX_LINE_BYTES)
            if self._skipping:
                line = self._skip_to_header(line)
            match = _CONTENT_LENGTH.fullmatch(line)
            if match is None or not _too_large(match.group(1)):
                return line
            shown = match.group(1).decode("ascii")
            logger.error(
                "rejected a message of Content-Length %s (more than %d bytes); skipped to the next message",
                shown if len(shown) <= 30 else shown[:30] + "...",
                MAX_MESSAGE_BYTES,
            )
            self._skipping = True

    def _skip_to_header(self, line: bytes) -> bytes:
        """From `line` on, the next line that starts a `Content-Length:` header (b"" at the end)."""
        while line:
            start = line.find(_HEADER)
            if start >= 0:
                self._skipping = False
                line = line[start:]
                if not line.endswith(b"\n"):  # the header continues on the next read
                    line += self._stream.readline(MAX_LINE_BYTES)
                return line
            line = self._stream.readline(MAX_LINE_BYTES)
        return line

    def read(self, count: int) -> bytes:
        return self._stream.read(min(count, MAX_MESSAGE_BYTES))


def _too_large(digits: bytes) -> bool:
    return len(digits) > 12 or int(digits) > MAX_MESSAGE_BYTES
