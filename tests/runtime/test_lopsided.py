"""The heuristic agent's part "lopsided" of SPARE: a small battle (`reckonable`) that "outmatched" or
"landless" judges is taken as winning no trial, as they take a battle they judge that is thrown,
without being reckoned; like a reckoned estimate, it draws no dice."""

from ruleslang.runtime.agents import heuristic, quick_battle
from ruleslang.runtime.agents.attack_planning import _doubt_settle
from ruleslang.runtime.agents.heuristic import HeuristicAgent

INFANTRY, FIGHTER = (1, 3, 1, True), (3, 10, 1, False)
DEFENDER = (2, 3, 1)
PARTS = ("settled", "reckon", "outmatched", "landless")


def _estimate(spare: tuple[str, ...], attack: tuple, defence: tuple, monkeypatch, takes: bool = True):
    """(the estimate's wins, the battles reckoned, the agent's generator's state after) of an agent
    with the parts `spare`, settled for odds of 0.75 as `_quick_verdict` settles them with "doubt"."""
    reckoned = [0]
    reckon = heuristic.reckon

    def counting(*args):
        reckoned[0] += 1
        return reckon(*args)

    monkeypatch.setattr(heuristic, "reckon", counting)
    agent = HeuristicAgent(3, "Germans", spare=spare)
    wins = agent._estimate(attack, defence, _doubt_settle(0.85, 0.675), takes)
    return wins, reckoned[0], agent.rng.getstate()


def test_a_small_lopsided_battle_is_not_reckoned_with_the_part(monkeypatch):
    # one infantry against four defenders: far weaker (1 x 1 against 8 x 4), and small enough to reckon
    attack, defence = (INFANTRY,), (DEFENDER,) * 4
    assert quick_battle.reckonable(attack, defence) and quick_battle.outmatched(attack, defence, heuristic.OUTMATCHED)
    without = _estimate(PARTS, attack, defence, monkeypatch)
    with_part = _estimate(PARTS + ("lopsided",), attack, defence, monkeypatch)
    assert without[1] == 1 and with_part[1] == 0
    assert with_part[0] == 0 and 0 < without[0] < 24  # (reckoned, a chance the caller takes as 0 wins)
    assert with_part[2] == without[2]  # no dice drawn either way: later estimates throw what they would have


def test_a_small_battle_left_without_a_taker_is_not_reckoned_and_others_are(monkeypatch):
    # one taker and two fighters against three defenders: the square law leaves no taker (not outmatched)
    attack, defence = tuple(sorted((INFANTRY,) + (FIGHTER,) * 2)), (DEFENDER,) * 3
    assert not quick_battle.outmatched(attack, defence, heuristic.OUTMATCHED)
    assert quick_battle.landless(attack, defence, heuristic.LANDLESS)
    assert _estimate(PARTS + ("lopsided",), attack, defence, monkeypatch)[:2] == (0, 0)
    # ... which an estimate of winning alone (not of taking) does not judge: reckoned
    assert _estimate(PARTS + ("lopsided",), attack, defence, monkeypatch, takes=False)[1] == 1
    # an even battle is reckoned as before
    even = _estimate(PARTS + ("lopsided",), ((3, 5, 1, True),) * 3, defence, monkeypatch)
    assert even[1] == 1 and even[0] > 24
    assert "lopsided" in heuristic.SPARE
