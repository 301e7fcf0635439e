"""Formulas of their arguments alone answered once per arguments (lang/eval/kept_formulas.py):
which formulas are kept; a kept formula is worked out once per arguments, every call spends the
steps working it out spends, a short budget fails where it would, an error is raised again; and
under aar/house-rules@1 the city formulas are the ones kept."""

from __future__ import annotations

import pytest

from ruleslang.base.errors import EvalError
from ruleslang.lang.eval import kept_formulas
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host
from ruleslang.lang.eval.program import CompiledProgram
from ruleslang.lang.syntax.declarations import FormulaDecl
from ruleslang.workspace.compositions import Workspace

from conftest import load

RULES = """
    ruleset kf/cities@1
    map "aar"
    option bonus: int = 1
    constant doubled = 2
    counter seen(p: player) -> int = 0
    table city(name: text) -> (place: territory, points: int):
        "a" -> "Germany", 5
        "b" -> "Russia", 3
        "c" -> "Germany", 2
    table live(name: text) -> (place: territory, points: int):
        "a" -> "Germany", bonus
    formula at(t: territory) = [r for r in rows(city) where r.place == t]
    formula points_at(t: territory) -> int = sum(r.points for r in at(t))
    formula doubled_at(t: territory) -> int = doubled * sum(r.points for r in at(t))
    formula first_at(t: territory) -> int = at(t)[0].points
    formula live_points(t: territory) -> int = sum(r.points for r in rows(live) where r.place == t)
    formula with_bonus(t: territory) -> int = bonus + sum(r.points for r in at(t))
    formula held_points(t: territory) -> int = sum(r.points for r in at(t) where controller(r.place) != none)
    formula seen_points(t: territory, p: player) -> int = seen(p) + sum(r.points for r in at(t))
    formula plain(t: territory) -> bool = t == "Germany"
"""


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    ws, loaded = load(tmp_path_factory.mktemp("kept"), {"kf/cities@1": RULES}, "kf/cities@1")
    assert loaded.ok, loaded.diagnostics
    return {b: CompiledProgram(loaded.program, backend=b) for b in ("closures", "codegen")}


def _kept_names(compiled) -> set[str]:
    return {name for name, sym in compiled.symbols.items()
            if isinstance(sym.decl, FormulaDecl) and kept_formulas.keeps(compiled, sym.decl)}


def _kept_fn(programs, backend: str, name: str):
    """The program of `backend`, its callable `name` and a context with a budget of 1000 steps."""
    compiled = programs[backend]
    return compiled, compiled.callable(name), EvalContext(compiled, Host(7, budget=1000))


@pytest.mark.parametrize("backend", ["closures", "codegen"])
def test_which_formulas_are_kept(programs, backend):
    # a table of constant rows and the formulas that walk it are kept; an option, a table with a
    # cell worked out, the board, a counter, a comparison alone and (read as a global, not
    # followed) a declared constant are not
    assert _kept_names(programs[backend]) == {"at", "points_at", "first_at"}


@pytest.mark.parametrize("backend", ["closures", "codegen"])
def test_a_kept_formula_is_worked_out_once_and_spends_its_steps_every_call(programs, backend):
    compiled = programs[backend]
    fn = compiled.callable("points_at")
    assert fn.__wrapped__ is not None
    calls = []
    inner = fn.__wrapped__

    ctx = EvalContext(compiled, Host(7, budget=1000))
    germany = ctx.space_values["Germany"]
    fresh = EvalContext(compiled, Host(7, budget=1000))
    # the steps of one call worked out, on a program whose answers were not kept
    inner(fresh, germany)
    one_call = 1000 - fresh.host.steps

    fn.kept_answers.clear()
    values = []
    for _ in range(3):
        values.append(fn(ctx, germany))
        calls.append(ctx.host.steps)
    assert values == [7, 7, 7]
    assert calls == [1000 - one_call, 1000 - 2 * one_call, 1000 - 3 * one_call]
    assert list(fn.kept_answers) == [(germany,)]


@pytest.mark.parametrize("backend", ["closures", "codegen"])
def test_a_short_budget_fails_where_the_formula_would(programs, backend):
    compiled, fn, ctx = _kept_fn(programs, backend, "points_at")
    germany = ctx.space_values["Germany"]
    fn(ctx, germany)  # kept
    spent = 1000 - ctx.host.steps
    for budget in range(spent):
        short = EvalContext(compiled, Host(7, budget=budget))
        with pytest.raises(EvalError) as kept_error:
            fn(short, germany)
        plain = EvalContext(compiled, Host(7, budget=budget))
        with pytest.raises(EvalError) as plain_error:
            fn.__wrapped__(plain, germany)
        assert (kept_error.value.code, kept_error.value.message, kept_error.value.span) == \
               (plain_error.value.code, plain_error.value.message, plain_error.value.span)
    exact = EvalContext(compiled, Host(7, budget=spent))
    assert fn(exact, germany) == 7 and exact.host.steps == 0


@pytest.mark.parametrize("backend", ["closures", "codegen"])
def test_an_error_is_raised_again_and_not_kept(programs, backend):
    compiled, fn, ctx = _kept_fn(programs, backend, "first_at")
    nowhere = ctx.space_values["Anglo Egypt"]
    for _ in range(2):
        with pytest.raises(EvalError):
            fn(ctx, nowhere)
    assert (nowhere,) not in fn.kept_answers
    assert fn(ctx, ctx.space_values["Russia"]) == 3


@pytest.mark.parametrize("backend", ["closures", "codegen"])
def test_a_list_answer_is_not_kept(programs, backend):
    compiled, fn, ctx = _kept_fn(programs, backend, "at")
    first = fn(ctx, ctx.space_values["Germany"])
    assert [r.get("points") for r in first] == [5, 2]
    assert fn.kept_answers == {}


def test_nothing_is_kept_while_coverage_is_noted(tmp_path):
    from ruleslang.lang.eval.coverage import Coverage
    ws, loaded = load(tmp_path, {"kf/cities@1": RULES}, "kf/cities@1")
    compiled = CompiledProgram(loaded.program, coverage=Coverage(), backend="codegen")
    assert _kept_names(compiled) == set()


def test_house_rules_keep_the_city_formulas():
    loaded = Workspace([]).load(["aar/house-rules@1"])
    assert loaded.ok
    compiled = CompiledProgram(loaded.program, backend="codegen")
    assert _kept_names(compiled) == {"city_rows", "is_victory_city", "vcp_in", "city_nation", "city_tier"}
