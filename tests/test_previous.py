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


HOOKED_BASE = """
    ruleset demo/hbase@1
    player A
    counter seen -> int = 0
    phase tally:
        change seen by 1
    sequence turn: tally
    hook watch after tally when seen < 50:
        change seen by 10
"""

HOOKED = """
    ruleset demo/hooked@1
    uses demo/hbase@1
    override hook watch after tally:
        run previous
        change seen by 100

    test "an overriding hook runs the hook it replaces, which no longer fires by itself":
        run tally
        expect seen == 111

    test "the replaced hook runs only where it would have: its condition is kept":
        run tally
        run tally
        expect seen == 212
"""


def test_a_hook_override_runs_the_hook_it_replaces(tmp_path):
    write_rulesets(tmp_path, {"demo/hbase@1": HOOKED_BASE, "demo/hooked@1": HOOKED})
    code, out = run_cli(["test", "demo/hooked@1", "--rulesets", str(tmp_path)])
    assert code == 0, out
    assert out.strip().endswith("2 passed, 0 failed")
    code, out = run_cli(["diff", "demo/hbase@1", "demo/hooked@1", "--rulesets", str(tmp_path)])
    assert code == 0, out
    assert "run previous" in out and "previous: the watch of demo/hbase@1, which this override extends" in out


def test_previous_in_a_constraint_override_is_r250(tmp_path):
    base = """
        ruleset demo/cbase@1
        player A
        constraint few on place(p, t, list):
            require count(list) < 5 else "at most four"
    """
    text = """
        ruleset demo/constrained@1
        uses demo/cbase@1
        override constraint few on place(p, t, list):
            require previous else "as before"
    """
    _, loaded = load(tmp_path, {"demo/cbase@1": base, "demo/constrained@1": text}, "demo/constrained@1")
    assert "R250" in codes(loaded.diagnostics), loaded.diagnostics


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



def _procs_root():
    from pathlib import Path
    return str(Path(__file__).parent / "rulesets")


def _its_one_test_passes(tmp_path, ref: str, text: str) -> None:
    """`ruleslang test REF` of a ruleset over procs/game@1 (tests/rulesets): its one test passes."""
    write_rulesets(tmp_path, {ref: text})
    code, out = run_cli(["test", ref, "--rulesets", str(tmp_path), "--rulesets", _procs_root()])
    assert code == 0 and "1 passed, 0 failed" in out, out


def test_run_previous_in_a_constraint_override_checks_both(tmp_path):
    text = """
        ruleset demo/stricter@1
        uses procs/game@1
        override constraint at_most_three on place(p, s, list):
            run previous
            require count(list) != 2 else "never two"

        test "both the replaced require and the new one refuse":
            expect allowed place(Reds, "Isle", [foot])
            expect refused place(Reds, "Isle", [foot, foot]) "never two"
            expect refused place(Reds, "Isle", [foot, foot, foot, foot]) "at most 3 foot at Isle"
    """
    _its_one_test_passes(tmp_path, "demo/stricter@1", text)


def test_a_replaced_constraint_guards_only_where_its_override_runs_it(tmp_path):
    text = """
        ruleset demo/looser@1
        uses procs/game@1
        override constraint at_most_three on place(p, s, list):
            require count(list) <= 5 else "at most five"

        test "the replaced limit of three no longer applies":
            expect allowed place(Reds, "Isle", [foot, foot, foot, foot])
            expect refused place(Reds, "Isle", [foot, foot, foot, foot, foot, foot]) "at most five"
    """
    _its_one_test_passes(tmp_path, "demo/looser@1", text)


def test_run_previous_in_a_constraint_on_another_action_is_r255(tmp_path):
    text = """
        ruleset demo/moved@1
        uses procs/game@1
        override constraint at_most_three on purchase(p, list):
            run previous
    """
    from pathlib import Path
    _, loaded = load(tmp_path, {"demo/moved@1": text}, "demo/moved@1", extra_roots=[Path(_procs_root())])
    assert "R255" in codes(loaded.diagnostics), loaded.diagnostics
