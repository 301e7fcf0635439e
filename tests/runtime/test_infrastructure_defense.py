"""aar/infrastructure-defense@1 in play: coastal defense against an amphibious assault, air
defense at aircraft flying over in the non-combat move (not where a raid fell this turn), pieces
placed away from factories, and the defender's choice to destroy its pieces when the territory
falls (the pieces it keeps are captured). The dice are loaded: each test also checks how many
dice the rules roll."""

from __future__ import annotations

from game_fixtures import count, events, ids, load_dice, logs, make_game, run_phases, tap_dice

ID = ["aar/base@1", "aar/infrastructure-defense@1"]
KARELIA, SZ5 = "Karelia S.S.R.", "5 Sea Zone"


def assault(dice, *, pieces: int = 2):
    """Germans land two infantry from a transport in 5 Sea Zone on Karelia (2 infantry, `pieces`)."""
    units = {"Germany": {"Germans": {"infantry": 2}}, SZ5: {"Germans": {"transport": 1}},
             KARELIA: {"Russians": {"infantry": 2, "aaGun": pieces}}}
    game = make_game(ID, scenario={"setup": "empty", "units": units})
    transport = ids(game, SZ5, "Germans", "transport")[0]
    foot = ids(game, "Germany", "Germans", "infantry")
    move = ([{"unit": u, "to": SZ5, "kind": "load", "transport": transport} for u in foot] +
            [{"unit": u, "to": KARELIA, "kind": "unload", "transport": transport} for u in foot])
    game = make_game(ID, scenario={"setup": "empty", "units": units},
                     orders={"Germans": [{"round": 1, "combat": move}]})
    loaded = load_dice(game, dice)
    tapped = tap_dice(game)
    run_phases(game, "Germans", "combat_move", "battle")
    assert loaded.left == 0, f"{loaded.left} loaded dice were not rolled"
    return game, tapped, transport, foot


def test_a_coastal_hit_sinks_the_transport_with_its_cargo_before_it_lands():
    # two pieces: the first targets (1) and hits (1), the second misses its targeting (5);
    # the fire comes before the battle (aa_fire runs from battle_start), so with no attacker
    # left no round is fought
    game, tapped, transport, foot = assault([1, 1, 5])
    # (the hook runs before the aa_fire step, and its dice are noted as that step's)
    assert [(d.step, d.value) for d in tapped] == [("aa_fire", 1), ("aa_fire", 1), ("aa_fire", 5)]
    removed = [u for e in events(game, "remove_units") for u in e["ids"]]
    assert sorted(removed) == sorted([transport] + foot)
    assert count(game, KARELIA, "Germans") == 0 and count(game, SZ5, "Germans") == 0
    assert game.state.control[KARELIA] == "Russians"
    assert "1 transport(s) sunk off Karelia S.S.R. with 2 unit(s) aboard" in logs(game)


def test_coastal_fire_that_misses_leaves_the_assault_to_the_battle():
    # targeting 3 and 4 miss; then the battle: attackers 1, 1 (two hits), defenders 6, 6
    game, tapped, transport, foot = assault([3, 4, 1, 1, 6, 6])
    assert [d.value for d in tapped if d.step == "aa_fire"] == [3, 4]
    assert game.state.control[KARELIA] == "Germans"
    assert count(game, KARELIA, "Germans", "infantry") == 2


def test_at_most_three_pieces_fire_at_the_transports():
    # five pieces, three dice of targeting (all miss); then attackers 6, 6 and defenders 6, 6,
    # round after round until the loaded dice end: one round is enough to count
    game, tapped, _, _ = assault([5, 5, 5] + [1, 1, 6, 6], pieces=5)
    assert [d.value for d in tapped if d.step == "aa_fire"] == [5, 5, 5]


def overflight(dice, *, scenario_extra: dict | None = None, answers: dict | None = None):
    """A German fighter flies Belorussia -> Karelia S.S.R. (a Russian piece) -> Norway in
    non-combat move."""
    units = {"Belorussia": {"Germans": {"fighter": 1}}, KARELIA: {"Russians": {"aaGun": 1}}}
    data = {"setup": "empty", "units": units, **(scenario_extra or {})}
    game = make_game(ID, scenario=data)
    fighter = ids(game, "Belorussia", "Germans", "fighter")[0]
    order = {"round": 1, "noncombat": [{"unit": fighter, "to": "Norway"}], "answers": answers or {}}
    game = make_game(ID, scenario=data, orders={"Germans": [order]})
    loaded = load_dice(game, dice)
    tapped = tap_dice(game)
    run_phases(game, "Germans", "noncombat_move")
    assert loaded.left == 0, f"{loaded.left} loaded dice were not rolled"
    return game, tapped, fighter


def test_pieces_fire_at_aircraft_flying_over_in_the_noncombat_move():
    game, tapped, fighter = overflight([2, 1])
    assert [d.value for d in tapped] == [2, 1]
    assert game.unit_or_none(fighter) is None
    assert any("flying over: 1 hit(s)" in m for m in logs(game))
    assert game.ctx.counter("air_defense_fired", (KARELIA, 1, "Germans")) == 1


def test_a_miss_lets_the_aircraft_land():
    game, tapped, fighter = overflight([2, 2])
    assert game.unit_or_none(fighter).space == "Norway"


def test_a_territory_bombed_this_turn_does_not_fire_in_the_noncombat_move():
    bombed = {"counters": {"bombed": {KARELIA: {"1": {"Germans": True}}}}}
    game, tapped, fighter = overflight([], scenario_extra=bombed)
    assert tapped == []
    assert game.unit_or_none(fighter).space == "Norway"


def test_pieces_are_placed_where_no_factory_stands_and_do_not_use_a_factory_s_room():
    orders = {"Germans": [{"round": 1, "purchase": {"aaGun": 2, "infantry": 10},
                           "place": [{"at": "Eastern Europe", "units": ["aaGun", "aaGun"]},
                                     {"at": "Germany", "units": ["infantry"] * 10}]}]}
    game = make_game(ID, orders=orders)
    before = count(game, "Eastern Europe", "Germans", "aaGun")
    run_phases(game, "Germans", "purchase", "place")
    assert events(game, "refused", decision="place") == []
    assert count(game, "Eastern Europe", "Germans", "aaGun") == before + 2


def capture(destroy: bool):
    units = {"Eastern Europe": {"Germans": {"infantry": 2}}, KARELIA: {"Russians": {"aaGun": 2}}}
    orders = {"Germans": [{"round": 1, "combat": [{"from": "Eastern Europe", "type": "infantry", "count": 2,
                                                   "to": KARELIA}]}],
              "Russians": [{"round": 1, "answers": {"defense_pieces_destroyed.destroy": destroy}}]}
    game = make_game(ID, scenario={"setup": "empty", "units": units}, orders=orders)
    run_phases(game, "Germans", "combat_move", "battle")
    assert game.state.control[KARELIA] == "Germans"
    return game


def test_the_defender_may_destroy_its_pieces_when_the_territory_falls():
    game = capture(True)
    assert count(game, KARELIA, unit_type="aaGun") == 0
    assert "the infrastructure defense pieces in Karelia S.S.R. are destroyed" in logs(game)


def test_pieces_the_defender_keeps_are_captured():
    game = capture(False)
    assert count(game, KARELIA, "Germans", "aaGun") == 2
    assert events(game, "captured_units")[0]["by"] == "Germans"


def test_whole_games_under_the_rules_finish():
    for agent in ("random", "heuristic"):
        game = make_game(ID, seed=4, default_agent=agent, rounds=3)
        result = game.run(3)
        assert result["rounds_played"] == 3 or result["winner"]
