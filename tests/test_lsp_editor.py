"""The editor items of issue 35, through a real client (pytest-lsp): hover on a
finding shows the rule's summary and its `help:` advice, the diagnostic
carries that advice, and excluded or git-ignored files get no diagnostics."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import forked
import pytest
import pytest_lsp
from cli_helpers import BUGGY
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from test_lsp import SECOND_FREE, TIMEOUT, open_document

from ownlint.registry import all_rules


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


@pytest.mark.asyncio
async def test_hover_on_a_finding_shows_the_summary_and_the_help(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "alloc.py"
    params = await open_document(client, path, BUGGY)
    [diagnostic] = params.diagnostics
    hover = await asyncio.wait_for(
        client.text_document_hover_async(
            lsp.HoverParams(
                text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()),
                position=lsp.Position(line=SECOND_FREE, character=6),
            )
        ),
        TIMEOUT,
    )
    assert hover is not None
    assert isinstance(hover.contents, lsp.MarkupContent)
    text = hover.contents.value
    assert all_rules()["OWN201"].summary in text
    assert "help:" in text
    assert isinstance(diagnostic.data, dict)
    assert diagnostic.data["help"] in text


@pytest.mark.asyncio
async def test_the_diagnostic_carries_the_help(client: LanguageClient, tmp_path: Path) -> None:
    params = await open_document(client, tmp_path / "alloc.py", BUGGY)
    [diagnostic] = params.diagnostics
    assert isinstance(diagnostic.data, dict)
    assert diagnostic.data["help"]
    assert "help: " + diagnostic.data["help"] in diagnostic.message


@pytest.mark.asyncio
async def test_an_excluded_file_gets_no_diagnostics(client: LanguageClient, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.ownlint]\nexclude = ["generated/"]\n', encoding="utf-8")
    (tmp_path / "generated").mkdir()
    params = await open_document(client, tmp_path / "generated" / "alloc.py", BUGGY)
    assert not params.diagnostics


@pytest.mark.asyncio
async def test_a_git_ignored_file_gets_no_diagnostics(client: LanguageClient, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("scratch.py\n", encoding="utf-8")
    params = await open_document(client, tmp_path / "scratch.py", BUGGY)
    assert not params.diagnostics
