"""The error raised while evaluating rules; it becomes a located E-code diagnostic."""

from __future__ import annotations

from ruleslang.base.diagnostics import Diagnostic, error
from ruleslang.base.source import Span


class EvalError(Exception):
    """A rule failed at run time (missing table key, budget spent, none where a value is needed).

    Built-in implementations raise it without a span; the compiled call site fills in its own
    span, so the diagnostic always points at rule text.
    """

    def __init__(self, code: str, message: str, span: Span | None = None, hint: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.span = span
        self.hint = hint

    def at(self, span: Span | None) -> "EvalError":
        if self.span is None:
            self.span = span
        return self

    def diagnostic(self) -> Diagnostic:
        return error(self.code, self.message, self.span, hint=self.hint)
