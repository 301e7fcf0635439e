"""The movement engine on the Revised map: movement points, domains, blitz, every legal move of the
Revised start, the state's turn records, determinism, and the ruleset's movement policies (at sea
and in the air: tests/runtime/test_movement_sea_air.py)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ruleslang.board.mapdata import natural_key
from ruleslang.board.state import TURN_FLAGS
from ruleslang.runtime.kit.movement import Move, MovementRules, UnitRules

from movement_fixtures import REPO, REVISED, aar, board, engine, one, rules  # noqa: F401,F811 (aar, rules: pytest fixtures, used by name)


# ---------------------------------------------------------------- movement points and domains


def test_movement_points_bound_the_destinations(aar, rules):
    state = board(aar)
    germans = engine(state, rules, "Germans")
    infantry = one(state, "Germany", "Germans", "infantry")
    armour = one(state, "Germany", "Germans", "armour")
    assert list(germans.destinations(infantry)) == ["Balkans", "Eastern Europe", "Southern Europe", "Western Europe"]
    assert germans.destinations(infantry)["Balkans"] == ("Germany", "Balkans")
    reach = germans.destinations(armour)
    assert "Ukraine S.S.R." in reach and reach["Ukraine S.S.R."] == ("Germany", "Balkans", "Ukraine S.S.R.")
    assert germans.check(Move((infantry,), ("Germany", "Eastern Europe", "Belorussia"))) == [
        f"infantry {infantry} has 1 movement left but the path to Belorussia takes 2 steps"]
    germans.apply(Move((armour,), ("Germany", "Eastern Europe")))
    assert state.unit(armour).moved == 1 and state.unit(armour).space == "Eastern Europe"
    # one point left: two more steps are refused, one is fine
    assert germans.check(Move((armour,), ("Eastern Europe", "Belorussia", "West Russia"))) == [
        f"armour {armour} has 1 movement left but the path to West Russia takes 2 steps"]
    assert set(germans.destinations(armour)) == {"Balkans", "Belorussia", "Germany", "Karelia S.S.R.",
                                                 "Ukraine S.S.R."}


def test_domains_land_sea_and_air(aar, rules):
    state = board(aar, """
        setup: empty
        units:
          United Kingdom: {British: {infantry: 1, fighter: 1}}
          7 Sea Zone: {British: {destroyer: 1}}
    """)
    british = engine(state, rules, "British")
    infantry = one(state, "United Kingdom", "British", "infantry")
    fighter = one(state, "United Kingdom", "British", "fighter")
    ship = one(state, "7 Sea Zone", "British", "destroyer")
    assert british.destinations(infantry) == {}  # Eire is impassable: only a transport leaves the island
    assert british.check(Move((infantry,), ("United Kingdom", "7 Sea Zone"))) == [
        f"infantry {infantry} cannot enter 7 Sea Zone: a land unit crosses water only aboard a transport (a load)"]
    assert all(state.map.space(s).kind == "sea" for s in british.destinations(ship))
    assert british.check(Move((ship,), ("7 Sea Zone", "Western Europe"))) == [
        f"destroyer {ship} cannot enter Western Europe: a sea unit stays at sea"]
    air = british.destinations(fighter)
    assert "7 Sea Zone" in air and "Western Europe" in air and "Norway" in air


def test_impassable_spaces_are_never_entered(aar, rules):
    state = board(aar)
    germans = engine(state, rules, "Germans")
    armour = one(state, "Germany", "Germans", "armour")
    fighter = one(state, "Germany", "Germans", "fighter")
    assert "Switzerland" not in germans.destinations(armour)
    assert "Switzerland" not in germans.destinations(fighter)
    assert germans.check(Move((armour,), ("Germany", "Switzerland"))) == [
        f"armour {armour} cannot enter Switzerland: it is impassable"]
    assert germans.check(Move((fighter,), ("Germany", "Switzerland", "Southern Europe"))) == [
        f"fighter {fighter} cannot fly over Switzerland: it is impassable"]
    assert germans.check(Move((armour,), ("Germany", "Karelia S.S.R."))) == ["Karelia S.S.R. is not next to Germany"]


def test_units_that_move_only_in_noncombat(aar, rules):
    state = board(aar)
    gun = one(state, "Germany", "Germans", "aaGun")
    combat = engine(state, rules, "Germans", "combat")
    assert gun not in combat.movable_units() and combat.destinations(gun) == {}
    assert combat.check(Move((gun,), ("Germany", "Balkans"))) == [
        f"aaGun {gun} cannot move: it moves only in non-combat move"]
    noncombat = engine(state, rules, "Germans", "noncombat")
    assert gun in noncombat.movable_units()
    assert list(noncombat.destinations(gun)) == ["Balkans", "Eastern Europe", "Southern Europe", "Western Europe"]


def test_only_the_players_own_units_move(aar, rules):
    state = board(aar)
    russian = one(state, "Russia", "Russians", "infantry")
    germans = engine(state, rules, "Germans")
    assert germans.destinations(russian) == {}
    assert russian not in germans.movable_units()
    assert germans.check(Move((russian,), ("Russia", "Caucasus"))) == [
        f"infantry {russian} belongs to Russians, not Germans"]
    assert germans.check(Move((999999,), ("Russia", "Caucasus"))) == ["no unit with id 999999 is on the board"]
    with pytest.raises(ValueError, match="no unit with id 999999"):
        germans.destinations(999999)


# ---------------------------------------------------------------- combat move on land, blitz


BLITZ = """
    setup: empty
    units:
      Eastern Europe: {Germans: {armour: 1, infantry: 1}}
"""


def test_blitz_through_an_empty_enemy_territory_takes_it(aar, rules):
    state = board(aar, BLITZ)
    germans = engine(state, rules, "Germans")
    armour = one(state, "Eastern Europe", "Germans", "armour")
    infantry = one(state, "Eastern Europe", "Germans", "infantry")
    assert germans.destinations(armour)["Archangel"] == ("Eastern Europe", "Karelia S.S.R.", "Archangel")
    assert germans.check(Move((infantry,), ("Eastern Europe", "Karelia S.S.R.", "Archangel"))) == [
        f"infantry {infantry} has 1 movement left but the path to Archangel takes 2 steps"]
    before = len(state.events)
    germans.apply(Move((armour,), ("Eastern Europe", "Karelia S.S.R.", "Archangel")))
    events = state.events[before:]
    assert [e["kind"] for e in events] == ["move_units", "control"]
    assert events[0]["path"] == ["Eastern Europe", "Karelia S.S.R.", "Archangel"]
    assert events[0]["flags"] == {"combat_moved": True, "in_battle": True}
    assert events[1] == {"kind": "control", "space": "Karelia S.S.R.", "before": "Russians", "after": "Germans"}
    assert state.control["Karelia S.S.R."] == "Germans"
    # Archangel (entered, hostile) is contested; Karelia (only blitzed through) was taken
    assert germans.contested() == ["Archangel"]
    assert state.unit(armour).flags["in_battle"] is True
    assert germans.check(Move((armour,), ("Archangel", "Russia"))) == [
        f"armour {armour} cannot move: it is in a battle"]


def test_no_blitz_through_an_occupied_territory(aar, rules):
    state = board(aar, BLITZ, "  Karelia S.S.R.: {Russians: {infantry: 1}}")
    germans = engine(state, rules, "Germans")
    armour = one(state, "Eastern Europe", "Germans", "armour")
    reach = germans.destinations(armour)
    assert "Karelia S.S.R." in reach and "Archangel" not in reach
    assert germans.check(Move((armour,), ("Eastern Europe", "Karelia S.S.R.", "Archangel"))) == [
        f"armour {armour} must stop in Karelia S.S.R.: it holds enemy units"]
    with pytest.raises(ValueError, match="must stop in Karelia S.S.R."):
        germans.apply(Move((armour,), ("Eastern Europe", "Karelia S.S.R.", "Archangel")))
    assert state.unit(armour).space == "Eastern Europe" and state.control["Karelia S.S.R."] == "Russians"


def test_only_blitzing_units_pass_through_hostile_land(aar):
    # a house rule giving infantry two points (without blitz): the engine reads only the table
    fast = {**REVISED, "infantry": UnitRules(2, "land", False, False, transport_cost=2)}
    side = {p.name: p.side for p in aar.players}
    house = MovementRules(lambda unit_type, owner: fast[unit_type], lambda a, b: side[a] == side[b])
    state = board(aar, """
        setup: empty
        units:
          Germany: {Germans: {infantry: 1, armour: 1}}
        control: {Eastern Europe: Russians}
    """)
    germans = engine(state, house, "Germans")
    armour = one(state, "Germany", "Germans", "armour")
    infantry = one(state, "Germany", "Germans", "infantry")
    assert germans.check(Move((armour,), ("Germany", "Eastern Europe", "Belorussia"))) == []
    assert "Belorussia" in germans.destinations(armour) and "Belorussia" not in germans.destinations(infantry)
    assert germans.check(Move((infantry,), ("Germany", "Eastern Europe", "Belorussia"))) == [
        f"infantry {infantry} must stop in Eastern Europe: it is held by Russians "
        "(only a blitzing unit passes through an empty hostile territory)"]
    # a group moves together: every unit must be able to make the whole move
    assert germans.check(Move((armour, infantry), ("Germany", "Eastern Europe", "Belorussia"))) == [
        f"infantry {infantry} must stop in Eastern Europe: it is held by Russians "
        "(only a blitzing unit passes through an empty hostile territory)"]
    germans.apply(Move((armour, infantry), ("Germany", "Eastern Europe")))
    assert [state.unit(i).space for i in (armour, infantry)] == ["Eastern Europe", "Eastern Europe"]
    assert germans.contested() == ["Eastern Europe"]


def test_blitz_capture_goes_through_the_runtimes_capture(aar):
    calls = []

    def capture(state, space, player):  # the runtime's capture procedure (liberation, factories, hooks)
        calls.append((space, player))
        state.set_control(space, player)
        state.log(f"{player} takes {space}")

    side = {p.name: p.side for p in aar.players}
    rules = MovementRules(lambda unit_type, owner: REVISED[unit_type], lambda a, b: side[a] == side[b], capture)
    state = board(aar, BLITZ)
    germans = engine(state, rules, "Germans")
    armour = one(state, "Eastern Europe", "Germans", "armour")
    germans.apply(Move((armour,), ("Eastern Europe", "Karelia S.S.R.", "Archangel")))
    assert calls == [("Karelia S.S.R.", "Germans")] and state.control["Karelia S.S.R."] == "Germans"
    assert [e["kind"] for e in state.events[-3:]] == ["move_units", "control", "log"]
    assert germans.contested() == ["Archangel"]


def test_shortest_path_prefers_friendly_ground_over_a_blitz(aar, rules):
    state = board(aar, BLITZ, "control: {Belorussia: Russians, Karelia S.S.R.: Germans}")
    germans = engine(state, rules, "Germans")
    armour = one(state, "Eastern Europe", "Germans", "armour")
    # Belorussia (hostile, empty) comes first in natural order, but the path through Karelia
    # (friendly) takes nothing as a side effect
    assert germans.destinations(armour)["West Russia"] == ("Eastern Europe", "Karelia S.S.R.", "West Russia")
    assert germans.destinations(armour)["Belorussia"] == ("Eastern Europe", "Belorussia")


def test_combat_move_into_enemy_territory_is_contested_even_undefended(aar, rules):
    state = board(aar, BLITZ)
    germans = engine(state, rules, "Germans")
    infantry = one(state, "Eastern Europe", "Germans", "infantry")
    assert germans.is_battle_space("Karelia S.S.R.") and not germans.is_battle_space("Belorussia")
    germans.apply(Move((infantry,), ("Eastern Europe", "Karelia S.S.R.")))
    assert germans.contested() == ["Karelia S.S.R."]
    assert state.control["Karelia S.S.R."] == "Russians"  # the battle procedure captures it


def test_noncombat_refuses_enemy_spaces(aar, rules):
    state = board(aar, BLITZ, "  Norway: {Germans: {fighter: 1}}")
    germans = engine(state, rules, "Germans", "noncombat")
    armour = one(state, "Eastern Europe", "Germans", "armour")
    fighter = one(state, "Norway", "Germans", "fighter")
    reach = germans.destinations(armour)
    assert "Karelia S.S.R." not in reach and "Archangel" not in reach and "West Russia" in reach
    assert germans.check(Move((armour,), ("Eastern Europe", "Karelia S.S.R."))) == [
        f"armour {armour} cannot enter Karelia S.S.R. in non-combat move: it is held by Russians"]
    # air units fly over enemy territory but land only on friendly ground
    assert germans.check(Move((fighter,), ("Norway", "Karelia S.S.R.", "Belorussia"))) == []
    assert germans.check(Move((fighter,), ("Norway", "Karelia S.S.R."))) == [
        f"fighter {fighter} cannot land in Karelia S.S.R.: it is held by Russians"]
    assert "Karelia S.S.R." not in germans.destinations(fighter)
    assert "Belorussia" in germans.destinations(fighter)


def test_units_that_moved_in_combat_stay_put_in_noncombat_except_air(aar, rules):
    state = board(aar, BLITZ, "  Norway: {Germans: {fighter: 1}}", "  6 Sea Zone: {British: {destroyer: 1}}")
    armour = one(state, "Eastern Europe", "Germans", "armour")
    infantry = one(state, "Eastern Europe", "Germans", "infantry")
    fighter = one(state, "Norway", "Germans", "fighter")
    combat = engine(state, rules, "Germans", "combat")
    combat.apply(Move((armour,), ("Eastern Europe", "Belorussia")))  # a friendly space: no battle
    combat.apply(Move((fighter,), ("Norway", "6 Sea Zone")))          # an attack
    assert combat.contested() == ["6 Sea Zone"]
    assert state.unit(fighter).flags == {"combat_moved": True, "in_battle": True, "passed_combat": ["6 Sea Zone"]}
    noncombat = engine(state, rules, "Germans", "noncombat")
    assert noncombat.movable_units() == [infantry, fighter]
    assert noncombat.check(Move((armour,), ("Belorussia", "West Russia"))) == [
        f"armour {armour} cannot move: it moved in combat move"]
    # the fighter has 3 points left to land; 6 Sea Zone -> Western Europe is one step
    assert noncombat.destinations(fighter)["Western Europe"] == ("6 Sea Zone", "Western Europe")
    assert "6 Sea Zone" not in noncombat.destinations(fighter)


# ---------------------------------------------------------------- the whole Revised start


def test_every_legal_move_checks_clean_and_random_paths_agree(aar, rules):
    """destinations() and check() are two implementations of one rule: they must agree."""
    state = board(aar)
    rng = random.Random(5)
    for player in aar.turn_order:
        for phase in ("combat", "noncombat"):
            movement = engine(state, rules, player, phase)
            moves = movement.legal_moves()
            assert moves
            for move in moves:
                assert movement.check(move) == [], move
            for uid in movement.movable_units():
                unit = state.unit(uid)
                reach = movement.destinations(uid)
                left = REVISED[unit.type].movement - unit.moved
                for _ in range(15):
                    path = [unit.space]
                    for _ in range(rng.randint(1, max(1, left))):
                        path.append(rng.choice(aar.neighbours(path[-1])))
                    problems = movement.check(Move((uid,), tuple(path)))
                    if not problems:
                        assert path[-1] in reach, (player, phase, path)
                        assert len(reach[path[-1]]) <= len(path)
                    elif path[-1] not in reach:
                        assert problems[0].startswith(f"{unit.type} {uid} ") or "not next to" in problems[0] \
                            or "ends where it starts" in problems[0], problems


def test_incremental_caches_match_a_fresh_engine(aar, rules):
    """After every applied move, the engine's cached answers equal a fresh engine's."""
    state = board(aar)
    rng = random.Random(11)
    for player in aar.turn_order:
        state.start_turn(player)
        for phase in ("combat", "noncombat"):
            movement = engine(state, rules, player, phase)
            for _ in range(25):
                moves = movement.legal_moves()
                if not moves:
                    break
                movement.apply(rng.choice(moves))
                fresh = engine(state, rules, player, phase)
                assert movement.legal_moves() == fresh.legal_moves()
                assert movement.movable_units() == fresh.movable_units()
                for uid in fresh.movable_units()[::7]:
                    assert movement.destinations(uid) == fresh.destinations(uid)
                assert movement.contested() == fresh.contested()
                assert movement.stranded_air() == fresh.stranded_air()


def test_movable_units_and_move_order(aar, rules):
    state = board(aar)
    russians = engine(state, rules, "Russians")
    moves = russians.legal_moves()
    unit_order = [m.units[0] for m in moves if m.kind == "move"]
    assert unit_order == sorted(unit_order)
    assert sorted({m.units[0] for m in moves}) == russians.movable_units()
    first = moves[0]
    order = {name: i for i, name in enumerate(sorted(aar.space_names(), key=natural_key))}
    same_unit = [m.path[-1] for m in moves if m.units == first.units and m.kind == "move"]
    assert same_unit == sorted(same_unit, key=order.__getitem__)
    assert russians.legal_moves(limit=5) == moves[:5]
    assert all(isinstance(m, Move) and isinstance(m.path, tuple) for m in moves)


def test_apply_logs_one_event_with_path_and_flags(aar, rules):
    state = board(aar)
    germans = engine(state, rules, "Germans")
    infantry = one(state, "Germany", "Germans", "infantry")
    before = len(state.events)
    germans.apply(Move([infantry], ["Germany", "Eastern Europe"]))  # lists are accepted
    assert state.events[before:] == [{
        "kind": "move_units", "ids": [infantry], "origins": ["Germany"], "to": "Eastern Europe", "steps": 1,
        "path": ["Germany", "Eastern Europe"], "flags": {"combat_moved": True}}]
    json.dumps(state.events)
    with pytest.raises(ValueError, match=f"infantry {infantry} cannot move"):
        germans.apply(Move((infantry,), ("Eastern Europe", "Germany")))
    assert germans.check(Move((infantry,), ("Eastern Europe",))) == [
        "a path names at least two spaces: where the units are and where they end"]
    assert germans.check(Move((infantry,), ("Eastern Europe", "Atlantis"))) == ["unknown space 'Atlantis'"]
    assert germans.check(Move((infantry,), ("Eastern Europe", "Germany"), "fly")) == [
        "unknown move kind 'fly' (one of move, load, unload, bomb, airborne)"]


def test_engine_sees_changes_made_by_others(aar, rules):
    state = board(aar, BLITZ)
    germans = engine(state, rules, "Germans")
    armour = one(state, "Eastern Europe", "Germans", "armour")
    assert "Archangel" in germans.destinations(armour)
    state.add_units("Karelia S.S.R.", "infantry", "Russians")   # e.g. a battle procedure's effect
    assert "Archangel" not in germans.destinations(armour)


# ---------------------------------------------------------------- state additions


def test_turn_flags_and_factory_records(aar, rules):
    state = board(aar, BLITZ)
    assert state.factories_at_turn_start == {}  # setup: empty
    armour = one(state, "Eastern Europe", "Germans", "armour")
    engine(state, rules, "Germans").apply(Move((armour,), ("Eastern Europe", "Karelia S.S.R.", "Archangel")))
    state.update_units([armour], veteran=True)
    state.start_turn("Germans")
    assert state.unit(armour).flags == {"veteran": True} and state.unit(armour).moved == 0
    assert set(TURN_FLAGS) >= {"combat_moved", "in_battle", "bombing", "unloaded", "unloaded_to"}


def test_factories_at_turn_start_and_original_flags(aar):
    state = board(aar)
    assert list(state.factories_at_turn_start) == ["Caucasus", "Eastern United States", "Germany", "Japan",
                                                   "Russia", "Southern Europe", "United Kingdom",
                                                   "Western United States"]
    assert state.factories_at_turn_start["Germany"] == "Germans"
    assert all(f.flags == {"original": True} for f in state.factories.values())
    state.set_factory("Germany", "Russians")            # captured: still the original factory
    assert state.factories["Germany"].flags == {"original": True}
    state.set_factory("India", "British")               # built: a new one
    assert state.factories["India"].flags == {}
    assert "India" not in state.factories_at_turn_start
    assert state.factories_at_turn_start["Germany"] == "Germans"
    state.start_turn("British")
    assert state.factories_at_turn_start["India"] == "British"
    assert state.factories_at_turn_start["Germany"] == "Russians"
    clone = state.copy()
    assert clone.factories_at_turn_start == state.factories_at_turn_start


def test_cargo_spends_no_movement_of_its_own(aar):
    state = board(aar, "setup: empty\nunits: {2 Sea Zone: {British: {transport: 1, infantry: 1}}}\n")
    ship = one(state, "2 Sea Zone", "British", "transport")
    troop = one(state, "2 Sea Zone", "British", "infantry")
    state.update_units([ship], cargo=[troop])
    state.move_units([ship], "3 Sea Zone", steps=1)
    assert (state.unit(ship).moved, state.unit(troop).moved) == (1, 0)
    assert state.unit(troop).space == "3 Sea Zone"


# ---------------------------------------------------------------- determinism and speed


SCRIPT = textwrap.dedent("""
    import json, random, sys
    sys.path.insert(0, sys.argv[1])
    from movement_fixtures import REVISED, board, engine
    from ruleslang.board.mapdata import load_map
    from ruleslang.base.paths import packaged_root
    from ruleslang.runtime.kit.movement import MovementRules
    aar = load_map("aar", [packaged_root()])
    side = {p.name: p.side for p in aar.players}
    rules = MovementRules(lambda t, o: REVISED[t], lambda a, b: side[a] == side[b])
    state = board(aar)
    rng = random.Random(3)
    out = []
    for player in aar.turn_order:
        state.start_turn(player)
        for phase in ("combat", "noncombat"):
            movement = engine(state, rules, player, phase)
            for _ in range(12):
                moves = movement.legal_moves()
                if not moves:
                    break
                move = rng.choice(moves)
                out.append([move.units, move.path, move.kind])
                movement.apply(move)
            out.append([movement.movable_units(), movement.contested(), movement.stranded_air()])
            out.append({str(u): list(movement.destinations(u)) for u in movement.movable_units()[:5]})
    print(json.dumps(out))
""")


def test_same_inputs_same_outputs_under_any_hash_seed(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, str(script), str(Path(__file__).parent)], capture_output=True,
                              text=True, env=env, cwd=REPO, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert len(json.loads(outputs.pop())) > 20


# ---------------------------------------------------------------- the ruleset's movement policies


def policy_rules(aar, policy=None, landing=None, **unit_changes):
    """Revised-like rules with some unit rules changed ({type: {field: value}}) and a policy."""
    from dataclasses import replace

    from ruleslang.runtime.kit.movement import MovePolicy

    side = {p.name: p.side for p in aar.players}
    table = {t: replace(r, **unit_changes.get(t, {})) for t, r in REVISED.items()}
    return MovementRules(lambda unit_type, owner: table[unit_type], lambda a, b: side[a] == side[b],
                         policy=policy or MovePolicy(), landing=landing)


def test_passes_blockers_opens_the_zones_beyond_enemy_warships_in_the_destinations(aar, rules):
    state = board(aar, """
        units:
          5 Sea Zone: {Germans: {submarine: 1}}
          6 Sea Zone: {British: {destroyer: 1}}
          7 Sea Zone: null
    """)
    sub = one(state, "5 Sea Zone", "Germans", "submarine")
    assert "7 Sea Zone" not in engine(state, rules, "Germans").destinations(sub)
    passing = policy_rules(aar, submarine={"passes_blockers": True})
    assert engine(state, passing, "Germans").destinations(sub)["7 Sea Zone"] == ("5 Sea Zone", "6 Sea Zone", "7 Sea Zone")
    assert "6 Sea Zone" not in engine(state, passing, "Germans", "noncombat").destinations(sub)


def test_units_that_do_not_stop_movement_let_a_blitz_through_in_the_destinations(aar, rules):
    state = board(aar, """
        units:
          Germany: {Germans: {armour: 1}}
          Eastern Europe: {Russians: {aaGun: 1}}
          Belorussia: null
        control: {Eastern Europe: Russians, Belorussia: Russians}
    """)
    tank = one(state, "Germany", "Germans", "armour")
    assert "Belorussia" not in engine(state, rules, "Germans").destinations(tank)
    passing = policy_rules(aar, aaGun={"stops_movement": False})
    assert engine(state, passing, "Germans").destinations(tank)["Belorussia"] == ("Germany", "Eastern Europe", "Belorussia")


def test_blocks_unload_decides_which_enemy_units_make_an_unload_wait_for_the_sea_battle(aar, rules):
    state = board(aar, """
        units:
          5 Sea Zone: {Germans: {transport: 1}, British: {submarine: 1}}
          Germany: {Germans: {infantry: 1}}
          Karelia S.S.R.: null
    """)
    inf = one(state, "Germany", "Germans", "infantry")
    ship = one(state, "5 Sea Zone", "Germans", "transport")
    for unit_rules, waits in ((rules, True), (policy_rules(aar, submarine={"blocks_unload": False}), False)):
        e = engine(state.copy(), unit_rules, "Germans")
        e.apply(Move((inf,), ("Germany", "5 Sea Zone"), "load", ship))
        unload = next(m for m in e.legal_moves() if m.kind == "unload" and m.path[1] == "Karelia S.S.R.")
        assert e.waits_for_battle(unload) == waits
        if waits:
            # planned, not made: the cargo stays aboard and is offered no other unload
            e.plan_landing(unload)
            assert e.state.unit(inf).space == "5 Sea Zone"
            assert not [m for m in e.legal_moves() if m.kind == "unload"]
            assert "after the sea battle" in e.check(unload)[0]
        # in non-combat move such an unload is refused
        quiet = engine(state.copy(), unit_rules, "Germans", "noncombat")
        quiet.state.move_units([inf], "5 Sea Zone", onto=ship)
        refused = quiet.check(Move((inf,), ("5 Sea Zone", "Karelia S.S.R."), "unload", ship))
        assert any("holds enemy units" in r for r in refused) == waits


def test_a_transport_that_unloaded_moves_on_only_when_the_policy_says_so(aar, rules):
    from ruleslang.runtime.kit.movement import MovePolicy

    state = board(aar, """
        units:
          5 Sea Zone: {Germans: {transport: 1}}
          Germany: {Germans: {infantry: 1}}
          Karelia S.S.R.: null
          6 Sea Zone: null
    """)
    inf = one(state, "Germany", "Germans", "infantry")
    ship = one(state, "5 Sea Zone", "Germans", "transport")
    for unit_rules, moves_on in ((rules, False), (policy_rules(aar, MovePolicy(unloaded_transport_moves=True)), True)):
        e = engine(state.copy(), unit_rules, "Germans")
        e.apply(Move((inf,), ("Germany", "5 Sea Zone"), "load", ship))
        e.apply(Move((inf,), ("5 Sea Zone", "Karelia S.S.R."), "unload", ship))
        assert (ship in e.movable_units()) == moves_on


def test_the_landing_condition_decides_where_air_units_may_end_a_noncombat_move(aar, rules):
    state = board(aar, """
        units:
          Manchuria: {Germans: {fighter: 1}}
    """)
    fighter = one(state, "Manchuria", "Germans", "fighter")
    assert "Kwantung" in engine(state, rules, "Germans", "noncombat").destinations(fighter)
    own_only = policy_rules(aar, landing=lambda space, player: state.control.get(space) == player)
    e = engine(state, own_only, "Germans", "noncombat")
    assert "Kwantung" not in e.destinations(fighter)
    assert e.check(Move((fighter,), ("Manchuria", "Kwantung"))) == [
        f"fighter {fighter} cannot land in Kwantung: the rules' landing condition refuses it"]


def test_canals_open_by_control_at_the_start_of_the_turn_with_the_turn_policy(aar, rules):
    from ruleslang.runtime.kit.movement import MovePolicy

    state = board(aar, """
        units:
          15 Sea Zone: {Germans: {destroyer: 1}}
          34 Sea Zone: null
        control: {Anglo Egypt: Germans, Trans-Jordan: Germans}
    """)
    state.control_at_turn_start["Anglo Egypt"] = "British"
    ship = one(state, "15 Sea Zone", "Germans", "destroyer")
    assert "34 Sea Zone" in engine(state, rules, "Germans").destinations(ship)
    turn = policy_rules(aar, MovePolicy(canals="turn"))
    assert engine(state, turn, "Germans").check(Move((ship,), ("15 Sea Zone", "34 Sea Zone"))) == [
        f"destroyer {ship} cannot pass the Suez Canal from 15 Sea Zone to 34 Sea Zone: "
        f"Anglo Egypt is held by British at the start of the turn"]
    with pytest.raises(ValueError):
        MovePolicy(canals="round")
