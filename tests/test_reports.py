"""The HTML reports: self-contained pages with every section, the document's figures in them.

The compare report is rendered from a fixture document written to the contract of the compare
engine (tests/cases/compare/report.json); the odds report from what `ruleslang odds` itself
computes. tests/test_reports_browser.py opens both in Chromium and checks that the charts drew.
"""

from __future__ import annotations

import copy
import html
import json
import re
from pathlib import Path

import jsonschema
import pytest

from ruleslang.cli.app import main
from ruleslang.reports.compare import render_compare
from ruleslang.reports.odds import render_odds

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "cases" / "compare" / "report.json"
SCHEMA = ROOT / "ruleslang" / "schemas" / "compare.json"
COMPARE_SECTIONS = ["overview", "win-rates", "scores", "differences", "income", "activity", "accounting", "diff",
                    "distributions"]
ODDS_SECTIONS = ["battle", "outcomes", "survivors", "losses", "ends"]
# a tag that would load something from elsewhere: <script src=...>, <link href=...>, <img src=...>, ...
EXTERNAL = re.compile(r"<(?:script|link|img|iframe|source|embed|object)\b[^>]*\b(?:src|href|data)\s*=", re.I)
BATTLE = ["odds", "--ruleset", "aar/base@1", "--at", "Karelia S.S.R.", "--attacker", "Germans",
          "2 infantry, 1 armour", "--defender-units", "2 infantry", "--defender", "Russians"]


@pytest.fixture(scope="module")
def document() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def page(document) -> str:
    return render_compare(document)


def _self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    assert EXTERNAL.search(page) is None, EXTERNAL.search(page).group(0)
    # plotly.js is inlined once, and every chart is drawn by a script of the page itself
    assert page.count("Plotly.newPlot(") == page.count('class="plotly-graph-div"') > 0
    assert len(re.findall(r"\* plotly\.js v\d", page)) == 1


def _section_ids(page: str) -> list[str]:
    return re.findall(r'<section id="([^"]+)"', page)


def test_the_fixture_follows_the_contract_schema(document):
    if not SCHEMA.exists():
        pytest.skip("ruleslang/schemas/compare.json (written with the compare engine) is not in this checkout")
    jsonschema.validate(document, json.loads(SCHEMA.read_text(encoding="utf-8")))


def test_the_compare_report_is_self_contained_with_every_section(page):
    _self_contained(page)
    assert _section_ids(page) == COMPARE_SECTIONS
    # a chart for each figure: win rates, endings, scores, differences, income, activity, accounting,
    # distributions
    assert page.count('class="plotly-graph-div"') == 8
    # each chart has its explanation beside it
    assert page.count('<div class="chart">') == page.count("<aside>") == 8


def test_the_compare_report_shows_the_documents_figures(page, document):
    a, b = document["variants"]
    for v in (a, b):
        assert v["label"] in page
        assert " + ".join(v["composition"]) in page
    # win rates with their Wilson intervals, in the table
    assert "75.0% (68.6–80.5%)" in page and "70.0% (63.3–75.9%)" in page
    # the paired difference, its interval, p-value and what pairing did, in words
    assert "−0.050" in page and "−0.089 to −0.011" in page and "0.012" in page
    assert "54% narrower than unpaired (±0.039 instead of ±0.085)" in page
    assert "Pairing narrowed the intervals by 50% to 78% (median 69%)" in page
    # calibration beside the comparison
    assert "Calibration: Allies 90.0%; Axis 8.0%." in page
    assert html.escape(document["calibration"]["note"]) in page
    # per-rule accounting, the semantic diff, the exact distributions
    assert "IPCs taken by raid_damage (hook)" in page and "British −8.00, Americans −5.00" in page
    for line in document["diff"][0]["lines"]:
        assert html.escape(line) in page
    assert "72.22%" in page  # raid_cap() under B: 6 with chance 26/36


def test_the_charts_carry_the_documents_numbers(page, document):
    # the figures' data is in the page's scripts: the income means of the last power, round by round
    figures = "".join(re.findall(r"Plotly\.newPlot\((.*?)\)\s*\}", page, re.S))
    last = document["powers"][-1]
    means = [p["mean"] for p in document["variants"][1]["income"][last]]
    assert json.dumps(means).replace(" ", "") in figures.replace(" ", "")


def test_the_same_document_gives_the_same_page(document, page):
    assert render_compare(copy.deepcopy(document)) == page


def test_document_text_is_escaped(document):
    hostile = copy.deepcopy(document)
    hostile["variants"][1]["label"] = "<script>alert(1)</script>"
    hostile["variants"][1]["name"] = "B<img src=x>"
    hostile["diff"][0]["lines"].append("</pre><script>alert(2)</script>")
    page = render_compare(hostile)
    assert "<script>alert" not in page and "<img src=x>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_a_report_without_distributions_or_accounting_says_so(document):
    plain = copy.deepcopy(document)
    del plain["distributions"]
    for v in plain["variants"]:
        v["accounting"] = []
    page = render_compare(plain)
    assert _section_ids(page) == COMPARE_SECTIONS
    assert "No changed formula rolls dice" in page
    assert "No rule of these variants logged an event or counter" in page


def test_one_variant_alone_has_no_difference_to_show(document):
    alone = copy.deepcopy(document)
    alone["variants"] = alone["variants"][:1]
    alone["differences"], alone["diff"] = [], []
    page = render_compare(alone)
    assert _section_ids(page) == COMPARE_SECTIONS
    assert "There is only one variant: no difference to measure." in page


def test_three_variants_each_against_the_first(document):
    three = copy.deepcopy(document)
    c = copy.deepcopy(three["variants"][1])
    c["name"], c["label"] = "C", "a third variant"
    three["variants"].append(c)
    three["differences"] += [dict(d, b="C") for d in document["differences"]]
    three["diff"].append({"a": "A", "b": "C", "lines": ["changed table raid_table"]})
    page = render_compare(three)
    assert "C − A" in page and "A → C" in page and "a third variant" in page


def test_a_document_of_another_format_is_refused(document):
    with pytest.raises(ValueError, match="ruleslang-compare"):
        render_compare(dict(document, version=2))


def test_odds_writes_the_report_beside_its_usual_output(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main([*BATTLE, "--format", "json", "-o", str(out)]) == 0
    document = json.loads(capsys.readouterr().out)  # stdout is still the JSON alone
    page = out.read_text(encoding="utf-8")
    _self_contained(page)
    assert _section_ids(page) == ODDS_SECTIONS
    assert page == render_odds(document)
    wins = document["outcomes"]["attacker wins"]
    assert f"{100 * wins['float']:.2f}%" in page
    assert f'title="{wins["fraction"]}"' in page  # the exact fraction beside the decimal
    lost = document["expected_ipc_lost"]["attacker"]["float"]
    assert f"{lost:.2f}" in page
    assert "2 infantry, 1 armour" in page
    assert "<th>exact</th>" in page


def test_a_long_fraction_is_shortened_with_all_of_it_in_the_tooltip(capsys):
    assert main([*BATTLE, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    long = "12345678901234567890123/98765432109876543210987"
    document["expected_rounds"]["fraction"] = long
    page = render_odds(document)
    assert f'title="{long}">123456…/987654… (23/23 digits)</td>' in page


def test_odds_report_of_a_sampled_battle_shows_the_intervals(tmp_path, capsys):
    out = tmp_path / "sampled.html"
    assert main([*BATTLE, "--sample", "200", "-o", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    page = out.read_text(encoding="utf-8")
    assert "battles fought" in page and "estimated by fighting the real battle" in page
    assert re.search(r"\d+\.\d\d% ± \d+\.\d\d%", page)
    assert "<th>exact</th>" not in page  # sampled odds have no fractions


def test_an_unwritable_report_is_refused_before_the_work(tmp_path, capsys):
    missing = tmp_path / "no-such-folder" / "report.html"
    assert main([*BATTLE, "--format", "json", "-o", str(missing)]) == 2
    [diag] = json.loads(capsys.readouterr().out)["diagnostics"]
    assert diag["code"] == "U107" and "no-such-folder" in diag["message"]
    assert not missing.parent.exists()
