"""Statement nodes: the lines of a block (let, choose, require, if, for) and the effects."""

from __future__ import annotations

from typing import Union

from ruleslang.lang.syntax.ast import Ident, Node, give_inits, node
from ruleslang.lang.syntax.expressions import Expr, Name, StringLit


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


give_inits(globals())
