"""Checkers from outside ownlint (`checkers = ["module:Class"]`, README "Writing your own checker"),
and preview rules (README "Preview rules"): loaded from the environment's import path only, never from
the checked tree; their rules selected, ignored, suppressed, listed, explained and rendered like ownlint's;
a preview rule silent unless selected by its code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import invoke

from ownlint import api, outside
from ownlint.config import Config, ConfigError, load_config
from ownlint.registry import all_rules
from ownlint.resolver import Resolver
from ownlint.rule import Rule
from ownlint.rule_commands import find_rule

OUTSIDE = Path(__file__).resolve().parent / "checkers_outside"
NOTED = "handle_checks:ReleaseNoted"

FREED = """\
from ze import *


def f(ctx, p):
    zeMemFree(ctx, p)
"""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(OUTSIDE))  # as an installed package, or PYTHONPATH, would put it
    yield
    outside._LOADED.clear()  # the next test of this process knows ownlint's rules only, as a fresh run does
    outside._RULES.clear()
    outside._BY_CODE.clear()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def configured(tmp_path: Path, body: str) -> Config:
    write(tmp_path / "ownlint.toml", body)
    write(tmp_path / "a.py", FREED)
    return load_config(tmp_path / "ownlint.toml")


def found(config: Config, tmp_path: Path) -> list[tuple[int, str, str]]:
    result = api.check_paths([tmp_path / "a.py"], config)
    assert result.errors == []
    return [(d.span.line, d.code, d.message) for d in result.findings]


class TestLoading:
    def test_a_configured_checker_reports_with_its_own_code(self, tmp_path: Path) -> None:
        config = configured(tmp_path, f'checkers = ["{NOTED}"]\nextend-select = ["XRL"]\n')
        assert config.checkers == (NOTED,)
        assert found(config, tmp_path) == [(5, "XRL100", "`p` is released here")]

    def test_its_rules_are_off_unless_selected(self, tmp_path: Path) -> None:
        config = configured(tmp_path, f'checkers = ["{NOTED}"]\n')
        assert found(config, tmp_path) == []

    def test_ignore_and_suppression_comments_accept_its_codes(self, tmp_path: Path) -> None:
        config = configured(tmp_path, f'checkers = ["{NOTED}"]\nselect = ["XRL"]\nignore = ["XRL100"]\n')
        assert found(config, tmp_path) == []
        config = configured(tmp_path, f'checkers = ["{NOTED}"]\nselect = ["XRL"]\n')
        write(tmp_path / "a.py", FREED.replace("p)\n", "p)  # ownlint: ignore[XRL100]\n"))
        assert found(config, tmp_path) == []
        write(tmp_path / "a.py", FREED.replace("p)\n", "p)  # noqa: XRL100\n"))
        assert found(config, tmp_path) == []
        write(tmp_path / "a.py", FREED.replace("p)\n", "p)  # ownlint: ignore[release-noted]\n"))
        assert found(config, tmp_path) == []

    def test_extend_inherits_the_checkers(self, tmp_path: Path) -> None:
        write(tmp_path / "base.toml", f'checkers = ["{NOTED}"]\n')
        config = configured(tmp_path, 'extend = "base.toml"\nextend-select = ["XRL100"]\n')
        assert config.checkers == (NOTED,)
        assert [code for _, code, _ in found(config, tmp_path)] == ["XRL100"]

    def test_each_file_gets_the_checkers_of_its_configuration(self, tmp_path: Path) -> None:
        write(tmp_path / "with" / "ownlint.toml", f'checkers = ["{NOTED}"]\nselect = ["XRL100"]\n')
        write(tmp_path / "without" / "ownlint.toml", 'select = ["OWN"]\n')
        write(tmp_path / "with" / "a.py", FREED)
        write(tmp_path / "without" / "a.py", FREED)
        result = api.check_paths([tmp_path], Resolver())
        assert result.errors == []
        assert [(d.path, d.code) for d in result.findings] == [("with/a.py", "XRL100")]

    def test_a_code_of_no_loaded_checker_is_still_not_a_rule(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigError, match=r"key 'select': 'ABC1' is not a rule code"):
            configured(tmp_path, 'select = ["ABC1"]\n')

    @pytest.mark.parametrize(
        ("spec", "reason"),
        [
            ("nowhere_at_all:Checker", "cannot import 'nowhere_at_all': ModuleNotFoundError: No module named"),
            ("broken_checks:Broken", "cannot import 'broken_checks': RuntimeError: this module cannot be imported"),
            ("handle_checks:Missing", "'handle_checks' has no 'Missing'"),
            ("handle_checks:NotAChecker", "is not an ownlint checker (a subclass of ownlint.engine.events.Checker)"),
            ("handle_checks:NoRules", "declares no rules (a class attribute `rules`, a tuple of ownlint.rule.Rule)"),
            ("handle_checks:OwnCode", "rule code 'OWN999' is ownlint's own: choose another prefix"),
            ("handle_checks:BadCode", "rule code 'xrl-1' is not upper-case letters then digits (like 'ABC101')"),
            ("handle_checks:TakesArguments", "cannot be made without arguments: TypeError:"),
            ("no colon", "expected 'module:Class'"),
        ],
    )
    def test_a_bad_checker_is_one_line_naming_the_spec(self, tmp_path: Path, spec: str, reason: str) -> None:
        write(tmp_path / "ownlint.toml", f'checkers = ["{spec}"]\n')
        write(tmp_path / "a.py", FREED)
        result = invoke("check", "a.py")
        assert result.exit_code == 2
        [line] = result.stderr.strip().splitlines()
        assert line.startswith(f"ownlint: error: ownlint.toml: key 'checkers': {spec!r}: ")
        assert reason in line
        assert "Traceback" not in result.stderr + result.stdout


class TestSecurity:
    """A checker is imported from the environment's import path only: a module that exists only inside the
    checked tree (the current directory) is never imported, whatever its configuration names."""

    def test_a_module_of_the_checked_tree_is_not_imported(self, tmp_path: Path) -> None:
        marker = tmp_path / "imported"
        write(tmp_path / "repo" / "evil_checks.py", f"open({str(marker)!r}, 'w').close()\n")
        write(tmp_path / "repo" / "pyproject.toml", '[tool.ownlint]\ncheckers = ["evil_checks:Evil"]\n')
        write(tmp_path / "repo" / "a.py", FREED)
        env = {**os.environ, "PYTHONPATH": "."}  # even with the current directory on the path, as `-m` puts it
        for command in ([sys.executable, "-m", "ownlint", "check", "."], [sys.executable, "-m", "ownlint", "rules"]):
            done = subprocess.run(command, cwd=tmp_path / "repo", env=env, capture_output=True, text=True, timeout=120)
            assert done.returncode == 2, done.stderr
            assert "'evil_checks:Evil': cannot import 'evil_checks': ModuleNotFoundError" in done.stderr
            assert not marker.exists()

    def test_not_even_when_this_process_has_the_current_directory_on_its_path(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """As a program that uses `ownlint.api` may have it (`python script.py` puts the script's directory
        first, an interactive interpreter puts "")."""
        marker = tmp_path / "imported"
        repo = tmp_path / "repo"
        write(repo / "evil_checks_here.py", f"open({str(marker)!r}, 'w').close()\n")
        write(repo / "ownlint.toml", 'checkers = ["evil_checks_here:Evil"]\n')
        monkeypatch.chdir(repo)
        monkeypatch.syspath_prepend("")
        monkeypatch.syspath_prepend(str(repo))
        with pytest.raises(ConfigError, match="cannot import 'evil_checks_here': ModuleNotFoundError"):
            load_config(repo / "ownlint.toml")
        assert not marker.exists()
        assert "evil_checks_here" not in sys.modules

    def test_pythonpath_names_where_checkers_are(self, tmp_path: Path) -> None:
        write(tmp_path / "ownlint.toml", f'checkers = ["{NOTED}"]\nextend-select = ["XRL100"]\n')
        write(tmp_path / "a.py", FREED)
        env = {**os.environ, "PYTHONPATH": str(OUTSIDE)}
        done = subprocess.run(
            [sys.executable, "-m", "ownlint", "check", "--format", "json", "."],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 1, done.stderr
        [finding] = json.loads(done.stdout)["findings"]
        assert (finding["code"], finding["name"], finding["severity"], finding["line"]) == (
            "XRL100",
            "release-noted",
            "warning",
            5,
        )


class TestPreview:
    def test_a_preview_rule_is_silent_unless_selected_by_its_code(self, tmp_path: Path) -> None:
        config = configured(tmp_path, f'checkers = ["{NOTED}"]\nselect = ["OWN", "XRL"]\n')
        assert [code for _, code, _ in found(config, tmp_path)] == ["XRL100"]
        config = configured(tmp_path, f'checkers = ["{NOTED}"]\nselect = ["XRL10"]\n')
        assert [code for _, code, _ in found(config, tmp_path)] == ["XRL100"]
        config = configured(tmp_path, f'checkers = ["{NOTED}"]\nselect = ["XRL101"]\n')
        assert [code for _, code, _ in found(config, tmp_path)] == ["XRL101"]
        config = configured(tmp_path, f'checkers = ["{NOTED}"]\nselect = ["release-noted-in-preview"]\n')
        assert config.select == ("XRL101",)
        assert [code for _, code, _ in found(config, tmp_path)] == ["XRL101"]

    def test_selected_on_the_command_line(self, tmp_path: Path) -> None:
        configured(tmp_path, f'checkers = ["{NOTED}"]\n')
        assert invoke("check", "--extend-select", "XRL", "a.py").stdout.count("XRL101") == 0
        result = invoke("check", "--extend-select", "XRL101", "--format", "concise", "a.py")
        assert result.exit_code == 1
        assert [line.split()[1] for line in result.stdout.splitlines() if ".py:" in line] == ["XRL101"]

    def test_is_enabled_needs_the_exact_code(self, tmp_path: Path) -> None:
        preview = Rule("OWN999", "in-preview", "error", "s", "w", "b", (), (), "", "", preview=True)
        rules = {"OWN999": preview}
        config = Config(root=tmp_path)
        assert not config.is_enabled("OWN999", "a.py", rules)
        assert Config(root=tmp_path, select=("OWN999",)).is_enabled("OWN999", "a.py", rules)
        assert not Config(root=tmp_path, select=("OWN999",), ignore=("OWN999",)).is_enabled("OWN999", "a.py", rules)
        assert config.is_enabled("OWN201", "a.py", rules)


class TestListed:
    def test_rules_lists_and_marks_them(self, tmp_path: Path) -> None:
        configured(tmp_path, f'checkers = ["{NOTED}"]\n')
        text = invoke("rules").stdout
        [line] = [line for line in text.splitlines() if line.startswith("XRL101")]
        assert "(preview)" in line
        records = {r["code"]: r for r in json.loads(invoke("rules", "--format", "json").stdout)}
        assert records["XRL101"]["preview"] is True
        assert records["XRL100"]["preview"] is False and records["OWN201"]["preview"] is False
        assert "preview" in invoke("rules", "--format", "markdown").stdout.split("XRL101", 1)[1].splitlines()[0]

    def test_explain_shows_its_documentation(self, tmp_path: Path) -> None:
        configured(tmp_path, f'checkers = ["{NOTED}"]\n')
        result = invoke("explain", "XRL101")
        assert result.exit_code == 0
        assert result.stdout.startswith("# XRL101 release-noted-in-preview (warning, preview)\n")
        assert 'select = ["XRL101"]' in result.stdout
        assert find_rule("release-noted") is not None

    def test_sarif_describes_it(self, tmp_path: Path) -> None:
        configured(tmp_path, f'checkers = ["{NOTED}"]\nselect = ["XRL100"]\n')
        result = invoke("check", "--format", "sarif", "a.py")
        run = json.loads(result.stdout)["runs"][0]
        assert "XRL100" in [r["id"] for r in run["tool"]["driver"]["rules"]]
        assert [r["ruleId"] for r in run["results"]] == ["XRL100"]
        assert all_rules()["XRL100"].name == "release-noted"


class TestCache:
    def test_the_checkers_are_part_of_the_key(self, tmp_path: Path) -> None:
        config = configured(tmp_path, f'checkers = ["{NOTED}"]\nselect = ["XRL100"]\n')
        plain = configured(tmp_path, 'select = ["OWN", "XRL"]\n')
        first = api.check_paths([tmp_path / "a.py"], plain, use_cache=True, jobs=1)
        assert first.findings == []
        second = api.check_paths([tmp_path / "a.py"], config, use_cache=True, jobs=1)
        assert [d.code for d in second.findings] == ["XRL100"]


def test_the_checkers_modules_are_hashed_into_the_cache_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ownlint.cache import Cache

    config = configured(tmp_path, f'checkers = ["{NOTED}"]\nselect = ["XRL100"]\n')
    hashed: list[Path] = []

    def opened(root: Path, files: tuple[Path, ...], *rest: object) -> None:
        hashed.extend(files)

    monkeypatch.setattr(Cache, "open", opened)
    api.check_paths([tmp_path / "a.py"], config, use_cache=True)
    assert OUTSIDE / "handle_checks.py" in hashed


def test_the_readme_example_checker_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("<!-- checker-example -->", 1)[1]
    module = section.split("```python\n", 1)[1].split("```", 1)[0]
    toml = section.split("```toml\n", 1)[1].split("```", 1)[0]
    write(tmp_path / "installed" / "mychecks" / "__init__.py", "")
    write(tmp_path / "installed" / "mychecks" / "rules.py", module)
    monkeypatch.syspath_prepend(str(tmp_path / "installed"))
    write(tmp_path / "project" / "pyproject.toml", toml)
    example = all_rules_after(load_config(tmp_path / "project" / "pyproject.toml"))["MYC101"]
    write(tmp_path / "project" / "a.py", example.invalid[0].lstrip("\n"))
    result = api.check_paths([tmp_path / "project" / "a.py"], load_config(tmp_path / "project" / "pyproject.toml"))
    assert [(d.span.line, d.code, d.message) for d in result.findings] == [(5, "MYC101", "`p` is released directly")]


def all_rules_after(config: Config) -> dict[str, Rule]:
    assert config.checkers
    return dict(all_rules())


def test_a_spawned_worker_imports_the_checker_and_words_its_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spawned worker (the language server's, or any run with a thread about) imports the checker by its
    name on the environment's path, and finds the rule's summary itself (XRL101 gives no message)."""
    from ownlint import runner

    monkeypatch.setattr(runner, "can_fork", lambda: False)
    config = configured(tmp_path, f'checkers = ["{NOTED}"]\nselect = ["XRL100", "XRL101"]\n')
    assert found(config, tmp_path) == [
        (5, "XRL100", "`p` is released here"),
        (5, "XRL101", "A handle is released here (a preview rule)."),
    ]


TRUTH = "truth_checks:ReleasedThenTested"


def _truth_examples() -> list[tuple[str, str]]:
    """The examples of the truth-value checker's rule, read from its module's text (importing it needs the
    engine's Assume event)."""
    import ast

    tree = ast.parse((OUTSIDE / "truth_checks.py").read_text(encoding="utf-8"))
    examples: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in ("invalid", "valid"):
            assert isinstance(node.value, ast.Tuple)
            examples += [(node.arg, ast.literal_eval(item)) for item in node.value.elts]
    return examples


@pytest.mark.parametrize(
    ("kind", "example"), _truth_examples(), ids=[f"{kind}{i}" for i, (kind, _) in enumerate(_truth_examples())]
)
def test_a_checker_with_facts_of_its_own_finds_a_released_handle_tested(
    tmp_path: Path, kind: str, example: str
) -> None:
    """`zeMemFree(ctx, p)` ... `if p:` is reported on the test's line; not when `p` was set to None or
    rebound after the release, nor when the test comes before it."""
    config = configured(tmp_path, f'checkers = ["{TRUTH}"]\nselect = ["XRL201"]\n')
    source = example.lstrip("\n")
    write(tmp_path / "a.py", source)
    expected = [i for i, line in enumerate(source.splitlines(), 1) if "# E: XRL201" in line]
    assert (kind == "invalid") == bool(expected)
    result = api.check_paths([tmp_path / "a.py"], config)
    assert result.errors == []
    assert [(d.span.line, d.code) for d in result.findings] == [(line, "XRL201") for line in expected]
    if expected:
        assert result.findings[0].message == "`p` was released, and is tested as a truth value"


def test_the_generated_documents_mark_a_preview_rule() -> None:
    from ownlint.registry import rules_document, rules_markdown_table

    preview = Rule("OWN999", "in-preview", "error", "Summary.", "What.", "Why.", (), (), "", "", preview=True)
    assert "| OWN999 | in-preview | error (preview) | Summary. | no |" in rules_markdown_table({"OWN999": preview})
    document = rules_document({"OWN999": preview})
    assert "Severity: error (preview)." in document
    assert 'it runs only where it is selected by its code (`select = ["OWN999"]`' in document
