"""Configuration: discovery, validation (one-line errors naming file and key), rule selection."""

from __future__ import annotations

from pathlib import Path

import pytest

from ownlint.config import (
    Config,
    ConfigError,
    PerFileIgnore,
    default_config,
    discover_config,
    find_config_file,
    load_config,
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def config_error(path: Path) -> str:
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    message = str(raised.value)
    assert "\n" not in message
    return message


class TestDiscovery:
    def test_no_file_gives_the_defaults_rooted_at_the_working_directory(self, tmp_path: Path) -> None:
        config = discover_config(tmp_path / "src")
        assert config == default_config(tmp_path)
        assert config.source is None
        assert config.select == ("OWN",)

    def test_pyproject_found_walking_up_from_a_file(self, tmp_path: Path) -> None:
        write(tmp_path / "pyproject.toml", '[tool.ownlint]\nignore = ["OWN203"]\n')
        file = write(tmp_path / "src" / "pkg" / "mod.py", "")
        config = discover_config(file)
        assert config.source == tmp_path / "pyproject.toml"
        assert config.root == tmp_path
        assert config.ignore == ("OWN203",)

    def test_path_that_does_not_exist_still_walks_up(self, tmp_path: Path) -> None:
        write(tmp_path / "ownlint.toml", "")
        assert find_config_file(tmp_path / "missing" / "x.py") == tmp_path / "ownlint.toml"

    def test_pyproject_without_the_table_is_passed_over(self, tmp_path: Path) -> None:
        write(tmp_path / "ownlint.toml", 'ignore = ["OWN201"]\n')
        write(tmp_path / "sub" / "pyproject.toml", '[project]\nname = "x"\n')
        config = discover_config(tmp_path / "sub")
        assert config.source == tmp_path / "ownlint.toml"

    def test_nearest_file_wins(self, tmp_path: Path) -> None:
        write(tmp_path / "pyproject.toml", '[tool.ownlint]\nignore = ["OWN201"]\n')
        write(tmp_path / "sub" / ".ownlint.toml", 'ignore = ["OWN203"]\n')
        config = discover_config(tmp_path / "sub" / "a.py")
        assert config.ignore == ("OWN203",)
        assert config.root == tmp_path / "sub"

    def test_dedicated_file_beats_pyproject_in_the_same_directory(self, tmp_path: Path) -> None:
        write(tmp_path / "pyproject.toml", '[tool.ownlint]\nignore = ["OWN201"]\n')
        write(tmp_path / "ownlint.toml", 'ignore = ["OWN203"]\n')
        assert discover_config(tmp_path).ignore == ("OWN203",)

    def test_explicit_file_is_read_whatever_its_name(self, tmp_path: Path) -> None:
        path = write(tmp_path / "conf" / "lint.toml", 'select = ["own2"]\n')
        config = load_config(path)
        assert config.select == ("OWN2",)
        assert config.root == tmp_path / "conf"

    def test_broken_pyproject_on_the_way_up_is_an_error(self, tmp_path: Path) -> None:
        write(tmp_path / "pyproject.toml", "[tool.ownlint\n")
        with pytest.raises(ConfigError, match=r"^pyproject.toml: invalid TOML: "):
            discover_config(tmp_path)


class TestValues:
    def test_every_key(self, tmp_path: Path) -> None:
        write(tmp_path / "models" / "mine.toml", "")
        path = write(
            tmp_path / "pyproject.toml",
            """
[tool.ownlint]
select = ["OWN"]
ignore = ["OWN101"]
exclude = ["build/", "third_party/"]
models = ["models/mine.toml"]
interop-modules = ["mybinding", "pkg.sub"]
page-size = 65536
[tool.ownlint.per-file-ignores]
"tests/*" = ["OWN101", "own2"]
""",
        )
        config = load_config(path)
        assert config == Config(
            root=tmp_path,
            source=path,
            select=("OWN",),
            ignore=("OWN101",),
            exclude=("build/", "third_party/"),
            models=(tmp_path / "models" / "mine.toml",),
            interop_modules=("mybinding", "pkg.sub"),
            page_size=65536,
            per_file_ignores=(PerFileIgnore("tests/*", ("OWN101", "OWN2")),),
        )

    def test_page_size_symbolic(self, tmp_path: Path) -> None:
        path = write(tmp_path / "ownlint.toml", 'page-size = "symbolic"\n')
        assert load_config(path).page_size is None

    def test_unknown_key_names_file_table_and_key(self, tmp_path: Path) -> None:
        path = write(tmp_path / "pyproject.toml", '[tool.ownlint]\nselct = ["OWN"]\n')
        assert config_error(path) == "pyproject.toml: [tool.ownlint] unknown key 'selct'"

    def test_unknown_key_in_a_dedicated_file(self, tmp_path: Path) -> None:
        path = write(tmp_path / ".ownlint.toml", "extend-exclude = []\n")
        assert config_error(path) == ".ownlint.toml: unknown key 'extend-exclude'"

    @pytest.mark.parametrize(
        ("line", "key"),
        [
            ("page-size = 1000", "page-size"),
            ("page-size = 6144", "page-size"),
            ("page-size = 2048", "page-size"),
            ("page-size = true", "page-size"),
            ('page-size = "big"', "page-size"),
            ('select = "OWN201"', "select"),
            ('select = ["E501"]', "select"),
            ("ignore = [201]", "ignore"),
            ('exclude = "build"', "exclude"),
            ('models = ["nope.toml"]', "models"),
            ('interop-modules = ["not a module"]', "interop-modules"),
            ('per-file-ignores = ["x"]', "per-file-ignores"),
            ('per-file-ignores = { "t/*" = "OWN201" }', "per-file-ignores"),
            ('per-file-ignores = { "t/*" = ["X1"] }', "per-file-ignores"),
        ],
    )
    def test_bad_value_names_the_key(self, tmp_path: Path, line: str, key: str) -> None:
        path = write(tmp_path / "ownlint.toml", line + "\n")
        message = config_error(path)
        assert message.startswith("ownlint.toml: ")
        assert f"'{key}'" in message

    @pytest.mark.parametrize("size", [4096, 8192, 2**21])
    def test_good_page_sizes(self, tmp_path: Path, size: int) -> None:
        path = write(tmp_path / "ownlint.toml", f"page-size = {size}\n")
        assert load_config(path).page_size == size

    def test_broken_toml_is_one_line_with_the_reason(self, tmp_path: Path) -> None:
        path = write(tmp_path / "ownlint.toml", 'select = ["OWN"\nignore = []\n')
        message = config_error(path)
        assert message.startswith("ownlint.toml: invalid TOML: ")

    def test_missing_explicit_file(self, tmp_path: Path) -> None:
        assert config_error(tmp_path / "nope.toml") == "nope.toml: cannot read: No such file or directory"

    def test_tool_ownlint_must_be_a_table(self, tmp_path: Path) -> None:
        path = write(tmp_path / "pyproject.toml", "[tool]\nownlint = 3\n")
        assert config_error(path) == "pyproject.toml: [tool.ownlint] must be a table"


class TestSelection:
    def test_default_enables_everything(self, tmp_path: Path) -> None:
        config = default_config(tmp_path)
        assert config.is_enabled("OWN201", "a.py")
        assert config.is_enabled("OWN001", "a.py")

    def test_prefixes_and_the_more_specific_one_wins(self, tmp_path: Path) -> None:
        config = Config(root=tmp_path, select=("OWN2", "OWN301"), ignore=("OWN20", "OWN3"))
        assert not config.is_enabled("OWN201", "a.py")  # OWN20 is longer than OWN2
        assert config.is_enabled("OWN301", "a.py")  # OWN301 is longer than OWN3
        assert not config.is_enabled("OWN302", "a.py")
        assert not config.is_enabled("OWN101", "a.py")  # not selected

    def test_tie_goes_to_ignore(self, tmp_path: Path) -> None:
        config = Config(root=tmp_path, select=("OWN201",), ignore=("OWN201",))
        assert not config.is_enabled("OWN201", "a.py")

    def test_parse_error_is_on_unless_ignored(self, tmp_path: Path) -> None:
        assert Config(root=tmp_path, select=("OWN2",)).is_enabled("OWN001", "a.py")
        assert Config(root=tmp_path, select=()).is_enabled("OWN001", "a.py")
        assert not Config(root=tmp_path, ignore=("OWN001",)).is_enabled("OWN001", "a.py")
        assert not Config(root=tmp_path, ignore=("OWN",)).is_enabled("OWN001", "a.py")

    def test_per_file_ignores_relative_to_the_config_directory(self, tmp_path: Path) -> None:
        config = Config(root=tmp_path / "proj", per_file_ignores=(PerFileIgnore("tests/*", ("OWN2",)),))
        assert not config.is_enabled("OWN201", tmp_path / "proj" / "tests" / "t.py")
        assert not config.is_enabled("OWN201", "proj/tests/sub/t.py")
        assert config.is_enabled("OWN201", "proj/src/t.py")
        assert config.is_enabled("OWN201", "tests/t.py")  # outside the root
        assert config.is_enabled("OWN301", "proj/tests/t.py")

    def test_per_file_ignores_basename_pattern(self, tmp_path: Path) -> None:
        config = Config(root=tmp_path, per_file_ignores=(PerFileIgnore("conftest.py", ("OWN",)),))
        assert not config.is_enabled("OWN201", "a/b/conftest.py")
        assert config.is_enabled("OWN201", "a/b/test_x.py")

    def test_command_line_select_replaces_and_ignore_extends(self, tmp_path: Path) -> None:
        config = Config(root=tmp_path, select=("OWN2",), ignore=("OWN203",))
        extended = config.with_overrides(ignore=["own201"])
        assert extended.select == ("OWN2",)
        assert extended.ignore == ("OWN203", "OWN201")
        replaced = config.with_overrides(select=["OWN203"], ignore=["OWN3"])
        assert replaced.select == ("OWN203",)
        assert replaced.ignore == ("OWN3",)
        assert replaced.is_enabled("OWN203", "a.py")

    def test_command_line_codes_are_validated(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigError, match=r"^--select: 'F401' is not a rule code"):
            default_config(tmp_path).with_overrides(select=["F401"])
