"""The abstract syntax tree: frozen dataclasses, every node with its span.

Nothing here knows lark. Spans are excluded from equality, so two nodes compare equal when they
say the same thing wherever they are written (the semantic diff relies on this).
"""

from __future__ import annotations

from dataclasses import MISSING, FrozenInstanceError, dataclass, field, fields
from fractions import Fraction
from typing import Union

from ruleslang.base.source import Span


# Every node class is a dataclass whose equality, hash and repr are Node's own (one copy for all,
# where the dataclass decorator would generate three functions per class: importing this module,
# which every command does, is a third as long). They read the same fields the generated ones
# would: every field but the span, so two nodes are equal when they say the same thing wherever
# they are written. Nodes are frozen as a frozen dataclass is (Node's __setattr__ and __delattr__
# refuse), and their __init__s, the ones `dataclass` would write, are made for all the classes at
# once at the end of the module (`_give_inits`): per class, as the decorator makes them, they were
# most of the time every command spends importing the AST.
_node_class = dataclass(init=False, eq=False, repr=False)


def node(cls: type) -> type:
    """Make `cls` a node class (a dataclass as above). A class without a docstring gets a plain one:
    `dataclass` would write one from the class's signature, through `inspect`, which cost more
    than everything else it does for a node class."""
    if cls.__doc__ is None:
        cls.__doc__ = f"A {cls.__name__} node."
    return _node_class(cls)


@node
class Node:
    span: Span = field(kw_only=True, repr=False)

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in field_names(self.__class__))

    def __hash__(self):
        return hash((self.__class__.__name__, *[getattr(self, n) for n in field_names(self.__class__)]))

    def __repr__(self):
        return f"{self.__class__.__name__}(" + ", ".join(
            f"{n}={getattr(self, n)!r}" for n in field_names(self.__class__)) + ")"


@node
class Ident(Node):
    """A name as written, with its own span (declaration names, parameters, fields)."""

    text: str


# ------------------------------------------------------------------------------------ types


@node
class NamedType(Node):
    name: str


@node
class OptionalType(Node):
    name: str


@node
class SetType(Node):
    element: "TypeExpr"


@node
class ListType(Node):
    element: "TypeExpr"


@node
class RecordType(Node):
    fields: tuple[tuple[Ident, "TypeExpr"], ...]


TypeExpr = Union[NamedType, OptionalType, SetType, ListType, RecordType]


@node
class Param(Node):
    name: Ident
    type: TypeExpr


# ------------------------------------------------------------------------------ expressions


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


# ------------------------------------------------------------------------------- statements


@node
class Let(Node):
    name: Ident
    value: Expr


@node
class Choose(Node):
    """`let x = choose one of S by p "prompt"`: a decision asked of a player's agent."""

    name: Ident
    mode: str  # "one", "exactly" or "up_to"
    count: Union[Expr, None]
    options: Expr
    player: Expr
    prompt: Union[StringLit, None]


@node
class Require(Node):
    cond: Expr
    message: Union[Expr, None]  # a text


@node
class IfStmt(Node):
    branches: tuple[tuple[Expr, "Block"], ...]
    else_block: Union["Block", None]


@node
class ForStmt(Node):
    var: Ident
    iterable: Expr
    condition: Union[Expr, None]
    body: "Block"


@node
class ChangeEffect(Node):
    target: Expr
    amount: Expr


@node
class SetEffect(Node):
    target: Expr
    value: Expr


@node
class AddEffect(Node):
    count: Expr
    unit_type: Name
    space: Expr
    owner: Union[Expr, None]


@node
class RemoveEffect(Node):
    units: Expr


@node
class MoveEffect(Node):
    units: Expr
    to: Expr


@node
class LogEffect(Node):
    message: Expr  # a text


@node
class WinEffect(Node):
    winner: Expr
    reason: Union[StringLit, None]


@node
class RunEffect(Node):
    name: Ident


@node
class HitEffect(Node):
    """`hit N of UNITS by PLAYER [now]`: N hits on those units, the casualties chosen by PLAYER.

    Casualties leave at the end of the battle round, or at once with `now`."""

    count: Expr
    units: Expr
    chooser: Expr
    now: bool


@node
class SubmergeEffect(Node):
    units: Expr


@node
class RetreatEffect(Node):
    to: Expr


Stmt = Union[Let, Choose, Require, IfStmt, ForStmt, ChangeEffect, SetEffect, AddEffect,
             RemoveEffect, MoveEffect, LogEffect, WinEffect, RunEffect, HitEffect, SubmergeEffect, RetreatEffect]


@node
class Block(Node):
    stmts: tuple[Stmt, ...]


# ----------------------------------------------------------------------------- declarations


@node
class Decl(Node):
    """A named definition. `kind` is the word a user writes (`formula`, `table`, ...)."""

    name: Ident

    kind = "declaration"


@node
class PlayerDecl(Decl):
    kind = "player"


@node
class SideDecl(Decl):
    members: tuple[Ident, ...]
    kind = "side"


@node
class EnumDecl(Decl):
    members: tuple[Ident, ...]
    kind = "enum"


@node
class TypeDecl(Decl):
    type: TypeExpr
    kind = "type"


@node
class AttributeDecl(Decl):
    """A unit-type attribute (`attribute attack: int`), or a space attribute read from maps."""

    type: TypeExpr
    default: Union[Expr, None]
    on_spaces: bool = False
    kind = "attribute"


@node
class TagDecl(Decl):
    kind = "tag"


@node
class UnitDecl(Decl):
    title: Union[str, None]
    attributes: tuple[tuple[Ident, Expr], ...]
    tags: Union[tuple[Ident, ...], None]
    kind = "unit"


@node
class OptionDecl(Decl):
    type: TypeExpr
    default: Expr
    description: Union[str, None]
    kind = "option"


@node
class ConstantDecl(Decl):
    type: Union[TypeExpr, None]
    value: Expr
    kind = "constant"


@node
class FactDecl(Decl):
    type: TypeExpr
    default: Union[Expr, None]
    kind = "fact"


@node
class CounterDecl(Decl):
    params: tuple[Param, ...]
    type: TypeExpr
    default: Union[Expr, None]
    kind = "counter"


@node
class TableRow(Node):
    keys: tuple[Expr, ...]
    values: tuple[Expr, ...]


@node
class TableDecl(Decl):
    """A keyed table; with `columns` each row is a record, otherwise a single value."""

    params: tuple[Param, ...]
    columns: Union[tuple[Param, ...], None]
    result: Union[TypeExpr, None]
    rows: tuple[TableRow, ...]
    kind = "table"


@node
class DieTableDecl(Decl):
    dice: DiceLit
    result: TypeExpr
    rows: tuple[TableRow, ...]
    kind = "die table"


@node
class FormulaDecl(Decl):
    params: Union[tuple[Param, ...], None]  # None: written without parentheses
    result: Union[TypeExpr, None]
    lets: tuple[Let, ...]
    body: Expr
    kind = "formula"


@node
class ModTerm(Node):
    sign: str
    value: Expr
    condition: Union[Expr, None]
    reason: StringLit


@node
class ModifiersDecl(Decl):
    params: Union[tuple[Param, ...], None]
    result: Union[TypeExpr, None]
    items: tuple[Union[Let, ModTerm], ...]
    kind = "modifiers"


@node
class RuntimeProcedure(Node):
    name: Ident
    config: Union[RecordLit, None]


@node
class CustomProcedure(Node):
    body: Block


Procedure = Union[RuntimeProcedure, CustomProcedure]


@node
class PhaseDecl(Decl):
    procedure: Procedure
    kind = "phase"


@node
class StepDecl(Decl):
    procedure: Procedure
    kind = "step"


@node
class SequenceDecl(Decl):
    items: tuple[Ident, ...]
    kind = "sequence"


@node
class HookTarget(Node):
    phase: Ident
    step: Union[Ident, None]

    @property
    def text(self) -> str:
        return self.phase.text + (f".{self.step.text}" if self.step else "")


@node
class HookDecl(Decl):
    when: str  # "before", "after" or "instead of"
    target: HookTarget
    players: Union[Expr, None]
    condition: Union[Expr, None]
    body: Block
    kind = "hook"


@node
class ConstraintDecl(Decl):
    action: Ident
    params: tuple[Ident, ...]
    body: Block
    kind = "constraint"


@node
class CheckDecl(Decl):
    """`check [warning] "title": cond` or a block of `require` lines."""

    severity: str
    title: str
    expr: Union[Expr, None]
    body: Union[Block, None]
    kind = "check"


@node
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


@node
class TestScenario(Node):
    ref: "RefLit"
    changes: Union[RecordLit, None]


@node
class TestOption(Node):
    name: Ident
    value: Expr


@node
class TestAnswer(Node):
    target: HookTarget
    value: Expr


@node
class TestSeed(Node):
    seed: int


@node
class TestFact(Node):
    name: Ident
    value: Expr


@node
class TestBattle(Node):
    """`battle at SPACE by PLAYER [from SEA_ZONE]`: the following `run` lines run battle steps in
    that battle; with `from`, an amphibious assault from that sea zone."""

    space: Expr
    attacker: Expr
    sea_zone: Union[Expr, None] = None


@node
class TestNextRound(Node):
    pass


@node
class TestRun(Node):
    phase: Ident
    player: Union[Expr, None]


@node
class Expect(Node):
    expr: Expr


@node
class ExpectError(Node):
    """`expect error "E502" from EXPR` or `... from run PHASE [for PLAYER]`."""

    pattern: str
    expr: Union[Expr, "TestRun"]


@node
class ExpectAction(Node):
    """`expect allowed place(p, t, units)` / `expect refused ... "message part"`: constraints at work.
    `do move(p, units, path)` is an ExpectAction with `apply` true: allowed, and then made."""

    action: Ident
    args: tuple[Expr, ...]
    allowed: bool
    pattern: Union[str, None]
    apply: bool = False


@node
class TestConstraintsOnly(Node):
    """`constraints only`: the test's moves are asked of the declared constraints, not the movement engine."""


TestLine = Union[TestScenario, TestOption, TestAnswer, TestSeed, TestFact, TestBattle, TestNextRound, Let, TestRun,
                 Expect, ExpectError, ExpectAction, TestConstraintsOnly]


@node
class TestDecl(Decl):
    title: str
    lines: tuple[TestLine, ...]
    kind = "test"


@node
class Override(Node):
    decl: Decl


@node
class Remove(Node):
    name: Ident


TopLevel = Union[Decl, Override, Remove]


# ---------------------------------------------------------------------------------- module


@node
class RefLit(Node):
    """A ruleset reference as written: `family/name@N`, `family/name`, or a quoted path."""

    text: str
    is_path: bool


@node
class Header(Node):
    ref: RefLit
    title: Union[str, None]
    source_note: Union[str, None]
    change_note: Union[str, None]
    revises: Union[RefLit, None]
    uses: tuple[RefLit, ...]
    map: Union[StringLit, None]


@node
class Module(Node):
    header: Header
    items: tuple[TopLevel, ...]


def _give_inits(classes: list[type]) -> None:
    """Give each node class the __init__ a frozen dataclass would have (its fields in order, the
    keyword-only ones after `*`, defaults as declared), compiled together in one piece of code."""
    env: dict = {"_set": object.__setattr__}
    code = []
    for cls in classes:
        params, keywords, body = [], [], []
        for f in fields(cls):
            param = f.name
            if f.default is not MISSING:
                env[f"_{cls.__name__}_{f.name}"] = f.default
                param += f"=_{cls.__name__}_{f.name}"
            elif f.default_factory is not MISSING:
                raise TypeError(f"{cls.__name__}.{f.name}: a node field takes a default value, not a factory")
            (keywords if f.kw_only else params).append(param)
            body.append(f"    _set(self, {f.name!r}, {f.name})")
        signature = ", ".join(["self", *params, *(["*", *keywords] if keywords else [])])
        code.append(f"def _init_{cls.__name__}({signature}):\n" + "\n".join(body or ["    pass"]))
    exec("\n".join(code), env)
    for cls in classes:
        init = env[f"_init_{cls.__name__}"]
        init.__qualname__ = f"{cls.__qualname__}.__init__"
        type.__setattr__(cls, "__init__", init)


_give_inits([c for c in list(globals().values()) if isinstance(c, type) and issubclass(c, Node)])


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
    return iter(_children(node))


def _children(node: Node) -> list[Node]:
    """The direct child nodes of `node` as a list (the walks of the checker: no generator per node)."""
    out: list[Node] = []
    for name in field_names(type(node)):
        value = getattr(node, name)
        if isinstance(value, Node):
            out.append(value)
        elif isinstance(value, tuple) and value:
            _collect(value, out)
    return out


def _collect(items: tuple, out: list) -> None:
    for item in items:
        if isinstance(item, Node):
            out.append(item)
        elif isinstance(item, tuple):
            _collect(item, out)


def walk(node: Node):
    """Yield `node` and every node below it, depth first."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        below = _children(current)
        if below:
            below.reverse()
            stack.extend(below)


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
