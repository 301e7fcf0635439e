"""The transform's expressions: operators, calls and their arguments, comprehensions, fields and
indexes, literals.

Structural rules of expressions the grammar cannot say are reported here: an argument or a record
field given twice (P007), a positional argument after a named one (P008), a number past the
language's limits (E509).
"""

from __future__ import annotations

from fractions import Fraction

from lark import v_args

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.limits import MAX_INT_BITS
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import (BestOf, Binary, BoolLit, BoolOp, Call, Compare, Comprehension,
                                               DecimalLit, Explain, Field, ForClause, If, In, Index, IntLit,
                                               KeywordArg, Lambda, ListLit, Name, NoneLit, Not, Range, RecordLit,
                                               SetLit, Unary)
from ruleslang.lang.syntax.transform_tokens import TokenTransform, unique_fields


@v_args(meta=True)
class ExpressionTransform(TokenTransform):
    """The grammar rules of expressions, mixed into `transform.ToAst`."""

    def if_expr(self, meta, children):
        return If(*children, span=self._span(meta))

    def lambda_expr(self, meta, children):
        return Lambda(self._ident(children[0]), children[1], span=self._span(meta))

    def or_op(self, meta, children):
        return BoolOp("or", children[0], children[1], span=self._span(meta))

    def and_op(self, meta, children):
        return BoolOp("and", children[0], children[1], span=self._span(meta))

    def not_op(self, meta, children):
        return Not(children[0], span=self._span(meta))

    def compare(self, meta, children):
        left, op, right = children
        return Compare(str(op), left, right, span=self._span(meta))

    def in_op(self, meta, children):
        return In(children[0], children[1], False, span=self._span(meta))

    def not_in_op(self, meta, children):
        return In(children[0], children[1], True, span=self._span(meta))

    def range_op(self, meta, children):
        return Range(children[0], children[1], span=self._span(meta))

    def arith(self, meta, children):
        left, op, right = children
        return Binary(str(op), left, right, span=self._span(meta))

    def unary_op(self, meta, children):
        op, operand = children
        return Unary(str(op), operand, span=self._span(meta))

    def best_kind(self, meta, children):
        return str(children[0])

    def best_of(self, meta, children):
        kind, count, coll = children
        return BestOf(kind, count, coll, span=self._span(meta))

    def call(self, meta, children):
        func, args = children
        span = self._span(meta)
        if args is None:
            return Call(func, (), (), span=span)
        if isinstance(args, Comprehension):
            return Call(func, (args,), (), span=span)
        positional, keywords = [], []
        for arg in args:
            if isinstance(arg, KeywordArg):
                if any(k.name.text == arg.name.text for k in keywords):
                    raise DiagnosticError(error("P007", f"argument '{arg.name.text}' is given twice", arg.span))
                keywords.append(arg)
            else:
                if keywords:
                    raise DiagnosticError(error(
                        "P008", "a positional argument cannot follow a named one", arg.span))
                positional.append(arg)
        return Call(func, tuple(positional), tuple(keywords), span=span)

    def args(self, meta, children):
        return [c for c in children if c is not None]

    def generator_args(self, meta, children):
        elt, *clauses = children
        return Comprehension("gen", elt, tuple(clauses), span=self._span(meta))

    def keyword_arg(self, meta, children):
        return KeywordArg(self._ident(children[0]), children[1], span=self._span(meta))

    def comp_for(self, meta, children):
        var, iterable, cond = children
        return ForClause(self._ident(var), iterable, cond, span=self._span(meta))

    def field(self, meta, children):
        return Field(children[0], self._ident(children[1]), span=self._span(meta))

    def index(self, meta, children):
        return Index(children[0], children[1], span=self._span(meta))

    def int_lit(self, meta, children):
        self._check_digits(children[0])
        value = int(children[0])
        if _too_big(value):
            raise DiagnosticError(error("E509", f"number has more than {MAX_INT_BITS} bits",
                                        self._tok_span(children[0])))
        return IntLit(value, span=self._span(meta))

    def decimal_lit(self, meta, children):
        self._check_digits(children[0])
        value = Fraction(str(children[0]))
        if _too_big(value.numerator) or _too_big(value.denominator):
            raise DiagnosticError(error("E509", f"number has more than {MAX_INT_BITS} bits",
                                        self._tok_span(children[0])))
        return DecimalLit(value, span=self._span(meta))

    def string_lit(self, meta, children):
        return self._string(children[0])

    def true_lit(self, meta, children):
        return BoolLit(True, span=self._span(meta))

    def false_lit(self, meta, children):
        return BoolLit(False, span=self._span(meta))

    def none_lit(self, meta, children):
        return NoneLit(span=self._span(meta))

    def dice_lit(self, meta, children):
        return self._dice(children[0])

    def name(self, meta, children):
        return Name(str(children[0]), span=self._span(meta))

    def list_lit(self, meta, children):
        return ListLit(tuple(c for c in children if c is not None), span=self._span(meta))

    def set_lit(self, meta, children):
        return SetLit(tuple(c for c in children if c is not None), span=self._span(meta))

    def list_comp(self, meta, children):
        elt, *clauses = children
        return Comprehension("list", elt, tuple(clauses), span=self._span(meta))

    def set_comp(self, meta, children):
        elt, *clauses = children
        return Comprehension("set", elt, tuple(clauses), span=self._span(meta))

    def record(self, meta, children):
        return RecordLit(unique_fields(children), span=self._span(meta))

    def record_field(self, meta, children):
        key, value = children
        if key.type == "STRING":
            ident = ast.Ident(self._plain(key), span=self._tok_span(key))
        else:
            ident = self._ident(key)
        return (ident, value)

    def explain_expr(self, meta, children):
        return Explain(children[0], span=self._span(meta))


def _too_big(value: int) -> bool:
    return value.bit_length() > MAX_INT_BITS
