"""Attacks at sea settled by more trials of the quick simulation with the values each side loses
(the heuristic agent's SPARE part "exchange", session 22): quick_battle.py's `exchange` fights the
battles `simulate` fights and counts the units destroyed as the exact chain does; an attack whose
units the rules let hit every defender is made without the chain where it settles the answer."""

from __future__ import annotations

import random

from game_fixtures import BASE, make_game, run_phases, ids
from ruleslang.runtime.agents.battle_odds import CHAIN
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.agents.quick_battle import ROUNDS, exchange, hits, simulate, take

BALTIC = "5 Sea Zone"


def test_the_exchange_wins_the_battles_simulate_wins_with_the_same_dice():
    pick = random.Random(3)
    for seed in range(150):
        a_vals = tuple(sorted((pick.randint(0, 4), pick.choice([6, 8, 12, 16, 20]), pick.choice([1, 1, 2]))
                              for _ in range(pick.randint(1, 6))))
        d_vals = tuple(sorted((pick.randint(0, 4), pick.choice([6, 8, 12, 16, 20]), pick.choice([1, 1, 2]))
                              for _ in range(pick.randint(1, 6))))
        mine, theirs = random.Random(seed), random.Random(seed)
        assert exchange(a_vals, d_vals, mine, 40)[0] == simulate(a_vals, d_vals, theirs, trials=40)
        assert mine.getstate() == theirs.getstate()


def _plain_exchange(a_vals: tuple, d_vals: tuple, rng: random.Random, trials: int) -> tuple[int, int, int]:
    """`exchange` in its plain form: every battle's sides copied, each round's hits and
    casualties as `hits` and `take` make them, the costs of the units gone counted after it."""
    wins = a_lost = d_lost = 0
    for _ in range(trials):
        a, d = [list(u) for u in a_vals], [list(u) for u in d_vals]
        for _round in range(ROUNDS):
            a_hits, d_hits = hits(rng.getrandbits, a), hits(rng.getrandbits, d)
            take(d, a_hits)
            take(a, d_hits)
            if not a or not d:
                break
        wins += bool(a and not d)
        a_lost += sum(u[1] for u in a_vals) - sum(u[1] for u in a)
        d_lost += sum(u[1] for u in d_vals) - sum(u[1] for u in d)
    return wins, a_lost, d_lost


def test_the_exchange_loses_the_units_its_plain_form_loses():
    # (battles of units of one hit point take `simulate`'s quicker path: the same dice, the same losses)
    pick = random.Random(4)
    for seed in range(150):
        a_vals, d_vals = (tuple(sorted((pick.randint(0, 4), pick.choice([6, 8, 12, 16, 20]),
                                        pick.choice([1, 1, 1, 2] if seed % 2 else [1])) for _ in range(pick.randint(1, 6))))
                          for _side in range(2))
        mine, theirs = random.Random(seed), random.Random(seed)
        assert exchange(a_vals, d_vals, mine, 30) == _plain_exchange(a_vals, d_vals, theirs, 30)
        assert mine.getstate() == theirs.getstate()


def test_the_exchange_counts_units_destroyed_not_those_left_with_a_hit():
    # a unit of two hit points firing at 6 against one of one firing at 6: each round-one die
    # hits; the defender is destroyed, the attacker only damaged (not lost, as the chain counts)
    assert exchange(((6, 10, 2),), ((6, 8, 1),), random.Random(1), 50) == (50, 0, 400)
    # ... and against two such defenders the attacker is destroyed in round one as well
    assert exchange(((6, 10, 2),), ((6, 8, 1), (6, 8, 1)), random.Random(1), 20) == (0, 200, 160)


def _fleet_attack(units: dict, **options) -> tuple[int, int]:
    """(how many German units attack the Baltic in the combat move of the Germans' agent made with
    `options`, the chains its fleet odds ran)."""
    game = make_game(BASE, scenario={"setup": "empty", "units": {
        **units, "United Kingdom": {"British": {"infantry": 1}}}}, agents={"Germans": "heuristic"})
    agent = game.agents["Germans"] = HeuristicAgent(1, "Germans", **options)
    run_phases(game, "Germans", "combat_move")
    return len(ids(game, BALTIC, "Germans")), agent.fleet_odds.counts[CHAIN]


def test_an_attack_at_sea_the_quick_exchange_settles_asks_no_chain():
    # three destroyers against two: the quick chance of 60 trials is in doubt (under 0.9), so
    # "fleets" with "hittable" asks the chain (which makes the attack); more trials with the
    # values lost settle it without the chain: the same attack
    ships = {"6 Sea Zone": {"Germans": {"destroyer": 3}}, BALTIC: {"British": {"destroyer": 2}},
             "Germany": {"Germans": {"infantry": 1}}}
    spare = ("fleets", "hittable", "settled")
    made, chains = _fleet_attack(ships, spare=spare)
    assert made == 3 and chains == 1
    assert _fleet_attack(ships, spare=spare + ("exchange",)) == (made, 0)
