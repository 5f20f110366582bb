"""The handle typestate analysis of one function (or module body, or lambda).

Every value that reaches a modelled call is an abstract object: a parameter,
or what a creator wrote into its out-parameter (recency abstraction: an
object made again at the same site replaces the old one, and names still
holding the old one forget it). Each step of the CFG moves the objects'
typestates along (`state.py`); a step that breaks a rule records a
violation, once per handle per path (after its first finding a handle is
marked `reported` on that path and raises nothing more there).

What counts (the rules' shared definitions):
- a *use* is passing a handle, an alias or a derived value to a call that is
  not an inspection built-in, or reading through it (`h[0]`);
- `h.value`, `int(h)`, `ctypes.cast(h, T)`, `c_void_p(h.value)`, `h + n` are
  the handle itself for this purpose (the python model's `derive` lists);
- `self.x` inside a method is a local.

Expression-level branches (`a if c else b`, and `a and f(b)` where the right
operand calls something) fork the path, each copy assuming its way through
the condition, so they are as path-aware as statements.

Known limits (each an under-approximation: findings lost, none invented):
- Comprehensions and nested functions are separate scopes: a handle freed
  in a comprehension is not seen as freed after it.
- Stores into attributes of anything but `self`, or into containers other
  than literals, forget the handle.

Where each part lives (this module re-exports what the rest of ownlint uses):
- typestate_base: the records (`RawViolation`, `Unit`), the exceptions and
  the value helpers (`literal`, `fold`, `target_key`, ...), a leaf;
- typestate_analysis: `FunctionAnalysis`, the driver (budgets, edges,
  reporting);
- typestate_eval: the evaluator `Evaluator`, composed of one component per
  concern (names, expressions, calls, adoption, replay, substitution, objects,
  memory, arithmetic, iteration, address maps, keyed containers), which meet only through `eval_shared.EvalShared`.
"""

from __future__ import annotations

from ownlint.engine.evaluator.typestate_analysis import FunctionAnalysis
from ownlint.engine.evaluator.typestate_base import (
    BudgetExceeded,
    RawViolation,
    Resolver,
    Unit,
    fold,
    literal,
    target_key,
)

__all__ = ["BudgetExceeded", "FunctionAnalysis", "RawViolation", "Resolver", "Unit", "fold", "literal", "target_key"]
