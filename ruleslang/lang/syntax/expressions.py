"""Expression nodes: literals, names, calls, operators, comprehensions (the values rules compute)."""

from __future__ import annotations

from fractions import Fraction
from typing import Union

from ruleslang.lang.syntax.ast import Ident, Node, give_inits, node


@node
class IntLit(Node):
    value: int


@node
class DecimalLit(Node):
    value: Fraction


@node
class StringLit(Node):
    """A text literal; `parts` alternate plain text and interpolated expressions."""

    parts: tuple[Union[str, "Expr"], ...]

    @property
    def is_plain(self) -> bool:
        return all(isinstance(p, str) for p in self.parts)

    @property
    def plain(self) -> str:
        return "".join(p for p in self.parts if isinstance(p, str))


@node
class BoolLit(Node):
    value: bool


@node
class NoneLit(Node):
    pass


@node
class DiceLit(Node):
    """`d6` (count 1) or `3d6` (the sum of three dice)."""

    count: int
    sides: int


@node
class Name(Node):
    id: str


@node
class KeywordArg(Node):
    name: Ident
    value: "Expr"


@node
class Call(Node):
    func: "Expr"
    args: tuple["Expr", ...]
    kwargs: tuple[KeywordArg, ...] = ()


@node
class Field(Node):
    obj: "Expr"
    name: Ident


@node
class Index(Node):
    obj: "Expr"
    index: "Expr"


@node
class Unary(Node):
    op: str  # "-" or "+"
    operand: "Expr"


@node
class Binary(Node):
    op: str  # + - * /
    left: "Expr"
    right: "Expr"


@node
class Compare(Node):
    op: str  # == != < <= > >=
    left: "Expr"
    right: "Expr"


@node
class In(Node):
    element: "Expr"
    collection: "Expr"
    negated: bool = False


@node
class BoolOp(Node):
    op: str  # "and" or "or"
    left: "Expr"
    right: "Expr"


@node
class Not(Node):
    operand: "Expr"


@node
class Range(Node):
    """`lo..hi`, both ends included; `hi` is None for an open range (table keys only)."""

    lo: "Expr"
    hi: Union["Expr", None]


@node
class If(Node):
    cond: "Expr"
    then: "Expr"
    else_: "Expr"


@node
class Lambda(Node):
    param: Ident
    body: "Expr"


@node
class ListLit(Node):
    items: tuple["Expr", ...]


@node
class SetLit(Node):
    items: tuple["Expr", ...]


@node
class RecordLit(Node):
    fields: tuple[tuple[Ident, "Expr"], ...]


@node
class ForClause(Node):
    var: Ident
    iterable: "Expr"
    condition: Union["Expr", None] = None


@node
class Comprehension(Node):
    """`[e for x in s where c]`, `{...}`, or a generator argument of an aggregate call."""

    kind: str  # "list", "set" or "gen"
    element: "Expr"
    clauses: tuple[ForClause, ...]


@node
class BestOf(Node):
    """`best k of xs` / `worst k of xs`: the k largest (smallest) values, largest first."""

    kind: str
    count: "Expr"
    collection: "Expr"


@node
class Explain(Node):
    """`explain(call)`: a modifier list's terms, or a formula's parts, as one line of text."""

    expr: "Expr"


Expr = Union[
    IntLit, DecimalLit, StringLit, BoolLit, NoneLit, DiceLit, Name, Call, Field, Index, Unary,
    Binary, Compare, In, BoolOp, Not, Range, If, Lambda, ListLit, SetLit, RecordLit,
    Comprehension, BestOf, Explain,
]


give_inits(globals())
