"""API models as data: validation of model files, and a user's own binding end to end."""

from __future__ import annotations

from pathlib import Path

import forked
import pytest

from ownlint.engine.modelling.models import ModelError, builtin_model_dir, load_models
from ownlint.inputs import parse_toml

USER_MODEL = """
[model]
name = "mylib"
match = "qualified"
raises = false

[[call]]
functions = ["mylib.alloc"]
effects = [{ create = "memory", out = -1 }]

[[call]]
functions = ["mylib.release"]
effects = [{ release = 0 }]
"""

USER_CODE = """import ctypes
import mylib


def work(n):
    p = ctypes.c_void_p()
    mylib.alloc(n, ctypes.byref(p))
    mylib.release(p)
    mylib.release(p)
"""


def test_every_builtin_model_links_its_api_documentation() -> None:
    """Each bundled model names the page of its API's documentation (issue 35:
    a reference is a link anyone can open), an https address with at most one
    `{name}`, which the call's last name fills."""
    models = load_models()
    names = {parse_toml(p.read_bytes())["model"]["name"] for p in models.files}
    assert set(models.reference_urls) == names
    assert all(url.startswith("https://") for url in models.reference_urls.values())
    assert models.reference_url_of("cuda.bindings.driver.cuMemFree") == (
        "https://nvidia.github.io/cuda-python/cuda-bindings/latest/module/driver.html#cuda.bindings.driver.cuMemFree"
    )
    assert models.reference_url_of("cupy.cuda.runtime.free") == (
        "https://docs.cupy.dev/en/stable/reference/generated/cupy.cuda.runtime.free.html"
    )
    assert models.reference_url_of("ze.zeMemFree") is not None
    assert models.reference_url_of("print") is None  # not a call any model creates or releases with


def test_every_builtin_model_loads() -> None:
    models = load_models()
    assert {p.name for p in models.files} == {p.name for p in builtin_model_dir().glob("*.toml")}
    assert models.call("ze.zeMemFree") is not None
    assert models.call("anything.zeMemFree") is not None  # last-name match, any receiver


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[model]\nname = 'x'\nbogus = 1\n", "[model].bogus: unknown key"),
        ("[model]\ndescription = 'no name'\n", "[model].name: missing"),
        ("[model]\nname = 'x'\nmatch = 'fuzzy'\n", "[model].match: must be 'last-name' or 'qualified'"),
        ("[model]\nname = 'x'\n[[release]]\nfunctions = ['f']\nhandel = 0\n", "[[release]][0].handle: missing"),
        (
            "[model]\nname = 'x'\n[[create]]\nfunctions = 'f'\nout = 1\n",
            "[[create]][0].functions: must be a list of strings",
        ),
        ("[model]\nname = 'x'\n[[create]]\nfunctions = ['f']\nout = 'last'\n", "[[create]][0].out: must be an integer"),
        ("model = [\n", "not valid TOML"),
        ("[model]\nname = 'x'\n[[adopt]]\nfunctions = ['f']\n", "needs an [ownership] table"),
        (
            "[model]\nname = 'x'\n[memory]\ndescriptor-pattern = '(_desc'\n",
            "[memory].descriptor-pattern: not a supported pattern",
        ),
        (
            "[model]\nname = 'x'\n[[borrow-attribute]]\nattributes = ['_p']\npath = ['data', 0.5]\n",
            "[[borrow-attribute]][0].path: must be a list of strings and integers",
        ),
        (
            "[model]\nname = 'x'\n[[submit]]\nfunctions = ['go']\narguments = ['1']\n",
            "[[submit]][0].arguments: must be a list of integers",
        ),
        ("[model]\nname = 'x'\n[async]\nwait-method = ['wait']\n", "[async].wait-method: unknown key"),
        (
            "[model]\nname = 'x'\nreference-url = 'http://example.org/{name}'\n",
            "[model].reference-url: must start with https://",
        ),
        (
            "[model]\nname = 'x'\nreference-url = 'https://example.org/{name}#{name}'\n",
            "[model].reference-url: at most one `{name}`",
        ),
        (
            "[model]\nname = 'x'\nreference-url = 'https://example.org/{call}'\n",
            "[model].reference-url: at most one `{name}`",
        ),
        ("[model]\nname = 'x'\nreference-url = 'https://exa mple.org/'\n", "[model].reference-url: not a URL"),
        ("[model]\nname = 'x'\nreference-url = 3\n", "[model].reference-url: must be a str"),
    ],
)
def test_a_bad_model_names_the_file_and_the_key(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelError) as caught:
        load_models([path])
    message = str(caught.value)
    assert message.startswith(str(path)) and expected in message
    assert "\n" not in message


def test_a_user_model_finds_a_double_free_in_its_binding(tmp_path: Path) -> None:
    (tmp_path / "mylib.toml").write_text(USER_MODEL, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.ownlint]\nmodels = ["mylib.toml"]\n', encoding="utf-8")
    (tmp_path / "work.py").write_text(USER_CODE, encoding="utf-8")
    run = forked.ownlint("check", "--format", "concise", "--no-cache", ".", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert "work.py:9:5: OWN201" in run.stdout
    # without the model, nothing is known about mylib
    (tmp_path / "pyproject.toml").write_text("[tool.ownlint]\n", encoding="utf-8")
    quiet = forked.ownlint("check", "--format", "concise", "--no-cache", ".", cwd=tmp_path)
    assert quiet.returncode == 0, quiet.stdout + quiet.stderr


def test_model_files_are_parsed_once_while_their_bytes_stay_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every check loads the models (an editor's, on every keystroke): 19
    bundled TOML files, some 50 ms. Files whose bytes have not changed give
    the models already made; an edit, a file added or the order changed
    loads them again; an older-format file warns on every load, as before."""
    import warnings

    from ownlint.engine.modelling import models as loading
    from ownlint.engine.modelling.models import ModelWarning, load_model_files

    parsed: list[bytes] = []

    def counting(data: bytes) -> dict[str, object]:
        parsed.append(data)
        return parse_toml(data)

    monkeypatch.setattr(loading, "parse_toml", counting)
    mine, old = tmp_path / "mine.toml", tmp_path / "old.toml"
    mine.write_text(USER_MODEL, encoding="utf-8")
    old.write_text('[model]\nname = "old"\n\n[[create]]\nfunctions = ["oldAlloc"]\nout = -1\n', encoding="utf-8")
    first = load_model_files([mine])
    assert load_model_files([mine]) is first and len(parsed) == 1
    mine.write_text(USER_MODEL + "\n", encoding="utf-8")  # same models, other bytes: read again
    assert load_model_files([mine]) is not first and len(parsed) == 2
    for _ in range(2):
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", ModelWarning)
            both = load_model_files([mine, old])
        assert [type(w.message) for w in said] == [ModelWarning] and "old.toml" in str(said[0].message)
    assert len(parsed) == 4  # mine and old, once
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        assert load_model_files([old, mine]) is not both
    assert "mylib.alloc" in first.by_qualified
