"""The progress bar of `ownlint check`, on standard error.

Drawn only when standard error is a terminal, and only for a run that lasts:
it appears after `delay` seconds and vanishes when the run ends, so a quick
run prints nothing and piped or redirected output never holds a bar.
`NO_COLOR` takes the colour out of it, nothing more.
"""

from __future__ import annotations

import os
import sys
import threading
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console

DELAY_SECONDS = 0.5


class ProgressBar:
    """An `ownlint.api.Progress` that draws a transient bar after `delay` seconds; use it as a context manager."""

    def __init__(self, console: Console, delay: float = DELAY_SECONDS) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("checking"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("files"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self._task = self._progress.add_task("checking", total=None)
        self._delay = delay
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._shown = False
        self._over = False

    def start(self, total: int) -> None:
        self._progress.update(self._task, total=total)
        with self._lock:
            if self._timer is None and not self._over:
                self._timer = threading.Timer(self._delay, self._show)
                self._timer.daemon = True
                self._timer.start()

    def advance(self, count: int) -> None:
        self._progress.advance(self._task, count)

    def finish(self) -> None:
        """Take the bar away (if it was drawn); nothing is drawn after this."""
        with self._lock:
            self._over = True
            timer = self._timer
            if timer is not None:
                timer.cancel()
            if self._shown:
                self._progress.stop()
        if timer is not None and timer is not threading.current_thread():
            timer.join()  # no thread of ours outlives the run (one about stops later runs forking their workers)

    @property
    def shown(self) -> bool:
        """Whether the bar was drawn at some point."""
        return self._shown

    def _show(self) -> None:
        with self._lock:
            if not self._over:
                self._progress.start()
                self._shown = True

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.finish()


def progress_for(stream: TextIO | None = None) -> ProgressBar | None:
    """A bar on `stream` (default standard error) when it is a terminal; None otherwise."""
    stream = stream if stream is not None else sys.stderr
    try:
        on_terminal = stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream is no terminal
        return None
    if not on_terminal:
        return None
    from rich.console import Console  # here: a run whose output is not a terminal never imports rich

    colour = not os.environ.get("NO_COLOR")
    console = Console(
        file=stream,
        force_terminal=True,
        no_color=not colour,
        color_system="auto" if colour else None,
        highlight=False,
    )
    return ProgressBar(console)
