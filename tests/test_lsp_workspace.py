"""`ownlint lsp` sees the workspace: a document is analysed with the other files
`ownlint check` would analyse with it (its prefilter component), read from
their open buffers or from disk, as in `tests/fixtures/summaries/cross_pkg`."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import forked
import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

TIMEOUT = 30.0
PUBLISH = lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS

HELPERS = "from ze import *\n\n\ndef release(hctx, p):\n    zeMemFree(hctx, p)\n"
HELPERS_KEEPS = "from ze import *\n\n\ndef release(hctx, p):\n    pass\n"
MAIN = "from helpers import release\nfrom ze import *\n\n\ndef recycle(hctx, p):\n    release(hctx, p)\n    zeMemFree(hctx, p)\n"
SECOND_FREE = 6  # 0-based line of `zeMemFree` in MAIN


@pytest_lsp.fixture(config=ClientServerConfig(server_command=forked.command("lsp")))
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    params = lsp.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=tmp_path.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=tmp_path.as_uri(), name="work")],
    )
    await asyncio.wait_for(lsp_client.initialize_session(params), TIMEOUT)
    yield
    await asyncio.wait_for(lsp_client.shutdown_session(), TIMEOUT)


async def published_for(client: LanguageClient, uri: str, cause: Any) -> lsp.PublishDiagnosticsParams:
    """Do `cause()`, then wait for the next diagnostics of `uri` (those of other documents are skipped)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    waiting = asyncio.ensure_future(client.wait_for_notification(PUBLISH))
    cause()
    while True:
        params: lsp.PublishDiagnosticsParams = await asyncio.wait_for(waiting, deadline - loop.time())
        if params.uri == uri:
            return params
        waiting = asyncio.ensure_future(client.wait_for_notification(PUBLISH))


def open_params(path: Path, text: str) -> lsp.DidOpenTextDocumentParams:
    return lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=path.as_uri(), language_id="python", version=1, text=text)
    )


def check_json(cwd: Path) -> list[tuple[str, str, int, int]]:
    """(path, code, 0-based line, 0-based column) of what `ownlint check` finds in `cwd`."""
    result = subprocess.run(
        [sys.executable, "-m", "ownlint", "check", "--format", "json", "."],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    findings = json.loads(result.stdout)["findings"]
    return [(f["path"], f["code"], f["line"] - 1, f["column"] - 1) for f in findings]


@pytest.mark.asyncio
async def test_a_helper_in_another_module_is_seen_and_its_open_buffer_wins(
    client: LanguageClient, tmp_path: Path
) -> None:
    helpers, main = tmp_path / "helpers.py", tmp_path / "main.py"
    helpers.write_text(HELPERS, encoding="utf-8")
    main.write_text(MAIN, encoding="utf-8")
    assert check_json(tmp_path) == [("main.py", "OWN201", SECOND_FREE, 4)]

    # main.py open, helpers.py read from disk: the server agrees with `ownlint check`
    params = await published_for(client, main.as_uri(), lambda: client.text_document_did_open(open_params(main, MAIN)))
    shown = [("main.py", d.code, d.range.start.line, d.range.start.character) for d in params.diagnostics]
    assert shown == check_json(tmp_path)
    [diagnostic] = params.diagnostics
    related = [(r.location.uri, r.location.range.start.line) for r in diagnostic.related_information or []]
    assert (helpers.as_uri(), 4) in related

    # helpers.py open and edited (not saved) so that `release` no longer frees: main.py,
    # checked again, has no finding; the file on disk still frees
    opened = await published_for(
        client, helpers.as_uri(), lambda: client.text_document_did_open(open_params(helpers, HELPERS))
    )
    assert list(opened.diagnostics) == []
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=helpers.as_uri(), version=2),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=HELPERS_KEEPS)],
        )
    )
    params = await published_for(
        client,
        main.as_uri(),
        lambda: client.text_document_did_save(
            lsp.DidSaveTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=main.as_uri()))
        ),
    )
    assert list(params.diagnostics) == []
    assert helpers.read_text(encoding="utf-8") == HELPERS
