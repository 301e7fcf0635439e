"""The heuristic agent buys a factory where the rules make it worth one: the purchase's
`factory_cost` setting against the territory's value (`advice territory_value`), far from its
side's factories and nearer the fighting, where it can hold it, in a site the rules' `constraint
on build` accepts; and none otherwise."""

from __future__ import annotations

from game_fixtures import BASE, events, make_game, run_phases
from ruleslang.base.paths import packaged_root
from ruleslang.workspace.compositions import Workspace

EXPENSIVE = """\
ruleset agents/expensive@1
uses aar/base@1

override constant factory_base_cost = 40
"""

NOT_THERE = """\
ruleset agents/not_there@1
uses aar/base@1

constraint not_in_indochina on build(p, t):
    require t != "French Indochina" else "no factory in {t}"
"""

# Japan's only factory is on its island; on the mainland, French Indochina, Kwantung and
# Manchuria (3 each) border the fighting, the Russians in Buryatia
ASIA = {"Manchuria": {"Japanese": {"infantry": 3}}, "Buryatia S.S.R.": {"Russians": {"infantry": 1}}}


def japanese_purchase(units: dict | None = None, refs=BASE, workspace=None):
    scenario = {"setup": "empty", "units": {**ASIA, **(units or {})}, "factories": {"Japan": {"owner": "Japanese"}}}
    game = make_game(refs, scenario=scenario, agents={"Japanese": "heuristic"}, workspace=workspace)
    money = game.state.treasury["Japanese"]["main"]
    run_phases(game, "Japanese", "purchase")
    [purchase] = events(game, "purchase", player="Japanese")
    return game, money, purchase


def ruleset(tmp_path, text: str) -> tuple[list[str], Workspace]:
    folder = tmp_path / "agents"
    folder.mkdir(exist_ok=True)
    name = text.split("\n")[0].split("/")[1]
    (folder / f"{name}.rules").write_text(text)
    return [f"agents/{name}"], Workspace([tmp_path, packaged_root()])


def test_a_factory_on_the_mainland_and_units_with_the_rest():
    game, money, purchase = japanese_purchase()
    assert purchase["build"] == ["French Indochina"]     # the first of the three in the map's order
    assert game.kit.builds["Japanese"] == ["French Indochina"]
    assert purchase["units"] and money - 15 < purchase["spent"] <= money
    assert events(game, "refused") == []


def test_no_factory_where_it_cannot_be_held():
    _, _, purchase = japanese_purchase({"India": {"British": {"armour": 6}}})
    assert purchase["build"] == ["Kwantung"]


def test_no_factory_where_the_rules_refuse_one(tmp_path):
    refs, workspace = ruleset(tmp_path, NOT_THERE)
    game, _, purchase = japanese_purchase(refs=refs, workspace=workspace)
    assert purchase["build"] == ["Kwantung"]
    assert events(game, "refused") == []


def test_no_factory_when_the_rules_make_it_too_dear(tmp_path):
    refs, workspace = ruleset(tmp_path, EXPENSIVE)
    _, _, purchase = japanese_purchase(refs=refs, workspace=workspace)
    assert purchase["build"] == []


def test_no_factory_near_its_factories():
    # at the start of Revised every German territory is near a factory of the Axis or little
    # nearer the fighting than Germany's
    game = make_game(BASE, agents={"Germans": "heuristic"})
    run_phases(game, "Germans", "purchase")
    assert events(game, "purchase", player="Germans")[0]["build"] == []


def test_the_factory_is_built_at_placement():
    game, _, _ = japanese_purchase()
    run_phases(game, "Japanese", "place")
    assert game.state.factories["French Indochina"].owner == "Japanese"
    assert events(game, "build", space="French Indochina")
