"""Where each part of a data document was written: the spans of its values and keys, by data path.

What the YAML reader (base/yamltext.py) records and what schema and consistency checks
(base/yamlio.py, board/) point their diagnostics at.
"""

from __future__ import annotations

from typing import Iterable

from ruleslang.base.source import Source, Span

DataPath = tuple  # a tuple of mapping keys (str) and list indices (int)


class Positions:
    """Where each data path of a loaded document sits in its source.

    `span(path)` gives the value's span, or the nearest enclosing path's when the exact one is
    unknown (a key the document never wrote); `key_span(path)` the span of the mapping key that
    introduced `path` (where an "unknown key" error should point).
    """

    def __init__(self, source: Source | None, default: Span | None = None):
        self.source = source
        self.default = default
        self._values: dict[DataPath, Span] = {}
        self._keys: dict[DataPath, Span] = {}

    @classmethod
    def everywhere(cls, span: Span) -> "Positions":
        """Positions mapping every path to one span (data built by the language, not a file)."""
        return cls(span.source, span)

    def add(self, path: DataPath, value_span: Span, key_span: Span | None = None) -> None:
        """Record where the value at `path` (and the key naming it) was written."""
        self._values[path] = value_span
        if key_span is not None:
            self._keys[path] = key_span

    def span(self, path: Iterable = ()) -> Span | None:
        """The span of the value at `path`, or of its nearest known ancestor."""
        path = tuple(path)
        while True:
            found = self._values.get(path)
            if found is not None:
                return found
            if not path:
                return self.default
            path = path[:-1]

    def key_span(self, path: Iterable) -> Span | None:
        """The span of the key naming `path`, falling back to `span(path)`."""
        path = tuple(path)
        return self._keys.get(path) or self.span(path)

    def __contains__(self, path: object) -> bool:
        return path in self._values
