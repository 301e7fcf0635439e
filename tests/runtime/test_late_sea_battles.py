"""A sea battle where enemy units came after the combat move: under g40/house-rules@1, fighters
scrambled (g40/scramble@1) against an amphibious assault whose sea zone held no enemy unit, so
the combat move declared no sea battle there (rulesets/g40/README.md)."""

from __future__ import annotations

from game_fixtures import count, events, ids, make_game, run_phases
from ruleslang.runtime.agents.scripted import ScriptedAgent

HOUSE = ["g40/house-rules@1"]
ZONE, COAST = "119 Sea Zone", "Scotland"


class ScramblesAll(ScriptedAgent):
    """Sends every aircraft a scramble offers; otherwise a scripted player with no orders."""

    def _choose(self, d, game):
        if d.id == "scramble.sent":
            return tuple(d.options[: d.count])
        return super()._choose(d, game)


def assault(scramble: bool):
    """Germans land two infantry in Scotland from SZ 119, empty of British units; the British
    scramble Scotland's two fighters into SZ 119 or not. Returns the game after the battles."""
    units = {ZONE: {"Germans": {"transport": 1, "infantry": 2}},
             COAST: {"British": {"airfield": 1, "fighter": 2, "infantry": 1}}}
    game = make_game(HOUSE, scenario={"units": units})
    transport = ids(game, ZONE, "Germans", "transport")[0]
    infantry = ids(game, ZONE, "Germans", "infantry")
    game.state.move_units(infantry, ZONE, 0, onto=transport)    # aboard since a prior turn
    combat = [{"unit": uid, "to": COAST, "kind": "unload", "transport": transport} for uid in infantry]
    game.agents["Germans"] = ScriptedAgent("Germans", [{"round": 1, "combat": combat}])
    if scramble:
        game.agents["British"] = ScramblesAll("British", [])
    run_phases(game, "Germans", "combat_move")
    assert game.kit.pending_battles == [COAST]     # the combat move declared no sea battle
    assert count(game, ZONE, "British", "fighter") == (2 if scramble else 0)
    run_phases(game, "Germans", "battle")
    return game


def test_scrambled_aircraft_fight_a_sea_battle_in_the_zone_of_the_landing():
    game = assault(scramble=True)
    battles = [e["space"] for e in events(game, "battle")]
    assert battles == [ZONE, COAST]                # the sea battle first
    (sea,) = [e for e in events(game, "battle_end") if e["space"] == ZONE]
    # the transport cannot fire back: it is lost, the fighters stand
    assert sea["result"] == "defender" and sea["attacker_left"] == 0 and sea["defender_left"] == 2
    assert count(game, ZONE, "Germans", "transport") == 0
    assert count(game, ZONE, "British", "fighter") == 2
    # the scrambled fighters did not defend Scotland
    (land,) = [e for e in events(game, "battle") if e["space"] == COAST]
    assert land["defending"] == 1


def test_without_a_scramble_no_sea_battle_is_fought():
    game = assault(scramble=False)
    assert [e["space"] for e in events(game, "battle")] == [COAST]
    assert count(game, ZONE, "Germans", "transport") == 1
