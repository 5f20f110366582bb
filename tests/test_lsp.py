"""`ownlint lsp` end to end: a real LSP client (pytest-lsp) talks to `python -m ownlint lsp` over stdio.

Every wait is bounded (`TIMEOUT`), so a server that says nothing fails the
test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import forked
import pytest
import pytest_lsp
from cli_helpers import BUGGY  # the buggy module the CLI tests share
from click.testing import CliRunner
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

import ownlint
from ownlint.cli import cli

TIMEOUT = 30.0
QUIET = 1.0  # how long "no further diagnostics" is waited for

SECOND_FREE = 9  # 0-based line of the second `zeMemFree`
FIXED = BUGGY.rsplit("    zeMemFree(hctx, host)\n", 1)[0]

DEVICE_FILTER = 'import os\n\nos.environ["SYCL_DEVICE_FILTER"] = "level_zero:gpu"\n'

PUBLISH = lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS


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


def waiter(client: LanguageClient) -> asyncio.Future[Any]:
    """Start waiting for the next publishDiagnostics before causing it, so that it cannot be missed."""
    return asyncio.ensure_future(client.wait_for_notification(PUBLISH))


async def open_document(client: LanguageClient, path: Path, text: str) -> lsp.PublishDiagnosticsParams:
    path.write_text(text, encoding="utf-8")
    published = waiter(client)
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=path.as_uri(), language_id="python", version=1, text=text)
        )
    )
    params: lsp.PublishDiagnosticsParams = await asyncio.wait_for(published, TIMEOUT)
    assert params.uri == path.as_uri()
    return params


def replace_all(uri: str, version: int, text: str) -> lsp.DidChangeTextDocumentParams:
    return lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
    )


@pytest.mark.asyncio
async def test_diagnostic_on_open_with_code_line_and_related(client: LanguageClient, tmp_path: Path) -> None:
    params = await open_document(client, tmp_path / "alloc.py", BUGGY)
    assert params.version == 1
    [diagnostic] = params.diagnostics
    assert diagnostic.code == "OWN201"
    assert diagnostic.source == "ownlint"
    assert diagnostic.severity == lsp.DiagnosticSeverity.Error
    assert diagnostic.range.start == lsp.Position(line=SECOND_FREE, character=4)
    assert diagnostic.range.end == lsp.Position(line=SECOND_FREE, character=25)
    assert diagnostic.code_description is not None
    # the page of the call's API, from the Level Zero model's `reference-url`
    assert (
        diagnostic.code_description.href
        == "https://oneapi-src.github.io/level-zero-spec/level-zero/latest/core/api.html"
    )
    related = diagnostic.related_information or []
    assert [(r.location.uri, r.location.range.start.line, r.message) for r in related] == [
        ((tmp_path / "alloc.py").as_uri(), 7, "memory allocated here"),
        ((tmp_path / "alloc.py").as_uri(), 8, "first freed here"),
    ]


@pytest.mark.asyncio
async def test_editing_the_bug_away_clears_it_and_the_latest_version_wins(
    client: LanguageClient, tmp_path: Path
) -> None:
    path = tmp_path / "alloc.py"
    uri = path.as_uri()
    assert len((await open_document(client, path, BUGGY)).diagnostics) == 1
    published = waiter(client)
    # Three quick edits: the buggy text again, a half-typed line, then the fix. Only the
    # last version is published (the others arrive within the debounce, or while a check runs).
    client.text_document_did_change(replace_all(uri, 2, BUGGY + "\n"))
    client.text_document_did_change(replace_all(uri, 3, BUGGY + "zeMem"))
    client.text_document_did_change(replace_all(uri, 4, FIXED))
    params = await asyncio.wait_for(published, TIMEOUT)
    assert (params.version, list(params.diagnostics)) == (4, [])
    later = waiter(client)
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(asyncio.shield(later), QUIET)
    later.cancel()
    assert list(client.diagnostics[uri]) == []


@pytest.mark.asyncio
async def test_the_buffer_is_checked_not_the_file_on_disk(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "alloc.py"
    await open_document(client, path, BUGGY)
    path.write_text(FIXED, encoding="utf-8")  # on disk fixed, in the editor still buggy
    published = waiter(client)
    client.text_document_did_save(
        lsp.DidSaveTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()))
    )
    params = await asyncio.wait_for(published, TIMEOUT)
    assert [d.code for d in params.diagnostics] == ["OWN201"]


@pytest.mark.asyncio
async def test_workspace_configuration_is_used(client: LanguageClient, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.ownlint]\nignore = ["OWN201"]\n', encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    params = await open_document(client, tmp_path / "pkg" / "alloc.py", BUGGY)
    assert list(params.diagnostics) == []


@pytest.mark.asyncio
async def test_quick_fix_adds_a_suppression_comment(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "alloc.py"
    [diagnostic] = (await open_document(client, path, BUGGY)).diagnostics
    actions = await asyncio.wait_for(
        client.text_document_code_action_async(
            lsp.CodeActionParams(
                text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()),
                range=diagnostic.range,
                context=lsp.CodeActionContext(diagnostics=[diagnostic]),
            )
        ),
        TIMEOUT,
    )
    assert actions is not None
    [action] = [a for a in actions if isinstance(a, lsp.CodeAction)]
    assert action.title == "Ignore OWN201 on this line"
    assert action.kind == lsp.CodeActionKind.QuickFix
    assert list(action.diagnostics or ()) == [diagnostic]
    assert action.edit is not None and action.edit.document_changes is not None
    [change] = action.edit.document_changes
    assert isinstance(change, lsp.TextDocumentEdit)
    [edit] = change.edits
    assert edit.new_text == "  # ownlint: ignore[OWN201]"
    assert edit.range == lsp.Range(
        start=lsp.Position(line=SECOND_FREE, character=25), end=lsp.Position(line=SECOND_FREE, character=25)
    )


@pytest.mark.asyncio
async def test_quick_fix_applies_the_rules_fix(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "env.py"
    [diagnostic] = (await open_document(client, path, DEVICE_FILTER)).diagnostics
    assert (diagnostic.code, diagnostic.severity) == ("OWN601", lsp.DiagnosticSeverity.Warning)
    actions = await asyncio.wait_for(
        client.text_document_code_action_async(
            lsp.CodeActionParams(
                text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()),
                range=diagnostic.range,
                context=lsp.CodeActionContext(diagnostics=[diagnostic]),
            )
        ),
        TIMEOUT,
    )
    assert actions is not None
    titles = [a.title for a in actions if isinstance(a, lsp.CodeAction)]
    assert titles == ["use `ONEAPI_DEVICE_SELECTOR` with the equivalent selector", "Ignore OWN601 on this line"]
    fix = actions[0]
    assert isinstance(fix, lsp.CodeAction) and fix.is_preferred
    assert fix.edit is not None and fix.edit.document_changes is not None
    [change] = fix.edit.document_changes
    assert isinstance(change, lsp.TextDocumentEdit)
    [edit] = change.edits
    assert (edit.range.start, edit.range.end, edit.new_text) == (
        lsp.Position(line=2, character=11),
        lsp.Position(line=2, character=31),
        '"ONEAPI_DEVICE_SELECTOR"',
    )


@pytest.mark.asyncio
async def test_hover_on_a_suppressed_code_shows_the_rule(client: LanguageClient, tmp_path: Path) -> None:
    text = "x = 1  # ownlint: ignore[OWN203]\n"
    path = tmp_path / "quiet.py"
    await open_document(client, path, text)
    hover = await asyncio.wait_for(
        client.text_document_hover_async(
            lsp.HoverParams(
                text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()),
                position=lsp.Position(line=0, character=text.index("OWN203") + 3),
            )
        ),
        TIMEOUT,
    )
    assert hover is not None
    assert isinstance(hover.contents, lsp.MarkupContent)
    assert hover.contents.kind == lsp.MarkupKind.Markdown
    assert hover.contents.value.startswith("# OWN203 use-after-free (error)\n")
    assert "## What it does" in hover.contents.value
    nothing = await asyncio.wait_for(
        client.text_document_hover_async(
            lsp.HoverParams(
                text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()), position=lsp.Position(line=0, character=1)
            )
        ),
        TIMEOUT,
    )
    assert nothing is None


def test_missing_pygls_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # another test may have imported ownlint.lsp (and so pygls) in this process: forget them both
    for name in [m for m in sys.modules if m.startswith("pygls.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pygls", None)
    monkeypatch.delitem(sys.modules, "ownlint.lsp", raising=False)
    monkeypatch.delattr(ownlint, "lsp", raising=False)  # else `from ownlint import lsp` finds the module
    result = CliRunner().invoke(cli, ["lsp"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert result.output.startswith("ownlint: error: the language server needs pygls and lsprotocol (pygls is missing)")
    assert result.output.count("\n") == 1
