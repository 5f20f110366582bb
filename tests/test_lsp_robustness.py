"""The language server keeps serving through bad input: malformed messages,
edits with out-of-range positions, a document closed mid-check, a file deleted
on disk. Every wait is bounded."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient
from test_lsp import BUGGY, FIXED, TIMEOUT, client, open_document, waiter  # noqa: F401 - `client` is a fixture


async def published_for(client: LanguageClient, uri: str) -> lsp.PublishDiagnosticsParams:  # noqa: F811 - named as the `client` fixture it is given
    """The next diagnostics published for `uri` (others, such as the clearing of a
    closed document, are passed over)."""
    while True:
        params: lsp.PublishDiagnosticsParams = await asyncio.wait_for(waiter(client), TIMEOUT)
        if params.uri == uri:
            return params


def frame(body: bytes) -> bytes:
    return b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body


def test_malformed_messages_are_ignored_and_the_server_answers_the_next_one(tmp_path: Path) -> None:
    initialize = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {}},
        }
    ).encode()
    shutdown = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}).encode()
    exit_ = json.dumps({"jsonrpc": "2.0", "method": "exit"}).encode()
    stream = b"".join(
        [
            frame(b"{not json at all"),
            frame(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": 3}).encode()),
            frame(json.dumps({"jsonrpc": "2.0", "method": "no/such/method", "params": {}}).encode()),
            frame(initialize),
            frame(shutdown),
            frame(exit_),
        ]
    )
    done = subprocess.run(
        [sys.executable, "-m", "ownlint", "lsp"], input=stream, capture_output=True, timeout=TIMEOUT, cwd=tmp_path
    )
    assert b'"id": 1' in done.stdout.replace(b'"id":1', b'"id": 1')  # initialize was answered
    assert b"capabilities" in done.stdout
    assert b"Traceback" not in done.stderr
    assert all(line.startswith(b"ownlint lsp: ") for line in done.stderr.splitlines())


@pytest.mark.asyncio
async def test_an_edit_with_an_out_of_range_position_does_not_stop_the_server(
    client: LanguageClient,  # noqa: F811 - the `client` fixture, imported from test_lsp
    tmp_path: Path,
) -> None:
    path = tmp_path / "alloc.py"
    uri = path.as_uri()
    await open_document(client, path, BUGGY)
    far = lsp.Range(start=lsp.Position(line=500, character=80), end=lsp.Position(line=900, character=3))
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[lsp.TextDocumentContentChangePartial(range=far, text="x = 1\n")],
        )
    )
    published = waiter(client)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=3),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=FIXED)],
        )
    )
    params = await asyncio.wait_for(published, TIMEOUT)
    assert params.version == 3 and list(params.diagnostics) == []


@pytest.mark.asyncio
async def test_a_document_closed_mid_check_and_a_deleted_file(
    client: LanguageClient,  # noqa: F811 - the `client` fixture, imported from test_lsp
    tmp_path: Path,
) -> None:
    gone = tmp_path / "gone.py"
    gone.write_text(BUGGY, encoding="utf-8")
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=gone.as_uri(), language_id="python", version=1, text=BUGGY)
        )
    )
    client.text_document_did_close(
        lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=gone.as_uri()))
    )
    gone.unlink()  # deleted on disk while the editor still had it
    # the server goes on serving: another document is checked from its buffer
    other = tmp_path / "other.py"
    other.write_text(BUGGY, encoding="utf-8")
    opened = asyncio.ensure_future(published_for(client, other.as_uri()))
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=other.as_uri(), language_id="python", version=1, text=BUGGY)
        )
    )
    params = await opened
    assert [d.code for d in params.diagnostics] == ["OWN201"]
    other.unlink()
    saved = asyncio.ensure_future(published_for(client, other.as_uri()))
    client.text_document_did_save(
        lsp.DidSaveTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=other.as_uri()))
    )
    again = await saved
    assert [d.code for d in again.diagnostics] == ["OWN201"]
    hover = await asyncio.wait_for(
        client.text_document_hover_async(
            lsp.HoverParams(
                text_document=lsp.TextDocumentIdentifier(uri=gone.as_uri()), position=lsp.Position(line=0, character=0)
            )
        ),
        TIMEOUT,
    )
    assert hover is None
