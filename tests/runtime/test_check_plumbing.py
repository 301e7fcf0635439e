"""What a check of an action costs around the rules' own constraints (issue 15, session 20, play kept):

- the purchase's forecast hands the rules' `place_refusals` to the placement planner as it is:
  the planner asks no (territory, units) twice where the constraints only read (session 19), so
  the table of answers it was wrapped in was never read;
- `check_action` finds an action's constraints and whether they only read once, not at every check;
- a generated block unpacks its frame whole (no slice of it made first).

The answers are the rules' own: compared with what their tests expect."""

from __future__ import annotations

from conftest import record_calls
from game_fixtures import make_game
from ruleslang.lang.eval import statements
from ruleslang.lang.eval.statements import check_action, refusal_texts_unread
from ruleslang.runtime.agents import purchasing

HOUSE = ["aar/house-rules@1"]


def _place(game, player: str, territory: str, types: list[str]) -> list:
    ctx = game.ctx
    listed = tuple(ctx.unittype_values[t] for t in types)
    return check_action(ctx, "place", [ctx.player_values[player], ctx.space_values[territory], listed])


def test_the_forecast_hands_the_rules_refusals_to_the_planner_as_they_are(monkeypatch):
    planned = []
    real = purchasing.pack

    def noted(board, territories, units, allowed, at_sea, **kwargs):
        planned.append((allowed, kwargs.get("repeatable")))
        return real(board, territories, units, allowed, at_sea, **kwargs)
    monkeypatch.setattr(purchasing, "pack", noted)
    given = record_calls(monkeypatch, purchasing.Purchasing, "_placeable",
                         lambda self, d, *rest: d.context.get("place_refusals"))
    game = make_game(HOUSE, default_agent="heuristic", rounds=1, seed=4)
    game.run(1)
    forecasts = [allowed for allowed, _ in planned if getattr(allowed, "__name__", "") == "place_refusals"]
    assert len(forecasts) >= 4 and all(repeatable for _, repeatable in planned)
    # each forecast's planner asks the purchase's own refusals, not a wrapper of them
    assert forecasts == [refusals for refusals in given if refusals is not None][:len(forecasts)]


def test_check_action_finds_an_actions_constraints_once(monkeypatch):
    game = make_game(HOUSE)
    runs = record_calls(monkeypatch, statements.Procedures, "constraint_runs", lambda self, action: action)
    repeatable = record_calls(monkeypatch, statements.Procedures, "repeatable", lambda self, action: action)
    with refusal_texts_unread():
        for _ in range(5):
            assert _place(game, "British", "United Kingdom", ["infantry"] * 3) == []
            assert len(_place(game, "British", "United Kingdom", ["infantry"] * 4)) == 1
    assert runs == ["place"] and repeatable == ["place"]
    # the answers with their messages, as the rules' tests expect them
    assert _place(game, "British", "United Kingdom", ["infantry"] * 3) == []
    assert [r.message for r in _place(game, "British", "United Kingdom", ["infantry"] * 4)] == \
        ["at most 3 infantry may be placed at United Kingdom this turn"]
    assert [r.message for r in _place(game, "Russians", "Karelia S.S.R.", ["infantry"] * 3)] == \
        ["at most 2 infantry may be placed at Karelia S.S.R. this turn"]


def test_a_generated_block_unpacks_its_frame_whole():
    game = make_game(HOUSE)
    procs = game.ctx.procedures
    names = procs.constraints_on("place")
    assert len(names) >= 3
    for name in names:
        decl = procs.compiled.symbols[name].decl
        source = procs.executor(decl.body, name, decl).generated_source
        assert "env[1:]" not in source and "ctx, s1, s2, s3" in source
    assert [r.message for r in _place(game, "British", "India", ["armour"])] == \
        ["British places non-infantry units only at a factory that stood in a territory it held since "
         "the start of its turn; not in India"]
