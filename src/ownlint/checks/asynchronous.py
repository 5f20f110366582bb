"""Asynchronous submissions (OWN404): what an owner that dies while a
submission may still read it means."""

from __future__ import annotations

from ownlint.engine.events import Checker, Findings, InFlightReleased


class AsyncChecker(Checker):
    def on_in_flight_released(self, e: InFlightReleased, out: Findings) -> None:
        out.report("OWN404", e.node, e.name, (("how", e.how),), e.submitted, obj=e.obj)
