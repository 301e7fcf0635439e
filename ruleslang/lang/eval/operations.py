"""The operations compiled rules share, closures and generated code alike.

Arithmetic and comparison held to the number and size limits, the items of a loop (each counted
as a step of the host's budget), errors located at the rule text they came from, and `NO_VALUE`,
the compilers' mark for "no constant known here".
"""

from __future__ import annotations

from fractions import Fraction

from ruleslang.base.errors import EvalError
from ruleslang.base.limits import MAX_COLLECTION, MAX_TEXT
from ruleslang.board.state import BoardError
from ruleslang.lang.values import LSet, bounded_number

# "No value known here": what `folded` gives for an expression that is not a constant, and
# `CompiledProgram.fact_default` for a fact without a default.
NO_VALUE = object()


def located(error: EvalError | BoardError, span) -> EvalError:
    """An error raised while evaluating the rule text at `span`, as an EvalError located there:
    an EvalError that has no place yet gets `span`, a board's refusal (BoardError) becomes E534."""
    if isinstance(error, BoardError):
        return EvalError("E534", str(error), span)
    return error.at(span)


def check_size(n: int, span) -> None:
    """Refuse (E510) a collection of `n` elements when that is more than the limit."""
    if n > MAX_COLLECTION:
        raise EvalError("E510", f"a collection of {n} elements is more than the limit of {MAX_COLLECTION}", span)


def budgeted_items(collection, env, span):
    """The items of a collection about to be looped over, each counted as a step of the budget."""
    items = items_of(collection)
    host = env[0].host
    host.steps -= len(items)
    if host.steps < 0:
        host.out_of_budget(span)
    return items


def items_of(value):
    """The items of a set or list, to loop over (E504 for none)."""
    if isinstance(value, LSet):
        return value.items
    if value is None:
        raise EvalError("E504", "cannot go through none")
    return value


def joined(value, is_text: bool, span):
    """A text or list made by `+`, held to the size limits (doubling a value 40 times is 10^12)."""
    if is_text and len(value) > MAX_TEXT:
        raise EvalError("E510", f"a text of {len(value)} characters is more than the limit of {MAX_TEXT}", span)
    if not is_text and len(value) > MAX_COLLECTION:
        raise EvalError("E510", f"a list of {len(value)} elements is more than the limit of {MAX_COLLECTION}", span)
    return value


def _wrap(op):
    def f(a, b, span):
        try:
            return bounded_number(op(a, b))
        except EvalError as e:
            raise e.at(span)
    return f


def _div(a, b, span):
    if b == 0:
        raise EvalError("E503", "division by zero", span)
    if type(a) is int and type(b) is int:
        if a % b == 0:
            return a // b
        return bounded_number(Fraction(a, b))
    try:
        return bounded_number(Fraction(a) / Fraction(b))
    except EvalError as e:
        raise e.at(span)


# The arithmetic operators as `fn(a, b, span)`: exact, bounded, errors located at `span`.
ARITHMETIC = {
    "+": _wrap(lambda a, b: a + b),
    "-": _wrap(lambda a, b: a - b),
    "*": _wrap(lambda a, b: a * b),
    "/": _div,
}

# The comparison operators as `fn(a, b)`.
COMPARISONS = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}

