"""A battle keeps each side's units (`Battle.units`) while the board's units stand as they did,
and their values for the rules (`Battle.unit_values`, what `battle_units(side)` gives) while the
board is unchanged (issue 15, session 10): the kept answers are the ones worked out anew, in real
games and after each kind of change that may alter them."""

from __future__ import annotations

import pytest

from game_fixtures import make_game
from ruleslang.runtime.kit.battle import Battle


def _seen(values) -> list[tuple]:
    """Values as the rules read them (a UnitValue is equal to another by id alone)."""
    return [(v.id, v.type.name, v.owner.name, v.space.name, v.hits, v.moved) for v in values]


@pytest.mark.parametrize("refs,rounds,seed,agent", [(["aar/house-rules@1"], 3, 7, "random"),
                                                    (["aa50/house-rules@1"], 2, 5, "random")])
def test_kept_units_and_values_are_the_ones_worked_out_now(refs, rounds, seed, agent, monkeypatch):
    units, unit_values = Battle.units, Battle.unit_values
    seen = {"units": 0, "units kept": 0, "values": 0, "values kept": 0}

    def checked_units(self, side):
        before = self._kept.get(side)
        found = units(self, side)
        assert [u.id for u in found] == [u.id for u in self._units_now(side)], side
        seen["units"] += 1
        seen["units kept"] += before is not None and before[2] is found
        return found

    def checked_values(self, side, ctx):
        before = self._values.get(side)
        found = unit_values(self, side, ctx)
        assert _seen(found) == _seen(ctx.unit_value(u) for u in self._units_now(side)), side
        seen["values"] += 1
        seen["values kept"] += before is not None and before[3] is found
        return found
    monkeypatch.setattr(Battle, "units", checked_units)
    monkeypatch.setattr(Battle, "unit_values", checked_values)
    game = make_game(refs, seed=seed, rounds=rounds, default_agent=agent)
    game.run(rounds)
    # the answers were kept often (the test would not see a cache that is never used)
    assert seen["units kept"] > seen["units"] // 3 and seen["values kept"] > seen["values"] // 4, seen


def _battle():
    """A land battle on an empty Revised board: 2 infantry and 1 armour attack 2 infantry."""
    scenario = {"setup": "empty", "units": {
        "Ukraine S.S.R.": {"Russians": {"infantry": 2}},
        "Eastern Europe": {"Germans": {"infantry": 2, "armour": 1}}}}
    game = make_game(["aar/base@1"], scenario=scenario)
    state = game.state
    state.current_player = "Germans"
    attackers = [u.id for u in state.units if u.owner == "Germans"]
    state.move_units(attackers, "Ukraine S.S.R.")
    defenders = [u.id for u in state.units if u.owner == "Russians"]
    battle = Battle(game, "Ukraine S.S.R.", "Germans", "Russians", attacking=attackers, defending=defenders,
                    came_from={uid: "Eastern Europe" for uid in attackers})
    game.ctx.battle = battle
    return game, battle


def test_each_change_that_may_alter_a_side_is_seen():
    game, battle = _battle()
    state, ctx = game.state, game.ctx
    first = battle.units("attacker")
    assert len(first) == 3 and battle.units("attacker") is first  # kept
    values = battle.unit_values("attacker", ctx)
    assert battle.unit_values("attacker", ctx) is values
    # a hit leaves every unit where it stood: the units are kept, their values are made again
    hit = first[0].id
    state.update_units([hit], hits=1)
    assert battle.units("attacker") is first
    again = battle.unit_values("attacker", ctx)
    assert again is not values and [v.hits for v in again if v.id == hit] == [1]
    # a log (a die) changes nothing: both kept
    game.log("roll", sides=6, value=3, at="test")
    assert battle.unit_values("attacker", ctx) is again
    # a casualty removed
    state.remove_units([first[1].id])
    assert [u.id for u in battle.units("attacker")] == [first[0].id, first[2].id]
    assert [v.id for v in battle.unit_values("attacker", ctx)] == [first[0].id, first[2].id]
    # a unit moved away
    state.move_units([first[2].id], "Eastern Europe")
    assert [u.id for u in battle.units("attacker")] == [first[0].id]
    # submerged and retreated units (the battle's own lists, changed by its effects: a submerge
    # logs, and steps no version of the board)
    defenders = battle.units("defender")
    kept_values = battle.unit_values("defender", ctx)
    battle.submerge(ctx, [defenders[0].id])
    assert [u.id for u in battle.units("defender")] == [defenders[1].id]
    assert [v.id for v in battle.unit_values("defender", ctx)] == [defenders[1].id] != [v.id for v in kept_values]
    battle.retreat(ctx, "Eastern Europe")
    assert battle.units("attacker") == [] and battle.unit_values("attacker", ctx) == ()
    # a unit brought onto a new list of the board's units (the odds chain puts states so, with
    # new lists of the battle)
    battle.retreated_to = None
    state.units = list(state.units)
    assert battle.units("attacker") is not first
    assert [u.id for u in battle.units("attacker")] == [u.id for u in battle._units_now("attacker")]


def test_only_the_games_own_context_keeps_values():
    game, battle = _battle()

    class Other:  # another context (a watch noting what a step reads): its values made each time
        def unit_value(self, unit):
            return game.ctx.unit_value(unit)
    other = Other()
    first = battle.unit_values("defender", other)
    assert battle.unit_values("defender", other) is not first
    assert _seen(first) == _seen(battle.unit_values("defender", game.ctx))


def test_a_rounds_casualties_leave_the_kept_sides_without_working_them_out_again(monkeypatch):
    game, battle = _battle()
    ctx = game.ctx
    attackers, defenders = battle.units("attacker"), battle.units("defender")
    worked_out = []
    units_now = Battle._units_now
    monkeypatch.setattr(Battle, "_units_now", lambda self, side: worked_out.append(side) or units_now(self, side))
    # the round's casualties leave at its end: each side's kept units less them
    battle.pending = [attackers[1].id, defenders[0].id]
    battle.end_round()
    assert [u.id for u in battle.units("attacker")] == [attackers[0].id, attackers[2].id]
    assert [u.id for u in battle.units("defender")] == [defenders[1].id]
    # a casualty removed at once (`hit ... now`) likewise
    battle.hit(ctx, 1, [defenders[1].id], "Russians", True)
    assert battle.units("defender") == [] and worked_out == []
    for side in ("attacker", "defender"):
        assert battle.units(side) == units_now(battle, side)
    # sides not kept when the removal came (a unit had moved since): worked out after it
    game.state.move_units([attackers[2].id], "Eastern Europe")
    battle.pending = [attackers[0].id]
    battle.end_round()
    assert battle.units("attacker") == [] and worked_out == ["attacker"]


def test_a_sides_tagged_units_are_kept_while_its_units_stand_and_are_the_ones_found_now(monkeypatch):
    tagged = Battle.tagged_units
    seen = {"asked": 0, "kept": 0}

    def checked(self, side, tag):
        units = self.units(side)
        before = self._tagged.get((side, tag))
        found = tagged(self, side, tag)
        has = self.game.ctx.unit_has_any_tag
        assert [u.id for u in found] == [u.id for u in self._units_now(side) if has(u.type, (tag,))], (side, tag)
        seen["asked"] += 1
        seen["kept"] += before is not None and before[0] is units and before[1] is found
        return found
    monkeypatch.setattr(Battle, "tagged_units", checked)
    game = make_game(["aar/house-rules@1"], seed=7, rounds=3, default_agent="random")
    game.run(3)
    assert seen["kept"] > seen["asked"] // 4, seen


def test_a_sides_values_stand_across_the_hits_the_other_side_takes():
    game, battle = _battle()
    state, ctx = game.state, game.ctx
    attackers, defenders = battle.unit_values("attacker", ctx), battle.unit_values("defender", ctx)
    # the attackers' fire hits a defender: the attackers' values are kept, the defenders' made again
    battle.hit(ctx, 1, [defenders[0].id], "Russians", False)
    assert battle.unit_values("attacker", ctx) is attackers
    hit = battle.unit_values("defender", ctx)
    assert hit is not defenders and [v.hits for v in hit] == [1, 0]
    # the defenders' fire hits an attacker: now the defenders' values are kept
    battle.hit(ctx, 1, [attackers[0].id], "Germans", False)
    assert battle.unit_values("defender", ctx) is hit
    again = battle.unit_values("attacker", ctx)
    assert again is not attackers and [v.hits for v in again] == [1, 0, 0]
    assert battle.unit_values("attacker", ctx) is again
    # a change of the board that is no hit of the battle: both sides made again
    state.update_units([again[1].id], moved=1)
    assert battle.unit_values("defender", ctx) is not hit
    assert [v.moved for v in battle.unit_values("attacker", ctx)] == [0, 1, 0]
    for side in ("attacker", "defender"):
        assert _seen(battle.unit_values(side, ctx)) == _seen(ctx.unit_value(u) for u in battle._units_now(side))
    # a copy of the game keeps none of it (a copy's likeness to another reads no count of hits)
    copied = battle.__getstate__()
    assert copied["_values"] == {} and copied["_hit_steps"] == {"attacker": 0, "defender": 0}
    assert battle._hit_steps["attacker"] > 0 and battle._hit_steps["defender"] > 0
