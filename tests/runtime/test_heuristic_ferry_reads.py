"""What the heuristic agent's non-combat plan reads for its ferry and its steps toward the fronts
(issue 15, session 28): the spaces holding units not on the player's side from the threats' table
(no board query), no look for stranded units without a free transport, where they wait found
once until a load, and the nearest space toward the fronts found as by its old sort key."""

from __future__ import annotations

from game_fixtures import BASE, events, make_game, run_phases
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.agents.shipping import Shipping
from ruleslang.runtime.kit.movement import MovementEngine

SZ61 = "61 Sea Zone"


def japanese(units: dict):
    data = {"setup": "empty", "units": {"Buryatia S.S.R.": {"Russians": {"infantry": 1}}, **units}}
    return make_game(BASE, scenario=data, agents={"Japanese": "heuristic"})


def _moves(game) -> list:
    return [(e["answer"].get("kind"), e["answer"]["path"]) for e in events(game, "decision", decision="move")
            if "path" in e["answer"]]


def _recorded(monkeypatch, owner, name: str) -> list:
    """The first arguments `owner.name` is called with from now on (it answers as before)."""
    calls = []
    real = getattr(owner, name)

    def recording(self, *args):
        calls.append(args[0])
        return real(self, *args)
    monkeypatch.setattr(owner, name, recording)
    return calls


def test_the_ferry_tells_spaces_free_of_enemy_units_by_the_threats_table_with_the_same_plan(monkeypatch):
    # Manchuria, the coast nearest the fighting, holds a Russian unit: the cargo lands in Kwantung
    game = japanese({"Japan": {"Japanese": {"infantry": 2}}, SZ61: {"Japanese": {"transport": 1}},
                     "Manchuria": {"Russians": {"infantry": 1}}})
    real = Shipping.ferry
    seen = []

    def ferry(self, used):
        # the plan of a `Shipping` that asks the board instead, on the same board (no move is made)
        asking = Shipping(game, self.player, self.engine, self.may, commanded=self._commanded)
        expected = real(asking, set(used))
        queried = []
        units = game.board.units
        monkeypatch.setattr(game.board, "units", lambda *a, **k: queried.append(a) or units(*a, **k))
        try:
            plan = real(self, used)
        finally:
            monkeypatch.setattr(game.board, "units", units)
        seen.append((self._hostile, queried, plan == expected))
        return plan
    monkeypatch.setattr(Shipping, "ferry", ferry)
    run_phases(game, "Japanese", "noncombat_move")
    [(hostile, queried, same)] = seen
    assert set(hostile) == {"Buryatia S.S.R.", "Manchuria"}  # where the Russians stand
    assert queried == [] and same
    assert [path for kind, path in _moves(game) if kind == "unload"] == [["59 Sea Zone", "Kwantung"]] * 2


def test_no_stranded_units_are_looked_for_without_a_free_transport(monkeypatch):
    game = japanese({"Japan": {"Japanese": {"infantry": 2}}})
    looked = _recorded(monkeypatch, Shipping, "stranded")
    run_phases(game, "Japanese", "noncombat_move")
    assert looked == [] and _moves(game) == []


def test_where_stranded_units_wait_is_found_once_for_the_empty_transports(monkeypatch):
    # two empty transports, neither beside Japan: both go where its infantry wait
    game = japanese({"Japan": {"Japanese": {"infantry": 2}},
                     "59 Sea Zone": {"Japanese": {"transport": 1}}, "57 Sea Zone": {"Japanese": {"transport": 1}}})
    found = _recorded(monkeypatch, Shipping, "_waiting")
    run_phases(game, "Japanese", "noncombat_move")
    assert len(found) == 1
    beside = set(game.board.neighbours("Japan", "sea"))
    assert all(u.space in beside for u in game.state.units if u.type == "transport")


def test_the_step_toward_the_fronts_is_the_old_keys_nearest_space(monkeypatch):
    """Over a seeded game's non-combat plans, `_toward_fronts` answers as the sort key it had:
    the first front reached, else the space of the least (land steps, board order), if nearer
    than the start."""
    real = HeuristicAgent._toward_fronts
    asked = []

    def toward(self, game, destinations, start, fronts):
        answer = real(self, game, destinations, start, fronts)
        if destinations and start not in fronts and not any(f in destinations for f in fronts):
            best = min(destinations, key=lambda s: (self._distance(game, s, fronts), game.space_order(s)))
            old = None if self._distance(game, best, fronts) >= self._distance(game, start, fronts) else best
            asked.append(answer == old)
        return answer
    monkeypatch.setattr(HeuristicAgent, "_toward_fronts", toward)
    make_game(["aar/house-rules@1"], seed=2, rounds=2, default_agent="heuristic").run(2)
    assert len(asked) > 10 and all(asked)


def test_the_plan_asks_no_reach_of_a_ship_and_moves_the_same_units(monkeypatch):
    # a ship's reach is sea zones, as far from the fronts by land as where it stands: it stays, and
    # its reach is not asked (an infantry's is)
    game = japanese({"Japan": {"Japanese": {"infantry": 1}}, "Manchuria": {"Japanese": {"infantry": 1}},
                     "Kwantung": {"Japanese": {"infantry": 1}}, SZ61: {"Japanese": {"destroyer": 1}}})
    [ship] = [u.id for u in game.state.units if u.type == "destroyer"]
    asked = _recorded(monkeypatch, MovementEngine, "kept_destinations")
    run_phases(game, "Japanese", "noncombat_move")
    assert asked and ship not in asked
    assert game.unit_or_none(ship).space == SZ61
    assert ("move", ["Kwantung", "Manchuria"]) in _moves(game)  # (a step toward the front, Manchuria)
