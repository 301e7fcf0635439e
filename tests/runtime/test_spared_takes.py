"""The heuristic agent's estimates of taking a space (attack_planning.py's `_spared_takes`): the
doubt's last band (SPARE "band") and what is left in it (SPARE "near"; of assaults, "offshore"),
an estimate asked again within one combat plan (SPARE "again"), and the estimate's values made
once for every stage of its doubt."""

from __future__ import annotations

from ruleslang.runtime.agents import attack_planning, heuristic
from ruleslang.runtime.agents.heuristic import HeuristicAgent

# the quick simulation's values of three attackers that take territory (fire 3, cost 5, one hit
# point) against two defenders (fire 2, cost 3): about the odds an attack needs
ATTACK = ((3, 5, 1, True),) * 3
DEFENCE = ((2, 3, 1),) * 2
NEEDED = attack_planning.ATTACK_ODDS


class _Chain:
    """A stand-in for the agent's exact chain: the chance it gives, and how often it was asked."""

    def __init__(self, chance: float):
        self.chance_given, self.asked = chance, 0

    def chance(self, *args, **kwargs) -> float:
        self.asked += 1
        return self.chance_given


def _in_doubt(monkeypatch, chance: float, spare: tuple, chain: float = 0.9,
              amphibious_from: str | None = None) -> tuple[bool | None, int]:
    """(`_spared_takes`'s answer, the chain's runs) for an attack whose quick chance is `chance` at
    every stage of the doubt (60 trials, then 240 and 480 in all), the chain giving `chain`."""
    agent = HeuristicAgent(1, "Germans", spare=spare)
    agent.battle_odds = _Chain(chain)
    monkeypatch.setattr(agent, "_quick_takes", lambda *args, **kwargs: round(chance * 60) / 60)
    monkeypatch.setattr(heuristic, "simulate", lambda *args, trials, **kwargs: round(chance * trials))
    found = agent._spared_takes(None, "Karelia S.S.R.", [], DEFENCE, NEEDED, values=(ATTACK, DEFENCE),
                                amphibious_from=amphibious_from)
    return found, agent.battle_odds.asked


def test_the_doubts_last_band_is_narrower_with_the_part_band(monkeypatch):
    """The part "band": after the doubt's last stage (480 trials), a chance DOUBT_BAND over or under
    the odds needed is the answer; without it the chain is asked within DOUBT_ABOVE and
    DOUBT_BELOW. About 0.023 over: the chain's yes without the part, the quick yes with it; about
    0.023 under: the chain's answer, and with the part a no without the chain."""
    base = ("attacks", "below", "settled", "doubt")
    assert attack_planning.DOUBT_BAND < 0.023 < attack_planning.DOUBT_ABOVE
    assert _in_doubt(monkeypatch, NEEDED + 0.025, base) == (True, 1)
    assert _in_doubt(monkeypatch, NEEDED + 0.025, base + ("band",)) == (True, 0)
    assert _in_doubt(monkeypatch, NEEDED - 0.024, base) == (True, 1)
    assert _in_doubt(monkeypatch, NEEDED - 0.024, base + ("band",)) == (False, 0)
    # nearer than DOUBT_BAND: the chain is still asked
    assert _in_doubt(monkeypatch, NEEDED + 0.01, base + ("band",)) == (True, 1)


def test_a_land_attack_left_in_doubt_is_answered_without_the_chain_with_the_part_near(monkeypatch):
    """The part "near": a land attack whose chance the doubt's last stage leaves within DOUBT_BAND
    of the odds needed is answered by that chance (a yes at or over them, else None, as the chain's
    no), the chain not asked; without it, or for an assault from the sea, the chain answers."""
    base = ("attacks", "below", "settled", "doubt", "band")
    assert _in_doubt(monkeypatch, NEEDED + 0.01, base, chain=0.5) == (None, 1)
    assert _in_doubt(monkeypatch, NEEDED + 0.01, base + ("near",), chain=0.5) == (True, 0)
    assert _in_doubt(monkeypatch, NEEDED - 0.01, base, chain=0.9) == (True, 1)
    assert _in_doubt(monkeypatch, NEEDED - 0.01, base + ("near",), chain=0.9) == (None, 0)
    assert _in_doubt(monkeypatch, NEEDED - 0.01, base + ("near",), chain=0.9,
                     amphibious_from="Baltic Sea Zone") == (True, 1)
    # outside the band the doubt answers as before, with or without the part
    assert _in_doubt(monkeypatch, NEEDED + 0.025, base + ("near",), chain=0.5) == (True, 0)


def test_an_assault_left_in_doubt_is_answered_by_its_chance_with_the_part_offshore(monkeypatch):
    """The part "offshore": an assault from the sea left in doubt as "near" leaves a land attack is
    answered by its chance, the chain not asked, where no unit of the player's side that fires
    stands in the zone it lands from (`_backed`: such a unit may bombard the shore, which the quick
    simulation does not see); from such a zone the chain answers."""
    base = ("attacks", "below", "settled", "doubt", "band", "near")
    zone = "Baltic Sea Zone"
    backed = []
    monkeypatch.setattr(HeuristicAgent, "_backed", lambda self, game, space: space in backed)
    assert _in_doubt(monkeypatch, NEEDED - 0.01, base, chain=0.9, amphibious_from=zone) == (True, 1)
    assert _in_doubt(monkeypatch, NEEDED - 0.01, base + ("offshore",), chain=0.9, amphibious_from=zone) == (None, 0)
    assert _in_doubt(monkeypatch, NEEDED + 0.01, base + ("offshore",), chain=0.5, amphibious_from=zone) == (True, 0)
    backed.append(zone)
    assert _in_doubt(monkeypatch, NEEDED - 0.01, base + ("offshore",), chain=0.9, amphibious_from=zone) == (True, 1)
    # outside the band the doubt answers as before
    assert _in_doubt(monkeypatch, NEEDED - 0.025, base + ("offshore",), chain=0.9, amphibious_from=zone) == (False, 0)


def test_an_estimate_in_doubt_makes_its_values_once(monkeypatch):
    """An estimate asked without its values (an assault's, `_takes`) makes them once for its first
    trials and every stage of the doubt (`_take_values`), not again at each stage: the same values,
    the same answers."""
    agent = HeuristicAgent(1, "Germans", spare=("attacks", "below", "settled", "doubt"))
    agent.battle_odds = _Chain(0.9)
    made = []

    def values(game, attack, defence):
        made.append(len(attack))
        return ATTACK, DEFENCE
    monkeypatch.setattr(agent, "_take_values", values)
    monkeypatch.setattr(agent, "_quick_takes", lambda *args, **kwargs: NEEDED)
    asked = []

    def simulate(a_vals, d_vals, dice, *, trials, **kwargs):
        asked.append((a_vals, d_vals, trials))
        return round(NEEDED * trials)
    monkeypatch.setattr(heuristic, "simulate", simulate)
    assert agent._spared_takes(None, "Karelia S.S.R.", [None] * 3, [None] * 2, NEEDED, amphibious_from="x") is True
    assert asked == [(ATTACK, DEFENCE, 180), (ATTACK, DEFENCE, 240)] and agent.battle_odds.asked == 1
    assert made == [3]


def _asked_twice(spare: tuple, monkeypatch) -> tuple[list, int, object]:
    """(the answers of the same estimate asked twice, the simulations run, the agent's generator's
    state after)."""
    agent = HeuristicAgent(1, "Germans", spare=spare)
    agent.battle_odds = _Chain(0.9)
    simulate, run = heuristic.simulate, [0]

    def counting(*args, **kwargs):
        run[0] += 1
        return simulate(*args, **kwargs)
    monkeypatch.setattr(heuristic, "simulate", counting)
    answers = [agent._spared_takes(None, "Karelia S.S.R.", [None] * 3, [None] * 2, NEEDED, values=(ATTACK, DEFENCE))
               for _ in range(2)]
    monkeypatch.setattr(heuristic, "simulate", simulate)
    return answers, run[0], agent.rng.getstate()


def test_an_estimate_asked_again_in_a_plan_is_answered_as_the_first_time(monkeypatch):
    """The part "again": the same force against the same defence for the same odds, asked again
    within one combat plan, is answered as the first time without a simulation; its generator's
    seed is drawn all the same, so later estimates roll the dice they would have rolled."""
    base = ("attacks", "below", "settled", "doubt")
    answers, run, state = _asked_twice(base, monkeypatch)
    again, run_again, state_again = _asked_twice(base + ("again",), monkeypatch)
    assert run_again < run and again[0] == again[1] and again[0] == answers[0]
    assert state_again == state
