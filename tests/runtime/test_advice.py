"""Advice: a ruleset tells bots how to answer a decision, keyed on the decision's id; the heuristic
agent follows it, and answers decisions without advice by the options' types, never by the
words of a prompt."""

from __future__ import annotations

import pytest

from game_fixtures import BASE, ids, make_game
from ruleslang.base.paths import packaged_root
from ruleslang.lang.check.advice import ESTIMATES
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.decisions import Decision
from ruleslang.runtime.kit.battle import Battle
from ruleslang.runtime.odds.chain import ATTACKER_WINS, BattleSpec, Chain
from ruleslang.workspace.compositions import Workspace

ASK = """\
ruleset advice/ask@1
uses aar/base@1

phase ask:
    let n = choose one of 0..3 by current_player() "how many research dice?"
    let go = choose one of {true, false} by current_player() "retreat from here?"
    let dive = choose one of {true, false} by current_player() "submerge?"
    let some = choose up to 2 of [1, 2, 3] by current_player() "which?"
    let two = choose 2 of [1, 2, 3] by current_player() "which two?"
    let last = choose one of [1, 2, 3] by current_player() "which?"

advice ask.some = {3, 1}
advice ask.two = {3, 5}
advice ask.dive(win_chance: number) = win_chance < 0.5
advice ask.last(options: list of int) = options[count(options) - 1]
"""

REVISED = """\
ruleset advice/revised@1
uses aar/base@1

override advice research.dice = 1
"""

EE, KARELIA = "Eastern Europe", "Karelia S.S.R."


def game_of(tmp_path, text: str, scenario: dict | None = None):
    folder = tmp_path / "advice"
    folder.mkdir(exist_ok=True)
    name = text.split("\n")[0].split("/")[1]
    (folder / f"{name}.rules").write_text(text)
    ref = f"advice/{name}"
    return make_game([ref], scenario=scenario, workspace=Workspace([tmp_path, packaged_root()]))


def ask(game, decision_id: str, options: list, mode: str = "one", count: int = 1, prompt: str = "?",
        player: str = "Germans"):
    decision = Decision("choose", player, prompt, options=options, mode=mode, count=count, id=decision_id)
    return HeuristicAgent(1, player).decide(decision, game)


def test_without_advice_the_answer_follows_the_options_types_not_the_prompt(tmp_path):
    game = game_of(tmp_path, ASK)
    assert ask(game, "ask.n", [0, 1, 2, 3], prompt="how many research dice?") == 3
    assert ask(game, "ask.go", [True, False], prompt="retreat from here?") is True
    assert ask(game, "", ["b", "a"], prompt="retreat?") == "b"


def test_advice_gives_the_answer_and_a_set_comes_back_in_the_options_order(tmp_path):
    game = game_of(tmp_path, ASK)
    assert ask(game, "ask.some", [1, 2, 3], mode="up_to", count=2) == (1, 3)


def test_advice_reads_the_options_the_decision_offers(tmp_path):
    game = game_of(tmp_path, ASK)
    assert ask(game, "ask.last", [1, 2]) == 2


def test_advice_that_is_not_a_legal_answer_here_gives_way_to_the_neutral_answer(tmp_path):
    game = game_of(tmp_path, ASK)
    assert ask(game, "ask.two", [1, 2, 3], mode="exactly", count=2) == (1, 2)
    assert ask(game, "ask.some", [1, 2, 3, 4], mode="up_to", count=1) == ()


def test_advice_needing_a_battle_estimate_outside_a_battle_gives_way_to_the_neutral_answer(tmp_path):
    game = game_of(tmp_path, ASK)
    assert ask(game, "ask.dive", [True, False]) is True


def test_the_base_advises_no_research_and_keeping_submarines_in_battle():
    game = make_game(BASE)
    assert ask(game, "research.dice", [0, 1, 2, 3]) == 0
    assert ask(game, "submarines_submerge.dive", [True, False]) is False


def test_a_ruleset_overrides_the_advice_of_one_it_uses(tmp_path):
    game = game_of(tmp_path, REVISED)
    assert ask(game, "research.dice", [0, 1, 2, 3]) == 1


def _battle(attackers: int, defenders: int):
    units = {KARELIA: {"Germans": {"infantry": attackers}, "Russians": {"infantry": defenders}}}
    game = make_game(BASE, scenario={"setup": "empty", "units": units})
    game.ctx.battle = Battle(game, KARELIA, "Germans", "Russians", attacking=ids(game, KARELIA, "Germans"),
                             defending=ids(game, KARELIA, "Russians"))
    return game


def test_the_attacker_retreats_from_a_battle_it_expects_to_lose_and_stays_in_one_it_wins():
    assert ask(_battle(1, 6), "attacker_retreat.go", [True, False]) is True
    assert ask(_battle(8, 1), "attacker_retreat.go", [True, False]) is False


def test_the_battle_estimate_is_the_deciding_players_side_chance(tmp_path):
    units = {KARELIA: {"Germans": {"infantry": 1}, "Russians": {"infantry": 6}}}
    game = game_of(tmp_path, ASK, {"setup": "empty", "units": units})
    game.ctx.battle = Battle(game, KARELIA, "Germans", "Russians", attacking=ids(game, KARELIA, "Germans"),
                             defending=ids(game, KARELIA, "Russians"))
    # dive when the side's chance is below one half: the lone attacker does, the defender does not
    assert ask(game, "ask.dive", [True, False], player="Germans") is True
    assert ask(game, "ask.dive", [True, False], player="Russians") is False


def test_the_heuristic_supplies_every_estimate_advice_may_ask_for():
    agent = HeuristicAgent(1, "Germans")
    assert all(callable(getattr(agent, "_estimate_" + name, None)) for name in ESTIMATES)


STRONG = """\
ruleset advice/strong@1
uses aar/base@1

override advice firepower(u: unit, side: text) = if side == "attacker" then 6 else 0
"""


def test_the_quick_battle_estimate_fires_the_units_at_the_firepower_the_ruleset_advises(tmp_path):
    units = {KARELIA: {"Germans": {"infantry": 1}, "Russians": {"infantry": 6}}}
    game = game_of(tmp_path, STRONG, {"setup": "empty", "units": units})
    game.ctx.battle = Battle(game, KARELIA, "Germans", "Russians", attacking=ids(game, KARELIA, "Germans"),
                             defending=ids(game, KARELIA, "Russians"))
    decision = Decision("choose", "Germans", "?", options=[True, False], mode="one", count=1, id="attacker_retreat.go")
    assert HeuristicAgent(1, "Germans", odds="quick").decide(decision, game) is False


def test_the_battle_estimate_is_the_exact_chance_of_the_rulesets_own_battle(tmp_path):
    # the AA gun fires before the battle and the artillery raises an infantry's attack: the steps
    # of the ruleset, which the firepower advice alone does not tell
    units = {KARELIA: {"Germans": {"infantry": 1, "artillery": 1, "fighter": 2},
                       "Russians": {"infantry": 3, "aaGun": 1}}}
    game = game_of(tmp_path, ASK, {"setup": "empty", "units": units})
    game.ctx.battle = Battle(game, KARELIA, "Germans", "Russians", attacking=ids(game, KARELIA, "Germans"),
                             defending=ids(game, KARELIA, "Russians"))
    spec = BattleSpec(KARELIA, "Germans", {"infantry": 1, "artillery": 1, "fighter": 2})
    exact = Chain(game, spec, exact=False).solve().outcome(ATTACKER_WINS)
    decision = Decision("choose", "Russians", "?", options=[True, False], mode="one", count=1, id="ask.dive")
    agent = HeuristicAgent(1, "Russians", odds="exact")
    assert float(agent._estimate_win_chance(decision, game)) == pytest.approx(1 - exact, abs=1e-12)
    assert agent.battle_odds.counts["chain"] == 1


def test_aa50_bots_fire_a_rocket_at_the_richest_complex_and_every_ready_artillery():
    game = make_game(["aa50/base@1", "aa50/artillery@1"])
    spaces = game.ctx.space_values
    options = [spaces["Karelia S.S.R."], spaces["Germany"], spaces["United Kingdom"]]
    richest = max(options, key=lambda s: game.space_attribute(s.name, "ipc", 0))
    assert ask(game, "rocket_attacks.picked", options, mode="up_to", count=1) == (richest,)
    pieces = [game.ctx.unit_value(u) for u in game.state.units[:3]]
    assert ask(game, "artillery_opening_fire.firing", pieces, mode="up_to", count=3) == tuple(pieces)
