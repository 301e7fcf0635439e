"""The lark LALR parser, built once per process from the grammar shipped in the package.

`parse_module` turns source text into an AST `Module` or raises `DiagnosticError` with located
parse diagnostics (codes P001-P009). Only this module and the transform (`transform*`) import
lark, and only when a text is parsed: `parser` (the front everything else calls) reads a parsed
module from the parse cache without loading lark at all.

Building the parser's tables takes about half a second; the built parser is kept in the user's
cache directory (`base/cache.py`: checked before it is read, written atomically), under a name
made from the grammar, this module's source, lark's version and Python's, so a later process
loads it in a few tens of milliseconds, and any change of those builds it again.
"""

from __future__ import annotations

import functools
import hashlib
import io
import sys
from pathlib import Path

import lark
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import Indenter

from ruleslang.lang.syntax.expressions import Expr
from ruleslang.lang.syntax.declarations import Module
from ruleslang.lang.syntax.grammar import grammar_text
from ruleslang.base.cache import read_cached, write_cached
from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.limits import MAX_NESTING, MAX_SOURCE_CHARS, MAX_TOKENS
from ruleslang.base.source import Source, Span
from ruleslang.lang.syntax.transform import to_expr, to_module

class _IndentError(Exception):
    """A problem found by the post-lexer (layout, nesting, size), at [start, end) of the parsed text."""

    def __init__(self, code: str, message: str, token: Token):
        super().__init__(message)
        self.code, self.message = code, message
        if token.type == "_NL":
            # the indentation of the line that follows the newline
            self.end = token.end_pos
            self.start = token.end_pos - len(token.rsplit("\n", 1)[1])
        else:
            self.start, self.end = token.start_pos, token.end_pos


class _Indenter(Indenter):
    """Python-style indentation, with located errors instead of asserts."""

    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def handle_NL(self, token: Token):
        if self.paren_level > 0:
            return
        if "\n" not in token:  # a comment with no line break after it (a text ending in a comment)
            yield token
            return
        indent_str = token.rsplit("\n", 1)[1]
        if "\t" in indent_str:
            raise _IndentError("P004", "tabs are not allowed in indentation; indent with spaces", token)
        indent = len(indent_str)
        if indent < self.indent_level[-1]:
            # Check the dedent lands on an enclosing block before emitting anything.
            levels = [lv for lv in self.indent_level if lv <= indent]
            if levels[-1] != indent:
                raise _IndentError(
                    "P003",
                    f"this line is indented by {indent} spaces, which matches no enclosing block "
                    f"(expected {levels[-1]} or {self.indent_level[-1]})",
                    token,
                )
        yield token
        # Indentation tokens sit where the new line's text starts, so errors point there.
        at = token.end_pos
        if indent > self.indent_level[-1]:
            self.indent_level.append(indent)
            yield _positioned(self.INDENT_type, indent_str, token, at)
        else:
            while indent < self.indent_level[-1]:
                self.indent_level.pop()
                yield _positioned(self.DEDENT_type, indent_str, token, at)

    def _process(self, stream):
        token = None
        # The parser keeps every token and tree node of a text until the text ends: bounding the
        # tokens bounds its memory (and the work of every stage after it) whatever the text is.
        for count, token in enumerate(stream, 1):
            if count > MAX_TOKENS:
                raise _IndentError("P011", f"more than {MAX_TOKENS} tokens (words, numbers and symbols) in one "
                                   "text; split it into smaller rulesets", token)
            if token.type == self.NL_type:
                yield from self.handle_NL(token)
                continue
            yield token
            if token.type in self.OPEN_PAREN_types:
                self.paren_level += 1
                if self.paren_level > MAX_NESTING:
                    raise _IndentError("P005", f"brackets nested more than {MAX_NESTING} deep", token)
            elif token.type in self.CLOSE_PAREN_types and self.paren_level > 0:
                # An unbalanced closer is left for the parser to report as an unexpected token.
                self.paren_level -= 1
        while len(self.indent_level) > 1:
            self.indent_level.pop()
            if token is not None:
                yield Token.new_borrow_pos(self.DEDENT_type, "", token)
            else:
                yield Token(self.DEDENT_type, "", 0, 1, 1, 1, 1, 0)


def _positioned(kind: str, value: str, nl: Token, at: int) -> Token:
    line = (nl.end_line or nl.line or 1)
    column = (nl.end_column or 1)
    return Token(kind, value, at, line, column, line, column, at)


@functools.lru_cache(maxsize=1)
def get_parser() -> Lark:
    """The one parser of the process (strict LALR: a grammar conflict is an error here)."""
    return load_or_build_parser()


def parser_cache_name() -> str:
    """The cache file of the built parser: named by everything the build depends on."""
    key = hashlib.sha256()
    for part in (grammar_text().encode("utf-8"), Path(__file__).read_bytes(), lark.__version__.encode(),
                 f"{sys.version_info[0]}.{sys.version_info[1]}".encode()):
        key.update(hashlib.sha256(part).digest())
    return f"parser-{key.hexdigest()[:32]}.lark"


def load_or_build_parser() -> Lark:
    """The parser from the cache when a whole entry is there, else built (and then cached)."""
    name = parser_cache_name()
    payload = read_cached(name)
    if payload is not None:
        try:
            return Lark.load(io.BytesIO(payload))
        except Exception:  # an entry this lark cannot read (it was checked whole): build it again
            pass
    parser = build_parser()
    saved = io.BytesIO()
    parser.save(saved)
    write_cached(name, saved.getvalue())
    return parser


def build_parser() -> Lark:
    """The parser built from the grammar."""
    return Lark(
        grammar_text(),
        parser="lalr",
        lexer="contextual",
        strict=True,
        postlex=_Indenter(),
        propagate_positions=True,
        maybe_placeholders=True,
        start=["start", "expr"],
    )


_FRIENDLY = {
    "NAME": "a name",
    "INT": "a whole number",
    "DECIMAL": "a number",
    "STRING": "text in double quotes",
    "REF": "a ruleset reference such as family/name@1",
    "DICE": "dice such as d6",
    "SIGN": "'+' or '-'",
    "MUL_OP": "'*' or '/'",
    "COMP_OP": "a comparison",
    "_NL": "the end of the line",
    "_INDENT": "an indented block",
    "_DEDENT": "the end of the block",
    "$END": "the end of the file",
}


def _describe_terminal(name: str) -> str:
    if name in _FRIENDLY:
        return _FRIENDLY[name]
    try:
        term = get_parser().get_terminal(name)
    except KeyError:
        return name.lower()
    if term.pattern.type == "str":
        return f"'{term.pattern.value}'"
    return name.lower()


def _describe_token(token: Token) -> str:
    if token.type == "$END":
        return "the end of the file"
    if token.type == "_NL":
        return "the end of the line"
    if token.type == "_INDENT":
        return "an indented block"
    if token.type == "_DEDENT":
        return "the end of the block"
    if token.type == "NAME":
        return f"the name '{token}'"
    if token.type == "STRING":
        return "text in quotes"
    return f"'{token}'"


# Tokens that can start an expression: when most are expected, say "an expression".
_EXPR_START = {"NAME", "INT", "DECIMAL", "STRING", "DICE", "LPAR", "LSQB", "LBRACE", "SIGN", "NOT", "IF",
               "TRUE", "FALSE", "NONE", "BEST", "WORST", "EXPLAIN"}


def _expected_list(expected) -> str:
    expected = set(expected)
    summary = []
    if len(expected & _EXPR_START) >= 8:
        expected -= _EXPR_START
        summary.append("an expression")
    names = summary + sorted({_describe_terminal(t) for t in expected})
    if not names:
        return "something else"
    if len(names) > 8:
        names = names[:8] + ["..."]
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " or " + names[-1]


def _syntax_diagnostic(exc: UnexpectedInput, source: Source, base: int):
    if isinstance(exc, UnexpectedCharacters):
        start = base + exc.pos_in_stream
        char = source.text[start:start + 1]
        if char == '"':
            return error("P002", "text is missing its closing double quote", Span(source, start, start + 1),
                         hint="a text literal must end on the line where it starts")
        return error("P002", f"unexpected character {char!r}", Span(source, start, start + 1),
                     hint=f"expected {_expected_list(exc.allowed or [])}")
    if isinstance(exc, UnexpectedEOF):
        end = len(source.text)
        return error("P001", f"unexpected end of file; expected {_expected_list(exc.expected)}",
                     Span(source, end, end))
    assert isinstance(exc, UnexpectedToken)
    token = exc.token
    start = base + (token.start_pos if token.start_pos is not None else 0)
    end = base + (token.end_pos if token.end_pos is not None else start)
    if token.type in ("_NL", "_DEDENT", "_INDENT", "$END"):
        end = start  # a point: the end of the line, or where the next line's text starts
    quote = _quote_in_interpolation(source.text, start)
    if quote is not None:
        return error("P006", "this '\"' inside '{...}' ends the text, so the interpolation is never closed",
                     Span(source, quote, quote + 1),
                     hint='inside {...} in a text, write a double quote as \\" (for example '
                          '"{controller(\\"UK\\")}"), or compute the value on a let line first')
    expected = exc.accepts or exc.expected
    message = f"expected {_expected_list(expected)}, found {_describe_token(token)}"
    hint = None
    if token.type == "_INDENT":
        message = "unexpected indentation; this line is indented but no block starts here"
        hint = "blocks start after a line ending in ':'"
    elif "_INDENT" in expected and token.type != "_INDENT":
        hint = "the line before ends in ':' and must be followed by an indented block"
    elif token.type == "_NL" and (len(set(expected) & _EXPR_START) >= 8 or set(expected) <= {"ELSE", "THEN"}):
        hint = "to go on to the next line, put the expression inside ( ), or end the line with \\"
    return error("P001", message, Span(source, start, max(end, start)), hint=hint)


def _quote_in_interpolation(text: str, at: int) -> int | None:
    """The closing quote just before `at` of a text whose `{...}` is still open, or None.

    `"{controller("UK")}"` lexes as the text `"{controller("` followed by the name UK: the unexpected token
    sits right after a text that ended inside an interpolation, which is what the user must see.
    """
    at = min(at, len(text))  # a token at the end of the file (an indent the lexer adds) starts past the text
    i = text.rfind("\n", 0, at) + 1
    literal_start = None  # index of the opening quote while inside a text
    last = None  # (opening quote, closing quote) of the last text on the line
    while i < at:
        ch = text[i]
        if literal_start is None:
            if ch == '"':
                literal_start = i
        elif ch == "\\":
            i += 1
        elif ch == '"':
            last, literal_start = (literal_start, i), None
        i += 1
    if literal_start is not None or last is None or last[1] != at - 1:
        return None
    body = text[last[0] + 1:last[1]].replace("{{", "").replace("}}", "")
    depth = 0
    for ch in body:
        depth += {"{": 1, "}": -1}.get(ch, 0)
    return last[1] if depth > 0 else None


# Operators whose chains may be regrouped: `a + b + c` is `(a + b) + c` and `a + (b + c)` alike, and
# evaluation still runs left to right, so dice are rolled in the same order. A chain is regrouped only
# when long, so ordinary expressions keep their shape and the spans of their errors.
_REGROUPED = {"arith": ("+", "*"), "or_op": None, "and_op": None}
_LONG_CHAIN = 16


def _operator(node: Tree) -> str | None:
    """The operator of a chain node (`or`/`and` nodes carry none: the rule name says it)."""
    return str(node.children[1]) if node.data == "arith" else None


def _chain(node: Tree) -> tuple[list, str | None] | None:
    """The operands of a left-nested chain of one associative operator, leftmost first, or None."""
    if node.data not in _REGROUPED:
        return None
    op = _operator(node)
    allowed = _REGROUPED[node.data]
    if allowed is not None and op not in allowed:
        return None
    rights = []
    while isinstance(node, Tree) and node.data in _REGROUPED and _operator(node) == op:
        rights.append(node.children[-1])
        node = node.children[0]
    return [node] + rights[::-1], op


def _span_meta(tree: Tree, first, last) -> Tree:
    """Give `tree` the source position running from `first`'s start to `last`'s end."""
    start = first.meta if isinstance(first, Tree) else first
    end = last.meta if isinstance(last, Tree) else last
    meta = tree.meta
    meta.empty = False
    meta.line, meta.column, meta.start_pos = start.line, start.column, start.start_pos
    meta.end_line, meta.end_column, meta.end_pos = end.end_line, end.end_column, end.end_pos
    return tree


def _grouped(data: str, op_token, operands: list):
    """Operands joined by one operator as a balanced tree (depth log2 of their number)."""
    if len(operands) == 1:
        return operands[0]
    middle = len(operands) // 2
    left, right = _grouped(data, op_token, operands[:middle]), _grouped(data, op_token, operands[middle:])
    children = [left, op_token, right] if op_token is not None else [left, right]
    return _span_meta(Tree(data, children), operands[0], operands[-1])


def _regroup_long_chains(tree: Tree) -> Tree:
    """Regroup long chains of one associative operator, so a flat sum of many terms is not refused
    as deep nesting (P005) and no recursive stage meets a deep tree."""
    holder = Tree("holder", [tree])  # so the tree itself may be a chain
    stack = [holder]
    while stack:
        node = stack.pop()
        for i, child in enumerate(node.children):
            if not isinstance(child, Tree):
                continue
            found = _chain(child)
            if found is not None and len(found[0]) > _LONG_CHAIN:
                op_token = child.children[1] if child.data == "arith" else None
                child = node.children[i] = _grouped(child.data, op_token, found[0])
            stack.append(child)
    return holder.children[0]


def _check_depth(tree: Tree, source: Source, base: int) -> None:
    """Reject trees nested beyond MAX_NESTING, before any recursive stage sees them."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            meta = node.meta
            start = base + (meta.start_pos if not meta.empty else 0)
            end = base + (meta.end_pos if not meta.empty else 0)
            raise DiagnosticError(error(
                "P005", f"expression nested more than {MAX_NESTING} levels deep",
                Span(source, start, end), hint="split it with let lines or smaller formulas"))
        for child in node.children:
            if isinstance(child, Tree):
                stack.append((child, depth + 1))


def parse_tree(text: str, source: Source, *, start: str = "start", base: int = 0) -> Tree:
    """Parse `text` (which sits at offset `base` of `source`) into a lark tree."""
    if len(source.text) > MAX_SOURCE_CHARS:
        raise DiagnosticError(error(
            "S004", f"source is {len(source.text)} characters long; the limit is {MAX_SOURCE_CHARS}",
            Span(source, 0, 0)))
    try:
        tree = get_parser().parse(text, start=start)
    except _IndentError as exc:
        raise DiagnosticError(error(exc.code, exc.message, Span(source, base + exc.start, base + exc.end)))
    except UnexpectedInput as exc:
        raise DiagnosticError(_syntax_diagnostic(exc, source, base))
    tree = _regroup_long_chains(tree)
    _check_depth(tree, source, base)
    return tree


def _parse_fragment(text: str, source: Source, base: int) -> Tree:
    """The tree of an expression inside a text interpolation, at offset `base` of `source`."""
    return parse_tree(text, source, start="expr", base=base)


def parse_module(source: Source) -> Module:
    """Parse a whole ruleset file into its AST (always parsed: `parser.parse_module` is the cached way)."""
    # A final newline lets the last line end its statement and close its blocks.
    tree = parse_tree(source.text + "\n", source)
    return to_module(tree, source, _parse_fragment)


def parse_expression(source: Source) -> Expr:
    """Parse a lone expression (from the command line or an interpolation)."""
    tree = parse_tree(source.text, source, start="expr")
    return to_expr(tree, source, _parse_fragment)
