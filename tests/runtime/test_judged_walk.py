"""The combat plan's walk over numbers of units (attack_planning.py's `_fewest_spared`): a number
whose estimate "outmatched" or "landless" takes as winning no trial is answered no by
`_judged_no` before `_spared_takes` is asked, with the bookkeeping `_spared_takes` would do (the
seed a thrown estimate draws, "again"'s kept verdict or the seed of one asked again), so the walk
answers as before and leaves the agent's generator and kept verdicts as before (issue 15,
session 28)."""

from ruleslang.runtime.agents import quick_battle
from ruleslang.runtime.agents.attack_planning import AttackPlanning
from ruleslang.runtime.agents.heuristic import HeuristicAgent

INFANTRY = (1, 3, 1, True)
DEFENDER = (1, 3, 1)
DEFENCE = [DEFENDER] * 8
NEEDED = 0.75


def _walks(monkeypatch, judged: bool, walks: int = 2):
    """(each walk's answer, `_spared_takes`' calls, the generator's state, the kept verdicts) of
    `walks` walks in one plan over twelve infantry against eight defenders (the units stand for
    their own values), with or without `_judged_no`."""
    agent = HeuristicAgent(5, "Germans")
    monkeypatch.setattr(agent, "_taker", lambda game, unit: unit)
    monkeypatch.setattr(agent, "_defence_values", lambda game, units: tuple(sorted(units)))
    if not judged:
        monkeypatch.setattr(agent, "_judged_no", lambda *args: False)
    asked = []
    spared = agent._spared_takes

    def counting(game, target, units, *args, **kwargs):
        asked.append(len(units))
        return spared(game, target, units, *args, **kwargs)
    monkeypatch.setattr(agent, "_spared_takes", counting)
    agent._verdicts = {}
    answers = [agent._fewest_spared(None, "Karelia S.S.R.", [INFANTRY] * 12, DEFENCE, NEEDED, 1)
               for _ in range(walks)]
    return answers, asked, agent.rng.getstate(), agent._verdicts


def test_the_walk_answers_judged_numbers_without_an_estimate_as_it_did_with_one(monkeypatch):
    attack = lambda n: ((INFANTRY,) * n, tuple(DEFENCE))  # noqa: E731
    # 1-4 infantry: small battles (reckoned: no seed); 5 thrown (a seed), outmatched; 6 and 7 thrown,
    # left without a taker by the square law; 8 on estimated
    assert quick_battle.reckonable(*attack(4)) and not quick_battle.reckonable(*attack(5))
    assert quick_battle.outmatched(*attack(5), 0.5) and not quick_battle.outmatched(*attack(6), 0.5)
    assert quick_battle.landless(*attack(7), 1.25) and not quick_battle.landless(*attack(8), 1.25)
    before = _walks(monkeypatch, judged=False)
    after = _walks(monkeypatch, judged=True)
    assert after[0] == before[0] == [10, 10]  # (the second walk: every verdict asked again)
    assert after[2] == before[2]  # the same seeds drawn: every later estimate throws the same dice
    assert after[3] == before[3]  # the same verdicts kept for the plan ("again")
    # each walk asked `_spared_takes` of every number up to its answer before, of 8 on after
    assert before[1] == list(range(1, 11)) * 2
    assert after[1] == [8, 9, 10] * 2


def test_the_walk_judges_nothing_without_the_parts_that_take_an_attack_as_winning_no_trial(monkeypatch):
    agent = HeuristicAgent(5, "Germans", spare=("attacks", "settled", "again", "doubt", "reckon"))
    agent._verdicts = {}
    values = ((INFANTRY,) * 3, tuple(DEFENCE))
    settle = agent._verdict_terms(NEEDED, True)[2]
    state = agent.rng.getstate()
    assert agent._judged_no(values, NEEDED, settle) is False
    assert agent.rng.getstate() == state and agent._verdicts == {}
