"""`ownlint.slots`: the faster `__init__` stores what the dataclass's own would."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import dataclass, field

import pytest

from ownlint.diagnostics import Diagnostic, Edit, FileError, FileReport, Fix, Related, Span
from ownlint.engine.cfg import Edge, Elem
from ownlint.engine.state import HState, Step
from ownlint.engine.summaries import Outcome, Summary
from ownlint.engine.typestate import RawViolation
from ownlint.engine.violations import StoryStep, Violation
from ownlint.slots import fast_init, pickle_by_fields, slotted_init


def make(decorate: bool) -> type:
    made: list[str] = []

    @dataclass(frozen=True, slots=True)
    class Sample:
        a: int
        b: str = "b"
        c: list = field(default_factory=list)
        d: tuple = field(default=(), compare=False)

        def __post_init__(self) -> None:
            made.append(self.b)

    Sample.made = made  # type: ignore[attr-defined]
    return fast_init(Sample) if decorate else Sample


@pytest.mark.parametrize(
    "args, kwargs",
    [((1,), {}), ((1, "x"), {}), ((1,), {"c": [2]}), ((), {"a": 1, "d": (3,)}), ((1, "y", [4], (5,)), {})],
)
def test_same_fields_defaults_factories_and_post_init(args: tuple, kwargs: dict) -> None:
    fast, plain = make(True), make(False)
    mine, theirs = fast(*args, **kwargs), plain(*args, **kwargs)
    assert [getattr(mine, f.name) for f in dataclasses.fields(fast)] == [
        getattr(theirs, f.name) for f in dataclasses.fields(plain)
    ]
    assert fast.made == plain.made == [theirs.b]  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError):
        mine.a = 2  # type: ignore[misc]


@pytest.mark.parametrize("args, kwargs", [((1,), {}), ((1, "y", [4], (5,)), {}), ((), {"a": 1, "c": [2]})])
def test_assigning_stores_the_same_fields(args: tuple, kwargs: dict) -> None:
    """With `assign`, for a class whose `__setattr__` is object's: the same
    stores, made with plain assignments (the fields' names, not the
    template's placeholders)."""
    plain = make(False)
    unfrozen = make(False)
    unfrozen.__setattr__ = object.__setattr__  # type: ignore[assignment]
    init = slotted_init(unfrozen, assign=True)
    assert init is not None and {"a", "b", "c", "d"} <= set(init.__code__.co_names)
    unfrozen.__init__ = init  # type: ignore[misc]
    mine, theirs = unfrozen(*args, **kwargs), plain(*args, **kwargs)
    assert [getattr(mine, f.name) for f in dataclasses.fields(plain)] == [
        getattr(theirs, f.name) for f in dataclasses.fields(plain)
    ]
    assert unfrozen.made == plain.made == [theirs.b]  # type: ignore[attr-defined]
    frozen = make(False)
    frozen.__init__ = slotted_init(frozen, assign=True)  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):  # hence only for unfrozen classes
        frozen(1)


def test_a_fresh_value_from_each_default_factory() -> None:
    fast = make(True)
    assert fast(1).c is not fast(1).c


def test_the_same_errors_for_wrong_arguments() -> None:
    fast, plain = make(True), make(False)
    for args, kwargs in [((), {}), ((1,), {"e": 2}), ((1, 2, 3, 4, 5), {})]:
        with pytest.raises(TypeError):
            plain(*args, **kwargs)
        with pytest.raises(TypeError):
            fast(*args, **kwargs)


def test_a_class_without_slots_is_refused() -> None:
    @dataclass(frozen=True)
    class NoSlots:
        a: int

    assert slotted_init(NoSlots) is None
    with pytest.raises(TypeError, match="NoSlots"):
        fast_init(NoSlots)


@pytest.mark.parametrize(
    "cls", [Span, Related, Diagnostic, Step, HState, Elem, Edge, RawViolation, Outcome, Summary, StoryStep, Violation]
)
def test_the_engine_classes_have_it(cls: type) -> None:
    assert "_set0" in cls.__init__.__code__.co_names  # type: ignore[misc]
    assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"  # type: ignore[misc]


def sample_report() -> FileReport:
    span = Span(5, 5, 5, 22)
    fix = Fix("unsafe", "free once", (Edit(span, ""),))
    finding = Diagnostic("OWN201", "a.py", span, "msg", (Related("a.py", Span(2, 2, 2, 9), "first"),), fix, "p", None, "x")
    return FileReport("a.py", [finding], [FileError("a.py", "budget note", "budget")])


def test_reports_pickle_and_copy_by_their_fields() -> None:
    report = sample_report()
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(report, protocol=protocol))
        assert back == report and back is not report
    assert copy.deepcopy(report) == report and copy.copy(report.diagnostics[0]) == report.diagnostics[0]
    for cls in (Span, Related, Edit, Fix, Diagnostic, FileError, FileReport):
        assert cls.__reduce__.__qualname__ == f"{cls.__qualname__}.__reduce__"  # type: ignore[attr-defined]


def test_pickle_by_fields_refuses_a_field_outside_init() -> None:
    @dataclass(frozen=True, slots=True)
    class Derived:
        a: int
        b: int = field(init=False, default=0)

    with pytest.raises(TypeError, match="Derived"):
        pickle_by_fields(Derived)


def test_pickle_by_fields_with_one_field() -> None:
    @dataclass(frozen=True, slots=True)
    class One:
        a: int

    globals()["One"] = pickle_by_fields(One)  # pickle finds classes by name
    One.__qualname__ = "One"
    assert pickle.loads(pickle.dumps(One(3))) == One(3)
