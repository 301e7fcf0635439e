"""`ruleslang test --coverage`: what the tested rulesets wrote that no rule test reaches."""

from __future__ import annotations

import json

from conftest import write_rulesets
from test_cli import run_cli

BASE = """
    ruleset demo/base@1
    player A
    formula used(x: int) -> int = band(x) + 1
    formula unused(x: int) -> int = x
    modifiers mods(x: int) -> int:
        +1 "one"
    table band(n: int) -> int:
        0..5  -> 0
        6..   -> 1
    die table chance(d6) -> int:
        1..3 -> 0
        4..6 -> 1
    counter seen -> int = 0
    phase tally:
        change seen by 1
    phase idle:
        change seen by 2
    hook watch after tally:
        log "tally"
    hook never before idle:
        log "idle"

    test "reaches used, one band row, every die row, tally and its hook":
        expect used(3) == 1
        expect expected(roll(chance)) == 1/2
        run tally
        expect seen == 1
"""

MORE = """
    ruleset demo/more@1
    uses demo/base@1
    override formula unused(x: int) -> int = previous(x) + 1

    test "the base's unused, through previous":
        expect unused(1) == 2
"""


def test_coverage_lists_what_no_test_reaches(tmp_path):
    write_rulesets(tmp_path, {"demo/base@1": BASE})
    code, out = run_cli(["test", "demo/base@1", "--coverage", "-q", "--rulesets", str(tmp_path)])
    assert code == 0
    lines = out.strip().split("\n")
    assert lines[-1] == "1 passed, 0 failed"
    assert lines[0] == ("coverage: 1 of 3 formulas, 1 of 2 hooks, 1 of 2 procedures, 3 of 4 table rows "
                        "reached by the rule tests")
    missed = [line.split(": ", 1)[1] for line in lines[2:-1]]
    assert missed == ["formula unused", "modifiers mods", "band: 6.. -> 1", "phase idle", "hook never"]


def test_coverage_counts_a_definition_reached_through_previous_and_as_json(tmp_path):
    write_rulesets(tmp_path, {"demo/base@1": BASE, "demo/more@1": MORE})
    code, out = run_cli(["test", "demo/base@1", "demo/more@1", "--coverage", "--format", "json",
                         "--rulesets", str(tmp_path)])
    assert code == 0
    doc = json.loads(out)
    assert doc["passed"] == 2
    counts = doc["coverage"]["counts"]
    assert counts["formula"] == {"reached": 3, "total": 4}  # base: used, unused (via previous); more: unused
    names = [(m["ruleset"], m["kind"], m["name"], m.get("row")) for m in doc["coverage"]["not_reached"]]
    assert names == [("demo/base@1", "formula", "mods", None), ("demo/base@1", "table row", "band", 2),
                     ("demo/base@1", "procedure", "idle", None), ("demo/base@1", "hook", "never", None)]
    first = doc["coverage"]["not_reached"][0]
    assert first["file"].endswith("base@1.rules") and first["line"] == 5


def test_without_coverage_the_output_has_none(tmp_path):
    write_rulesets(tmp_path, {"demo/base@1": BASE})
    code, out = run_cli(["test", "demo/base@1", "--format", "json", "--rulesets", str(tmp_path)])
    assert code == 0 and "coverage" not in json.loads(out)
