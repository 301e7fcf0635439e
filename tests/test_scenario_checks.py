"""A scenario meeting rulesets is checked against them: its map, its unit types, its `rulesets:`
and its options, with located errors, in every command (eval, call, explain, test, check)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from ruleslang.board.scenario import load_scenario
from ruleslang.base.paths import default_roots

from test_cli import run_cli

RAIDING = "aar/commerce-raiding@1"


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(folder, name: str, text: str) -> str:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return str(path)


def diagnostics(argv) -> tuple[int, list[dict]]:
    code, output = run_cli([*argv, "--format", "json"])
    return code, json.loads(output[output.index("{"):])["diagnostics"]


# ------------------------------------------------------------------------------ another map


@pytest.mark.parametrize("scenario, on", [("g40/start", "g40"), ("aa50/start-1942", "aa50-1942")])
def test_a_scenario_on_another_map_is_a_located_error(here, scenario, on):
    code, found = diagnostics(["eval", RAIDING, 'raid_cap("UK")', "--scenario", scenario])
    assert code == 1
    (d,) = found
    assert d["code"] == "G703" and d["file"].endswith("start.yaml" if on == "g40" else "start-1942.yaml")
    assert (d["line"], d["column"]) == (4, 6)  # the scenario's `map:` value
    assert f"'{on}'" in d["message"] and "'aar'" in d["message"]
    (rel,) = d["related"]
    assert rel["file"].endswith("base@1.rules") and "map 'aar'" in rel["message"]


def test_every_command_that_takes_a_scenario_checks_its_map(here):
    for argv in (["call", RAIDING, "raid_cap", "UK"], ["explain", RAIDING, 'raid_cap("UK")']):
        code, output = run_cli([*argv, "--scenario", "g40/start"])
        assert code == 1 and "error[G703]" in output and "internal error" not in output


def test_a_rule_test_on_another_map_errors_and_check_reports_it(here):
    write(here, "r/demo/other@1.rules", """
        ruleset demo/other@1
        uses aar/commerce-raiding@1

        test "on the wrong board":
            scenario g40/start
            expect raid_cap("UK") == 22
    """)
    code, output = run_cli(["test", "demo/other@1", "--rulesets", "r"])
    assert code == 1 and "error[G703]" in output and "0 passed, 1 failed" in output
    code, found = diagnostics(["check", "demo/other@1", "--rulesets", "r"])
    assert code == 1 and [d["code"] for d in found] == ["G703"]
    assert any(r["line"] == 5 and "on the wrong board" in r["message"] for r in found[0]["related"])


# ---------------------------------------------------------------------------- unit types


def test_an_undeclared_unit_type_is_located_at_its_yaml_name(here):
    path = write(here, "s.yaml", """
        map: aar
        units: {Kwangtung: {Russians: {infantri: 3}}}
    """)
    code, found = diagnostics(["eval", RAIDING, "1", "--scenario", path])
    assert code == 1
    (d,) = found
    assert d["code"] == "D670" and (d["file"], d["line"], d["column"]) == ("s.yaml", 2, 32)
    assert "'infantri'" in d["message"] and d["hint"] == "did you mean 'infantry'?"


def test_an_undeclared_unit_type_in_a_test_record_is_located_in_the_test(here):
    write(here, "r/demo/units@1.rules", """
        ruleset demo/units@1
        uses aar/base@1

        test "a typo":
            scenario aar/start with {units: {Kwangtung: {Russians: {infantri: 3}}}}
            expect true
    """)
    code, found = diagnostics(["check", "demo/units@1", "--rulesets", "r"])
    assert code == 1
    (d,) = found
    assert d["code"] == "D670" and (d["line"], d["column"]) == (5, 61)


# ---------------------------------------------------------------------------- rulesets:


def test_unknown_rulesets_of_a_scenario_are_located_with_a_suggestion(here):
    path = write(here, "s.yaml", """
        map: aar
        rulesets: [nope/x@1, aar/comerce-raiding@1, aar/commerce-raiding@7, aar/base]
    """)
    code, found = diagnostics(["eval", RAIDING, "1", "--scenario", path])
    assert code == 1
    assert [(d["code"], d["line"], d["column"]) for d in found] == [("D671", 2, 12), ("D671", 2, 22), ("D671", 2, 45)]
    assert "nope/x" in found[0]["message"]
    assert "'aar/commerce-raiding@1'" in found[1]["hint"]
    assert found[2]["hint"] == "versions available: @1, @2"


def test_the_rulesets_of_a_scenario_are_exposed(here):
    path = write(here, "s.yaml", "map: aar\nrulesets: [aar/house-rules@1, aar/base]\n")
    assert load_scenario(path, default_roots()).rulesets == ("aar/house-rules@1", "aar/base")
    assert run_cli(["eval", RAIDING, "1", "--scenario", path]) == (0, "1\n")


# ------------------------------------------------------------------- check of test scenarios


def test_check_reports_an_unknown_space_in_a_test_scenario(here):
    write(here, "r/demo/atl@1.rules", """
        ruleset demo/atl@1
        uses aar/base@1

        test "no such place":
            scenario aar/start with {control: {Atlantis: Germans}}
            expect true

        test "no such scenario":
            scenario aar/strat
            expect true
    """)
    code, found = diagnostics(["check", "demo/atl@1", "--rulesets", "r"])
    assert code == 1
    assert [(d["code"], d["line"], d["column"]) for d in found] == [("D631", 5, 40), ("D639", 9, 14)]
    assert "hint" not in found[0]  # nothing on the map is close to 'Atlantis'
    assert found[1]["hint"] == "did you mean 'aar/start'?"


def test_check_stays_silent_on_good_test_scenarios(here):
    assert run_cli(["check", RAIDING]) == (0, "")


@pytest.mark.parametrize("scenario", ["g40/scenarios/start.yaml", "aa50/scenarios/start-1942.yaml"])
def test_the_shipped_scenarios_start_their_game_without_rulesets_named(scenario):
    # their `rulesets:` give the standard game of their map (issue 12); before, G703 against aar's rulesets
    path = Path(__file__).parent.parent / "rulesets" / scenario
    code, output = run_cli(["play", "--scenario", str(path), "--rounds", "1", "--agent", "random", "--quiet"])
    assert code == 0 and output.startswith("Result: "), output
