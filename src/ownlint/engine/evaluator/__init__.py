"""The evaluator and its solver: one function's analysis, a path state at a time, through its components."""
