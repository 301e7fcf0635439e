"""The combat plan's candidates for its attacks at sea and its assaults: the spaces where a unit not
on the player's side stands found by kind from the game's census (`foe_spaces`), the attacks at
sea given the plan's units not on land from its own pass (no second pass over the player's units),
and a ship's reach not walked where the zones asked of it are beyond its movement."""

from __future__ import annotations

from game_fixtures import BASE, make_game
from ruleslang.runtime.agents.attack_planning import AttackPlanning
from ruleslang.runtime.agents.shipping import foe_spaces

PLAYERS = ("Russians", "Germans", "British", "Japanese", "Americans")


def _foes_by_pass(game, player: str) -> set[str]:
    return {u.space for u in game.state.units if not game.allied(u.owner, player)}


def _heuristic_game(seed: int, rounds: int = 2) -> None:
    make_game(["aar/house-rules@1"], seed=seed, rounds=rounds, default_agent="heuristic").run(rounds)


def test_foe_spaces_are_the_spaces_of_the_units_not_on_the_players_side():
    game = make_game(BASE)
    for player in PLAYERS:
        found = foe_spaces(game, player)
        assert found == _foes_by_pass(game, player) and found
    game.state.units.reverse()  # (a board the census does not keep: a pass over it)
    for player in PLAYERS:
        assert foe_spaces(game, player) == _foes_by_pass(game, player)


def test_in_seeded_games_the_plans_sea_candidates_and_foes_are_the_boards(monkeypatch):
    """At every attack at sea of seeded house-rules games: `afloat` is the player's units the
    engine lets it move that are not land units, in the engine's order, and `foes` the spaces of
    the units not on its side; the assaults get the same `foes`."""
    kept_fleet, kept_assaults = AttackPlanning._fleet_attacks, AttackPlanning._assaults
    seen = {"fleet": 0, "afloat": 0, "assaults": 0}

    def fleet(self, game, engine, used, held, afloat, foes):
        expected = [uid for uid in engine.player_units()
                    if self._domain(game, game.unit_or_none(uid)) != "land"]
        assert afloat == expected
        assert foes == _foes_by_pass(game, self.player)
        seen["fleet"] += 1
        seen["afloat"] += len(afloat)
        return kept_fleet(self, game, engine, used, held, afloat, foes)

    def assaults(self, game, engine, used, foes):
        assert foes == _foes_by_pass(game, self.player)
        seen["assaults"] += 1
        return kept_assaults(self, game, engine, used, foes)
    monkeypatch.setattr(AttackPlanning, "_fleet_attacks", fleet)
    monkeypatch.setattr(AttackPlanning, "_assaults", assaults)
    _heuristic_game(3)
    assert seen["fleet"] > 5 and seen["afloat"] > 20 and seen["assaults"] >= seen["fleet"], seen


def test_a_ships_reach_among_far_zones_is_empty_without_its_walk(monkeypatch):
    """In seeded games every answer of `kept_destinations_among` holds, at the spaces of `among`,
    what the unit's whole reach (`destinations`) holds there; a ship none of whose zones of
    `among` lies within its movement gets none of them ({} where its walk was not made already)."""
    from ruleslang.runtime.kit.movement import MovementEngine
    kept_among = MovementEngine.kept_destinations_among
    seen = {"ships": 0, "spared": 0}

    def among_answer(self, unit_id, among):
        found = kept_among(self, unit_id, among)
        whole = self.destinations(unit_id)
        assert {s: p for s, p in found.items() if s in among} == {s: p for s, p in whole.items() if s in among}
        unit = self.state.unit_index()[unit_id]
        if self._ur[unit_id].domain != "sea":
            return found
        seen["ships"] += 1
        left = self._ur[unit_id].movement - unit.moved
        steps = self.board.graph.distances(unit.space, "sea")
        if all(steps.get(space, left + 1) > left for space in among):
            assert not any(space in among for space in found)  # (the whole reach, where kept already)
            seen["spared"] += found == {}
        return found
    monkeypatch.setattr(MovementEngine, "kept_destinations_among", among_answer)
    _heuristic_game(3)
    assert seen["spared"] > 0 and seen["ships"] > seen["spared"], seen
