"""The engine's generic events and checker facts (issue 30, points 2 and 3),
as a checker from outside ownlint sees them: tests/checkers_events/recorder.py
subscribes and records; nothing here reads the engine's internals."""

from __future__ import annotations

import textwrap

import pytest
from checkers_events import reader, recorder

from ownlint.engine.modelling.models import ModelSet, load_models
from ownlint.engine.program.project import EngineOptions, SourceFile, analyze_project

RECORDER = "checkers_events.recorder:Recorder"


@pytest.fixture(scope="module")
def models() -> ModelSet:
    return load_models()


def events(
    source: str, models: ModelSet, checkers: tuple[str, ...] = (RECORDER,), budget_ok: bool = False
) -> tuple[list[str], list[str]]:
    """The events recorded, and the codes reported, analysing `source`."""
    recorder.SEEN.clear()
    (report,) = analyze_project([SourceFile("m.py", textwrap.dedent(source))], models, EngineOptions(checkers=checkers))
    assert not [e for e in report.errors if not (budget_ok and e.kind == "budget")]
    return list(recorder.SEEN), [f"{d.code}:{d.span.line}" for d in report.diagnostics]


def only(prefix: str, seen: list[str]) -> list[str]:
    return [s for s in seen if s.startswith(prefix)]


def test_a_frame_ends_by_return_by_falling_off_and_by_raising(models: ModelSet) -> None:
    seen, _ = events(
        """
        def f(c):
            if c:
                return 1
            if c > 2:
                raise ValueError(c)
            c = 3
        """,
        models,
    )
    assert only("frame-end", seen) == [
        "frame-end end at def f",  # the module's last statement
        "frame-end end at c = 3",
        "frame-end raise at def f",
        "frame-end return at return 1",
    ]


def test_a_return_inside_try_finally_still_ends_the_frame_by_return(models: ModelSet) -> None:
    seen, _ = events(
        """
        def f(c):
            try:
                return c
            finally:
                c = 0
        """,
        models,
    )
    assert only("frame-end", seen) == ["frame-end end at def f", "frame-end return at return c"]


def test_a_handle_dies_when_its_last_name_is_rebound_deleted_or_the_frame_ends(models: ModelSet) -> None:
    seen, _ = events(
        """
        from cuda.bindings import driver

        def rebound():
            err, p = driver.cuMemAlloc(8)
            p = None

        def deleted():
            err, p = driver.cuMemAlloc(8)
            del p

        def ends():
            err, p = driver.cuMemAlloc(8)
            q = p

        def returned():
            err, p = driver.cuMemAlloc(8)
            return p

        def aliased():
            err, p = driver.cuMemAlloc(8)
            q = p
            p = None
        """,
        models,
    )
    assert only("death", seen) == [
        "death p rebound at p = None (live)",
        "death p deleted at del p (live)",
        "death p frame end at q = p (live)",
        "death q frame end at p = None (live)",
    ]


def test_escapes_binds_and_calls_are_published(models: ModelSet) -> None:
    seen, _ = events(
        """
        from cuda.bindings import driver

        class Holder:
            def keep(self):
                err, p = driver.cuMemAlloc(8)
                self.p = p
        """,
        models,
    )
    # three entries: the cuda.bindings spelling, the ctypes one and its parent (rules/cuda_driver.toml)
    assert "call cuda.bindings.driver.cuMemAlloc args=1 result=value - Create,Status,Create,Status,ParentOf" in seen
    assert "bind self.p" in seen
    assert "escape at self.p = p" in seen


def test_an_assumed_test_names_the_object_and_the_truth_taken(models: ModelSet) -> None:
    seen, _ = events(
        """
        from cuda.bindings import driver

        def f():
            err, p = driver.cuMemAlloc(8)
            if not p:
                return
            while p:
                p = None
        """,
        models,
    )
    # `not p` is a test of `p` with its edges swapped (cfg_builder.py)
    assert only("assume", seen) == [
        "assume p True obj",
        "assume p False obj",
        "assume p True obj",
        "assume p True obj",
        "assume p False -",  # p is None by then
    ]
    assert "death p frame end at return (live)" in seen


def test_a_test_of_a_calls_status_says_on_which_side_the_call_failed(models: ModelSet) -> None:
    """A modelled call with a status returns one even when its model makes
    nothing (a copy, a set): the side of a test where it failed names it."""
    seen, _ = events(
        """
        from cuda.bindings import driver

        OK = driver.CUresult.CUDA_SUCCESS

        def f(p, n, stream):
            (err,) = driver.cuMemsetD8Async(p, 0, n, stream)
            if err != OK:
                return 1
            if err == OK:
                return 2
        """,
        models,
    )
    assert only("failed-status", seen) == ["failed-status err != OK True"]
    assert only("assume err", seen) == [
        "assume err != OK True -",
        "assume err != OK False -",
        "assume err == OK True -",
    ]


def test_a_checker_keeps_facts_of_its_own_per_path(models: ModelSet) -> None:
    source = """
        from cuda.bindings import driver

        def f(c):
            err, p = driver.cuMemAlloc(8)
            if c:
                driver.cuMemFree(p)
            if p:
                pass

        def g(c):
            err, q = driver.cuMemAlloc(8)
            driver.cuMemFree(q)
            q = None
            if q:
                pass
        """
    seen, _ = events(source, models, ("checkers_events.recorder:Released",))
    assert seen == ["released, then tested: p"]  # on the path of f that freed p; g rebound q


def test_facts_that_grow_in_a_loop_are_joined_by_the_checker(models: ModelSet) -> None:
    seen, _ = events(
        """
        from cuda.bindings import driver

        def f(n):
            err, p = driver.cuMemAlloc(8)
            touch(p)
            driver.cuMemFree(p)

        def g(n):
            err, p = driver.cuMemAlloc(8)
            for i in range(n):
                touch(p)
            driver.cuMemFree(p)
        """,
        models,
        ("checkers_events.recorder:Counted",),
    )
    assert seen[0] == "released after 1"
    assert set(seen[1:]) <= {
        "released after None",
        "released after 1",
        "released after 2",
        "released after 3",
        "released after many",
    }
    assert "released after many" in seen[1:]


def test_no_checker_with_facts_changes_no_finding(models: ModelSet) -> None:
    """The built-in checkers with a recorder beside them find what they find alone."""
    from ownlint.checks import CHECKERS

    source = """
        from cuda.bindings import driver

        def f():
            err, p = driver.cuMemAlloc(8)
            driver.cuMemFree(p)
            driver.cuMemFree(p)
        """
    _, alone = events(source, models, CHECKERS)
    _, beside = events(source, models, (*CHECKERS, RECORDER, "checkers_events.recorder:Counted"))
    assert alone == beside == ["OWN201:7"]


def test_a_call_carries_its_receiver_and_its_models_effects(models: ModelSet) -> None:
    seen, _ = events(
        """
        import pycuda.driver as cuda

        def f(n):
            buf = cuda.mem_alloc(n)
            buf.free()
            print(n)
        """,
        models,
    )
    assert only("call", seen) == [
        "call pycuda.driver.mem_alloc args=1 result=value - Create",
        "call buf.free args=0 result=none receiver ReleaseReceiver",  # a method's effects, matched by its name
        "call print args=1 result=none - -",
    ]


def test_a_method_matched_by_name_carries_its_effects(models: ModelSet) -> None:
    seen, _ = events(
        """
        import dpctl

        def f(q, k, buf, n):
            ev = q.submit_async(k, [buf], [n])
            ev.wait()
        """,
        models,
    )
    assert only("call", seen)[0] == "call q.submit_async args=3 result=value receiver KeepAlive"


def test_a_handle_a_loop_makes_again_dies_when_its_name_takes_the_new_one(models: ModelSet) -> None:
    seen, _ = events(
        """
        from cuda.bindings import driver

        def f(n):
            for i in range(n):
                err, ev = driver.cuEventCreate(0)
        """,
        models,
    )
    assert "death ev rebound at err, ev = driver.cuEventCreate(0) (live)" in seen


def test_a_call_names_the_handles_its_model_made_wherever_it_put_them(models: ModelSet) -> None:
    seen, _ = events(
        """
        import ctypes
        from cuda.bindings import driver

        def f():
            err, s = driver.cuStreamCreate(0)
            ev = driver.CUevent()
            driver.cuEventCreate(ctypes.byref(ev), 0)
            driver.cuStreamSynchronize(s)
        """,
        models,
        ("checkers_events.recorder:Made",),
    )
    assert seen == [
        "made 1 by cuda.bindings.driver.cuStreamCreate",
        "made 0 by cuda.bindings.driver.CUevent",
        # the cuda.bindings entry (element 1) and the ctypes one (out-parameter 0) both make one
        "made 2 by cuda.bindings.driver.cuEventCreate, one out of its value",
        "made 0 by cuda.bindings.driver.cuStreamSynchronize",
    ]


def test_a_failed_creation_made_nothing_whatever_facts_a_checker_recorded(models: ModelSet) -> None:
    """A status's failure side undoes the call's creation even though a
    checker recorded a fact of the handle after the call."""
    seen, _ = events(
        """
        from cuda.bindings import driver

        def f():
            err, p = driver.cuMemAlloc(8)
            if err != driver.CUresult.CUDA_SUCCESS:
                return err
            return 0
        """,
        models,
        ("checkers_events.recorder:Marks",),
    )
    assert seen == ["death of a made handle at return 0"]


def test_a_failed_release_undoes_the_release_not_the_facts_checkers_recorded(models: ModelSet) -> None:
    """On a status's failure side the handle is live again (its typestate of
    before the call), and keeps the facts a checker recorded since."""
    seen, _ = events(
        """
        from cuda.bindings import driver

        def f(p):
            err, q = driver.cuMemAlloc(8)
            (err,) = driver.cuMemFree(q)
            if err != driver.CUresult.CUDA_SUCCESS:
                return err
            return 0
        """,
        models,
        ("checkers_events.recorder:Marks",),
    )
    assert sorted(seen) == ["death of a released handle at return 0", "death of a released handle at return err"]


def test_a_handle_added_to_a_value_not_followed_escapes(models: ModelSet) -> None:
    seen, _ = events(
        """
        from cuda.bindings import driver

        def f(n):
            buffers = []
            err, d = driver.cuMemAlloc(8)
            buffers += [(n, d)]
        """,
        models,
    )
    assert "escape at buffers += [(n, d)]" in seen


def test_a_checker_keeps_facts_of_a_call_value_the_engine_knows_nothing_of(models: ModelSet) -> None:
    seen, _ = events(
        """
        def f(c):
            x = make()
            y = x
            look(y)
            z = other()
            look(z)
            look(make())
            for i in range(c):
                w = make()
                mark(w)
            look(w)
        """,
        models,
        ("checkers_events.recorder:Tracked",),
    )
    # `other()`'s value is an object only once bound (an unknown value), with no fact
    assert seen == ["look y: made", "look z: None", "look make(): made", "look w: marked"]


def test_a_callees_facts_of_its_parameters_are_replayed_at_each_call(models: ModelSet) -> None:
    seen, _ = events(
        """
        def marks(p):
            mark(p)

        def leaves(p):
            look(p)

        def f():
            x = make()
            leaves(x)
            marks(x)
            look(x)
        """,
        models,
        ("checkers_events.recorder:Tracked",),
    )
    assert "replayed x via marks: marked, was made" in seen
    assert not any(s.startswith("replayed x via leaves") for s in seen)  # it left no fact
    assert seen[-1] == "look x: marked"


def test_a_call_carries_the_effects_the_evaluator_leaves_to_the_checkers(models: ModelSet) -> None:
    seen, _ = events(
        """
        import torch

        def f(cap):
            return torch.from_dlpack(cap)
        """,
        models,
        ("checkers_events.recorder:Effects",),
    )
    assert seen == ["torch.from_dlpack: Consume; models known"]


def read(source: str, models: ModelSet) -> list[str]:
    """What checkers_events.reader saw analysing `source`."""
    reader.SEEN.clear()
    events(source, models, ("checkers_events.reader:Reader",))
    return list(reader.SEEN)


def test_a_checker_reads_the_models_makes_story_steps_and_lists_its_facts(models: ModelSet) -> None:
    seen = read(
        """
        def f(p, q):
            mark(p)
            return 1
        """,
        models,
    )
    assert seen == [
        "end: facts []",  # the module
        "step marked here at mark(p) in Expr; models: True",
        "return: facts ['marked as p']",
    ]


def test_an_object_dying_with_its_frame_says_how_the_frame_ended(models: ModelSet) -> None:
    seen = read(
        """
        from cuda.bindings import driver

        def returns():
            err, p = driver.cuMemAlloc(8)
            return 1

        def ends():
            err, p = driver.cuMemAlloc(8)

        def raises():
            err, p = driver.cuMemAlloc(8)
            raise ValueError(p)
        """,
        models,
    )
    deaths = [s for s in seen if s.startswith("death p")]
    assert deaths == [
        "death p with the frame (return) at return 1",
        "death p with the frame (end) at err, p = driver.cuMemAlloc(8)",
        "death p with the frame (raise) at raises",
    ]


def test_a_call_says_whether_it_is_a_method_of_a_value(models: ModelSet) -> None:
    reader.SEEN.clear()
    events(
        """
        import os

        def f(q):
            q.wait()
            os.wait()
            g()
        """,
        models,
        ("checkers_events.reader:Escapes",),
    )
    assert reader.SEEN == [
        "call q.wait returns NoneType (a method)",
        "call os.wait returns NoneType",
        "call g returns NoneType",
    ]


def test_a_call_that_keeps_its_arguments_alive_returns_a_new_object_and_keeps_them_from_escaping(
    models: ModelSet,
) -> None:
    """A `keep-alive` effect: the call reads the memory at its kept positions
    until an event is waited, and keeps no reference to it (the memory's
    owner must); its value is a new object, the event."""
    reader.SEEN.clear()
    events(
        """
        def f(q, k, buf, n):
            ev = q.submit_async(k, [buf], [n])
            ev2 = q.submit_async(k, [n], [n])
        """,
        models,
        ("checkers_events.reader:Escapes",),
    )
    first = "ev = q.submit_async(k, [buf], [n])"
    second = "ev2 = q.submit_async(k, [n], [n])"
    assert reader.SEEN == [
        f"escape Param(1) at {first}",  # the kernel and the ranges: given to unknown code
        f"escape Param(3) at {first}",
        "call q.submit_async returns Site (a method)",
        f"escape Param(1) at {second}",
        f"escape Param(3) at {second}",
        "call q.submit_async returns Site (a method)",
    ]


def test_a_checker_knows_where_paths_were_merged_past_the_budget(models: ModelSet) -> None:
    """Nine independent branches that each may make a handle: 512 path states,
    merged past the budget of 128, where a checker is told so (what the path
    no longer shows proves nothing there); a small function is not."""
    seen, _ = events(
        """
        from cuda.bindings import driver

        def many(c0, c1, c2, c3, c4, c5, c6, c7, c8):
            if c0:
                err, a0 = driver.cuMemAlloc(8)
            if c1:
                err, a1 = driver.cuMemAlloc(8)
            if c2:
                err, a2 = driver.cuMemAlloc(8)
            if c3:
                err, a3 = driver.cuMemAlloc(8)
            if c4:
                err, a4 = driver.cuMemAlloc(8)
            if c5:
                err, a5 = driver.cuMemAlloc(8)
            if c6:
                err, a6 = driver.cuMemAlloc(8)
            if c7:
                err, a7 = driver.cuMemAlloc(8)
            if c8:
                err, a8 = driver.cuMemAlloc(8)
            print(0)

        def few(c):
            if c:
                err, a = driver.cuMemAlloc(8)
            print(0)
        """,
        models,
        ("checkers_events.recorder:Merged",),
        budget_ok=True,
    )
    assert "end merged=True" in seen
    assert seen[-1] == "end merged=False"  # few, analysed after many


def test_a_return_carries_its_value_and_the_frame_tells_its_locals(models: ModelSet) -> None:
    seen, _ = events(
        """
        from cuda.bindings import driver

        def f(n, c):
            a = make()
            if c:
                return a
            if n:
                return 1
            err, p = driver.cuMemAlloc(8)
            return p
        """,
        models,
        ("checkers_events.recorder:Returned",),
    )
    assert seen == [
        "end none; locals []",  # the module
        "return object; locals ['a', 'p']",  # the handle; `n` and `c` are parameters
        "return value; locals ['a']",  # `p` is not bound on this path
        "return object; locals ['a']",
    ]


def test_the_end_of_a_with_block_is_published_with_the_value_it_exits(models: ModelSet) -> None:
    seen, _ = events(
        """
        import mmap

        def f(n):
            with mmap.mmap(-1, n) as buf:
                buf.write(b"x")
            with open("f") as g:
                pass
        """,
        models,
        ("checkers_events.recorder:Exits",),
    )
    assert seen == [
        "exit buf at mmap.mmap(-1, n) as buf: owner",
        'exit g at open("f") as g: -',  # a value the engine does not track
        "exit buf at mmap.mmap(-1, n) as buf: owner",  # the block ends by an exception too
    ]


def test_a_call_names_the_handles_its_map_effects_made(models: ModelSet) -> None:
    seen, _ = events(
        """
        import ctypes
        import mmap

        from cuda.bindings import runtime

        PAGE = mmap.PAGESIZE

        def f():
            buf = mmap.mmap(-1, 4 * PAGE)
            base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
            (err,) = runtime.cudaHostRegister(base, 2 * PAGE, 0)
            return buf, err
        """,
        models,
        ("checkers_events.recorder:Ranges",),
    )
    assert seen == ["mapped by cuda.bindings.runtime.cudaHostRegister: listed True, held False, live, page None"]


def test_the_facts_of_an_object_a_callee_made_and_returned_are_replayed_at_the_call(models: ModelSet) -> None:
    seen, _ = events(
        """
        from cuda.bindings import driver

        def alloc(n):
            err, p = driver.cuMemAlloc(n)
            return p

        def f():
            q = alloc(8)
            driver.cuMemFree(q)
        """,
        models,
        ("checkers_events.recorder:Returns",),
    )
    assert seen == ["replayed alloc(8) via alloc: made, holds made"]


def test_a_call_is_published_before_it_runs_with_its_arguments(models: ModelSet) -> None:
    seen, _ = events(
        """
        from cuda.bindings import driver

        def f():
            err, p = driver.cuMemAlloc(8)
            driver.cuMemFree(p)
        """,
        models,
        ("checkers_events.recorder:Around",),
    )
    assert seen == [
        "pre cuda.bindings.driver.cuMemAlloc args=1 -",
        "post cuda.bindings.driver.cuMemAlloc",
        "pre cuda.bindings.driver.cuMemFree args=1 -",
        "release",
        "post cuda.bindings.driver.cuMemFree",
    ]


def test_a_checker_keeps_facts_of_a_subscripts_value(models: ModelSet) -> None:
    seen, _ = events(
        """
        def f(n):
            x = make()
            y = x[1:]
            look(y)
            z = other()[0]
            look(z)
            look(make()[other()[n]])
        """,
        models,
        ("checkers_events.recorder:Tracked",),
    )
    assert seen == ["look y: part of a made value", "look z: None", "look make()[other()[n]]: part of a made value"]


def test_values_kept_past_the_function_say_where(models: ModelSet) -> None:
    seen, _ = events(
        """
        KEPT = []

        class C:
            def m(self, items):
                x = make()
                self.x = x
                items.append(x)
                KEPT.append(x)
                items[0] = x
                local = []
                local.append(x)
                return x

        def g():
            global LAST
            y = make()
            LAST = y
            yield y
        """,
        models,
        ("checkers_events.recorder:Kept",),
    )
    assert seen == [
        "stored attribute at self.x = x",
        "stored container at items.append(x)",
        "stored container at KEPT.append(x)",
        "stored container at items[0] = x",
        "stored return at return x",
        "stored global at LAST = y",
        "stored yield at yield y",
    ]


def test_an_adoption_and_a_borrow_say_what_they_take_and_lend(models: ModelSet) -> None:
    seen, _ = events(
        """
        from sycl.ext.oneapi import level_zero as lz

        def f(hq, ctx, dev):
            q = lz.make_queue(hq, ctx, device=dev)
            a = lz.get_native(q)
            img = lz.make_image(hq, ctx)
            b = lz.get_native(img)
            return q, img, a, b
        """,
        models,
        ("checkers_events.recorder:Kept",),
    )
    assert only("adopting", seen) == [
        "adopting an object at lz.make_queue with 3 arguments",
        "adopting an object at lz.make_image with 2 arguments",
    ]
    assert only("borrowed", seen) == [
        "borrowed from q (owner): a handle, now owner",
        "borrowed from img (owner): nothing, now owner",  # a kind the borrow lists as unsupported
    ]


def test_what_a_callee_makes_and_hands_back_is_replayed_with_its_facts(models: ModelSet) -> None:
    seen, _ = events(
        """
        def maker():
            v = make()
            mark(v)
            return v

        def of(p):
            return derive(p)

        class Box:
            def __init__(self, p):
                self.v = derive(p)

        def f():
            x = maker()
            look(x)
            y = of(make())
            look(y)
            z = of(other())
            look(z)
            b = Box(make())
            look(b.v)
        """,
        models,
        ("checkers_events.recorder:Derived",),
    )
    assert seen == [
        "handed back as return by maker: marked",
        "look x: marked",
        "handed back as return by of: made of a made value",
        "look y: made of a made value",
        "handed back as return by of: made of a None value",
        "look z: made of a None value",
        "handed back as field v by Box.__init__: made of a made value",
        "look b.v: made of a made value",
    ]


def test_a_checker_asks_which_functions_the_running_function_calls(models: ModelSet) -> None:
    seen, _ = events(
        """
        import lib

        def helper():
            return 1

        def f(x):
            lib.open(x)
            if x:
                return helper()

            def inner():
                lib.hidden()

            return [lib.pop(y) for y in x]
        """,
        models,
        ("checkers_events.recorder:Callees",),
    )
    # f's two returns: every call of its own body, on any path, not the nested function's;
    # helper calls nothing, inner falls off its end, and the module's code calls nothing
    assert seen == [
        "end ",
        "return ",
        "return lib.open lib.pop m.helper",
        "return lib.open lib.pop m.helper",
        "end lib.hidden",
    ]
