"""Rule tests: the worked examples a ruleset carries, run and reported PASS / FAIL / ERROR.

A test's setup lines (scenario, option, answer, seed) apply first, wherever they are written;
then its other lines run in order: `let`, `run PHASE [for PLAYER]`, the `expect` lines, and
`battle at ... [from ...]` / `next round` (the battle itself: ruletests/battles.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, Related, error
from ruleslang.base.errors import EvalError
from ruleslang.base.paths import inside
from ruleslang.base.yamlio import Positions
from ruleslang.binding.bind import bind_scenario, load_scenario_for_map
from ruleslang.binding.scenario_check import scenario_problems
from ruleslang.board.queries import BoardQueries
from ruleslang.board.scenario import load_scenario, scenario_from_data
from ruleslang.board.state import GameState
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host
from ruleslang.lang.eval.statements import check_action, run_procedure
from ruleslang.lang.syntax.expressions import (BoolLit, Compare, DecimalLit, IntLit, ListLit, Name, NoneLit,
                                               RecordLit, SetLit, StringLit, Unary)
from ruleslang.lang.syntax.statements import Let
from ruleslang.lang.syntax.declarations import (Expect, ExpectAction, ExpectError, TestAnswer, TestBattle,
                                                TestConstraintsOnly, TestDecl, TestFact, TestNextRound, TestOption,
                                                TestRun, TestScenario, TestSeed)
from ruleslang.ruletests.moves import do_action, move_refusals
from ruleslang.lang.syntax.unparse import unparse
from ruleslang.lang.values import format_value
from ruleslang.ruletests.battles import run_battle_step, start_battle


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class

    ruleset: str
    title: str
    span: Any
    status: str  # "pass", "fail" or "error"
    message: str = ""
    expected: str | None = None
    actual: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    rolls: list[int] = field(default_factory=list)  # the dice a failing test rolled, in order

    def to_json(self) -> dict:
        out = {"ruleset": self.ruleset, "test": self.title, "status": self.status,
               "file": self.span.source.display_name, "line": self.span.line, "column": self.span.column}
        if self.message:
            out["message"] = self.message
        if self.expected is not None:
            out["expected"] = self.expected
            out["actual"] = self.actual
        if self.diagnostics:
            out["diagnostics"] = [d.to_json() for d in self.diagnostics]
        if self.rolls:
            out["rolls"] = self.rolls
        return out


class _Failed(Exception):
    def __init__(self, span, message, expected=None, actual=None):
        super().__init__(message)
        self.span, self.message, self.expected, self.actual = span, message, expected, actual


def literal_data(node) -> Any:
    """A record literal written in a test (`with {control: {...}}`) as plain data for the scenario."""
    if isinstance(node, RecordLit):
        return {ident.text: literal_data(v) for ident, v in node.fields}
    if isinstance(node, SetLit) and not node.items:
        return {}  # in data, `{}` is an empty mapping (as in YAML)
    if isinstance(node, (ListLit, SetLit)):
        return [literal_data(i) for i in node.items]
    if isinstance(node, StringLit) and node.is_plain:
        return node.plain
    if isinstance(node, Name):
        return node.id
    if isinstance(node, IntLit):
        return node.value
    if isinstance(node, Unary) and isinstance(node.operand, IntLit):
        return -node.operand.value if node.op == "-" else node.operand.value
    if isinstance(node, BoolLit):
        return node.value
    if isinstance(node, NoneLit):
        return None
    if isinstance(node, DecimalLit):
        return float(node.value)
    raise DiagnosticError(error("D630", "scenario changes are data: numbers, texts, names, true/false, lists "
                                        "and {records}", node.span))


def _positions_for(node):
    """Data paths of a record literal mapped to the spans of their values (for located errors)."""
    positions = Positions(node.span.source, node.span)

    def walk(n, path, key_span=None):
        positions.add(path, n.span, key_span)
        if isinstance(n, RecordLit):
            for ident, v in n.fields:
                walk(v, path + (ident.text,), ident.span)
        elif isinstance(n, (ListLit, SetLit)):
            for i, item in enumerate(n.items):
                walk(item, path + (i,))
    walk(node, ())
    return positions


class TestRunner:
    """Runs the tests of loaded rulesets through one workspace (for scenario lookup)."""

    __test__ = False  # not a pytest test class

    def __init__(self, workspace):
        self.workspace = workspace

    def run(self, loaded, keyword: str | None = None) -> list[TestResult]:
        """The results of the ruleset's tests; with `keyword`, only those whose title holds it (any case)."""
        wanted = keyword.casefold() if keyword else None
        return [self.run_one(loaded, test) for test in loaded.ruleset.tests
                if wanted is None or wanted in test.title.casefold()]

    def run_one(self, loaded, test: TestDecl) -> TestResult:
        ref = loaded.ruleset.ref
        # moves are asked of the movement engine too, unless the test says `constraints only`
        self.engine_moves = not any(isinstance(x, TestConstraintsOnly) for x in test.lines)
        ctx = None
        try:
            ctx, env = self._setup(loaded, test)
            for line in test.lines:
                self._line(ctx, env, line)
        except _Failed as f:
            # the dice the test rolled, so a failure of a seeded test can be read against them
            rolls = [r.value for r in ctx.host.rolls] if ctx is not None else []
            return TestResult(ref, test.title, f.span, "fail", f.message, f.expected, f.actual, rolls=rolls)
        except EvalError as e:
            return TestResult(ref, test.title, e.span or test.name.span, "error", e.message,
                              diagnostics=[e.diagnostic()])
        except DiagnosticError as e:
            first = e.diagnostics[0]
            return TestResult(ref, test.title, first.span or test.name.span, "error", first.message,
                              diagnostics=e.diagnostics)
        except RecursionError:
            return TestResult(ref, test.title, test.name.span, "error", "evaluation nested too deeply")
        return TestResult(ref, test.title, test.name.span, "pass")

    # ------------------------------------------------------------------------- setup

    def _setup(self, loaded, test: TestDecl):
        compiled = loaded.compiled
        seed = 0
        scenario_line = None
        answers: dict[str, list] = {}
        for line in test.lines:
            if isinstance(line, TestSeed):
                seed = line.seed
            elif isinstance(line, TestScenario):
                if scenario_line is not None:
                    raise DiagnosticError(error("D631", "a test names one scenario", line.span))
                scenario_line = line
        host = Host(seed)
        state = board = None
        scenario = self._scenario(loaded, test, scenario_line)
        if scenario is not None:
            state = GameState.from_scenario(scenario)
            board = BoardQueries(state)
        holder: dict = {}
        ctx = EvalContext(compiled, host, state=state, board=board,
                          decide=lambda *a: self._answer(answers, holder["env"], *a))
        if scenario is not None:
            bind_scenario(ctx, scenario, self.workspace.loader)
        env: list[Any] = [ctx] + [None] * (compiled.info.frames.get(id(test), 1) - 1)
        holder["env"] = env
        ec = compiled.expr_compiler
        for line in test.lines:
            if isinstance(line, TestOption):
                ctx.options[line.name.text] = ec.expr(line.value)(env)
            elif isinstance(line, TestFact):
                ctx.facts[line.name.text] = ec.expr(line.value)(env)
            elif isinstance(line, TestAnswer):
                # evaluated when the decision is asked, so an answer may use the test's lets
                answers.setdefault(line.target.text, []).append((line, ec.expr(line.value)))
        return ctx, env

    def _scenario(self, loaded, test, line):
        roots = self.workspace.roots
        default_map = loaded.ruleset.map[0] if loaded.ruleset.map else None
        if line is None:
            if default_map is None:
                return None
            return load_scenario_for_map(default_map, roots)
        ref = line.ref
        folder = test.span.source.name
        base_dir = Path(folder).parent
        try:
            if ref.is_path:
                path = (base_dir / ref.text).resolve()
                allowed = self.workspace.loader.allowed
                if not inside(path, allowed):
                    raise DiagnosticError(error("S005", f"scenario '{ref.text}' lies outside the ruleset roots",
                                                ref.span))
                scenario = load_scenario(str(path), roots, default_map=default_map, span=ref.span)
            else:
                scenario = load_scenario(ref.text, roots, default_map=default_map, span=ref.span)
        except DiagnosticError as exc:
            if all(d.span is not None and d.span.source is ref.span.source for d in exc.diagnostics):
                raise  # already on the test's line (an unknown scenario)
            raise DiagnosticError([error("D632", f"scenario '{ref.text}' cannot be used", ref.span)]
                                  + exc.diagnostics)
        if line.changes is not None:
            data = literal_data(line.changes)
            positions = _positions_for(line.changes)
            scenario = scenario_from_data(data, positions, line.changes.span.source, roots, base=scenario)
        return scenario

    def _answer(self, answers, env, decision_id, player, options, mode, count, prompt):
        queue = answers.get(decision_id)
        if not queue:
            raise EvalError("E540", f"decision {decision_id} ({prompt}) has no answer left in this test",
                            hint=f"add: answer {decision_id} = ...")
        line, value = queue.pop(0)
        try:
            return value(env)
        except EvalError as e:
            raise e.at(line.span)

    # -------------------------------------------------------------------------- lines

    def _line(self, ctx, env, line) -> None:
        ec = ctx.compiled.expr_compiler
        if isinstance(line, TestBattle):
            if ctx.state is None:
                raise EvalError("E530", "a battle needs a board: give a scenario", line.span)
            zone = ec.expr(line.sea_zone)(env).name if line.sea_zone is not None else None
            start_battle(ctx, ec.expr(line.space)(env).name, ec.expr(line.attacker)(env).name, zone, line.span)
            ctx.state.current_player = ctx.battle.attacker
        elif isinstance(line, TestNextRound):
            if ctx.battle is None:
                raise EvalError("E535", "'next round' needs a battle: write 'battle at SPACE by PLAYER' first", line.span)
            ctx.battle.end_round()
            ctx.battle.round += 1
        elif isinstance(line, Let):
            env[ctx.compiled.info.slots[id(line.name)]] = ec.expr(line.value)(env)
        elif isinstance(line, TestRun):
            if line.player is not None:
                player = ec.expr(line.player)(env)
                if ctx.state is None:
                    raise EvalError("E530", "running a phase for a player needs a game: give a scenario", line.span)
                ctx.state.current_player = player.name
            ctx.host.reset_budget()
            if ctx.battle is not None:
                run_battle_step(ctx, line.phase.text, span=line.span)
            else:
                run_procedure(ctx, line.phase.text, span=line.span)
        elif isinstance(line, Expect):
            self._expect(ctx, env, line)
        elif isinstance(line, ExpectError):
            ctx.host.reset_budget()
            try:
                if isinstance(line.expr, TestRun):
                    self._line(ctx, env, line.expr)
                    value = "a phase that ran to its end"
                else:
                    value = ec.expr(line.expr)(env)
            except EvalError as e:
                if line.pattern == e.code or line.pattern in e.message:
                    return
                raise _Failed(line.span, f"expected an error matching '{line.pattern}'",
                              line.pattern, f"error {e.code}: {e.message}")
            shown = value if isinstance(value, str) and isinstance(line.expr, TestRun) else \
                f"the value {format_value(value)}"
            raise _Failed(line.span, f"expected an error matching '{line.pattern}'", line.pattern, shown)
        elif isinstance(line, ExpectAction):
            args = [ec.expr(a)(env) for a in line.args]
            refusals = [r.message for r in check_action(ctx, line.action.text, args)]
            if line.action.text == "bomb":  # a raid is a move too: both actions' constraints apply
                refusals += [r.message for r in check_action(ctx, "move", args)]
            if line.action.text in ("move", "bomb") and self.engine_moves:
                refusals = move_refusals(ctx, args, line.span, bomb=line.action.text == "bomb") + refusals
            call = f"{line.action.text}({', '.join(unparse(a) for a in line.args)})"
            if line.allowed and refusals:
                raise _Failed(line.span, f"expected {call} to be allowed", "allowed",
                              "refused: " + "; ".join(refusals))
            if line.apply:
                do_action(ctx, line.action.text, args, line.span)
            if not line.allowed:
                if not refusals:
                    raise _Failed(line.span, f"expected {call} to be refused", "refused", "allowed")
                if line.pattern is not None and not any(line.pattern in r for r in refusals):
                    raise _Failed(line.span, f"expected a refusal mentioning '{line.pattern}'", line.pattern,
                                  "; ".join(refusals))

    def _expect(self, ctx, env, line: Expect) -> None:
        ec = ctx.compiled.expr_compiler
        expr = line.expr
        ctx.host.reset_budget()
        if isinstance(expr, Compare) and expr.op == "==":
            actual = ec.expr(expr.left)(env)
            expected = ec.expr(expr.right)(env)
            if actual != expected:
                raise _Failed(line.span, f"{unparse(expr.left)} is not {unparse(expr.right)}",
                              format_value(expected), format_value(actual))
            return
        value = ec.expr(expr)(env)
        if value is not True:
            detail = None
            if isinstance(expr, Compare):
                detail = (f"{unparse(expr.left)} = {format_value(ec.expr(expr.left)(env))}, "
                          f"{unparse(expr.right)} = {format_value(ec.expr(expr.right)(env))}")
            raise _Failed(line.span, f"expected {unparse(expr)}", "true", detail or format_value(value))


def check_test_scenarios(loaded, workspace) -> list[Diagnostic]:
    """The problems of each test's scenario, found without running the test (for `check`).

    Each scenario is loaded, its `with {...}` record applied and the result checked against the
    rulesets, as a run of the test would; each problem also points at the test's scenario line.
    """
    runner = TestRunner(workspace)
    out: list[Diagnostic] = []
    for test in loaded.ruleset.tests:
        line = next((x for x in test.lines if isinstance(x, TestScenario)), None)
        if line is None:
            continue
        try:
            scenario = runner._scenario(loaded, test, line)
            problems = scenario_problems(loaded.compiled, scenario, workspace.loader)
        except DiagnosticError as exc:
            problems = exc.diagnostics
        used = Related(line.ref.span, f"the scenario of test \"{test.title}\"")
        # a problem in a scenario file also says which test uses it; one in the test's own
        # `with {...}` is already on the test's line
        out.extend(d if d.span is not None and d.span.source is line.span.source else
                   replace(d, related=d.related + (used,)) for d in problems)
    return out


def summary_line(results: list[TestResult]) -> str:
    passed = sum(1 for r in results if r.status == "pass")
    return f"{passed} passed, {len(results) - passed} failed"


def results_json(results: list[TestResult]) -> dict:
    return {"tests": [r.to_json() for r in results], "passed": sum(r.status == "pass" for r in results),
            "failed": sum(r.status != "pass" for r in results), "summary": summary_line(results)}
