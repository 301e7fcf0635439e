"""`test -k`, a folder as a REF, the dice of a failing seeded test, and `check --strict`."""

import json
import textwrap

from test_cli import run_cli

DICE = """
    ruleset t/dice@1
    formula two() -> int = d6 + d6
    test "two dice, seeded, wrongly expected":
        seed 3
        expect two() == 13
    test "a plain sum":
        expect 1 + 1 == 2
"""
WARNS = """
    ruleset t/warns@1
    constant c = 1
    check warning "c is not two":
        require c == 2
"""


def _folder(tmp_path):
    family = tmp_path / "t"
    family.mkdir()
    (family / "dice@1.rules").write_text(textwrap.dedent(DICE).lstrip())
    (family / "warns@1.rules").write_text(textwrap.dedent(WARNS).lstrip())
    return family


def test_a_folder_is_a_ref_and_k_selects_tests_by_title(tmp_path):
    family = _folder(tmp_path)
    code, output = run_cli(["test", str(family), "-k", "PLAIN"])
    assert code == 0 and output.strip().splitlines() == ["PASS t/dice@1: a plain sum", "1 passed, 0 failed"]
    code, output = run_cli(["test", str(tmp_path)])  # the root of the family folder, too
    assert code == 1 and output.strip().endswith("1 passed, 1 failed")


def test_a_failing_seeded_test_shows_its_dice(tmp_path):
    family = _folder(tmp_path)
    code, output = run_cli(["test", str(family), "-k", "seeded"])
    assert code == 1 and "FAIL" in output
    line = next(x for x in output.splitlines() if x.strip().startswith("rolls:"))
    rolls = [int(v) for v in line.split(":", 1)[1].split(",")]
    actual = next(x for x in output.splitlines() if x.strip().startswith("actual:"))
    assert len(rolls) == 2 and str(sum(rolls)) in actual
    code, output = run_cli(["test", str(family), "-k", "seeded", "--format", "json"])
    assert json.loads(output)["tests"][0]["rolls"] == rolls


def test_strict_check_fails_on_warnings(tmp_path):
    family = _folder(tmp_path)
    code, output = run_cli(["check", str(family / "warns@1.rules")])
    assert code == 0 and "warning[C401]" in output
    code, output = run_cli(["check", "--strict", str(family / "warns@1.rules")])
    assert code == 1 and "warning[C401]" in output


def test_a_folder_without_rulesets_is_s002(tmp_path):
    (tmp_path / "empty").mkdir()
    code, output = run_cli(["test", str(tmp_path / "empty")])
    assert code == 1 and "error[S002]" in output and "no rulesets" in output
