"""The one diagnostic record and its two renderers (text and JSON).

Every stage reports `Diagnostic` values; only the command line turns them into exit codes.
Codes are stable and carry a stage prefix (see docs/diagnostics.md):

    S  source files and references      P  parse
    R  resolve (names, rulesets)         T  types
    C  checks, lints and invariants      E  evaluation
    D  data files (maps, scenarios, saves)  G  games
    U  the command line
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Sequence

from ruleslang.base.source import Span


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True)
class Related:
    """A second position a diagnostic refers to (the earlier definition, the YAML line)."""

    span: Span
    message: str


@dataclass(frozen=True)
class Diagnostic:
    """What went wrong, where, and what would fix it."""

    code: str
    message: str
    span: Span | None = None
    severity: Severity = Severity.ERROR
    related: tuple[Related, ...] = field(default_factory=tuple)
    hint: str | None = None
    file: str | None = None  # used when there is no span (a missing file)

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def location(self) -> tuple[str | None, int | None, int | None]:
        if self.span is not None:
            return self.span.source.display_name, self.span.line, self.span.column
        return self.file, None, None

    def to_json(self) -> dict:
        """The JSON form: file, line, column, end, code, severity, message, hint, related."""
        file, line, column = self.location()
        out: dict = {
            "file": file,
            "line": line,
            "column": column,
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
        }
        if self.span is not None:
            end_line, end_col = self.span.end_position
            out["end"] = {"line": end_line, "column": end_col}
        if self.hint:
            out["hint"] = self.hint
        if self.related:
            out["related"] = [
                {
                    "file": r.span.source.display_name,
                    "line": r.span.line,
                    "column": r.span.column,
                    "message": r.message,
                }
                for r in self.related
            ]
        return out


class DiagnosticError(Exception):
    """Raised by a stage that cannot continue; carries the diagnostics to report."""

    def __init__(self, diagnostics: Sequence[Diagnostic] | Diagnostic):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = list(diagnostics)
        super().__init__("; ".join(d.message for d in self.diagnostics))


def error(code: str, message: str, span: Span | None = None, *, hint: str | None = None,
          related: Iterable[Related] = (), file: str | None = None) -> Diagnostic:
    """Shorthand for an error diagnostic."""
    return Diagnostic(code, message, span, Severity.ERROR, tuple(related), hint, file)


def warning(code: str, message: str, span: Span | None = None, *, hint: str | None = None,
            related: Iterable[Related] = (), file: str | None = None) -> Diagnostic:
    """Shorthand for a warning diagnostic."""
    return Diagnostic(code, message, span, Severity.WARNING, tuple(related), hint, file)


def refuse_nul(name: str, what: str, span: Span | None = None, *, file: str | None = None) -> None:
    """Raise D613 when a file name or path a user wrote (`what`: "a map name or path", ...) holds a
    NUL character: no system looks such a name up (Python raises ValueError), so it is refused where
    it was written, before any path operation."""
    if "\0" in name:
        raise DiagnosticError(error("D613", f"{what} cannot hold a NUL character: {name!r}", span,
                                    file=None if span else (file or "<command line>")))


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.is_error for d in diagnostics)


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Order by file, line, column, code; drop repeats (the same code, span and message).

    Repeats are normal: checking two rulesets where one uses the other reports the first one's
    problems twice, and a user should read each problem once.
    """
    seen: set[tuple] = set()
    unique = []
    for d in diagnostics:
        file, line, col = d.location()
        end = d.span.end_position if d.span is not None else (0, 0)
        key = (file or "", line or 0, col or 0, d.code, d.message, end)
        if key not in seen:
            seen.add(key)
            unique.append((key, d))
    unique.sort(key=lambda kd: kd[0])
    return [d for _, d in unique]


EXCERPT_WIDTH = 120  # the most characters of a source line a text diagnostic shows
_EXCERPT_LEAD = 40  # how much of the line before the caret a clipped excerpt keeps


def _clip(text: str, start: int, width: int) -> tuple[str, int, int]:
    """A window of `text` around [start, start + width): (excerpt, caret column in it, width).

    A long line (a one-line JSON save, a generated YAML line) is cut to `EXCERPT_WIDTH`
    characters with "…" where text was left out, so the caret still points at the right place.
    """
    if len(text) <= EXCERPT_WIDTH:
        return text, start, width
    left = max(0, start - _EXCERPT_LEAD)
    right = min(len(text), left + EXCERPT_WIDTH)
    left = max(0, right - EXCERPT_WIDTH)
    excerpt = ("…" if left > 0 else "") + text[left:right] + ("…" if right < len(text) else "")
    column = start - left + (1 if left > 0 else 0)
    return excerpt, column, max(1, min(width, right - start))


def _caret_block(span: Span) -> list[str]:
    line = span.line
    text = span.source.line_text(line)
    end_line, end_col = span.end_position
    width = (end_col - span.column) if end_line == line else len(text) - span.column + 1
    text, start, width = _clip(text, span.column - 1, max(1, width))
    gutter = f"{line:>4} | "
    pad = " " * (len(gutter) - 2) + "| "
    # Keep tabs in the padding so the caret lines up under the source text.
    lead = "".join(ch if ch == "\t" else " " for ch in text[:start])
    return [gutter + text, pad + lead + "^" + "~" * (width - 1)]


def render_text(diagnostic: Diagnostic) -> str:
    """`file:line:col: error[CODE]: message`, the source line, a caret, then related and hint."""
    file, line, col = diagnostic.location()
    where = file or "ruleslang"  # a problem with no file: the command line itself
    if line is not None:
        where += f":{line}:{col}"
    lines = [f"{where}: {diagnostic.severity.value}[{diagnostic.code}]: {diagnostic.message}"]
    if diagnostic.span is not None and diagnostic.span.source.text:
        lines.extend(_caret_block(diagnostic.span))
    for rel in diagnostic.related:
        lines.append(f"  {rel.span.source.display_name}:{rel.span.line}:{rel.span.column}: note: {rel.message}")
        lines.extend("  " + ln for ln in _caret_block(rel.span))
    if diagnostic.hint:
        lines.append(f"  hint: {diagnostic.hint}")
    return "\n".join(lines)


def render_all_text(diagnostics: Iterable[Diagnostic]) -> str:
    return "\n".join(render_text(d) for d in sort_diagnostics(diagnostics))


def render_json(diagnostics: Iterable[Diagnostic]) -> str:
    """`{"diagnostics": [...]}` as DESIGN.md's command-line contract states."""
    return json.dumps({"diagnostics": [d.to_json() for d in sort_diagnostics(diagnostics)]}, indent=2)
