"""ownlint: a static checker for Python code that hands native GPU runtime handles across a boundary."""

__version__ = "0.1.0"
