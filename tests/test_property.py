"""Any input ends in a result or located diagnostics, never a traceback.

Valid rulesets are mutated (characters and whole tokens deleted, duplicated, swapped or
replaced) and pushed through the whole pipeline, then their tests are run.
"""

import re

from hypothesis import HealthCheck, given, settings, strategies as st

from ruleslang.base.diagnostics import Diagnostic
from ruleslang.workspace.compositions import Workspace
from ruleslang.ruletests.runner import TestRunner

from conftest import FIXTURES

SEEDS = [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.glob("*/*.rules"))]
TOKEN = re.compile(r"\w+|[^\w\s]|\s+")
ALPHABET = list("()[]{}:,.=+-*/<>\"#\\\n\t ") + ["let", "for", "in", "where", "if", "then", "else", "d6",
                                                  "override", "remove", "formula", "table", "..", "->", "=>",
                                                  "choose", "run", "expect", "none", "0", "99999999999999"]


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SEEDS))
    tokens = TOKEN.findall(text)
    for _ in range(draw(st.integers(1, 4))):
        if not tokens:
            break
        i = draw(st.integers(0, len(tokens) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "replace", "swap", "insert"]))
        if op == "delete":
            del tokens[i]
        elif op == "duplicate":
            tokens.insert(i, tokens[i])
        elif op == "replace":
            tokens[i] = draw(st.sampled_from(ALPHABET))
        elif op == "insert":
            tokens.insert(i, draw(st.sampled_from(ALPHABET)))
        else:
            j = draw(st.integers(0, len(tokens) - 1))
            tokens[i], tokens[j] = tokens[j], tokens[i]
    return "".join(tokens)


def _assert_located(diagnostics):
    for d in diagnostics:
        assert isinstance(d, Diagnostic)
        assert re.fullmatch(r"[SPRTCED]\d{3}", d.code), d
        assert d.span is not None or d.file is not None, d


@given(text=mutated())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
def test_mutated_rulesets_end_in_results_or_located_diagnostics(tmp_path_factory, text):
    root = tmp_path_factory.mktemp("mut")
    path = root / "mutant.rules"
    path.write_text(text, encoding="utf-8")
    ws = Workspace([FIXTURES])
    loaded = ws.load([str(path)])
    _assert_located(loaded.diagnostics)
    if loaded.ok:
        for result in TestRunner(ws).run(loaded):
            assert result.status in ("pass", "fail", "error")
            _assert_located(result.diagnostics)


@given(text=st.text(max_size=200))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_arbitrary_text_gives_located_diagnostics(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("txt") / "any.rules"
    path.write_text("ruleset t/any@1\n" + text, encoding="utf-8")
    loaded = Workspace([FIXTURES]).load([str(path)])
    _assert_located(loaded.diagnostics)
