"""The heuristic agent's part "landless" of SPARE: an estimate of taking a territory whose attack
Lanchester's square law leaves with no unit that takes territory (quick_battle.py's `landless`) is
taken as winning no trial, its dice not thrown but its generator's seed drawn all the same."""

from ruleslang.runtime.agents import heuristic, quick_battle
from ruleslang.runtime.agents.attack_planning import _doubt_settle
from ruleslang.runtime.agents.heuristic import HeuristicAgent

INFANTRY, ARMOUR, FIGHTER = (1, 3, 1, True), (3, 5, 1, True), (3, 10, 1, False)
DEFENDER = (2, 3, 1)


def test_landless_judges_the_takers_left_by_the_square_law():
    # one taker among six fighters against six defenders: the attack is the stronger (19 x 7
    # against 12 x 6) but loses 7 x (1 - sqrt(1 - 72 / 133)), about 2.3 units, more than the one
    # it may lose with its taker (the cheapest) still standing; taken 1.25 times as strong, 1.7
    assert quick_battle.landless((INFANTRY,) + (FIGHTER,) * 6, (DEFENDER,) * 6, 1.0)
    assert quick_battle.landless((INFANTRY,) + (FIGHTER,) * 6, (DEFENDER,) * 6, 1.25)
    # ... but not taken three times as strong (0.7 units)
    assert not quick_battle.landless((INFANTRY,) + (FIGHTER,) * 6, (DEFENDER,) * 6, 3.0)
    # four armour against two defenders lose about 0.35 units of their four takers
    assert not quick_battle.landless((ARMOUR,) * 4, (DEFENDER,) * 2, 1.0)
    # no stronger than the defence (2 x 2 against 4 x 2): loses all; taken twice as strong, even
    assert quick_battle.landless((INFANTRY,) * 2, (DEFENDER,) * 2, 2.0)
    assert not quick_battle.landless((INFANTRY,) * 2, (DEFENDER,) * 2, 2.5)
    # takers dearer than the rest fall last: four takers behind two cheap units that take nothing
    assert not quick_battle.landless(((1, 1, 1, False),) * 2 + (ARMOUR,) * 4, (DEFENDER,) * 4, 1.0)
    # a unit of two hit points is not judged
    assert not quick_battle.landless((INFANTRY,), ((4, 20, 2),), 1.0)


def _quick_takes(spare: tuple[str, ...], attack: tuple, defence: tuple, monkeypatch) -> tuple[float, int, tuple]:
    """(the quick chance of taking, the battles simulated, the agent's generator's state after)
    of an agent with the parts `spare`, its estimate settled for odds of 0.75 as `_quick_verdict`
    settles them with the part "doubt"."""
    thrown = [0]
    simulate = heuristic.simulate

    def counting(*args, **kwargs):
        thrown[0] += 1
        return simulate(*args, **kwargs)

    monkeypatch.setattr(heuristic, "simulate", counting)
    agent = HeuristicAgent(3, "Germans", spare=spare)
    chance = agent._quick_takes(None, [None], [None], _doubt_settle(0.85, 0.675), values=(attack, defence))
    return chance, thrown[0], agent.rng.getstate()


def test_an_attack_left_without_a_taker_is_taken_as_winning_no_trial_with_the_part_landless(monkeypatch):
    attack, defence = tuple(sorted((INFANTRY,) + (FIGHTER,) * 6)), (DEFENDER,) * 6
    without = _quick_takes(("settled",), attack, defence, monkeypatch)
    with_part = _quick_takes(("settled", "landless"), attack, defence, monkeypatch)
    assert without[1] == 1 and with_part[1] == 0
    assert with_part[0] == 0.0 and without[0] < 0.675  # (the thrown chance is a no as well)
    assert with_part[2] == without[2]  # the estimate's seed drawn all the same: later dice unchanged
    # an attack that keeps its takers is thrown as before
    strong = tuple(sorted((ARMOUR,) * 4))
    assert _quick_takes(("settled", "landless"), strong, defence[:2], monkeypatch)[1] == 1
    assert "landless" in heuristic.SPARE
