"""The human agent at a terminal: numbered choices, the cheapest casualty as the default, and
at the end of the input the heuristic agent plays on (said once, no traceback)."""

from __future__ import annotations

import io

from game_fixtures import BASE, events, load_dice, make_game, run_phases
from ruleslang.runtime.agents.human import HumanAgent


def human(game, player: str, text: str) -> io.StringIO:
    out = io.StringIO()
    game.agents[player] = HumanAgent(player, stdin=io.StringIO(text), stdout=out, seed=1)
    return out


def test_a_purchase_by_number_then_done():
    game = make_game(BASE)
    out = human(game, "Germans", "1\n\n")       # the first unit listed, then Enter: "done"
    run_phases(game, "Germans", "purchase")
    assert len(game.kit.purchased["Germans"]) == 1
    assert "[Germans] buy (money left 40)" in out.getvalue()


def test_at_the_end_of_the_input_the_heuristic_agent_plays_on():
    game = make_game(BASE)
    out = human(game, "Germans", "")
    run_phases(game, "Germans", "purchase", "combat_move")
    text = out.getvalue()
    assert text.count("end of input: the heuristic agent plays on for Germans") == 1
    assert game.kit.purchased["Germans"]                                   # the heuristic bought
    assert [e for e in events(game, "decision", decision="move") if "path" in e["answer"]]


def test_the_default_casualty_is_the_cheapest():
    units = {"Eastern Europe": {"Germans": {"infantry": 2}}, "Karelia S.S.R.": {"Russians": {"armour": 1, "infantry": 1}}}
    orders = {"Germans": [{"round": 1, "answers": {"attacker_retreat.go": True},
                           "combat": [{"from": "Eastern Europe", "type": "infantry", "count": 2, "to": "Karelia S.S.R."}]}]}
    game = make_game(BASE, scenario={"setup": "empty", "units": units}, orders=orders)
    out = human(game, "Russians", "\n")           # Enter: the default casualty
    # the attackers roll 1 (a hit) and 6, the defenders 6 and 6; then the Germans retreat
    loaded = load_dice(game, [1, 6, 6, 6])
    run_phases(game, "Germans", "combat_move", "battle")
    assert loaded.left == 0
    listing = out.getvalue().split("choose casualty 1 of 1")[1].splitlines()
    assert listing[1].strip().startswith("1. infantry") and listing[2].strip().startswith("2. armour")
    assert [u.type for u in game.state.units if u.owner == "Russians"] == ["armour"]
