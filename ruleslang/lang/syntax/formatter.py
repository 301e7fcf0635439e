"""`ruleslang fmt`: one canonical layout of a ruleset file, comments kept.

The formatter works on the file's tokens, not on its AST, because comments are not in the AST.
The tokens are the grammar's: its terminals' patterns and its operators, read from the grammar
(`grammar.grammar_terms`, as the highlighters do; tests/test_highlight.py checks they are the ones
lark builds), so there is one definition of them.
Like gofmt it keeps the author's line breaks and decides everything else:

- blocks are indented by four spaces a level (the levels are found as the parser finds them);
- a continuation line (inside brackets, or after a `\\`) keeps its indentation relative to the
  line it continues, re-based on that line's new indentation (four spaces deeper if it was
  left of that line);
- the cells of a table's rows are lined up in columns (rows next to each other, one-line rows);
- otherwise one space between tokens, none inside brackets, before `,` `:` `?` or around `.` and `..`,
  none after a sign that is not an operator (`-1`) or before the `(` of a call;
- a comment keeps its text; a trailing comment is two spaces after the code; a comment line takes
  the indentation of the block it is written in;
- trailing spaces go, runs of blank lines become one, the file ends with one newline.

`format_source` checks the result before returning it: the formatted text must parse to the same
AST (spans aside) as the original. A text that does not parse is refused with its diagnostics.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.source import Source, Span
from ruleslang.lang.syntax.grammar import grammar_terms
from ruleslang.lang.syntax.parser import parse_module

INDENT = 4



@functools.lru_cache(maxsize=1)
def _token_res() -> list[tuple[str, re.Pattern]]:
    """The grammar's terminals that matter for layout, tried in this order at each position: its
    COMMENT, STRING, REF, DICE, NAME, DECIMAL and INT patterns, then its operators and punctuation
    (OP), all read from the grammar (grammar.grammar_terms), so the formatter lexes what the parser
    lexes. A ruleset reference is taken only where the grammar expects one (see _ref_expected), like
    lark's contextual lexer; the grammar's _NL, which folds comments into newlines for the parser, is
    not used: here lines and comments are kept apart."""
    terms = grammar_terms()
    named = [(name, re.compile(terms["patterns"][name])) for name in
             ("COMMENT", "STRING", "REF", "DICE", "NAME", "DECIMAL", "INT")]
    return named + [("OP", re.compile("|".join(re.escape(s) for s in terms["symbols"])))]

_CONTINUATION = re.compile(r"\\[\t \f]*(?=\r?\n)")
_SPACE = re.compile(r"[\t \f]+")
_OPEN, _CLOSE = "([{", ")]}"
# Words after which a reference may follow (the header lines, a test's scenario line).
_REF_WORDS = {"ruleset", "revises", "uses", "scenario"}
# Tokens after which a sign is an operator (they end a value).
_VALUE_END = {"NAME", "INT", "DECIMAL", "STRING", "DICE", "REF"}


@dataclass
class _Token:
    kind: str
    text: str
    space_before: bool  # whether the original had white space (or a line start) before it
    fraction: bool = False  # a `/` between two whole numbers written without spaces (`1/2`)


@dataclass
class _Line:
    """One physical line: its tokens (a comment last), its original column, and what it continues."""

    tokens: list[_Token] = field(default_factory=list)
    column: int = 0
    continues: bool = False  # inside brackets, or after a backslash: not a new statement
    backslash: bool = False  # ends in a line continuation

    @property
    def code(self) -> list[_Token]:
        return [t for t in self.tokens if t.kind != "COMMENT"]


def _keywords() -> frozenset[str]:
    """The grammar's words ("if", "of", "by", ...): a `(`, `[` or sign after one keeps its spacing."""
    return frozenset(grammar_terms()["keywords"])


class LayoutError(Exception):
    """A character the formatter's lexer does not know (the parser reports it properly)."""


def _lex(text: str) -> list[_Line]:
    lines: list[_Line] = []
    depth = 0
    continued = False
    for raw in text.replace("\r\n", "\n").split("\n"):
        stripped = raw.rstrip()
        line = _Line(column=len(raw) - len(raw.lstrip(" \t")), continues=depth > 0 or continued)
        pos = line.column
        space = True
        continued = False
        while pos < len(stripped):
            m = _SPACE.match(stripped, pos)
            if m:
                pos, space = m.end(), True
                continue
            if stripped[pos] == "\\" and stripped[pos + 1:].strip() == "":
                line.backslash = continued = True
                break
            for kind, regex in _token_res():
                if kind == "REF" and not _ref_expected(line, lines):
                    continue
                m = regex.match(stripped, pos)
                if m:
                    break
            else:
                raise LayoutError(pos)
            token = _Token(kind, m.group(0), space)
            line.tokens.append(token)
            if kind == "OP" and token.text in _OPEN:
                depth += 1
            elif kind == "OP" and token.text in _CLOSE:
                depth = max(0, depth - 1)
            pos, space = m.end(), False
        lines.append(line)
    return lines


def _ref_expected(line: _Line, lines: list[_Line]) -> bool:
    """A reference may come next: after `ruleset`, `revises`, `scenario`, or in a `uses` list."""
    statement = list(line.code)
    if line.continues:  # the statement started on an earlier line
        for earlier in reversed(lines):
            statement = earlier.code + statement
            if not earlier.continues:
                break
    if not statement:
        return False
    last = statement[-1]
    if last.kind == "NAME" and last.text in _REF_WORDS:
        return True
    return statement[0].text == "uses" and last.text == ","


def _space(prev: _Token | None, cur: _Token, keywords: frozenset[str], sign_is_unary: bool) -> str:
    """The white space between two tokens of a line."""
    if prev is None:
        return ""
    if cur.kind == "COMMENT":
        return "  "
    p, c = prev.text, cur.text
    if prev.kind == "OP" and p in _OPEN:
        return ""
    if cur.kind == "OP" and c in ")]},:?.":
        return ""
    if prev.kind == "OP" and p == ".":
        return ""
    if cur.kind == "OP" and c == "..":
        return ""
    if prev.kind == "OP" and p == "..":
        return " " if cur.kind == "OP" and c in ("->", "=>") else ""
    if prev.kind == "OP" and p in "+-" and sign_is_unary:
        return ""
    if prev.fraction or cur.fraction:
        return ""
    if cur.kind == "OP" and c in "([":
        if prev.kind == "NAME" and p in keywords:
            return " " if cur.space_before else ""  # `not (x)` or a name that is also a word
        if prev.kind in ("NAME", "STRING") or (prev.kind == "OP" and p in ")]"):
            return ""  # a call or an index
    return " "


def _unary(prev: _Token | None, sign: _Token, after: _Token | None, keywords: frozenset[str]) -> bool:
    """Whether the sign `sign` is a prefix (`-1`), not an operator (`a - 1`)."""
    if prev is None:
        return True
    if prev.kind == "NAME" and prev.text in keywords:
        # `by -1` or a name that is also a word (`to - 1`): keep what the author wrote
        return after is not None and not after.space_before
    if prev.kind in _VALUE_END or (prev.kind == "OP" and prev.text in ")]}?"):
        return False
    return True


def _render_tokens(tokens: list[_Token], keywords: frozenset[str], before: _Token | None) -> str:
    """A line's tokens with their spacing; `before` is the statement's token before the line."""
    out = []
    prev = None
    unary_sign = False
    for i, tok in enumerate(tokens[1:-1], 1):  # `1/2` written tight stays so: a fraction
        tok.fraction = (tok.text == "/" and tokens[i - 1].kind == tokens[i + 1].kind == "INT"
                        and not tok.space_before and not tokens[i + 1].space_before)
    for i, tok in enumerate(tokens):
        if i == 0 and tok.kind == "OP" and tok.text in "+-":  # a sign starting a continuation line
            after = tokens[1] if len(tokens) > 1 else None
            if not _unary(before, tok, after, keywords):
                out.append(tok.text)
                prev = tok
                continue
        out.append(_space(prev, tok, keywords, unary_sign))
        out.append(tok.text.rstrip() if tok.kind == "COMMENT" else tok.text)
        unary_sign = False
        if tok.kind == "OP" and tok.text in "+-":
            after = tokens[i + 1] if i + 1 < len(tokens) else None
            unary_sign = _unary(prev, tok, after, keywords)
        prev = tok
    return "".join(out)


def _indents(lines: list[_Line]) -> list[int]:
    """The new indentation of every line (blank lines: 0)."""
    result = [0] * len(lines)
    stack = [(0, 0)]  # (original column, new indentation) of the open blocks
    statement_start = (0, 0)  # the same for the statement a continuation line continues
    for i, line in enumerate(lines):
        if not line.tokens:
            continue
        if line.continues:
            relative = line.column - statement_start[0]
            result[i] = statement_start[1] + (relative if relative >= 0 else INDENT)
            continue
        if not line.code:  # a comment line: the deepest open block it sits in, or the next line's
            result[i] = _comment_indent(line.column, stack, _next_statement(lines, i))
            continue
        while line.column < stack[-1][0]:
            stack.pop()
        if line.column > stack[-1][0]:
            stack.append((line.column, stack[-1][1] + INDENT))
        result[i] = stack[-1][1]
        statement_start = stack[-1]
    return result


def _next_statement(lines: list[_Line], i: int) -> int | None:
    for line in lines[i + 1:]:
        if line.code and not line.continues:
            return line.column
    return None


def _comment_indent(column: int, stack: list[tuple[int, int]], next_column: int | None) -> int:
    candidates = list(stack)
    if next_column is not None and next_column > stack[-1][0]:
        candidates.append((next_column, stack[-1][1] + INDENT))
    fits = [new for old, new in candidates if old <= column]
    return fits[-1] if fits else 0


def _table_rows(lines: list[_Line]) -> set[int]:
    """The lines that are whole one-line rows of a table (their cells are aligned in columns)."""
    rows: set[int] = set()
    header = None  # the column of the `table` line whose rows come next
    row_column = None
    for i, line in enumerate(lines):
        code = line.code
        if not code or line.continues:
            continue
        words = [t.text for t in code[:2]]
        if words[0] == "table" or words[:2] == ["die", "table"]:
            header, row_column = line.column, None
            continue
        if header is None or line.column <= header:
            header = None
            continue
        row_column = line.column if row_column is None else row_column
        ends = i + 1 >= len(lines) or not lines[i + 1].continues
        if line.column == row_column and ends and not line.backslash:
            rows.add(i)
    return rows


def _row_pieces(tokens: list[_Token], keywords: frozenset[str]) -> list[str]:
    """A table row's columns: each cell with its comma, and the arrow on its own."""
    pieces, cell, depth = [], [], 0
    for tok in tokens:
        if tok.kind == "OP" and tok.text in _OPEN:
            depth += 1
        elif tok.kind == "OP" and tok.text in _CLOSE:
            depth -= 1
        if depth == 0 and tok.kind == "OP" and tok.text in (",", "->"):
            text = _render_tokens(cell, keywords, None)
            pieces += [text + ","] if tok.text == "," else [text, "->"]
            cell = []
        else:
            cell.append(tok)
    pieces.append(_render_tokens(cell, keywords, None))
    return pieces


def _aligned_rows(lines: list[_Line], keywords: frozenset[str]) -> dict[int, str]:
    """The text of every table row, its cells padded to line up with the rows next to it."""
    rows = _table_rows(lines)
    texts: dict[int, str] = {}
    group: list[int] = []
    for i in sorted(rows) + [None]:
        if group and (i is None or i != group[-1] + 1):
            pieces = {j: _row_pieces(lines[j].code, keywords) for j in group}
            widths: dict[int, int] = {}
            for cells in pieces.values():
                for k, piece in enumerate(cells[:-1]):
                    widths[k] = max(widths.get(k, 0), len(piece))
            for j, cells in pieces.items():
                text = " ".join([piece.ljust(widths[k]) for k, piece in enumerate(cells[:-1])] + cells[-1:])
                comment = [t.text.rstrip() for t in lines[j].tokens if t.kind == "COMMENT"]
                texts[j] = text + "".join("  " + c for c in comment)
            group = []
        if i is not None:
            group.append(i)
    return texts


def layout(text: str) -> str:
    """`text` in the canonical layout (no check that it parses: see `format_source`)."""
    keywords = _keywords()
    lines = _lex(text)
    indents = _indents(lines)
    rows = _aligned_rows(lines, keywords)
    out: list[str] = []
    before = None  # the last code token of the statement so far
    for i, (line, indent) in enumerate(zip(lines, indents)):
        if not line.continues:
            before = None
        if not line.tokens and not line.backslash:
            if out and out[-1] != "":
                out.append("")
            continue
        body = rows[i] if i in rows else _render_tokens(line.tokens, keywords, before)
        before = line.code[-1] if line.code else before
        if line.backslash:
            body = (body + " \\") if body else "\\"
        out.append(" " * indent + body)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def format_source(source: Source) -> str:
    """The source's text in the canonical layout, checked to say the same as the original.

    Raises DiagnosticError when the text does not parse (its syntax diagnostics), and P010 when the
    layout would change what the file says (a formatter bug: the file is left as it is).
    """
    original = parse_module(source)
    try:
        formatted = layout(source.text)
    except LayoutError as exc:  # the parser accepted a character the layout lexer does not know
        at = exc.args[0]
        raise DiagnosticError(error("P010", "fmt cannot lay out this text; the file is left as it is",
                                    Span(source, 0, min(at, len(source.text)))))
    if formatted == source.text:
        return formatted
    if parse_module(Source(source.name, formatted)) != original:
        raise DiagnosticError(error(
            "P010", "formatting would change what this file says; the file is left as it is",
            Span(source, 0, 0), hint="please report this as a bug of `ruleslang fmt`"))
    return formatted
