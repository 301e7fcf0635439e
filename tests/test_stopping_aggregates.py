"""`any` and `all` of a generator of one `for` that rolls no dice stop at the value that decides
them (lang/eval/compile_calls.py `stops_early`), under both back ends: the values after it are not
worked out (an error one of them would raise is not raised); with dice every value is worked out,
so the dice drawn are those of the whole generator."""

from __future__ import annotations

import pytest

from ruleslang.base.errors import EvalError
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host
from ruleslang.lang.eval.program import CompiledProgram

from conftest import load

RULES = """
    ruleset s/stop@1
    formula big(x: int) -> bool = 12 / x > 2
    formula any_big(xs: list of int) -> bool = any(big(x) for x in xs)
    formula all_big(xs: list of int) -> bool = all(big(x) for x in xs)
    formula any_big_where(xs: list of int) -> bool = any(big(x) for x in xs where x != 3)
    formula any_six(n: int) -> bool = any(d6 <= 6 for i in 1..n)
    formula all_none(n: int) -> bool = all(d6 > 6 for i in 1..n)
    formula low() -> bool = d6 <= 6
    formula any_low(n: int) -> bool = any(low() for i in 1..n)
"""


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    _, loaded = load(tmp_path_factory.mktemp("stop"), {"s/stop@1": RULES}, "s/stop@1")
    assert loaded.ok, loaded.diagnostics
    return {backend: CompiledProgram(loaded.program, backend=backend) for backend in ("closures", "codegen")}


@pytest.mark.parametrize("backend", ["closures", "codegen"])
def test_any_and_all_stop_at_the_value_that_decides(programs, backend):
    compiled = programs[backend]
    ctx = EvalContext(compiled, Host(0))
    fn = compiled.callable
    # 12 / 0 would raise: it comes after the value that decides
    assert fn("any_big")(ctx, (1, 0)) is True
    assert fn("all_big")(ctx, (12, 0)) is False
    assert fn("any_big_where")(ctx, (3, 2, 0)) is True
    # reached, it raises as before
    with pytest.raises(EvalError):
        fn("any_big")(ctx, (12, 0))
    with pytest.raises(EvalError):
        fn("all_big")(ctx, (1, 0))
    # no value decides: every one is worked out
    assert fn("any_big")(ctx, (12, 6)) is False
    assert fn("all_big")(ctx, (1, 2)) is True
    assert fn("any_big")(ctx, ()) is False and fn("all_big")(ctx, ()) is True


@pytest.mark.parametrize("backend", ["closures", "codegen"])
def test_with_dice_every_value_is_rolled(programs, backend, monkeypatch):
    compiled = programs[backend]
    rolled = []
    real = Host.roll

    def recording(self, sides, span=None):
        rolled.append(sides)
        return real(self, sides, span)
    monkeypatch.setattr(Host, "roll", recording)
    ctx = EvalContext(compiled, Host(0))
    assert compiled.callable("any_six")(ctx, 4) is True  # true at the first die: the four are rolled
    assert len(rolled) == 4
    assert compiled.callable("all_none")(ctx, 3) is False  # false at the first die: the three are rolled
    assert len(rolled) == 7
    assert compiled.callable("any_low")(ctx, 2) is True  # the dice of a formula called: both rolled
    assert len(rolled) == 9
