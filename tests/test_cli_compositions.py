"""Compositions on the command line: two versions of one ruleset refused, a version marked to win
(`REF!`), the composition shown (`--show-composition`, play's header), and kept by saves."""

import json

from test_cli import run_cli


def test_play_refuses_two_versions_and_names_the_chain(tmp_path):
    code, output = run_cli(["play", "--ruleset", "aar/house-rules@1", "--ruleset", "aar/commerce-raiding@1",
                            "--rounds", "1", "--quiet"])
    assert code == 1 and "error[R216]" in output
    assert "aar/house-rules@1 uses aar/commerce-raiding@2" in output and "aar/commerce-raiding@1 (named)" in output


def test_a_marked_version_is_played_shown_and_kept_by_the_save(tmp_path):
    save = tmp_path / "g.save"
    code, output = run_cli(["play", "--ruleset", "aar/house-rules@1", "--ruleset", "aar/commerce-raiding@1!",
                            "--rounds", "1", "--save", str(save)])
    assert code == 0, output
    header = output.splitlines()[0]
    assert header.startswith("Rulesets: ") and "aar/commerce-raiding@1" in header
    assert "aar/commerce-raiding@2" not in header
    assert json.loads(save.read_text())["compose"] == ["aar/house-rules@1", "aar/commerce-raiding@1!"]
    code, output = run_cli(["play", "--resume", str(save), "--rounds", "2", "--quiet"])
    assert code == 0, output
    code, output = run_cli(["replay", str(save)])
    assert code == 0 and "match" in output, output


def test_show_composition_prints_the_tree_with_the_stand_in(tmp_path):
    code, output = run_cli(["eval", "aar/house-rules@1", "raid_cap(\"UK\")", "--show-composition"])
    assert code == 0, output
    lines = output.splitlines()
    assert lines[0] == "aar/house-rules@1" and "  uses aar/commerce-raiding@2" in lines
    assert "    revises aar/commerce-raiding@1" in lines and lines[-1] == "24"


def test_a_scenario_may_mark_the_version_that_wins(tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text('map: aar\nrulesets: [aar/house-rules@1, "aar/commerce-raiding@1!"]\n')
    code, output = run_cli(["play", "--scenario", str(scenario), "--rounds", "1", "--show-composition", "--quiet"])
    assert code == 0, output
    assert "uses (in place of aar/commerce-raiding@2) aar/commerce-raiding@1" in output
