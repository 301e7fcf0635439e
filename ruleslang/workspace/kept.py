"""Results kept between runs: what `check` reported for a ruleset and what its rule tests gave,
replayed when nothing they read has changed (as mypy's incremental cache replays a module's
errors, and `go test` a package's passing run).

An entry is named by the kind of result, the REF, the working folder, the roots and what lies in
them (the names three levels down: a new ruleset version, map or scenario changes what a reference
resolves to), the package's own code (every module, the grammar, the schemas), the versions of the
libraries it reads with, and Python's. It holds, beside the result, every file the work read with the sha256 of its
content (base/reads.py notes them); before a result is used each of those files is read and hashed
again, and one that changed, or went, makes the entry stale: the work runs again and the entry is
written anew. An entry is JSON this module wrote (base/cache.py checks its digest before it is
read); one of another format, or one that does not decode, is stale too, never trusted.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from ruleslang.base import reads
from ruleslang.base.cache import cache_dir, library_stamp, read_cached, touch, write_cached
from ruleslang.base.diagnostics import Diagnostic, Related, Severity
from ruleslang.base.source import Source, Span

FORMAT = 2  # 2: a line of what the entry was made from, then the result
KEEP = 1024  # entries of all kinds: what was used least recently goes first
_PACKAGE = Path(__file__).resolve().parents[1]
_CODE_FILES = (".py", ".lark", ".json")


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """The package's code, the libraries it reads data with, and Python: a change of any of them
    may change a result."""
    h = hashlib.sha256(sys.version.encode())
    top = len(str(_PACKAGE))
    for folder, subfolders, files in os.walk(_PACKAGE):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(_CODE_FILES):
                # each file by its size and modification time, as Python's bytecode cache knows a
                # source changed: hashing their content cost more than a warm `call` does otherwise
                path = os.path.join(folder, name)
                st = os.stat(path)
                h.update(f"{path[top:]} {st.st_size} {st.st_mtime_ns}\0".encode())
    for library in ("yaml", "lark", "jsonschema", "platformdirs"):  # the libraries it reads data with
        h.update(library_stamp(library).encode())
    return h.hexdigest()


def _listing(roots: Sequence[Path], depth: int = 3) -> list[str]:
    """The names in each root down to `depth` levels (rulesets are root/family/name@N.rules, maps
    root/maps/NAME.yaml, named scenarios root/family/scenarios/NAME.yaml): a file that appears or
    goes there may change what a reference resolves to."""
    out: list[str] = []

    def walk(folder: str, level: int) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            out.append("  " * level + "(unreadable)")
            return
        for entry in entries:
            if entry.name == "__pycache__":
                continue
            out.append("  " * level + entry.name)
            if level < depth and entry.is_dir():
                walk(entry.path, level + 1)

    for root in roots:
        out.append(str(root))
        walk(str(root), 1)
    return out


_disk: dict[tuple, str] = {}  # (path, size, modification time) -> digest, for this process


def _digest_now(path: str) -> str:
    """The digest of the file at `path` as it is now (hashed once per process and version of it)."""
    try:
        st = os.stat(path)
    except OSError:
        return reads.MISSING
    key = (path, st.st_size, st.st_mtime_ns)
    if key not in _disk:
        try:
            with open(path, "rb") as handle:
                _disk[key] = reads.digest(handle.read())
        except OSError:
            return reads.MISSING
    return _disk[key]


class Keeper:
    """The kept results of one command's work in a set of roots (what lies in them is listed once)."""

    def __init__(self, roots: Sequence[Path]):
        self.enabled = cache_dir() is not None
        if self.enabled:
            h = hashlib.sha256()
            for part in (str(FORMAT), os.getcwd(), code_digest(), *_listing(roots)):
                h.update(part.encode("utf-8", "surrogateescape") + b"\0")
            self._where = h.hexdigest()

    def entry(self, kind: str, ref: str, extra: str = "", *, keep: int | None = None) -> "Kept":
        """The kept result of `kind` of work on `ref` (`extra`: what else the work was asked). With
        `keep`, entries of this kind (large ones) are bounded on their own, to that many; else all
        the small kinds share the bound `KEEP`."""
        return Kept(self, kind, ref, extra, keep)


class Kept:
    """The kept result of one kind of work on one REF (`load`, then `save` after the work ran under
    `reads.recording()`)."""

    def __init__(self, keeper: Keeper, kind: str, ref: str, extra: str = "", keep: int | None = None):
        self.enabled = keeper.enabled
        if not self.enabled:
            return
        h = hashlib.sha256()
        for part in (keeper._where, kind, ref, extra):
            h.update(part.encode("utf-8", "surrogateescape") + b"\0")
        # the cache bounds files by the name's prefix up to its first '-'
        self.name = f"kept-{kind}-{h.hexdigest()[:40]}" if keep is None else f"kept{kind}-{h.hexdigest()[:40]}"
        self.keep = KEEP if keep is None else keep

    def load(self) -> Any | None:
        """The result kept, when there is one and every file it read is as it was; else None."""
        blob = self.load_bytes()
        try:
            return json.loads(blob) if blob is not None else None
        except ValueError:
            return None

    def load_bytes(self) -> bytes | None:
        """The bytes kept by `save_bytes`, when every file they were made from is as it was; else None."""
        if not self.enabled:
            return None
        payload = read_cached(self.name)
        if payload is None:
            return None
        head, sep, blob = payload.partition(b"\n")
        try:
            if not (sep and _fresh(json.loads(head))):
                return None
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        touch(self.name)  # used now: the bound removes what was used least recently
        return blob

    def save(self, files: dict[str, str], result: Any) -> None:
        """Keep `result` (JSON data), computed from `files` (path -> digest, as `reads.recording` gives)."""
        self.save_bytes(files, json.dumps(result, separators=(",", ":")).encode())

    def save_bytes(self, files: dict[str, str], blob: bytes) -> None:
        """Keep `blob` (bytes of the caller's own format), made from `files`: after a line saying
        what it was made from (nothing is kept when a file changed while the work ran: what it
        read is not what is there)."""
        if not self.enabled or any(_digest_now(path) != digest for path, digest in files.items()):
            return
        head = {"format": FORMAT, "files": dict(sorted(files.items()))}
        write_cached(self.name, json.dumps(head, separators=(",", ":")).encode() + b"\n" + blob, keep=self.keep)


def _fresh(entry: dict) -> bool:
    """Whether a kept entry is of this format and every file it lists is as it was."""
    if entry.get("format") != FORMAT or not isinstance(entry.get("files"), dict):
        return False
    return all(isinstance(path, str) and _digest_now(path) == digest for path, digest in entry["files"].items())


class SpanTable:
    """Spans as data: each span as [source number, start, end], the sources' names and texts once."""

    def __init__(self, sources: list | None = None):
        self.sources: list[list[str]] = sources if sources is not None else []
        self._index: dict[int, int] = {}
        self._built: dict[int, Source] = {}

    def encode(self, span: Span | None) -> list | None:
        """A span as data."""
        if span is None:
            return None
        key = id(span.source)
        if key not in self._index:
            self._index[key] = len(self.sources)
            self.sources.append([span.source.name, span.source.text])
        return [self._index[key], span.start, span.end]

    def decode(self, data: list | None) -> Span | None:
        """A span back from data (a malformed one raises ValueError: the entry is stale)."""
        if data is None:
            return None
        number, start, end = data
        if number not in self._built:
            name, text = self.sources[number]
            self._built[number] = Source(str(name), str(text))
        return Span(self._built[number], int(start), int(end))


def encode_diagnostic(d: Diagnostic, spans: SpanTable) -> dict:
    """A diagnostic as data, its spans through `spans`."""
    return {"code": d.code, "message": d.message, "span": spans.encode(d.span), "severity": d.severity.value,
            "related": [[spans.encode(r.span), r.message] for r in d.related], "hint": d.hint, "file": d.file}


def decode_diagnostic(data: dict, spans: SpanTable) -> Diagnostic:
    """A diagnostic back from `encode_diagnostic`'s data."""
    return Diagnostic(str(data["code"]), str(data["message"]), spans.decode(data["span"]),
                      Severity(data["severity"]), tuple(Related(spans.decode(s), str(m)) for s, m in data["related"]),
                      data["hint"], data["file"])
