"""`[r for r in rows(t) where r.column == x]` under the code generator: the rows found through an
index of the column (`RowIndex`), with the same rows in the same order, the same budget and the
same errors as the closures; a table whose cells are not constants, a column of lists (not
hashable) and a condition on something other than a local compare row by row, as before."""

from __future__ import annotations

import pytest

from ruleslang.base.errors import EvalError
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host
from ruleslang.lang.eval.program import CompiledProgram

from conftest import load

RULES = """
    ruleset cg/rows@1
    map "aar"
    option bonus: int = 1
    table city(name: text) -> (place: territory, points: int, tags: list of int):
        "a" -> "Germany", 5, [1]
        "b" -> "Russia", 3, [2, 3]
        "c" -> "Germany", 2, [1]
        "d" -> "Karelia S.S.R.", 1, []
    table live(name: text) -> (place: territory, points: int):
        "a" -> "Germany", bonus
        "b" -> "Russia", 2
    formula at(t: territory) = [r for r in rows(city) where r.place == t]
    formula at_flipped(t: territory) = [r for r in rows(city) where t == r.place]
    formula points_at(t: territory) -> int = sum(r.points for r in at(t))
    formula tagged(x: list of int) = [r for r in rows(city) where r.tags == x]
    formula live_at(t: territory) = [r for r in rows(live) where r.place == t]
    formula named(t: territory) = [r.name for r in rows(city) where r.place == t]
"""


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    ws, loaded = load(tmp_path_factory.mktemp("rows"), {"cg/rows@1": RULES}, "cg/rows@1")
    assert loaded.ok, loaded.diagnostics
    return {b: CompiledProgram(loaded.program, backend=b) for b in ("closures", "codegen")}


def _outcome(compiled, name, arg, budget=1000, times=3):
    ctx = EvalContext(compiled, Host(7, budget=budget))
    if isinstance(arg, str):
        arg = ctx.space_values[arg]
    try:
        # asked more than once: the index is made when the same rows come again
        values = [compiled.callable(name)(ctx, arg) for _ in range(times)]
        return ("value", [repr(v) for v in values], ctx.host.steps)
    except EvalError as e:
        return ("error", e.code, e.message, (e.span.line, e.span.column) if e.span is not None else None)


CASES = [("at", "Germany"), ("at", "Russia"), ("at", "Anglo Egypt"), ("at_flipped", "Germany"), ("points_at", "Germany"),
         ("tagged", (1,)), ("tagged", ()), ("live_at", "Germany"), ("live_at", "Anglo Egypt"), ("named", "Germany")]


@pytest.mark.parametrize("name,arg", CASES, ids=[f"{n}-{a}" for n, a in CASES])
def test_the_same_rows_and_budget_as_the_closures(programs, name, arg):
    assert _outcome(programs["codegen"], name, arg) == _outcome(programs["closures"], name, arg)


def test_the_shapes_that_are_indexed(programs):
    gen = programs["codegen"]
    for name in ("at", "at_flipped", "tagged", "live_at"):
        assert ".find(" in gen.callable(name).generated_source, name
    # an element other than the row itself is the general loop
    assert ".find(" not in gen.callable("named").generated_source
    found = _outcome(gen, "at", "Germany")
    assert found[0] == "value" and found[1][0].count("Germany") == 2


def test_the_budget_runs_out_at_the_same_place(programs):
    # each read spends a step for the call and one per row (4): the 13th step is refused
    got = _outcome(programs["codegen"], "at", "Germany", budget=12, times=3)
    assert got[0] == "error" and got[1] == "E501"
    assert got == _outcome(programs["closures"], "at", "Germany", budget=12, times=3)
