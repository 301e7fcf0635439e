"""One evaluation set-up for the command line: a loaded composition, a scenario, options, a host.

Also turns text from the command line (an expression, `NAME=VALUE`, call arguments) into checked
and compiled pieces, with diagnostics that point into that text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ruleslang.lang.syntax import ast
from ruleslang.lang import types as T
from ruleslang.lang.eval.context import EvalContext
from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.errors import EvalError
from ruleslang.lang.eval.host import Host
from ruleslang.lang.syntax.parser import parse_expression
from ruleslang.base.source import Source, Span
from ruleslang.lang.check.typecheck import Frame


@dataclass
class Prepared:
    ctx: EvalContext
    env: list


def make_context(loaded, workspace, *, scenario: str | None, seed: int | None, budget: int | None,
                 settings: list[str]) -> EvalContext:
    """A context with the scenario's board (or the map's start), its options and facts, and --set values."""
    from ruleslang.ruletests.runner import TestRunner, load_scenario_for_map

    compiled = loaded.compiled
    state = board = None
    scn = None
    default_map = loaded.ruleset.map[0] if loaded.ruleset.map else None
    if scenario is not None:
        from ruleslang.board.scenario import load_scenario

        scn = load_scenario(scenario, workspace.roots, default_map=default_map)
    elif default_map is not None:
        scn = load_scenario_for_map(default_map, workspace.roots)
    if scn is not None:
        from ruleslang.board.queries import BoardQueries
        from ruleslang.board.state import GameState

        state = GameState.from_scenario(scn)
        board = BoardQueries(state)
    host = Host(seed if seed is not None else 0)
    if budget is not None:
        host.reset_budget(budget)
    ctx = EvalContext(compiled, host, state=state, board=board)
    if scn is not None:
        TestRunner(workspace)._apply_scenario_values(ctx, scn)
    for text in settings:
        name, value = parse_setting(text, compiled)
        ctx.options[name] = value
    return ctx


def parse_setting(text: str, compiled) -> tuple[str, Any]:
    """`NAME=VALUE` for --set: VALUE is JSON or a bare name, converted to the option's type."""
    source = Source("<--set>", text)
    if "=" not in text:
        raise DiagnosticError(error("U101", f"--set takes NAME=VALUE, found '{text}'", Span(source, 0, len(text))))
    name, raw = text.split("=", 1)
    sym = compiled.symbols.get(name.strip())
    if sym is None or sym.kind != "option":
        from ruleslang.base.suggest import close_matches

        options = [n for n, s in compiled.symbols.items() if s.kind == "option"]
        close = close_matches(name.strip(), options, n=3)
        raise DiagnosticError(error(
            "U102", f"'{name.strip()}' is not an option of these rulesets", Span(source, 0, len(name)),
            hint=f"did you mean {', '.join(close)}?" if close else
            ("options: " + ", ".join(options) if options else "these rulesets declare no options")))
    try:
        value = compiled.convert_data(parse_json_or_name(raw), sym.type, f"option {sym.name}")
    except EvalError as e:
        raise DiagnosticError(error("U103", e.message, Span(source, len(name) + 1, len(text))))
    return sym.name, value


def parse_json_or_name(text: str) -> Any:
    """A command-line value: JSON when it parses as JSON, otherwise the text itself (a name)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def compile_expression(loaded, text: str):
    """Parse, check and compile an expression typed on the command line."""
    source = Source("<expression>", text)
    node = parse_expression(source)
    program = loaded.program
    from ruleslang.lang.check.typecheck import TypeChecker

    diags: list = []
    tc = TypeChecker(program.scope, program.info, diags, program.formula_types)
    frame = Frame(id(node), program.info)
    tc.frame = frame
    tc.check(node)
    if diags:
        raise DiagnosticError(diags)
    return node, frame.size


def convert_argument(compiled, text: str, index: int, param: ast.Param, ptype: T.Type):
    """A `call` argument (JSON or a name) as a value of the parameter's type."""
    source = Source(f"<argument {index}>", text)
    span = Span(source, 0, len(text))
    raw = parse_json_or_name(text)
    try:
        value = compiled.convert_data(raw, ptype, f"argument {param.name.text}")
    except EvalError as e:
        raise DiagnosticError(error("U104", e.message, span))
    narrow = T.SPACE_KIND_OF_NAME.get(getattr(param.type, "name", ""))
    gm = compiled.scope.game_map
    if narrow is not None and gm is not None and value is not None:
        kind = gm.space(value.name).kind
        if kind != narrow:
            want = "a territory (land)" if narrow == "land" else "a sea zone"
            raise DiagnosticError(error("U104", f"argument {param.name.text}: {value.name} is not {want}", span))
    return value
