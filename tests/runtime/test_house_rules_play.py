"""The Revised house rules in play, checked against their rule-level answers: commerce raiding
(both texts) at collect income, victory-city limits, factory costs, the emergency purchase and
factory destruction, and victory."""

from __future__ import annotations

import pytest

from game_fixtures import (CR1, CR2, VC1, count, events, ids, load_dice, logs, make_game, run_phases, tap_dice,
                           treasury)

HOUSE = ["aar/house-rules@1"]

# The Revised start with one raiding fleet: a German battleship and two submarines in SZ 7,
# nothing else near a British factory (the SZ 8 submarine and the two fighters taken away).
RAIDERS = {"units": {"7 Sea Zone": {"Germans": {"battleship": 1, "submarine": 2}}, "8 Sea Zone": {},
                     "Norway": {"Germans": {"infantry": 3}}, "Western Europe": {"Germans": {"infantry": 2}}}}


def raid_roll(value: int, attack: int) -> int:
    return value if value <= attack else 0


def value_of(game, name: str, *args):
    """A definition of the rulesets evaluated on the game's state (names are spaces or players)."""
    ctx = game.ctx
    values = [ctx.space_values.get(a) or ctx.player_values.get(a) for a in args]
    return game.compiled.callable(name)(ctx, *values)


@pytest.mark.parametrize("refs, income, cap", [(CR1, 30, 22), (CR1, 10, 2), (CR2, 30, 24), (CR2, 10, 10)])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_commerce_raiding_takes_what_the_rule_computes_from_the_dice(refs, income, cap, seed):
    game = make_game(refs, scenario={**RAIDERS, "economy": {"British": {"income": income}}}, seed=seed)
    assert value_of(game, "raid_cap", "United Kingdom") == cap
    exact = game.compiled.exact_callable("zone_damage")(game.ctx, game.ctx.space_values["7 Sea Zone"],
                                                      game.ctx.player_values["British"])
    tapped = tap_dice(game)
    run_phases(game, "British", "collect_income")
    dice = [d.value for d in tapped]
    assert len(dice) == 1 + 2 * 3 and all(d.step == "collect_income" for d in tapped)
    surface = [raid_roll(dice[0], 4)]
    subs = [raid_roll(d, 2) for d in dice[1:]]
    damage = max(surface) + sum(sorted(subs, reverse=True)[:3])
    taken = min(damage, cap)
    assert damage in exact.weights                       # the exact distribution holds every sample
    assert (f"commerce raiding in 7 Sea Zone: surface rolls {surface}, submarine rolls {subs}: {damage}; "
            f"{taken} IPCs taken from United Kingdom") in logs(game)
    assert value_of(game, "last_raid", "British") == taken <= cap
    assert treasury(game, "British") == 30 + income - taken
    assert f"British collects {income - taken} IPCs" in logs(game)


def test_the_exact_distribution_of_zone_damage_covers_every_sampled_damage():
    seen = set()
    for seed in range(1, 13):
        game = make_game(CR2, scenario=RAIDERS, seed=seed)
        tapped = tap_dice(game)
        run_phases(game, "British", "collect_income")
        dice = [d.value for d in tapped]
        seen.add(raid_roll(dice[0], 4) + sum(sorted((raid_roll(d, 2) for d in dice[1:]), reverse=True)[:3]))
    exact = game.compiled.exact_callable("zone_damage")(game.ctx, game.ctx.space_values["7 Sea Zone"],
                                                      game.ctx.player_values["British"])
    assert seen <= set(exact.weights) == set(range(0, 11))
    assert sum(exact.weights.values()) == exact.total


def test_a_fighter_on_land_raids_the_zone_its_owner_chooses():
    scenario = {"units": {"8 Sea Zone": {}, "Norway": {"Germans": {"infantry": 3}},
                          "Western Europe": {"Germans": {"fighter": 1}}}}
    game = make_game(CR1, scenario=scenario, seed=4,
                     orders={"Germans": [{"round": 1, "answers": {"commerce_raiding.zone": "6 Sea Zone"}}]})
    tapped = tap_dice(game)
    run_phases(game, "British", "collect_income")
    assert len(tapped) == 1
    [line] = [m for m in logs(game) if m.startswith("commerce raiding")]
    assert line.startswith(f"commerce raiding in 6 Sea Zone: surface rolls [{raid_roll(tapped[0].value, 3)}]")
    assert [e["answer"] for e in events(game, "decision") if e.get("id") == "commerce_raiding.zone"] == ["6 Sea Zone"]


def test_the_round_summary_shows_what_raiding_took():
    game = make_game(CR2, scenario=RAIDERS, seed=5)
    game.run(1)
    summary = game.summaries[0]
    assert summary.income["British"] == 30 and value_of(game, "last_raid", "British") > 0
    for player in game.state.map.turn_order:
        assert summary.collected[player] == summary.income[player] - value_of(game, "last_raid", player)


# ---------------------------------------------------------------- victory cities in a game


def test_victory_city_limits_and_factory_cost_in_a_game_round():
    # the British buy 4 infantry and a factory in India (15 - 3 x 2 = 9), and try to place all
    # 4 infantry in London (at most 3): refused three times, then the fallback places them at
    # the cities that take them, in map order
    british = [{"round": 1, "purchase": {"infantry": 4}, "build": ["India"],
                "place": [{"at": "United Kingdom", "units": ["infantry"] * 4}]}]
    game = make_game(HOUSE, orders={"British": british})
    before = count(game, "United Kingdom", "British", "infantry")
    game.run(1)
    assert events(game, "purchase", player="British")[0]["spent"] == 12 + 9
    assert game.state.factories["India"].owner == "British"
    reasons = events(game, "refused", decision="place", player="British")[0]["reasons"]
    assert "at most 3 infantry may be placed at United Kingdom this turn" in reasons
    assert count(game, "United Kingdom", "British", "infantry") == before
    placed = [e["space"] for e in events(game, "add_units", owner="British") for _ in e["ids"]]
    assert placed == ["Anglo Egypt", "Australia", "Australia", "Eastern Canada"] and not events(game, "lost")


UKRAINE = "Ukraine S.S.R."


def emergency(dice, answers=None):
    units = {"Caucasus": {"Russians": {"infantry": 3}}, UKRAINE: {"Germans": {"infantry": 1}}}
    orders = {"Russians": [{"round": 1, "combat": [{"from": "Caucasus", "type": "infantry", "count": 3, "to": UKRAINE}],
                            "answers": {"attacker_retreat.go": True}}]}
    if answers:
        orders["Germans"] = [{"round": 1, "answers": answers}]
    game = make_game(VC1, scenario={"setup": "empty", "units": units}, orders=orders)
    loaded = load_dice(game, dice)
    tapped = tap_dice(game)
    run_phases(game, "Russians", "combat_move", "battle")
    assert loaded.left == 0
    return game, tapped


def test_a_city_attacked_before_its_defenders_first_turn_buys_infantry_that_fight():
    # Kiev (Ukraine, 2 VCP): the Germans buy 2 infantry just before the battle; all three defend
    game, tapped = emergency([6, 6, 6, 6, 6, 6], {"emergency_infantry.bought": 2})
    assert treasury(game, "Germans") == 40 - 6
    assert "Germans buys 2 infantry for Ukraine S.S.R. before the battle" in logs(game)
    added = events(game, "add_units", owner="Germans")[0]
    assert added["space"] == UKRAINE and len(added["ids"]) == 2
    assert len([d for d in tapped if d.step == "defender_fire"]) == 3
    assert count(game, UKRAINE, "Germans") == 3


def test_the_emergency_purchase_is_limited_by_the_city():
    game, _ = emergency([6, 6, 6, 6], {"emergency_infantry.bought": 3})   # Kiev takes at most 2
    assert events(game, "refused", decision="choose", player="Germans")
    assert count(game, UKRAINE, "Germans") == 1     # the fallback: the first option, none
    assert treasury(game, "Germans") == 40


def test_no_emergency_purchase_once_the_defender_has_played():
    units = {EE: {"Germans": {"infantry": 2}}, KARELIA: {"Russians": {"infantry": 1}}}
    orders = {"Germans": [{"round": 1, "combat": [{"from": EE, "type": "infantry", "count": 2, "to": KARELIA}]}]}
    game = make_game(VC1, scenario={"setup": "empty", "units": units}, orders=orders)
    load_dice(game, [1, 1, 6])
    run_phases(game, "Germans", "combat_move", "battle")
    assert not events(game, "hook", name="emergency_infantry")
    assert game.state.control[KARELIA] == "Germans"


EE, KARELIA = "Eastern Europe", "Karelia S.S.R."


@pytest.mark.parametrize("destroy", [True, False])
def test_a_purchased_factory_may_be_destroyed_by_its_owner_when_taken(destroy):
    units = {EE: {"Germans": {"armour": 2}}, KARELIA: {"Russians": {"infantry": 1}}}
    orders = {"Germans": [{"round": 1, "combat": [{"from": EE, "type": "armour", "count": 2, "to": KARELIA}]}],
              "Russians": [{"round": 1, "answers": {"purchased_factory_destroyed.destroy": destroy}}]}
    game = make_game(VC1, scenario={"setup": "empty", "units": units}, orders=orders)
    game.state.set_factory(KARELIA, "Russians")         # built during the game: not permanent
    load_dice(game, [3, 3, 6])
    run_phases(game, "Germans", "combat_move", "battle")
    assert game.state.control[KARELIA] == "Germans"
    if destroy:
        assert KARELIA not in game.state.factories
        assert "the factory in Karelia S.S.R. is destroyed" in logs(game)
    else:
        assert game.state.factories[KARELIA].owner == "Germans"


def test_a_factory_the_game_began_with_is_never_destroyed():
    units = {"Ukraine S.S.R.": {"Germans": {"armour": 2}}, "Caucasus": {"Russians": {"infantry": 1}}}
    orders = {"Germans": [{"round": 1, "combat": [{"from": "Ukraine S.S.R.", "type": "armour", "count": 2, "to": "Caucasus"}]}],
              "Russians": [{"round": 1, "answers": {"purchased_factory_destroyed.destroy": True}}]}
    game = make_game(VC1, scenario={"setup": "empty", "units": units, "factories": {"Caucasus": "Russians"}},
                     orders=orders)
    load_dice(game, [3, 3, 6])
    run_phases(game, "Germans", "combat_move", "battle")
    assert not events(game, "hook", name="purchased_factory_destroyed")
    assert game.state.factories["Caucasus"].owner == "Germans"


def test_major_victory_ends_a_house_rules_game():
    control = {"Russia": "Germans", "Caucasus": "Germans", "United Kingdom": "Germans", "Hawaiian Islands": "Japanese"}
    game = make_game(HOUSE, scenario={"setup": "empty", "control": control}, rounds=5)
    result = game.run(5)
    assert result["winner"] == "Axis" and result["rounds_played"] == 1
    assert result["reason"] == "major victory: the Axis control 40 VCPs"
    assert game.summaries[-1].scores == {"Allies": 25, "Axis": 40}
    assert ids(game, "Germany") == []
