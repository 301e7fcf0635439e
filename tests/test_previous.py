"""`previous`: an override calls (or runs) the definition it replaces, checked like any call,
shown by `diff` and `explain`."""

from __future__ import annotations

from conftest import codes, load, write_rulesets
from test_cli import run_cli

BASE = """
    ruleset demo/base@1
    player A
    constant bonus = 2
    formula value(x: int) -> int = x + bonus
    formula doubled(x: int) -> int = 2 * value(x)
    modifiers mods(x: int) -> int:
        +1 "one"
    counter seen -> int = 0
    phase tally:
        change seen by 1
    sequence turn: tally
    hook watch after tally:
        log "tally"
"""

MORE = """
    ruleset demo/more@1
    uses demo/base@1
    override formula value(x: int) -> int = previous(x) + 10
    override constant bonus = previous + 1
    override modifiers mods(x: int) -> int:
        +previous(x) "as before"
        +x "and x"
    override phase tally:
        run previous
        change seen by 100

    test "previous calls the replaced definitions":
        expect value(1) == 14
        expect doubled(1) == 28
        expect mods(5) == 6
        run tally
        expect seen == 101
"""

# A revision of a revision: each override's previous is the one it replaces, not the first.
AGAIN = """
    ruleset demo/more@2
    revises demo/more@1
    override formula value(x: int) -> int = previous(x) * 2

    test "previous of an override that calls previous":
        expect value(1) == 28
"""


def test_previous_calls_the_replaced_definition(tmp_path):
    write_rulesets(tmp_path, {"demo/base@1": BASE, "demo/more@1": MORE, "demo/more@2": AGAIN})
    code, out = run_cli(["test", "demo/more@1", "demo/more@2", "--rulesets", str(tmp_path)])
    assert code == 0, out
    assert out.strip().endswith("2 passed, 0 failed")


def test_previous_is_checked_like_any_call(tmp_path):
    bad = """
        ruleset demo/bad@1
        uses demo/base@1
        override formula value(x: int) -> int = previous(x, 2) + previous("a")
    """
    _, loaded = load(tmp_path, {"demo/base@1": BASE, "demo/bad@1": bad}, "demo/bad@1")
    found = {(d.code, d.span.column) for d in loaded.diagnostics}
    assert ("T302", 41) in found and ("T301", 67) in found
    arity = next(d for d in loaded.diagnostics if d.code == "T302")
    assert "value@demo/base@1 takes 1 argument" in arity.message


def test_previous_outside_an_override_is_not_defined_with_a_hint(tmp_path):
    text = """
        ruleset demo/plain@1
        uses demo/base@1
        formula other(x: int) -> int = previous(x)
    """
    _, loaded = load(tmp_path, {"demo/base@1": BASE, "demo/plain@1": text}, "demo/plain@1")
    (d,) = [d for d in loaded.diagnostics if d.code == "R201"]
    assert d.message == "'previous' is not defined" and "override" in d.hint


def test_previous_in_a_hook_override_is_r250(tmp_path):
    text = """
        ruleset demo/hooked@1
        uses demo/base@1
        override hook watch after tally:
            run previous
    """
    _, loaded = load(tmp_path, {"demo/base@1": BASE, "demo/hooked@1": text}, "demo/hooked@1")
    assert codes(loaded.diagnostics) == ["R250"]
    assert loaded.diagnostics[0].span.line == 4


def test_a_ruleset_that_defines_previous_keeps_its_meaning(tmp_path):
    text = """
        ruleset demo/own@1
        uses demo/base@1
        formula previous(x: int) -> int = 100
        override formula value(x: int) -> int = previous(x)

        test "its own previous":
            expect value(1) == 100
    """
    write_rulesets(tmp_path, {"demo/base@1": BASE, "demo/own@1": text})
    code, out = run_cli(["test", "demo/own@1", "--rulesets", str(tmp_path)])
    assert code == 0, out


def test_diff_and_explain_show_previous(tmp_path):
    write_rulesets(tmp_path, {"demo/base@1": BASE, "demo/more@1": MORE})
    code, out = run_cli(["diff", "demo/base@1", "demo/more@1", "--rulesets", str(tmp_path)])
    assert code == 0
    assert "now: previous(x) + 10" in out
    assert "previous: the value of demo/base@1, which this override extends" in out
    assert "+    run previous" in out
    assert "@demo" not in out  # the hidden names stay hidden
    assert "no longer uses: bonus" not in out  # it still does, through previous
    code, out = run_cli(["explain", "demo/more@1", "value(1)", "--rulesets", str(tmp_path)])
    assert code == 0 and "value@demo/base@1(x)  = 4" in out and "total 14" in out
