"""What every part of the lark tree -> AST transform shares: spans from lark's positions, and
the tokens every kind of node is made of (names, texts with their `{expr}` interpolations,
numbers and dice held to the language's limits).

`TokenTransform` is the base of the transform's parts (`transform_declarations`,
`transform_rule_tests`, `transform_statements`, `transform_expressions`), composed in
`transform.ToAst`. Its helpers keep a leading underscore on purpose: in a lark `Transformer`
every public method is the callback of the grammar rule of its name (the grammar has rules named
`name`, `record`, `type` ...), and lark never builds a tree named with an underscore.
"""

from __future__ import annotations

from typing import Callable

from lark import Token, Transformer, Tree
from lark.exceptions import VisitError

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.limits import MAX_DICE, MAX_DIE_SIDES, MAX_INT_BITS, MAX_NUMBER_DIGITS, MAX_TEXT
from ruleslang.base.source import Source, Span
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import DiceLit, StringLit

_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}

# (fragment text, source, offset of the fragment in the source) -> the fragment's lark tree
ParseFragment = Callable[[str, Source, int], Tree]


class TokenTransform(Transformer):
    """The transform's state (the source, the fragment parser, the offset of a fragment) and the
    helpers its parts share; no grammar rule is handled here."""

    def __init__(self, source: Source, parse_fragment: ParseFragment, base: int = 0):
        super().__init__(visit_tokens=False)
        self.source = source
        self.parse_fragment = parse_fragment
        self.base = base

    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.source, self.base, self.base)
        text = self.source.text
        # the parser reads one newline more than the file holds
        start, end = self.base + meta.start_pos, min(self.base + meta.end_pos, len(text))
        start = min(start, end)
        if end > start and text[end - 1] in "\n\r\t #":
            end = _trim_end(text, start, end)
        return Span(self.source, start, end)

    def _tok_span(self, tok: Token) -> Span:
        return Span(self.source, self.base + tok.start_pos, self.base + tok.end_pos)

    def _ident(self, tok: Token) -> ast.Ident:
        return ast.Ident(str(tok), span=self._tok_span(tok))

    def _string(self, tok: Token) -> StringLit:
        """Unescape a STRING token and split out `{expr}` interpolations."""
        raw = str(tok)[1:-1]
        start = self.base + tok.start_pos + 1
        if len(raw) > MAX_TEXT:
            raise DiagnosticError(error(
                "E510", f"a text of {len(raw)} characters is more than the limit of {MAX_TEXT}",
                Span(self.source, start - 1, start)))
        parts: list = []
        buf: list[str] = []
        i = 0
        while i < len(raw):
            ch = raw[i]
            if ch == "\\":
                nxt = raw[i + 1] if i + 1 < len(raw) else ""
                if nxt not in _ESCAPES:
                    raise DiagnosticError(error(
                        "P006", f"unknown escape '\\{nxt}' in text",
                        Span(self.source, start + i, start + i + 2),
                        hint='the escapes are \\" \\\\ \\n \\t; write {{ and }} for braces'))
                buf.append(_ESCAPES[nxt])
                i += 2
            elif ch == "{" and raw[i + 1:i + 2] == "{":
                buf.append("{")
                i += 2
            elif ch == "}" and raw[i + 1:i + 2] == "}":
                buf.append("}")
                i += 2
            elif ch == "{":
                depth, j = 1, i + 1
                while j < len(raw) and depth:
                    if raw[j] == "{":
                        depth += 1
                    elif raw[j] == "}":
                        depth -= 1
                    j += 1
                if depth:
                    raise DiagnosticError(error(
                        "P006", "'{' in text starts an interpolation that is never closed",
                        Span(self.source, start + i, start + i + 1),
                        hint="write {{ for a literal brace"))
                fragment = raw[i + 1:j - 1].replace('\\"', '"').replace("\\\\", "\\")
                if not fragment.strip():
                    raise DiagnosticError(error(
                        "P006", "empty interpolation '{}' in text",
                        Span(self.source, start + i, start + j)))
                if buf:
                    parts.append("".join(buf))
                    buf = []
                tree = self.parse_fragment(fragment, self.source, start + i + 1)
                # an interpolation is an expression: the same (composed) transform, at its offset
                parts.append(transform_tree(type(self)(self.source, self.parse_fragment, start + i + 1), tree))
                i = j
            elif ch == "}":
                raise DiagnosticError(error(
                    "P006", "unmatched '}' in text", Span(self.source, start + i, start + i + 1),
                    hint="write }} for a literal brace"))
            else:
                buf.append(ch)
                i += 1
        if buf or not parts:
            parts.append("".join(buf))
        return StringLit(tuple(parts), span=self._tok_span(tok))

    def _plain(self, tok: Token) -> str:
        lit = self._string(tok)
        if not lit.is_plain:
            raise DiagnosticError(error("P006", "interpolation '{...}' is not allowed here",
                                        lit.span, hint="write {{ and }} for literal braces"))
        return lit.plain

    def _check_digits(self, token) -> None:
        """E509 for a number written with more digits than any number the language keeps."""
        digits = sum(ch.isdigit() for ch in str(token))
        if digits > MAX_NUMBER_DIGITS:
            raise DiagnosticError(error(
                "E509", f"number written with {digits} digits; at most {MAX_NUMBER_DIGITS} are allowed "
                        f"(numbers are limited to {MAX_INT_BITS} bits)", self._tok_span(token)))

    def _dice(self, tok: Token) -> DiceLit:
        self._check_digits(tok)  # thousands of dice digits are past what Python turns into an int
        count_text, sides_text = str(tok).split("d")
        count = int(count_text) if count_text else 1
        sides = int(sides_text)
        span = self._tok_span(tok)
        if count < 1 or count > MAX_DICE:
            raise DiagnosticError(error("P009", f"a dice literal rolls 1 to {MAX_DICE} dice, not {count}", span))
        if sides < 2 or sides > MAX_DIE_SIDES:
            raise DiagnosticError(error("P009", f"a die has 2 to {MAX_DIE_SIDES} sides, not {sides}", span))
        return DiceLit(count, sides, span=span)


def unique_fields(children: list) -> tuple:
    """The `(name, value)` fields of a record or a record type, in order; a name given twice is P007
    at its second."""
    fields = tuple(c for c in children if c is not None)
    seen: set[str] = set()
    for name, _ in fields:
        if name.text in seen:
            raise DiagnosticError(error("P007", f"field '{name.text}' is given twice", name.span))
        seen.add(name.text)
    return fields


def transform_tree(transformer: Transformer, tree: Tree):
    """Run a transform over a tree, a diagnostic raised by a callback raised as itself."""
    try:
        return transformer.transform(tree)
    except VisitError as exc:
        # lark wraps what a callback raises; a located diagnostic is what the caller wants.
        if isinstance(exc.orig_exc, DiagnosticError):
            raise exc.orig_exc from None
        raise


def _trim_end(text: str, start: int, end: int) -> int:
    """Statements end with their newline (and any comment); a span should stop at the last code."""
    while True:
        while end > start and text[end - 1] in " \t\r\n":
            end -= 1
        line_start = text.rfind("\n", start, end) + 1
        line = text[max(line_start, start):end]
        cut = _comment_start(line)
        if cut is None:
            return end
        end = max(line_start, start) + cut


def _comment_start(line: str) -> int | None:
    in_text = False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and in_text:
            i += 2
            continue
        if ch == '"':
            in_text = not in_text
        elif ch == "#" and not in_text:
            return i
        i += 1
    return None
