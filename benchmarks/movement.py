"""Movement engine benchmark on the Revised start.

    python benchmarks/movement.py [--repeat N] [--rounds N] [--seeds N]

Prints, for every player at the Revised start (`Scenario.start_of(load_map("aar", ...))`) and
both movement phases: the number of legal moves and movable units, the time of a first
`legal_moves()` on a fresh engine, of a second call (cached), and of `destinations()` for every
movable unit on a fresh engine. Then the time of simulated games of move phases: each round,
every player makes random combat moves, then random non-combat moves, without battles, by two
agent styles: "snapshot" (movable_units once per phase, destinations per unit: the cheap way)
and "requery" (legal_moves() after every move). Target (issue 5): a whole 10-round game with
random agents < 0.5 s, so the move phases of one game should take a small part of that.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from ruleslang.board.mapdata import load_map
from ruleslang.board.scenario import Scenario
from ruleslang.board.state import GameState
from ruleslang.base.paths import default_roots
from ruleslang.runtime.kit.movement import Move, MovementEngine, MovementRules, UnitRules

# Revised-like unit rules (the runtime builds these from aar/base; the benchmark spells them out).
REVISED = {
    "infantry": UnitRules(1, "land", False, False, transport_cost=2),
    "artillery": UnitRules(1, "land", False, False, transport_cost=3),
    "armour": UnitRules(2, "land", True, False, transport_cost=3),
    "aaGun": UnitRules(1, "land", False, False, transport_cost=3, moves_in_combat=False),
    "fighter": UnitRules(4, "air", False, False, carrier_cost=1),
    "bomber": UnitRules(6, "air", False, False, can_bomb=True),
    "transport": UnitRules(2, "sea", False, False, transport_capacity=5),
    "submarine": UnitRules(2, "sea", False, False),
    "destroyer": UnitRules(2, "sea", False, True),
    "carrier": UnitRules(2, "sea", False, True, carrier_capacity=2),
    "battleship": UnitRules(2, "sea", False, True),
}


def revised_rules(game_map) -> MovementRules:
    side = {p.name: p.side for p in game_map.players}
    return MovementRules(lambda unit_type, owner: REVISED[unit_type], lambda a, b: side[a] == side[b])


def best_of(repeat: int, run) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def start_figures(game_map, repeat: int) -> None:
    rules = revised_rules(game_map)
    state = GameState.from_scenario(Scenario.start_of(game_map))
    MovementEngine(state, rules, game_map.turn_order[0], "combat").legal_moves()  # warm the map tables
    print(f"{'player':<10} {'phase':<10} {'moves':>5} {'units':>5} {'legal_moves':>12} {'again':>9} "
          f"{'destinations':>13}")
    for player in game_map.turn_order:
        for phase in ("combat", "noncombat"):
            engine = MovementEngine(state, rules, player, phase)
            moves = engine.legal_moves()
            movable = engine.movable_units()
            first = best_of(repeat, lambda: MovementEngine(state, rules, player, phase).legal_moves())
            again = best_of(repeat, engine.legal_moves)

            def all_destinations():
                fresh = MovementEngine(state, rules, player, phase)
                for uid in movable:
                    fresh.destinations(uid)

            dests = best_of(repeat, all_destinations)
            print(f"{player:<10} {phase:<10} {len(moves):>5} {len(movable):>5} {first * 1e3:>9.3f} ms "
                  f"{again * 1e3:>6.3f} ms {dests * 1e3:>10.3f} ms")


def random_phase(state, rules, player, phase, rng, style: str) -> int:
    """One move phase of a random agent. "snapshot": each unit movable at the start of the phase
    moves with probability 1/2 to a random destination (movable_units once, destinations per
    unit); "requery": a random legal move (legal_moves() after every move) until a 1-in-20 stop."""
    engine = MovementEngine(state, rules, player, phase)
    made = 0
    if style == "snapshot":
        for unit_id in engine.movable_units():
            if rng.random() < 0.5:
                destinations = engine.destinations(unit_id)
                if destinations:
                    engine.apply(Move((unit_id,), destinations[rng.choice(list(destinations))]))
                    made += 1
    else:
        while True:
            moves = engine.legal_moves()
            if not moves or rng.random() < 0.05:
                break
            engine.apply(rng.choice(moves))
            made += 1
    if phase == "combat":
        engine.contested()
        engine.bombing_raids()
    else:
        gone = engine.stranded_air()
        if gone:
            state.remove_units(gone)
    return made


def game_figures(game_map, rounds: int, seeds: int) -> None:
    rules = revised_rules(game_map)
    phases = rounds * len(game_map.turn_order) * 2
    print(f"\nsimulated {rounds}-round games of move phases only ({phases} phases, random agents, no battles), "
          f"{seeds} seeds:")
    for style in ("snapshot", "requery"):
        times, counts = [], []
        for seed in range(seeds):
            rng = random.Random(seed)
            state = GameState.from_scenario(Scenario.start_of(game_map))
            made = 0
            start = time.perf_counter()
            for number in range(1, rounds + 1):
                state.start_round(number)
                for player in game_map.turn_order:
                    state.start_turn(player)
                    made += random_phase(state, rules, player, "combat", rng, style)
                    made += random_phase(state, rules, player, "noncombat", rng, style)
            times.append(time.perf_counter() - start)
            counts.append(made)
        median = statistics.median(times)
        print(f"  {style:<8} per game: median {median * 1e3:6.1f} ms (max {max(times) * 1e3:6.1f} ms), "
              f"{statistics.median(counts):.0f} moves, {median / statistics.median(counts) * 1e6:.0f} us per move")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    game_map = load_map("aar", default_roots())
    print("Revised start: legal_moves() on a fresh engine, again (cached), destinations() of every movable unit")
    start_figures(game_map, args.repeat)
    game_figures(game_map, args.rounds, args.seeds)


if __name__ == "__main__":
    main()
