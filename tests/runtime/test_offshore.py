"""The heuristic agent's SPARE part "offshore" (session 28): an attack at sea whose quick exchange
(or reckoning) leaves it in doubt, and an assault from the sea left in doubt by the doubt's last
stage from a zone where no unit of the player's side fires, are answered by the quick estimate,
the chain not asked; an assault from a zone where such a unit stands (it may bombard the shore,
which the quick simulation does not see) and an attack at sea reckoned with units kept apart
("trident") still ask the chain. (The assaults' answers: test_spared_takes.py.)"""

from __future__ import annotations

from game_fixtures import BASE, ids, make_game, run_phases
from ruleslang.runtime.agents import attack_planning
from ruleslang.runtime.agents.battle_odds import CHAIN
from ruleslang.runtime.agents.heuristic import HeuristicAgent

BALTIC = "5 Sea Zone"
# the parts an attack at sea is answered through before the chain (the default's, for these)
FLEET = ("fleets", "hittable", "settled", "exchange", "reckon")


def _fleet_attack(units: dict, spare: tuple) -> tuple[int, int]:
    """(how many German units attack the Baltic in the combat move of the Germans' agent with the
    parts `spare`, the chains its fleet odds ran)."""
    game = make_game(BASE, scenario={"setup": "empty", "units": {
        **units, "United Kingdom": {"British": {"infantry": 1}}}}, agents={"Germans": "heuristic"})
    agent = game.agents["Germans"] = HeuristicAgent(1, "Germans", spare=spare)
    run_phases(game, "Germans", "combat_move")
    return len(ids(game, BALTIC, "Germans")), agent.fleet_odds.counts[CHAIN]


def test_an_attack_at_sea_reckoned_in_doubt_is_made_without_the_chain():
    # a bomber against a transport: reckoned at about 0.77 (within the last stage's 0.03 of
    # ATTACK_ODDS: in doubt), the chain asked, which answers the same and makes the attack; with
    # the part, the reckoning's answer: the same attack, no chain
    planes = {"Germany": {"Germans": {"bomber": 1, "infantry": 1}}, BALTIC: {"British": {"transport": 1}}}
    assert _fleet_attack(planes, FLEET) == (1, 1)
    assert _fleet_attack(planes, FLEET + ("offshore",)) == (1, 0)


class _Stalemates:
    """A stand-in for the plan's `Stalemates`: every pair of units can hit each other."""

    def at_once(self, *args) -> bool:
        return False


def _exchanged(monkeypatch, found: tuple[float, float, float], spare: tuple):
    """`_fleet_exchange`'s answer for an attack whose quick exchange gives `found` (chance, value
    lost, value destroyed) at every stage of EXCHANGE_STAGES."""
    agent = HeuristicAgent(1, "Germans", spare=spare)
    monkeypatch.setattr(agent, "_domain", lambda game, unit: "sea")
    monkeypatch.setattr(agent, "_combatant", lambda game, unit, role: (2, 8, 1))
    monkeypatch.setattr(agent, "_defence_values", lambda game, units: ((2, 8, 1),))
    monkeypatch.setattr(attack_planning, "exchange", lambda a, d, dice, trials, tally: (
        round(found[0] * trials), found[1] * trials, found[2] * trials))
    return agent._fleet_exchange(None, ["a"], ["d"], BALTIC, _Stalemates())


def test_an_attack_at_sea_the_last_stage_leaves_in_doubt_is_answered_by_it(monkeypatch):
    spare = ("fleets", "hittable", "settled", "exchange")
    near = (attack_planning.ATTACK_ODDS + 0.01, 5.0, 8.0)
    assert _exchanged(monkeypatch, near, spare) is None  # (the chain is asked)
    made = _exchanged(monkeypatch, near, spare + ("offshore",))
    assert made[0] >= attack_planning.ATTACK_ODDS and made[2] > made[1]
    # far enough over the odds and the values: settled with or without the part
    sure = (attack_planning.ATTACK_ODDS + 0.1, 2.0, 8.0)
    assert _exchanged(monkeypatch, sure, spare) == _exchanged(monkeypatch, sure, spare + ("offshore",))


def test_a_zone_is_backed_by_a_unit_of_the_players_side_that_fires_in_attack():
    game = make_game(BASE, scenario={"setup": "empty", "units": {
        BALTIC: {"Germans": {"transport": 1}, "British": {"destroyer": 1}},
        "6 Sea Zone": {"Germans": {"destroyer": 1}},
        "Germany": {"Germans": {"infantry": 1}}, "United Kingdom": {"British": {"infantry": 1}}}})
    agent = HeuristicAgent(1, "Germans")
    # a transport of its own (no fire in attack) and an enemy's destroyer: not backed
    assert not agent._backed(game, BALTIC)
    assert agent._backed(game, "6 Sea Zone")
