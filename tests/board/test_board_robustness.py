"""Whatever data arrives, map and scenario loading answer with diagnostics, never a traceback."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ruleslang.board.mapdata import map_from_data
from ruleslang.board.scenario import scenario_from_data
from ruleslang.base.diagnostics import DiagnosticError
from ruleslang.base.source import Source, span_at
from ruleslang.base.yamlio import Positions, load_yaml
from board_fixtures import aar, aar_queries, aar_state, facts, reference, roots, tiny  # noqa: F401,F811 (pytest fixtures, used by name)

NAMES = st.sampled_from(["UK", "Germany", "Germans", "SZ 6", "6 Sea Zone", "A", "P", "land", "sea", "main", "x"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 40), NAMES)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(NAMES, inner, max_size=4)), max_leaves=12)

MAP_KEYS = ["name", "players", "spaces", "connections", "canals", "start", "sides", "turn_order"]
SCENARIO_KEYS = ["control", "units", "factories", "economy", "turn", "options", "facts", "counters", "setup"]

SPAN = span_at(Source("<generated>", "generated data"), 1, 1, 9)


def answer(build) -> None:
    try:
        build()
    except DiagnosticError as exc:
        assert all(d.code.startswith("D") for d in exc.diagnostics)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(MAP_KEYS), VALUES, max_size=8))
def test_any_map_data(data):
    answer(lambda: map_from_data(data, Positions.everywhere(SPAN)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=st.dictionaries(st.sampled_from(SCENARIO_KEYS), VALUES, max_size=6))
def test_any_scenario_data(roots, data):
    answer(lambda: scenario_from_data({"map": "aar", **data}, Positions.everywhere(SPAN), None, roots))


YAML_PIECES = st.sampled_from(list("ab:-[]{}&*!|>'\"#\n \t?,%@`\\\x00é1.~") + [
    "- ", ": ", "\n  ", "!!str ", "&a ", "*a", "<<: ", "---\n", "%YAML 1.1\n", "!!binary ", "2001-01-01"])


@settings(max_examples=300, deadline=None)
@given(st.lists(YAML_PIECES, max_size=40).map("".join))
def test_any_yaml_text(text):
    try:
        load_yaml(Source("fuzz.yaml", text))
    except DiagnosticError as exc:
        assert all(d.code in ("D601", "D602", "D603", "D604", "D606", "D607") for d in exc.diagnostics)
