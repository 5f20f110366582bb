"""What every test shares: a per-user cache directory of its own.

ownlint keeps its result cache (and the key that seals it) in the user's cache
directory; a test must neither read the cache of whoever runs the suite nor
leave entries in it. Subprocesses inherit the variables.
"""

from __future__ import annotations

from pathlib import Path

import hypothesis_profiles  # noqa: F401  (registers the profiles)
import pytest
from hypothesis import settings

# the README's command runs the `quick` profile; `--hypothesis-profile=NAME`
# (the hypothesis plugin reads it after this file) picks another
# (hypothesis_profiles.py)
settings.load_profile("quick")


@pytest.fixture(autouse=True)
def _own_user_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path_factory.mktemp("user-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(directory))
    monkeypatch.delenv("OWNLINT_CACHE_DIR", raising=False)
    return directory
