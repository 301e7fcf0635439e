"""Source text and spans: where every diagnostic points."""

from __future__ import annotations

import bisect
import functools
import os
from dataclasses import dataclass


@dataclass(frozen=True, eq=False)
class Source:
    """A named text (a ruleset file, a YAML document, a command-line expression)."""

    name: str
    text: str

    @functools.cached_property
    def _line_starts(self) -> tuple[int, ...]:
        # found when a position is first asked for: a text read from the cache often never is
        starts = [0]
        at = self.text.find("\n")
        while at >= 0:
            starts.append(at + 1)
            at = self.text.find("\n", at + 1)
        return tuple(starts)

    def position(self, offset: int) -> tuple[int, int]:
        """Return the 1-based (line, column) of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return line + 1, offset - self._line_starts[line] + 1

    def offset(self, line: int, column: int) -> int:
        """Return the character offset of a 1-based (line, column)."""
        line = max(1, min(line, len(self._line_starts)))
        return min(self._line_starts[line - 1] + max(column, 1) - 1, len(self.text))

    def line_text(self, line: int) -> str:
        """Return the text of a 1-based line, without its newline."""
        if line < 1 or line > len(self._line_starts):
            return ""
        start = self._line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    @property
    def display_name(self) -> str:
        """The name relative to the working directory when the file lies inside it, else as it is.

        A path climbing out of the working directory (`../elsewhere/x`) would depend on where the
        command ran, so a file outside it keeps its absolute name."""
        if os.path.isabs(self.name):
            try:
                rel = os.path.relpath(self.name)
            except ValueError:
                return self.name
            inside = rel != os.pardir and not rel.startswith(os.pardir + os.sep)
            return rel if inside else self.name
        return self.name


@dataclass(frozen=True)
class Span:
    """A half-open character range [start, end) in a source."""

    source: Source
    start: int
    end: int

    @property
    def line(self) -> int:
        return self.source.position(self.start)[0]

    @property
    def column(self) -> int:
        return self.source.position(self.start)[1]

    @property
    def end_position(self) -> tuple[int, int]:
        return self.source.position(self.end)

    @property
    def text(self) -> str:
        return self.source.text[self.start:self.end]

    def to(self, other: "Span") -> "Span":
        """The span covering this one and `other` (same source)."""
        return Span(self.source, min(self.start, other.start), max(self.end, other.end))

    def __repr__(self) -> str:
        return f"Span({self.source.name}:{self.line}:{self.column})"


def span_at(source: Source, line: int, column: int, length: int = 1) -> Span:
    """A span from a 1-based line and column, `length` characters long."""
    start = source.offset(line, column)
    return Span(source, start, min(start + max(length, 0), len(source.text)))
