"""Patterns over names that a model file gives (`descriptor-pattern`), matched in linear time.

A model file may come from the checked repository, and the names it is
matched against come from the analysed code, so a pattern must not be able to
backtrack catastrophically (`(a+)+$` against `aaaa...!` takes Python's `re`
hours). The language is the regular part of Python's regular expressions:

- literal characters, `\\` before any punctuation, `.`, `\\d \\D \\w \\W \\s \\S`;
- classes `[a-z_]`, `[^0-9]` (ranges, the escapes above, `\\]`);
- groups `(...)` and `(?:...)`, alternation `|`, anchors `^` and `$`;
- quantifiers `*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}` (m, n <= 16), lazy or not
  (a search only asks whether there is a match, so laziness changes nothing).

Not accepted (a `PatternError` saying so): back references, lookarounds,
named groups, inline flags, `\\b`, `\\A`, `\\Z` and the like, which cannot be
matched in linear time or are not needed for names. A pattern has at most 256
characters, 16 nested groups and 2,000 states.

`NamePattern.search(name)` answers what `re.search(pattern, name)` would, by
simulating the pattern's Thompson automaton over the name: time in
O(len(name) x states), whatever the pattern and the name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

MAX_PATTERN_LENGTH = 256
MAX_GROUP_DEPTH = 16
MAX_REPEAT = 16
MAX_STATES = 2_000

CharTest = Callable[[str], bool]


class PatternError(ValueError):
    """A pattern outside the language; str() says what and where."""


@dataclass(frozen=True, slots=True)
class _Char:
    test: CharTest


@dataclass(frozen=True, slots=True)
class _Anchor:
    end: bool  # `$` when True, `^` when False


@dataclass(frozen=True, slots=True)
class _Seq:
    items: tuple[_Node, ...]


@dataclass(frozen=True, slots=True)
class _Alt:
    options: tuple[_Node, ...]


@dataclass(frozen=True, slots=True)
class _Repeat:
    node: _Node
    least: int
    most: int | None  # None: no upper bound


_Node = _Char | _Anchor | _Seq | _Alt | _Repeat

_CLASS_ESCAPES: dict[str, CharTest] = {
    "d": str.isdecimal,
    "D": lambda c: not c.isdecimal(),
    "w": lambda c: c.isalnum() or c == "_",
    "W": lambda c: not (c.isalnum() or c == "_"),
    "s": str.isspace,
    "S": lambda c: not c.isspace(),
}


class _Parser:
    """Recursive descent over the pattern; recursion is bounded by MAX_GROUP_DEPTH."""

    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.at = 0
        self.depth = 0

    def fail(self, why: str) -> PatternError:
        return PatternError(f"{why} at position {self.at}")

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def alternation(self) -> _Node:
        options = [self.sequence()]
        while self.peek() == "|":
            self.at += 1
            options.append(self.sequence())
        return options[0] if len(options) == 1 else _Alt(tuple(options))

    def sequence(self) -> _Node:
        items: list[_Node] = []
        while self.peek() not in ("", "|", ")"):
            items.append(self.quantified(self.atom()))
        return items[0] if len(items) == 1 else _Seq(tuple(items))

    def quantified(self, node: _Node) -> _Node:
        char = self.peek()
        if char in ("*", "+", "?"):
            self.at += 1
            least, most = {"*": (0, None), "+": (1, None), "?": (0, 1)}[char]
        elif char == "{" and self._is_counted():
            least, most = self._counts()
        else:
            return node
        if isinstance(node, _Anchor):
            raise self.fail("nothing to repeat")
        if self.peek() == "?":  # lazy: the same answer to "is there a match"
            self.at += 1
        if self.peek() in ("*", "+", "?") or (self.peek() == "{" and self._is_counted()):
            raise self.fail("multiple repeat")
        return _Repeat(node, least, most)

    def _is_counted(self) -> bool:
        end = self.text.find("}", self.at)
        inner = self.text[self.at + 1 : end] if end > 0 else ""
        first, _, second = inner.partition(",")
        return bool(first.isdigit() and (second == "" or second.isdigit()))

    def _counts(self) -> tuple[int, int | None]:
        end = self.text.index("}", self.at)
        first, comma, second = self.text[self.at + 1 : end].partition(",")
        self.at = end + 1
        least = int(first)
        most = least if not comma else (int(second) if second else None)
        if least > MAX_REPEAT or (most is not None and most > MAX_REPEAT):
            raise self.fail(f"a count over {MAX_REPEAT}")
        if most is not None and most < least:
            raise self.fail("a count range out of order")
        return least, most

    def atom(self) -> _Node:
        char = self.peek()
        self.at += 1
        if char == "(":
            return self.group()
        if char == "[":
            return _Char(self.char_class())
        if char == ".":
            return _Char(lambda c: c != "\n")
        if char in ("^", "$"):
            return _Anchor(char == "$")
        if char == "\\":
            return _Char(self.escape())
        if char in ("*", "+", "?"):
            raise self.fail("nothing to repeat")
        return _Char(char.__eq__)

    def group(self) -> _Node:
        if self.text.startswith("?:", self.at):
            self.at += 2
        elif self.peek() == "?":
            raise self.fail("lookarounds, named groups and inline flags are not supported")
        self.depth += 1
        if self.depth > MAX_GROUP_DEPTH:
            raise self.fail(f"groups nested more than {MAX_GROUP_DEPTH} deep")
        inner = self.alternation()
        if self.peek() != ")":
            raise self.fail("missing )")
        self.at += 1
        self.depth -= 1
        return inner

    def escape(self) -> CharTest:
        char = self.peek()
        self.at += 1
        if char in _CLASS_ESCAPES:
            return _CLASS_ESCAPES[char]
        if char == "" or char.isalnum():
            raise self.fail(f"the escape \\{char} is not supported (back references, \\b, \\A ... are not)")
        return char.__eq__

    def char_class(self) -> CharTest:
        negated = self.peek() == "^"
        if negated:
            self.at += 1
        tests: list[CharTest] = []
        first = True
        while True:
            char = self.peek()
            if char == "":
                raise self.fail("unterminated character set")
            if char == "]" and not first:
                self.at += 1
                break
            first = False
            self.at += 1
            if char == "\\":
                test = self.escape()
                tests.append(test)
                continue
            if self.peek() == "-" and self.text[self.at + 1 : self.at + 2] not in ("", "]"):
                high = self.text[self.at + 1]
                if high == "\\":
                    raise self.fail("an escape as the end of a range is not supported")
                if high < char:
                    raise self.fail("a bad character range")
                self.at += 2
                tests.append(_in_range(char, high))
            else:
                tests.append(char.__eq__)

        def member(c: str) -> bool:
            return any(test(c) for test in tests) != negated

        return member


def _in_range(low: str, high: str) -> CharTest:
    return lambda c: low <= c <= high


@dataclass(slots=True)
class _State:
    """A state of the automaton: consumes one character passing `test`, or checks `anchor`
    (then moves without consuming), or splits to `edges` without consuming."""

    edges: list[int]
    test: CharTest | None = None
    anchor: _Anchor | None = None


class NamePattern:
    """A compiled pattern (see the module's docstring)."""

    __slots__ = ("_accept", "_seen", "_start", "_states", "pattern")

    def __init__(self, pattern: str, states: list[_State], start: int, accept: int) -> None:
        self.pattern = pattern
        self._states = states
        self._start = start
        self._accept = accept
        self._seen: dict[str, bool] = {}  # names searched already: a program spells the same few often

    def __reduce__(self) -> tuple[object, tuple[str]]:
        """Pickled as its text (a worker process compiles it again): its tests are closures."""
        return (NamePattern.compile, (self.pattern,))

    @classmethod
    def compile(cls, pattern: str) -> NamePattern:
        """The pattern, or a PatternError saying why it is outside the language."""
        if len(pattern) > MAX_PATTERN_LENGTH:
            raise PatternError(f"longer than {MAX_PATTERN_LENGTH} characters")
        parser = _Parser(pattern)
        tree = parser.alternation()
        if parser.at != len(pattern):
            raise parser.fail("unbalanced )")
        states: list[_State] = [_State([])]  # 0: accept
        start = _build(tree, 0, states)
        return cls(pattern, states, start, 0)

    def search(self, name: str) -> bool:
        """Whether the pattern matches somewhere in `name` (as `re.search` would)."""
        found = self._seen.get(name)
        if found is None:
            found = self._search(name)
            if len(self._seen) < _SEEN_NAMES:
                self._seen[name] = found
        return found

    def _search(self, name: str) -> bool:
        current: set[int] = set()
        self._close(self._start, 0, name, current)
        for position, char in enumerate(name):
            if self._accept in current:
                return True
            following: set[int] = set()
            for index in current:
                state = self._states[index]
                if state.test is not None and state.test(char):
                    self._close(state.edges[0], position + 1, name, following)
            self._close(self._start, position + 1, name, following)  # a match may start here
            current = following
        return self._accept in current

    def _close(self, index: int, position: int, name: str, into: set[int]) -> None:
        """Add `index` and every state reachable from it without consuming a character at `position`."""
        stack = [index]
        while stack:
            index = stack.pop()
            if index in into:
                continue
            into.add(index)
            state = self._states[index]
            if state.test is not None:
                continue
            if state.anchor is not None and not _holds(state.anchor, position, name):
                continue
            stack.extend(state.edges)


_SEEN_NAMES = 4096  # the most answers a pattern keeps


def _holds(anchor: _Anchor, position: int, name: str) -> bool:
    if not anchor.end:
        return position == 0
    return position == len(name) or (position == len(name) - 1 and name[position] == "\n")


def _new(states: list[_State], state: _State) -> int:
    if len(states) >= MAX_STATES:
        raise PatternError(f"more than {MAX_STATES} states (counted repeats multiply them)")
    states.append(state)
    return len(states) - 1


def _build(node: _Node, out: int, states: list[_State]) -> int:
    """The start state of `node`'s automaton, which continues to `out` (built back to front)."""
    match node:
        case _Char(test):
            return _new(states, _State([out], test=test))
        case _Anchor():
            return _new(states, _State([out], anchor=node))
        case _Seq(items):
            for item in reversed(items):
                out = _build(item, out, states)
            return out
        case _Alt(options):
            return _new(states, _State([_build(option, out, states) for option in options]))
        case _Repeat(inner, least, most):
            if most is None:
                loop = _new(states, _State([]))
                states[loop].edges = [_build(inner, loop, states), out]
                out = loop
            else:
                for _ in range(most - least):
                    out = _new(states, _State([_build(inner, out, states), out]))
            for _ in range(least):
                out = _build(inner, out, states)
            return out
    raise AssertionError(node)  # pragma: no cover - the union is exhausted above
