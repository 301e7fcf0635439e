"""TripleA's triggers, conditions and victory conditions in an imported game (issue 13): the
trigger kinds written as hooks, triggers of one shape folded into a table, the steps TripleA
names mapped onto the translated turn, and the game judged at the end of each round. Small
hand-made variants of tests/board/fixtures/tiny_game.xml; Imperialism 1974 where present."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ruleslang.cli import app as cli
from ruleslang.importers.triplea import import_triplea, run_import
from ruleslang.importers.triplea_triggers import Anchor, step_anchors
from test_import_triplea import REFERENCE, tiny_with

RULES = 'javaClass="games.strategy.triplea.attachments.RulesAttachment" type="player"'
TRIGGER = 'javaClass="games.strategy.triplea.attachments.TriggerAttachment" type="player"'
# tiny_game.xml's one trigger: a resource and no `when`
OLD_TRIGGER = ('    <attachment name="triggerAttachmentBonus" attachTo="Reds" '
               'javaClass="games.strategy.triplea.attachments.TriggerAttachment" type="player">\n'
               '      <option name="resource" value="PUs"/>\n    </attachment>\n')


def attachment(name: str, owner: str, cls: str, *options: tuple[str, str] | tuple[str, str, str]) -> str:
    """An attachment's XML: options as (name, value) or (name, value, count)."""
    lines = [f'    <attachment name="{name}" attachTo="{owner}" {cls}>']
    for option in options:
        count = f' count="{option[2]}"' if len(option) > 2 else ""
        lines.append(f'      <option name="{option[0]}" value="{option[1]}"{count}/>')
    return "\n".join(lines + ["    </attachment>", ""])


HOLD_MARSH = attachment("cond_hold_Marsh", "Reds", RULES, ("directOwnershipTerritories", "Marsh"))
TRIGGERS = "".join([
    attachment("cond_foot_Reds", "Reds", RULES, ("directPresenceTerritories", "map", "each"),
               ("unitPresence", "foot", "1")),
    HOLD_MARSH,
    attachment("income_Reds", "Reds", TRIGGER, ("when", "before:redPurchase"), ("conditions", "cond_foot_Reds"),
               ("resource", "PUs"), ("resourceCount", "5"),
               ("activateTrigger", "marsh_bonus:1:false:false:true:false")),
    attachment("marsh_bonus", "Reds", TRIGGER, ("when", "before:Never"), ("conditions", "cond_hold_Marsh"),
               ("resource", "PUs"), ("resourceCount", "3")),
    attachment("garrison", "Reds", TRIGGER, ("when", "after:blueWeird"), ("conditions", "cond_hold_Marsh"),
               ("placement", "Marsh:foot", "2"), ("notification", "GARRISON")),
    *(attachment(f"stipend_{p}", p, TRIGGER, ("when", f"after:{p[:-1].lower()}EndTurn"), ("resource", "PUs"),
                 ("resourceCount", "1")) for p in ("Reds", "Blues")),
])


def played(root: Path, rounds: int, *more: str) -> list[dict]:
    log = root / "log.jsonl"
    assert cli.main(["play", "--rulesets", str(root), "--ruleset", "tiny-game/base@1", "--rounds", str(rounds),
                     "--seed", "3", "--log", str(log), "--quiet", *more]) == 0
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_a_step_without_a_phase_fires_at_the_end_of_the_players_phase_before_it():
    sequence = [("init", None, None), ("redBuy", "Reds", "purchase"), ("redOdd", "Reds", None),
                ("redFight", "Reds", "battle"), ("blueOdd", "Blues", None), ("blueBuy", "Blues", "purchase")]
    anchors = step_anchors(sequence)
    assert anchors["init"][0] == Anchor("start", None, None)
    assert anchors["redBuy"] == (Anchor("before", "purchase", "Reds"), Anchor("after", "purchase", "Reds"))
    assert anchors["redOdd"] == (Anchor("after", "purchase", "Reds"),) * 2
    assert anchors["blueOdd"] == (Anchor("before", "purchase", "Blues"),) * 2  # none of the Blues' before it


@pytest.fixture(scope="module")
def trigger_game(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("triggers")
    game = tiny_with(tmp_path, {OLD_TRIGGER: TRIGGERS})
    report, diagnostics = run_import(game, tmp_path / "out")
    return game, report, diagnostics, tmp_path / "out"


def test_triggers_become_hooks_and_what_is_left_is_a_located_warning(trigger_game):
    game, report, diagnostics, _ = trigger_game
    text = report.ruleset_path.read_text(encoding="utf-8")
    assert report.triggers == 4  # income, garrison and the two stipends (marsh_bonus: only activated)
    assert "hook triggers_before_purchase before purchase:" in text
    # the two stipends differ only in their player: one loop over the current player's own rows
    assert re.search(r'table (trigger_rows_\d+)_count\(p: player\) -> int:\n    "Reds" -> 1\n    "Blues" -> 1', text)
    assert re.search(r"    for i in 1..trigger_rows_\d+_count\(current_player\(\)\):\n"
                     r"        change treasury\(current_player\(\)\) by 1", text)
    (note,) = [d for d in diagnostics if "notification" in d.message]
    assert note.code == "D645" and note.span.line == next(
        i for i, line in enumerate(game.read_text(encoding="utf-8").splitlines(), 1) if "GARRISON" in line)
    # translated attachments are no longer reported as such
    assert not [d for d in diagnostics if "'income_Reds'" in d.message and "attachment" in d.message]


def test_triggers_fire_at_their_steps_in_play(trigger_game):
    *_, root = trigger_game
    events = played(root, 1)
    treasury = [(e["player"], e["amount"]) for e in events if e["kind"] == "treasury"]
    # Reds: 5 for each space with a foot of theirs (Redland), then Marsh held: 3, before buying
    assert treasury[:2] == [("Reds", 5), ("Reds", 3)]
    assert ("Reds", 1) in treasury and ("Blues", 1) in treasury  # the stipends, after their ends of turn
    added = [e for e in events if e["kind"] == "add_units" and e.get("space") == "Marsh"]
    assert added and added[0]["owner"] == "Reds" and len(added[0]["ids"]) == 2  # after the Blues' odd step


VICTORY = ('    <property name="Low Luck" value="false" editable="true">',
           '    <property name="Total Victory" value="true"><boolean/></property>\n'
           '    <property name="North Total Victory VCs" value="1"><number/></property>\n'
           '    <property name="Low Luck" value="false" editable="true">')


def test_an_alliance_with_its_victory_cities_wins_at_the_end_of_the_round(tmp_path):
    game = tiny_with(tmp_path, dict([VICTORY]))
    report = import_triplea(game, tmp_path / "out")
    text = report.ruleset_path.read_text(encoding="utf-8")
    assert "hook triplea_victory after collect_income when turn_index(current_player()) == 2:" in text
    events = played(tmp_path / "out", 3)
    (win,) = [e for e in events if e["kind"] == "win"]
    assert win["side"] == "North"  # the Reds hold Redland, North's one victory city needed
    assert max(e["round"] for e in events if e["kind"] == "round") == 1


def test_without_the_count_the_alliance_needs_every_victory_city_and_a_warning_says_so(tmp_path):
    game = tiny_with(tmp_path, {VICTORY[0]: VICTORY[1].replace("North Total Victory VCs", "Elsewhere")})
    report, diagnostics = run_import(game, tmp_path / "out")
    assert any(d.code == "D645" and "North Total Victory VCs" in d.message for d in diagnostics)
    text = report.ruleset_path.read_text(encoding="utf-8")
    assert 'where t.victory_city and controller(t) in {player("Reds")}) >= 1:' in text


def test_a_victory_trigger_wins_for_its_players_alliance(tmp_path):
    trigger = attachment("win_north", "Reds", TRIGGER, ("conditions", "cond_hold_Marsh"),
                         ("victory", "NORTH_WINS")) + HOLD_MARSH
    game = tiny_with(tmp_path, {OLD_TRIGGER: trigger, VICTORY[0]: '    <property name="Triggered Victory" '
                                'value="true"><boolean/></property>\n' + VICTORY[0]})
    import_triplea(game, tmp_path / "out")
    (win,) = [e for e in played(tmp_path / "out", 2) if e["kind"] == "win"]
    assert win["side"] == "North" and "NORTH_WINS" in win["reason"]


@pytest.mark.skipif(REFERENCE is None, reason="the reference files (shared/reference) are not present")
def test_imperialism_1974_plays_its_economy_and_fights(tmp_path):
    """Its armies and wealth come from triggers: each port's territory gets an army of 10 after
    the random start, wealth is rolled and turned into money before buying, and neutral
    territories are fought for."""
    game = REFERENCE / "triplea-catalogue" / "imperialism_1974_board_game" / "imperialism_1974_board_game.xml"
    if not game.exists():
        pytest.skip("the catalogue's Imperialism 1974 is not present")
    report = import_triplea(game, tmp_path)
    assert report.triggers > 100
    log = tmp_path / "log.jsonl"
    assert cli.main(["play", "--rulesets", str(tmp_path), "--ruleset", f"{report.family}/base@1", "--rounds", "1",
                     "--seed", "1", "--agent", "heuristic", "--log", str(log), "--quiet"]) == 0
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    armies = [e for e in events if e["kind"] == "add_units" and e["unit_type"] == "army" and len(e["ids"]) == 10]
    assert len(armies) == 8  # one army of 10 for each of the eight players
    assert any(e["kind"] == "treasury" and e["amount"] > 0 for e in events)  # wealth at ports became PUs
    assert any(e["kind"] == "battle" and e["defender"] == "Neutrals" for e in events)
