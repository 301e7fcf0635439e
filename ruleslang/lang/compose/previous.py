"""`previous`: an override calling the definition it replaces.

In an override of a formula, modifier list, table, die table or constant, the name `previous`
means the definition being replaced (`previous(u)`, or `previous` for a constant); in an override
of a phase, step or hook, `run previous` runs the replaced body (a replaced hook's only where it
would have run: for its players, when its condition holds; it no longer fires by itself); in an
override of a constraint, `run previous` checks the replaced constraint's requires too, with the
same values of the action (it no longer guards the action by itself). The composer files the replaced
definition under a name no ruleset can write, `NAME@ORIGIN` (`cost@family/name@1`), and the
override's `previous` is renamed to it; from there on it is an ordinary definition: checked like
any call (arity, types), compiled, explained and shown by `diff` under that name.
"""

from __future__ import annotations

from dataclasses import fields, replace

from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import Name
from ruleslang.lang.syntax.statements import RunEffect
from ruleslang.lang.syntax.declarations import (ConstantDecl, ConstraintDecl, Decl, DieTableDecl, FormulaDecl,
                                                HookDecl, ModifiersDecl, PhaseDecl, StepDecl, TableDecl)

PREVIOUS = "previous"

# The kinds whose override may name what it replaces: value definitions (called, or read as a
# name) and phases, steps, hooks and constraints (run).
_VALUE_KINDS = (FormulaDecl, ModifiersDecl, TableDecl, DieTableDecl, ConstantDecl)
_RUN_KINDS = (PhaseDecl, StepDecl, HookDecl, ConstraintDecl)


def previous_uses(decl: Decl) -> list[ast.Node]:
    """The places where `decl` names `previous` (a name, or the target of a `run`)."""
    found = []
    for node in ast.walk(decl):
        if isinstance(node, Name) and node.id == PREVIOUS:
            found.append(node)
        elif isinstance(node, RunEffect) and node.name.text == PREVIOUS:
            found.append(node.name)
    return found


def may_name_previous(decl: Decl) -> bool:
    """Whether an override of this kind may name `previous` as it does (a constraint only runs it:
    it has no value to read)."""
    if isinstance(decl, ConstraintDecl):
        return not any(isinstance(node, Name) and node.id == PREVIOUS for node in ast.walk(decl))
    return isinstance(decl, _VALUE_KINDS + _RUN_KINDS)


def hidden_name(name: str, origin: str) -> str:
    """The name the replaced definition is filed under (`NAME@ORIGIN`: not a name a ruleset can write)."""
    return f"{name}@{origin}"


def is_hidden_name(name: str) -> bool:
    """Whether `name` is a replaced definition kept for `previous` (not one a ruleset wrote)."""
    return "@" in name


def renamed(decl: Decl, name: str) -> Decl:
    """`decl` under another name (its spans kept: problems in it point at its own file)."""
    return replace(decl, name=replace(decl.name, text=name))


def with_previous(decl: Decl, target: str) -> Decl:
    """`decl` with every `previous` (a name, a `run` target) renamed to `target`."""
    return _rewrite(decl, PREVIOUS, target)


def extended(decl: Decl, names) -> tuple[Decl, str | None]:
    """`decl` as its author wrote it (a hidden name it uses written `previous` again), and the
    hidden name it extends (None when it names no `previous`)."""
    for node in ast.walk(decl):
        name = node.id if isinstance(node, Name) else node.name.text if isinstance(node, RunEffect) else None
        if name is not None and is_hidden_name(name) and name in names:
            return _rewrite(decl, name, PREVIOUS), name
    return decl, None


def _rewrite(node, old: str, new: str):
    if isinstance(node, tuple):
        items = tuple(_rewrite(item, old, new) for item in node)
        return items if any(a is not b for a, b in zip(items, node)) else node
    if not isinstance(node, ast.Node):
        return node
    if isinstance(node, Name) and node.id == old:
        return replace(node, id=new)
    if isinstance(node, RunEffect) and node.name.text == old:
        return replace(node, name=replace(node.name, text=new))
    changes = {}
    for f in fields(node):
        if f.name == "span":
            continue
        value = getattr(node, f.name)
        changed = _rewrite(value, old, new)
        if changed is not value:
            changes[f.name] = changed
    return replace(node, **changes) if changes else node
