"""Checker stage for overrides: an override keeps the parameters and the result type of what it replaces."""

from __future__ import annotations

from ruleslang.base.diagnostics import Related
from ruleslang.lang import types as T
from ruleslang.lang.check.state import CheckState
from ruleslang.lang.check.typecheck import CheckInfo, Frame, TypeChecker
from ruleslang.lang.syntax.declarations import (ConstantDecl, CounterDecl, DieTableDecl, FormulaDecl, ModifiersDecl,
                                                TableDecl)


def check(state: CheckState) -> None:
    """An override keeps the parameters of what it replaces (callers rely on them) and gives a result they can use."""
    for name, d in state.ruleset.definitions.items():
        if d.decl is None or d.previous is None or d.previous.decl is None or d.origin == d.previous.origin:
            continue
        old, new = d.previous.decl, d.decl
        old_params = _param_types(state, old)
        new_params = _param_types(state, new)
        if old_params is None or new_params is None:
            continue
        related = [Related(old.name.span, f"{d.previous.origin} defines {name} here")]
        if len(old_params) != len(new_params) or any(a != b for a, b in zip(old_params, new_params)):
            state.error(
                "R206", f"override of {name} changes its parameters from ({_types(old_params)}) "
                        f"to ({_types(new_params)})", new.name.span, related=related,
                hint="an override must take the same parameters; define a new name instead")
            continue
        # Callers written against the old definition use its value; a result they cannot
        # use would otherwise be reported inside their (often shipped) files, not here.
        old_result, new_result = _old_result_type(state, old), _result_type(state, name, new)
        if old_result is not None and new_result is not None and not T.assignable(new_result, old_result):
            state.error(
                "R206", f"override of {name} changes its result type from {_shape(old_result)} to "
                        f"{_shape(new_result)}", new.name.span, related=related,
                hint=f"an override must give a value its callers can use ({_shape(old_result)}); "
                     "define a new name instead")


def _result_type(state: CheckState, name: str, decl) -> T.Type | None:
    """The type of the value a live value definition gives (declared or inferred)."""
    if isinstance(decl, (TableDecl, DieTableDecl)):
        return getattr(state.scope.symbols.get(name), "rows_type", None)
    entry = state.formula_types.get(name)
    return entry[1] if entry is not None else None


def _old_result_type(state: CheckState, decl) -> T.Type | None:
    """The result type a superseded definition declares (None when it leaves it to inference).

    Its types are resolved without reporting: problems in them belong to the older ruleset.
    """
    mark = len(state.diags)
    try:
        if isinstance(decl, ModifiersDecl):
            return state.resolve_type(decl.result) if decl.result is not None else T.INT
        if isinstance(decl, (FormulaDecl, DieTableDecl)):
            return state.resolve_type(decl.result) if decl.result is not None else None
        if isinstance(decl, ConstantDecl) and decl.type is None:
            # a constant's type is its value's: check that value on a scratch checker
            scratch = TypeChecker(state.scope, CheckInfo(), [], state.formula_types)
            scratch.frame = Frame(id(decl), scratch.info)
            return scratch.check(decl.value)
        if isinstance(decl, (CounterDecl, ConstantDecl)):
            return state.resolve_type(decl.type)
        if isinstance(decl, TableDecl):
            if decl.columns is None:
                return state.resolve_type(decl.result)
            return T.RecordType(tuple((c.name.text, state.resolve_type(c.type)) for c in decl.columns))
        return None
    finally:
        del state.diags[mark:]


def _param_types(state: CheckState, decl) -> tuple | None:
    if isinstance(decl, (FormulaDecl, ModifiersDecl)):
        return tuple(state.resolve_type(p.type) for p in decl.params or ())
    if isinstance(decl, (TableDecl, CounterDecl)):
        return tuple(state.resolve_type(p.type) for p in decl.params)
    if isinstance(decl, DieTableDecl):
        return (T.INT,)
    if isinstance(decl, ConstantDecl):
        return ()
    return None


def _types(ts) -> str:
    return ", ".join(str(t) for t in ts)


def _shape(t: T.Type) -> str:
    """A type as its fields when it is a record (two table rows both read "row of t")."""
    return str(T.RecordType(t.fields)) if isinstance(t, T.RecordType) else str(t)
