"""Talking to the language client, with pygls 1.3 and 2.x alike (they differ in where these calls
live and in how they are called): diagnostics published, messages shown, the log, and pygls's own
log records on one line each on standard error."""

from __future__ import annotations

import logging
import sys
from typing import Any

from lsprotocol import types as lsp

from ownlint.lines import printable


def publish(server: Any, uri: str, diagnostics: list[lsp.Diagnostic], version: int | None) -> None:
    if hasattr(server, "text_document_publish_diagnostics"):  # pygls 2
        server.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )
    else:  # pygls 1.x
        server.publish_diagnostics(uri, diagnostics, version)


def show(server: Any, message: str, kind: lsp.MessageType) -> None:
    if hasattr(server, "window_show_message"):  # pygls 2
        server.window_show_message(lsp.ShowMessageParams(type=kind, message=message))
    else:  # pygls 1.x
        server.show_message(message, kind)


def log(server: Any, message: str) -> None:
    message = printable(message)
    if hasattr(server, "window_log_message"):  # pygls 2
        server.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Error, message=message))
    else:  # pygls 1.x
        server.show_message_log(message, lsp.MessageType.Error)


class OneLine(logging.Formatter):
    """Log records on one line each: what broke, without the traceback (the
    editor shows this log to users)."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage().strip().splitlines()[0] if record.getMessage().strip() else ""
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            message = f"{message}: {type(error).__name__}: {error}"
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return printable(" ".join(f"ownlint lsp: {record.levelname.lower()}: {message}".split()))


def quiet_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
