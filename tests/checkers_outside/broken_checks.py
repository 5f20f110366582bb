"""A checker module that fails as it is imported (the suite checks the one-line error)."""

raise RuntimeError("this module cannot be imported")
