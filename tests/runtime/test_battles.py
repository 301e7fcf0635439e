"""Each battle step of aar/base@1 in a scripted battle on the Revised board.

Most tests load the dice (`load_dice`): the rules must roll exactly the dice listed, in order, so
a test also checks who rolls and how many dice; the outcome is then the rule's, not a seed's
luck. The seeded tests check the hits of each step against the dice the host recorded.
"""

from __future__ import annotations

import jsonschema
import pytest

from ruleslang.base.yamlio import load_schema
from ruleslang.workspace.compositions import Workspace

from conftest import FIXTURES
from game_fixtures import (BASE, count, dice_of, events, ids, load_dice, logs, make_game, run_phases,
                           tap_dice, treasury)

EE, KARELIA, BELORUSSIA = "Eastern Europe", "Karelia S.S.R.", "Belorussia"
SZ5, SZ6 = "5 Sea Zone", "6 Sea Zone"


def attack(units: dict, orders: dict, *, attacker: str = "Germans", dice=None, seed: int = 1, refs=BASE,
           scenario: dict | None = None):
    """An empty Revised board with `units`, `attacker`'s combat move and battles played."""
    data = {"setup": "empty", "units": units, **(scenario or {})}
    game = make_game(refs, scenario=data, orders=orders, seed=seed)
    loaded = load_dice(game, dice) if dice is not None else None
    tapped = tap_dice(game)
    run_phases(game, attacker, "combat_move", "battle")
    if loaded is not None:
        assert loaded.left == 0, f"{loaded.left} loaded dice were not rolled"
    return game, tapped


def unit_ids(units: dict, space: str, owner: str, unit_type: str) -> list[int]:
    """The ids the units of `attack(units, ...)` get (a scenario always numbers its units alike)."""
    return ids(make_game(BASE, scenario={"setup": "empty", "units": units}), space, owner, unit_type)


def orders(player: str, *, combat=(), answers=None, casualties=None) -> dict:
    order = {"round": 1, "combat": list(combat)}
    if answers:
        order["answers"] = answers
    if casualties is not None:
        order["casualties"] = casualties
    return {player: [order]}


def merge(*parts: dict) -> dict:
    out: dict = {}
    for part in parts:
        for player, plan in part.items():
            out.setdefault(player, []).extend(plan)
    return out


def hits(game, side: str, round: int | None = None) -> int:
    return sum(e["count"] for e in events(game, "hits", side=side) if round is None or e["round"] == round)


def step_events(game, step: str) -> list[dict]:
    """The events logged while a battle step ran (every run of it)."""
    out, inside = [], False
    for e in game.state.events:
        if e.get("kind") == "phase" and e.get("name") == step:
            inside = e["stage"] == "start"
            continue
        if inside:
            out.append(e)
    return out


RETREAT_TO_EE = {"attacker_retreat.go": True, "attacker_retreat.to": EE}


# ---------------------------------------------------------------- attacker and defender fire


def test_artillery_raises_one_infantry_per_artillery_to_attack_2():
    # 3 Russian infantry; the first German infantry (boosted) hits on 2, the second (not boosted)
    # misses on 2, the artillery hits on 2: two hits. The defenders miss; the Germans retreat.
    units = {EE: {"Germans": {"infantry": 2, "artillery": 1}}, KARELIA: {"Russians": {"infantry": 3}}}
    move = [{"from": EE, "type": "infantry", "count": 2, "to": KARELIA}, {"from": EE, "type": "artillery", "to": KARELIA}]
    game, tapped = attack(units, orders("Germans", combat=move, answers=RETREAT_TO_EE), dice=[2, 2, 2, 6, 6, 6])
    assert dice_of(tapped, "attacker_fire") == [2, 2, 2]
    assert hits(game, "defender") == 2
    assert count(game, KARELIA, "Russians") == 1
    assert count(game, EE, "Germans") == 3          # retreated where they came from
    assert game.state.control[KARELIA] == "Russians"


def test_two_artillery_support_two_infantry_but_not_a_third():
    units = {EE: {"Germans": {"infantry": 3, "artillery": 2}}, KARELIA: {"Russians": {"infantry": 5}}}
    move = [{"from": EE, "type": "infantry", "count": 3, "to": KARELIA},
            {"from": EE, "type": "artillery", "count": 2, "to": KARELIA}]
    # infantry 2, 2, 2 (two boosted: hits, the third at 1: a miss), artillery 6, 6
    game, tapped = attack(units, orders("Germans", combat=move, answers=RETREAT_TO_EE),
                          dice=[2, 2, 2, 6, 6] + [6] * 5)
    assert hits(game, "defender") == 2


def test_defenders_hit_at_or_under_their_defense():
    # a Russian fighter defends at 4 (it rolls first), infantry at 2: 4, 2, 3 give two hits
    units = {EE: {"Germans": {"infantry": 3}}, KARELIA: {"Russians": {"infantry": 2, "fighter": 1}}}
    move = [{"from": EE, "type": "infantry", "count": 3, "to": KARELIA}]
    game, tapped = attack(units, orders("Germans", combat=move, answers=RETREAT_TO_EE), dice=[6, 6, 6, 4, 2, 3])
    assert dice_of(tapped, "defender_fire") == [4, 2, 3]
    assert hits(game, "attacker") == 2
    assert count(game, EE, "Germans") == 1


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_hits_match_the_recorded_dice(seed):
    # infantry only: attackers hit on 1, defenders on 2; every round's hits are the rolls at or
    # under the value, at most one per enemy still standing
    units = {EE: {"Germans": {"infantry": 4}}, KARELIA: {"Russians": {"infantry": 3}}}
    move = [{"from": EE, "type": "infantry", "count": 4, "to": KARELIA}]
    game, tapped = attack(units, orders("Germans", combat=move), seed=seed)
    end = events(game, "battle_end")[0]
    attackers, defenders = 4, 3
    for r in range(1, end["rounds"] + 1):
        a_dice, d_dice = dice_of(tapped, "attacker_fire", r), dice_of(tapped, "defender_fire", r)
        assert (len(a_dice), len(d_dice)) == (attackers, defenders)
        assert hits(game, "defender", r) == min(defenders, sum(d <= 1 for d in a_dice))
        assert hits(game, "attacker", r) == min(attackers, sum(d <= 2 for d in d_dice))
        attackers -= hits(game, "attacker", r)
        defenders -= hits(game, "defender", r)
    assert (end["attacker_left"], end["defender_left"]) == (attackers, defenders)
    assert [r.value for r in game.host.rolls] == [d.value for d in tapped]
    assert game.state.control[KARELIA] == ("Germans" if attackers and not defenders else "Russians")


# ---------------------------------------------------------------- AA fire


def test_aa_fires_one_die_per_air_unit_hitting_on_1_and_removes_at_once():
    units = {EE: {"Germans": {"infantry": 1, "fighter": 2, "bomber": 1}},
             KARELIA: {"Russians": {"infantry": 1, "aaGun": 1}}}
    move = [{"from": EE, "type": "infantry", "to": KARELIA}, {"from": EE, "type": "fighter", "count": 2, "to": KARELIA},
            {"from": EE, "type": "bomber", "to": KARELIA}]
    # AA: 1 (hit), 2, 1 (hit), one die for each aircraft in turn: the Germans lose at once the
    # first fighter and the bomber, so only the infantry and the other fighter fire (two dice),
    # then the defender (one die)
    game, tapped = attack(units, merge(orders("Germans", combat=move, answers=RETREAT_TO_EE)),
                          dice=[1, 2, 1, 6, 6, 6])
    assert dice_of(tapped, "aa_fire") == [1, 2, 1]
    assert len(dice_of(tapped, "attacker_fire")) == 2
    removed = [i for e in step_events(game, "aa_fire") if e["kind"] == "remove_units" for i in e["ids"]]
    assert len(removed) == 2
    assert count(game, EE, "Germans", "fighter") == 1 and count(game, EE, "Germans", "bomber") == 0


def test_an_aa_hit_is_on_the_aircraft_its_die_was_rolled_for():
    # the fighter's die misses, the bomber's hits: the bomber falls, though the attacker (its
    # fallback takes the cheapest) would rather lose the fighter
    units = {EE: {"Germans": {"infantry": 1, "fighter": 1, "bomber": 1}},
             KARELIA: {"Russians": {"infantry": 1, "aaGun": 1}}}
    move = [{"from": EE, "type": "infantry", "to": KARELIA}, {"from": EE, "type": "fighter", "to": KARELIA},
            {"from": EE, "type": "bomber", "to": KARELIA}]
    game, tapped = attack(units, orders("Germans", combat=move, answers=RETREAT_TO_EE), dice=[6, 1, 6, 6, 6])
    assert dice_of(tapped, "aa_fire") == [6, 1]
    assert count(game, EE, "Germans", "bomber") == 0 and count(game, EE, "Germans", "fighter") == 1


def test_aa_fires_once_before_the_first_round():
    units = {EE: {"Germans": {"infantry": 1, "fighter": 2}}, KARELIA: {"Russians": {"infantry": 1, "aaGun": 1}}}
    move = [{"from": EE, "type": "infantry", "to": KARELIA}, {"from": EE, "type": "fighter", "count": 2, "to": KARELIA}]
    # before the battle (round 0) AA 5, 5; round 1: attackers 6, 6, 6; defender 6; round 2:
    # attackers 6, 6, 1 (a fighter hits); defender 6
    game, tapped = attack(units, orders("Germans", combat=move), dice=[5, 5, 6, 6, 6, 6, 6, 6, 1, 6])
    assert dice_of(tapped, "aa_fire", 0) == [5, 5]
    assert dice_of(tapped, "aa_fire") == [5, 5]
    assert game.state.control[KARELIA] == "Germans"
    # the AA gun does not fight, and does not outlive the territory
    assert count(game, KARELIA, "Russians") == 0


def test_a_lone_aa_gun_fires_at_the_aircraft_attacking_its_territory():
    # no unit fights for Karelia, so no round is fought; the AA gun still fires once at each
    # aircraft before the battle: the fighter falls, the bomber's die misses
    units = {EE: {"Germans": {"fighter": 1, "bomber": 1}}, KARELIA: {"Russians": {"aaGun": 1}}}
    move = [{"from": EE, "type": "fighter", "to": KARELIA}, {"from": EE, "type": "bomber", "to": KARELIA}]
    game, tapped = attack(units, orders("Germans", combat=move), dice=[1, 4])
    assert dice_of(tapped, "aa_fire") == [1, 4]
    assert count(game, KARELIA, "Germans", "fighter") == 0 and count(game, KARELIA, "Germans", "bomber") == 1
    end = events(game, "battle_end")[0]
    assert (end["rounds"], end["taken"]) == (0, False)
    assert count(game, KARELIA, "Russians", "aaGun") == 1


def test_land_units_take_a_territory_held_only_by_an_aa_gun_and_capture_the_gun():
    # the gun does not defend: no round is fought; the infantry takes Karelia, the gun changes
    # hands; it fires at the fighter once before the battle (6: a miss)
    units = {EE: {"Germans": {"infantry": 1, "fighter": 1}}, KARELIA: {"Russians": {"aaGun": 1}}}
    move = [{"from": EE, "type": "infantry", "to": KARELIA}, {"from": EE, "type": "fighter", "to": KARELIA}]
    game, tapped = attack(units, orders("Germans", combat=move), dice=[6])
    assert dice_of(tapped, "aa_fire") == [6]
    end = events(game, "battle_end")[0]
    assert (end["rounds"], end["result"], end["taken"]) == (0, "attacker", True)
    assert game.state.control[KARELIA] == "Germans"
    assert count(game, KARELIA, "Germans", "aaGun") == 1 and count(game, KARELIA, "Russians") == 0


def test_no_aa_fire_without_an_aa_gun():
    units = {EE: {"Germans": {"fighter": 1, "infantry": 1}}, KARELIA: {"Russians": {"infantry": 1}}}
    move = [{"from": EE, "type": "infantry", "to": KARELIA}, {"from": EE, "type": "fighter", "to": KARELIA}]
    game, tapped = attack(units, orders("Germans", combat=move), dice=[1, 1, 6])
    assert dice_of(tapped, "aa_fire") == []
    assert game.state.control[KARELIA] == "Germans"


# ---------------------------------------------------------------- shore bombardment


def amphibious(dice, *, ships=None):
    units = {"Germany": {"Germans": {"infantry": 2}}, SZ5: {"Germans": ships or {"transport": 1, "battleship": 1}},
             KARELIA: {"Russians": {"infantry": 2}}}
    game = make_game(BASE, scenario={"setup": "empty", "units": units})
    transport = ids(game, SZ5, "Germans", "transport")[0]
    foot = ids(game, "Germany", "Germans", "infantry")
    move = ([{"unit": u, "to": SZ5, "kind": "load", "transport": transport} for u in foot] +
            [{"unit": u, "to": KARELIA, "kind": "unload", "transport": transport} for u in foot])
    return attack(units, orders("Germans", combat=move, answers={"attacker_retreat.go": True}), dice=dice)


def test_battleship_bombards_in_the_first_round_of_an_amphibious_assault_only():
    # bombard 3 (a hit: its casualty still fires back), attackers 6 6, defenders 6 6;
    # round 2: attackers 1 6 (a hit), defender 6
    game, tapped = amphibious([3, 6, 6, 6, 6, 1, 6, 6])
    assert events(game, "battle")[0]["amphibious"] is True
    assert dice_of(tapped, "bombard", 1) == [3]
    assert dice_of(tapped, "bombard", 2) == []
    assert len(dice_of(tapped, "defender_fire", 1)) == 2   # the bombardment's casualty fires back
    assert game.state.control[KARELIA] == "Germans"
    # no retreat after a landing, though the Germans would take it
    assert not [e for e in events(game, "decision") if e.get("id") == "attacker_retreat.go"]


def test_transports_do_not_bombard():
    game, tapped = amphibious([6, 6, 6, 6] + [1, 1, 6, 6], ships={"transport": 1})
    assert dice_of(tapped, "bombard") == []


# ---------------------------------------------------------------- submarines


def sub_attack(defenders: dict, dice, *, answers=None, casualties=None):
    units = {SZ5: {"Germans": {"submarine": 2}}, SZ6: {"British": defenders}}
    move = [{"from": SZ5, "type": "submarine", "count": 2, "to": SZ6}]
    british = orders("British", casualties=casualties) if casualties is not None else {}
    return attack(units, merge(orders("Germans", combat=move, answers=answers), british), dice=dice)


def test_submarines_without_an_enemy_destroyer_sink_at_once_and_cannot_hit_air():
    # the subs roll 1 and 2: two hits, removed before anyone fires back; the fighter cannot be
    # chosen (the cheapest-first fallback would pick it before the carrier), so the transport
    # and the carrier go; only the fighter fires back (one die); the subs then submerge
    game, tapped = sub_attack({"transport": 1, "carrier": 1, "fighter": 1}, [1, 2, 6],
                              answers={"submarines_submerge.dive": True})
    assert dice_of(tapped, "submarine_fire") == [1, 2]
    assert dice_of(tapped, "attacker_fire") == []        # submarines fire only in their own step
    assert len(dice_of(tapped, "defender_fire")) == 1
    sunk = [i for e in step_events(game, "submarine_fire") if e["kind"] == "remove_units" for i in e["ids"]]
    assert len(sunk) == 2
    assert count(game, SZ6, "British") == 1 and count(game, SZ6, "British", "fighter") == 1
    assert events(game, "submerge")
    assert count(game, SZ6, "Germans", "submarine") == 2     # submerged, still in the zone
    assert events(game, "battle_end")[0]["result"] == "defender"


def test_submarine_hits_against_a_destroyer_are_removed_at_the_end_of_the_round():
    destroyer = unit_ids({SZ5: {"Germans": {"submarine": 2}}, SZ6: {"British": {"destroyer": 1, "transport": 1}}},
                         SZ6, "British", "destroyer")[0]
    # one sub hits; the British take the destroyer, which still fires (two defender dice); the
    # Germans retreat (the subs cannot submerge facing a destroyer); then the destroyer goes
    game, tapped = sub_attack({"destroyer": 1, "transport": 1}, [1, 6, 6, 6],
                              answers={"attacker_retreat.go": True}, casualties=[destroyer])
    assert ids(game, SZ6, "British", "destroyer") == []
    hit = events(game, "hits", side="defender")[0]
    assert hit["now"] is False and hit["chosen"] == [destroyer]
    assert len(dice_of(tapped, "defender_fire")) == 2
    assert not events(game, "submerge")
    assert count(game, SZ5, "Germans", "submarine") == 2


def test_air_units_hit_submarines_only_with_a_destroyer():
    # a fighter alone cannot hit a submarine: its hit goes to the transport beside it (the
    # cheapest-first fallback would pick the submarine); the sub submerges at the end of the round
    units = {"Western Europe": {"Germans": {"fighter": 1}}, SZ6: {"British": {"submarine": 1, "transport": 1}}}
    move = [{"from": "Western Europe", "type": "fighter", "to": SZ6}]
    transport = unit_ids(units, SZ6, "British", "transport")
    game, tapped = attack(units, merge(orders("Germans", combat=move),
                                       orders("British", answers={"submarines_submerge.dive": True})), dice=[1, 6])
    assert dice_of(tapped, "attacker_fire") == [1]
    assert [e["chosen"] for e in events(game, "hits", side="defender")] == [transport]
    assert count(game, SZ6, "British", "submarine") == 1
    del units[SZ6]["British"]["transport"]
    # with a destroyer beside it, the fighter's 1 sinks the sub (which fires first, at the destroyer)
    units[SZ5] = {"Germans": {"destroyer": 1}}
    move.append({"from": SZ5, "type": "destroyer", "to": SZ6})
    game, tapped = attack(units, orders("Germans", combat=move), dice=[6, 1, 6])
    assert (dice_of(tapped, "submarine_fire"), dice_of(tapped, "attacker_fire")) == ([6], [1, 6])
    assert hits(game, "defender") == 1
    assert count(game, SZ6, "British") == 0


# ---------------------------------------------------------------- hit points and casualties


def test_a_battleship_takes_two_hits():
    units = {"Western Europe": {"Germans": {"fighter": 2}}, SZ6: {"British": {"battleship": 1}}}
    move = [{"from": "Western Europe", "type": "fighter", "count": 2, "to": SZ6}]
    # round 1: the fighters hit once, the battleship (damaged) fires back; round 2: two hits,
    # but one is all it can still take
    game, tapped = attack(units, orders("Germans", combat=move), dice=[3, 6, 6, 3, 3, 6])
    ship = events(game, "hits", side="defender")
    assert [e["count"] for e in ship] == [1, 1]
    assert len(dice_of(tapped, "defender_fire", 2)) == 1     # still afloat in round 2
    assert count(game, SZ6, "British") == 0
    assert events(game, "battle_end")[0]["result"] == "attacker"


def test_casualties_are_chosen_by_the_owner():
    units = {EE: {"Germans": {"armour": 1}}, KARELIA: {"Russians": {"infantry": 1, "armour": 1}}}
    move = [{"from": EE, "type": "armour", "to": KARELIA}]
    tank = unit_ids(units, KARELIA, "Russians", "armour")[0]
    chosen = merge(orders("Germans", combat=move, answers=RETREAT_TO_EE), orders("Russians", casualties=[tank]))
    game, _ = attack(units, chosen, dice=[1, 6, 6])
    assert ids(game, KARELIA, "Russians", "armour") == []
    assert count(game, KARELIA, "Russians", "infantry") == 1
    # without an order, the owner's fallback loses the cheapest unit
    game, _ = attack(units, orders("Germans", combat=move, answers=RETREAT_TO_EE), dice=[1, 6, 6])
    assert ids(game, KARELIA, "Russians", "armour") == [tank]
    assert count(game, KARELIA, "Russians", "infantry") == 0


# ---------------------------------------------------------------- retreat


def two_front_attack(answers, dice):
    units = {EE: {"Germans": {"infantry": 1}}, BELORUSSIA: {"Germans": {"infantry": 1}},
             KARELIA: {"Russians": {"infantry": 2}}}
    move = [{"from": EE, "type": "infantry", "to": KARELIA}, {"from": BELORUSSIA, "type": "infantry", "to": KARELIA}]
    return attack(units, orders("Germans", combat=move, answers=answers), dice=dice)


def test_all_attackers_retreat_together_to_a_space_one_of_them_came_from():
    game, _ = two_front_attack(RETREAT_TO_EE, [6, 6, 6, 6])
    assert count(game, EE, "Germans") == 2
    assert count(game, KARELIA, "Germans") == 0
    assert events(game, "battle_end")[0]["result"] == "retreat"


def test_a_retreat_goes_back_to_the_adjacent_space_the_attack_came_from():
    # the armour drove Russia -> West Russia (Russian since the start of the turn) -> Belorussia:
    # it retreats to West Russia, not Russia
    units = {"Russia": {"Russians": {"armour": 1}}, BELORUSSIA: {"Germans": {"infantry": 2}}}
    move = [{"from": "Russia", "type": "armour", "to": BELORUSSIA}]
    game, _ = attack(units, orders("Russians", combat=move, answers={"attacker_retreat.go": True}),
                     attacker="Russians", dice=[6, 6, 6], scenario={"control": {"West Russia": "Russians"}})
    assert events(game, "retreat")[0]["to"] == "West Russia"
    assert count(game, "West Russia", "Russians", "armour") == 1


def test_a_retreat_elsewhere_is_refused():
    game, _ = two_front_attack({"attacker_retreat.go": True, "attacker_retreat.to": "West Russia"}, [6, 6, 6, 6])
    refused = events(game, "refused", decision="choose")
    assert len(refused) == 3                  # asked three times, then the first legal option
    assert events(game, "fallback", decision="choose")
    assert count(game, BELORUSSIA, "Germans") == 2


# ---------------------------------------------------------------- capture


def test_capture_changes_control_and_the_factory_changes_hands():
    units = {"Ukraine S.S.R.": {"Germans": {"armour": 2}}, "Caucasus": {"Russians": {"infantry": 1}}}
    move = [{"from": "Ukraine S.S.R.", "type": "armour", "count": 2, "to": "Caucasus"}]
    game, _ = attack(units, orders("Germans", combat=move), dice=[3, 6, 6],
                     scenario={"factories": {"Caucasus": "Russians"}})
    assert game.state.control["Caucasus"] == "Germans"
    assert game.state.factories["Caucasus"].owner == "Germans"
    assert game.state.factories["Caucasus"].flags.get("original") is True
    assert treasury(game, "Russians") == 24 and treasury(game, "Germans") == 40


def test_taking_a_capital_takes_its_treasury():
    units = {"West Russia": {"Germans": {"armour": 2}}, "Russia": {"Russians": {"infantry": 1}}}
    move = [{"from": "West Russia", "type": "armour", "count": 2, "to": "Russia"}]
    game, _ = attack(units, orders("Germans", combat=move), dice=[3, 6, 6])
    assert game.state.control["Russia"] == "Germans"
    assert (treasury(game, "Germans"), treasury(game, "Russians")) == (64, 0)
    assert "Germans takes 24 IPCs from Russians with its capital" in logs(game)


@pytest.mark.parametrize("uk_held_by, taker", [("British", "British"), ("Germans", "Americans")])
def test_liberation_returns_a_territory_to_its_first_owner_while_it_holds_its_capital(uk_held_by, taker):
    units = {"Trans-Jordan": {"Americans": {"armour": 1}}, "Anglo Egypt": {"Germans": {"infantry": 1}}}
    move = [{"from": "Trans-Jordan", "type": "armour", "to": "Anglo Egypt"}]
    game, _ = attack(units, orders("Americans", combat=move), attacker="Americans", dice=[3, 6],
                     scenario={"control": {"Anglo Egypt": "Germans", "United Kingdom": uk_held_by}})
    assert game.state.control["Anglo Egypt"] == taker
    assert count(game, "Anglo Egypt", "Americans") == 1


def test_a_defended_territory_is_kept_when_the_attack_fails():
    units = {EE: {"Germans": {"infantry": 1}}, KARELIA: {"Russians": {"infantry": 1}}}
    game, _ = attack(units, orders("Germans", combat=[{"from": EE, "type": "infantry", "to": KARELIA}]), dice=[6, 1])
    assert game.state.control[KARELIA] == "Russians"
    assert events(game, "battle_end")[0]["result"] == "defender"
    assert not events(game, "control")


# ---------------------------------------------------------------- strategic bombing


def bomb(target: str, bombers: int, dice, *, aa: bool, start: str, victim_units=None):
    here = {"bomber": bombers}
    units = {start: {"Germans" if start != "United Kingdom" else "British": here}}
    owner = "Germans" if start == "United Kingdom" else "Russians"
    if aa:
        units[target] = {owner: {"aaGun": 1}}
    attacker = "British" if start == "United Kingdom" else "Germans"
    move = [{"from": start, "type": "bomber", "count": bombers, "to": target, "kind": "bomb"}]
    return attack(units, orders(attacker, combat=move), attacker=attacker, dice=dice,
                  scenario={"factories": {target: owner}})


def test_bombing_raid_aa_fire_then_damage_from_the_survivors():
    # AA: 1 (a bomber down), 4; the survivor rolls 5: Germany loses 5 IPCs
    game, tapped = bomb("Germany", 2, [1, 4, 5], aa=True, start="United Kingdom")
    assert dice_of(tapped, "raid_aa_fire") == [1, 4] and dice_of(tapped, "bombing_raid") == [5]
    assert count(game, "Germany", "British", "bomber") == 1
    assert treasury(game, "Germans") == 35
    assert "bombing raid on Germany: 5 rolled, Germans loses 5 IPCs" in logs(game)
    assert not events(game, "battle")     # a raid is not a battle for the territory
    assert game.state.control["Germany"] == "Germans"


def test_bombing_damage_is_capped_at_the_territory_ipc_value():
    game, _ = bomb("Caucasus", 2, [6, 6], aa=False, start="Ukraine S.S.R.")
    assert treasury(game, "Russians") == 24 - 4
    assert "bombing raid on Caucasus: 12 rolled, Russians loses 4 IPCs" in logs(game)


# ---------------------------------------------------------------- runtime refusals


def test_hits_outside_a_battle_are_a_located_error():
    from ruleslang.base.errors import EvalError
    from ruleslang.lang.eval.statements import run_procedure

    game = make_game(BASE)
    game.state.start_turn("Germans")
    with pytest.raises(EvalError) as info:
        run_procedure(game.ctx, "attacker_fire")
    assert info.value.code == "E535"


def test_when_both_sides_are_destroyed_the_defender_holds():
    units = {EE: {"Germans": {"infantry": 1}}, KARELIA: {"Russians": {"infantry": 1}}}
    game, _ = attack(units, orders("Germans", combat=[{"from": EE, "type": "infantry", "to": KARELIA}]), dice=[1, 2])
    end = events(game, "battle_end")[0]
    assert (end["attacker_left"], end["defender_left"], end["result"], end["taken"]) == (0, 0, "defender", False)
    assert game.battle_results[0]["result"] == "defender"
    assert game.state.control[KARELIA] == "Russians"


def test_a_battle_where_nobody_can_hit_ends_before_a_die_is_rolled():
    # a fighter cannot hit a submarine (no destroyer), nor the submarine the fighter: the
    # stalemate setting (no_side_can_hit) ends the battle before its first round, the defender
    # holding; no die is rolled
    units = {"Western Europe": {"Germans": {"fighter": 1}}, SZ6: {"British": {"submarine": 1}}}
    move = [{"from": "Western Europe", "type": "fighter", "to": SZ6}]
    no = {"submarines_submerge.dive": False, "attacker_retreat.go": False}
    game, tapped = attack(units, merge(orders("Germans", combat=move, answers=no), orders("British", answers=no)),
                          dice=[])
    assert events(game, "stalemate")[0]["rounds"] == 0
    end = events(game, "battle_end")[0]
    assert (end["rounds"], end["result"]) == (0, "defender")
    assert count(game, SZ6, "British", "submarine") == 1 and count(game, SZ6, "Germans", "fighter") == 1


def test_a_stalemate_is_seen_once_the_last_unit_that_could_hit_is_gone():
    # round 1: the destroyer misses, the British submarine sinks it (the fighter is no target);
    # before round 2 the fighter faces the submarine alone: a stalemate
    units = {"Western Europe": {"Germans": {"fighter": 1}}, SZ5: {"Germans": {"destroyer": 1}},
             SZ6: {"British": {"submarine": 1}}}
    move = [{"from": "Western Europe", "type": "fighter", "to": SZ6}, {"from": SZ5, "type": "destroyer", "to": SZ6}]
    no = {"submarines_submerge.dive": False, "attacker_retreat.go": False}
    game, tapped = attack(units, merge(orders("Germans", combat=move, answers=no), orders("British", answers=no)),
                          dice=[1, 6, 6])
    assert dice_of(tapped, "submarine_fire") == [1]
    end = events(game, "battle_end")[0]
    assert (end["rounds"], end["result"]) == (1, "defender")
    assert events(game, "stalemate")[0]["rounds"] == 1


def test_bombers_on_a_raid_do_not_also_fight_for_the_territory():
    units = {"Ukraine S.S.R.": {"Germans": {"bomber": 1, "armour": 1}}, "Caucasus": {"Russians": {"infantry": 1}}}
    move = [{"from": "Ukraine S.S.R.", "type": "bomber", "to": "Caucasus", "kind": "bomb"},
            {"from": "Ukraine S.S.R.", "type": "armour", "to": "Caucasus"}]
    # the raid rolls 2; in the battle only the armour fires (3: a hit), then the infantry (6)
    game, tapped = attack(units, orders("Germans", combat=move), dice=[2, 3, 6],
                          scenario={"factories": {"Caucasus": "Russians"}})
    assert dice_of(tapped, "bombing_raid") == [2] and dice_of(tapped, "attacker_fire") == [3]
    assert events(game, "battle")[0]["attacking"] == 1
    assert treasury(game, "Russians") == 22 and game.state.control["Caucasus"] == "Germans"


def test_both_sides_submarines_fire_at_once():
    # the German sub sinks the British one (its owner's choice), which still fires back in the
    # same step and sinks the German sub; then only the transport is left to fire
    units = {SZ5: {"Germans": {"submarine": 1}}, SZ6: {"British": {"submarine": 1, "transport": 1}}}
    sub = unit_ids(units, SZ6, "British", "submarine")
    move = [{"from": SZ5, "type": "submarine", "to": SZ6}]
    game, tapped = attack(units, merge(orders("Germans", combat=move), orders("British", casualties=sub)),
                          dice=[1, 2, 6])
    assert dice_of(tapped, "submarine_fire") == [1, 2]
    assert [(e["side"], e["now"]) for e in events(game, "hits")] == [("defender", True), ("attacker", True)]
    assert count(game, SZ6) == 1 and count(game, SZ6, "British", "transport") == 1


def test_an_allied_capital_is_always_liberated():
    units = {"Caucasus": {"British": {"armour": 1}}, "Russia": {"Germans": {"infantry": 1}}}
    move = [{"from": "Caucasus", "type": "armour", "to": "Russia"}]
    game, _ = attack(units, orders("British", combat=move), attacker="British", dice=[3, 6],
                     scenario={"control": {"Russia": "Germans"}})
    assert game.state.control["Russia"] == "Russians"
    assert "British takes Russia and returns it to Russians" in logs(game)
    assert (treasury(game, "British"), treasury(game, "Russians")) == (30, 24)


# ---------------------------------------------------------------- no retreat from a decided battle


def test_no_retreat_is_offered_once_the_last_defender_is_hit():
    # the first infantry hits the only defender, which fires back and misses: the battle is won,
    # so the attacker, who would retreat, is not asked
    units = {EE: {"Germans": {"infantry": 2}}, KARELIA: {"Russians": {"infantry": 1}}}
    move = [{"from": EE, "type": "infantry", "count": 2, "to": KARELIA}]
    game, _ = attack(units, orders("Germans", combat=move, answers=RETREAT_TO_EE), dice=[1, 6, 6])
    assert not [e for e in events(game, "decision") if e.get("id") == "attacker_retreat.go"]
    assert not events(game, "retreat")
    end = events(game, "battle_end")[0]
    assert (end["result"], end["taken"]) == ("attacker", True)
    assert game.state.control[KARELIA] == "Germans"


def test_no_retreat_when_both_sides_are_destroyed():
    units = {EE: {"Germans": {"infantry": 1}}, KARELIA: {"Russians": {"infantry": 1}}}
    move = [{"from": EE, "type": "infantry", "to": KARELIA}]
    game, _ = attack(units, orders("Germans", combat=move, answers=RETREAT_TO_EE), dice=[1, 2])
    assert not events(game, "retreat")
    assert events(game, "battle_end")[0]["result"] == "defender"
    assert game.battle_results[0]["result"] == "defender"


# ---------------------------------------------------------------- retreat destinations


def test_a_retreat_goes_only_where_a_land_or_sea_unit_came_from():
    # the fighter came from Belorussia, the infantry from Eastern Europe: Belorussia, where only
    # an aircraft came from, is refused; the fallback is the one legal option
    units = {EE: {"Germans": {"infantry": 1}}, BELORUSSIA: {"Germans": {"fighter": 1}},
             KARELIA: {"Russians": {"infantry": 2}}}
    move = [{"from": EE, "type": "infantry", "to": KARELIA}, {"from": BELORUSSIA, "type": "fighter", "to": KARELIA}]
    game, _ = attack(units, orders("Germans", combat=move,
                                   answers={"attacker_retreat.go": True, "attacker_retreat.to": BELORUSSIA}),
                     dice=[6, 6, 6, 6])
    assert events(game, "retreat")[0]["to"] == EE
    assert count(game, EE, "Germans") == 2 and count(game, BELORUSSIA, "Germans") == 0


def test_no_retreat_to_a_territory_taken_this_turn():
    # the armour blitzed through West Russia, German at the start of the turn: no retreat there
    units = {"Russia": {"Russians": {"armour": 1}}, BELORUSSIA: {"Germans": {"infantry": 2}}}
    move = [{"from": "Russia", "type": "armour", "to": BELORUSSIA}]
    game, _ = attack(units, orders("Russians", combat=move, answers={"attacker_retreat.go": True}),
                     attacker="Russians", dice=[6, 6, 6, 1, 6, 6, 1, 6])
    assert game.state.control_at_turn_start["West Russia"] == "Germans"
    assert not events(game, "retreat")
    assert events(game, "battle_end")[0]["rounds"] == 3


def test_aircraft_alone_retreat_where_they_stand():
    # no land or sea unit came from anywhere: the aircraft retreat to the battle's own space (they
    # leave the battle there and fly on in the non-combat move), as TripleA's planes do
    units = {"Western Europe": {"Germans": {"fighter": 1}}, SZ6: {"British": {"destroyer": 1}}}
    move = [{"from": "Western Europe", "type": "fighter", "to": SZ6}]
    game, _ = attack(units, orders("Germans", combat=move, answers={"attacker_retreat.go": True}), dice=[6, 6])
    assert [(e["to"], e["round"]) for e in events(game, "retreat")] == [(SZ6, 1)]
    assert events(game, "battle_end")[0]["result"] == "retreat"
    assert count(game, SZ6, "Germans", "fighter") == 1 and count(game, SZ6, "British", "destroyer") == 1


def test_after_a_landing_aircraft_withdraw_and_the_landed_units_fight_on():
    # round 1 all miss; the fighter withdraws (the landed infantry may not retreat); round 2 only
    # the infantry fires, and falls: the defender holds, the fighter stays in Karelia, out of the battle
    units = {"Germany": {"Germans": {"infantry": 1}}, SZ5: {"Germans": {"transport": 1}}, EE: {"Germans": {"fighter": 1}},
             KARELIA: {"Russians": {"infantry": 2}}}
    game = make_game(BASE, scenario={"setup": "empty", "units": units})
    foot, transport = ids(game, "Germany", "Germans", "infantry"), ids(game, SZ5, "Germans", "transport")[0]
    fighter = ids(game, EE, "Germans", "fighter")
    move = [{"unit": foot[0], "to": SZ5, "kind": "load", "transport": transport},
            {"unit": foot[0], "to": KARELIA, "kind": "unload", "transport": transport},
            {"from": EE, "type": "fighter", "to": KARELIA}]
    answers = {"attacker_retreat.go": True, "attacker_retreat.to": KARELIA}
    game, tapped = attack(units, orders("Germans", combat=move, answers=answers), dice=[6, 6, 6, 6, 6, 1, 6])
    assert [(e["to"], e["units"], e["round"]) for e in events(game, "retreat")] == [(KARELIA, fighter, 1)]
    assert len(dice_of(tapped, "attacker_fire", 2)) == 1
    end = events(game, "battle_end")[0]
    assert (end["result"], end["rounds"]) == ("defender", 2)
    assert count(game, KARELIA, "Germans", "fighter") == 1 and count(game, KARELIA, "Germans", "infantry") == 0


def test_aircraft_left_alone_by_the_round_s_casualties_retreat_where_they_stand():
    # the infantry falls in round 1: the fighter, all that is left, retreats where it stands,
    # not to Eastern Europe (asked for, refused; the fallback takes the one option)
    units = {EE: {"Germans": {"infantry": 1, "fighter": 1}}, KARELIA: {"Russians": {"infantry": 2}}}
    move = [{"from": EE, "type": "infantry", "to": KARELIA}, {"from": EE, "type": "fighter", "to": KARELIA}]
    game, _ = attack(units, orders("Germans", combat=move, answers={"attacker_retreat.go": True, "attacker_retreat.to": EE}),
                     dice=[6, 6, 1, 6])
    assert [e["to"] for e in events(game, "retreat")] == [KARELIA]
    assert count(game, KARELIA, "Germans", "fighter") == 1 and count(game, EE, "Germans") == 0


def test_land_and_air_units_retreat_together_from_a_land_battle():
    # not a landing: the fighter is not offered a retreat of its own (Karelia is no option); all retreat to Eastern Europe
    units = {EE: {"Germans": {"infantry": 1, "fighter": 1}}, KARELIA: {"Russians": {"infantry": 2}}}
    move = [{"from": EE, "type": "infantry", "to": KARELIA}, {"from": EE, "type": "fighter", "to": KARELIA}]
    game, _ = attack(units, orders("Germans", combat=move,
                                   answers={"attacker_retreat.go": True, "attacker_retreat.to": KARELIA}),
                     dice=[6, 6, 6, 6])
    assert [e["to"] for e in events(game, "retreat")] == [EE]
    assert count(game, EE, "Germans") == 2


# ---------------------------------------------------------------- bombardment: once a turn, from the landing's zone


def landings(units: dict, targets: list[str], *, extra=(), scenario=None):
    """`units` on an empty board; each German infantry in Germany lands on the target of the same
    rank from its own transport in 5 Sea Zone; `extra`: further combat moves after the landings."""
    game = make_game(BASE, scenario={"setup": "empty", "units": units, **(scenario or {})})
    transports = ids(game, SZ5, "Germans", "transport")
    foot = ids(game, "Germany", "Germans", "infantry")
    move = ([{"unit": u, "to": SZ5, "kind": "load", "transport": t} for u, t in zip(foot, transports)] +
            [{"unit": u, "to": target, "kind": "unload", "transport": t}
             for u, t, target in zip(foot, transports, targets)] + list(extra))
    return attack(units, orders("Germans", combat=move), scenario=scenario)


def test_a_battleship_bombards_one_landing_a_turn():
    units = {"Germany": {"Germans": {"infantry": 2}}, SZ5: {"Germans": {"transport": 2, "battleship": 1}},
             KARELIA: {"Russians": {"infantry": 1}}, EE: {"Russians": {"infantry": 1}}}
    game, tapped = landings(units, [KARELIA, EE], scenario={"control": {EE: "Russians"}})
    assert [e["amphibious"] for e in events(game, "battle")] == [True, True]
    assert len(dice_of(tapped, "bombard")) == 1


def test_a_battleship_that_sailed_away_does_not_bombard():
    units = {"Germany": {"Germans": {"infantry": 1}}, SZ5: {"Germans": {"transport": 1, "battleship": 1}},
             KARELIA: {"Russians": {"infantry": 1}}, SZ6: {"British": {"transport": 1}}}
    game, tapped = landings(units, [KARELIA], extra=[{"from": SZ5, "type": "battleship", "to": SZ6}])
    assert len(events(game, "battle")) == 2
    assert count(game, SZ6, "Germans", "battleship") == 1
    assert dice_of(tapped, "bombard") == []


# ---------------------------------------------------------------- landings that wait for a sea battle


def landing_under_fire(sea: dict, dice, *, defenders=None):
    """German infantry in Western Europe boards a transport in 6 Sea Zone, which sails (with `sea`)
    into 5 Sea Zone, where a British destroyer lies, and lands it on Karelia in combat move: the
    landing waits for the sea battle in 5 Sea Zone."""
    units = {"Western Europe": {"Germans": {"infantry": 1}}, SZ6: {"Germans": {"transport": 1, **sea}},
             SZ5: {"British": {"destroyer": 1}}, KARELIA: {"Russians": defenders or {}}}
    game = make_game(BASE, scenario={"setup": "empty", "units": units})
    foot, transport = ids(game, "Western Europe", "Germans", "infantry"), ids(game, SZ6, "Germans", "transport")[0]
    move = ([{"unit": foot[0], "to": SZ6, "kind": "load", "transport": transport}]
            + [{"from": SZ6, "type": t, "to": SZ5} for t in ["transport", *sea]]
            + [{"unit": foot[0], "to": KARELIA, "kind": "unload", "transport": transport}])
    game, tapped = attack(units, orders("Germans", combat=move), dice=dice)
    return game, tapped, foot


def test_a_landing_waits_for_the_sea_battle_and_follows_it_when_it_is_won():
    # the sea battle first: the battleship's 1 sinks the destroyer (the transport's 1 is no hit at
    # attack 0, the cargo does not fire), the destroyer misses; then the infantry lands and takes
    # Karelia (1; the defender misses). The battleship fought at sea: it does not bombard.
    game, tapped, foot = landing_under_fire({"battleship": 1}, [1, 1, 6, 1, 6], defenders={"infantry": 1})
    assert events(game, "landing_planned")[0]["units"] == foot
    assert [e["space"] for e in events(game, "battle")] == [SZ5, KARELIA]
    assert len(dice_of(tapped, "attacker_fire")) == 3 and dice_of(tapped, "bombard") == []
    assert events(game, "landing")[0]["units"] == foot
    assert [e["amphibious"] for e in events(game, "battle")] == [False, True]
    assert game.state.control[KARELIA] == "Germans" and count(game, KARELIA, "Germans", "infantry") == 1


def test_a_landing_into_an_empty_enemy_territory_takes_it_after_the_sea_battle():
    game, tapped, foot = landing_under_fire({"battleship": 1}, [1, 1, 6])
    assert [e["space"] for e in events(game, "battle")] == [SZ5, KARELIA]
    assert game.state.control[KARELIA] == "Germans"


def test_a_landing_is_cancelled_when_the_sea_battle_is_lost_and_the_cargo_sinks_with_its_transport():
    # the transport alone rolls at 0; the destroyer's 1 sinks it, and the infantry aboard with it
    game, tapped, foot = landing_under_fire({}, [1, 1], defenders={"infantry": 1})
    assert events(game, "landing_cancelled")[0]["units"] == foot
    assert not events(game, "landing")
    assert [e["space"] for e in events(game, "battle")] == [SZ5]
    assert game.unit_or_none(foot[0]) is None
    assert game.state.control[KARELIA] == "Russians" and count(game, KARELIA, "Russians", "infantry") == 1

# ---------------------------------------------------------------- several defending powers


SHARED = {SZ5: {"Germans": {"battleship": 1}},
          SZ6: {"Americans": {"destroyer": 3}, "British": {"transport": 1, "destroyer": 1}}}


def shared_zone(refs, british_casualties, workspace=None):
    """A German battleship attacks 6 Sea Zone, where three American destroyers (the most units)
    lie with a British transport and destroyer; its 1 hits once; the Germans then retreat. The
    British, asked, choose `british_casualties`."""
    move = [{"from": SZ5, "type": "battleship", "to": SZ6}]
    plans = merge(orders("Germans", combat=move, answers={"attacker_retreat.go": True, "attacker_retreat.to": SZ5}),
                  orders("British", casualties=british_casualties))
    game = make_game(refs, scenario={"setup": "empty", "units": SHARED}, orders=plans, workspace=workspace)
    loaded = load_dice(game, [1, 6, 6, 6, 6, 6])
    run_phases(game, "Germans", "combat_move", "battle")
    assert loaded.left == 0
    return game


def test_each_defending_power_chooses_its_own_casualties():
    # the Americans (defending) choose the cheapest unit, the British transport: so the hit falls
    # on the British, who choose which of their units takes it
    british = unit_ids(SHARED, SZ6, "British", "destroyer")
    game = shared_zone(BASE, british)
    asked = [(e["player"], e["answer"]) for e in events(game, "decision") if e.get("decision") == "casualties"]
    assert [p for p, _ in asked] == ["Americans", "British"]
    assert asked[1][1] == british
    assert events(game, "hits", side="defender")[0]["chosen"] == british
    assert count(game, SZ6, "British", "transport") == 1 and count(game, SZ6, "British", "destroyer") == 0


def test_without_casualties_by_the_defender_chooses_for_every_defending_power():
    # tests/rulesets/aar/base@2.rules leaves the setting out (and makes the first enemy power in
    # the turn order, the British, the defender): one decision, the defender's, for every power
    # (who here sinks an American destroyer: no American decision follows)
    american = unit_ids(SHARED, SZ6, "Americans", "destroyer")[:1]
    game = shared_zone(["aar/base@2"], american, Workspace([FIXTURES]))
    asked = [e["player"] for e in events(game, "decision") if e.get("decision") == "casualties"]
    assert asked == ["British"]
    assert events(game, "hits", side="defender")[0]["chosen"] == american
    assert count(game, SZ6, "Americans", "destroyer") == 2


def test_landing_events_are_described_by_the_log_schema():
    defs = load_schema("log")["$defs"]
    won, _, _ = landing_under_fire({"battleship": 1}, [1, 1, 6, 1, 6], defenders={"infantry": 1})
    lost, _, _ = landing_under_fire({}, [1, 1], defenders={"infantry": 1})
    found = events(won, "landing_planned") + events(won, "landing") + events(lost, "landing_cancelled")
    assert [e["kind"] for e in found] == ["landing_planned", "landing", "landing_cancelled"]
    for event in found:
        jsonschema.validate(event, {"$ref": f"#/$defs/events/{event['kind']}", "$defs": defs})


# ---------------------------------------------------------------- an ally's air units riding a carrier


RIDERS = {"8 Sea Zone": {"British": {"carrier": 1}, "Americans": {"fighter": 1}}, "12 Sea Zone": {"Germans": {"destroyer": 1}}}
TO_BATTLE = {"British": [{"round": 1, "combat": [{"from": "8 Sea Zone", "type": "carrier", "to": "12 Sea Zone"}]}]}


def test_an_allys_fighter_riding_a_carrier_is_lost_with_it():
    # the carrier's 6 misses; the destroyer's 1 sinks it, and the American fighter it carried
    game, _ = attack(RIDERS, TO_BATTLE, attacker="British", dice=[6, 1])
    assert count(game, "12 Sea Zone", "British") == 0
    assert count(game, "12 Sea Zone", "Americans") == 0
    assert events(game, "removed", why="lost with the carrier it rode in 12 Sea Zone")


def test_an_allys_fighter_riding_a_carrier_that_wins_stays_aboard():
    # the carrier's 1 sinks the destroyer, whose 6 misses
    game, _ = attack(RIDERS, TO_BATTLE, attacker="British", dice=[1, 6])
    assert count(game, "12 Sea Zone", "Americans", "fighter") == 1
    assert not [e for e in events(game, "removed") if "rode" in e["why"]]


def test_an_allys_fighter_riding_a_carrier_retreats_with_it():
    # both miss in the first round; the British retreat to 8 Sea Zone, the fighter aboard with them
    orders = {"British": [{**TO_BATTLE["British"][0], "answers": {"attacker_retreat.go": True,
                                                                 "attacker_retreat.to": "8 Sea Zone"}}]}
    game, _ = attack(RIDERS, orders, attacker="British", dice=[6, 6])
    assert count(game, "8 Sea Zone", "British", "carrier") == 1
    assert count(game, "8 Sea Zone", "Americans", "fighter") == 1
    assert count(game, "12 Sea Zone", "Americans") == 0
