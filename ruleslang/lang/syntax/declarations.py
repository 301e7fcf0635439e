"""Declaration nodes (with the type expressions they write), overrides, and the module: a file's
header and its items."""

from __future__ import annotations

from typing import Union

from ruleslang.lang.syntax.ast import Ident, Node, give_inits, node
from ruleslang.lang.syntax.expressions import DiceLit, Expr, RecordLit, StringLit
from ruleslang.lang.syntax.statements import Block, Let

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


give_inits(globals())
