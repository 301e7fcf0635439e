"""The exact chain of a battle in progress (`BattleSpec.round` after the first: no `start` step,
every round a late one), the hits its units took, the chain kept across a battle's rounds, and the
heuristic agent's retreat question asked from the round after the one just fought."""

from __future__ import annotations

from fractions import Fraction

import pytest

from game_fixtures import BASE, ids, make_game
from ruleslang.base.errors import EvalError
from ruleslang.runtime.agents.battle_odds import CHAIN, KEPT, BattleOdds
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.decisions import Decision
from ruleslang.runtime.kit.battle import Battle
from ruleslang.runtime.odds.chain import ATTACKER_WINS, BOTH_DESTROYED, BattleSpec, Chain

LAND, SEA, OFFSHORE = "Karelia S.S.R.", "12 Sea Zone", "5 Sea Zone"


@pytest.fixture(scope="module")
def game():
    return make_game(BASE)


def _won_one_on_one(attack: int, defence: int) -> Fraction:
    """One unit hitting on `attack` against one hitting on `defence`, from a round with no first-round
    fire: the attacker wins when it hits and is not hit in the same round."""
    pa, pd = Fraction(attack, 6), Fraction(defence, 6)
    return pa * (1 - pd) / (1 - (1 - pa) * (1 - pd))


def _solve(game, spec, **options):
    chain = Chain(game, spec, **options)
    return chain, chain.solve()


def test_from_round_two_the_aa_gun_does_not_fire_again(game):
    # a fighter (attack 3) against an infantry (defence 2) and an AA gun (hits an aircraft on 1 before round 1)
    spec = BattleSpec(LAND, "Germans", {"fighter": 1}, {"infantry": 1, "aaGun": 1}, "Russians")
    first_chain, first = _solve(game, spec)
    spec.round = 2
    later_chain, later = _solve(game, spec)
    assert later.outcome(ATTACKER_WINS) == _won_one_on_one(3, 2) == Fraction(1, 2)
    assert first.outcome(ATTACKER_WINS) == Fraction(5, 6) * Fraction(1, 2)
    assert "battle_start" in first_chain.runs and "battle_start" not in later_chain.runs


def test_from_round_two_the_ships_offshore_do_not_bombard_again(game):
    # an infantry landing from 5 Sea Zone with a battleship offshore (bombards at 4, round 1 only)
    spec = BattleSpec(LAND, "Germans", {"infantry": 1, "battleship": 1}, {"infantry": 1}, "Russians",
                      amphibious_from=OFFSHORE)
    first = _solve(game, spec)[1]
    spec.round = 3
    later = _solve(game, spec)[1]
    plain = _won_one_on_one(1, 2)  # 1/4
    assert later.outcome(ATTACKER_WINS) == plain
    # round 1: the bombardment hits (2/3), the defender's casualty fires back (both destroyed 1/3 of
    # that), else the attacker wins; without a hit, the plain battle
    assert first.outcome(ATTACKER_WINS) == Fraction(2, 3) * Fraction(2, 3) + Fraction(1, 3) * plain
    assert first.outcome(BOTH_DESTROYED) > later.outcome(BOTH_DESTROYED)


def test_a_damaged_two_hit_unit_goes_on_with_its_hit(game):
    fresh = BattleSpec(SEA, "Germans", {"battleship": 1}, {"destroyer": 1}, "Americans", round=2)
    damaged = BattleSpec(SEA, "Germans", {"battleship": 1}, {"destroyer": 1}, "Americans", round=2,
                         hits={("attacker", "battleship"): (1,)})
    # a battleship with one hit left (attack 4) against a destroyer (defence 3)
    assert _solve(game, damaged)[1].outcome(ATTACKER_WINS) == _won_one_on_one(4, 3) == Fraction(2, 5)
    assert _solve(game, fresh)[1].outcome(ATTACKER_WINS) > Fraction(2, 5)


@pytest.mark.parametrize("spec, code", [
    (BattleSpec(LAND, "Germans", {"infantry": 1}, {"infantry": 1}, "Russians", round=0), "E565"),
    (BattleSpec(SEA, "Germans", {"battleship": 1}, {"destroyer": 1}, "Americans", hits={("attacker", "battleship"): (2,)}),
     "E566"),
    (BattleSpec(SEA, "Germans", {"battleship": 1}, {"destroyer": 1}, "Americans",
                hits={("attacker", "battleship"): (1, 1)}), "E566"),
    (BattleSpec(SEA, "Germans", {"battleship": 1}, {"destroyer": 1}, "Americans",
                hits={("defender", "battleship"): (1,)}), "E566"),
])
def test_a_battle_in_progress_that_cannot_be_is_refused(game, spec, code):
    with pytest.raises(EvalError) as caught:
        Chain(game, spec)
    assert caught.value.code == code


@pytest.mark.parametrize("start, later", [
    (BattleSpec(LAND, "Germans", {"infantry": 3, "artillery": 1, "fighter": 1}, {"infantry": 3, "armour": 1},
                "Russians", round=2),
     [({"infantry": 3, "artillery": 1, "fighter": 1}, {"infantry": 3, "armour": 1}, {}),
      ({"infantry": 1, "artillery": 1, "fighter": 1}, {"infantry": 2}, {}),
      ({"infantry": 2}, {"infantry": 3, "armour": 1}, {}),
      ({"fighter": 1}, {"armour": 1}, {}),
      ({"artillery": 1, "fighter": 1}, {"infantry": 1, "armour": 1}, {})]),
    (BattleSpec(SEA, "Germans", {"battleship": 2, "destroyer": 1}, {"battleship": 1, "destroyer": 2}, "Americans",
                round=2),
     [({"battleship": 2, "destroyer": 1}, {"battleship": 1, "destroyer": 1}, {("attacker", "battleship"): (1,)}),
      ({"battleship": 1}, {"battleship": 1, "destroyer": 1}, {("defender", "battleship"): (1,)}),
      ({"battleship": 2}, {"destroyer": 2}, {("attacker", "battleship"): (1, 1)}),
      ({"destroyer": 1}, {"battleship": 1}, {})]),
])
def test_the_kept_chain_answers_a_later_round_as_a_new_chain_does(game, start, later):
    kept, _ = _solve(game, start)
    for attacking, defending, hits in later:
        spec = BattleSpec(start.space, start.attacker, attacking, defending, start.defender, round=3, hits=hits)
        assert kept.win_chance_at(spec) == _solve(game, spec)[1].outcome(ATTACKER_WINS), (attacking, defending, hits)


def test_the_kept_chain_answers_only_its_own_battle(game):
    kept, _ = _solve(game, BattleSpec(LAND, "Germans", {"infantry": 2}, {"infantry": 2}, "Russians", round=2))
    assert kept.win_chance_at(BattleSpec(LAND, "Germans", {"infantry": 1}, {"infantry": 1}, "Russians", round=2)) \
        == Fraction(1, 4)
    for other in (BattleSpec(LAND, "Germans", {"armour": 1}, {"infantry": 1}, "Russians", round=2),  # a new type
                  BattleSpec(LAND, "Germans", {"infantry": 3}, {"infantry": 1}, "Russians", round=2),  # more units
                  BattleSpec(LAND, "Germans", {"infantry": 1}, {"infantry": 1}, "Russians"),  # from its start
                  BattleSpec("Ukraine S.S.R.", "Russians", {"infantry": 1}, {"infantry": 1}, "Germans", round=2)):
        assert kept.win_chance_at(other) is None


def test_the_command_computes_a_battle_from_a_later_round(capsys):
    from ruleslang.cli.app import main

    argv = ["odds", "--ruleset", "aar/base@1", "--at", LAND, "--attacker", "Germans", "1 fighter",
            "--defender-units", "1 infantry, 1 aaGun", "--defender", "Russians"]
    assert main(argv + ["--round", "2"]) == 0
    out = capsys.readouterr().out
    assert "from round 2" in out and "attacker wins      50.00%" in out
    assert main(argv) == 0
    assert "attacker wins      41.67%" in capsys.readouterr().out


def _battle_in_progress(round_number: int):
    """An amphibious assault on Karelia in progress: two infantry and an armour landed from 5 Sea
    Zone, where a battleship stands offshore (it bombards in round 1 only), against three infantry."""
    units = {LAND: {"Germans": {"infantry": 2, "armour": 1}, "Russians": {"infantry": 3}},
             OFFSHORE: {"Germans": {"battleship": 1}}}
    game = make_game(BASE, scenario={"setup": "empty", "units": units})
    attacking = ids(game, LAND, "Germans")
    battle = Battle(game, LAND, "Germans", "Russians", amphibious=True, attacking=attacking,
                    defending=ids(game, LAND, "Russians"), came_from=dict.fromkeys(attacking, OFFSHORE),
                    support=ids(game, OFFSHORE, "Germans"))
    battle.round = round_number
    game.ctx.battle = battle
    return game


def test_the_agents_retreat_question_is_asked_from_the_next_round():
    retreat = Decision("choose", "Germans", "?", options=[True, False], mode="one", count=1, id="attacker_retreat.go")
    game = _battle_in_progress(1)
    agent = HeuristicAgent(1, "Germans", odds="exact")
    asked = agent._estimate_win_chance(retreat, game)
    spec = BattleSpec(LAND, "Germans", {"infantry": 2, "armour": 1}, {"infantry": 3}, "Russians",
                      amphibious_from=OFFSHORE)
    bombarded = Chain(game, spec, exact=False).solve().outcome(ATTACKER_WINS)
    spec.round = 2
    later = Chain(game, spec, exact=False).solve().outcome(ATTACKER_WINS)
    assert float(asked) == pytest.approx(later, abs=1e-12) and bombarded > later + 0.05
    assert agent.battle_odds.counts[CHAIN] == 1
    # the next round's question, a Russian infantry lost: the kept chain answers it, as a new one would
    game.remove_units(ids(game, LAND, "Russians")[:1], "casualty")
    game.ctx.battle.round = 2
    agent.battle_odds.new_decision()
    again = agent._estimate_win_chance(retreat, game)
    spec.defending = {"infantry": 2}
    assert float(again) == pytest.approx(Chain(game, spec, exact=False).solve().outcome(ATTACKER_WINS), abs=1e-12)
    assert agent.battle_odds.counts[KEPT] == 1 and agent.battle_odds.counts[CHAIN] == 1


def _write_counter(state):
    state.counters.setdefault("some_counter", {})[("x",)] = 1  # a step wrote a counter


def _spend(state):
    # a treasury changed in place: a field the chain shares with the game's board, not copies
    economy = next(iter(state.treasury["Germans"]))
    state.treasury["Germans"][economy] -= 1


def _set_fact(state):
    state.facts["some_fact"] = True


@pytest.mark.parametrize("change", [_write_counter, _spend, _set_fact])
def test_the_kept_chain_is_not_used_once_the_board_outside_the_battle_changed(change):
    game = _battle_in_progress(1)
    odds = BattleOdds()
    battle = game.ctx.battle

    def ask():
        return odds.chance(game, "Germans", battle.standing("attacker"), LAND, defence=battle.standing("defender"),
                           amphibious_from=OFFSHORE, round_number=2)

    ask()
    game.remove_units(ids(game, LAND, "Russians")[:1], "casualty")
    change(game.state)
    odds.new_decision()
    ask()
    assert odds.counts[CHAIN] == 2 and odds.counts[KEPT] == 0


def test_sampling_a_battle_in_progress_is_refused(game):
    from ruleslang.runtime.odds.sample import sample_battle

    with pytest.raises(EvalError) as caught:
        sample_battle(make_game(BASE), BattleSpec(LAND, "Germans", {"infantry": 1}, {"infantry": 1}, "Russians",
                                                  round=2), 10)
    assert caught.value.code == "E567"


@pytest.mark.parametrize("extra, code", [(["--round", "0"], "E565"), (["--round", "3", "--round-limit", "2"], "E565"),
                                         (["--round", "2", "--sample", "10"], "E567")])
def test_a_round_the_command_cannot_compute_is_a_located_diagnostic(capsys, extra, code):
    import json

    from ruleslang.cli.app import main

    assert main(["odds", "--ruleset", "aar/base@1", "--format", "json", "--at", LAND, "--attacker", "Germans",
                 "1 infantry", *extra]) == 1
    [diag] = json.loads(capsys.readouterr().out)["diagnostics"]
    assert diag["code"] == code and diag["line"] == 1
