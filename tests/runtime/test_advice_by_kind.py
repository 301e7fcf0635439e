"""The firepower advice read for a unit's kind (lang/eval/kind_reads.py, `Advice.by_kind`): an
advice that reads its unit only through its type and owner is marked so, and the heuristic agent
asks it once a kind and side in a decision; one that reads the unit itself (its hits, its id, its
space, its dice) is not, and each unit is asked its own (issue 15, session 20)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from game_fixtures import make_game
from ruleslang.base.paths import packaged_root
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent
from ruleslang.runtime.decisions import Decision
from ruleslang.workspace.compositions import Workspace

KARELIA = "Karelia S.S.R."
# (a decision the rules advise on, so that `decide` runs without a look-ahead)
HEAD = """\
ruleset kinds/{name}@1
uses aar/base@1

phase ask:
    let n = choose one of [1, 2] by current_player() "which?"

advice ask.n = 1
formula own_fire(u: unit, side: text) -> int = firing_value(u, side)
"""


def game_of(tmp_path, name: str, advice: str, scenario: dict | None = None):
    folder = tmp_path / "kinds"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}@1.rules").write_text(HEAD.format(name=name) + advice + "\n")
    return make_game([f"kinds/{name}"], scenario=scenario, workspace=Workspace([tmp_path, packaged_root()]))


@pytest.mark.parametrize("ref", ["aar/house-rules@1", "aa50/base@1", "g40/base@1"])
def test_the_shipped_firepower_advice_reads_its_unit_for_its_kind(ref):
    assert make_game([ref]).compiled.advice("firepower").by_kind == frozenset({0})


@pytest.mark.parametrize("name, body, by_kind", [
    ("attrs", "if has_tag(u, air) and u.owner == Germans then u.attack else own_fire(u, side)", {0}),
    ("typed", "if u.type == fighter then 2 else own_fire(u, side)", {0}),
    ("hits", "if u.hits > 0 then 0 else own_fire(u, side)", set()),
    ("ident", "u.id - u.id + own_fire(u, side)", set()),
    ("space", "if controller(u.space) == u.owner then own_fire(u, side) else 0", set()),
    ("builtin", "if hits(u) > 0 then 0 else own_fire(u, side)", set()),
    ("listed", "count([v for v in [u] where v.attack > 0])", set()),
])
def test_an_advice_is_read_for_its_units_kind_only_when_every_use_of_the_unit_is_its_kinds(
        tmp_path, name, body, by_kind):
    game = game_of(tmp_path, name, f"override advice firepower(u: unit, side: text) = {body}")
    assert game.compiled.advice("firepower").by_kind == frozenset(by_kind)


def _counted(monkeypatch, game) -> tuple:
    """(`game`'s firepower advice, the list of the arguments of each evaluation of it from now on)."""
    advice = game.compiled.advice("firepower")
    evaluations = []

    def counted(ctx, *args):
        evaluations.append(args)
        return advice.fn(ctx, *args)
    original = type(game.compiled).advice
    monkeypatch.setattr(type(game.compiled), "advice", lambda self, key: replace(advice, fn=counted)
                        if key == "firepower" else original(self, key))
    return advice, evaluations


def _fires(tmp_path, monkeypatch, name: str, body: str) -> tuple[list, list, int]:
    """The agent's fire for each German infantry in Karelia in a decision, the advice's own for
    each, and how many times the agent evaluated the advice."""
    units = {KARELIA: {"Germans": {"infantry": 3}}}
    game = game_of(tmp_path, name, f"override advice firepower(u: unit, side: text) = {body}",
                   {"setup": "empty", "units": units})
    advice, evaluations = _counted(monkeypatch, game)
    agent = HeuristicAgent(1, "Germans")
    agent.decide(Decision("choose", "Germans", "which?", options=[1, 2], mode="one", count=1, id="ask.n"), game)
    infantry = [u for u in game.board.units(KARELIA) if u.type == "infantry"]
    fires = [agent._fire(game, u, "attacker") for u in infantry]
    return fires, [advice.fn(game.ctx, game.ctx.unit_value(u), "attacker") for u in infantry], len(evaluations)


def test_a_unit_is_asked_its_own_fire_where_the_advice_reads_the_unit_itself(tmp_path, monkeypatch):
    # (each unit fires at its id's remainder: units of one kind fire at different values)
    fires, own, evaluations = _fires(tmp_path, monkeypatch, "ids", "u.id - 3 * floor(u.id / 3)")
    assert fires == own and len(set(own)) == 3 and evaluations == 3


def test_units_of_a_kind_share_one_evaluation_where_the_advice_reads_the_kind(tmp_path, monkeypatch):
    fires, own, evaluations = _fires(tmp_path, monkeypatch, "kind", "own_fire(u, side)")
    assert fires == own == [1, 1, 1] and evaluations == 1


def test_in_heuristic_games_a_fire_kept_by_kind_is_the_units_own(monkeypatch):
    """In heuristic house-rules games (whose firepower advice reads the unit's kind and counters),
    every fire `_combatant` gives is the advice's own for that very unit as the game stands, and
    the agent evaluates the advice at most once a kind and side in a decision (and, kept from
    decision to decision, for far fewer than half the calls)."""
    ref = "aar/house-rules@1"
    compiled_class = type(make_game([ref]).compiled)
    original_advice, original_decide, original_combatant = (
        compiled_class.advice, HeuristicAgent.decide, HeuristicAgent._combatant)
    decisions: dict[int, int] = {}  # id(agent) -> its decisions so far
    asking: list = []  # the (agent, its decision) whose `_combatant` runs
    evaluated: list = []  # (agent, decision, type, owner, side) of each evaluation by the agent
    seen = {"calls": 0}

    def advice(self, key):
        found = original_advice(self, key)
        if key != "firepower" or found is None:
            return found

        def counted(ctx, unit, side):
            if asking:
                evaluated.append((*asking[-1], unit.type.name, unit.owner.name, side))
            return found.fn(ctx, unit, side)
        return replace(found, fn=counted)

    def decide(self, decision, game):
        decisions[id(self)] = decisions.get(id(self), 0) + 1
        return original_decide(self, decision, game)

    def combatant(self, game, unit, side):
        asking.append((id(self), decisions.get(id(self))))
        try:
            answer = original_combatant(self, game, unit, side)
        finally:
            asking.pop()
        own = original_advice(game.compiled, "firepower").fn(game.ctx, game.ctx.unit_value(unit), side)
        assert answer[0] == own, (unit.type, unit.owner, side)
        seen["calls"] += 1
        return answer
    monkeypatch.setattr(compiled_class, "advice", advice)
    monkeypatch.setattr(HeuristicAgent, "decide", decide)
    monkeypatch.setattr(HeuristicAgent, "_combatant", combatant)
    game = make_game([ref], seed=2, rounds=3, default_agent="heuristic")
    # (the game of the agent before the part "fought", session 22, whose rollouts fight the phase's
    # later battles too: with it, 2,750 calls and 276 evaluations, the ratio at the bound's edge;
    # since session 24 the threats ask a kind's fire once a decision (`_fire_total`): 2,622 calls
    # and the same 271 evaluations without "fought", so the bound is an eighth)
    for player in list(game.agents):
        game.agents[player] = HeuristicAgent(game.seed, player, spare=tuple(p for p in SPARE if p != "fought"))
    game.run(3)
    assert len(evaluated) == len(set(evaluated)), [e for e in set(evaluated) if evaluated.count(e) > 1][:5]
    assert seen["calls"] > 500 and len(evaluated) < seen["calls"] // 8, (seen, len(evaluated))


@pytest.mark.parametrize("ref, counters", [("aar/house-rules@1", {"developed"}), ("aa50/house-rules@1", {"has_tech"}),
                                           ("g40/base@1", {"has_tech"})])
def test_the_shipped_firepower_advice_reads_nothing_of_the_game_but_counters(ref, counters):
    assert make_game([ref]).compiled.advice("firepower").counters == frozenset(counters)


@pytest.mark.parametrize("name, body, counters", [
    ("plain", "if has_tag(u, air) then u.attack + count([1, 2]) else own_fire(u, side)", {"developed"}),
    ("board", 'if controller(space("Germany")) == u.owner then own_fire(u, side) else 0', None),
    ("turn", "if round() > 1 then own_fire(u, side) else 0", None),
    ("battle", "if count(battle_units(side)) > 2 then own_fire(u, side) else 0", None),
    ("space", 'if space("Germany").ipc > 2 then own_fire(u, side) else 0', None),
    ("hits", "if u.hits > 0 then 0 else own_fire(u, side)", None),
])
def test_an_advice_reads_only_counters_when_nothing_it_asks_reads_the_board(tmp_path, name, body, counters):
    game = game_of(tmp_path, name, f"override advice firepower(u: unit, side: text) = {body}")
    found = game.compiled.advice("firepower").counters
    assert found == (None if counters is None else frozenset(counters))


def test_a_kinds_fire_is_kept_from_decision_to_decision_until_a_counter_it_read_is_written(monkeypatch):
    units = {KARELIA: {"Germans": {"fighter": 1}}}
    game = make_game(["aar/house-rules@1"], scenario={"setup": "empty", "units": units})
    advice, evaluations = _counted(monkeypatch, game)
    agent = HeuristicAgent(1, "Germans")
    fighter = next(u for u in game.board.units(KARELIA) if u.type == "fighter")
    casualties = Decision("casualties", "Germans", "?", options=[], mode="exactly", count=0,
                          context={"room": []})

    def fire() -> int:
        agent.decide(casualties, game)
        return agent._fire(game, fighter, "defender")
    game.state.set_counter("developed", ("Russians", "jet_power"), True)  # (the counter's entries: one dict)
    assert (fire(), fire(), len(evaluations)) == (4, 4, 1)  # (the second decision's kept)
    game.state.set_counter("developed", ("Germans", "jet_power"), True)  # (jet fighters defend at 5)
    assert (fire(), len(evaluations)) == (5, 2)
