"""The analysis: parsing, name resolution, control flow, typestate, summaries.

Knows no API by name (that is `rules/`), does no I/O and never prints.
"""
