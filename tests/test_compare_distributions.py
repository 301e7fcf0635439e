"""The compare document's exact distributions: the changed formulas that roll dice, evaluated exactly
under each variant with the arguments their rule tests call them with; what cannot be shown is listed
with its reason."""

from __future__ import annotations

import json
from fractions import Fraction

import jsonschema

from ruleslang.compare.distributions import changed_names, distributions, arguments_in_tests
from ruleslang.lang.diff import diff_rulesets
from ruleslang.workspace.compositions import Workspace

from conftest import REPO, write_rulesets
from test_cli import run_cli

SCHEMA = json.loads((REPO / "ruleslang" / "schemas" / "compare.json").read_text(encoding="utf-8"))

FIRST = """
    ruleset t/hit@1
    uses aar/base@1

    formula hit_roll(attack: int) -> int:
        let r = d6
        if r <= attack then 1 else 0

    formula plain_value(attack: int) -> int = attack + 1

    test "a roll at 2 hits one time in three":
        expect probability(hit_roll(2) == 1) == 1/3
        expect plain_value(2) == 3
"""
SECOND = (FIRST.replace("t/hit@1", "t/hit@2").replace("r <= attack then", "r <= attack + 1 then")
          .replace("== 1/3", "== 1/2").replace("attack + 1\n", "attack + 2\n").replace("== 3\n", "== 4\n")
          + """
    formula miss_roll(attack: int) -> int:
        let r = d6
        if r > attack then 1 else 0
""")


def _loaded(tmp_path):
    write_rulesets(tmp_path, {"t/hit@1": FIRST, "t/hit@2": SECOND})
    ws = Workspace([tmp_path])
    return ws, ws.load(["t/hit@1"]), ws.load(["t/hit@2"])


def test_test_calls_keep_plain_arguments_only(tmp_path):
    write_rulesets(tmp_path, {"t/hit@1": FIRST.replace(
        "    expect plain_value(2) == 3",
        "    expect probability(hit_roll(attack_value_of(3)) == 1) > 0\n"
        "        expect plain_value(2) == 3\n"
        "    formula attack_value_of(a: int) -> int = a")})
    ws = Workspace([tmp_path])
    loaded = ws.load(["t/hit@1"])
    assert loaded.ok, loaded.diagnostics
    # hit_roll(attack_value_of(3)) is a call, not a value written out: left out
    assert arguments_in_tests(loaded, "hit_roll") == [("2",)]
    assert arguments_in_tests(loaded, "plain_value") == [("2",)]


def test_changed_dice_formulas_get_each_variants_exact_distribution(tmp_path):
    ws, a, b = _loaded(tmp_path)
    assert a.ok and b.ok, (a.diagnostics, b.diagnostics)
    names = changed_names(diff_rulesets(a.ruleset, b.ruleset).to_json())
    assert {"hit_roll", "plain_value", "miss_roll"} <= set(names)
    found = distributions(ws, [("A", a, None), ("B", b, None)], names)
    by_variant = {d["variant"]: d for d in found["distributions"]}
    # plain_value rolls no dice: no distribution
    assert {d["definition"] for d in found["distributions"]} == {"hit_roll"}
    assert by_variant["A"]["args"] == ["2"]
    chances = {v: {x["value"]: Fraction(x["p"]).limit_denominator(100) for x in d["values"]}
               for v, d in by_variant.items()}
    assert chances == {"A": {0: Fraction(2, 3), 1: Fraction(1, 3)}, "B": {0: Fraction(1, 2), 1: Fraction(1, 2)}}
    # the added miss_roll rolls dice, but no test calls it: said, not dropped in silence
    assert found["skipped"] == [{"definition": "miss_roll", "reason": "no rule test calls it with plain values"}]


def test_compare_puts_the_distributions_in_its_document(tmp_path):
    _loaded(tmp_path)
    code, out = run_cli(["compare", "--rulesets", str(tmp_path), "t/hit@1", "t/hit@2", "--games", "2",
                         "--rounds", "1", "--agent", "random", "--quiet", "--jobs", "1",
                         "--store", str(tmp_path / "store"), "--format", "json"])
    assert code == 0, out
    doc = json.loads(out)
    jsonschema.validate(doc, SCHEMA)
    assert [(d["variant"], d["definition"]) for d in doc["distributions"]] == [("A", "hit_roll"), ("B", "hit_roll")]
    assert [s["definition"] for s in doc["distributions_skipped"]] == ["miss_roll"]
    # the report draws the distributions and says which formula it could not show, and why
    from ruleslang.reports.compare import render_compare
    page = render_compare(doc)
    assert "hit_roll(2)" in page and "miss_roll: no rule test calls it with plain values" in page
