"""What `ownlint rules` and `ownlint explain` do (`ownlint.cli` declares them):
the registry's rules as a table, Markdown, docs/rules.md or JSON, and one
rule's documentation. Both know the rules of the outside checkers that the
configuration of the current directory names (`checkers`), and mark the rules
in preview."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping

import click

from ownlint.commands import fail
from ownlint.config import ConfigError, discover_config
from ownlint.registry import Rule, all_rules, rules_document, rules_markdown_table, severity_shown
from ownlint.report import make_console


def rules(output_format: str) -> None:
    """List every rule: code, name, severity and summary."""
    known = _known_rules()
    if output_format == "markdown":
        click.echo(rules_markdown_table(known), nl=False)
        return
    if output_format == "docs":
        click.echo(rules_document(known), nl=False)
        return
    if output_format == "json":
        click.echo(json.dumps([_rule_record(r) for r in known.values()], indent=2))
        return
    if not sys.stdout.isatty():  # piped: every summary whole, in columns (a table would cut them to 80)
        rows = [(r.code, r.name, severity_shown(r), r.summary) for r in known.values()]
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for row in rows:
            click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[3])
        return
    from rich.table import Table

    table = Table("code", "name", "severity", "summary", box=None, pad_edge=False)
    for rule in known.values():
        table.add_row(rule.code, rule.name, severity_shown(rule), rule.summary)
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
        "preview": rule.preview,
    }


def explain(code: str) -> None:
    """Show the documentation of one rule, by code (OWN201) or name (double-free)."""
    _known_rules()
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


def _known_rules() -> Mapping[str, Rule]:
    """ownlint's rules and those of the checkers that the configuration of the current directory names
    (loaded as a check would load them); a configuration that cannot be used is a one-line error."""
    try:
        discover_config()
    except ConfigError as error:
        fail(str(error))
    return all_rules()
