"""Checkers defined only in the tests: they use the engine's events as a checker from outside ownlint would."""
