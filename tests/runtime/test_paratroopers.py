"""Paratroopers in play: the movement engine's airborne moves (kit/airborne.py) under Global 1940's
reading (launched from air bases, 2 a base, 3 spaces, into an attack already made, AA fire at
them) and the Anniversary edition's (a bomber carries one infantry into the first hostile
territory; lost with its bomber), and the heuristic agent dropping them into its attacks
(rulesets/g40/README.md and rulesets/aa50/README.md, "Readings")."""

from __future__ import annotations

from game_fixtures import dice_of, events, ids, load_dice, logs, make_game, run_phases, tap_dice
from ruleslang.runtime.agents.scripted import ScriptedAgent
from ruleslang.runtime.config import procedure_config, runtime_procedures
from ruleslang.runtime.kit.movement import Move, MovementEngine
from ruleslang.runtime.kit.moves import movement_rules_of

G40 = ["g40/base@1"]
AA50 = ["aa50/base@1"]
WG, FR, NB, HB = "Western Germany", "France", "Normandy Bordeaux", "Holland Belgium"
PARATROOPERS = {"has_tech": {"Germans": {"paratroopers": True}}}


def _g40_game(tech: bool = True, combat: list | None = None, agents: dict | None = None):
    units = {"Germany": {"Germans": {"infantry": 4, "airfield": 1}}, WG: {"Germans": {"armour": 3}},
             HB: {"Germans": {"armour": 1}}, FR: {"French": {"infantry": 1, "aaGun": 1}},
             NB: {"French": {"infantry": 1}}}
    scenario = {"setup": "empty", "units": units, "counters": PARATROOPERS if tech else {}}
    orders = {"Germans": [{"round": 1, "combat": combat or []}]} if agents is None else None
    return make_game(G40, scenario=scenario, orders=orders, agents=agents)


def _airborne_events(game) -> list[dict]:
    return [e for e in events(game, "move_units") if "airborne_from" in (e.get("flags") or {})]


def _refusals(game) -> list[str]:
    return [r for e in events(game, "refused") for r in e["reasons"]]


def test_g40_an_air_base_launches_two_infantry_into_an_attack_already_made():
    game = _g40_game(combat=[
        {"from": "Germany", "type": "infantry", "to": FR, "kind": "airborne"},     # no attack there yet
        {"from": WG, "type": "armour", "to": FR},
        {"from": "Germany", "type": "infantry", "count": 2, "to": FR, "kind": "airborne"},
        {"from": "Germany", "type": "infantry", "to": FR, "kind": "airborne"},     # a third from one base
    ])
    run_phases(game, "Germans", "combat_move")
    flown = _airborne_events(game)
    assert len(flown) == 1 and len(flown[0]["ids"]) == 2
    assert flown[0]["path"] == ["Germany", WG, FR]        # two spaces, over a German territory
    refused = _refusals(game)
    assert "the rules' airborne_to setting does not let units be flown into France" in refused[0]
    assert "0 more land unit(s) may take off from Germany this turn" in refused[1]
    assert len(ids(game, FR, "Germans", "infantry")) == 2 and len(ids(game, "Germany", "Germans", "infantry")) == 2


def _combat_engine(game, player: str):
    """The movement engine of `player`'s combat move under the game's rulesets, as the move phase makes it."""
    symbol, proc = next((sym, proc) for sym, proc in runtime_procedures(game.compiled, "move")
                        if sym.name == "combat_move")
    config = procedure_config(game.ctx, proc)
    config.new_phase()
    return MovementEngine(game.state, movement_rules_of(game.ctx, config, proc.span, game.allied), player, "combat")


def test_g40_a_flight_stops_in_the_first_hostile_territory():
    game = _g40_game(combat=[{"from": WG, "type": "armour", "to": FR}, {"from": HB, "type": "armour", "to": NB}])
    run_phases(game, "Germans", "combat_move")
    engine = _combat_engine(game, "Germans")
    infantry = ids(game, "Germany", "Germans", "infantry")[0]
    assert engine.check(Move((infantry,), ("Germany", WG, FR, NB), "airborne")) == [
        "the flight stops in the first hostile territory it reaches, France, not Normandy Bordeaux"]
    assert not engine.check(Move((infantry,), ("Germany", WG, HB, NB), "airborne"))   # over friendly land
    assert engine.check(Move((infantry,), ("Germany", WG, HB, NB, "Southern France"), "airborne")) == [
        "the flight stops in the first hostile territory it reaches, Normandy Bordeaux, not Southern France"]
    offered = {m.path[-1]: m.path for m in engine.airborne_moves(infantry)}
    assert offered == {FR: ("Germany", WG, FR), NB: ("Germany", WG, HB, NB)}   # the attacks, within 3


def test_g40_the_infantry_of_one_air_base_attack_one_territory():
    game = _g40_game(combat=[{"from": WG, "type": "armour", "to": FR},
                             {"from": HB, "type": "armour", "to": NB},
                             {"from": "Germany", "type": "infantry", "to": FR, "kind": "airborne"},
                             {"from": "Germany", "type": "infantry", "to": NB, "kind": "airborne"}])
    run_phases(game, "Germans", "combat_move")
    assert [e["to"] for e in _airborne_events(game)] == [FR]
    assert any("the units launched from Germany this turn attack one territory, France" in r for r in _refusals(game))


def test_g40_without_the_technology_no_infantry_flies():
    game = _g40_game(tech=False, combat=[{"from": WG, "type": "armour", "to": FR},
                                         {"from": "Germany", "type": "infantry", "to": FR, "kind": "airborne"}])
    run_phases(game, "Germans", "combat_move")
    assert _airborne_events(game) == []
    assert any("cannot be flown into an attack (the rules' airborne setting)" in r for r in _refusals(game))


def test_g40_aa_guns_fire_at_paratroopers_as_at_aircraft():
    game = _g40_game(combat=[{"from": WG, "type": "armour", "to": FR},
                             {"from": "Germany", "type": "infantry", "count": 2, "to": FR, "kind": "airborne"}])
    run_phases(game, "Germans", "combat_move")
    tapped = tap_dice(game)
    run_phases(game, "Germans", "battle")
    assert len(dice_of(tapped, "aa_fire", 1)) == 2        # one gun: a shot at each of the two, none at the tank


def test_the_heuristic_drops_paratroopers_into_the_attack_it_makes():
    game = _g40_game(agents={"Germans": "heuristic"})
    run_phases(game, "Germans", "combat_move")
    flown = _airborne_events(game)
    assert flown and all(e["to"] == FR for e in flown)
    assert sum(len(e["ids"]) for e in flown) == 2         # the base's two
    assert ids(game, FR, "Germans", "armour")             # the attack they joined


def test_no_airborne_move_in_the_noncombat_move():
    units = {"Germany": {"Germans": {"infantry": 1, "airfield": 1}}}
    orders = {"Germans": [{"round": 1, "noncombat": [{"from": "Germany", "type": "infantry", "to": "Poland",
                                                      "kind": "airborne"}]}]}
    game = make_game(G40, scenario={"setup": "empty", "units": units, "counters": PARATROOPERS}, orders=orders)
    run_phases(game, "Germans", "noncombat_move")
    assert _airborne_events(game) == [] and "airborne moves are made in combat move" in _refusals(game)


# ------------------------------------------------------------------ AA50: bombers carry them

def _aa50_game(combat):
    units = {"Poland": {"Germans": {"infantry": 2, "bomber": 1}},
             "Karelia S.S.R.": {"Russians": {"infantry": 1, "aaGun": 1}}}
    game = make_game(AA50, scenario={"setup": "empty", "units": units, "counters": PARATROOPERS}, orders={})
    bomber = ids(game, "Poland", "Germans", "bomber")[0]
    infantry = ids(game, "Poland", "Germans", "infantry")
    game.agents["Germans"] = ScriptedAgent("Germans", [{"round": 1, "combat": combat(bomber, infantry)}])
    return game, bomber, infantry


def test_aa50_a_bomber_carries_one_infantry_and_none_flies_without_one():
    game, bomber, infantry = _aa50_game(lambda b, inf: [
        {"unit": inf[0], "to": "Karelia S.S.R.", "kind": "airborne"},
        {"from": "Poland", "type": "infantry", "count": 2, "to": "Karelia S.S.R.", "kind": "airborne", "lift": b},
        {"unit": inf[0], "to": "Karelia S.S.R.", "kind": "airborne", "lift": b}])
    run_phases(game, "Germans", "combat_move")
    refused = _refusals(game)
    assert "land units fly only with air units that carry them" in refused[0]
    assert "the air units carry 1 land unit(s), the move has 2" in refused[1]
    flown = _airborne_events(game)
    assert [e["ids"] for e in flown] == [[infantry[0]]] and flown[0]["flags"]["airborne_lift"] == bomber
    assert set(ids(game, "Karelia S.S.R.", "Germans")) == {bomber, infantry[0]}


def test_aa50_an_infantry_is_lost_with_the_bomber_aa_fire_destroys():
    game, bomber, infantry = _aa50_game(lambda b, inf: [
        {"unit": inf[0], "to": "Karelia S.S.R.", "kind": "airborne", "lift": b}])
    run_phases(game, "Germans", "combat_move")
    loaded = load_dice(game, [1])                          # the AA gun hits the bomber
    run_phases(game, "Germans", "battle")
    assert loaded.left == 0
    assert "the paratroopers bomber carried into Karelia S.S.R. are lost with it" in logs(game)
    assert ids(game, "Karelia S.S.R.", "Germans") == []


def test_movable_units_lists_a_unit_whose_one_move_is_a_flight():
    # Gibraltar's one land neighbour is a neutral no unit enters: the infantry has no move of its
    # own, only the bomber's lift (aa50/base@1 with paratroopers)
    units = {"Gibraltar": {"British": {"infantry": 1, "bomber": 1}}, "Morocco Algeria": {"Germans": {"infantry": 1}}}
    game = make_game(AA50, scenario={"setup": "empty", "units": units, "turn": {"player": "British"},
                                     "counters": {"has_tech": {"British": {"paratroopers": True}}}}, orders={})
    engine = _combat_engine(game, "British")
    infantry = ids(game, "Gibraltar", "British", "infantry")[0]
    assert engine.destinations(infantry) == {} and engine.airborne_moves(infantry)
    assert infantry in engine.movable_units()
    # without the technology it has no move at all
    game = make_game(AA50, scenario={"setup": "empty", "units": units, "turn": {"player": "British"}}, orders={})
    engine = _combat_engine(game, "British")
    assert ids(game, "Gibraltar", "British", "infantry")[0] not in engine.movable_units()


def test_airborne_units_hold_every_unit_with_an_airborne_move(monkeypatch):
    """`airborne_units` (the heuristic agent asks it before it asks each unit for its airborne
    moves, session 12) holds every unit of the player that has one, and only units whose rules
    let them fly: checked on every call as the heuristic drops paratroopers, and in a
    house-rules game where no unit flies."""
    asked = {"calls": 0, "flying": 0}
    kept = MovementEngine.airborne_units

    def compared(self):
        answer = kept(self)
        having = [u.id for u in self._mine if self.airborne_moves(u.id)]
        assert set(having) <= set(answer), (having, answer)
        assert all(self._ur[uid].airborne for uid in answer)
        asked["calls"] += 1
        asked["flying"] += len(having)
        return answer
    monkeypatch.setattr(MovementEngine, "airborne_units", compared)
    game = _g40_game(agents={"Germans": "heuristic"})
    run_phases(game, "Germans", "combat_move")
    assert asked["calls"] > 0 and asked["flying"] > 0, asked
    asked["calls"] = 0
    make_game(["aar/house-rules@1"], seed=1, rounds=2, default_agent="heuristic").run(2)
    assert asked["calls"] > 5, asked
