"""One evaluation set-up for the command line: a loaded composition, a scenario, options, a host.

The scenario and the `--set` values are joined to the program by binding/bind.py. This module
also turns text from the command line (an expression, call arguments) into checked and compiled
pieces, with diagnostics that point into that text.
"""

from __future__ import annotations

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.errors import EvalError
from ruleslang.base.source import Source, Span
from ruleslang.binding import bind
from ruleslang.lang import types as T
from ruleslang.lang.check.typecheck import Frame, TypeChecker
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.syntax.declarations import Param
from ruleslang.lang.syntax.parser import parse_expression


def make_context(loaded, workspace, *, scenario: str | None, seed: int | None, budget: int | None,
                 settings: list[str]) -> EvalContext:
    """A context for `loaded`: the scenario's board (or the map's start), its options and facts, --set values."""
    return bind.make_context(loaded.compiled, workspace.loader, scenario=scenario, seed=seed, budget=budget,
                             settings=settings)


def compile_expression(loaded, text: str):
    """Parse, check and compile an expression typed on the command line."""
    source = Source("<expression>", text)
    node = parse_expression(source)
    program = loaded.program
    program.info.forget(node)  # an earlier expression's entries under ids Python gave this one
    diags: list = []
    tc = TypeChecker(program.scope, program.info, diags, program.formula_types)
    frame = Frame(id(node), program.info)
    tc.frame = frame
    tc.check(node)
    if diags:
        raise DiagnosticError(diags)
    return node, frame.size


def convert_argument(compiled, text: str, index: int, param: Param, ptype: T.Type):
    """A `call` argument (JSON or a name) as a value of the parameter's type."""
    source = Source(f"<argument {index}>", text)
    span = Span(source, 0, len(text))
    try:
        value = compiled.convert_data(bind.parse_json_or_name(text), ptype, f"argument {param.name.text}")
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
