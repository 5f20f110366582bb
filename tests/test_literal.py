"""`typestate.literal`: the value of a literal, as Python reads it."""

from __future__ import annotations

import ast
import warnings

import libcst as cst
from hypothesis import given
from hypothesis import strategies as st

from ownlint.engine.evaluator.typestate import literal
from ownlint.engine.values.values import Const

QUOTES = st.sampled_from(["'", '"', "'''", '"""', "b'", "r'", "f'", "rb'", "u'"])


@given(st.text(alphabet=st.sampled_from(list("ab_ .:-'\"\\né\t{}0\r")), max_size=12), QUOTES)
def test_a_string_literal_has_the_value_python_reads(body: str, opening: str) -> None:
    quote = opening.lstrip("bruf")
    source = opening + body + quote
    try:
        node = cst.parse_expression(source)
        with warnings.catch_warnings():  # an invalid escape warns, and still has a value
            warnings.simplefilter("ignore")
            expected = ast.literal_eval(source)
    except (cst.ParserSyntaxError, ValueError, SyntaxError):
        return  # not a literal Python accepts
    if type(node) is not cst.SimpleString:
        return
    assert literal(node) == Const(expected)


def test_common_spellings() -> None:
    for source, value in [
        ("'level_zero'", "level_zero"),
        ('"a.b"', "a.b"),
        ("''", ""),
        ('"it\'s"', "it's"),
        (r"'a\nb'", "a\nb"),
        ('"""doc\n  "quoted" \'s\n"""', 'doc\n  "quoted" \'s\n'),
        ("'''a\\tb'''", "a\tb"),  # an escape in a triple-quoted string
        ('"""a\r\nb"""', "a\nb"),  # a CR LF line end in one reads as LF
    ]:
        assert literal(cst.parse_expression(source)) == Const(value)
