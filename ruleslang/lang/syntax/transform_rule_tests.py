"""The transform's rule tests: a `test "..."` declaration and its lines (scenario, options, answers,
seed, facts, battles, runs, expectations).

An action's arguments in a test are plain and positional: anything else is P008 here.
"""

from __future__ import annotations

from lark import v_args

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.declarations import (Expect, ExpectAction, ExpectError, TestAnswer, TestBattle,
                                                TestConstraintsOnly, TestDecl, TestFact, TestNextRound, TestOption,
                                                TestRun, TestScenario, TestSeed)
from ruleslang.lang.syntax.expressions import Comprehension, KeywordArg
from ruleslang.lang.syntax.transform_tokens import TokenTransform


@v_args(meta=True)
class RuleTestTransform(TokenTransform):
    """The grammar rules of rule tests, mixed into `transform.ToAst`."""

    def test_decl(self, meta, children):
        title_tok, *lines = children
        title = self._plain(title_tok)
        return TestDecl(ast.Ident(title, span=self._tok_span(title_tok)), title, tuple(lines),
                        span=self._span(meta))

    def test_scenario(self, meta, children):
        ref, changes = children
        return TestScenario(ref, changes, span=self._span(meta))

    def test_option(self, meta, children):
        name, value = children
        return TestOption(self._ident(name), value, span=self._span(meta))

    def test_answer(self, meta, children):
        target, value = children
        return TestAnswer(target, value, span=self._span(meta))

    def test_seed(self, meta, children):
        return TestSeed(int(children[0]), span=self._span(meta))

    def test_fact(self, meta, children):
        name, value = children
        return TestFact(self._ident(name), value, span=self._span(meta))

    def test_battle(self, meta, children):
        space, attacker, sea_zone = children
        return TestBattle(space, attacker, sea_zone, span=self._span(meta))

    def test_next_round(self, meta, children):
        return TestNextRound(span=self._span(meta))

    def test_run(self, meta, children):
        name, player = children
        return TestRun(self._ident(name), player, span=self._span(meta))

    def test_expect(self, meta, children):
        return Expect(children[0], span=self._span(meta))

    def test_expect_error(self, meta, children):
        pattern, expr = children
        return ExpectError(self._plain(pattern), expr, span=self._span(meta))

    def test_expect_run_error(self, meta, children):
        pattern, name, player = children
        run = TestRun(self._ident(name), player, span=self._span(meta))
        return ExpectError(self._plain(pattern), run, span=self._span(meta))

    def test_expect_allowed(self, meta, children):
        name, args = children
        return ExpectAction(self._ident(name), tuple(self._plain_args(args)), True, None, span=self._span(meta))

    def test_expect_refused(self, meta, children):
        name, args, pattern = children
        return ExpectAction(self._ident(name), tuple(self._plain_args(args)), False,
                            self._plain(pattern) if pattern is not None else None, span=self._span(meta))

    def test_do(self, meta, children):
        name, args = children
        return ExpectAction(self._ident(name), tuple(self._plain_args(args)), True, None, apply=True,
                            span=self._span(meta))

    def test_constraints_only(self, meta, children):
        return TestConstraintsOnly(span=self._span(meta))

    def _plain_args(self, args):
        if args is None:
            return []
        if isinstance(args, Comprehension):
            raise DiagnosticError(error("P008", "an action takes plain arguments", args.span))
        for a in args:
            if isinstance(a, KeywordArg):
                raise DiagnosticError(error("P008", "an action takes its arguments by position", a.span))
        return args
