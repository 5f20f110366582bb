"""What every test shares: a per-user cache directory of its own, bytecode caches, and a quick end.

ownlint keeps its result cache (and the key that seals it) in the user's cache
directory; a test must neither read the cache of whoever runs the suite nor
leave entries in it. Subprocesses inherit the variables.

Python's bytecode caches are written as Python writes them by default, even
where the environment says not to (`PYTHONDONTWRITEBYTECODE`, set on some CI
images): the suite starts a few hundred interpreters (the CLI, the language
server, spawned workers), and each would otherwise compile ownlint's source
again, and each pytest worker would rewrite every test module's asserts
again. The caches go to the `__pycache__` folders `.gitignore` lists.

A pytest-xdist worker ends at once once its exit handlers have run, as
ownlint's own command line does (`ownlint.cli.main`): by then it has sent
every result, and freeing what its tests kept (parsed fixture corpora, their
analyses: gigabytes of objects) one by one took 4-5 s at the end of each run,
while the run waited.
"""

from __future__ import annotations

import atexit
import itertools
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import hypothesis_profiles  # noqa: F401  (registers the profiles)
import pytest
from hypothesis import settings

# the README's command runs the `quick` profile; `--hypothesis-profile=NAME`
# (the hypothesis plugin reads it after this file) picks another
# (hypothesis_profiles.py)
settings.load_profile("quick")


def _end_at_once() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


if os.environ.get("PYTEST_XDIST_WORKER"):
    atexit.register(_end_at_once)  # registered before the tests' own: runs after them

sys.dont_write_bytecode = False  # this process: the test modules imported after this file, and what they import
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # the interpreters the tests start


@pytest.fixture(scope="session")
def _user_caches(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Where each test's user cache directory goes: numbered here, since
    `tmp_path_factory.mktemp` lists its whole base directory on every call
    (thousands of tests made that quadratic: a tenth of the suite's time)."""
    yield tmp_path_factory.mktemp("user-caches")


_numbers = itertools.count()


@pytest.fixture(autouse=True)
def _own_user_cache(_user_caches: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = _user_caches / str(next(_numbers))
    directory.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(directory))
    monkeypatch.delenv("OWNLINT_CACHE_DIR", raising=False)
    return directory
