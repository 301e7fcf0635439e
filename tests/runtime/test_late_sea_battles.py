"""A sea battle where enemy units came after the combat move: under g40/house-rules@1, fighters
scrambled (g40/scramble@1) against an amphibious assault whose sea zone held no enemy unit, so
the combat move declared no sea battle there (rulesets/g40/README.md). The landing made from
that zone in the combat move waits for the sea battle: its units go ashore only when the
attacker wins it (the printed rules; TripleA)."""

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


class Ones:
    """Every die rolls 1 (every unit that fires hits)."""

    def randint(self, low: int, high: int) -> int:
        return low


def assault(scramble: bool, escort: dict | None = None, ones: bool = False):
    """Germans land two infantry in Scotland from SZ 119, empty of British units, with `escort`
    beside the transport; the British scramble Scotland's two fighters into SZ 119 or not.
    Returns the game after the battles."""
    units = {ZONE: {"Germans": {"transport": 1, "infantry": 2, **(escort or {})}},
             COAST: {"British": {"airfield": 1, "fighter": 2, "infantry": 1}}}
    game = make_game(HOUSE, scenario={"units": units})
    if ones:
        game.host.rng = Ones()
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
    assert battles == [ZONE]                       # the sea battle; no battle in Scotland
    (sea,) = [e for e in events(game, "battle_end") if e["space"] == ZONE]
    # the transport cannot fire back: it is lost, the fighters stand
    assert sea["result"] == "defender" and sea["attacker_left"] == 0 and sea["defender_left"] == 2
    assert count(game, ZONE, "Germans", "transport") == 0
    assert count(game, ZONE, "British", "fighter") == 2
    # the infantry went back aboard to wait for the sea battle, and were lost with the transport
    (waiting,) = events(game, "landing_planned")
    assert (waiting["zone"], waiting["to"], len(waiting["units"])) == (ZONE, COAST, 2)
    (cancelled,) = events(game, "landing_cancelled")
    assert cancelled["why"] == "the transport was sunk"
    assert count(game, COAST, "Germans") == 0 and count(game, COAST, "British", "infantry") == 1


def test_the_landing_goes_ashore_when_the_attacker_wins_the_late_sea_battle():
    game = assault(scramble=True, escort={"battleship": 2}, ones=True)
    assert [e["space"] for e in events(game, "battle")] == [ZONE, COAST]     # the sea battle first
    (sea,) = [e for e in events(game, "battle_end") if e["space"] == ZONE]
    assert sea["result"] == "attacker" and count(game, ZONE, "British", "fighter") == 0
    (landing,) = events(game, "landing")
    assert (landing["zone"], landing["to"], len(landing["units"])) == (ZONE, COAST, 2)
    # the scrambled fighters did not defend Scotland; the two infantry attacked it
    (land,) = [e for e in events(game, "battle") if e["space"] == COAST]
    assert (land["attacking"], land["defending"]) == (2, 1) and land["amphibious"]


def test_without_a_scramble_no_sea_battle_is_fought():
    game = assault(scramble=False)
    assert [e["space"] for e in events(game, "battle")] == [COAST]
    assert count(game, ZONE, "Germans", "transport") == 1
