"""Check: a composed ruleset made into a typed, ordered Program, with every problem reported.

The checker runs its named stages in order over one shared `CheckState`; `STAGES` is the list, and
each stage lives in the module named for what it checks. Every stage runs, so one check reports
all it finds. The host runtime's procedures and actions come in as `Capabilities`: the language
does not know them by itself. What it makes, `Program`, is in program.py (a kept program is
read back without the stages).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from ruleslang.lang.check import advice, declarations, invariants, overrides, phases, removals, rule_tests, values
from ruleslang.lang.check.capabilities import Capabilities
from ruleslang.lang.check.program import Program
from ruleslang.lang.check.state import CheckState
from ruleslang.lang.compose.composition import Ruleset


class Stage(NamedTuple):
    """One named stage of the checker."""

    name: str
    run: Callable[[CheckState], None]


STAGES: tuple[Stage, ...] = (
    Stage("enumerations: players, sides, spaces, unit types, tags, declared enums", declarations.enumerations),
    Stage("symbols: every definition's name", declarations.symbols),
    Stage("declared types", declarations.declared_types),
    Stage("unit and space attributes", declarations.attributes),
    Stage("value definitions in order of use, without recursion", values.order),
    Stage("signatures of formulas, modifier lists, constants, counters and tables", values.signatures),
    Stage("formulas, modifier lists, constants, tables and die tables", values.bodies),
    Stage("units", declarations.units),
    Stage("options, facts and counters", declarations.options_facts_counters),
    Stage("phases, steps, sequences, hooks and constraints", phases.check),
    Stage("phases that run each other", phases.run_cycles),
    Stage("invariants (check declarations)", invariants.check),
    Stage("rule tests", rule_tests.check),
    Stage("advice for bots, against the decisions it names", advice.check_advice),
    Stage("overrides keep their definition's parameters and result", overrides.check),
    Stage("removed definitions still in use", removals.still_used),
)


def check_ruleset(ruleset: Ruleset, game_map, capabilities: Capabilities,
                  defined_in: Callable[[str], list[str]] | None = None) -> Program:
    """Check a composed ruleset (with its map, or None) against what the host runtime provides.

    `capabilities` is the host's (`Capabilities.none()` for none: a `runtime NAME` phase is then R232).
    `defined_in(name)`, when given, names the rulesets outside the composition that define a name it
    lacks (for the hint "add `uses ...`"). The diagnostics are in `program.diagnostics`.
    """
    state = CheckState(ruleset, game_map, capabilities)
    state.tc.defined_in = defined_in
    for stage in STAGES:
        stage.run(state)
    return Program(ruleset, state.scope, state.info, state.formula_types, state.order, state.tables,
                   state.decision_ids, capabilities, state.diags)
