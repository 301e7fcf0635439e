"""Each `runtime move` setting changed by a revision of aar/base@1 (tests/rulesets/move/NAME/):
the revision's rule tests show a move the base refuses allowed, or the reverse (the base's own
"moves: ..." tests show the base's side); a value the engine does not know is refused (E524)."""

import pytest

from ruleslang.base.diagnostics import has_errors
from ruleslang.ruletests.runner import TestRunner
from ruleslang.workspace.compositions import Workspace

from conftest import FIXTURES, write_rulesets

MOVE = FIXTURES / "move"
PLAYED = ["passes-blockers", "blocks-passing", "stops-movement", "blocks-unload", "unloaded-transport-moves",
          "unloaded-transport-loads", "loads-allied", "loads-onto-allied", "landing", "later-carriers",
          "carries-allied-air", "canals", "raid-target"]


def _run(name):
    ws = Workspace([MOVE / name])
    loaded = ws.load(["aar/base@2"])
    assert not has_errors(loaded.diagnostics), loaded.diagnostics
    return TestRunner(ws).run(loaded)


def test_every_fixture_is_listed():
    assert sorted(p.name for p in MOVE.iterdir() if p.is_dir()) == sorted(PLAYED)


@pytest.mark.parametrize("name", PLAYED)
def test_revision_plays_the_setting(name):
    results = _run(name)
    assert results
    assert [(r.title, r.message, r.expected, r.actual) for r in results if r.status != "pass"] == []


def test_a_canals_value_the_engine_does_not_know_is_refused(tmp_path):
    write_rulesets(tmp_path, {"aar/base@2": """
        ruleset aar/base@2
        revises aar/base@1
        override constant canals = "round"

        test "moves: the setting is refused, not played differently":
            scenario aar/start with {units: {Germany: {Germans: {armour: 1}}}}
            expect allowed move(Germans, units("Germany", type: armour), ["Germany", "Western Europe"])
    """})
    ws = Workspace([tmp_path])
    results = TestRunner(ws).run(ws.load(["aar/base@2"]))
    assert [r.status for r in results] == ["error"]
    assert results[0].diagnostics[0].code == "E524"
    assert "the move setting canals is \"move\"" in results[0].message


def test_the_base_shows_the_other_side_of_each_revision():
    ws = Workspace([FIXTURES])
    loaded = ws.load(["aar/base@1"])
    results = [r for r in TestRunner(ws).run(loaded) if r.title.startswith("moves: ")]
    assert len(results) == 14
    assert all(r.status == "pass" for r in results), [(r.title, r.message) for r in results if r.status != "pass"]

