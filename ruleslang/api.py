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
prints them. The command line is a client of the same pipeline (docs/api.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Sequence

from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, error
from ruleslang.base.errors import EvalError
from ruleslang.lang.diff import diff_rulesets
from ruleslang.lang.values import to_json
from ruleslang.ruletests.invariants import evaluate_checks
from ruleslang.runtime import saves
from ruleslang.workspace.compositions import Loaded, Workspace
from ruleslang.workspace.session import compile_expression, make_context

RulesError = DiagnosticError  # raised with `.diagnostics` for anything a user can get wrong

__all__ = ["RulesError", "Rules", "PlayedGame", "load", "check", "diff"]


def load(*refs: str, rulesets: Sequence[str | Path] = ()) -> "Rules":
    """A composition of rulesets (`family/name@N`, `family/name`, a `.rules` path; `REF!` marks the
    version that wins), parsed, checked and compiled; `rulesets` are folders searched first."""
    if not refs:
        raise RulesError(error("U100", "name at least one ruleset: ruleslang.load(\"aar/base@1\")"))
    workspace = Workspace(list(rulesets))
    loaded = workspace.load(list(refs))
    if not loaded.ok:
        raise RulesError(loaded.diagnostics)
    return Rules(list(refs), workspace, loaded)


def check(*refs: str, rulesets: Sequence[str | Path] = ()) -> list[Diagnostic]:
    """The diagnostics of a composition, its `check` invariants' included (errors and warnings), as
    `ruleslang check` reports them; an empty list when it is clean."""
    workspace = Workspace(list(rulesets))
    loaded = workspace.load(list(refs))
    return list(loaded.diagnostics) + (evaluate_checks(loaded, workspace) if loaded.ok else [])


def diff(old: str, new: str, *, rulesets: Sequence[str | Path] = ()) -> dict:
    """The semantic difference between two rulesets, as `ruleslang diff --format json` gives it."""
    workspace = Workspace(list(rulesets))
    return diff_rulesets(workspace.composer.resolve_ref(old), workspace.composer.resolve_ref(new)).to_json()


@dataclass
class PlayedGame:
    """A game played to its end: the result, the round summaries and every event, in order."""

    result: dict
    rounds: list[dict]
    events: list[dict]


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

    def eval(self, expression: str, *, scenario: str | None = None, seed: int | None = None,
             settings: Sequence[str] = ()) -> Any:
        """The value of `expression` (dice sampled with `seed`) on the scenario (default: the map's start);
        `settings` are `NAME=VALUE` option values, as `--set` takes them."""
        node, env = self._compiled(expression, scenario, seed, settings)
        return self._run(lambda: to_json(self._loaded.compiled.expr_compiler.expr(node)(env)))

    def exact(self, expression: str, *, scenario: str | None = None,
              settings: Sequence[str] = ()) -> list[tuple[Any, Fraction]]:
        """The exact distribution of `expression`: (value, probability) pairs, probabilities as fractions."""
        node, env = self._compiled(expression, scenario, None, settings)
        dist = self._run(lambda: self._loaded.compiled.exact_compiler.expr(node)(env).to_dist())
        return [(to_json(value), Fraction(p)) for value, p in dist.outcomes]

    def call(self, name: str, *args: Any, scenario: str | None = None, seed: int | None = None,
             settings: Sequence[str] = ()) -> Any:
        """Call the definition `name` with Python values (a space or player by its name, a record as a
        dict), as `ruleslang call` does with JSON arguments."""
        compiled = self._loaded.compiled
        if name not in compiled.symbols:
            raise RulesError(error("U110", f"{' + '.join(self.refs)} has no definition named '{name}'"))
        types = self._loaded.program.formula_types.get(name)
        params = (types[0] or ()) if types else ()
        if types is None or len(params) != len(args):
            raise RulesError(error("U111", f"{name} takes {len(params)} argument(s), found {len(args)}"))
        values = [self._run(lambda a=a, t=t, i=i: compiled.convert_data(a, t, f"argument {i + 1}"))
                  for i, (a, t) in enumerate(zip(args, params))]
        ctx = make_context(self._loaded, self._workspace, scenario=scenario, seed=seed, budget=None,
                           settings=list(settings))
        return self._run(lambda: to_json(compiled.callable(name)(ctx, *values)))

    def play(self, *, seed: int = 1, rounds: int = 10, agent: str = "heuristic",
             players: dict[str, str] | None = None, scenario: str | None = None,
             settings: Sequence[str] = ()) -> PlayedGame:
        """Play a game under these rulesets (agents: random, heuristic) and return it with its events."""
        setup = saves.GameSetup(refs=list(self.refs), scenario=scenario, seed=seed, rounds=rounds,
                                players=dict(players or {}), default_agent=agent, settings=list(settings),
                                orders=None)
        game = saves.build_game(self._workspace, setup)
        result = game.run(rounds)
        return PlayedGame(result, [s.to_json() for s in game.summaries], list(game.state.events))

    # ------------------------------------------------------------------------------ internals

    def _compiled(self, expression: str, scenario, seed, settings):
        node, size = compile_expression(self._loaded, expression)
        ctx = make_context(self._loaded, self._workspace, scenario=scenario, seed=seed, budget=None,
                           settings=list(settings))
        return node, [ctx] + [None] * (size - 1)

    @staticmethod
    def _run(thunk):
        """Run an evaluation; its error (a missing table key, the step budget) becomes a RulesError."""
        try:
            return thunk()
        except EvalError as exc:
            raise RulesError(exc.diagnostic()) from None
