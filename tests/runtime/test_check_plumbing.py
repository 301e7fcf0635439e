"""What a check of an action costs around the rules' own constraints (issue 15, session 20, play kept):

- the purchase's forecast hands the rules' `place_refusals` to the placement planner as it is:
  the planner asks no (territory, units) twice where the constraints only read (session 19), so
  the table of answers it was wrapped in was never read;
- `check_action` finds an action's constraints and whether they only read once, not at every check;
- a generated block unpacks its frame whole (no slice of it made first);
- within a planner's questions on a board that does not change (`refusal_texts_unread(unchanged=True)`,
  as `pack` asks when its constraints only read), a formula a constraint calls with the
  constraint's own parameters (the house rules' `infantry_limit(t, p)`) is worked out once per
  arguments; its answer is given again with the budget's steps charged again, and is dropped
  when the board changes.

The answers are the rules' own: compared with what their tests expect."""

from __future__ import annotations

import sys

import pytest

from conftest import record_calls
from game_fixtures import make_game
from ruleslang.lang.eval import statements
from ruleslang.lang.eval.statements import check_action, refusal_texts_unread
from ruleslang.base.errors import EvalError
from ruleslang.runtime.agents import heuristic, purchasing

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
    # (the agent without the parts "forecast" of SPARE, which keeps the refusals for the placement,
    # and "ledger", which keeps them for later turns: both hand the planner a wrapper)
    monkeypatch.setattr(heuristic, "SPARE", tuple(part for part in heuristic.SPARE if part not in ("forecast", "ledger")))
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


def _worked_out(name: str, ask) -> tuple:
    """(what `ask()` gives, how many times the generated formula `name` ran meanwhile)."""
    runs = [0]

    def note(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == f"<ruleslang {name}>":
            runs[0] += 1
    sys.setprofile(note)
    try:
        answer = ask()
    finally:
        sys.setprofile(None)
    return answer, runs[0]


def _lists(game) -> list:
    """Lists growing by one unit at a city, as `pack` asks them (each asks its infantry limit)."""
    return [[r.message for r in _place(game, "British", "United Kingdom", ["infantry"] * n)] for n in range(1, 6)]


def test_a_formula_a_constraint_calls_with_its_parameters_is_worked_out_once_on_an_unchanged_board():
    game = make_game(HOUSE)
    host = game.ctx.host
    _lists(game)  # (the rules' code made at its first call)
    with refusal_texts_unread():
        before = host.steps
        every, runs = _worked_out("infantry_limit", lambda: _lists(game))
        spent = before - host.steps
    assert runs == 5 and every == [[], [], [], [None], [None]]
    with refusal_texts_unread(unchanged=True):
        before = host.steps
        kept, runs = _worked_out("infantry_limit", lambda: _lists(game))
        assert before - host.steps == spent  # the kept answer's steps charged again
        assert (kept, runs) == (every, 1)
        # the board changes: the answer is worked out again
        game.state.set_control("Karelia S.S.R.", "Germans")
        assert _worked_out("infantry_limit", lambda: _lists(game)) == (every, 1)
    # messages read: no answer is kept
    assert _worked_out("infantry_limit", lambda: _lists(game))[1] == 5 + 2  # (the refusals' messages ask it too)


def test_a_kept_formula_answer_with_too_few_steps_left_fails_where_it_would():
    game = make_game(HOUSE)
    host = game.ctx.host
    with refusal_texts_unread(unchanged=True):
        assert _place(game, "British", "United Kingdom", ["infantry"]) == []
        host.steps = 10  # enough for the lists' loops, not for the infantry limit's own work
        with pytest.raises(EvalError) as kept:
            _place(game, "British", "United Kingdom", ["infantry"])
    host.steps = 10
    with refusal_texts_unread():
        with pytest.raises(EvalError) as worked_out:
            _place(game, "British", "United Kingdom", ["infantry"])
    assert kept.value.code == worked_out.value.code == "E501"
    assert str(kept.value) == str(worked_out.value)
