"""Each `runtime move` setting changed by a revision of aar/base@1 (tests/rulesets/move/NAME/):
the revision's rule tests show a move the base refuses allowed, or the reverse (the base's own
"moves: ..." tests show the base's side); a setting the engine cannot play is refused (E524)."""

import pytest

from ruleslang.base.diagnostics import has_errors
from ruleslang.ruletests.runner import TestRunner
from ruleslang.workspace.compositions import Workspace

from conftest import FIXTURES

MOVE = FIXTURES / "move"
PLAYED = ["passes-blockers", "stops-movement", "blocks-unload", "unloaded-transport-moves", "unloaded-transport-loads",
          "landing", "canals", "raid-target"]
REFUSED = ["later-carriers", "loads-allied", "loads-onto-allied"]


def _run(name):
    ws = Workspace([MOVE / name])
    loaded = ws.load(["aar/base@2"])
    assert not has_errors(loaded.diagnostics), loaded.diagnostics
    return TestRunner(ws).run(loaded)


def test_every_fixture_is_listed():
    assert sorted(p.name for p in MOVE.iterdir() if p.is_dir()) == sorted(PLAYED + REFUSED)


@pytest.mark.parametrize("name", PLAYED)
def test_revision_plays_the_setting(name):
    results = _run(name)
    assert results
    assert [(r.title, r.message, r.expected, r.actual) for r in results if r.status != "pass"] == []


@pytest.mark.parametrize("name", REFUSED)
def test_revision_with_an_unplayable_value_is_refused(name):
    results = _run(name)
    assert [r.status for r in results] == ["error"]
    setting = name.replace("-", "_")
    assert results[0].diagnostics[0].code == "E524"
    assert f"the move setting {setting}: true cannot be played" in results[0].message


def test_the_base_refuses_what_the_revisions_allow():
    ws = Workspace([FIXTURES])
    loaded = ws.load(["aar/base@1"])
    results = [r for r in TestRunner(ws).run(loaded) if r.title.startswith("moves: ")]
    assert len(results) == 10
    assert all(r.status == "pass" for r in results), [(r.title, r.message) for r in results if r.status != "pass"]

