"""How a built-in function is declared: its entry, and the type-rule helpers the built-in modules share.

Each built-in module (`core`, `board`, `battle`) fills its own table with `registrar(table)`;
`registry` assembles them into the one table the checker and the compilers read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ruleslang.lang.syntax.expressions import Call
from ruleslang.lang import types as T
from ruleslang.base.errors import EvalError
from ruleslang.lang.values import LSet


@dataclass(frozen=True)
class Builtin:
    """A built-in function: its type rule, its implementation and its one-line documentation."""

    name: str
    check: Callable  # (checker, call) -> Type
    impl: Callable  # (ctx, *args, **kwargs) -> value
    doc: str
    board: bool = False  # needs a board (a map and a position)
    kwargs: tuple[str, ...] = ()


def registrar(table: dict[str, Builtin]) -> Callable:
    """The declaration `builtin(name, doc, ...)((check, impl))` that enters a built-in into `table`."""

    def builtin(name: str, doc: str, *, board: bool = False, kwargs: tuple[str, ...] = ()):
        def wrap(pair):
            if name in table:
                raise AssertionError(f"the built-in {name} is declared twice")
            check, impl = pair
            table[name] = Builtin(name, check, impl, doc, board, kwargs)
            return pair
        return wrap
    return builtin


OPTIONAL_PLAYER = T.OptionalType(T.PLAYER)
SPACES = T.SetType(T.SPACE)
PLAYERS = T.SetType(T.PLAYER)


# ------------------------------------------------------------------------ type-rule helpers


def signature(params, result, *, kw: dict | None = None, min_args: int | None = None):
    """A type rule for fixed parameter types; `kw` maps keyword names to their types."""
    kw = kw or {}
    required = len(params) if min_args is None else min_args

    def check(tc, call: Call) -> T.Type:
        args = call.args
        if not (required <= len(args) <= len(params)):
            want = f"{required}" if required == len(params) else f"{required} to {len(params)}"
            tc.error("T302", f"{tc.callee_name(call)} takes {want} argument(s), found {len(args)}", call.span)
        for node, ptype in zip(args, params):
            tc.expect(node, ptype)
        for extra in args[len(params):]:
            tc.check(extra)
        for k in call.kwargs:
            if k.name.text not in kw:
                allowed = ", ".join(kw) if kw else "none"
                tc.error("T303", f"{tc.callee_name(call)} has no argument named '{k.name.text}'", k.name.span,
                         hint=f"named arguments: {allowed}")
                tc.check(k.value)
            else:
                tc.expect(k.value, kw[k.name.text])
        return result(tc, call) if callable(result) else result

    return check


def no_kwargs(tc, call: Call) -> None:
    """Report (T303) each named argument of a call to a built-in that takes none."""
    for k in call.kwargs:
        tc.error("T303", f"{tc.callee_name(call)} takes no named arguments", k.name.span)
        tc.check(k.value)


# ------------------------------------------------------------------------ implementation helpers


def need(value, what: str):
    """`value`, which must not be none (E504 names `what`)."""
    if value is None:
        raise EvalError("E504", f"{what} is none here")
    return value


def elements(c):
    """The values of a set or list, in order."""
    return c.items if isinstance(c, LSet) else c
