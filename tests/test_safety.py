"""A ruleset from a stranger: no files outside the roots, no Python, bounded work, located errors."""

import re
from pathlib import Path

from ruleslang.lang.eval.context import EvalContext
from ruleslang.base.errors import EvalError
from ruleslang.lang.eval.host import Host
from ruleslang.workspace.compositions import Workspace

from conftest import codes, load


def run(loaded, name, *args, budget=None):
    host = Host(0)
    if budget:
        host.reset_budget(budget)
    ctx = EvalContext(loaded.compiled, host)
    try:
        return loaded.compiled.callable(name)(ctx, *args)
    except EvalError as e:
        return e


def test_runaway_evaluation_stops_on_its_budget_with_a_location(tmp_path):
    _, loaded = load(tmp_path, {"s/loop@1": """
        ruleset s/loop@1
        formula big(n: int) -> int = sum(i * j for i in 1..n for j in 1..n)
    """})
    e = run(loaded, "big", 3000, budget=10_000)
    assert isinstance(e, EvalError) and e.code == "E501"
    assert e.span.line == 2 and "budget" in e.message


def test_numbers_are_bounded(tmp_path):
    _, loaded = load(tmp_path, {"s/num@1": """
        ruleset s/num@1
        formula square(x: int) -> int = x * x
        formula tower(x: int) -> int = square(square(square(square(square(square(square(square(x))))))))
    """})
    e = run(loaded, "tower", 10)
    assert isinstance(e, EvalError) and e.code == "E509"


def test_collections_are_bounded(tmp_path):
    _, loaded = load(tmp_path, {"s/big@1": """
        ruleset s/big@1
        formula many() -> int = count(1..10000000)
    """})
    e = run(loaded, "many")
    assert isinstance(e, EvalError) and e.code == "E510"


def test_division_by_zero_is_located(tmp_path):
    _, loaded = load(tmp_path, {"s/div@1": "ruleset s/div@1\nformula f(x: int) -> number = 1 / x\n"})
    e = run(loaded, "f", 0)
    assert e.code == "E503" and e.span.line == 2


def test_deep_nesting_is_refused_before_any_stage_recurses(tmp_path):
    text = "ruleset s/deep@1\nconstant c = " + "(" * 150 + "1" + ")" * 150 + "\n"
    _, loaded = load(tmp_path, {"s/deep@1": text})
    assert codes(loaded.diagnostics) == ["P005"]
    # A chain of one associative operator is regrouped, not refused (issue 16: a flat sum of more
    # than 101 terms was refused); a chain of `-` cannot be regrouped and still counts as nesting.
    long_sum = "ruleset s/long@1\nconstant c = " + " + ".join(["1"] * 300) + "\n"
    _, loaded = load(tmp_path, {"s/long@1": long_sum})
    assert codes(loaded.diagnostics) == []
    assert run(loaded, "c") == 300
    long_difference = "ruleset s/diff@1\nconstant c = " + " - ".join(["1"] * 300) + "\n"
    _, loaded = load(tmp_path, {"s/diff@1": long_difference})
    assert codes(loaded.diagnostics) == ["P005"]


def test_oversized_sources_are_refused(tmp_path):
    text = "ruleset s/huge@1\n" + "# padding\n" * 120_000
    _, loaded = load(tmp_path, {"s/huge@1": text})
    assert codes(loaded.diagnostics) == ["S004"]


def test_no_python_is_reachable(tmp_path):
    for attempt in ["__import__(\"os\")", "open(\"/etc/passwd\")", "eval(\"1\")", "getattr(1, \"x\")",
                    "(1).__class__", "exec(\"x\")", "globals()"]:
        _, loaded = load(tmp_path, {"s/py@1": f"ruleset s/py@1\nconstant c = {attempt}\n"})
        assert loaded.diagnostics, attempt
        assert all(re.match(r"[PRT]\d{3}", d.code) for d in loaded.diagnostics), (attempt, loaded.diagnostics)


def test_paths_cannot_leave_the_roots(tmp_path):
    outside = tmp_path.parent / "outside.rules"
    outside.write_text("ruleset o/x@1\n")
    _, loaded = load(tmp_path / "root", {"s/esc@1": 'ruleset s/esc@1\nuses "../../outside.rules"\n'})
    assert codes(loaded.diagnostics) == ["S005"]


def test_scenarios_in_tests_cannot_leave_the_roots(tmp_path):
    secret = tmp_path.parent / "secret.yaml"
    secret.write_text("map: mini\n")
    from conftest import FIXTURES
    from ruleslang.ruletests.runner import TestRunner

    _, loaded = load(tmp_path / "r", {"s/scn@1": """
        ruleset s/scn@1
        test "peek":
            scenario "../../secret.yaml"
            expect true
    """}, extra_roots=[FIXTURES])
    ws = Workspace([tmp_path / "r", FIXTURES])
    loaded = ws.load(["s/scn@1"])
    [result] = TestRunner(ws).run(loaded)
    assert result.status == "error"
    assert any(d.code == "S005" and "outside the ruleset roots" in d.message for d in result.diagnostics)


def test_the_package_names_no_rule_of_the_documents():
    """ruleslang/ knows board games in general, never one rule document (DESIGN.md's boundary)."""
    forbidden = re.compile(r"commerce|convoy|kamikaze|victory.?cit|raider|scramble|d-?day|infantry|battleship|"
                           r"submarine|destroyer|fighter|bomber|british|german|japan|russia|americ|\bvcps?\b", re.I)
    package = Path(__file__).resolve().parents[1] / "ruleslang"
    hits = []
    for path in package.rglob("*.py"):
        if "triplea" in path.name:  # the importer is the one place that knows TripleA's vocabulary
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if forbidden.search(line):
                hits.append(f"{path.name}:{i}: {line.strip()}")
    assert not hits, hits
