"""A runtime procedure's unit setting that reads its unit for its kind alone and nothing else of
the game (lang/eval/kind_reads.py `constant_setting`) is answered once a kind for every game of
the program (runtime/config.py `ProcedureConfig._kind_answers`), not again as each phase starts,
in each look-ahead copy or in each battle chain; a setting that reads the game (the turn, a
technology, the unit's own fields) is asked again each phase as before (issue 15, session 21)."""

from __future__ import annotations

import pytest

from game_fixtures import make_game
from ruleslang.base.paths import packaged_root
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.kind_reads import constant_setting
from ruleslang.runtime.config import procedure_config, setting_procedure
from ruleslang.workspace.compositions import Workspace

# a runtime procedure of the ruleset's own (a phase no turn runs), each setting a case
OWN = """\
ruleset kinds/settings@1
uses aar/base@1

phase look: runtime move with {{kind: "noncombat", movement: u => 1, domain: {domain}}}
"""


def _setting(game, procedure: str, name: str):
    proc = setting_procedure(game.compiled, procedure, name)
    return dict((i.text, v) for i, v in proc.config.fields)[name]


@pytest.mark.parametrize("procedure, name, unit, constant", [
    ("battle", "hit_points", True, True),       # u => u.hit_points: the type's constant attribute
    ("battle", "fights", True, True),           # u => not has_tag(u, aa)
    ("battle", "casualties_by", True, True),    # u => casualty_chooser(u): the unit's owner
    ("battle", "captures", True, True),         # u => takes_territory(u): a formula on its tags
    ("move", "domain", True, True),             # u => domain_of(u)
    ("move", "movement", True, False),          # u => range_of(u): reads a technology (`developed`)
    ("purchase", "cost", False, False),         # t => unit_cost(t, current_player()): reads the turn
])
def test_the_shipped_settings_constant_for_a_kind_are_those_that_read_nothing_else(procedure, name, unit, constant):
    game = make_game(["aar/house-rules@1"])
    assert constant_setting(game.compiled, _setting(game, procedure, name), unit) is constant


@pytest.mark.parametrize("body, constant", [
    ("u => if has_tag(u, sea) and u.owner == Germans then \"sea\" else domain_of(u)", True),
    ("u => if u.hits > 0 then \"sea\" else \"land\"", False),  # the unit's own hits
    ("u => if controller(u.space) == u.owner then \"land\" else \"sea\"", False),  # where it stands
    ("u => if count([v for v in [u] where has_tag(v, sea)]) > 0 then \"sea\" else \"land\"", False),  # in a list
    ("u => if developed(u.owner, long_range_aircraft) then \"air\" else \"land\"", False),  # a technology
])
def test_a_setting_is_constant_for_a_kind_only_when_it_reads_the_unit_for_its_kind_alone(tmp_path, body, constant):
    folder = tmp_path / "kinds"
    folder.mkdir()
    (folder / "settings@1.rules").write_text(OWN.format(domain=body))
    game = make_game(["kinds/settings"], workspace=Workspace([tmp_path, packaged_root()]))
    proc = game.compiled.symbols["look"].decl.procedure
    setting = dict((i.text, v) for i, v in proc.config.fields)["domain"]
    assert constant_setting(game.compiled, setting, True) is constant


def _evaluations(monkeypatch) -> list:
    """The units the settings are evaluated on from now on (each evaluation makes the unit's value)."""
    made = []
    original = EvalContext.unit_value

    def counted(self, unit, *args):
        made.append(unit.id)
        return original(self, unit, *args)
    monkeypatch.setattr(EvalContext, "unit_value", counted)
    return made


def test_a_constant_settings_answers_are_kept_across_phases_and_copies_and_others_asked_again(monkeypatch):
    game = make_game(["aar/house-rules@1"])
    units = game.state.units
    hit_points = procedure_config(game.ctx, setting_procedure(game.compiled, "battle", "hit_points"))
    movement = procedure_config(game.ctx, setting_procedure(game.compiled, "move", "movement"))
    # the answers are the rules' own, unit by unit, as evaluated afresh
    for config, name in ((hit_points, "hit_points"), (movement, "movement")):
        fn = config.unit_fn(name)
        assert [fn(u) for u in units] == [config.unit_answer(name, u, game.ctx) for u in units]
    made = _evaluations(monkeypatch)
    for config in (hit_points, movement):
        config.new_phase()  # (a phase starts: the answers cached for the last one are forgotten)
    assert [hit_points.unit_fn("hit_points")(u) for u in units] == [hit_points.unit_answer("hit_points", u, game.ctx)
                                                                    for u in units]
    made.clear()
    for u in units:
        hit_points.unit_fn("hit_points")(u)
    hit_points.new_phase()
    for u in units:
        hit_points.unit_fn("hit_points")(u)
    assert made == []  # kept for the game: nothing evaluated again in the next phase
    kinds = {(u.type, u.owner) for u in units}
    for u in units:
        movement.unit_fn("movement")(u)
    assert len(made) == len(kinds)  # asked again in the new phase, once a kind
    # a copy of the settings for another context (a look-ahead's copy of the game, a battle
    # chain's) answers from them too
    made.clear()
    copied = hit_points.for_context(game.ctx)
    assert [copied.unit_fn("hit_points")(u) for u in units] == [hit_points.unit_fn("hit_points")(u) for u in units]
    assert made == []
