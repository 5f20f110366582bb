"""Model files as a vocabulary of effects (issue 30, point 4): `[[call]]` entries,
their validation, the status shape per entry, and the older format mapped onto
the same effects with a deprecation note."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import forked
import pytest

from ownlint.engine.modelling import effects as fx
from ownlint.engine.modelling.models import (
    ModelError,
    ModelSet,
    ModelWarning,
    builtin_model_dir,
    load_model_files,
    load_models,
)

BEFORE = Path(__file__).parent / "data" / "models_before"

NEW = """
[model]
name = "mylib"
match = "last-name"
raises = false
success = ["OK", "0"]

[[call]]
functions = ["myAlloc"]
effects = [{ create = "memory", element = 1 }, { status = 0 }]

[[call]]
functions = ["myAllocOut"]
effects = [{ create = "memory", out = -1 }, { status = "whole" }]

[[call]]
functions = ["myFree"]
effects = [{ release = 0 }, { status = 0 }]
"""

OLD = """
[model]
name = "mylib"
match = "last-name"
raises = false
status = 0
success = ["OK", "0"]

[[create]]
functions = ["myAlloc"]
result = 1
kind = "memory"

[[release]]
functions = ["myFree"]
handle = 0
"""


def _derived(models: ModelSet, since: frozenset[str] = frozenset()) -> dict[str, object]:
    """Every field of a ModelSet the evaluator reads, with the callees' effects
    left out, and the callees in `since` (entries added after the format changed)."""
    fields = {f.name: getattr(models, f.name) for f in dataclasses.fields(models) if f.name != "files"}
    for table in ("by_last_name", "by_qualified", "by_method"):
        fields[table] = {k: dataclasses.replace(v, entries=()) for k, v in fields[table].items() if k not in since}
    fields["non_raising"] = {n for n in models.non_raising if n not in since}
    for said_since in ("receiver_methods", "idempotent_releases", "ends_process"):  # no older file can say these
        del fields[said_since]
    del fields["receiver_creators"]  # made from receiver_methods
    fields["memory"] = dataclasses.replace(models.memory, descriptor_re=None)  # compiled from descriptor_pattern
    return fields


def _load(tmp_path: Path, text: str) -> ModelSet:
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelWarning)
        return load_model_files([path])


def test_the_rewritten_models_mean_what_the_old_ones_meant() -> None:
    """rules/ in the effects format and the same files as they were before it
    (tests/data/models_before/, loaded as a user's older files after nothing)
    give the same models: every field the evaluator reads, compared exactly."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        before = load_model_files(sorted(BEFORE.glob("*.toml")))
    names = sorted(p.name for p in BEFORE.glob("*.toml"))
    bundled = sorted(p.name for p in builtin_model_dir().glob("*.toml"))
    assert set(names) <= set(bundled)
    # a file written after the format changed (cuda_core.toml: methods of typed receivers) has no "before"
    assert set(bundled) - set(names) <= AFTER_THE_FORMAT
    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelWarning)
        now = load_model_files([builtin_model_dir() / n for n in names])
    assert _derived(now, _added_since(now, before)) == _derived(before)


_CHECKERS_ONLY = (fx.Status, fx.OnStream, fx.Synchronize, fx.ParentOf, fx.Current, fx.Push, fx.Pop, fx.ReleaseLater)

# callees whose meaning changed on purpose since the format changed, and why
_CHANGED_SINCE = {
    "cuModuleGetFunction": "its kernel function is a handle of its module (issue 32, parents and children)",
}

AFTER_THE_FORMAT = frozenset({"cuda_core.toml"})
"""Bundled model files first written in the effects format, which no older file could say."""


def _added_since(now: ModelSet, before: ModelSet) -> frozenset[str]:
    """The callees modelled since the format changed: entries whose only effects
    are a status (calls that read their handles and keep none, for OWN205) or
    stream work and synchronization (for OWN404), or a counted pair (push, pop),
    which only checkers read."""
    added = {
        name
        for table, old in (
            (now.by_last_name, before.by_last_name),
            (now.by_qualified, before.by_qualified),
            (now.by_method, before.by_method),
        )
        for name, model in table.items()
        if name not in old and all(type(x) in _CHECKERS_ONLY for x in model.effects)
    }
    return frozenset(added | set(_CHANGED_SINCE))


def test_no_builtin_model_uses_the_older_format() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelWarning)
        load_models()
    for path in builtin_model_dir().glob("*.toml"):
        text = path.read_text(encoding="utf-8")
        assert "\n[[create]]" not in text and "\n[[release]]" not in text, path


def test_a_call_entry_gives_its_effects_and_the_derived_fields(tmp_path: Path) -> None:
    models = _load(tmp_path, NEW)
    alloc = models.by_last_name["myAlloc"]
    assert alloc.effects == (fx.Create("memory", fx.Element(1)), fx.Status(0, ("OK", "0")))
    assert [(c.out, c.result, c.kind) for c in alloc.creates] == [(None, 1, "memory")]
    assert alloc.status and alloc.status_index == 0
    out = models.by_last_name["myAllocOut"]
    assert [(c.out, c.result) for c in out.creates] == [(-1, None)]
    assert out.status and out.status_index is None  # the whole result is the status
    free = models.by_last_name["myFree"]
    assert free.release is not None and free.release.handle == 0 and free.status_index == 0
    assert {"myAlloc", "myAllocOut", "myFree"} <= models.non_raising
    assert {"OK", "0"} <= models.success


def test_a_creation_says_how_long_its_handle_lives(tmp_path: Path) -> None:
    """`lifetime`: the program releases it (the default), its Python object
    frees it when collected, or it lives as long as the process."""
    text = NEW + (
        "\n[[call]]\nfunctions = ['myObject']\neffects = [{ create = 'memory', lifetime = 'collected' }]\n"
        "\n[[call]]\nfunctions = ['myPrimary']\neffects = [{ create = 'context', lifetime = 'process' }]\n"
    )
    models = _load(tmp_path, text)
    assert models.by_last_name["myAlloc"].effects[0] == fx.Create("memory", fx.Element(1), lifetime="owned")
    assert models.by_last_name["myObject"].effects == (fx.Create("memory", fx.Result(), lifetime="collected"),)
    assert models.by_last_name["myPrimary"].effects == (fx.Create("context", fx.Result(), lifetime="process"),)


def test_an_old_format_file_loads_to_the_same_models_with_a_note(tmp_path: Path) -> None:
    """Older files still load, mapped onto the same effects, with one
    deprecation note naming the file and the old sections."""
    old = tmp_path / "old.toml"
    old.write_text(OLD, encoding="utf-8")
    with pytest.warns(ModelWarning) as caught:
        models = load_model_files([old])
    assert len(caught) == 1
    note = str(caught[0].message)
    assert note.startswith(f"{old}: [[create]], [[release]], [model].status:") and "[[call]]" in note
    assert "\n" not in note
    assert models.by_last_name["myAlloc"].effects == (fx.Create("memory", fx.Element(1)), fx.Status(0, ("OK", "0")))
    new = _load(tmp_path, NEW)
    assert new.by_last_name["myAlloc"] == models.by_last_name["myAlloc"]
    assert new.by_last_name["myFree"] == models.by_last_name["myFree"]


def test_the_status_shape_is_per_entry(tmp_path: Path) -> None:
    """One file mixes tuple statuses (a binding) and `int` statuses (ctypes);
    entries keep their own shape. Where one callee's entries disagree, the
    evaluator's one shape is the tuple element (a binding's results still unpack)."""
    text = (
        NEW + '\n[[call]]\nfunctions = ["myAlloc"]\neffects = [{ create = "memory", out = 0 }, { status = "whole" }]\n'
    )
    models = _load(tmp_path, text)
    alloc = models.by_last_name["myAlloc"]
    assert [e for e in alloc.effects if type(e) is fx.Status] == [
        fx.Status(0, ("OK", "0")),
        fx.Status(None, ("OK", "0")),
    ]
    assert alloc.status_index == 0
    assert [(c.out, c.result) for c in alloc.creates] == [(None, 1), (0, None)]


def test_keep_alive_consume_release_by_method_and_parent(tmp_path: Path) -> None:
    text = """
[model]
name = "mine"
match = "qualified"

[[call]]
functions = ["go_async"]
effects = [{ keep-alive = [1], argument-keywords = ["args"], dependencies = 2 }]

[[call]]
functions = ["eat"]
effects = [{ consume = 0 }]

[[call]]
methods = ["close"]
effects = [{ release = "receiver", of = ["mine.open"] }]

[[call]]
functions = ["mine.open"]
effects = [{ create = "file" }, { parent = 0 }]

[[call]]
functions = ["lend"]
effects = [{ borrow = "receiver", thread-safe = true }]
"""
    models = _load(tmp_path, text)
    submit = models.by_method["go_async"].keep_alive
    assert submit is not None and (submit.arguments, submit.argument_keywords, submit.dependencies) == (
        (1,),
        ("args",),
        2,
    )
    assert models.published("eat").effects == (fx.Consume(0),)  # for the checkers: CallPost.model
    assert models.release_methods["close"] == ("mine.open",)
    assert models.by_method["go_async"].effects == (fx.KeepAlive((1,), ("args",), 2),)  # methods by name
    assert models.by_method["close"].effects == (fx.ReleaseReceiver(("mine.open",)),)
    opened = models.by_qualified["mine.open"]
    assert opened.effects == (fx.Create("file", fx.Result()), fx.ParentOf(fx.Result(), 0))
    assert [(c.out, c.result) for c in opened.creates] == [(None, 0)]
    lend = models.by_last_name["lend"].borrow  # a borrow is matched by last name
    assert lend is not None and (lend.owner, lend.method, lend.thread_safe) == (-1, "any", True)
    assert "go_async" not in models.by_last_name and "eat" not in models.by_last_name


def test_work_on_a_stream_and_its_synchronization(tmp_path: Path) -> None:
    text = """
[model]
name = "mine"
match = "last-name"

[[call]]
functions = ["copy_async"]
effects = [{ stream = 3, reads = [0, 1] }]

[[call]]
functions = ["record"]
effects = [{ stream = 1, marks = 0 }]

[[call]]
functions = ["wait_event"]
effects = [{ stream = 0, waits = 1 }]

[[call]]
functions = ["sync"]
effects = [{ synchronize = 0 }]

[[call]]
functions = ["sync_all"]
effects = [{ synchronize = "all" }]
"""
    models = _load(tmp_path, text)
    assert models.published("copy_async").effects == (fx.OnStream(3, (0, 1)),)
    assert models.published("record").effects == (fx.OnStream(1, marks=0),)
    assert models.published("wait_event").effects == (fx.OnStream(0, waits=1),)
    assert models.published("sync").effects == (fx.Synchronize(0),)
    assert models.published("sync_all").effects == (fx.Synchronize(None),)
    copy = models.by_last_name["copy_async"]  # for the checkers only: the evaluator reads nothing of it
    assert (copy.creates, copy.release, copy.status, copy.keep_alive) == ((), None, False, None)


def test_methods_of_a_receiver_made_by_listed_creators(tmp_path: Path) -> None:
    text = """
[model]
name = "mine"
match = "qualified"

[[call]]
methods = ["open"]
receiver-of = ["mine.Device"]
effects = [{ create = "file", lifetime = "collected" }]

[[call]]
methods = ["open"]
receiver-of = ["mine.Device"]
effects = [{ owner = "file object" }]

[[call]]
methods = ["open"]
receiver-of = ["Other"]
effects = [{ create = "other" }]

[[call]]
methods = ["close"]
effects = [{ release = "receiver", of = ["open"], idempotent = true }]
"""
    models = _load(tmp_path, text)
    opened = models.receiver_method("open", "mine.Device")
    assert opened is not None and opened.owner_kind == "file object"  # one creator's entries merge
    assert [c.kind for c in opened.creates] == ["file"]
    assert models.receiver_method("open", "x.Device") is None  # a qualified creator is matched whole
    assert models.receiver_method("open", "x.Other") is not None  # a creator listed by its last name
    assert "open" not in models.by_method and "open" not in models.by_last_name  # never by the name alone
    assert models.idempotent_releases["close"] == ("open",)
    assert models.by_method["close"].effects == (fx.ReleaseReceiver(("open",), idempotent=True),)


def test_a_release_queued_for_later_is_matched_by_the_methods_name(tmp_path: Path) -> None:
    text = """
[model]
name = "mine"
match = "qualified"

[[call]]
functions = ["add_item"]
effects = [{ release-later = 1, by = 0 }]
"""
    models = _load(tmp_path, text)
    queued = models.method("add_item")
    assert queued is not None and queued.effects == (fx.ReleaseLater(1, 0),)
    assert "add_item" not in models.by_qualified and queued.release is None  # the evaluator releases nothing


def test_parents_and_the_current_handle(tmp_path: Path) -> None:
    text = """
[model]
name = "mine"
match = "last-name"

[[call]]
functions = ["make_ctx"]
effects = [{ current = "made" }]

[[call]]
functions = ["set_ctx"]
effects = [{ current = 0 }]

[[call]]
functions = ["pop_ctx"]
effects = [{ current = "none" }]

[[call]]
functions = ["alloc"]
effects = [{ parent = "current" }]

[[call]]
functions = ["map_buffer"]
effects = [{ parent = 0, element = 1, releases = false }]
"""
    models = _load(tmp_path, text)
    assert models.published("make_ctx").effects == (fx.Current(made=True),)
    assert models.published("set_ctx").effects == (fx.Current(0),)
    assert models.published("pop_ctx").effects == (fx.Current(),)
    assert models.published("alloc").effects == (fx.ParentOf(fx.Result(), None),)
    assert models.published("map_buffer").effects == (fx.ParentOf(fx.Element(1), 0, releases=False),)


def test_a_counted_pair(tmp_path: Path) -> None:
    text = """
[model]
name = "mine"
match = "last-name"
success = ["OK"]

[[call]]
functions = ["push_ctx"]
effects = [{ push = "context" }, { status = 0 }]

[[call]]
functions = ["pop_ctx"]
effects = [{ pop = "context" }, { status = 0 }]
"""
    models = _load(tmp_path, text)
    assert models.published("push_ctx").effects == (fx.Push("context"), fx.Status(0, ("OK",)))
    assert models.published("pop_ctx").effects == (fx.Pop("context"), fx.Status(0, ("OK",)))
    pushed = models.call("push_ctx")
    assert pushed is not None and not pushed.creates and pushed.release is None  # the evaluator changes nothing


HEAD = "[model]\nname = 'x'\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[[call]]\neffects = [{ release = 0 }]\n", "[[call]][0]: needs one of `functions` and `methods`"),
        ("[[call]]\nfunctions = ['f']\n", "[[call]][0].effects: missing"),
        ("[[call]]\nfunctions = ['f']\neffects = []\n", "[[call]][0].effects: must name at least one effect"),
        ("[[call]]\nfunctions = ['f']\neffects = [0]\n", "[[call]][0].effects: must be a list of tables"),
        ("[[call]]\nfunctions = ['f']\neffects = [{ relase = 0 }]\n", "[[call]][0].effects[0]: names no effect"),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ release = 0, hande = 1 }]\n",
            "[[call]][0].effects[0].hande: unknown key",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ release = 0, create = 'x' }]\n",
            "[[call]][0].effects[0].create: a second effect in the table of `release`",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ release = 'zero' }]\n",
            "[[call]][0].effects[0].release: must be an argument index or 'receiver'",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ release = 300 }]\n",
            "[[call]][0].effects[0].release: must be from 0",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ create = 'm', element = 1 }]\n",
            "a handle at a tuple `element` needs a `status` element in the same entry",
        ),
        (
            "success = ['0']\n[[call]]\nfunctions = ['f']\neffects = [{ create = 'm' }, { status = 0 }]\n",
            "with a `status`, the result is no handle",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ release = 0 }, { status = 0 }]\n",
            "[[call]][0].effects[1].status: needs `success`",
        ),
        (
            "success = ['0']\n[[call]]\nfunctions = ['f']\neffects = [{ status = 'all' }]\n",
            "[[call]][0].effects[0].status: must be a tuple element's index or 'whole'",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ create = 'm', out = 0, element = 1 }]\n",
            "[[call]][0].effects[0].element: a handle is at `out` or at `element`, not both",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ release = 0 }, { release = 1 }]\n",
            "[[call]][0].effects: more than one `release` in one entry",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ keep-alive = [1] }, { release = 1 }]\n",
            "[[call]][0].effects: `keep-alive` must be the only effect of its entry",
        ),
        ("[[call]]\nfunctions = ['f']\neffects = [{ consume = 1 }]\n", "[[call]][0].effects[0].consume: must be 0"),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ release = 'receiver', of = ['g'] }]\n",
            "`release = 'receiver'` needs `methods` instead of `functions`",
        ),
        ("[[call]]\nmethods = ['close']\neffects = [{ release = 0 }]\n", "[[call]][0].methods: names methods"),
        (
            "[[call]]\nfunctions = ['f']\nreceiver-of = ['g']\neffects = [{ create = 'm' }]\n",
            "[[call]][0].receiver-of: names the creators of a method's receiver: it needs `methods`",
        ),
        (
            "[[call]]\nmethods = ['f']\nreceiver-of = []\neffects = [{ create = 'm' }]\n",
            "[[call]][0].receiver-of: must name at least one creator",
        ),
        (
            "[[call]]\nmethods = ['f']\nreceiver-of = ['g']\neffects = [{ keep-alive = [0] }]\n",
            "[[call]][0].receiver-of: `keep-alive` is matched by the method's name alone",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ create = 'm', released-by-block = 'yes' }]\n",
            "[[call]][0].effects[0].released-by-block: must be",
        ),
        (
            "[[call]]\nmethods = ['f']\neffects = [{ release = 'receiver', of = ['g'], idempotent = 1 }]\n",
            "[[call]][0].effects[0].idempotent: must be",
        ),
        ("[[call]]\nfunctions = ['f']\neffects = [{ adopt = 0 }]\n", "an `adopt` needs an [ownership] table"),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ borrow = 'receiver', method = 'none' }]\n",
            "[[call]][0].effects[0].method: a borrow from the 'receiver' is a method",
        ),
        (
            "match = 'qualified'\n[[call]]\nfunctions = ['f']\neffects = [{ owner = 'o' }, { borrow = 0 }]\n",
            "[[call]][0].effects: borrows and mappings are matched by last name",
        ),
        ("[[call]]\nfunctions = ['f']\neffects = [{ create = '' }]\n", "[[call]][0].effects[0].create: empty name"),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ release-later = 1 }]\n",
            "[[call]][0].effects[0].by: missing",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ release-later = 1, by = 0 }, { release = 1 }]\n",
            "`release-later` must be the only effect of its entry",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ parent = 'caller' }]\n",
            "[[call]][0].effects[0].parent: must be an argument index or 'current'",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ current = 'push' }]\n",
            "[[call]][0].effects[0].current: must be an argument index, 'made'",
        ),
        ("[[call]]\nfunctions = ['f']\neffects = [{ push = '' }]\n", "[[call]][0].effects[0].push: must name the kind"),
        ("[[call]]\nfunctions = ['f']\neffects = [{ pop = 0 }]\n", "[[call]][0].effects[0].pop: must be"),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ push = 'c' }, { push = 'c' }]\n",
            "more than one `push` in one entry",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ synchronize = 'stream' }]\n",
            "[[call]][0].effects[0].synchronize: must be an argument's index or 'all'",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ stream = 1, reads = 0 }]\n",
            "[[call]][0].effects[0].reads: must be a list of integers",
        ),
        (
            "[[call]]\nfunctions = ['f']\neffects = [{ create = 'm', lifetime = 'forever' }]\n",
            "[[call]][0].effects[0].lifetime: one of 'owned', 'collected', 'process'",
        ),
    ],
)
def test_a_bad_call_entry_names_the_file_and_the_key(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "mine.toml"
    head, _, rest = text.partition("[[call]]")
    path.write_text(HEAD + head + "[[call]]" + rest, encoding="utf-8")
    with pytest.raises(ModelError) as caught:
        load_models([path])
    message = str(caught.value)
    assert message.startswith(str(path)) and expected in message, message
    assert "\n" not in message


def test_the_command_line_shows_the_note_of_an_old_format_file(tmp_path: Path) -> None:
    (tmp_path / "mylib.toml").write_text(OLD, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.ownlint]\nmodels = ["mylib.toml"]\n', encoding="utf-8")
    (tmp_path / "work.py").write_text("import mylib\n\n\ndef f(p):\n    mylib.myFree(p)\n", encoding="utf-8")
    run = forked.ownlint("check", "--format", "concise", "--no-cache", ".", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    notes = [line for line in run.stderr.splitlines() if "model format before effects" in line]
    assert len(notes) == 1 and notes[0].startswith("ownlint: warning: ") and "mylib.toml" in notes[0], run.stderr
