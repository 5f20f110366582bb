"""The language server, `ownlint lsp`: diagnostics in the editor, over stdio (pygls).

What it does:

- checks a document when it is opened, changed and saved, from the editor's
  buffer (not the file on disk), with `api.check_source` and the
  configuration found by walking up from the document's path (as
  `ownlint check` would for that file);
- on a change, waits `DEBOUNCE_SECONDS` (30 ms: changes an editor sends
  together are checked once) and checks; while a check of a document runs,
  a newer change waits for it and is checked right after (at most one check
  runs and one waits, however fast the user types); a newer version always
  wins: a check of an older version that finishes late is dropped;
- publishes each finding with its code, the rule's severity, `source`
  "ownlint", the page of the rule's weakness (its CWE) as `codeDescription`, and the
  story (`Diagnostic.related`) as `relatedInformation`;
- offers quick fixes: one that adds `# ownlint: ignore[CODE]` to the reported
  line (merged into an `# ownlint: ignore[...]` already there), and one that
  applies the rule's fix when it offers one (`Diagnostic.fix`, safe or not:
  the user chooses in the editor);
- shows a rule's summary and documentation when hovering over its code in a
  suppression comment, and over a finding the rule's summary, the message
  and its `help:` advice (which each diagnostic also carries, in its message
  and as `data.help`);
- publishes no diagnostics for a file that the configuration's `exclude` or a
  `.gitignore` leaves out (as `ownlint check --force-exclude`);
- checks notebooks, synced cell by cell as notebook documents or opened as
  an `.ipynb` file's JSON text (`ownlint.lsp_notebook`).

Every message shown to the user (a finding's message, its related
information, a quick fix's title, a configuration error) goes through
`ownlint.lines.printable`: clients render these strings, so control and bidi
characters taken from the document are shown escaped (`^[`, `<U+202E>`).
Edits are not: a quick fix inserts exactly the text it means to.

Positions are converted between ownlint's code points and the encoding
negotiated with the client (UTF-16 unless the client offers another), and
findings into LSP diagnostics and quick fixes, in `ownlint.lsp_convert`.
What checking one document's text involves (its configuration, whether it
is excluded, the other files of its workspace) is `ownlint.lsp_analysis`.
Checks run one at a time on a worker thread, so that the server keeps
answering while one runs. A configuration or model error is shown once with
`window/showMessage` and the document gets no diagnostics.

Works with pygls 1.3 and 2.x (the two differ in where `LanguageServer` lives
and in how diagnostics are published; `ownlint.lsp_client` bridges that).

A document in a workspace folder (or under its configuration file's
directory) is analysed with the other files `ownlint check` would analyse with
it, from their open buffers or from disk (`ownlint.lsp_workspace`), so that a
helper in another module that frees its argument is seen; only the
document's findings are published.

Known limits: an edit to one file does not re-check the other open documents
(each is re-checked when it changes or is saved); the configuration is read
again for every check, not watched.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from ownlint import __version__, lsp_client, lsp_notebook
from ownlint.diagnostics import Diagnostic
from ownlint.lines import printable, split_lines
from ownlint.lsp_analysis import Analysis, analyse
from ownlint.lsp_convert import Positions, finding_hover, quick_fixes, to_lsp_diagnostic
from ownlint.lsp_stream import BoundedInput
from ownlint.lsp_workspace import WorkspaceFiles, snapshot
from ownlint.notebook import NotebookIndex
from ownlint.registry import all_rules
from ownlint.suppress import code_at

if TYPE_CHECKING:  # checked against pygls 2, the lower bound in pyproject.toml
    from pygls.lsp.server import LanguageServer
else:
    try:  # pygls 2
        from pygls.lsp.server import LanguageServer
    except ImportError:  # pygls 1.x
        from pygls.server import LanguageServer
from pygls.uris import to_fs_path

DEBOUNCE_SECONDS = 0.03
UNTITLED = "untitled.py"


@dataclass(slots=True)
class Checked:
    """The findings of one version of a document."""

    version: int | None
    source: str
    findings: list[Diagnostic]
    notebook: NotebookIndex | None = None  # the document is an `.ipynb` file's JSON text


class OwnlintServer:
    """The server's state and handlers around one pygls `LanguageServer`."""

    def __init__(self) -> None:
        self.server = LanguageServer(
            "ownlint",
            __version__,
            text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
            notebook_document_sync=lsp.NotebookDocumentSyncOptions(
                # the notebook type VS Code and JupyterLab's LSP give Jupyter notebooks (a filter without one
                # is valid LSP, but lsprotocol's clients fail to read it)
                notebook_selector=[
                    lsp.NotebookDocumentFilterWithCells(
                        cells=[lsp.NotebookCellLanguage("python")], notebook="jupyter-notebook"
                    )
                ],
                save=True,
            ),
        )
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ownlint-check")
        self.open: set[str] = set()
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.running: set[str] = set()  # documents whose check is under way (past its debounce)
        self.again: set[str] = set()  # documents changed while their check ran: check once more after it
        self.checked: dict[str, Checked] = {}
        self.problems: dict[str, str] = {}
        self.notebooks: dict[str, set[str]] = {}  # open notebook documents: the cells diagnostics were published on
        self.files = WorkspaceFiles()
        self._register()

    # --- documents ------------------------------------------------------

    def _register(self) -> None:
        server = self.server

        @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
        async def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
            self.open.add(params.text_document.uri)
            self.schedule(params.text_document.uri, 0.0)

        @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
        async def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
            self.schedule(params.text_document.uri, DEBOUNCE_SECONDS)

        @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
        async def did_save(params: lsp.DidSaveTextDocumentParams) -> None:
            self.files.forget()
            self.schedule(params.text_document.uri, 0.0)

        @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
        async def did_change_watched_files(params: lsp.DidChangeWatchedFilesParams) -> None:
            self.files.forget()

        @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
        async def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
            uri = params.text_document.uri
            self.open.discard(uri)
            self.cancel(uri)
            self.checked.pop(uri, None)
            self.problems.pop(uri, None)
            self._publish(uri, [], None)

        @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_OPEN)
        async def notebook_did_open(params: lsp.DidOpenNotebookDocumentParams) -> None:
            self.notebooks.setdefault(params.notebook_document.uri, set())
            self.schedule(params.notebook_document.uri, 0.0)

        @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE)
        async def notebook_did_change(params: lsp.DidChangeNotebookDocumentParams) -> None:
            self.schedule(params.notebook_document.uri, DEBOUNCE_SECONDS)

        @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_SAVE)
        async def notebook_did_save(params: lsp.DidSaveNotebookDocumentParams) -> None:
            self.files.forget()
            self.schedule(params.notebook_document.uri, 0.0)

        @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE)
        async def notebook_did_close(params: lsp.DidCloseNotebookDocumentParams) -> None:
            uri = params.notebook_document.uri
            self.cancel(uri)
            self.problems.pop(uri, None)
            cells = self.notebooks.pop(uri, set()) | {cell.uri for cell in params.cell_text_documents}
            for cell in sorted(cells):
                self._publish(cell, [], None)

        @server.feature(
            lsp.TEXT_DOCUMENT_CODE_ACTION,
            lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]),
        )
        async def code_action(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
            return await self.code_actions(params)

        @server.feature(lsp.TEXT_DOCUMENT_HOVER)
        def hover(params: lsp.HoverParams) -> lsp.Hover | None:
            return self.hover(params)

    def schedule(self, uri: str, delay: float) -> None:
        """Check `uri` after `delay` seconds, replacing a check still waiting; if one
        is under way, check again as soon as it ends (its result, for an older
        version, is dropped)."""
        if uri in self.running:
            self.again.add(uri)
            return
        self.cancel(uri)
        self.pending[uri] = asyncio.ensure_future(self._check_later(uri, delay))

    def cancel(self, uri: str) -> None:
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        self.again.discard(uri)

    async def _check_later(self, uri: str, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        self.running.add(uri)
        try:
            await self.check(uri)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # one document's check is isolated: say what broke, keep serving
            self._log(f"ownlint failed on {uri}: {type(error).__name__}: {error}")
        finally:
            self.running.discard(uri)
            if self.pending.get(uri) is asyncio.current_task():
                del self.pending[uri]
            if uri in self.again:
                self.again.discard(uri)
                self.schedule(uri, 0.0)

    async def check(self, uri: str) -> Checked | None:
        """Check the current version of `uri` and publish its diagnostics (None: closed or changed meanwhile)."""
        if uri in self.notebooks:
            await self._check_notebook(uri)
            return None
        if uri not in self.open:
            return None
        document = self.server.workspace.get_text_document(uri)
        version, source = document.version, document.source
        loop = asyncio.get_running_loop()
        analysis = await loop.run_in_executor(self.worker, self._analysis(source, uri))
        current = self.server.workspace.get_text_document(uri)
        if uri not in self.open or current.version != version:
            return None  # a newer version is on its way and will publish
        checked = Checked(version, source, analysis.findings, analysis.notebook)
        self.checked[uri] = checked
        self._publish(uri, self.lsp_diagnostics(checked), version)
        self._report_problem(uri, analysis.problem)
        return checked

    async def _check_notebook(self, uri: str) -> None:
        """Check the current version of the notebook document `uri` and publish the diagnostics of its cells."""
        cells = lsp_notebook.cells_of(self.server.workspace, uri)
        if cells is None:
            return
        joined = cells.joined()
        folders, buffers = snapshot(self.server.workspace, self.open)
        check = functools.partial(analyse, joined, self.path_of(uri), self.files, folders, buffers)
        analysis = await asyncio.get_running_loop().run_in_executor(self.worker, check)
        now = lsp_notebook.cells_of(self.server.workspace, uri)
        if uri not in self.notebooks or now is None or now.version != cells.version:
            return  # a newer version is on its way and will publish
        by_cell = lsp_notebook.cell_diagnostics(analysis.findings, joined, cells, self.encoding())
        for cell in sorted(self.notebooks[uri] - by_cell.keys()):
            self._publish(cell, [], None)
        for cell, diagnostics in by_cell.items():
            self._publish(cell, diagnostics, None)
        self.notebooks[uri] = set(by_cell)
        self._report_problem(uri, analysis.problem)

    async def current(self, uri: str) -> Checked | None:
        """The findings of the current version of `uri`, checking it now when they are
        not known yet; None for a document the editor does not have open (pygls would
        read it from disk, where it may no longer be)."""
        if uri not in self.open:
            return None
        document = self.server.workspace.get_text_document(uri)
        checked = self.checked.get(uri)
        if checked is not None and checked.version == document.version and checked.source == document.source:
            return checked
        loop = asyncio.get_running_loop()
        analysis = await loop.run_in_executor(self.worker, self._analysis(document.source, uri))
        return Checked(document.version, document.source, analysis.findings, analysis.notebook)

    def _analysis(self, source: str, uri: str) -> functools.partial[Analysis]:
        """`analyse` of `source` as `uri`, with the workspace's folders and open buffers as they are now."""
        folders, buffers = snapshot(self.server.workspace, self.open - {uri})
        return functools.partial(analyse, source, self.path_of(uri), self.files, folders, buffers)

    def path_of(self, uri: str) -> Path:
        """The file a document stands for; an unsaved one stands for `untitled.py` in the workspace's root."""
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if path:
            return Path(path)
        root = self.server.workspace.root_path or os.getcwd()
        return Path(root) / UNTITLED

    def encoding(self) -> str:
        """The position encoding negotiated with the client ("utf-16" unless it offered another)."""
        encoding = self.server.workspace.position_encoding
        return str(getattr(encoding, "value", encoding) or "utf-16")

    def positions(self, source: str) -> Positions:
        return Positions(split_lines(source), self.encoding())

    def lsp_diagnostics(self, checked: Checked) -> list[lsp.Diagnostic]:
        if checked.notebook is not None:
            return lsp_notebook.text_diagnostics(checked.findings, checked.notebook, checked.source, self.encoding())
        positions = self.positions(checked.source)
        return [to_lsp_diagnostic(d, positions, d.path) for d in checked.findings]

    # --- code actions and hover -----------------------------------------

    async def code_actions(self, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        checked = await self.current(uri)
        if checked is None or checked.notebook is not None:
            return []  # an edit at a position of a notebook's cells would land elsewhere in its JSON text
        positions = self.positions(checked.source)
        first = positions.from_client(params.range.start)[0]
        last = positions.from_client(params.range.end)[0]
        shown = params.context.diagnostics
        return quick_fixes(uri, checked.source, checked.version, checked.findings, positions, (first, last), shown)

    def hover(self, params: lsp.HoverParams) -> lsp.Hover | None:
        """A rule's documentation, over its code in a suppression comment."""
        if params.text_document.uri not in self.open:
            return None  # only open buffers are read, never the disk
        document = self.server.workspace.get_text_document(params.text_document.uri)
        positions = self.positions(document.source)
        line, column = positions.from_client(params.position)
        found = code_at(document.source, line, column)
        if found is None:
            return self._finding_hover(params.text_document.uri, document.source, positions, line, column)
        code, span = found
        rule = all_rules().get(code)
        if rule is None:
            return None
        return lsp.Hover(
            contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=rule.markdown()),
            range=positions.range(span),
        )

    # --- talking to the client (pygls 1.x and 2.x) ----------------------

    def _finding_hover(self, uri: str, source: str, positions: Positions, line: int, column: int) -> lsp.Hover | None:
        """The rule's summary and the `help:` advice of the findings under the cursor (of the version checked)."""
        checked = self.checked.get(uri)
        if checked is None or checked.source != source or checked.notebook is not None:
            return None
        under = [d for d in checked.findings if d.path == checked.findings[0].path and _covers(d, line, column)]
        if not under:
            return None
        return lsp.Hover(
            contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=finding_hover(under)),
            range=positions.range(under[0].span),
        )

    def _publish(self, uri: str, diagnostics: list[lsp.Diagnostic], version: int | None) -> None:
        lsp_client.publish(self.server, uri, diagnostics, version)

    def _report_problem(self, uri: str, problem: str | None) -> None:
        """Show a configuration or model error once per document (again when it changes)."""
        if problem is None:
            self.problems.pop(uri, None)
            return
        if self.problems.get(uri) == problem:
            return
        self.problems[uri] = problem
        self._show(printable(f"ownlint: {problem}"), lsp.MessageType.Error)

    def _show(self, message: str, kind: lsp.MessageType) -> None:
        lsp_client.show(self.server, message, kind)

    def _log(self, message: str) -> None:
        lsp_client.log(self.server, message)


def _covers(finding: Diagnostic, line: int, column: int) -> bool:
    span = finding.span
    return (span.line, span.column) <= (line, column) <= (span.end_line, span.end_column)


def serve() -> None:
    """Run the server on standard input and output until the client ends it."""
    lsp_client.quiet_logging()
    OwnlintServer().server.start_io(stdin=BoundedInput(sys.stdin.buffer))  # type: ignore[arg-type]  # pygls types stdin as BinaryIO; it calls only readline and read
