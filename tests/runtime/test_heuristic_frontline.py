"""The part "frontline" of the heuristic agent's SPARE: the purchase's forecast of its placement
(kept as the plan the placement takes: part "stock") tries the player's territories nearest the
fighting first (the fewest land steps to a territory the enemy holds, then the most such
territories beside it, then the map's order), not the most threatened: the purchase works out no
threats (purchasing.py's `_frontline`)."""

from __future__ import annotations

from game_fixtures import BASE, events, make_game, run_phases
from ruleslang.base.paths import packaged_root
from ruleslang.runtime.agents.heuristic import SPARE
from ruleslang.workspace.compositions import Workspace

THREE_A_TURN = """\
ruleset agents/three@1
uses aar/base@1

constraint three_a_territory on place(p, t, list):
    require count(list) <= 3 else "at most 3 units in {t}, not {count(list)}"
"""

WITHOUT = tuple(part for part in SPARE if part != "frontline")

# two German factories: Germany two land steps from the Russians, Southern Europe three, but
# beside a British fleet, the strongest threat next to either
FLEET_BY_ROME = {"setup": "empty",
                 "units": {"Germany": {"Germans": {"infantry": 1}},
                           "14 Sea Zone": {"British": {"battleship": 2}}},
                 "factories": {"Germany": {"owner": "Germans"}, "Southern Europe": {"owner": "Germans"}}}


def _german_turn(spare: tuple, refs=BASE, workspace=None, scenario=FLEET_BY_ROME):
    game = make_game(refs, scenario=scenario, agents={"Germans": "heuristic"}, workspace=workspace)
    agent = game.agents["Germans"]
    agent.__init__(1, "Germans", spare=spare)
    run_phases(game, "Germans", "purchase")
    return game, agent


def test_the_part_is_spared_by_default():
    assert "frontline" in SPARE


def test_the_purchase_works_out_no_threats_with_the_part():
    _, agent = _german_turn(SPARE)
    assert agent._threats is None
    _, agent = _german_turn(WITHOUT)
    assert agent._threats  # the threats' table, made for the forecast's order


def test_the_nearest_the_fighting_first_then_the_most_enemy_territories_beside_it():
    game, agent = _german_turn(SPARE)
    key = agent._frontline(game)
    assert key("Eastern Europe") < key("Germany") < key("Southern Europe")
    assert key("Eastern Europe")[:2] == (1, -1)  # a step from Belorussia, which the Russians hold
    assert key("Germany")[:2] == (2, 0) and key("Southern Europe")[:2] == (3, 0)
    # equal steps: the map's order
    assert key("Germany") < key("Western Europe") and key("Western Europe")[:2] == (2, 0)


def test_the_placement_fills_the_factory_nearest_the_fighting_first(tmp_path):
    """Three units a territory: with the part, Germany (nearer the Russians) takes the first
    three; without it, Southern Europe (beside the British fleet) does. Either way the placement
    takes the forecast's plan and places every unit bought."""
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "three@1.rules").write_text(THREE_A_TURN)
    workspace = Workspace([tmp_path, packaged_root()])
    firsts = {}
    for spare in (SPARE, WITHOUT):
        game, agent = _german_turn(spare, ["agents/three@1"], workspace)
        plan = agent._stock[2]
        assert len(plan) == 2 and len(plan[0][2]) == 3  # more than one factory's three bought
        run_phases(game, "Germans", "place")
        [place] = events(game, "place", player="Germans")
        assert [territory for territory, _, _ in place["placed"]] == [territory for territory, _, _ in plan]
        assert events(game, "lost") == []
        firsts[spare] = plan[0][0]
    assert firsts == {SPARE: "Germany", WITHOUT: "Southern Europe"}
