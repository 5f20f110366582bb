"""How many examples the hypothesis tests try, by profile.

The count a test writes (`@settings(max_examples=examples(60))`, or
hypothesis' own 100 where it writes none) is what the `default` profile
runs. `pytest` alone loads `quick`, half of each count, so that the README's
test command stays fast; `pytest --hypothesis-profile=thorough` runs twice
each count, and the second stage of .ci/run (the lowest versions) does: over
one CI run every test sees more examples than it writes. Profiles change
only how many examples are drawn, never what a test asserts; a test whose
examples are derandomized draws the first of the same sequence.
"""

from __future__ import annotations

from hypothesis import settings

STANDARD = 100  # hypothesis' own max_examples: the unit of the counts the tests write

settings.register_profile("quick", max_examples=STANDARD // 2)
settings.register_profile("thorough", max_examples=STANDARD * 2)


def examples(count: int) -> int:
    """`count` scaled by the loaded profile, never below three (or `count`, if smaller): a handful stays a handful."""
    return max(min(count, 3), count * settings().max_examples // STANDARD)
