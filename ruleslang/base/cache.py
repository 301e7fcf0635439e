"""Files the package keeps between runs to start faster, under the user's cache directory.

A cache file is data this package wrote: its first line holds a magic word, a format version and
the sha256 of the rest, and nothing is handed on unless that line is ours and the digest
matches, so a file that is truncated, half-written or corrupt is ignored and written again, never
trusted. Files are written to a temporary name and renamed into place, so processes that start
together never read each other's half-written files. A cache directory that cannot be written
(a read-only home, a sandbox) only costs the time the cache would have saved.

`RULESLANG_CACHE_DIR` names another directory (tests, CI); `RULESLANG_CACHE_DIR=off` turns the
cache off, as the command line's `--no-cache` does for one command (`turned_off`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

CACHE_ENV = "RULESLANG_CACHE_DIR"
_MAGIC = b"ruleslang-cache"
_FORMAT = b"1"
_off = False


@contextmanager
def turned_off() -> Iterator[None]:
    """No cache file is read or written while the block runs (`--no-cache`)."""
    global _off
    was, _off = _off, True
    try:
        yield
    finally:
        _off = was


def cache_dir() -> Path | None:
    """Where cache files go, or None when the cache is off."""
    if _off:
        return None
    named = os.environ.get(CACHE_ENV)
    if named is not None:
        return None if named in ("", "off") else Path(named)
    # start-up time: platformdirs is loaded only when no cache directory is named
    import platformdirs

    return Path(platformdirs.user_cache_dir("ruleslang", appauthor=False))


def read_cached(name: str) -> bytes | None:
    """The payload of cache file `name` when it is present and whole, else None."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        data = (folder / name).read_bytes()
    except OSError:
        return None
    head, sep, payload = data.partition(b"\n")
    if not sep or head != _MAGIC + b" " + _FORMAT + b" " + hashlib.sha256(payload).hexdigest().encode():
        return None
    return payload


def write_cached(name: str, payload: bytes, *, keep: int | None = None) -> None:
    """Store `payload` as cache file `name` (quietly not, when the directory cannot be written).
    With `keep`, at most that many files share the name's prefix (up to its first '-'): the ones
    used least recently go, so a cache of many entries (one per parsed text) stays bounded."""
    folder = cache_dir()
    if folder is None:
        return
    if keep is not None:
        _prune(folder, name.split("-", 1)[0] + "-", keep - 1)
    head = _MAGIC + b" " + _FORMAT + b" " + hashlib.sha256(payload).hexdigest().encode() + b"\n"
    # start-up time: tempfile (and the random module it loads) only to write
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(head + payload)
            os.replace(tmp, folder / name)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return


def _prune(folder: Path, prefix: str, keep: int) -> None:
    """Remove all but the `keep` most recently used files named `prefix...` from `folder`."""
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(prefix) and e.is_file()]
        if len(entries) <= keep:
            return
        entries.sort(key=lambda e: e.stat().st_mtime, reverse=True)
        for e in entries[keep:]:
            Path(e.path).unlink(missing_ok=True)
    except OSError:
        return


def touch(name: str) -> None:
    """Mark cache file `name` as just used (what `write_cached(keep=...)` keeps is what was used last)."""
    folder = cache_dir()
    if folder is not None:
        try:
            os.utime(folder / name)
        except OSError:
            pass


def library_stamp(name: str) -> str:
    """What a cache key holds of library `name` without importing it (importing PyYAML, or
    importlib.metadata, for a version costs more than a warm command): where it is installed and
    its module file's size and modification time."""
    spec = importlib.util.find_spec(name)
    origin = spec.origin if spec is not None else None
    if not origin:
        return f"{name} (not installed)"
    try:
        st = os.stat(origin)
    except OSError:
        return f"{name} {origin} (unreadable)"
    return f"{name} {origin} {st.st_size} {st.st_mtime_ns}"
