"""Where the result cache lives, and how it is kept from lying (`ownlint.cache` says what an entry holds).

The cache lives outside the checked tree, in a per-user directory
(`user_cache_dir`: `$XDG_CACHE_HOME/ownlint` or `~/.cache/ownlint` on Linux
and other POSIX systems, `~/Library/Caches/ownlint` on macOS,
`%LOCALAPPDATA%\\ownlint\\Cache` on Windows); `--cache-dir DIR` or
`OWNLINT_CACHE_DIR` move the entries, never the secret key. Nothing in it is
trusted for being there:

- Every directory ownlint makes is 0700 and every file 0600. A cache
  directory that is a symbolic link, not a directory, belongs to another user
  or is writable by others is refused (`CacheUnusable`, a one-line reason:
  the run goes on without a cache). The same holds for each directory below it.
- Entries are opened without following a symbolic link and without blocking
  (a FIFO), and used only if they are regular files of this user of at most
  `MAX_ENTRY_BYTES`, of which at most that much is read.
- Each entry is sealed (HMAC-SHA256) with a random 32-byte key kept in
  `user_cache_dir()` (`SECRET_FILE`, 0600, made once): an entry written by
  anyone else (committed to a repository, another user, another machine's
  CI cache) does not verify, and the files are checked again.
- An entry is written to a temporary file renamed into place; on any failure
  (a full disk) the temporary file is removed.
- The total size is bounded (`ownlint.cacheclean`); a hit refreshes an
  entry's modification time, so the least recently used go first.

Layout: `DIR/p-<hash of the project's directory>/v<version>/<2 hex>/<64 hex>.json`,
with `CACHEDIR.TAG` and a `.gitignore` of `*` in DIR.

Known limits: the directories above the cache directory are the user's (a
`~/.cache` that is a link elsewhere is followed); on Windows there are no
owners or modes to check, only links.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ownlint import __version__

ENV_VAR = "OWNLINT_CACHE_DIR"
SECRET_FILE = "secret.key"
SECRET_BYTES = 32
MAX_ENTRY_BYTES = 16 << 20  # a run's entry holds every file's report: 16 MiB is tens of thousands of files
TEMPORARY_PREFIX = ".tmp-"

_READ = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
_MARKERS = {
    "CACHEDIR.TAG": b"Signature: 8a477f597d28d172789f06886806bc55\n"
    b"# The result cache of ownlint (see https://bford.info/cachedir/).\n",
    ".gitignore": b"# created by ownlint\n*\n",
}


class CacheUnusable(Exception):
    """The cache directory cannot be used safely; str() is the one-line reason."""


def user_cache_dir() -> Path:
    """The platform's per-user cache directory for ownlint (raises RuntimeError with no home directory)."""
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA", "")
        return (Path(local) if local else Path.home() / "AppData" / "Local") / "ownlint" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "ownlint"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache") / "ownlint"


def chosen_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The cache directory: `explicit` (`--cache-dir`), else `$OWNLINT_CACHE_DIR`, else the user's."""
    if explicit is not None and os.fspath(explicit):
        return Path(os.path.abspath(explicit))
    from_env = os.environ.get(ENV_VAR, "")
    return Path(os.path.abspath(from_env)) if from_env else user_cache_dir()


def project_dir_name(root: Path) -> str:
    """The directory of one project's entries: a hash of its absolute path."""
    return "p-" + hashlib.sha256(os.fsencode(os.path.abspath(root))).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Store:
    """A verified cache directory and the user's secret key."""

    path: Path
    secret: bytes

    @classmethod
    def open(cls, explicit: str | os.PathLike[str] | None = None) -> Store:
        """The cache directory, made if missing; raises CacheUnusable."""
        try:
            path = chosen_dir(explicit)
            secret = _secret(user_cache_dir())
            _make_root(path)
        except RuntimeError as error:  # Path.home() without a home directory
            raise CacheUnusable(f"no home directory for the cache key ({error})") from error
        except OSError as error:
            raise CacheUnusable(_reason(error)) from error
        return cls(path, secret)

    def entries_dir(self, project_root: Path) -> Path:
        """This version's entries for the project at `project_root`, made if missing; raises CacheUnusable."""
        project = self.path / project_dir_name(project_root)
        version = project / f"v{__version__}"
        try:
            ensure_dir(project)
            ensure_dir(version)
        except OSError as error:
            raise CacheUnusable(_reason(error)) from error
        return version


def ensure_dir(path: Path) -> None:
    """`path` as a directory of this user that others cannot write, made 0700 if missing; raises
    CacheUnusable or OSError."""
    try:
        os.mkdir(path, 0o700)
        os.chmod(path, 0o700)  # whatever the umask
    except FileExistsError:
        pass
    check_dir(path)


def check_dir(path: Path) -> None:
    """Raises CacheUnusable unless `path` is a real directory of this user that others cannot write."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise CacheUnusable(f"{path} is a symbolic link")
    if not stat.S_ISDIR(info.st_mode):
        raise CacheUnusable(f"{path} is not a directory")
    uid = _uid()
    if uid is not None and info.st_uid != uid:
        raise CacheUnusable(f"{path} belongs to another user")
    if os.name == "posix" and info.st_mode & 0o022:
        raise CacheUnusable(f"{path} is writable by other users")


def read_entry(path: Path) -> bytes | None:
    """The bytes of the entry at `path`, or None unless it is a regular file of this user of at most
    `MAX_ENTRY_BYTES`, in a directory that passes `check_dir`. Never follows a link nor blocks."""
    limit = MAX_ENTRY_BYTES
    try:
        check_dir(path.parent)
        if not getattr(os, "O_NOFOLLOW", 0) and os.path.islink(path):
            return None
        fd = os.open(path, _READ)
    except (OSError, CacheUnusable):
        return None
    try:
        info = os.fstat(fd)
        uid = _uid()
        if not stat.S_ISREG(info.st_mode) or (uid is not None and info.st_uid != uid) or info.st_size > limit:
            return None
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            return None
        if os.utime in os.supports_fd:
            os.utime(fd)  # used: the least recently used entries are pruned first
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def write_entry(path: Path, data: bytes) -> bool:
    """Write `data` to `path` through a temporary file renamed into place; False (and nothing left
    behind) if anything fails. A link at `path` is replaced, never written through."""
    try:
        ensure_dir(path.parent)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=TEMPORARY_PREFIX)
    except (OSError, CacheUnusable):
        return False
    done = False
    try:
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(temporary, path)
        done = True
    except OSError:
        pass  # a cache that cannot be written only costs time
    finally:
        if not done:
            unlink(Path(temporary))
    return done


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _make_root(path: Path) -> None:
    """The cache directory and any missing parent, each made 0700; its CACHEDIR.TAG and .gitignore."""
    missing: list[Path] = []
    here = path
    while not os.path.lexists(here) and here.parent != here:
        missing.append(here)
        here = here.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            pass
    check_dir(path)
    for name, content in _MARKERS.items():
        if not os.path.lexists(path / name):
            _create(path / name, content)


def _secret(user_dir: Path) -> bytes:
    """The user's key, made (random, 0600) if missing; replaced if others could have read or written it."""
    _make_root(user_dir)
    file = user_dir / SECRET_FILE
    exists, key = _read_secret(file)
    if key is not None:
        return key
    fresh = os.urandom(SECRET_BYTES)  # the secrets module's source, without importing random
    fd, temporary = tempfile.mkstemp(dir=user_dir, prefix=TEMPORARY_PREFIX)
    try:
        try:
            _write_all(fd, fresh)
        finally:
            os.close(fd)
        if exists:
            os.replace(temporary, file)
            return fresh
        try:
            os.link(temporary, file)  # never over a key another run has just made
            return fresh
        except FileExistsError:
            _, theirs = _read_secret(file)
            if theirs is not None:
                return theirs
            os.replace(temporary, file)
            return fresh
    finally:
        unlink(Path(temporary))


def _read_secret(file: Path) -> tuple[bool, bytes | None]:
    """Whether something is at `file`, and the key if it is a fit one."""
    try:
        fd = os.open(file, _READ)
    except FileNotFoundError:
        return False, None
    except OSError:
        return True, None
    try:
        info = os.fstat(fd)
        uid = _uid()
        fit = (
            stat.S_ISREG(info.st_mode)
            and (uid is None or info.st_uid == uid)
            and (os.name != "posix" or not info.st_mode & 0o077)
            and info.st_size == SECRET_BYTES
        )
        key = os.read(fd, SECRET_BYTES + 1) if fit else b""
        return True, key if len(key) == SECRET_BYTES else None
    except OSError:
        return True, None
    finally:
        os.close(fd)


def _create(path: Path, content: bytes) -> None:
    try:
        fd = os.open(path, _CREATE, 0o600)
    except FileExistsError:
        return
    try:
        _write_all(fd, content)
    except OSError:
        os.close(fd)
        unlink(path)
        return
    os.close(fd)


def unlink(path: Path) -> int:
    """Remove a file; 1 if it was removed, 0 if not."""
    try:
        os.unlink(path)
    except OSError:
        return 0
    return 1


def _uid() -> int | None:
    return os.geteuid() if hasattr(os, "geteuid") else None


def _reason(error: OSError) -> str:
    where = f"{error.filename}: " if error.filename else ""
    return f"{where}{error.strerror or error}"
