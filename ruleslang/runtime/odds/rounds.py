"""The rounds of a battle as the exact chain follows them: the first, and every later one alike."""

from __future__ import annotations

from ruleslang.base.errors import EvalError


class LateRound(int):
    """The round number of every round after the first: it equals no number but is greater than
    1; a rule that asks more of it (is it the third round?) cannot be followed (E546)."""

    def __new__(cls):
        return super().__new__(cls, 2)

    def _settled(self, other, answer: bool | None, what: str) -> bool:
        if answer is None or not isinstance(other, int):
            raise EvalError("E546", f"the exact battle chain takes the rounds after the first as alike; "
                                    f"a rule asks whether the round {what} {other}",
                            hint="estimate by sampling the real battle instead (ruleslang odds --sample N)")
        return answer

    def __eq__(self, other):
        return self._settled(other, False if isinstance(other, int) and other < 2 else None, "is")

    def __ne__(self, other):
        return not self.__eq__(other)

    def __lt__(self, other):
        return self._settled(other, False if isinstance(other, int) and other <= 2 else None, "is below")

    def __le__(self, other):
        return self._settled(other, False if isinstance(other, int) and other < 2 else None, "is at most")

    def __gt__(self, other):
        return self._settled(other, True if isinstance(other, int) and other < 2 else None, "is above")

    def __ge__(self, other):
        return self._settled(other, True if isinstance(other, int) and other <= 2 else None, "is at least")

    def _arithmetic(self, other):
        raise EvalError("E546", "the exact battle chain takes the rounds after the first as alike; a rule "
                                "computes with the round number",
                        hint="estimate by sampling the real battle instead (ruleslang odds --sample N)")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __mod__ = __floordiv__ = _arithmetic
    __hash__ = int.__hash__


def came_back() -> EvalError:
    """E547: a battle state came back after it changed (the chain takes units as only lost)."""
    return EvalError("E547", "the exact battle chain found a battle state that comes back after it "
                             "changed; only a battle whose units are only lost can be computed",
                     hint="estimate by sampling the real battle instead (ruleslang odds --sample N)")


def never_left(stay, one, exact: bool) -> bool:
    """True when a state stays as it is with chance `stay` = 1 (a stalemate); in floats, within
    rounding of 1."""
    return stay == one or (not exact and stay > 1 - 1e-15)
