"""Binding: a scenario and --set values joined to a compiled program, the same way for every caller."""

from __future__ import annotations

import textwrap

import pytest

from ruleslang.base.diagnostics import DiagnosticError
from ruleslang.binding.bind import (bind_scenario, load_scenario_for_map, make_context, parse_json_or_name,
                                    parse_setting, parse_settings)
from ruleslang.board.scenario import load_scenario
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host

from conftest import FIXTURES, codes, load

RULES = """
    ruleset t/opts@1
    uses board/base@1
    option factor: int = 1 "a factor"
    option first_player: player = Reds "who starts"
    fact at_war: bool = false
    formula scaled() -> int = factor * 2
"""


@pytest.fixture
def loaded_ws(tmp_path):
    ws, loaded = load(tmp_path, {"t/opts@1": RULES}, extra_roots=[FIXTURES])
    assert loaded.ok, loaded.diagnostics
    return ws, loaded


def write_scenario(tmp_path, text: str) -> str:
    path = tmp_path / "scenario.yaml"
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return str(path)


def test_a_scenario_sets_its_options_and_facts_and_set_values_win(loaded_ws, tmp_path):
    ws, loaded = loaded_ws
    path = write_scenario(tmp_path, """
        map: mini
        options: {factor: 3}
        facts: {at_war: true}
    """)
    scenario = load_scenario(path, ws.roots)
    ctx = EvalContext(loaded.compiled, Host(0))
    bind_scenario(ctx, scenario, ws.loader)
    assert ctx.options["factor"] == 3 and ctx.facts["at_war"] is True
    bind_scenario(ctx, scenario, ws.loader, options=parse_settings(["factor=5"], loaded.compiled))
    assert ctx.options["factor"] == 5


def test_a_scenario_that_does_not_fit_is_refused_before_anything_is_set(loaded_ws, tmp_path):
    ws, loaded = loaded_ws
    path = write_scenario(tmp_path, """
        map: mini
        options: {factr: 3}
    """)
    ctx = EvalContext(loaded.compiled, Host(0))
    with pytest.raises(DiagnosticError) as exc:
        bind_scenario(ctx, load_scenario(path, ws.roots), ws.loader)
    assert codes(exc.value.diagnostics) == ["D633"] and ctx.options["factor"] == 1


def test_make_context_starts_on_the_map_and_applies_settings_in_order(loaded_ws):
    ws, loaded = loaded_ws
    ctx = make_context(loaded.compiled, ws.loader, settings=["factor=2", "factor=7"], budget=10)
    assert ctx.state is not None and ctx.state.round == load_scenario_for_map("mini", ws.roots).turn.round
    assert ctx.options["factor"] == 7
    assert loaded.compiled.callable("scaled")(ctx) == 14


@pytest.mark.parametrize("text, code", [("factor", "U101"), ("factr=2", "U102"),
                                        ("factor=two", "U103")])
def test_a_bad_setting_is_a_located_usage_error(loaded_ws, text, code):
    _, loaded = loaded_ws
    with pytest.raises(DiagnosticError) as exc:
        parse_setting(text, loaded.compiled)
    (d,) = exc.value.diagnostics
    assert d.code == code and d.span.source.name == "<--set>"


def test_a_setting_may_name_a_value_without_quotes(loaded_ws):
    _, loaded = loaded_ws
    name, value = parse_setting("first_player=Blues", loaded.compiled)
    assert name == "first_player" and value.name == "Blues"


def test_a_command_line_value_is_json_or_a_name():
    assert parse_json_or_name("[1, 2]") == [1, 2]
    assert parse_json_or_name("United Kingdom") == "United Kingdom"
