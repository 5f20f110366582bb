"""The analysis: parsing, name resolution, control flow, values on paths,
summaries; and what it guarantees the rule families (checkers) that read it.

Knows no API by name (that is `rules/`, read as effects: effects.py) and no
rule code (that is `ownlint.checks`), does no I/O and never prints.

What a checker (events.Checker) can rely on:

- **Events.** The engine publishes, on each path it follows, what Python
  does there: a call about to run (`CallPre`: the callee, the arguments'
  values, the receiver, the callee's `CallModel`, before any effect or use
  of its arguments) and evaluated with its model's effects applied
  (`CallPost`: the same, the result, the handles it made, those of its map
  effects with the address range each stands for: `HState.span`), a
  subscript's value (`Indexed`), a name bound (`Bind`), a value escaping
  out of the function's sight (`Escape`), a value kept where it outlives
  the function (`Stored`: an attribute, a global, a container made outside,
  a return, a yield), a model's borrow and adopt effects applied
  (`Borrowed`, `Adopting`), a callee's facts replayed at a call on what the
  caller passed and on what the callee handed back (`Replayed`), an
  object's last local reference going away (`Death`: deleted, rebound, the
  frame's end; a returned object, one stored in a global, and the names of
  a module or a class body do not die with their frame), the end of a
  `with` block (`WithExit`), the frame ending (`FrameEnd`: return, with the
  returned value, falling off the end, raise), a branch taken (`Assume`),
  and the older per-family events (uses, releases, transfers, returns). A
  checker may read the engine's typestates (`Findings.state`, `spans`) but
  not write them, and ask what the methods of the running method's class
  may do to one of its attributes (`Findings.field_fate`, field_fates.py:
  read off their syntax and the models, not run). Events come in the order the path runs them; a handler
  runs once per path state reaching the point (paths the engine merged
  count once).
- **Where a checker may write.** Only through the `Findings` it is handed:
  a finding (`report`), and its own facts of objects (`fact`/`set_fact`,
  checker_facts.py) under its own key; during `CallPost` or `Indexed` it may
  make the value an object to keep facts of (`result_object`). It reads the
  engine's typestate of an object (`state`) but never sees another checker's
  facts, and nothing it does changes the engine's typestates, but one thing:
  an object a finding names (`report(..., obj=...)`) is marked reported on
  that path, and no later event about it is published there. Its facts are
  immutable values; paths whose facts differ stay apart, so a checker that
  records a fact that changes at every step of a loop makes the loop's
  states differ: the loop's widening joins them with the checker's
  `join_facts` (by default the fact is forgotten), and past
  `stateset.MAX_PATHS` states at a point the states are merged and the
  function gets a budget note.
- **Budgets.** Each function has a step budget proportional to its size
  (typestate_analysis.py: `STEPS_PER_NODE`, `MIN_STEPS`); a handler's work
  is not counted, so a handler should do a bounded amount of work per event.
  Past the budget the findings proved so far stand and the function's
  summary has no effect.
- **Positions.** A finding's node is located in its file by the statement
  the engine was running when the event was published (`Step.stmt`, the
  hint positions.py reads); events published between statements (an edge's
  `Assume`, `FrameEnd`) carry the statement they belong to. A checker only
  passes nodes the event gave it, or nodes inside them.
- **Findings are kept per path and block**: the worklist solver runs a
  block again when its entry states change, and a block's findings are
  those of its latest run, so a handler may report the same bug on each
  run; identical findings (code, position, handle) are reported once.
"""
