"""Suppression comments: which forms count, what they silence, which silenced nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from ownlint.diagnostics import Diagnostic, Span
from ownlint.suppress import (
    FileSuppressions,
    Suppression,
    UnusedSuppression,
    apply_suppressions,
    code_at,
    parse_suppressions,
    suppression_edit,
    unused_suppressions,
)


def finding(code: str, line: int) -> Diagnostic:
    return Diagnostic(code, "m.py", Span(line, 1, line, 5), "message")


def kept(source: str, *diagnostics: Diagnostic) -> list[tuple[str, int]]:
    remaining, _ = apply_suppressions(diagnostics, parse_suppressions(source))
    return [(d.code, d.span.line) for d in remaining]


def test_forms_of_line_suppressions() -> None:
    source = "\n".join(
        [
            "a = 1  # ownlint: ignore[OWN201, OWN203]",
            "b = 2  # noqa: OWN201",
            "c = 3  # noqa:OWN201,OWN203",
            "d = 4  # ownlint: ignore",
            "e = 5  # noqa",  # flake8's bare form: not ownlint's
            "f = 6  # type: ignore  # NOQA: own203",
            "g = 7  #ownlint:ignore[own201]",
        ]
    )
    assert parse_suppressions(source).lines == (
        Suppression(1, 8, ("OWN201", "OWN203")),
        Suppression(2, 8, ("OWN201",)),
        Suppression(3, 8, ("OWN201", "OWN203")),
        Suppression(4, 8, None),
        Suppression(6, 24, ("OWN203",)),
        Suppression(7, 8, ("OWN201",)),
    )


def test_codes_silence_only_themselves_on_their_line() -> None:
    source = "x = 1  # noqa: OWN201\ny = 2\n"
    assert kept(source, finding("OWN201", 1), finding("OWN203", 1), finding("OWN201", 2)) == [
        ("OWN203", 1),
        ("OWN201", 2),
    ]


def test_bare_ownlint_ignore_silences_every_code_on_the_line() -> None:
    source = "x = 1  # ownlint: ignore\ny = 2\n"
    assert kept(source, finding("OWN201", 1), finding("OWN203", 1), finding("OWN001", 1)) == []


def test_a_bare_noqa_is_flake8s_and_silences_nothing() -> None:
    # it hid a capsule consumed twice in cupy's tests: written for flake8, read by ownlint
    source = "x = 1  # noqa\ny = 2  # NOQA  # type: ignore\n"
    assert kept(source, finding("OWN201", 1), finding("OWN501", 2)) == [("OWN201", 1), ("OWN501", 2)]
    assert parse_suppressions(source) == FileSuppressions()


def test_rule_names_and_prefixes_silence_like_codes() -> None:
    source = "a = 1  # ownlint: ignore[double-free]\nb = 2  # ownlint: ignore[OWN2]\nc = 3  # noqa: OWN20\n"
    diagnostics = [finding(code, line) for line in (1, 2, 3) for code in ("OWN201", "OWN501")]
    assert kept(source, *diagnostics) == [("OWN501", 1), ("OWN501", 2), ("OWN501", 3)]
    assert parse_suppressions(source).lines[0] == Suppression(1, 8, ("OWN201",))


def test_other_tools_codes_silence_nothing() -> None:
    assert kept("x = 1  # noqa: E501\n", finding("OWN201", 1)) == [("OWN201", 1)]


def test_text_in_strings_is_not_a_suppression() -> None:
    source = 's = "# noqa"\nt = """\n# ownlint: ignore-file\n"""\n'
    assert parse_suppressions(source) == FileSuppressions()
    assert kept(source, finding("OWN201", 1), finding("OWN201", 3)) == [("OWN201", 1), ("OWN201", 3)]


def test_near_misses_are_not_suppressions() -> None:
    source = "a = 1  # ownlint: ignored\nb = 2  # ownlint: ignore[OWN201\nc = 3  # noqa-ish\n"
    assert parse_suppressions(source) == FileSuppressions()


def test_ignore_file_on_a_line_of_its_own() -> None:
    source = "import ze\n    # ownlint: ignore-file\nx = 1\n"
    suppressions = parse_suppressions(source)
    assert suppressions.whole_file == (Suppression(2, 5, None),)
    assert kept(source, finding("OWN201", 3), finding("OWN203", 1)) == []


def test_ignore_file_with_codes_silences_only_those_codes() -> None:
    source = "# ownlint: ignore-file[OWN601]\n# ownlint: ignore-file[capsule-reused]\nx = 1\n"
    diagnostics = (finding("OWN601", 3), finding("OWN501", 3), finding("OWN201", 3))
    assert kept(source, *diagnostics) == [("OWN201", 3)]


def test_ignore_file_after_code_does_nothing_and_says_so() -> None:
    source = "x = 1  # ownlint: ignore-file\n"
    suppressions = parse_suppressions(source)
    assert suppressions.whole_file == ()
    assert kept(source, finding("OWN201", 1)) == [("OWN201", 1)]
    [invalid] = suppressions.invalid
    assert (invalid.line, invalid.column) == (1, 8)
    assert "line of its own" in invalid.reason


def test_unknown_codes_and_names_are_invalid() -> None:
    source = "\n".join(
        [
            "a = 1  # ownlint: ignore[OWN999, double-free]",
            "b = 2  # ownlint: ignore[double-frees]",
            "c = 3  # noqa: OWN777, E501",  # E501 is another tool's: not ours to judge
            "d = 4  # noqa: E501",
            "# ownlint: ignore-file[OWN1234]",
        ]
    )
    invalid = [(i.line, i.column, i.reason) for i in parse_suppressions(source).invalid]
    assert invalid == [
        (1, 8, "unknown rule 'OWN999' in a suppression; `ownlint rules` lists them"),
        (2, 8, "unknown rule 'double-frees' in a suppression; `ownlint rules` lists them"),
        (3, 8, "unknown rule 'OWN777' in a suppression; `ownlint rules` lists them"),
        (5, 1, "unknown rule 'OWN1234' in a suppression; `ownlint rules` lists them"),
    ]


def test_a_line_suppression_on_a_line_of_its_own_is_misplaced() -> None:
    source = "# ownlint: ignore[OWN201]\nfree(p)\n    # noqa: OWN201\n# noqa: E501\n"
    invalid = [(i.line, i.column) for i in parse_suppressions(source).invalid]
    assert invalid == [(1, 1), (3, 5)]
    assert all("end of the reported line" in i.reason for i in parse_suppressions(source).invalid)


def test_a_file_tokenize_rejects_has_no_suppressions() -> None:
    assert parse_suppressions('x = 1  # noqa\ns = """never closed\n') == FileSuppressions()
    assert parse_suppressions("if x:  # noqa\n    a = 1\n  b = 2\n") == FileSuppressions()


def test_unused_suppressions() -> None:
    source = "\n".join(
        [
            "a = 1  # noqa: OWN201, OWN203, E501",
            "b = 2  # ownlint: ignore",
            "c = 3  # noqa",
            "d = 4  # ownlint: ignore[OWN101, OWN6]",
            "e = 5  # ownlint: ignore",
        ]
    )
    suppressions = parse_suppressions(source)
    _, used = apply_suppressions([finding("OWN201", 1), finding("OWN203", 5)], suppressions)
    unused = unused_suppressions("m.py", suppressions, used, lambda code: not code.startswith(("OWN101", "OWN6")))
    assert unused == [
        UnusedSuppression("m.py", 1, 8, "OWN203"),
        UnusedSuppression("m.py", 2, 8, "ownlint: ignore"),
    ]


def test_unused_ignore_file() -> None:
    suppressions = parse_suppressions("# ownlint: ignore-file\nx = 1  # noqa: OWN201\n")
    assert unused_suppressions("m.py", suppressions, set(), lambda code: True) == [
        UnusedSuppression("m.py", 1, 1, "ownlint: ignore-file")
    ]
    coded = parse_suppressions("# ownlint: ignore-file[OWN601, OWN201]\nx = 1\n")
    _, used = apply_suppressions([finding("OWN201", 2)], coded)
    assert unused_suppressions("m.py", coded, used, lambda code: True) == [UnusedSuppression("m.py", 1, 1, "OWN601")]
    _, used = apply_suppressions([finding("OWN201", 2)], suppressions)
    assert unused_suppressions("m.py", suppressions, used, lambda code: True) == []


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet=st.sampled_from(list("# noqa:ownlint ignore[]-fileOWN201,\n\"'\\x=1()\t")), max_size=80))
def test_any_text_is_parsed_without_raising(source: str) -> None:
    parse_suppressions(source)


class TestSuppressionEdit:
    """The language server's "ignore this code on this line" quick fix."""

    @staticmethod
    def edited(source: str, line: int, code: str = "OWN201") -> str | None:
        edit = suppression_edit(source, line, code)
        if edit is None:
            return None
        lines = source.split("\n")
        text = lines[line - 1]
        lines[line - 1] = text[: edit.span.column - 1] + edit.content + text[edit.span.end_column - 1 :]
        return "\n".join(lines)

    def test_appends_a_comment(self) -> None:
        assert self.edited("free(p)   \n", 1) == "free(p)  # ownlint: ignore[OWN201]\n"

    def test_merges_into_an_existing_list(self) -> None:
        assert self.edited("free(p)  # ownlint: ignore[OWN203]\n", 1) == "free(p)  # ownlint: ignore[OWN203, OWN201]\n"
        assert self.edited("free(p)  # ownlint: ignore[]\n", 1) == "free(p)  # ownlint: ignore[OWN201]\n"

    def test_after_another_tools_comment(self) -> None:
        edited = self.edited("free(p)  # noqa: E501\n", 1)
        assert edited == "free(p)  # noqa: E501  # ownlint: ignore[OWN201]\n"
        [suppression, *_] = [s for s in parse_suppressions(edited).lines if s.codes == ("OWN201",)]
        assert suppression.line == 1

    def test_nothing_when_already_silenced(self) -> None:
        for comment in ("# ownlint: ignore[OWN201]", "# ownlint: ignore", "# noqa: OWN201", "# ownlint: ignore[OWN2]"):
            assert suppression_edit(f"free(p)  {comment}\n", 1, "OWN201") is None, comment

    def test_nothing_where_a_comment_cannot_go(self) -> None:
        assert suppression_edit('s = """a\nb"""\n', 1, "OWN201") is None
        assert suppression_edit("x = 1 + \\\n    2\n", 1, "OWN201") is None
        assert suppression_edit("x = 1\n", 3, "OWN201") is None

    def test_after_a_bare_noqa(self) -> None:
        assert self.edited("free(p)  # noqa\n", 1) == "free(p)  # noqa  # ownlint: ignore[OWN201]\n"

    def test_a_string_with_a_hash_is_not_a_comment(self) -> None:
        assert self.edited('free("# ownlint: ignore")\n', 1) == 'free("# ownlint: ignore")  # ownlint: ignore[OWN201]\n'


def test_code_at_finds_codes_in_suppression_comments_only() -> None:
    source = 'x = "OWN201"  # ownlint: ignore[OWN201, own203]  # noqa: OWN305\n'
    start = source.index("OWN201,") + 1
    assert code_at(source, 1, start) == ("OWN201", Span(1, start, 1, start + 6))
    assert code_at(source, 1, source.index("own203") + 3) is not None
    assert code_at(source, 1, source.index("OWN305") + 1) is not None
    assert code_at(source, 1, source.index("OWN201") + 1) is None  # inside the string
    assert code_at(source, 1, source.index("ignore") + 1) is None
