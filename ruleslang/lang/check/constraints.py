"""Checking constraints: `constraint NAME on ACTION(params):` guards an action of the host, and only checks."""

from __future__ import annotations

from ruleslang.base.suggest import did_you_mean
from ruleslang.lang import types as T
from ruleslang.lang.check.state import CheckState
from ruleslang.lang.check.statements import owner_body
from ruleslang.lang.compose.previous import is_hidden_name
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.statements import (AddEffect, ChangeEffect, Choose, HitEffect, MoveEffect, RemoveEffect,
                                              RetreatEffect, RunEffect, SetEffect, SubmergeEffect, WinEffect)
from ruleslang.lang.syntax.declarations import ConstraintDecl

# statements that change the game or ask players: a constraint may use none of them
_EFFECTS = (ChangeEffect, SetEffect, AddEffect, RemoveEffect, MoveEffect, WinEffect,
            RunEffect, Choose, HitEffect, SubmergeEffect, RetreatEffect)


def constraint(state: CheckState, name: str, decl: ConstraintDecl) -> None:
    """A constraint: it guards an action the host provides, names the action's values, and changes nothing."""
    actions = state.capabilities.actions
    action = actions.get(decl.action.text)
    if not state.capabilities.hosted:
        state.unhosted("an action of a host runtime", f"'{decl.action.text}'", decl.action.span)
        params = [(p, T.ANY) for p in decl.params]
    elif action is None:
        suggestion = did_you_mean(decl.action.text, list(actions), n=3)
        state.error("R201", f"'{decl.action.text}' is not an action a constraint can guard", decl.action.span,
                    hint=suggestion or "actions: " + ", ".join(actions))
        params = [(p, T.ANY) for p in decl.params]
    else:
        if len(decl.params) != len(action):
            state.error("T302", f"action {decl.action.text} gives {len(action)} values "
                                f"({', '.join(n for n, _ in action)}); found {len(decl.params)} names",
                        decl.action.span)
        params = [(p, t) for p, (_, t) in zip(decl.params, action)]
    owner_body(state, name, decl, decl.body, params)
    for stmt in ast.walk(decl.body):
        if isinstance(stmt, RunEffect) and is_hidden_name(stmt.name.text):
            _replaced_constraint(state, decl, stmt)  # `run previous`: checks, changes nothing
        elif isinstance(stmt, _EFFECTS):
            state.error("T323", "a constraint only checks; it cannot change the game or ask players",
                        stmt.span)


def _replaced_constraint(state: CheckState, decl: ConstraintDecl, stmt: RunEffect) -> None:
    """`run previous` in a constraint override: the replaced constraint is given this one's values of
    the action, so it must guard the same action (R255 otherwise)."""
    target = state.scope.symbols.get(stmt.name.text)
    if target is None or not isinstance(target.decl, ConstraintDecl):
        return  # not a constraint: the statement checker said so
    if target.decl.action.text != decl.action.text:
        state.error("R255", f"'run previous' runs the replaced constraint on {target.decl.action.text} with the "
                            f"values of {decl.action.text}; an override that runs it must guard the same action",
                    stmt.span)
