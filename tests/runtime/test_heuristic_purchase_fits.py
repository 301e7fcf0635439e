"""The heuristic agent buys no more than it can place: the purchase is cut to what the rules'
`constraint on place` accepts on the board as it stands (the purchase decision's
`place_refusals`), the dearest units kept, so no unit it pays for is lost at placement."""

from __future__ import annotations

from game_fixtures import BASE, events, make_game, run_phases
from ruleslang.base.paths import packaged_root
from ruleslang.workspace.compositions import Workspace

THREE_A_TURN = """\
ruleset agents/three@1
uses aar/base@1

constraint three_a_territory on place(p, t, list):
    require count(list) <= 3 else "at most 3 units in {t}, not {count(list)}"
"""

SCENARIO = {"setup": "empty", "units": {"Japan": {"Japanese": {"infantry": 1}}},
            "factories": {"Japan": {"owner": "Japanese"}}}


def japanese_turn(refs=BASE, workspace=None):
    game = make_game(refs, scenario=SCENARIO, agents={"Japanese": "heuristic"}, workspace=workspace)
    money = game.state.treasury["Japanese"]["main"]
    run_phases(game, "Japanese", "purchase", "place")
    [purchase] = events(game, "purchase", player="Japanese")
    return game, money, purchase


def test_without_a_limit_it_spends_its_money(tmp_path):
    game, money, purchase = japanese_turn()
    assert sum(purchase["units"].values()) > 3       # so the limit below has something to cut
    assert money - 3 < purchase["spent"] <= money
    assert events(game, "lost") == []


def test_it_buys_only_what_the_rules_let_it_place(tmp_path):
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "three@1.rules").write_text(THREE_A_TURN)
    game, money, purchase = japanese_turn(["agents/three@1"], Workspace([tmp_path, packaged_root()]))
    assert 0 < sum(purchase["units"].values()) <= 3
    assert purchase["spent"] < money - 3               # the rest is kept, not spent on units that are lost
    assert events(game, "lost") == []
    [place] = events(game, "place", player="Japanese")
    placed = sorted(t for _, _, types in place["placed"] for t in types)
    assert placed == sorted(t for t, n in purchase["units"].items() for _ in range(n))


def test_the_forecast_asks_each_territory_and_list_once_and_buys_the_same(tmp_path, monkeypatch):
    from ruleslang.runtime.agents import heuristic, purchasing
    from ruleslang.runtime.kit import placement, purchase as purchase_kit

    # (the agent without the part "ledger" of SPARE, which would answer the planner's repeated
    # tries below from the rules' earlier answers: the planner's own skipping is what is counted)
    monkeypatch.setattr(heuristic, "SPARE", tuple(part for part in heuristic.SPARE if part != "ledger"))

    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "three@1.rules").write_text(THREE_A_TURN)
    asked: list[tuple] = []
    check_action = purchase_kit.check_action

    def counted(ctx, action, args):
        if action == "place":
            asked.append((args[1], tuple(args[2])))
        return check_action(ctx, action, args)
    monkeypatch.setattr(purchase_kit, "check_action", counted)
    workspace = Workspace([tmp_path, packaged_root()])
    _, _, once = japanese_turn(["agents/three@1"], workspace)
    forecast_once = list(asked)
    asked.clear()
    # every try asked (the planner skips a type refused at a territory where nothing was placed since)
    monkeypatch.setattr(purchasing, "pack",
                        lambda *args, **kwargs: placement.pack(*args, **{**kwargs, "repeatable": False}))
    _, _, every = japanese_turn(["agents/three@1"], workspace)
    assert once == every
    assert len(set(forecast_once)) == len(forecast_once) < len(asked)
