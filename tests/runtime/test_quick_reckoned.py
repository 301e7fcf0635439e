"""The quick model's battles worked out exactly (quick_battle.py's `reckon`, the heuristic agent's
SPARE part "reckon", session 23): the chance and the losses `simulate`'s and `exchange`'s trials
tend to, without dice, for battles small enough (`reckonable`); a reckoned chance is judged as the
last stage of a doubt or an exchange at sea judges its own, with no more trials thrown."""

from __future__ import annotations

import random

import pytest

from game_fixtures import BASE, ids, make_game, run_phases
from ruleslang.runtime.agents import attack_planning
from ruleslang.runtime.agents.battle_odds import CHAIN
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent
from ruleslang.runtime.agents.meetings import Stalemates
from ruleslang.runtime.agents.quick_battle import (RECKON_STATES, SIM_TRIALS, exchange, reckon, reckonable,
                                                   simulate)

KARELIA, BELORUSSIA = "Karelia S.S.R.", "Belorussia"


def test_a_battle_of_two_units_is_reckoned_as_worked_out_by_hand():
    # each hits with a half: a round that changes nothing (a quarter) is thrown again, so the attack
    # wins a third (it hits, the defence misses), both fall a third, the defence wins a third
    won, a_lost, d_lost = reckon(((3, 3, 1),), ((3, 4, 1),))
    assert won == pytest.approx(1 / 3)
    assert a_lost == pytest.approx(3 * 2 / 3)   # the attacker falls in two thirds of the battles
    assert d_lost == pytest.approx(4 * 2 / 3)


def test_a_unit_of_two_hit_points_outlives_its_first_hit():
    # both always hit: the defender falls in the first round, the attacker is left with a hit
    # (not a unit lost, as the chain counts it)
    assert reckon(((6, 20, 2),), ((6, 10, 1),)) == (1.0, 0.0, 10.0)
    # ... and falls to two such defenders, which it takes one of with it
    won, a_lost, d_lost = reckon(((6, 20, 2),), ((6, 10, 1), (6, 10, 1)))
    assert (won, a_lost, d_lost) == (0.0, 20.0, 10.0)


def test_a_battle_neither_side_can_hit_is_never_won():
    assert reckon(((0, 3, 1),), ((0, 3, 1),)) == (0.0, 0.0, 0.0)


def test_only_an_attacker_that_takes_territory_takes_the_space():
    # an air unit (takes nothing) and the cheaper land unit (falls first): the attack destroys the
    # defence more often than it takes the space
    attack = ((1, 3, 1, True), (3, 10, 1, False))
    won, _, _ = reckon(attack, ((2, 3, 1),))
    taken, _, _ = reckon(attack, ((2, 3, 1),), takes=True)
    assert 0 < taken < won
    # with no land unit at all nothing is taken
    assert reckon(((3, 10, 1, False),), ((2, 3, 1),), takes=True)[0] == 0.0


def _random_side(pick: random.Random, takes: bool) -> tuple:
    units = [(pick.randint(1, 4), pick.choice([3, 6, 8, 12, 20]), pick.choice([1, 1, 1, 2]))
             for _ in range(pick.randint(1, 4))]
    return tuple(sorted((*u, pick.random() < 0.7) if takes else u for u in units))


def test_reckoned_chances_and_losses_are_what_many_trials_tend_to():
    # (20,000 trials: the spread of a chance is at most 0.0035; every unit hits at times, so ROUNDS
    # cuts off few battles)
    pick = random.Random(7)
    for seed in range(30):
        takes = seed % 3 == 0
        a_vals, d_vals = _random_side(pick, takes), _random_side(pick, False)
        won, a_lost, d_lost = reckon(a_vals, d_vals, takes)
        assert simulate(a_vals, d_vals, random.Random(seed), takes=takes, trials=20_000) / 20_000 \
            == pytest.approx(won, abs=0.02)
        if not takes:
            _, gone, taken = exchange(a_vals, d_vals, random.Random(seed), 20_000)
            assert gone / 20_000 == pytest.approx(a_lost, abs=0.02 * sum(u[1] for u in a_vals))
            assert taken / 20_000 == pytest.approx(d_lost, abs=0.02 * sum(u[1] for u in d_vals))


def test_a_battle_goes_on_until_a_side_is_destroyed():
    # a defence that cannot hit falls in the end, however long it takes (the trials' ROUNDS cut
    # off about a ninth of these battles unwon: 12 rounds of a die that hits one time in six)
    assert reckon(((1, 3, 1),), ((0, 3, 1),)) == pytest.approx((1.0, 0.0, 3.0))
    assert simulate(((1, 3, 1),), ((0, 3, 1),), random.Random(1), trials=20_000) / 20_000 == pytest.approx(
        1 - (5 / 6) ** 12, abs=0.01)


def test_only_small_battles_are_reckoned():
    one = (3, 3, 1)
    assert reckonable((one,) * 5, (one,) * 7)          # 6 x 8 states
    assert not reckonable((one,) * 6, (one,) * 7)      # 7 x 8
    assert not reckonable(((3, 20, 2),) * 3, (one,) * 6)  # (6 hit points + 1) x 7
    assert RECKON_STATES == 48


def test_a_reckoned_estimate_throws_no_dice():
    game = make_game(BASE, scenario={"setup": "empty", "units": {
        BELORUSSIA: {"Germans": {"armour": 2}}, KARELIA: {"Russians": {"infantry": 1}}}})
    attack, defence = ids(game, BELORUSSIA, "Germans"), ids(game, KARELIA, "Russians")
    attack, defence = [game.unit_or_none(u) for u in attack], [game.unit_or_none(u) for u in defence]
    for spare, thrown in ((SPARE, False), (tuple(p for p in SPARE if p != "reckon"), True)):
        agent = HeuristicAgent(1, "Germans", spare=spare)
        before = agent.rng.getstate()
        wins = agent._wins(game, attack, defence)
        assert (agent.rng.getstate() != before) is thrown
        if not thrown:
            a_vals = tuple(sorted(agent._combatant(game, u, "attacker") for u in attack))
            d_vals = tuple(sorted(agent._combatant(game, u, "defender") for u in defence))
            assert wins == reckon(a_vals, d_vals)[0] * SIM_TRIALS


def _combat_move(units: dict, spare: tuple, monkeypatch) -> tuple[bool, int, int]:
    """(whether the Germans' agent with `spare` attacks Karelia in combat move, the chains its
    battle odds ran, the doubt's more trials it threw)."""
    more = [0]
    thrown = HeuristicAgent._more_takes

    def counting(self, *args, **kwargs):
        more[0] += 1
        return thrown(self, *args, **kwargs)
    monkeypatch.setattr(HeuristicAgent, "_more_takes", counting)
    game = make_game(BASE, scenario={"setup": "empty", "units": units}, agents={"Germans": "heuristic"})
    agent = game.agents["Germans"] = HeuristicAgent(1, "Germans", spare=spare)
    run_phases(game, "Germans", "combat_move")
    return bool(ids(game, KARELIA, "Germans")), agent.battle_odds.counts[CHAIN], more[0]


def test_a_reckoned_chance_in_doubt_is_judged_without_more_trials(monkeypatch):
    # three armour against two infantry: two of them take Karelia with a chance of 0.63, in doubt
    # at 60 trials and still at the doubt's last stage (the chain asked); reckoned, the chance is
    # judged at once: no more trials, no chain
    assert reckon(((3, 5, 1, True),) * 2, ((2, 3, 1),) * 2, takes=True)[0] == pytest.approx(0.6304, abs=1e-4)
    near = {BELORUSSIA: {"Germans": {"armour": 3}}, KARELIA: {"Russians": {"infantry": 2}}}
    base = ("attacks", "settled", "doubt")
    taken, chains, more = _combat_move(near, base, monkeypatch)
    assert (taken, chains) == (True, 1) and more > 0
    assert _combat_move(near, base + ("reckon",), monkeypatch) == (True, 0, 0)


def test_an_attack_at_sea_is_settled_by_its_reckoned_exchange(monkeypatch):
    # a battleship and a fighter against a destroyer (fighters hit destroyers: the exchange may
    # settle it): reckoned, never thrown (quick_battle's `exchange` is not called), and made
    def no_trials(*args):
        raise AssertionError("the exchange was thrown")
    monkeypatch.setattr(attack_planning, "exchange", no_trials)
    game = make_game(BASE, scenario={"setup": "empty", "units": {
        "Germany": {"Germans": {"fighter": 1}}, "5 Sea Zone": {"Germans": {"battleship": 1}},
        "6 Sea Zone": {"British": {"destroyer": 1}}, "United Kingdom": {"British": {"infantry": 1}}}})
    units = [game.unit_or_none(u) for u in ids(game, "5 Sea Zone", "Germans") + ids(game, "Germany", "Germans")]
    defenders = [game.unit_or_none(u) for u in ids(game, "6 Sea Zone", "British")]
    agent = HeuristicAgent(1, "Germans")
    found = agent._fleet_exchange(game, units, defenders, "6 Sea Zone", Stalemates(game))
    a_vals = tuple(sorted(agent._combatant(game, u, "attacker") for u in units))
    d_vals = agent._defence_values(game, defenders)
    assert reckonable(a_vals, d_vals)
    assert found == reckon(a_vals, d_vals) and found[0] > 0.9
