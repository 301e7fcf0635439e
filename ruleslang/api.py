"""ruleslang's Python API: what a notebook or a script needs, in a few calls.

    import ruleslang

    rules = ruleslang.load("family/house-rules@1")      # one REF or several
    rules.call("some_formula", "A Territory")            # a definition called with Python values
    rules.eval('some_formula("A Territory") + 1')
    rules.exact("some_roll(3)")                          # [(0, Fraction(1, 2)), (1, Fraction(1, 6)), ...]
    game = rules.play(seed=7, rounds=3, agent="random")
    game.result["winner"], len(game.events)
    ruleslang.check("family/name@2")                     # [] when clean
    ruleslang.diff("family/name@1", "family/name@2")["changes"]

docs/api.md shows it on the shipped rulesets.

Values come back as plain Python data (numbers, texts, lists, dicts; a space or a player as its
name; exact probabilities as `fractions.Fraction`). Every problem a user can cause raises
`RulesError`, whose `diagnostics` carry the code, file, line and column, as the command line
prints them. The command line is a client of this module: `eval`, `call`, `explain`, `check`, `diff`,
`list`, `test`, a new game's set-up, a save and a resumed game run here and the CLI only parses
arguments and renders what comes back (`Rules.evaluate`, `Rules.invoke`, `check_each`, `ruleset_diff`,
`run_tests` give the runtime's own values for that).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ruleslang.base import reads
from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, error, sort_diagnostics
from ruleslang.base.errors import EvalError
from ruleslang.base.source import Source, Span
from ruleslang.base.suggest import did_you_mean
from ruleslang.lang.eval import exact as exact_values
from ruleslang.lang.eval.operations import NO_VALUE
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import Call
from ruleslang.lang.syntax.declarations import NamedType, Param
from ruleslang.lang.compose.loader import parse_ref
from ruleslang.lang.syntax.unparse import unparse_type
from ruleslang.lang.values import to_json
from ruleslang.workspace.compositions import Loaded, Workspace
from ruleslang.workspace.kept import Keeper, SpanTable, decode_diagnostic, encode_diagnostic
from ruleslang.workspace.session import compile_expression, convert_argument, make_context

if TYPE_CHECKING:
    # start-up time: the diff and the rule-test machinery load with the commands that use them (types only here)
    from ruleslang.lang.diff import RulesetDiff
    from ruleslang.ruletests.coverage import CoverageReport
    from ruleslang.ruletests.runner import TestResult

RulesError = DiagnosticError  # raised with `.diagnostics` for anything a user can get wrong

__all__ = ["RulesError", "Rules", "PlayedGame", "Outcome", "Checked", "Listed", "TestRun", "ResumedGame", "load",
           "check", "check_each", "diff", "ruleset_diff", "new_game", "save", "resume", "list_rulesets", "run_tests",
           "workspace_for"]

# what `call` can name: the definitions that give a value (the first three also have exact forms)
CALLABLE_KINDS = ("formula", "modifiers", "constant", "table", "die table", "counter", "option", "fact")


def load(*refs: str, rulesets: Sequence[str | Path] = (), workspace: Workspace | None = None) -> "Rules":
    """A composition of rulesets (`family/name@N`, `family/name`, a `.rules` path; `REF!` marks the
    version that wins), parsed, checked and compiled; `rulesets` are folders searched first
    (`workspace`, an open one such as the command line's, instead of `rulesets`)."""
    if not refs:
        raise RulesError(error("U100", "name at least one ruleset: ruleslang.load(\"aar/base@1\")"))
    ws = workspace if workspace is not None else Workspace(list(rulesets))
    loaded = ws.load(list(refs))
    if not loaded.ok:
        raise RulesError(loaded.diagnostics)
    return Rules(list(refs), ws, loaded)


def check(*refs: str, rulesets: Sequence[str | Path] = ()) -> list[Diagnostic]:
    """The diagnostics of a composition, its `check` invariants' included (errors and warnings), as
    `ruleslang check` reports them; an empty list when it is clean."""
    workspace = Workspace(list(rulesets))
    return _diagnostics_of(workspace.load(list(refs)), workspace)


@dataclass
class Checked:
    """One ruleset checked on its own: its REF, its resolved composition (None when it does not
    resolve) and its diagnostics, invariants' included."""

    ref: str
    composition: Any
    diagnostics: list[Diagnostic]


def check_each(refs: Sequence[str], *, rulesets: Sequence[str | Path] = (),
               workspace: Workspace | None = None, kept: bool = False) -> list[Checked]:
    """Each REF checked on its own, as `ruleslang check REF...` does. With `kept`, a REF whose files
    and the package are unchanged since a check kept its diagnostics gets them back without being
    checked again (its `composition` is then None: nothing was resolved)."""
    ws = workspace if workspace is not None else Workspace(list(rulesets))
    out = []
    keeper = Keeper(ws.roots) if kept else None
    for ref in refs:
        entry = keeper.entry("check", ref) if keeper is not None else None
        replayed = _replay(entry.load()) if entry is not None else None
        if replayed is not None:
            out.append(Checked(ref, None, replayed))
            continue
        with reads.recording() as files:
            loaded = ws.load([ref])
            diagnostics = _diagnostics_of(loaded, ws)
        if entry is not None:
            spans = SpanTable()
            entry.save(files, {"diagnostics": [encode_diagnostic(d, spans) for d in diagnostics],
                               "sources": spans.sources})
        out.append(Checked(ref, loaded.ruleset, diagnostics))
    return out


def _replay(result) -> list[Diagnostic] | None:
    """The diagnostics a kept check holds (None when it holds none or does not decode)."""
    if result is None:
        return None
    try:
        spans = SpanTable(result["sources"])
        return [decode_diagnostic(d, spans) for d in result["diagnostics"]]
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def _diagnostics_of(loaded: Loaded, workspace: Workspace) -> list[Diagnostic]:
    # start-up time: the invariants run rule-test machinery (the runtime's kit) that `call` never needs
    from ruleslang.ruletests.invariants import evaluate_checks

    return list(loaded.diagnostics) + (evaluate_checks(loaded, workspace) if loaded.ok else [])


def diff(old: str, new: str, *, rulesets: Sequence[str | Path] = ()) -> dict:
    """The semantic difference between two rulesets, as `ruleslang diff --format json` gives it."""
    return ruleset_diff(old, new, rulesets=rulesets).to_json()


def ruleset_diff(old: str, new: str, *, rulesets: Sequence[str | Path] = (),
                 workspace: Workspace | None = None) -> RulesetDiff:
    """The semantic difference between two rulesets as an object (`to_text()`, `to_json()`)."""
    ws = workspace if workspace is not None else Workspace(list(rulesets))
    # start-up time: the diff loads with the commands that diff
    from ruleslang.lang.diff import diff_rulesets

    return diff_rulesets(ws.composer.resolve_ref(old), ws.composer.resolve_ref(new))


def new_game(refs: Sequence[str], *, seed: int = 1, rounds: int = 10, agent: str = "heuristic",
             players: dict[str, str] | None = None, scenario: str | None = None, settings: Sequence[str] = (),
             orders: str | None = None, bids: dict[str, int] | None = None, scenario_text: str | None = None,
             rulesets: Sequence[str | Path] = (), workspace: Workspace | None = None):
    """A new game set up and not yet played, as `ruleslang play` starts one: run it with
    `game.run(rounds, progress=...)`. `scenario_text` is the scenario file's text when it was read already;
    `orders` a YAML file for scripted agents; `bids` IPCs by side or power."""
    # start-up time: the runtime loads only when a game is played (the command line imports this module)
    from ruleslang.runtime import saves

    ws = workspace if workspace is not None else Workspace(list(rulesets))
    setup = saves.GameSetup(refs=list(refs), scenario=scenario, seed=seed, rounds=rounds,
                            players=dict(players or {}), default_agent=agent, settings=list(settings),
                            orders=orders, bids=dict(bids or {}))
    return saves.build_game(ws, setup, scenario_text=scenario_text, kept=True)


def workspace_for(refs: Sequence[str], *, rulesets: Sequence[str | Path] = ()) -> tuple[Workspace, list[str]]:
    """The workspace and the REFs that `refs` stand for, as `check` and `test` take them: a folder
    stands for the rulesets in it and is searched first (a root laid out as family/name@N.rules, or
    one family's folder; S002 when it holds none); no REF at all, for every ruleset found."""
    folders = [ref for ref in refs if _is_folder(ref)]
    ws = Workspace([*[_root_of(Path(f)) for f in folders], *rulesets])
    if not refs:
        return ws, [ref for ref, _ in ws.loader.all_rulesets()]
    out: list[str] = []
    for ref in refs:
        if ref not in folders:
            out.append(ref)
            continue
        inside = Path(ref).resolve()
        found = [r for r, path in ws.loader.all_rulesets() if inside in path.resolve().parents]
        if not found:
            raise RulesError(error("S002", f"'{ref}' is a folder with no rulesets in it", file=ref,
                                   hint="a folder of rulesets holds family/name@N.rules files, or family "
                                        "folders of them"))
        out.extend(found)
    return ws, out


def _is_folder(ref: str) -> bool:
    """Whether a REF names a folder (a REF is otherwise a name or a .rules file)."""
    return parse_ref(ref) is None and Path(ref).is_dir()


def _root_of(folder: Path) -> Path:
    """The ruleset root a folder belongs to: itself, or its parent when it is one family's folder."""
    return folder.parent if any(folder.glob("*.rules")) else folder


@dataclass
class Listed:
    """A ruleset found in the roots: its REF, its title ("" when it has none), its file, and the
    diagnostics of its header when it does not parse."""

    ref: str
    title: str
    path: Path
    diagnostics: list[Diagnostic]


def list_rulesets(*, rulesets: Sequence[str | Path] = (), workspace: Workspace | None = None) -> list[Listed]:
    """Every ruleset found (`rulesets` folders first, then the shipped ones), sorted by REF, as
    `ruleslang list` shows them. Only each file's header is read."""
    ws = workspace if workspace is not None else Workspace(list(rulesets))
    out = []
    for ref, path in ws.loader.all_rulesets():
        try:
            out.append(Listed(ref, ws.loader.header(path).title or "", path, []))
        except DiagnosticError as exc:
            out.append(Listed(ref, "", path, list(exc.diagnostics)))
    return out


@dataclass
class TestRun:
    """The rule tests of some rulesets run: a `TestResult` per test (`status` pass, fail or error,
    `title`, `ruleset`, `span`, `message`, `expected`, `actual`, `rolls`) and one failed result for
    each REF that does not check; that REF's `diagnostics`; the resolved `compositions` of those that
    did; and with coverage, what the tests reached (`coverage.to_json()`, `to_text()`)."""

    results: list[TestResult]
    diagnostics: list[Diagnostic]
    compositions: list[Any]
    coverage: CoverageReport | None = None
    cached: set[int] = field(default_factory=set)  # indexes of `results` replayed from an earlier passing run

    @property
    def passed(self) -> bool:
        """Every test passed and every REF checked."""
        return all(r.status == "pass" for r in self.results) and not any(d.is_error for d in self.diagnostics)

    def to_json(self) -> dict:
        """What `ruleslang test --format json` prints."""
        # start-up time: as in run_tests
        from ruleslang.ruletests.runner import results_json

        out = results_json(self.results)
        for index in self.cached:
            out["tests"][index]["cached"] = True
        if self.coverage is not None:
            out["coverage"] = self.coverage.to_json()
        if self.diagnostics:
            out["diagnostics"] = [d.to_json() for d in sort_diagnostics(self.diagnostics)]
        return out


def run_tests(refs: Sequence[str] = (), *, keyword: str | None = None, coverage: bool = False,
              rulesets: Sequence[str | Path] = (), workspace: Workspace | None = None,
              kept: bool = False) -> TestRun:
    """Run the rule tests of each REF (a folder for the rulesets in it, none for every ruleset found),
    those whose title contains `keyword` only; `coverage` records what they reach. A REF that does
    not check is one failed result, never silence. With `kept` (and no coverage), a ruleset whose
    files and the package are as they were when all its tests last passed gets those results back
    without running (`cached` holds their indexes; its composition is then not resolved)."""
    # start-up time: the rule-test machinery (and the runtime's kit it drives) loads for tests alone
    from ruleslang.ruletests.coverage import CoverageReport
    from ruleslang.ruletests.kept import run_tests as run_kept
    from ruleslang.ruletests.runner import TestRunner

    if workspace is None:
        workspace, refs = workspace_for(list(refs), rulesets=rulesets)
    runner = TestRunner(workspace)
    report = CoverageReport() if coverage else None
    keeper = Keeper(workspace.roots) if kept and report is None else None
    run = TestRun([], [], [], report)
    for ref in refs:
        if report is not None:
            loaded = workspace.load([ref])
            done = None
        else:
            done = run_kept(runner, ref, keyword, keeper=keeper)
            loaded = done.loaded
        if done is not None and done.cached:
            run.cached.update(range(len(run.results), len(run.results) + len(done.results)))
            run.results.extend(done.results)
            continue
        if loaded is None or not loaded.ok:
            errors = done.load_errors if done is not None else list(loaded.diagnostics)
            run.diagnostics.extend(errors)
            run.results.append(_unloadable(ref, errors))
            continue
        run.compositions.append(loaded.ruleset)
        run.results.extend(done.results if done is not None else report.run(runner, loaded, keyword))
    return run


def _unloadable(ref: str, diagnostics) -> TestResult:
    """A ruleset that does not check: one failed 'test' in the summary, so it never reads as success."""
    # start-up time: as in run_tests
    from ruleslang.ruletests.runner import TestResult

    first = next((d for d in diagnostics if d.is_error), None)
    # an error with no place in a file (a missing file, a folder) points at the REF as typed
    span = first.span if first is not None and first.span is not None else \
        Span(Source("<command line>", ref), 0, len(ref))
    return TestResult(ref, "(the ruleset does not check; its tests did not run)", span, "error",
                      first.message if first is not None else "the ruleset does not check")


def save(game, path: str | Path, *, scenario_text: str | None = None, finished: bool = False) -> None:
    """Write a game (from `new_game`, or a `ResumedGame`'s `game`) as `play --save` does: a save
    `resume` takes, its description, starting state, every decision and event (written whole or not
    at all). `scenario_text` is the text of the scenario it started from, if any."""
    # start-up time: the runtime loads only when a game is saved or resumed
    from ruleslang.runtime import saves

    saves.write_save(str(path), saves.save_data(game, scenario_text=scenario_text, finished=finished))


class ResumedGame:
    """A saved game set up to go on (`resume`): `game` (its state, summaries and events as a new
    game's), `rounds` (the round it plays to), `scenario_text` (the save's scenario, for new saves),
    and `run()`. Running it plays the saved rounds again from the save's own decisions first: their
    events must be the saved ones (D666, D667 otherwise), then the game goes on with its agents."""

    def __init__(self, game, data: dict, path: str, rounds: int):
        self.game = game
        self.rounds = rounds
        self.scenario_text = data["scenario"]["text"]
        self.saved_rounds = data["rounds_played"]
        self._data = data
        self._path = path

    def run(self, progress=None) -> dict:
        """Play to `rounds`; the result, as `play --format json` prints it. `progress(game, summary,
        saved)` is called after each round, `saved` being True while the re-run is inside the save's
        rounds and they are not all confirmed yet (write nothing over the save then); after the last
        saved round it is False."""
        # start-up time: the runtime loads only when a game is played
        from ruleslang.runtime import saves

        pending = [self.saved_rounds]  # the saved rounds not yet confirmed; None once they all are

        def after_round(game, summary):
            if pending[0] is not None:
                done = len(game.summaries) >= pending[0]
                saves.verify_resumed(self._data, game, self._path, complete=done)
                if done:
                    pending[0] = None
            if progress is not None:
                progress(game, summary, pending[0] is not None)

        try:
            result = self.game.run(self.rounds, progress=after_round)
        except saves.ReplayDivergence as exc:
            raise saves.divergence_error(exc, self._path) from None
        if pending[0] is not None:  # the re-run ended before the saved rounds did
            saves.verify_resumed(self._data, self.game, self._path, complete=True)
        return result


def resume(save: str | Path, *, rounds: int | None = None, agent: str | None = None,
           players: dict[str, str] | None = None, orders: str | None = None,
           rulesets: Sequence[str | Path] = (), workspace: Workspace | None = None) -> ResumedGame:
    """A saved game (`play --save`) set up to go on, as `ruleslang play --resume` does: its own
    rulesets, scenario, options, bids and seed; `rounds` to play to (default: the save's), `agent` and
    `players` for what comes after the saved decisions, `orders` for scripted agents. The save must
    be intact and its rulesets unchanged (D66x)."""
    # start-up time: the runtime loads only when a game is saved or resumed
    from ruleslang.runtime import saves

    path = str(save)
    ws = workspace if workspace is not None else Workspace(list(rulesets))
    data = saves.read_save(path)
    setup = saves.setup_of(data)
    if rounds is not None:
        setup.rounds = rounds
    setup.players.update(players or {})
    if agent:
        setup.default_agent = agent
    setup.orders = orders
    saves.confine_record(ws, setup, path)
    game = saves.build_game(ws, setup, recorded=data["decisions"], scenario_text=data["scenario"]["text"])
    saves.check_rulesets_unchanged(game, data, path)
    return ResumedGame(game, data, path, setup.rounds)


@dataclass
class PlayedGame:
    """A game played to its end: the result, the round summaries and every event, in order."""

    result: dict
    rounds: list[dict]
    events: list[dict]


@dataclass
class Outcome:
    """An evaluation in the runtime's own values, for a renderer such as the command line: `value`,
    or for an exact evaluation `distribution` (its `outcomes` are (value, probability) pairs)."""

    value: Any = None
    distribution: Any = None


class Rules:
    """A loaded composition: call and evaluate its rules, sampled or exactly, and play games under it."""

    def __init__(self, refs: list[str], workspace: Workspace, loaded: Loaded):
        self.refs = refs
        self._workspace = workspace
        self._loaded = loaded

    @property
    def members(self) -> tuple[str, ...]:
        """Every ruleset of the composition (`family/name@N`)."""
        return self._loaded.ruleset.members

    @property
    def composition(self):
        """The resolved composition (what `--show-composition` prints)."""
        return self._loaded.ruleset

    def eval(self, expression: str, *, scenario: str | None = None, seed: int | None = None,
             settings: Sequence[str] = (), budget: int | None = None) -> Any:
        """The value of `expression` (dice sampled with `seed`) on the scenario (default: the map's start);
        `settings` are `NAME=VALUE` option values, as `--set` takes them; `budget` caps evaluation steps."""
        outcome = self.evaluate(expression, scenario=scenario, seed=seed, settings=settings, budget=budget)
        return to_json(outcome.value)

    def exact(self, expression: str, *, scenario: str | None = None, settings: Sequence[str] = (),
              budget: int | None = None) -> list[tuple[Any, Fraction]]:
        """The exact distribution of `expression`: (value, probability) pairs, probabilities as fractions."""
        outcome = self.evaluate(expression, exact=True, scenario=scenario, settings=settings, budget=budget)
        return _fractions(outcome)

    def evaluate(self, expression: str, *, exact: bool = False, scenario: str | None = None,
                 seed: int | None = None, settings: Sequence[str] = (), budget: int | None = None) -> Outcome:
        """`eval` or `exact` as an `Outcome` in the runtime's values (what `ruleslang eval` renders)."""
        node, size = compile_expression(self._loaded, expression)
        ctx = self._context(scenario, seed, settings, budget)
        env = [ctx] + [None] * (size - 1)
        compiled = self._loaded.compiled
        if exact:
            return _run(lambda: Outcome(distribution=compiled.exact_compiler.expr(node)(env).to_dist()))
        return _run(lambda: Outcome(value=compiled.expr_compiler.expr(node)(env)))

    def call(self, name: str, *args: Any, scenario: str | None = None, seed: int | None = None,
             settings: Sequence[str] = (), budget: int | None = None) -> Any:
        """Call the definition `name` (a formula, modifier list, constant, table, die table, counter,
        option or fact) with Python values (a space or player by its name, a record as a dict), as
        `ruleslang call` does with JSON arguments."""
        outcome = self.invoke(name, args, scenario=scenario, seed=seed, settings=settings, budget=budget)
        return to_json(outcome.value)

    def call_exact(self, name: str, *args: Any, scenario: str | None = None, settings: Sequence[str] = (),
                   budget: int | None = None) -> list[tuple[Any, Fraction]]:
        """The exact distribution of a call (`ruleslang call --exact`): (value, probability) pairs."""
        return _fractions(self.invoke(name, args, exact=True, scenario=scenario, settings=settings,
                                      budget=budget))

    def invoke(self, name: str, args: Sequence[Any], *, texts: bool = False, exact: bool = False,
               scenario: str | None = None, seed: int | None = None, settings: Sequence[str] = (),
               budget: int | None = None) -> Outcome:
        """`call` or `call_exact` as an `Outcome` in the runtime's values. With `texts`, the arguments are
        as a command line types them (JSON or a name), and an error in one points into its text (U104)."""
        compiled = self._loaded.compiled
        sym = compiled.symbols.get(name)
        if sym is None or sym.kind not in CALLABLE_KINDS:
            names = [n for n, s in compiled.symbols.items() if s.kind in CALLABLE_KINDS]
            raise RulesError(error(
                "U110", f"{' + '.join(self.refs)} has no formula, table or modifier list named '{name}'",
                hint=did_you_mean(name, names, n=3)))
        params, types = self._signature(name, sym)
        if len(args) != len(types):
            want = ", ".join(f"{p.name.text}: {unparse_type(p.type)}" for p in params) or "no arguments"
            raise RulesError(error(
                "U111", f"{name} takes {len(types)} argument{'' if len(types) == 1 else 's'} ({want}), "
                        f"found {len(args)}"))
        span = None
        if texts:
            values = [convert_argument(compiled, text, i + 1, p, t)
                      for i, (text, p, t) in enumerate(zip(args, params, types))]
            # an error with no place in rule text (a missing table key) points at the arguments
            where = Source("<arguments>", " ".join(args))
            span = Span(where, 0, len(where.text))
        else:
            values = [_run(lambda a=a, t=t, i=i: compiled.convert_data(a, t, f"argument {i + 1}"))
                      for i, (a, t) in enumerate(zip(args, types))]
        ctx = self._context(scenario, seed, settings, budget)

        def concrete():
            if sym.kind == "option":
                return ctx.options[name]
            if sym.kind == "fact":
                return _fact_value(ctx, compiled, name)
            if sym.kind in ("table", "die table"):
                return compiled.table(name).lookup(ctx, tuple(values))
            return compiled.callable(name)(ctx, *values)

        if not exact:
            return _run(lambda: Outcome(value=concrete()), span)
        if sym.kind in CALLABLE_KINDS[:3]:
            return _run(lambda: Outcome(distribution=compiled.exact_callable(name)(ctx, *values).to_dist()), span)
        return _run(lambda: Outcome(distribution=exact_values.point(concrete()).to_dist()), span)

    def explain(self, expression: str, *, scenario: str | None = None, settings: Sequence[str] = ()):
        """A call of a modifier list or formula explained (`ruleslang explain`): an object with `name`,
        `total`, and `terms` (each `reason`, `applied`, `sign`, `signed()`) or `parts` ((text, value) pairs),
        in the runtime's values."""
        node, size = compile_expression(self._loaded, expression)
        compiled = self._loaded.compiled
        info = compiled.info.calls.get(id(node)) if isinstance(node, Call) else None
        if info is None or info.kind not in ("modifiers", "formula"):
            src = Source("<expression>", expression)
            raise RulesError(error("U105", "explain takes a call of a modifier list or formula, "
                                           "such as some_modifiers({...}) or some_formula(1)", Span(src, 0, len(expression))))
        ctx = self._context(scenario, None, settings, None)
        env = [ctx] + [None] * (size - 1)

        def explained():
            arg_fns = compiled.expr_compiler.ordered_args(node, info.symbol.decl)
            return compiled.explainer(info.name)(ctx, *[f(env) for f in arg_fns])
        return _run(explained)

    def play(self, *, seed: int = 1, rounds: int = 10, agent: str = "heuristic",
             players: dict[str, str] | None = None, scenario: str | None = None,
             settings: Sequence[str] = ()) -> PlayedGame:
        """Play a game under these rulesets (agents: random, heuristic) and return it with its events."""
        game = new_game(self.refs, seed=seed, rounds=rounds, agent=agent, players=players, scenario=scenario,
                        settings=settings, workspace=self._workspace)
        result = game.run(rounds)
        played = PlayedGame(result, [s.to_json() for s in game.summaries], list(game.state.events))
        game.close()  # freed now, not by the collector's next full pass (`Game.close`)
        return played

    # ------------------------------------------------------------------------------ internals

    def _context(self, scenario, seed, settings, budget):
        return make_context(self._loaded, self._workspace, scenario=scenario, seed=seed, budget=budget,
                            settings=list(settings))

    def _signature(self, name: str, sym) -> tuple[list, list]:
        """The parameters (for messages and argument names) and parameter types of a callable definition."""
        decl = sym.decl
        params = list(getattr(decl, "params", None) or ())
        if sym.kind in ("table", "die table"):
            if sym.kind == "die table":
                at = decl.name.span
                params = [Param(ast.Ident("roll", span=at), NamedType("int", span=at), span=at)]
            return params, list(sym.params_types)
        if sym.kind in ("option", "fact"):
            return params, []
        return params, list(self._loaded.program.formula_types[name][0] or ())


def _fact_value(ctx, compiled, name):
    if name in ctx.facts:
        return ctx.facts[name]
    default = compiled.fact_default(name)
    if default is NO_VALUE:
        raise EvalError("E532", f"fact '{name}' has no value: give it in the scenario's facts")
    return default


def _fractions(outcome: Outcome) -> list[tuple[Any, Fraction]]:
    return [(to_json(value), Fraction(p)) for value, p in outcome.distribution.outcomes]


def _run(thunk, span: Span | None = None):
    """Run an evaluation; its error (a missing table key, the step budget) becomes a RulesError, placed
    at `span` when it has no place of its own."""
    try:
        return thunk()
    except EvalError as exc:
        raise RulesError(exc.at(span).diagnostic()) from None
