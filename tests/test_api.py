"""`ownlint.api`: reading, decoding, one engine call per run, filtering, suppression, isolation."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fake_engine import install

from ownlint import __version__, api, runner
from ownlint.checks import CHECKERS
from ownlint.config import Config, default_config
from ownlint.diagnostics import FileError
from ownlint.engine.program import project


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def codes(result: api.RunResult) -> list[tuple[str, int, str]]:
    return [(d.path, d.span.line, d.code) for d in result.findings]


class TestDecoding:
    def test_bom_is_stripped(self) -> None:
        assert api.decode_source(b"\xef\xbb\xbfx = 1\n", "a.py") == "x = 1\n"

    def test_not_utf8_names_the_byte_offset(self) -> None:
        assert api.decode_source(b"x = '\xe9'\n", "a.py") == FileError(
            "a.py", "not UTF-8: invalid continuation byte at byte offset 5"
        )

    def test_nul_bytes(self) -> None:
        assert api.decode_source(b"x = 1\x00\n", "a.py") == FileError("a.py", "contains NUL bytes")

    def test_unreadable_file(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        path = write(tmp_path / "a.py", "x = 1\n")

        def refuse(*args: object, **kwargs: object) -> int:  # sources are opened with os.open (ownlint.inputs)
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(os, "open", refuse)
        assert api.read_source(path, "a.py") == FileError("a.py", "cannot read: Permission denied")


class TestModuleNames:
    def test_packages_above_the_file(self, tmp_path: Path) -> None:
        write(tmp_path / "src" / "pkg" / "__init__.py", "")
        write(tmp_path / "src" / "pkg" / "sub" / "__init__.py", "")
        assert api.module_name(tmp_path / "src" / "pkg" / "sub" / "mod.py") == "pkg.sub.mod"
        assert api.module_name(tmp_path / "src" / "pkg" / "sub" / "__init__.py") == "pkg.sub"
        assert api.module_name(tmp_path / "src" / "top.pyi") == "top"

    def test_no_name_when_not_an_identifier(self, tmp_path: Path) -> None:
        assert api.module_name(tmp_path / "my-script.py") is None
        assert api.module_name(tmp_path / "script") is None


class TestCheckPaths:
    def test_all_files_go_to_the_engine_in_one_call(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        calls = install(monkeypatch)
        write(tmp_path / "pkg" / "__init__.py", "")
        write(tmp_path / "pkg" / "a.py", "free_again(p)\n")
        write(tmp_path / "pkg" / "b.py", "\xef\xbb\xbf")
        write(tmp_path / "bad.py", b"\xff\n")
        result = api.check_paths(["."], default_config())
        assert len(calls) == 1
        assert [(f.path, f.module) for f in calls[0]] == [
            ("pkg/__init__.py", "pkg"),
            ("pkg/a.py", "pkg.a"),
            ("pkg/b.py", "pkg.b"),
        ]
        assert result.files == ["bad.py", "pkg/__init__.py", "pkg/a.py", "pkg/b.py"]
        assert result.errors == [FileError("bad.py", "not UTF-8: invalid start byte at byte offset 0")]
        assert codes(result) == [("pkg/a.py", 1, "OWN201")]
        assert result.sources["pkg/a.py"] == "free_again(p)\n"

    def test_findings_sorted_by_path_line_column_code(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        install(monkeypatch)
        write(tmp_path / "b.py", "use_after(p)\nfree_again(p); use_after(p)\n")
        write(tmp_path / "a.py", "x = 1\nuse_after(p)  ; free_again(p)\n")
        result = api.check_paths(["b.py", "a.py"], default_config())
        assert [(d.path, d.span.line, d.span.column, d.code) for d in result.findings] == [
            ("a.py", 2, 1, "OWN203"),
            ("a.py", 2, 17, "OWN201"),
            ("b.py", 1, 1, "OWN203"),
            ("b.py", 2, 1, "OWN201"),
            ("b.py", 2, 16, "OWN203"),
        ]

    def test_configuration_and_suppressions_filter(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        install(monkeypatch)
        write(tmp_path / "a.py", "free_again(p)\nuse_after(p)\nfree_again(p)  # noqa: OWN201\n")
        write(tmp_path / "tests" / "t.py", "free_again(p)\n")
        config = Config(root=tmp_path, ignore=("OWN203",), per_file_ignores=())
        assert codes(api.check_paths(["."], config)) == [("a.py", 1, "OWN201"), ("tests/t.py", 1, "OWN201")]
        config = default_config(tmp_path).with_overrides(select=["OWN203"])
        assert codes(api.check_paths(["."], config)) == [("a.py", 2, "OWN203")]

    def test_unused_suppressions_only_on_request(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        install(monkeypatch)
        write(tmp_path / "a.py", "x = 1  # noqa: OWN201\nfree_again(p)  # ownlint: ignore\n")
        write(tmp_path / "b.py", "y = 2  # ownlint: ignore\n")
        assert api.check_paths(["."], default_config()).unused_suppressions == []
        result = api.check_paths(["."], default_config(), report_unused_suppressions=True)
        assert [(u.path, u.line, u.what) for u in result.unused_suppressions] == [
            ("a.py", 1, "OWN201"),
            ("b.py", 1, "ownlint: ignore"),
        ]

    def test_invalid_suppressions_are_findings_of_their_own(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        install(monkeypatch)
        write(
            tmp_path / "a.py",
            "x = 1  # ownlint: ignore[OWN999]\ny = 2  # ownlint: ignore-file\nfree_again(p)  # noqa\n",
        )
        write(tmp_path / "b.py", "z = 3  # ownlint: ignore[double-fre]  # ownlint: ignore[OWN002]\n")
        result = api.check_paths(["."], default_config())
        assert codes(result) == [("a.py", 1, "OWN002"), ("a.py", 2, "OWN002"), ("a.py", 3, "OWN201")]
        assert [(d.span.column, d.message) for d in result.findings[:2]] == [
            (8, "unknown rule 'OWN999' in a suppression; `ownlint rules` lists them"),
            (8, "`ownlint: ignore-file` after code silences nothing: put it on a line of its own"),
        ]
        config = default_config(tmp_path).with_overrides(select=None, ignore=["OWN002"])
        assert codes(api.check_paths(["."], config)) == [("a.py", 3, "OWN201")]
        assert codes(api.check_source("x = 1  # noqa: OWN1234\n", "c.py", default_config())) == [("c.py", 1, "OWN002")]

    def test_an_engine_crash_is_an_error_entry_for_every_file(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def crash(files: object, models: object, options: object, *rest: object) -> list[object]:
            raise RuntimeError("boom\nsecond line")

        monkeypatch.setattr(runner, "analyze", crash)
        write(tmp_path / "a.py", "")
        write(tmp_path / "b.py", "")
        result = api.check_paths(["."], default_config())
        message = f"internal error in ownlint {__version__}: RuntimeError: boom second line"
        assert result.errors == [FileError("a.py", message), FileError("b.py", message)]
        assert result.has_internal_error

    def test_engine_options_come_from_the_configuration(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        seen: list[project.EngineOptions] = []

        def record(
            files: list[project.SourceFile], models: object, options: project.EngineOptions, *rest: object
        ) -> list[object]:
            seen.append(options)
            return []

        monkeypatch.setattr(runner, "analyze", record)
        config = Config(root=tmp_path, interop_modules=("mybinding",), page_size=8192)
        api.check_paths(["."], config)
        assert seen == [
            project.EngineOptions(
                interop_modules=("mybinding",),
                page_size=8192,
                checkers=CHECKERS,
                sections=True,
                demand=True,
                sections_from=api.SECTIONS_FROM,
            )
        ]


class TestCheckSource:
    def test_buffer_is_checked_as_the_named_file(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        calls = install(monkeypatch)
        result = api.check_source("\ufefffree_again(p)\n", tmp_path / "src" / "m.py", default_config())
        assert [f.path for f in calls[0]] == ["src/m.py"]
        assert calls[0][0].source == "free_again(p)\n"
        assert codes(result) == [("src/m.py", 1, "OWN201")]
        assert result.files == ["src/m.py"]
