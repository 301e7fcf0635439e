"""The transform's statements: blocks, `let`, `choose`, `require`, `if` and `for`, and the effects
(`change`, `set`, `add`, `remove`, `move`, `log`, `win`, `hit`, `submerge`, `retreat`, `run`).
"""

from __future__ import annotations

from lark import Token, v_args

from ruleslang.lang.syntax.expressions import Name
from ruleslang.lang.syntax.statements import (AddEffect, Block, ChangeEffect, Choose, ForStmt, HitEffect, IfStmt, Let,
                                              LogEffect, MoveEffect, RemoveEffect, Require, RetreatEffect, RunEffect,
                                              SetEffect, SubmergeEffect, WinEffect)
from ruleslang.lang.syntax.transform_tokens import TokenTransform


@v_args(meta=True)
class StatementTransform(TokenTransform):
    """The grammar rules of statements and effects, mixed into `transform.ToAst`."""

    def block(self, meta, children):
        return Block(tuple(children), span=self._span(meta))

    def let_line(self, meta, children):
        name, value = children
        return Let(self._ident(name), value, span=self._span(meta))

    def choose_count(self, meta, children):
        words = [c for c in children if isinstance(c, Token) and c.type != "NAME"]
        exprs = [c for c in children if not isinstance(c, Token)]
        if words and str(words[0]) == "one":
            return ("one", None)
        if words and str(words[0]) == "up":
            return ("up_to", exprs[0])
        return ("exactly", exprs[0])

    def choose_stmt(self, meta, children):
        name, (mode, count), options, player, prompt = children
        return Choose(self._ident(name), mode, count, options, player,
                      self._string(prompt) if prompt is not None else None, span=self._span(meta))

    def require_stmt(self, meta, children):
        cond, message = (children + [None])[:2]
        return Require(cond, message, span=self._span(meta))

    def if_stmt(self, meta, children):
        cond, block, *rest = children
        branches = [(cond, block)]
        else_block = None
        for item in rest:
            if item is None:
                continue
            if item[0] == "elif":
                branches.append((item[1], item[2]))
            else:
                else_block = item[1]
        return IfStmt(tuple(branches), else_block, span=self._span(meta))

    def elif_clause(self, meta, children):
        return ("elif", children[0], children[1])

    def else_clause(self, meta, children):
        return ("else", children[0])

    def for_stmt(self, meta, children):
        var, iterable, cond, body = children
        return ForStmt(self._ident(var), iterable, cond, body, span=self._span(meta))

    def change_effect(self, meta, children):
        return ChangeEffect(children[0], children[1], span=self._span(meta))

    def set_effect(self, meta, children):
        return SetEffect(children[0], children[1], span=self._span(meta))

    def add_effect(self, meta, children):
        count, type_tok, space, owner = children
        name = Name(str(type_tok), span=self._tok_span(type_tok))
        return AddEffect(count, name, space, owner, span=self._span(meta))

    def remove_effect(self, meta, children):
        return RemoveEffect(children[0], span=self._span(meta))

    def move_effect(self, meta, children):
        return MoveEffect(children[0], children[1], span=self._span(meta))

    def log_effect(self, meta, children):
        return LogEffect(children[0], span=self._span(meta))

    def win_effect(self, meta, children):
        winner, reason = children
        return WinEffect(winner, self._string(reason) if reason is not None else None, span=self._span(meta))

    def hit_effect(self, meta, children):
        count, units, chooser, now = children
        return HitEffect(count, units, chooser, now is not None, span=self._span(meta))

    def submerge_effect(self, meta, children):
        return SubmergeEffect(children[0], span=self._span(meta))

    def retreat_effect(self, meta, children):
        return RetreatEffect(children[0], span=self._span(meta))

    def run_effect(self, meta, children):
        return RunEffect(self._ident(children[0]), span=self._span(meta))
