"""Evaluating a ruleset's `check` declarations (its invariants) for `ruleslang check`.

`ruleslang check` also reports what is wrong with its tests' scenarios (without running them).
Checks run against the starting position of the ruleset's map when it names one, else with no
board. A failed check is a C401 diagnostic with the check's own severity.
"""

from __future__ import annotations

from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, Related, Severity, error
from ruleslang.base.errors import EvalError
from ruleslang.binding.bind import load_scenario_for_map
from ruleslang.board.queries import BoardQueries
from ruleslang.board.state import GameState
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host
from ruleslang.lang.eval.statements import run_checks
from ruleslang.ruletests.runner import check_test_scenarios


def evaluate_checks(loaded, workspace) -> list[Diagnostic]:
    """The ruleset's `check` declarations, evaluated, and the problems of its tests' scenarios."""
    return check_test_scenarios(loaded, workspace) + _invariants(loaded, workspace)


def _invariants(loaded, workspace) -> list[Diagnostic]:
    compiled = loaded.compiled
    board = state = None
    if loaded.ruleset.map is not None:
        try:
            scenario = load_scenario_for_map(loaded.ruleset.map[0], workspace.roots)
        except DiagnosticError as exc:
            return exc.diagnostics
        state = GameState.from_scenario(scenario)
        board = BoardQueries(state)
    out: list[Diagnostic] = []
    for key, cd in loaded.ruleset.checks.items():
        decl = cd.decl
        ctx = EvalContext(compiled, Host(0), state=state, board=board)
        severity = Severity.WARNING if decl.severity == "warning" else Severity.ERROR
        try:
            refusals = run_checks(ctx, decl)
        except EvalError as e:
            out.append(error("C402", f"check '{decl.title}' could not be evaluated: {e.message}",
                             e.span or decl.name.span, hint=e.hint))
            continue
        for r in refusals:
            message = r.message if r.message.startswith("check failed") else f"check '{decl.title}': {r.message}"
            out.append(Diagnostic("C401", message, r.span, severity,
                                  (Related(decl.name.span, "the check is declared here"),)))
    return out
