"""Calls the rules' plumbing no longer makes (issue 15, session 18, play kept):

- a unit attribute whose value is a constant for every unit type is read by generated code from
  the program's table of them, without a helper's call (an attribute some type works out when read
  goes through the helper as before);
- a phase or step without hooks runs without looking for applicable hooks (as the branching run
  skips them), and one with hooks still looks and fires them;
- the kit's unit facts (hit points, domains, transport room) answer through the settings'
  own functions.

Each answer is compared with the closures' or the full computation's."""

from __future__ import annotations

from conftest import record_calls
from game_fixtures import make_game
from ruleslang.lang.eval import statements
from ruleslang.lang.eval.program import CompiledProgram


def test_a_unit_attribute_constant_for_every_type_is_read_without_a_call():
    game = make_game(["aar/house-rules@1"])
    compiled = CompiledProgram(game.loaded.program, backend="codegen")  # (its code generated now)
    closures = CompiledProgram(game.loaded.program, backend="closures")
    fn = compiled.callable("attack_value")  # `u.attack + ...`: every type's attack is a number
    assert "_unit_attribute(" not in fn.generated_source
    ctx = game.ctx
    types = set()
    for unit in game.state.units:
        if unit.type in types:
            continue
        types.add(unit.type)
        value = ctx.unit_value(unit)
        assert fn(ctx, value) == closures.callable("attack_value")(ctx, value)
    assert len(types) > 5


def test_a_step_without_hooks_looks_for_none(monkeypatch):
    looked = record_calls(monkeypatch, statements.Procedures, "applicable_hooks", lambda self, ctx, name, when: name)
    game = make_game(["aar/house-rules@1"], seed=2, rounds=1, default_agent="random")
    game.run(1)
    hooked = game.ctx.procedures.hooks
    ran = [e["name"] for e in game.state.events if e["kind"] == "phase" and e.get("stage") == "start"]
    assert any(name not in hooked for name in ran) and any(name in hooked for name in ran)
    assert looked and all(hooked.get(name) for name in looked)
    fired = {e["name"] for e in game.state.events if e["kind"] == "hook"}
    assert fired  # hooks of the phases that have them still fire (commerce raiding, ...)


def test_unit_facts_answer_through_the_settings_functions():
    game = make_game(["aar/house-rules@1"], seed=1, rounds=1, default_agent="random")
    facts = game.unit_rules()
    assert "hit_points" in vars(facts) and "domain" in vars(facts)  # (the settings' own functions)
    ctx = game.ctx
    domain_of = ctx.compiled.callable("domain_of")  # (the move settings' `domain: u => domain_of(u)`)
    for unit in game.state.units:
        assert facts.hit_points(unit) == ctx.unit_attribute(unit.type, "hit_points") >= 1
        assert facts.domain(unit) == domain_of(ctx, ctx.unit_value(unit))
