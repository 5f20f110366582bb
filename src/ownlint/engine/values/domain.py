"""The value domain, its bounds, and why the analysis always ends.

What a name can hold (`values.Val`, where values.py lists them) is an
element of a lattice whose top is `None` ("nothing known"): a constant, a
linear form over the page size, an abstract object, and values built of
those (`Seq`, `Dict`, `Struct`, `Ref`, `OneOf`, `Addr`, ...). Two different
values join to `None` (`values.join`), except where the analysis keeps both
on purpose (`a if c else b` between plain numbers is `OneOf((a, b))`).

That lattice has no finite height by itself: a loop can build a longer
string, a bigger integer, a deeper list or a longer `oneof` on every
iteration (`n = n * (1 if c else 2)` doubles the `oneof` each time round).
So every value that reaches a name, a field or a mapping passes through the
bounds below; past a bound the value is `None`. With them the values a
function can hold are finite in number (its constants, its sites and its
names bound the rest), and the lattice has finite height:

| bound | past it | what precision it gives up |
|---|---|---|
| `MAX_INT_BITS` bits in a constant integer | unknown | arithmetic on huge numbers |
| `MAX_STR` characters in a constant string made by `+` | unknown | long computed strings |
| `MAX_ONEOF` options in a `oneof` | unknown | a size chosen among more than 8 |
| `MAX_TERMS` terms, `MAX_DEGREE` symbols a term, coefficients up to `MAX_COEFF` in a linear form | unknown | offsets with many unknowns |
| `MAX_SIZE` parts, `MAX_DEPTH` levels in a composite value | unknown (its owners escape) | handles inside big or deep containers |

A value forgotten for a bound can only lose findings: `None` is never the
reason for one. Owners inside a forgotten container are marked as escaped
(something else may hold them), so forgetting a container never makes an
owner die.

The rest of the state is finite too: path conditions are keyed by the
function's names; the set of path states at a point is bounded
(`stateset.MAX_PATHS`); and loop heads widen (`stateset.StateSet.widen`, run by the
solver after `LOOP_VISITS` visits of a loop head): a name whose value
differs between the state already there and a new one with the same
typestates is forgotten, so a counter or an accumulator stops a loop from
converging for at most `LOOP_VISITS` rounds (the Clang analyzer unrolls
four times, `-analyzer-max-loop`; Infer's Pulse three).

Calls into the checked project follow the callee's summary, computed when
first needed inside the caller's analysis; a recursive call, or one made
with `whole_program.MAX_CALL_DEPTH` (16) analyses under way, has no effect
(summaries.py): effects that reach a caller only through a longer chain of
helpers are lost, and the file is analysed all the same.

Finally a deterministic budget caps what any of this can cost: see
`FunctionAnalysis.run` (`STEPS_PER_NODE`). The cost of one step does not
grow with the names and objects a path holds (store.py).
"""

from __future__ import annotations

from ownlint.engine.values import linear
from ownlint.engine.values.values import LEAVES, Const, Obj, OneOf, Val, parts

MAX_INT_BITS = 128
MAX_STR = 4096
MAX_ONEOF = 8
MAX_TERMS = 8
MAX_DEGREE = 3
MAX_COEFF = 1 << 64
MAX_SIZE = 256
MAX_DEPTH = 16
LOOP_VISITS = 3


def constant(x: object) -> Val:
    """`Const(x)`, or None for a number or string past the bounds."""
    if isinstance(x, int) and x.bit_length() > MAX_INT_BITS:
        return None
    if isinstance(x, (str, bytes)) and len(x) > MAX_STR:
        return None
    return Const(x)


def form_fits(form: linear.Lin) -> bool:
    """Whether a linear form is within the bounds (see the table above)."""
    if len(form) > MAX_TERMS:
        return False
    return all(len(m) <= MAX_DEGREE and -MAX_COEFF <= c <= MAX_COEFF for m, c in form)


def oneof(options: list[Val] | tuple[Val, ...]) -> Val:
    """One of `options` (nested choices flattened, repeats dropped); None past
    `MAX_ONEOF` options, or where an option is unknown."""
    out: list[Val] = []
    for v in options:
        for x in v.options if type(v) is OneOf else (v,):
            if x is None:
                return None
            if x not in out:
                out.append(x)
    if len(out) > MAX_ONEOF:
        return None
    return out[0] if len(out) == 1 else OneOf(tuple(out))


def fits(v: Val) -> bool:
    """Whether a composite value has at most `MAX_SIZE` parts and `MAX_DEPTH`
    levels (constants, linear forms and symbols count as one part: they have
    bounds of their own)."""
    if v is None or isinstance(v, (Obj, *LEAVES)):
        return True
    return _parts(v, 0, MAX_SIZE) >= 0


def _parts(v: Val, depth: int, left: int) -> int:
    """`left` less the parts of `v`; negative when past a bound."""
    if depth > MAX_DEPTH:
        return -1
    for part in parts(v):
        left -= 1
        if part is not None and not isinstance(part, (Obj, *LEAVES)):
            left = _parts(part, depth + 1, left)
        if left < 0:
            return left
    return left
