"""The abstract syntax tree: frozen dataclasses, every node with its span.

Nothing here knows lark. Spans are excluded from equality, so two nodes compare equal when they
say the same thing wherever they are written (the semantic diff relies on this).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from fractions import Fraction
from typing import Union

from ruleslang.base.source import Span


@dataclass(frozen=True)
class Node:
    span: Span = field(kw_only=True, compare=False, repr=False)


@dataclass(frozen=True)
class Ident(Node):
    """A name as written, with its own span (declaration names, parameters, fields)."""

    text: str


# ------------------------------------------------------------------------------------ types


@dataclass(frozen=True)
class NamedType(Node):
    name: str


@dataclass(frozen=True)
class OptionalType(Node):
    name: str


@dataclass(frozen=True)
class SetType(Node):
    element: "TypeExpr"


@dataclass(frozen=True)
class ListType(Node):
    element: "TypeExpr"


@dataclass(frozen=True)
class RecordType(Node):
    fields: tuple[tuple[Ident, "TypeExpr"], ...]


TypeExpr = Union[NamedType, OptionalType, SetType, ListType, RecordType]


@dataclass(frozen=True)
class Param(Node):
    name: Ident
    type: TypeExpr


# ------------------------------------------------------------------------------ expressions


@dataclass(frozen=True)
class IntLit(Node):
    value: int


@dataclass(frozen=True)
class DecimalLit(Node):
    value: Fraction


@dataclass(frozen=True)
class StringLit(Node):
    """A text literal; `parts` alternate plain text and interpolated expressions."""

    parts: tuple[Union[str, "Expr"], ...]

    @property
    def is_plain(self) -> bool:
        return all(isinstance(p, str) for p in self.parts)

    @property
    def plain(self) -> str:
        return "".join(p for p in self.parts if isinstance(p, str))


@dataclass(frozen=True)
class BoolLit(Node):
    value: bool


@dataclass(frozen=True)
class NoneLit(Node):
    pass


@dataclass(frozen=True)
class DiceLit(Node):
    """`d6` (count 1) or `3d6` (the sum of three dice)."""

    count: int
    sides: int


@dataclass(frozen=True)
class Name(Node):
    id: str


@dataclass(frozen=True)
class KeywordArg(Node):
    name: Ident
    value: "Expr"


@dataclass(frozen=True)
class Call(Node):
    func: "Expr"
    args: tuple["Expr", ...]
    kwargs: tuple[KeywordArg, ...] = ()


@dataclass(frozen=True)
class Field(Node):
    obj: "Expr"
    name: Ident


@dataclass(frozen=True)
class Index(Node):
    obj: "Expr"
    index: "Expr"


@dataclass(frozen=True)
class Unary(Node):
    op: str  # "-" or "+"
    operand: "Expr"


@dataclass(frozen=True)
class Binary(Node):
    op: str  # + - * /
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Compare(Node):
    op: str  # == != < <= > >=
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class In(Node):
    element: "Expr"
    collection: "Expr"
    negated: bool = False


@dataclass(frozen=True)
class BoolOp(Node):
    op: str  # "and" or "or"
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Not(Node):
    operand: "Expr"


@dataclass(frozen=True)
class Range(Node):
    """`lo..hi`, both ends included; `hi` is None for an open range (table keys only)."""

    lo: "Expr"
    hi: Union["Expr", None]


@dataclass(frozen=True)
class If(Node):
    cond: "Expr"
    then: "Expr"
    else_: "Expr"


@dataclass(frozen=True)
class Lambda(Node):
    param: Ident
    body: "Expr"


@dataclass(frozen=True)
class ListLit(Node):
    items: tuple["Expr", ...]


@dataclass(frozen=True)
class SetLit(Node):
    items: tuple["Expr", ...]


@dataclass(frozen=True)
class RecordLit(Node):
    fields: tuple[tuple[Ident, "Expr"], ...]


@dataclass(frozen=True)
class ForClause(Node):
    var: Ident
    iterable: "Expr"
    condition: Union["Expr", None] = None


@dataclass(frozen=True)
class Comprehension(Node):
    """`[e for x in s where c]`, `{...}`, or a generator argument of an aggregate call."""

    kind: str  # "list", "set" or "gen"
    element: "Expr"
    clauses: tuple[ForClause, ...]


@dataclass(frozen=True)
class BestOf(Node):
    """`best k of xs` / `worst k of xs`: the k largest (smallest) values, largest first."""

    kind: str
    count: "Expr"
    collection: "Expr"


@dataclass(frozen=True)
class Explain(Node):
    """`explain(call)`: a modifier list's terms, or a formula's parts, as one line of text."""

    expr: "Expr"


Expr = Union[
    IntLit, DecimalLit, StringLit, BoolLit, NoneLit, DiceLit, Name, Call, Field, Index, Unary,
    Binary, Compare, In, BoolOp, Not, Range, If, Lambda, ListLit, SetLit, RecordLit,
    Comprehension, BestOf, Explain,
]


# ------------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class Let(Node):
    name: Ident
    value: Expr


@dataclass(frozen=True)
class Choose(Node):
    """`let x = choose one of S by p "prompt"`: a decision asked of a player's agent."""

    name: Ident
    mode: str  # "one", "exactly" or "up_to"
    count: Union[Expr, None]
    options: Expr
    player: Expr
    prompt: Union[StringLit, None]


@dataclass(frozen=True)
class Require(Node):
    cond: Expr
    message: Union[Expr, None]  # a text


@dataclass(frozen=True)
class IfStmt(Node):
    branches: tuple[tuple[Expr, "Block"], ...]
    else_block: Union["Block", None]


@dataclass(frozen=True)
class ForStmt(Node):
    var: Ident
    iterable: Expr
    condition: Union[Expr, None]
    body: "Block"


@dataclass(frozen=True)
class ChangeEffect(Node):
    target: Expr
    amount: Expr


@dataclass(frozen=True)
class SetEffect(Node):
    target: Expr
    value: Expr


@dataclass(frozen=True)
class AddEffect(Node):
    count: Expr
    unit_type: Name
    space: Expr
    owner: Union[Expr, None]


@dataclass(frozen=True)
class RemoveEffect(Node):
    units: Expr


@dataclass(frozen=True)
class MoveEffect(Node):
    units: Expr
    to: Expr


@dataclass(frozen=True)
class LogEffect(Node):
    message: Expr  # a text


@dataclass(frozen=True)
class WinEffect(Node):
    winner: Expr
    reason: Union[StringLit, None]


@dataclass(frozen=True)
class RunEffect(Node):
    name: Ident


@dataclass(frozen=True)
class HitEffect(Node):
    """`hit N of UNITS by PLAYER [now]`: N hits on those units, the casualties chosen by PLAYER.

    Casualties leave at the end of the battle round, or at once with `now`."""

    count: Expr
    units: Expr
    chooser: Expr
    now: bool


@dataclass(frozen=True)
class SubmergeEffect(Node):
    units: Expr


@dataclass(frozen=True)
class RetreatEffect(Node):
    to: Expr


Stmt = Union[Let, Choose, Require, IfStmt, ForStmt, ChangeEffect, SetEffect, AddEffect,
             RemoveEffect, MoveEffect, LogEffect, WinEffect, RunEffect, HitEffect, SubmergeEffect, RetreatEffect]


@dataclass(frozen=True)
class Block(Node):
    stmts: tuple[Stmt, ...]


# ----------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Decl(Node):
    """A named definition. `kind` is the word a user writes (`formula`, `table`, ...)."""

    name: Ident

    kind = "declaration"


@dataclass(frozen=True)
class PlayerDecl(Decl):
    kind = "player"


@dataclass(frozen=True)
class SideDecl(Decl):
    members: tuple[Ident, ...]
    kind = "side"


@dataclass(frozen=True)
class EnumDecl(Decl):
    members: tuple[Ident, ...]
    kind = "enum"


@dataclass(frozen=True)
class TypeDecl(Decl):
    type: TypeExpr
    kind = "type"


@dataclass(frozen=True)
class AttributeDecl(Decl):
    """A unit-type attribute (`attribute attack: int`), or a space attribute read from maps."""

    type: TypeExpr
    default: Union[Expr, None]
    on_spaces: bool = False
    kind = "attribute"


@dataclass(frozen=True)
class TagDecl(Decl):
    kind = "tag"


@dataclass(frozen=True)
class UnitDecl(Decl):
    title: Union[str, None]
    attributes: tuple[tuple[Ident, Expr], ...]
    tags: Union[tuple[Ident, ...], None]
    kind = "unit"


@dataclass(frozen=True)
class OptionDecl(Decl):
    type: TypeExpr
    default: Expr
    description: Union[str, None]
    kind = "option"


@dataclass(frozen=True)
class ConstantDecl(Decl):
    type: Union[TypeExpr, None]
    value: Expr
    kind = "constant"


@dataclass(frozen=True)
class FactDecl(Decl):
    type: TypeExpr
    default: Union[Expr, None]
    kind = "fact"


@dataclass(frozen=True)
class CounterDecl(Decl):
    params: tuple[Param, ...]
    type: TypeExpr
    default: Union[Expr, None]
    kind = "counter"


@dataclass(frozen=True)
class TableRow(Node):
    keys: tuple[Expr, ...]
    values: tuple[Expr, ...]


@dataclass(frozen=True)
class TableDecl(Decl):
    """A keyed table; with `columns` each row is a record, otherwise a single value."""

    params: tuple[Param, ...]
    columns: Union[tuple[Param, ...], None]
    result: Union[TypeExpr, None]
    rows: tuple[TableRow, ...]
    kind = "table"


@dataclass(frozen=True)
class DieTableDecl(Decl):
    dice: DiceLit
    result: TypeExpr
    rows: tuple[TableRow, ...]
    kind = "die table"


@dataclass(frozen=True)
class FormulaDecl(Decl):
    params: Union[tuple[Param, ...], None]  # None: written without parentheses
    result: Union[TypeExpr, None]
    lets: tuple[Let, ...]
    body: Expr
    kind = "formula"


@dataclass(frozen=True)
class ModTerm(Node):
    sign: str
    value: Expr
    condition: Union[Expr, None]
    reason: StringLit


@dataclass(frozen=True)
class ModifiersDecl(Decl):
    params: Union[tuple[Param, ...], None]
    result: Union[TypeExpr, None]
    items: tuple[Union[Let, ModTerm], ...]
    kind = "modifiers"


@dataclass(frozen=True)
class RuntimeProcedure(Node):
    name: Ident
    config: Union[RecordLit, None]


@dataclass(frozen=True)
class CustomProcedure(Node):
    body: Block


Procedure = Union[RuntimeProcedure, CustomProcedure]


@dataclass(frozen=True)
class PhaseDecl(Decl):
    procedure: Procedure
    kind = "phase"


@dataclass(frozen=True)
class StepDecl(Decl):
    procedure: Procedure
    kind = "step"


@dataclass(frozen=True)
class SequenceDecl(Decl):
    items: tuple[Ident, ...]
    kind = "sequence"


@dataclass(frozen=True)
class HookTarget(Node):
    phase: Ident
    step: Union[Ident, None]

    @property
    def text(self) -> str:
        return self.phase.text + (f".{self.step.text}" if self.step else "")


@dataclass(frozen=True)
class HookDecl(Decl):
    when: str  # "before", "after" or "instead of"
    target: HookTarget
    players: Union[Expr, None]
    condition: Union[Expr, None]
    body: Block
    kind = "hook"


@dataclass(frozen=True)
class ConstraintDecl(Decl):
    action: Ident
    params: tuple[Ident, ...]
    body: Block
    kind = "constraint"


@dataclass(frozen=True)
class CheckDecl(Decl):
    """`check [warning] "title": cond` or a block of `require` lines."""

    severity: str
    title: str
    expr: Union[Expr, None]
    body: Union[Block, None]
    kind = "check"


@dataclass(frozen=True)
class AdviceDecl(Decl):
    """`advice proc.var [(estimates)] = expr`: the answer bots give the decision `proc.var`;
    `advice NAME(params) = expr`: a value bots build their estimates from.

    `name`'s text is the target (`proc.var` or NAME); the parameters are what the bot passes
    (lang/check/advice.py lists them); `lets` and `body` are read as a formula's."""

    target: HookTarget
    params: Union[tuple[Param, ...], None]
    lets: tuple[Let, ...]
    body: Expr
    kind = "advice"


@dataclass(frozen=True)
class TestScenario(Node):
    ref: "RefLit"
    changes: Union[RecordLit, None]


@dataclass(frozen=True)
class TestOption(Node):
    name: Ident
    value: Expr


@dataclass(frozen=True)
class TestAnswer(Node):
    target: HookTarget
    value: Expr


@dataclass(frozen=True)
class TestSeed(Node):
    seed: int


@dataclass(frozen=True)
class TestFact(Node):
    name: Ident
    value: Expr


@dataclass(frozen=True)
class TestBattle(Node):
    """`battle at SPACE by PLAYER [from SEA_ZONE]`: the following `run` lines run battle steps in
    that battle; with `from`, an amphibious assault from that sea zone."""

    space: Expr
    attacker: Expr
    sea_zone: Union[Expr, None] = None


@dataclass(frozen=True)
class TestNextRound(Node):
    pass


@dataclass(frozen=True)
class TestRun(Node):
    phase: Ident
    player: Union[Expr, None]


@dataclass(frozen=True)
class Expect(Node):
    expr: Expr


@dataclass(frozen=True)
class ExpectError(Node):
    """`expect error "E502" from EXPR` or `... from run PHASE [for PLAYER]`."""

    pattern: str
    expr: Union[Expr, "TestRun"]


@dataclass(frozen=True)
class ExpectAction(Node):
    """`expect allowed place(p, t, units)` / `expect refused ... "message part"`: constraints at work.
    `do move(p, units, path)` is an ExpectAction with `apply` true: allowed, and then made."""

    action: Ident
    args: tuple[Expr, ...]
    allowed: bool
    pattern: Union[str, None]
    apply: bool = False


@dataclass(frozen=True)
class TestConstraintsOnly(Node):
    """`constraints only`: the test's moves are asked of the declared constraints, not the movement engine."""


TestLine = Union[TestScenario, TestOption, TestAnswer, TestSeed, TestFact, TestBattle, TestNextRound, Let, TestRun,
                 Expect, ExpectError, ExpectAction, TestConstraintsOnly]


@dataclass(frozen=True)
class TestDecl(Decl):
    title: str
    lines: tuple[TestLine, ...]
    kind = "test"


@dataclass(frozen=True)
class Override(Node):
    decl: Decl


@dataclass(frozen=True)
class Remove(Node):
    name: Ident


TopLevel = Union[Decl, Override, Remove]


# ---------------------------------------------------------------------------------- module


@dataclass(frozen=True)
class RefLit(Node):
    """A ruleset reference as written: `family/name@N`, `family/name`, or a quoted path."""

    text: str
    is_path: bool


@dataclass(frozen=True)
class Header(Node):
    ref: RefLit
    title: Union[str, None]
    source_note: Union[str, None]
    change_note: Union[str, None]
    revises: Union[RefLit, None]
    uses: tuple[RefLit, ...]
    map: Union[StringLit, None]


@dataclass(frozen=True)
class Module(Node):
    header: Header
    items: tuple[TopLevel, ...]


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """The fields of node class `cls` in order, without its span (looked up once per class: the
    checker walks the tree many times, and `dataclasses.fields` is slow)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls) if f.name != "span")
    return names


def children(node: Node):
    """Yield the direct child nodes of `node` (through tuples), in field order."""
    for name in field_names(type(node)):
        value = getattr(node, name)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, tuple):
            yield from _nodes_in(value)


def _nodes_in(value):
    if isinstance(value, Node):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _nodes_in(item)


def walk(node: Node):
    """Yield `node` and every node below it, depth first."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(children(current))))


def dump(node) -> str:
    """A one-line S-expression of a node, without spans (parse-shape tests compare these)."""
    if isinstance(node, Node):
        parts = [type(node).__name__]
        for f in fields(node):
            if f.name == "span":
                continue
            parts.append(dump(getattr(node, f.name)))
        return "(" + " ".join(parts) + ")"
    if isinstance(node, tuple):
        return "[" + " ".join(dump(x) for x in node) + "]"
    if isinstance(node, str):
        return repr(node)
    if node is None:
        return "-"
    return str(node)
