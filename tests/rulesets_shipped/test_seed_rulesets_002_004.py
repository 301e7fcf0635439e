"""The shipped rulesets of seeds/002 (g40), 003 (aa50) and 004 (a3r): their rule tests pass, their
checks give exactly the warnings the documents deserve, and the entry points other tools call
(`ruleslang call`, `explain`) answer as the contract says."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from ruleslang.cli.app import main

REPO = Path(__file__).resolve().parents[2]
ROOT = REPO / "rulesets"

REFS = sorted(f"{p.parent.name}/{p.stem}" for family in ("a3r", "aa50", "g40")
              for p in (ROOT / family).glob("*.rules"))


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main([*argv, "--rulesets", str(ROOT)])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def test_there_are_rulesets():
    assert "a3r/raiders@1" in REFS and "aa50/sub-detection@1" in REFS and "g40/kamikaze@1" in REFS


@pytest.mark.parametrize("ref", REFS)
def test_rule_tests_pass(ref):
    code, out, err = run("test", ref)
    last = out.strip().splitlines()[-1]
    assert code == 0, out + err
    assert last.endswith(" 0 failed") and not last.startswith("0 passed"), last


@pytest.mark.parametrize("ref", REFS)
def test_checks_are_clean_even_strict(ref):
    """The documents' contradictions (two detection baselines, the convoy-raid example over the cap)
    are recorded by rule tests, not by warnings that every `check` would print."""
    code, out, err = run("check", "--strict", ref, "--format", "json")
    assert code == 0, out + err
    assert (json.loads(out)["diagnostics"] if out.strip() else []) == []


def test_detection_contradiction_is_a_passing_rule_test():
    code, out, _ = run("test", "aa50/sub-detection@1", "-k", "baseline DD-to-detect value twice")
    assert code == 0 and out.strip().endswith("1 passed, 0 failed")


def _group(**changes):
    group = {"box": "atlantic", "raider_nation": "germany", "group_number": 1, "ships": 2,
             "air_range_results": 0, "us_at_war_with_germany": False, "cves": 0, "search_air": 0,
             "based_in_singapore": False, "codebreaking": 0}
    group.update(changes)
    return json.dumps(group)


@pytest.mark.parametrize("changes, value", [
    ({}, -3),
    ({"us_at_war_with_germany": True, "cves": 6}, -1),
    ({"cves": 100}, 1),                                   # the CVE bonus never exceeds +4
    ({"group_number": 3, "ships": 3}, 0),
    ({"box": "indian", "raider_nation": "japan", "based_in_singapore": True, "cves": 1, "search_air": 2}, -1),
    ({"box": "pacific", "raider_nation": "japan", "cves": 12, "codebreaking": -1}, 0),
])
def test_engagement_modifier_contract(changes, value):
    code, out, err = run("call", "a3r/raiders@1", "engagement_modifier", _group(**changes), "--format", "json")
    assert code == 0, out + err
    assert json.loads(out) == {"value": value}


def test_engaging_ships_contract():
    code, out, _ = run("call", "a3r/raiders@1", "engaging_ships", "2", "--format", "json")
    assert code == 0
    assert sorted(json.loads(out)["value"]) == ["battlecruiser_2", "cruiser"]


def test_engagement_modifier_explains_itself():
    code, out, err = run("explain", "a3r/raiders@1", "engagement_modifier(bismarck_group)")
    assert code == 0, err
    assert "automatic" in out and "total -3" in out


@pytest.mark.parametrize("destroyers, value, p_detected", [(1, 3, "1/2"), (2, 3, "3/4"), (3, 3, "7/8"), (1, 5, "5/6")])
def test_detection_contract(destroyers, value, p_detected):
    code, out, err = run("call", "aa50/sub-detection@1", "detected", str(destroyers), str(value), "--exact",
                         "--format", "json")
    assert code == 0, out + err
    assert dict((str(k).lower(), v) for k, v in json.loads(out)["distribution"])["true"] == p_detected
