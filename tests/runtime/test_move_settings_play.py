"""Movement settings a revision changes, played in a game (the rule tests of
tests/rulesets/move/ check moves; this checks what the runtime does around them)."""

from __future__ import annotations

from game_fixtures import events, make_game, run_phases

from conftest import FIXTURES
from ruleslang.workspace.compositions import Workspace


def test_a_blitz_past_an_aa_gun_that_does_not_stop_it_takes_the_gun_with_the_territory():
    combat = [{"from": "Russia", "type": "armour", "to": "Belorussia"}]
    game = make_game(["aar/base@2"], orders={"Russians": [{"round": 1, "combat": combat}]},
                     workspace=Workspace([FIXTURES / "move" / "stops-movement"]),
                     scenario={"setup": "empty", "control": {"West Russia": "Germans"},
                               "units": {"Russia": {"Russians": {"armour": 1}}, "West Russia": {"Germans": {"aaGun": 1}},
                                         "Belorussia": {"Germans": {"infantry": 1}}}})
    run_phases(game, "Russians", "combat_move")
    assert game.state.control["West Russia"] == "Russians"
    assert [(u.type, u.owner) for u in game.state.units if u.space == "West Russia"] == [("aaGun", "Russians")]
    assert events(game, "captured_units")[0]["by"] == "Russians"
    assert game.kit.pending_battles == ["Belorussia"]
