"""Finding ruleset files from references and parsing them once.

A reference is `family/name@N`, `family/name` (the newest version) or a path to a `.rules`
file. References written inside a ruleset may only reach files within the ruleset roots
(see `paths`); the command line may name any file, and its folder then becomes a root.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ruleslang.lang.syntax.declarations import CheckDecl, Decl, Module, RefLit, TestDecl
from ruleslang.base import reads
from ruleslang.base.fileio import is_file, is_folder
from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, error, refuse_nul
from ruleslang.base.limits import MAX_SOURCE_CHARS
from ruleslang.base.paths import confined
from ruleslang.lang.syntax.parser import parse_module
from ruleslang.base.source import Source, Span
from ruleslang.base.suggest import did_you_mean

REF_RE = re.compile(r"^(?P<family>[a-z][a-z0-9_-]*)/(?P<name>[a-z0-9][a-z0-9_-]*)(@(?P<version>[0-9]+))?$")
FILE_RE = re.compile(r"^(?P<name>[a-z0-9][a-z0-9_-]*)@(?P<version>[0-9]+)\.rules$")


@dataclass(frozen=True)
class RulesetFile:
    """A parsed ruleset file."""

    path: Path
    source: Source
    module: Module

    @property
    def ref(self) -> str:
        return self.module.header.ref.text


# A composition's reference marked to win over every other version of its ruleset: `family/name@N!`.
PREFER_MARK = "!"


def without_mark(text: str) -> str:
    """A composition's reference without the mark that makes its version win (`REF!` -> `REF`)."""
    return text[: -len(PREFER_MARK)] if text.endswith(PREFER_MARK) else text


def parse_ref(text: str) -> tuple[str, str, int | None] | None:
    """Split `family/name@N` into its parts, or None if it is not a reference."""
    m = REF_RE.match(text)
    if not m:
        return None
    version = m.group("version")
    return m.group("family"), m.group("name"), int(version) if version is not None else None


_HEADER_WORDS = ("ruleset", "title", "source", "note", "revises", "uses", "map")  # the grammar's `header`


def _read_text(path: Path, span: Span | None) -> str:
    """A ruleset file's text (S004 when too big, S001 unreadable, not UTF-8 located)."""
    try:
        size = path.stat().st_size
        if size > MAX_SOURCE_CHARS * 4:
            raise DiagnosticError(error("S004", f"ruleset file is {size} bytes; the limit is "
                                        f"{MAX_SOURCE_CHARS} characters", span, file=str(path)))
        data = path.read_bytes()
        reads.note(path, data)
        # A byte-order mark is how some editors save UTF-8; it is not part of the rules.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DiagnosticError(_not_utf8(path, data, exc)) from None
    except OSError as exc:
        raise DiagnosticError(error("S001", f"cannot read ruleset file: {exc.strerror}", span,
                                    file=str(path)))


class Loader:
    """Reads and caches ruleset files found through the roots."""

    def __init__(self, roots: Sequence[Path]):
        self.roots = [Path(r).resolve() for r in roots]
        # Folders that path references may reach: the roots plus folders of files the user named.
        self.allowed = list(self.roots)
        self._definers: dict[str, list[str]] | None = None
        self._files: dict[Path, RulesetFile] = {}

    def allow_folder(self, folder: Path) -> None:
        """Let path references reach `folder` (the folder of a file named on the command line)."""
        folder = Path(folder).resolve()
        if folder not in self.allowed:
            self.allowed.append(folder)

    def load_user_file(self, text: str) -> RulesetFile:
        """Load a ruleset file the user named on the command line."""
        refuse_nul(text, "a ruleset file name", file=text.replace("\0", "\\x00"))
        path = Path(text).resolve()
        if not is_file(path):
            raise DiagnosticError(error("S001", f"no such ruleset file '{text}'", file=text))
        self.allow_folder(path.parent)
        return self.load(path)

    # ------------------------------------------------------------------------ discovery

    def versions(self, family: str, name: str) -> list[tuple[int, Path]]:
        """All versions of `family/name` across the roots, oldest first.

        Versions are gathered from every root, so a revision written in a user's folder finds
        the shipped versions it revises; an earlier root shadows the same version in a later one.
        """
        found: dict[int, Path] = {}
        for root in self.roots:
            folder = root / family
            if not is_folder(folder):  # a family name past the system's limit is no folder
                continue
            for path in sorted(folder.glob(f"{name}@*.rules")):
                m = FILE_RE.match(path.name)
                if m and m.group("name") == name:
                    found.setdefault(int(m.group("version")), path)
        return sorted(found.items())

    def defined_in(self, name: str) -> list[str]:
        """The rulesets of the roots whose own text defines `name` (for a hint when a composition
        lacks it); files that do not parse are passed over. Read once, on first use."""
        if self._definers is not None:
            for _, path in self.all_rulesets():
                reads.touch(Path(path).resolve())  # the answer depends on every file, read once
        else:
            self._definers = {}
            for ref, path in self.all_rulesets():
                try:
                    module = self.load(path).module
                except DiagnosticError:
                    continue
                for item in module.items:
                    if isinstance(item, Decl) and not isinstance(item, (TestDecl, CheckDecl)):
                        self._definers.setdefault(item.name.text, []).append(ref)
        return list(self._definers.get(name, ()))

    def all_rulesets(self) -> list[tuple[str, Path]]:
        """Every `family/name@N` in the roots (earlier roots shadow later ones), sorted."""
        seen: dict[str, Path] = {}
        for root in self.roots:
            for path in sorted(root.glob("*/*.rules")):
                m = FILE_RE.match(path.name)
                if not m:
                    continue
                ref = f"{path.parent.name}/{m.group('name')}@{m.group('version')}"
                seen.setdefault(ref, path)
        return sorted(seen.items(), key=lambda kv: _ref_sort_key(kv[0]))

    def known_refs(self) -> list[str]:
        return [ref for ref, _ in self.all_rulesets()]

    def locate(self, ref: RefLit, relative_to: Path | None) -> Path:
        """The file a reference names; raises DiagnosticError (S001-S003) when there is none."""
        if ref.is_path:
            return self._locate_path(ref.text, relative_to, ref.span)
        parts = parse_ref(ref.text)
        if parts is None:
            raise DiagnosticError(error("S002", f"'{ref.text}' is not a ruleset reference",
                                        ref.span, hint="write family/name@N, family/name or a quoted path"))
        family, name, version = parts
        versions = self.versions(family, name)
        if not versions:
            base = f"{family}/{name}"
            known = sorted({r.split("@")[0] for r in self.known_refs()})
            hint = did_you_mean(base, known, n=3) or (
                "rulesets are looked up in: " + ", ".join(str(r) for r in self.roots))
            raise DiagnosticError(error("S001", f"no ruleset named '{base}'", ref.span, hint=hint))
        if version is None:
            return versions[-1][1]
        for v, path in versions:
            if v == version:
                return path
        have = ", ".join(f"@{v}" for v, _ in versions)
        raise DiagnosticError(error("S003", f"ruleset '{family}/{name}' has no version {version}",
                                    ref.span, hint=f"versions available: {have}"))

    def _locate_path(self, text: str, relative_to: Path | None, span: Span | None) -> Path:
        path = confined(text, self.allowed, "a ruleset path", span, relative_to=relative_to)
        if path is None:
            raise DiagnosticError(error(
                "S005", f"'{text}' lies outside the ruleset roots", span,
                hint="a ruleset may only use files inside the ruleset folders: " +
                     ", ".join(str(r) for r in self.allowed)))
        if path.suffix != ".rules":
            raise DiagnosticError(error("S002", f"'{text}' is not a .rules file", span))
        if not is_file(path):
            raise DiagnosticError(error("S001", f"no such ruleset file '{text}'", span))
        return path

    # -------------------------------------------------------------------------- parsing

    def header(self, path: Path):
        """The header of a ruleset file (reference, title, notes, uses), parsed from its first
        lines only: cheap enough to list every ruleset (raises DiagnosticError as `load`)."""
        path = Path(path).resolve()
        cached = self._files.get(path)
        if cached is not None:
            return cached.module.header
        lines = []
        for line in _read_text(path, None).splitlines(keepends=True):
            word = line.strip().split(" ", 1)[0]
            # an indented line goes on the line before (`uses a, b,` over two lines)
            if word and not line[0].isspace() and not word.startswith("#") and word not in _HEADER_WORDS:
                break
            lines.append(line)
        return parse_module(Source(str(path), "".join(lines))).header

    def load(self, path: Path, span: Span | None = None) -> RulesetFile:
        """Parse a ruleset file (once); raises DiagnosticError with parse or file errors."""
        path = Path(path).resolve()
        cached = self._files.get(path)
        if cached is not None:
            reads.touch(path)
            return cached
        source = Source(str(path), _read_text(path, span))
        module = parse_module(source)
        loaded = RulesetFile(path, source, module)
        self._check_file_name(loaded)
        self._files[path] = loaded
        return loaded

    def use_text(self, path: Path, text: str) -> RulesetFile:
        """Parse `text` as the content of the file at `path` and use it instead of what is on disk
        (an editor's unsaved buffer); raises DiagnosticError as `load`."""
        path = Path(path).resolve()
        self._files.pop(path, None)
        self._definers = None  # the buffer may define other names than the file on disk
        reads.note(path, text)
        source = Source(str(path), text)
        loaded = RulesetFile(path, source, parse_module(source))
        self._check_file_name(loaded)
        self._files[path] = loaded
        return loaded

    def _check_file_name(self, loaded: RulesetFile) -> None:
        header_ref = loaded.module.header.ref
        parts = parse_ref(header_ref.text) if not header_ref.is_path else None
        if parts is None or parts[2] is None:
            raise DiagnosticError(error(
                "R210", f"a ruleset must name itself as family/name@N, not '{header_ref.text}'",
                header_ref.span, hint="for example: ruleset aar/my-house-rule@1"))
        if loaded.path.parent.parent not in self.roots:
            return  # a file the user named by path: any file name will do
        m = FILE_RE.match(loaded.path.name)
        family, name, version = parts
        expected = f"{name}@{version}.rules"
        if not m or loaded.path.name != expected or loaded.path.parent.name != family:
            raise DiagnosticError(error(
                "R211", f"the file declares '{header_ref.text}' but is stored as "
                        f"'{loaded.path.parent.name}/{loaded.path.name}'",
                header_ref.span, hint=f"store it as {family}/{expected} in a ruleset root"))


def _ref_sort_key(ref: str):
    parts = parse_ref(ref)
    if parts is None:
        return (ref, 0)
    return (f"{parts[0]}/{parts[1]}", parts[2] or 0)


def _not_utf8(path: Path, data: bytes, exc: UnicodeDecodeError) -> Diagnostic:
    """S006 located at the first byte that is not UTF-8, in the file itself."""
    # with a byte-order mark the decoder counts from after it
    at = exc.start + (len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0)
    before = data[:at].decode("utf-8-sig", errors="replace")
    rest = data[at + 1:].split(b"\n", 1)[0].decode("utf-8", "replace")
    shown = Source(str(path), before + "\ufffd" + rest)
    return error("S006", f"ruleset file is not UTF-8 text (byte 0x{data[at]:02x}: {exc.reason})",
                 Span(shown, len(before), len(before) + 1), hint="save the file as UTF-8")
