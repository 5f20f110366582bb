"""The result cache cannot lie (issue 29, point 3).

A hostile contributor can commit files, symbolic links and FIFOs; another user
of the machine can write where permissions allow; a disk can fill up. None of
it may hide a finding, make ownlint write outside its cache, exhaust memory,
hang, leave temporary files behind or end in a traceback. Each test here
started as a reproduction of one way the in-tree `.ownlint_cache/` failed.

The real program runs in a subprocess with its own per-user cache directory
(`XDG_CACHE_HOME`), as a victim's machine would; the attacker's runs use
another one (another user, another machine: another secret key).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import forked
import pytest

from ownlint import cache, cacheclean, cachedir, runner
from ownlint.cache import Cache, CacheWarning
from ownlint.cachedir import CacheUnusable, Store
from ownlint.checks import CHECKERS
from ownlint.diagnostics import FileReport
from ownlint.engine.modelling.models import load_models
from ownlint.engine.program.sources import EngineOptions, SourceFile

POSIX = os.name == "posix"
MODELS = load_models()
OPTIONS = EngineOptions(checkers=CHECKERS)

HELPER = "from ze import *\n\ndef release(ctx, p):\n    zeMemFree(ctx, p)\n"
CALLER = "from helpers import release\n\ndef f(ctx, p):\n    release(ctx, p)\n    release(ctx, p)\n"  # OWN201 at 5
ALONE = "from ze import *\n\ndef g(ctx, p):\n    zeMemFree(ctx, p)\n    zeMemFree(ctx, p)\n"  # OWN201 at 5
EXPECTED = [("alone.py", 5, "OWN201"), ("caller.py", 5, "OWN201")]


def project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "helpers.py").write_text(HELPER, encoding="utf-8")
    (root / "caller.py").write_text(CALLER, encoding="utf-8")
    (root / "alone.py").write_text(ALONE, encoding="utf-8")
    return root


def user_env(user_cache: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != cachedir.ENV_VAR}
    env.update(XDG_CACHE_HOME=str(user_cache), **extra)
    return env


def ownlint(
    cwd: Path,
    user_cache: Path,
    *args: str,
    env: dict[str, str] | None = None,
    preexec: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    env = env or user_env(user_cache)
    if preexec is None:
        return forked.ownlint(*args, cwd=cwd, env=env)
    # a limit set first applies to the run's own output too: where output is a pipe, as in real use
    return subprocess.run(
        [sys.executable, "-m", "ownlint", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        preexec_fn=preexec,
    )


def findings(done: subprocess.CompletedProcess[str]) -> list[tuple[str, int, str]]:
    """The findings of a `check --format json` run that must have gone well."""
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, (done.returncode, done.stderr)
    document = json.loads(done.stdout)
    assert document["errors"] == [], document["errors"]
    return sorted((f["path"], f["line"], f["code"]) for f in document["findings"])


def check(cwd: Path, user_cache: Path, *args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return ownlint(cwd, user_cache, "check", "--format", "json", *args, ".", **kw)  # type: ignore[arg-type]


def entries(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*.json") if p.is_file() and not p.is_symlink())


def forge_clean(entry: Path, secret: bytes) -> None:
    """Rewrite one entry so that every report in it is clean, sealed with `secret`
    (what an attacker who read ownlint's source does with a key of their own)."""
    name = entry.stem
    body = cache._unsealed_body(entry.read_bytes())
    assert body is not None, entry
    reports = json.loads(body)
    for report in reports:
        report["diagnostics"] = []
    entry.write_bytes(cache._seal(secret, name, json.dumps(reports).encode()))


def git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@a", "GIT_COMMITTER_NAME": "a"}
    env["GIT_COMMITTER_EMAIL"] = "a@a"
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


# --- forged entries ---------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("victim_args", [[], ["--cache-dir", ".ownlint_cache"]], ids=["default", "same-dir"])
def test_a_committed_forged_cache_hides_nothing_on_a_fresh_clone(tmp_path: Path, victim_args: list[str]) -> None:
    """The attacker fills a cache inside the tree, rewrites every entry as clean,
    `git add -f`s it; the victim checks a fresh clone, with the default cache
    or even pointing `--cache-dir` at the committed one."""
    attacker = project(tmp_path / "attacker")
    attacker_cache = tmp_path / "attacker-user-cache"
    assert findings(check(attacker, attacker_cache, "--cache-dir", ".ownlint_cache")) == EXPECTED
    forged = entries(attacker / ".ownlint_cache")
    assert forged
    secret = (attacker_cache / "ownlint" / cachedir.SECRET_FILE).read_bytes()
    for entry in forged:
        forge_clean(entry, secret)
    # the forgery works where its key is known: the attacker's own machine says "clean"
    assert check(attacker, attacker_cache, "--cache-dir", ".ownlint_cache").returncode == 0
    # entries are filed under a hash of the project's path: the attacker predicts the victim's (a CI path is)
    (forged_project,) = (attacker / ".ownlint_cache").glob("p-*")
    forged_project.rename(forged_project.with_name(cachedir.project_dir_name((tmp_path / "victim").resolve())))
    git(attacker, "init", "-q")
    git(attacker, "add", "-A")
    git(attacker, "add", "-f", ".ownlint_cache")
    git(attacker, "commit", "-q", "-m", "innocent")
    git(tmp_path, "clone", "-q", "attacker", "victim")
    victim = tmp_path / "victim"
    assert entries(victim / ".ownlint_cache")
    for _ in range(2):  # and the victim's own cache, once written, agrees
        assert findings(check(victim, tmp_path / "victim-user-cache", *victim_args)) == EXPECTED


def test_an_entry_sealed_with_another_key_is_checked_again(tmp_path: Path) -> None:
    """Another user (or a restored CI cache) wrote the entry: its seal does not
    verify with this user's key, so it is a miss and the file is analysed again."""
    store = Store.open(tmp_path / "c")
    sources = [SourceFile("alone.py", ALONE)]
    first = runner.analyze(sources, MODELS, OPTIONS, 1, Cache(store, tmp_path, MODELS.files, OPTIONS))
    assert [d.code for r in first for d in r.diagnostics] == ["OWN201"]
    written = entries(tmp_path / "c")
    assert written
    for entry in written:
        forge_clean(entry, os.urandom(32))
    again = Cache(store, tmp_path, MODELS.files, OPTIONS)
    second = runner.analyze(sources, MODELS, OPTIONS, 1, again)
    assert [d.code for r in second for d in r.diagnostics] == ["OWN201"]
    assert again.hits == 0 and again.misses >= 1


def test_an_entry_moved_to_another_key_is_a_miss(tmp_path: Path) -> None:
    """The seal covers the entry's key: a genuine clean entry of another
    content, renamed to the key of a buggy content, does not verify."""
    store = Store.open(tmp_path / "c")
    c = Cache(store, tmp_path, MODELS.files, OPTIONS)
    clean = [SourceFile("alone.py", "def g():\n    pass\n")]
    buggy = [SourceFile("alone.py", ALONE)]
    c.put(c.key(clean), [FileReport("alone.py")])
    source = c._entry(c.key(clean))
    target = c._entry(c.key(buggy))
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    assert c.get(c.key(buggy)) is None
    assert c.get(c.key(clean)) is not None


# --- symbolic links, devices, FIFOs -----------------------------------------------------------


@pytest.mark.skipif(not POSIX, reason="symbolic links and FIFOs as on POSIX")
def test_a_cache_dir_that_is_a_symlink_is_refused_with_one_warning(tmp_path: Path) -> None:
    tree = project(tmp_path / "tree")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (tree / "link").symlink_to(elsewhere)
    done = check(tree, tmp_path / "user", "--cache-dir", "link")
    assert findings(done) == EXPECTED
    warning = [line for line in done.stderr.splitlines() if "cache" in line]
    assert len(warning) == 1 and warning[0].startswith("ownlint: warning: not using the cache:"), done.stderr
    assert "symbolic link" in warning[0]
    assert list(elsewhere.iterdir()) == []


@pytest.mark.skipif(not POSIX, reason="symbolic links as on POSIX")
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_symlinked_directories_in_the_cache_never_lead_outside(tmp_path: Path, depth: int) -> None:
    """Each directory at `depth` under the cache dir (the project's, the
    version's, the shards) is replaced by a link to a directory outside."""
    tree = project(tmp_path / "tree")
    user = tmp_path / "user"
    assert findings(check(tree, user, "--cache-dir", ".cache")) == EXPECTED
    outside = tmp_path / "outside"
    outside.mkdir()
    base = tree / ".cache"
    dirs = sorted({p for p in base.glob("/".join(["*"] * depth)) if p.is_dir()})
    assert dirs
    for n, directory in enumerate(dirs):
        shutil.rmtree(directory)
        (outside / str(n)).mkdir()
        directory.symlink_to(outside / str(n))
    for _ in range(2):
        done = check(tree, user, "--cache-dir", ".cache")
        assert findings(done) == EXPECTED
    assert [p for p in outside.rglob("*") if p.is_file()] == []


@pytest.mark.skipif(not POSIX, reason="symbolic links as on POSIX")
def test_symlinked_entries_are_neither_read_nor_written_through(tmp_path: Path) -> None:
    tree = project(tmp_path / "tree")
    user = tmp_path / "user"
    findings(check(tree, user, "--cache-dir", ".cache"))
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    for entry in entries(tree / ".cache"):
        entry.unlink()
        entry.symlink_to(victim)
    for _ in range(2):
        assert findings(check(tree, user, "--cache-dir", ".cache")) == EXPECTED
    assert victim.read_text(encoding="utf-8") == "keep me\n"


def _limit_memory() -> None:
    import resource

    _soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    limit = 3 << 30
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/dev/zero, FIFOs and RLIMIT_DATA as on Linux")
@pytest.mark.parametrize("kind", ["dev-zero-link", "fifo", "huge-sparse-file", "directory", "garbage"])
def test_entries_that_are_not_small_regular_files_are_misses(tmp_path: Path, kind: str) -> None:
    """An entry linked to /dev/zero, a FIFO (blocks a plain read forever), a
    sparse file of 4 GiB, a directory or random bytes: a miss, quickly, in
    bounded memory (the run is limited to 3 GiB of data here)."""
    tree = project(tmp_path / "tree")
    user = tmp_path / "user"
    findings(check(tree, user, "--cache-dir", ".cache"))
    written = entries(tree / ".cache")
    assert written
    for entry in written:
        entry.unlink()
        if kind == "dev-zero-link":
            entry.symlink_to("/dev/zero")
        elif kind == "fifo":
            os.mkfifo(entry)
        elif kind == "huge-sparse-file":
            with entry.open("wb") as out:
                out.truncate(4 << 30)
        elif kind == "directory":
            entry.mkdir()
        else:
            entry.write_bytes(os.urandom(5000))
    done = check(tree, user, "--cache-dir", ".cache", preexec=_limit_memory)
    assert findings(done) == EXPECTED
    assert done.stderr == ""


# --- malformed entries -----------------------------------------------------------------------

GOOD_REPORT = {"path": "a.py", "diagnostics": [], "errors": []}
MALFORMED = {
    "empty": b"",
    "not json": b"not json",
    "cut short": b'[{"path": "a.py", "diagn',
    "an object": b"{}",
    "a string": b'"x"',
    "a number in the list": b"[1]",
    "a path that is a number": b'[{"path": 1, "diagnostics": [], "errors": []}]',
    "missing keys": b'[{"path": "a.py"}]',
    "a span of three": json.dumps(
        [{**GOOD_REPORT, "diagnostics": [{"code": "OWN201", "path": "a.py", "span": [1, 2, 3], "message": "m"}]}]
    ).encode(),
    "an error of the wrong arity": json.dumps([{**GOOD_REPORT, "errors": [["a.py"]]}]).encode(),
    "an extra key": json.dumps([{**GOOD_REPORT, "extra": 1}]).encode(),
    "deep nesting": b"[" * 200_000 + b"]" * 200_000,
    "huge integer": b'[{"path": "a.py", "diagnostics": [], "errors": [], "x": ' + b"9" * 5000 + b"}]",
    "not UTF-8": b'[{"path": "\xff\xfe.py", "diagnostics": [], "errors": []}]',
    "NaN": b"[NaN]",
}


@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_entry_with_a_valid_seal_is_a_miss_not_a_traceback(tmp_path: Path, body: bytes) -> None:
    """Even an entry sealed with the right key (so only ownlint could have
    written it: a bug, another version) is validated before use."""
    store = Store.open(tmp_path / "c")
    c = Cache(store, tmp_path, MODELS.files, OPTIONS)
    key = c.key([SourceFile("a.py", "x = 1\n")])
    c.put(key, [FileReport("a.py")])
    assert c.get(key) is not None
    c._entry(key).write_bytes(cache._seal(store.secret, key, body))
    assert c.get(key) is None


@pytest.mark.parametrize(
    "data", [b"", b"\0" * 100, b"ownlint-cache", os.urandom(300)], ids=["empty", "nul", "magic", "random"]
)
def test_a_damaged_entry_is_a_miss(tmp_path: Path, data: bytes) -> None:
    store = Store.open(tmp_path / "c")
    c = Cache(store, tmp_path, MODELS.files, OPTIONS)
    key = c.key([SourceFile("a.py", "x = 1\n")])
    c.put(key, [FileReport("a.py")])
    c._entry(key).write_bytes(data)
    assert c.get(key) is None


def test_an_entry_over_the_size_bound_is_neither_written_nor_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store.open(tmp_path / "c")
    c = Cache(store, tmp_path, MODELS.files, OPTIONS)
    key = c.key([SourceFile("a.py", "x = 1\n")])
    report = FileReport("a.py")
    c.put(key, [report])
    size = c._entry(key).stat().st_size
    monkeypatch.setattr(cachedir, "MAX_ENTRY_BYTES", size - 1)
    assert c.get(key) is None  # read at most the bound: too large, a miss
    c._entry(key).unlink()
    c.put(key, [report])
    assert not c._entry(key).exists()


# --- a full disk -----------------------------------------------------------------------------


def test_a_failed_write_leaves_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store.open(tmp_path / "c")
    c = Cache(store, tmp_path, MODELS.files, OPTIONS)
    key = c.key([SourceFile("a.py", "x = 1\n")])

    def full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(cachedir, "_write_all", full)
    c.put(key, [FileReport("a.py")])  # costs only time: no exception
    assert c.get(key) is None
    assert [p.name for p in (tmp_path / "c").rglob("*") if p.name.startswith(".tmp-")] == []


FILE_SIZE_LIMIT = 16 << 10  # above what multiprocessing's shared memory needs to start a worker


def _small_files_only() -> None:
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead of killing
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))


@pytest.mark.skipif(not POSIX, reason="RLIMIT_FSIZE")
def test_writes_that_fail_on_the_disk_leave_no_temporary_files(tmp_path: Path) -> None:
    """Every write past 16 KiB fails in the operating system, as on a full
    disk, and each entry of this project is larger: the run is correct,
    twice, and leaves no `.tmp-*` file."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "many.py").write_text("".join(ALONE.replace("def g", f"def g{i}") for i in range(60)), encoding="utf-8")
    expected = [("many.py", 5 + 5 * i, "OWN201") for i in range(60)]
    user = tmp_path / "user"
    for _ in range(2):
        assert findings(check(tree, user, preexec=_small_files_only)) == expected
    assert [p for p in user.rglob("*") if p.name.startswith(".tmp-")] == []
    assert entries(user) == []
    assert (user / "ownlint" / cachedir.SECRET_FILE).exists()  # the small files were written


# --- file names that are not UTF-8 -----------------------------------------------------------


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="byte file names as on Linux")
def test_a_file_name_that_is_not_utf8_does_not_break_the_cache(tmp_path: Path) -> None:
    tree = project(tmp_path / "tree")
    (tree / os.fsdecode(b"bad\xff.py")).write_text(ALONE, encoding="utf-8")
    user = tmp_path / "user"
    for _ in range(2):  # filling the cache, then reading it
        done = check(tree, user)
        # JSON shows the name escaped (its exact bytes are in `path_base64`)
        assert findings(done) == sorted([*EXPECTED, ("bad\\xff.py", 5, "OWN201")])
    assert entries(user)


# --- where the cache lives, and how -----------------------------------------------------------


def test_the_default_cache_is_per_user_and_the_tree_stays_untouched(tmp_path: Path) -> None:
    tree = project(tmp_path / "tree")
    before = sorted(p.relative_to(tree) for p in tree.rglob("*"))
    user = tmp_path / "user"
    assert findings(check(tree, user)) == EXPECTED
    assert sorted(p.relative_to(tree) for p in tree.rglob("*")) == before
    assert entries(user / "ownlint")
    assert (user / "ownlint" / cachedir.SECRET_FILE).stat().st_size == 32


def test_the_environment_variable_and_the_option_move_the_entries_not_the_key(tmp_path: Path) -> None:
    tree = project(tmp_path / "tree")
    user = tmp_path / "user"
    by_env = tmp_path / "by-env"
    by_option = tmp_path / "by-option"
    env = user_env(user, **{cachedir.ENV_VAR: str(by_env)})
    assert findings(check(tree, user, env=env)) == EXPECTED
    assert entries(by_env) and not (by_env / cachedir.SECRET_FILE).exists()
    assert findings(check(tree, user, "--cache-dir", str(by_option), env=env)) == EXPECTED
    assert entries(by_option)
    assert entries(user) == [] and (user / "ownlint" / cachedir.SECRET_FILE).exists()


def test_no_cache_writes_nothing(tmp_path: Path) -> None:
    tree = project(tmp_path / "tree")
    user = tmp_path / "user"
    assert findings(check(tree, user, "--no-cache")) == EXPECTED
    assert not user.exists()


@pytest.mark.skipif(not POSIX, reason="POSIX permissions")
def test_the_cache_is_owner_only(tmp_path: Path) -> None:
    tree = project(tmp_path / "tree")
    user = tmp_path / "user"
    done = subprocess.run(  # a permissive umask: the modes must not come from it
        ["sh", "-c", f"umask 000 && exec {sys.executable} -m ownlint check --format json ."],
        cwd=tree,
        env=user_env(user),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert findings(done) == EXPECTED
    made = [user / "ownlint", *(user / "ownlint").rglob("*")]
    assert len(made) > 4
    for path in made:
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))


@pytest.mark.skipif(not POSIX, reason="POSIX owners and permissions")
def test_a_cache_dir_of_another_user_or_writable_by_others_is_refused(tmp_path: Path) -> None:
    tree = project(tmp_path / "tree")
    if os.geteuid() == 0:
        foreign = tmp_path / "foreign"
        foreign.mkdir(mode=0o700)
        os.chown(foreign, 12345, 12345)
    else:
        foreign = Path("/")
    open_to_all = tmp_path / "open"
    open_to_all.mkdir()
    open_to_all.chmod(0o777)
    for directory, reason in [(foreign, "belongs to another user"), (open_to_all, "writable by other users")]:
        with pytest.raises(CacheUnusable, match=reason):
            Store.open(directory)
        done = check(tree, tmp_path / "user", "--cache-dir", str(directory))
        assert findings(done) == EXPECTED
        assert done.stderr.count("ownlint: warning: not using the cache:") == 1, done.stderr
    assert list(open_to_all.iterdir()) == []


def test_cache_open_warns_and_gives_none_when_unusable(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert Cache.open(tmp_path, MODELS.files, OPTIONS, tmp_path / "file") is None
    assert [w.category for w in caught] == [CacheWarning]
    assert "not a directory" in str(caught[0].message)


def test_the_secret_key_is_replaced_when_others_could_read_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user"))
    first = Store.open(tmp_path / "c").secret
    assert Store.open(tmp_path / "c").secret == first
    key_file = tmp_path / "user" / "ownlint" / cachedir.SECRET_FILE
    if POSIX:
        key_file.chmod(0o644)
        second = Store.open(tmp_path / "c").secret
        assert second != first and stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key_file.write_bytes(b"short")
    assert len(Store.open(tmp_path / "c").secret) == 32


# --- the total size, and `ownlint clean` ------------------------------------------------------


def test_the_total_size_is_bounded_oldest_entries_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store.open(tmp_path / "c")
    c = Cache(store, tmp_path, MODELS.files, OPTIONS)
    keys = [c.key([SourceFile(f"f{i}.py", f"x = {i}\n")]) for i in range(40)]
    for age, key in enumerate(keys):
        c.put(key, [FileReport(f"f{age}.py")])
        os.utime(c._entry(key), (1_000_000 + age, 1_000_000 + age))
    size = c._entry(keys[0]).stat().st_size
    monkeypatch.setattr(cacheclean, "MAX_TOTAL_BYTES", size * 20)
    c.finish()
    kept = [k for k in keys if c._entry(k).exists()]
    total = sum(p.stat().st_size for p in entries(tmp_path / "c"))
    assert total <= size * 20
    assert kept == keys[len(keys) - len(kept) :]  # the newest ones
    assert len(kept) >= 10


def test_pruning_removes_temporary_files_a_killed_run_left(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "c")
    c = Cache(store, tmp_path, MODELS.files, OPTIONS)
    key = c.key([SourceFile("a.py", "x = 1\n")])
    c.put(key, [FileReport("a.py")])
    stale, fresh = c._entry(key).parent / ".tmp-stale", c._entry(key).parent / ".tmp-fresh"
    stale.write_bytes(b"{")
    fresh.write_bytes(b"{")
    old = 1_000_000
    os.utime(stale, (old, old))
    c.finish()
    assert not stale.exists() and fresh.exists() and c._entry(key).exists()


def test_a_hit_keeps_an_entry_young(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "c")
    c = Cache(store, tmp_path, MODELS.files, OPTIONS)
    key = c.key([SourceFile("a.py", "x = 1\n")])
    c.put(key, [FileReport("a.py")])
    os.utime(c._entry(key), (1_000_000, 1_000_000))
    assert c.get(key) is not None
    assert c._entry(key).stat().st_mtime > 1_000_000


def test_clean_removes_this_projects_cache_and_says_so(tmp_path: Path) -> None:
    one = project(tmp_path / "one")
    two = project(tmp_path / "two")
    user = tmp_path / "user"
    findings(check(one, user))
    findings(check(two, user))
    both = entries(user)
    done = ownlint(one, user, "clean")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("ownlint: removed ") and str(one.resolve()) in done.stderr, done.stderr
    left = entries(user)
    assert left and len(left) < len(both)
    again = ownlint(one, user, "clean")
    assert again.returncode == 0 and "nothing to remove" in again.stderr, again.stderr
    everything = ownlint(two, user, "clean", "--all")
    assert everything.returncode == 0 and "removed" in everything.stderr
    assert entries(user) == []
    assert (user / "ownlint" / cachedir.SECRET_FILE).exists()  # the key stays


def test_clean_takes_the_cache_dir_and_removes_nothing_it_did_not_make(tmp_path: Path) -> None:
    tree = project(tmp_path / "tree")
    user = tmp_path / "user"
    chosen = tmp_path / "chosen"
    chosen.mkdir(mode=0o700)
    (chosen / "notes.txt").write_text("mine\n", encoding="utf-8")
    (chosen / "p-notmine").mkdir()
    findings(check(tree, user, "--cache-dir", str(chosen)))
    done = ownlint(tree, user, "clean", "--all", "--cache-dir", str(chosen))
    assert done.returncode == 0, done.stderr
    assert entries(chosen) == []
    assert (chosen / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    assert (chosen / "p-notmine").is_dir()
    missing = ownlint(tree, user, "clean", "--cache-dir", str(tmp_path / "nowhere"))
    assert missing.returncode == 0 and "nothing to remove" in missing.stderr


def test_the_readme_says_where_the_cache_lives_and_its_bounds() -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n### The cache\n", 1)[1].split("\n#", 1)[0]
    for promise in (
        "--cache-dir DIR",
        cachedir.ENV_VAR,
        "ownlint clean",
        "$XDG_CACHE_HOME/ownlint",
        "~/.cache/ownlint",
        cachedir.SECRET_FILE,
        "HMAC-SHA256",
        f"{cachedir.MAX_ENTRY_BYTES >> 20} MiB",
        f"{cacheclean.MAX_TOTAL_BYTES >> 20} MiB",
    ):
        assert promise in " ".join(section.split()), promise
    assert "| `--cache-dir DIR` |" in readme
