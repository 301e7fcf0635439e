"""The files a piece of work read, each with the sha256 of its content: what a result kept
between runs depends on (workspace/kept.py), checked again before the result is used.

Every reader of a user's file (a ruleset, a map, a scenario, the defaults) calls `note` with what
it read; a reader that hands out what it read earlier in the process (a loader's memo, a cache of
maps) calls `touch`, so work that runs second in a process depends on the file as much as the
first. Nothing is noted unless a `recording()` is open.
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager
from typing import Iterator

MISSING = "missing"  # the digest of a file that cannot be read
_known: dict[str, str] = {}  # path -> digest of what the process read there last
_open: list[dict[str, str]] = []  # the recordings open now, innermost last


def digest(data: bytes) -> str:
    """The digest a dependency is known by."""
    return hashlib.sha256(data).hexdigest()


def note(path: object, data: bytes | str) -> None:
    """`data` was read from the file at `path` (a text as its UTF-8 bytes)."""
    name = str(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    _known[name] = digest(data)
    touch(name)


def touch(path: object) -> None:
    """What was read at `path` earlier in this process is used again (a path no reader noted is
    read now, so a dependency is never left out; one that cannot be read is known as missing)."""
    name = str(path)
    if not _open:
        return
    if name not in _known:
        try:
            with open(name, "rb") as handle:
                _known[name] = digest(handle.read())
        except OSError:
            _known[name] = MISSING
    for recording in _open:
        recording[name] = _known[name]


@contextmanager
def recording() -> Iterator[dict[str, str]]:
    """Note every file read (or used again) while the block runs: path -> digest."""
    files: dict[str, str] = {}
    _open.append(files)
    try:
        yield files
    finally:
        # by identity: two recordings of the same files are equal dicts
        del _open[next(i for i, r in enumerate(_open) if r is files)]
