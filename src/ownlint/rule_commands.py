"""What `ownlint rules` and `ownlint explain` do (`ownlint.cli` declares them):
the registry's rules as a table, Markdown, docs/rules.md or JSON, and one
rule's documentation."""

from __future__ import annotations

import json
import sys

import click

from ownlint.commands import fail
from ownlint.registry import Rule, all_rules, rules_document, rules_markdown_table
from ownlint.report import make_console


def rules(output_format: str) -> None:
    """List every rule: code, name, severity and summary."""
    if output_format == "markdown":
        click.echo(rules_markdown_table(), nl=False)
        return
    if output_format == "docs":
        click.echo(rules_document(), nl=False)
        return
    if output_format == "json":
        click.echo(json.dumps([_rule_record(r) for r in all_rules().values()], indent=2))
        return
    if not sys.stdout.isatty():  # piped: every summary whole, in columns (a table would cut them to 80)
        rows = [(r.code, r.name, r.severity, r.summary) for r in all_rules().values()]
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for row in rows:
            click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[3])
        return
    from rich.table import Table

    table = Table("code", "name", "severity", "summary", box=None, pad_edge=False)
    for rule in all_rules().values():
        table.add_row(rule.code, rule.name, rule.severity, rule.summary)
    console = make_console()
    console.soft_wrap = False
    console.print(table)


def _rule_record(rule: Rule) -> dict[str, object]:
    return {
        "code": rule.code,
        "name": rule.name,
        "severity": rule.severity,
        "summary": rule.summary,
        "cwe": list(rule.cwe),
        "security_severity": rule.security_severity,
        "precision": rule.precision,
    }


def explain(code: str) -> None:
    """Show the documentation of one rule, by code (OWN201) or name (double-free)."""
    rule = find_rule(code)
    if rule is None:
        fail(f"unknown rule {code!r}; `ownlint rules` lists them")
    if sys.stdout.isatty():
        from rich.markdown import Markdown  # only here: its import costs more than a cached run

        make_console().print(Markdown(rule.markdown()))
    else:
        click.echo(rule.markdown(), nl=False)


def find_rule(code_or_name: str) -> Rule | None:
    """The rule with this code (any case) or kebab-case name."""
    wanted = code_or_name.strip()
    for rule in all_rules().values():
        if wanted.upper() == rule.code or wanted.lower() == rule.name:
            return rule
    return None
