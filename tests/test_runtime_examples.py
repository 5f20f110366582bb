"""The runtime examples (runtime/examples, run on dpctl by .ci/runtime.sh) are
honest statically too: ownlint reports exactly their `# E:` lines, and nothing
in a fix. Runs without dpctl.

A bug the runtime shows that is not detected yet has its example as a strict
expected failure here (PENDING), like tests/pending: when the capability
lands, the test fails until the example leaves PENDING.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_fixtures import check_fixture

RUNTIME = Path(__file__).resolve().parent.parent / "runtime" / "examples"

PENDING: dict[str, str] = {}

# Rules whose example runs but whose harm this runtime hides (docs/runtime.md,
# "Run, but the harm does not show on this runtime"): not confirmed.
NOT_SHOWN = {"OWN404": "dpctl's free of USM memory waits for the kernel on the OpenCL CPU runtime"}


def _examples() -> list[Path]:
    return sorted(RUNTIME.glob("own*.py"))


def _param(path: Path) -> object:
    reason = PENDING.get(path.name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(path, id=path.name, marks=marks)


@pytest.mark.parametrize("example", [_param(p) for p in _examples()])
def test_runtime_example(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    check_fixture(example, [example], monkeypatch, root=RUNTIME)


def test_examples_come_in_pairs() -> None:
    names = {p.name for p in _examples()}
    assert names, "no runtime examples"
    for name in names:
        code, kind = name.removesuffix(".py").split("_", 1)
        partner = f"{code}_{'valid' if kind.startswith('invalid') else 'invalid'}.py"
        assert partner in names, f"{name} has no {partner}"
    assert set(PENDING) <= names


def test_invalid_examples_name_their_rule() -> None:
    for path in _examples():
        if path.name.startswith("own") and "_invalid" in path.name:
            code = path.name[:6].upper()
            assert f"# E: {code}" in path.read_text(encoding="utf-8"), path.name


def test_confirmed_rules_name_an_example_that_exists() -> None:
    """The README's "confirmed on a runtime" column (Rule.runtime) names a runtime example of its own rule."""
    from ownlint.registry import all_rules

    confirmed = {code for code, rule in all_rules().items() if rule.runtime}
    for code in confirmed:
        text = all_rules()[code].runtime
        assert text.startswith("yes: "), f"{code}: {text}"
        assert f"`runtime/examples/{code.lower()}_invalid.py" in text, f"{code} names no example of its own"
    shown = {p.name[:6].upper() for p in _examples()} - set(NOT_SHOWN)
    assert confirmed == shown & set(all_rules()), "an example's rule must say it is confirmed, and only those"
