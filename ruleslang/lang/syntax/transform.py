"""Lark tree -> AST: the transform the parser runs on every parse tree.

The parser owns parsing: it hands the transform a function that parses the `{expr}` of a text
interpolation, so the transform never calls the parser itself.

`ToAst` handles a file's header here and is composed of the transform's parts, each a module named
after what it builds: `transform_declarations` (declarations and type expressions),
`transform_rule_tests`, `transform_statements`, `transform_expressions`, over what they all share
in `transform_tokens` (spans, names, texts, numbers). lark's `@v_args(meta=True)` on a class
reaches only the methods written in that class (`_apply_v_args` skips inherited ones), so each part
carries its own (tests/test_transform_parts.py checks every callback gets lark's meta).

Structural rules the grammar cannot say (one `title` per header, a unit attribute given twice,
malformed text escapes) are reported by the parts as P-codes, with the span of the offending part.
"""

from __future__ import annotations

from lark import Tree, v_args

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.source import Source, Span
from ruleslang.lang.syntax.declarations import Header, Module, RefLit
from ruleslang.lang.syntax.expressions import Expr
from ruleslang.lang.syntax.transform_declarations import DeclarationTransform, flatten
from ruleslang.lang.syntax.transform_expressions import ExpressionTransform
from ruleslang.lang.syntax.transform_rule_tests import RuleTestTransform
from ruleslang.lang.syntax.transform_statements import StatementTransform
from ruleslang.lang.syntax.transform_tokens import ParseFragment, transform_tree


@v_args(meta=True)
class ToAst(DeclarationTransform, RuleTestTransform, StatementTransform, ExpressionTransform):
    """The whole transform: a file's module and header here, every other rule in a part."""

    def start(self, meta, children):
        header, *items = children
        return Module(header, tuple(items), span=self._span(meta))

    def header(self, meta, children):
        ref, *items = children
        seen: dict[str, Span] = {}
        values: dict = {"title": None, "source_note": None, "change_note": None, "revises": None, "map": None}
        uses: list[RefLit] = []
        for kind, value, span in items:
            if kind == "uses":
                uses.extend(value)
                continue
            if kind in seen:
                word = {"source_note": "source", "change_note": "note"}.get(kind, kind)
                raise DiagnosticError(error("P007", f"'{word}' is given twice in the ruleset header", span))
            seen[kind] = span
            values[kind] = value
        return Header(ref, values["title"], values["source_note"], values["change_note"],
                      values["revises"], tuple(uses), values["map"], span=self._span(meta))

    def ref(self, meta, children):
        (tok,) = children
        if tok.type == "STRING":
            return RefLit(self._plain(tok), True, span=self._tok_span(tok))
        return RefLit(str(tok), False, span=self._tok_span(tok))

    def title(self, meta, children):
        return ("title", self._plain(children[0]), self._span(meta))

    def source_note(self, meta, children):
        return ("source_note", self._plain(children[0]), self._span(meta))

    def change_note(self, meta, children):
        return ("change_note", self._plain(children[0]), self._span(meta))

    def revises(self, meta, children):
        return ("revises", children[0], self._span(meta))

    def uses(self, meta, children):
        return ("uses", list(children), self._span(meta))

    def uses_map(self, meta, children):
        return ("map", self._string(children[0]), self._span(meta))


def to_module(tree: Tree, source: Source, parse_fragment: ParseFragment) -> Module:
    """Transform a parsed file into a Module; `parse_fragment` parses its text interpolations."""
    module = transform_tree(ToAst(source, parse_fragment), tree)
    return Module(module.header, flatten(module.items), span=module.span)


def to_expr(tree: Tree, source: Source, parse_fragment: ParseFragment, base: int = 0) -> Expr:
    """Transform a parsed lone expression; `parse_fragment` parses its text interpolations."""
    return transform_tree(ToAst(source, parse_fragment, base), tree)
