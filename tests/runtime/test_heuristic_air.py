"""The heuristic agent's air units: after combat, every one lands where the engine offers it a
landing (none is lost "with no place to land"), a carrier's own air units go back to it, and no
more air units attack than the landings sure to be there after the battles can take."""

from __future__ import annotations

from game_fixtures import BASE, events, ids, make_game, run_phases
from ruleslang.base.paths import packaged_root
from ruleslang.workspace.compositions import Workspace

KARELIA, BELORUSSIA = "Karelia S.S.R.", "Belorussia"
LANDING_LOSS = "no place to land"


def germans(units: dict, scenario: dict | None = None):
    data = {"setup": "empty", "units": units, **(scenario or {})}
    return make_game(BASE, scenario=data, agents={"Germans": "heuristic"})


def lost_for_want_of_a_landing(game) -> list[int]:
    return [uid for e in events(game, "removed", why=LANDING_LOSS) for uid in e["units"]]


def test_air_units_that_took_a_territory_land_in_non_combat_move():
    # fighter and infantry take the empty Karelia; the Russian armies beside it make Karelia the
    # front the non-combat plan holds, where the fighter may not land (taken this turn)
    game = germans({BELORUSSIA: {"Germans": {"infantry": 1, "fighter": 1}},
                    "Archangel": {"Russians": {"armour": 4}}, "Russia": {"Russians": {"infantry": 3}}})
    [fighter] = ids(game, BELORUSSIA, "Germans", "fighter")
    run_phases(game, "Germans", "combat_move", "battle")
    assert game.state.control[KARELIA] == "Germans"
    assert fighter in ids(game, KARELIA, "Germans")
    run_phases(game, "Germans", "noncombat_move")
    assert lost_for_want_of_a_landing(game) == []
    landed = next(u for u in game.state.units if u.id == fighter)
    assert game.state.control[landed.space] == "Germans" and landed.space != KARELIA


def test_a_bomber_lands_after_its_raid():
    game = germans({"Germany": {"Germans": {"bomber": 1}}, "Russia": {"Russians": {"infantry": 1}}},
                   {"factories": {"Russia": {"owner": "Russians"}}})
    [bomber] = ids(game, "Germany", "Germans", "bomber")
    run_phases(game, "Germans", "combat_move")
    assert [e["answer"]["kind"] for e in events(game, "decision", decision="move") if "kind" in e["answer"]] == ["bomb"]
    run_phases(game, "Germans", "battle", "noncombat_move")
    assert lost_for_want_of_a_landing(game) == []
    assert bomber in [u.id for u in game.state.units]


def test_a_carriers_air_unit_goes_back_to_it():
    game = germans({BELORUSSIA: {"Germans": {"infantry": 1}}, "5 Sea Zone": {"Germans": {"carrier": 1, "fighter": 1}},
                    "Archangel": {"Russians": {"armour": 4}}})
    [fighter] = ids(game, "5 Sea Zone", "Germans", "fighter")
    run_phases(game, "Germans", "combat_move", "battle")
    assert fighter in ids(game, KARELIA, "Germans")
    run_phases(game, "Germans", "noncombat_move")
    assert fighter in ids(game, "5 Sea Zone", "Germans")


CARRIERS_ONLY = """\
ruleset agents/carriers_only@1
uses aar/base@1

# air units land on carriers only
override formula landing_ground(t: space, p: player) -> bool = false
"""


def test_no_more_air_units_attack_than_the_carriers_can_take_back(tmp_path):
    # three fighters in Germany could reach Karelia and land afterwards only on the carrier in
    # 5 Sea Zone, which has room for two; the carrier in 7 Sea Zone is out of their reach from there
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "carriers_only@1.rules").write_text(CARRIERS_ONLY)
    units = {"Germany": {"Germans": {"fighter": 3}}, BELORUSSIA: {"Germans": {"infantry": 1}},
             "5 Sea Zone": {"Germans": {"carrier": 1}}, "7 Sea Zone": {"Germans": {"carrier": 1}},
             "Archangel": {"Russians": {"armour": 4}}}
    game = make_game(["agents/carriers_only@1"], scenario={"setup": "empty", "units": units},
                     agents={"Germans": "heuristic"}, workspace=Workspace([tmp_path, packaged_root()]))
    fighters = ids(game, "Germany", "Germans", "fighter")
    run_phases(game, "Germans", "combat_move", "battle")
    assert game.state.control[KARELIA] == "Germans"
    attacked = sorted(set(fighters) & set(ids(game, KARELIA, "Germans")))
    assert len(attacked) == 2
    run_phases(game, "Germans", "noncombat_move")
    assert lost_for_want_of_a_landing(game) == []
    assert sorted(ids(game, "5 Sea Zone", "Germans", "fighter")) == attacked
    assert sorted(ids(game, "7 Sea Zone", "Germans", "fighter")) == sorted(set(fighters) - set(attacked))
