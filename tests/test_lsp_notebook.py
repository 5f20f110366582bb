"""Notebook documents in the language server (issue 35), through a real client (pytest-lsp): the
client syncs a notebook cell by cell (`notebookDocument/didOpen`, as VS Code does), the server
checks the cells joined, and publishes each finding on its cell's document, at the line in the cell."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import forked
import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from test_lsp import TIMEOUT

CELLS = [
    (lsp.NotebookCellKind.Markup, "# Allocate once, free twice\n\n`runtime.cudaFree(p)` is prose."),
    (lsp.NotebookCellKind.Code, "from cuda.bindings import runtime\n\nerr, p = runtime.cudaMalloc(1024)"),
    (lsp.NotebookCellKind.Code, "%time runtime.cudaFree(p)"),
    (lsp.NotebookCellKind.Code, "runtime.cudaFree(p)"),
]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=forked.command("lsp")))
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    capabilities = client_capabilities("visual-studio-code")
    capabilities.notebook_document = lsp.NotebookDocumentClientCapabilities(
        synchronization=lsp.NotebookDocumentSyncClientCapabilities()
    )
    params = lsp.InitializeParams(
        capabilities=capabilities,
        root_uri=tmp_path.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=tmp_path.as_uri(), name="work")],
    )
    result = await asyncio.wait_for(lsp_client.initialize_session(params), TIMEOUT)
    assert result.capabilities.notebook_document_sync is not None
    yield
    await asyncio.wait_for(lsp_client.shutdown_session(), TIMEOUT)


def cell_uri(notebook: Path, number: int) -> str:
    return f"vscode-notebook-cell:{notebook.as_posix()}#cell{number}"


async def published(client: LanguageClient, uri: str, count: int | None = None) -> Sequence[lsp.Diagnostic]:
    """The diagnostics published for `uri` (once there are `count` of them, when given)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while loop.time() < deadline:
        found = client.diagnostics.get(uri)
        if found is not None and (count is None or len(found) == count):
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"nothing published for {uri}: {client.diagnostics}")


def open_notebook(client: LanguageClient, notebook: Path) -> None:
    client.notebook_document_did_open(
        lsp.DidOpenNotebookDocumentParams(
            notebook_document=lsp.NotebookDocument(
                uri=notebook.as_uri(),
                notebook_type="jupyter-notebook",
                version=1,
                cells=[
                    lsp.NotebookCell(kind=kind, document=cell_uri(notebook, n))
                    for n, (kind, _) in enumerate(CELLS, start=1)
                ],
            ),
            cell_text_documents=[
                lsp.TextDocumentItem(
                    uri=cell_uri(notebook, n),
                    language_id="python" if kind == lsp.NotebookCellKind.Code else "markdown",
                    version=1,
                    text=text,
                )
                for n, (kind, text) in enumerate(CELLS, start=1)
            ],
        )
    )


@pytest.mark.asyncio
async def test_a_finding_is_published_on_its_cell(client: LanguageClient, tmp_path: Path) -> None:
    notebook = tmp_path / "double_free.ipynb"
    open_notebook(client, notebook)
    [diagnostic] = await published(client, cell_uri(notebook, 4))
    assert diagnostic.code == "OWN201"
    assert diagnostic.range == lsp.Range(start=lsp.Position(0, 0), end=lsp.Position(0, 19))
    related = diagnostic.related_information or []
    where = {(r.location.uri, r.location.range.start.line, r.location.range.start.character) for r in related}
    assert where == {(cell_uri(notebook, 2), 2, 9), (cell_uri(notebook, 3), 0, 6)}
    assert not await published(client, cell_uri(notebook, 2))
    assert not await published(client, cell_uri(notebook, 3))


@pytest.mark.asyncio
async def test_editing_a_cell_checks_again_and_closing_clears(client: LanguageClient, tmp_path: Path) -> None:
    notebook = tmp_path / "double_free.ipynb"
    open_notebook(client, notebook)
    await published(client, cell_uri(notebook, 4), count=1)
    client.notebook_document_did_change(
        lsp.DidChangeNotebookDocumentParams(
            notebook_document=lsp.VersionedNotebookDocumentIdentifier(version=2, uri=notebook.as_uri()),
            change=lsp.NotebookDocumentChangeEvent(
                cells=lsp.NotebookDocumentCellChanges(
                    text_content=[
                        lsp.NotebookDocumentCellContentChanges(
                            document=lsp.VersionedTextDocumentIdentifier(version=2, uri=cell_uri(notebook, 4)),
                            changes=[lsp.TextDocumentContentChangeWholeDocument(text="p = None")],
                        )
                    ]
                )
            ),
        )
    )
    assert not await published(client, cell_uri(notebook, 4), count=0)
    client.diagnostics[cell_uri(notebook, 3)] = [
        lsp.Diagnostic(range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)), message="stale")
    ]
    client.notebook_document_did_close(
        lsp.DidCloseNotebookDocumentParams(
            notebook_document=lsp.NotebookDocumentIdentifier(uri=notebook.as_uri()),
            cell_text_documents=[lsp.TextDocumentIdentifier(uri=cell_uri(notebook, n)) for n in range(1, 5)],
        )
    )
    assert not await published(client, cell_uri(notebook, 3), count=0)


def json_position(text: str, needle: str, column: int = 0, last: bool = False) -> lsp.Position:
    """Where `needle` (a source line, as the JSON text quotes it) starts in `text`, plus `column` characters."""
    lines = text.splitlines()
    rows = [n for n, line in enumerate(lines) if f'"{needle}' in line]
    row = rows[-1] if last else rows[0]
    return lsp.Position(row, lines[row].index(f'"{needle}') + 1 + column)


@pytest.mark.asyncio
async def test_an_ipynb_opened_as_text_shows_findings_on_their_json_lines(
    client: LanguageClient, tmp_path: Path
) -> None:
    """An editor without notebook support (Neovim) shows the JSON text: each finding sits on the line
    of the JSON that holds its source line, and its message starts with the cell and the line."""
    source = Path(__file__).resolve().parent / "data" / "notebooks" / "double_free.ipynb"
    path = tmp_path / "double_free.ipynb"
    text = source.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=path.as_uri(), language_id="json", version=1, text=text)
        )
    )
    [diagnostic] = await published(client, path.as_uri())
    assert diagnostic.code == "OWN201"
    assert diagnostic.message.startswith("cell 4, line 1, column 1: `p` is freed a second time")
    start = json_position(text, "runtime.cudaFree(p)", last=True)
    assert diagnostic.range == lsp.Range(start=start, end=lsp.Position(start.line, start.character + 19))
    related = diagnostic.related_information or []
    assert [r.message for r in related] == [
        "cell 2, line 3, column 10: memory allocated here",
        "cell 3, line 1, column 1: first freed here",
    ]
    assert [r.location.range.start for r in related] == [
        json_position(text, "err, p = runtime.cudaMalloc(1024)", column=9),
        json_position(text, "runtime.cudaFree(p)"),
    ]
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
    assert not actions  # a suppression comment written into the JSON text would break the file
