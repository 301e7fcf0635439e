"""Overrides keep their result type (R206), did-you-mean offers only plausible names, and a
double quote inside a text's `{...}` gets a message that says so."""

from __future__ import annotations

import re

import pytest

from ruleslang.base.suggest import close_matches, did_you_mean

from conftest import REPO, codes, load
from test_cli import run_cli

BASE = """
    ruleset demo/base@1
    formula cap(t: int) -> int = t * 2
    formula uses_cap() -> int = cap(3) + 1
    modifiers mods(x: int) -> int:
        +1 "one"
    table tab(k: int) -> int:
        1 -> 2
    table cols(k: int) -> (a: int, b: text):
        1 -> 2, "x"
    counter tokens(k: int) -> int = 0
    constant c = 3
"""


@pytest.mark.parametrize("override, old, new", [
    ("override formula cap(t: int) -> bool = t > 2", "int", "bool"),
    ('override modifiers mods(x: int) -> number:\n    +(1/2) "half"', "int", "number"),
    ('override table tab(k: int) -> text:\n    1 -> "a"', "int", "text"),
    ("override table cols(k: int) -> (a: int, b: int):\n    1 -> 2, 3", "{a: int, b: text}", "{a: int, b: int}"),
    ("override counter tokens(k: int) -> bool = false", "int", "bool"),
    ("override constant c = true", "int", "bool"),
])
def test_an_override_that_changes_the_result_type_is_r206_at_the_override(tmp_path, override, old, new):
    text = "ruleset demo/base@2\nrevises demo/base@1\n" + override + "\n"
    _, loaded = load(tmp_path, {"demo/base@1": BASE, "demo/base@2": text}, "demo/base@2")
    r206 = [d for d in loaded.diagnostics if d.code == "R206"]
    assert len(r206) == 1
    (d,) = r206
    assert d.span.source.name.endswith("base@2.rules") and d.span.line == 3
    assert d.message.endswith(f"changes its result type from {old} to {new}")
    assert d.related[0].span.source.name.endswith("base@1.rules")


def test_an_override_with_a_compatible_result_is_accepted(tmp_path):
    text = "ruleset demo/base@2\nrevises demo/base@1\noverride formula cap(t: int) -> int = t * 3\n" \
           "override constant c = 4\n"
    _, loaded = load(tmp_path, {"demo/base@1": BASE, "demo/base@2": text}, "demo/base@2")
    assert codes(loaded.diagnostics) == []


def test_suggestions_are_plausibly_close():
    assert close_matches("Atlantis", ["Balkans", "Baltic States"]) == []
    assert close_matches("infantri", ["infantry", "artillery"]) == ["infantry"]
    assert close_matches("multipler", ["multiplier"]) == ["multiplier"]
    assert close_matches("xnfantry", ["infantry"]) == ["infantry"]  # a typo of the first letter, still close


def test_a_hint_offers_the_close_names_quoted_in_one_form():
    assert did_you_mean("infantri", ["infantry", "artillery"]) == "did you mean 'infantry'?"
    assert did_you_mean("Atlantis", ["Balkans", "Baltic States"]) is None
    assert did_you_mean("capp", ["cap", "cape", "capital"], n=2) == "did you mean 'cap' or 'cape'?"
    # spellings: names and aliases, matched in any case, each name offered once
    spellings = {"Germany": "Germany", "Deutschland": "Germany", "UK": "United Kingdom"}
    assert did_you_mean("germny", spellings) == "did you mean 'Germany'?"
    assert did_you_mean("deutchland", spellings) == "did you mean 'Germany'?"
    assert did_you_mean("Uk", spellings) == "did you mean 'United Kingdom'?"


def test_only_the_suggest_module_words_a_did_you_mean():
    """Every hint goes through ruleslang/base/suggest.py, so there is one wording to keep consistent."""
    package = REPO / "ruleslang"
    wording = re.compile(r"did\s+you\s+mean", re.IGNORECASE)
    offenders = [str(path.relative_to(REPO)) for path in sorted(package.rglob("*.py"))
                 if path != package / "base" / "suggest.py" and wording.search(path.read_text(encoding="utf-8"))]
    assert offenders == []


def test_an_unknown_space_in_a_ruleset_has_no_far_fetched_suggestion(tmp_path):
    _, loaded = load(tmp_path, {"demo/atl@1": """
        ruleset demo/atl@1
        uses aar/base@1
        formula x() -> bool = is_land("Atlantis")
        formula y() -> bool = is_land("Kwangtun")
    """})
    far, near = [d for d in loaded.diagnostics if d.code == "T305"]
    assert far.hint is None
    assert "Kwantung" in near.hint


def test_a_double_quote_inside_an_interpolation_is_explained(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    code, output = run_cli(["eval", "aar/commerce-raiding@1", '"{space("UK").ipc}"'])
    assert code == 1
    assert '<expression>:1:9: error[P006]: this \'"\' inside \'{...}\' ends the text' in output
    assert 'write a double quote as \\"' in output
    assert run_cli(["eval", "aar/commerce-raiding@1", '"{space(\\"UK\\").ipc}"']) == (0, '"8"\n')


def test_the_quote_message_is_given_in_rule_files_too(tmp_path):
    _, loaded = load(tmp_path, {"demo/q@1": 'ruleset demo/q@1\nformula x() -> text = "a {text("b")}"\n'})
    (d,) = loaded.diagnostics
    assert (d.code, d.span.line, d.span.column) == ("P006", 2, 32)


# ---------------------------------------------------------------- hints where the checker guessed wrong


def test_a_name_of_a_ruleset_not_used_hints_the_uses_to_add(tmp_path):
    _, loaded = load(tmp_path, {"demo/base@1": BASE, "demo/more@1": "ruleset demo/more@1\nconstant d = c + 1\n"},
                     "demo/more@1")
    assert codes(loaded.diagnostics) == ["R201"]
    assert loaded.diagnostics[0].hint == "'c' is defined in demo/base@1: add `uses demo/base@1`"


def test_removing_a_definition_still_used_is_one_error_at_the_remove_naming_the_uses(tmp_path):
    _, loaded = load(tmp_path, {"demo/base@1": BASE,
                                "demo/base@2": "ruleset demo/base@2\nrevises demo/base@1\nremove cap\n"},
                     "demo/base@2")
    assert codes(loaded.diagnostics) == ["R217"]
    found = loaded.diagnostics[0]
    assert found.span.line == 3 and "removes 'cap', which the composition still uses" in found.message
    assert [r.span.line for r in found.related] == [3] and "base@1.rules:3:" in found.message


def test_revises_without_a_version_asks_for_the_version(tmp_path):
    _, loaded = load(tmp_path, {"demo/base@1": BASE,
                                "demo/base@2": "ruleset demo/base@2\nrevises demo/base\noverride constant c = 4\n"},
                     "demo/base@2")
    assert codes(loaded.diagnostics) == ["R213"]
    assert "names the version it revises" in loaded.diagnostics[0].message
    assert loaded.diagnostics[0].hint == "write revises demo/base@1"


def test_a_bare_space_name_in_a_call_hints_the_quoted_space(tmp_path):
    code, output = run_cli(["eval", "aar/commerce-raiding@1", "raid_cap(UK)"])
    assert code == 1 and "error[R201]" in output and 'written in quotes: "United Kingdom"' in output
