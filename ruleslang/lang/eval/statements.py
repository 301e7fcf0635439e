"""Procedures: phases, steps, hooks, constraints and checks, compiled to executors and run.

A statement block compiles to a function of the frame, like an expression. Effects are the only
way a procedure changes the game, and each goes through the game state (which logs it).
`run_procedure` runs a phase or step with its hooks: every matching `before` hook, then the
body (or the one matching `instead of` hook), then every matching `after` hook.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import Name
from ruleslang.lang.syntax.statements import (AddEffect, Block, ChangeEffect, Choose, ForStmt, HitEffect, IfStmt, Let,
                                              LogEffect, MoveEffect, RemoveEffect, Require, RetreatEffect, RunEffect,
                                              SetEffect, SubmergeEffect, WinEffect)
from ruleslang.lang.syntax.declarations import CheckDecl, ConstraintDecl, HookDecl, RuntimeProcedure
from ruleslang.lang.compose.previous import is_hidden_name
from ruleslang.board.state import BoardError
from ruleslang.lang.builtins.board import SETTABLE_PROPERTIES
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.kept_formulas import answer_kept
from ruleslang.lang.eval.operations import items_of, located
from ruleslang.base.errors import EvalError
from ruleslang.lang.values import EnumValue, LSet, UnitValue, bounded_number, display_text, format_value, to_json

Exec = Callable[[list], None]


@dataclass
class Refusal:
    """A `require` that did not hold: where, and the message it gives (None when the caller
    reads only whether there are refusals: `refusal_texts_unread`)."""

    span: Any
    message: str | None


class _Collector:
    """The refusals of the constraints or checks being run; `texts` false when their messages are
    not read (a failed `require` then does not work out its message); `first` true when the caller
    reads only whether there is a refusal and the constraints only read (`Procedures.repeatable`):
    the first refusal then ends the run (`_Refused`), nothing after it could make it accepted."""

    __slots__ = ("refusals", "texts", "first", "kept")

    def __init__(self, texts: bool = True, first: bool = False):
        self.refusals: list[Refusal] = []
        self.texts = texts
        self.first = first
        self.kept: dict | None = None  # `kept_call`'s answers, when the board stays as it is (`_Kept`)


class _Kept:
    """The answers `kept_call` keeps within `refusal_texts_unread(unchanged=True)`: for one context,
    state and version of it (made again when any differs: the caller said the board does not change
    while it asks, this makes sure)."""

    __slots__ = ("ctx", "state", "version", "answers")

    def __init__(self):
        self.ctx = self.state = self.version = None
        self.answers: dict[tuple, tuple] = {}

    def answers_for(self, ctx) -> dict[tuple, tuple]:
        state = ctx.state
        version = state.version if state is not None else None
        if self.ctx is not ctx or self.state is not state or self.version != version:
            self.ctx, self.state, self.version, self.answers = ctx, state, version, {}
        return self.answers


class _Refused(Exception):
    """The first refusal of constraints run for a caller that reads only whether there is one:
    raised by `refuse`, caught by `check_action` (the constraints only read: nothing is undone)."""


# False while the caller of `check_action` reads only whether there are refusals, not what they say
_TEXTS_READ: ContextVar[bool] = ContextVar("refusal_texts_read", default=True)
# Within `refusal_texts_unread(unchanged=True)`: the answers `kept_call` keeps
_KEPT: ContextVar[_Kept | None] = ContextVar("kept_answers", default=None)


@contextmanager
def refusal_texts_unread(unchanged: bool = False) -> Iterator[None]:
    """Within: the refusals `check_action` gives carry no message (None), for a caller that asks
    only whether there are any (a placement planner trying unit after unit). A message may read
    the board or work out formulas again. When the constraints only read, they stop at their
    first refusal (the list holds that one); else every condition is evaluated as always.

    `unchanged`: the caller asks on a board that does not change meanwhile (nor what else the
    rules read: the current player, the battle). Constraints that only read then work out a
    formula they call with their own parameters once per arguments (`kept_call`): a planner
    asks of one territory list after list, each asking the same formula of the territory."""
    token = _TEXTS_READ.set(False)
    kept = _KEPT.set(_Kept() if unchanged else None)
    try:
        yield
    finally:
        _KEPT.reset(kept)
        _TEXTS_READ.reset(token)


def refusal_texts_read() -> bool:
    """False within `refusal_texts_unread` (a caller keeping refusals keys them on this)."""
    return _TEXTS_READ.get()


def kept_call(ctx, fn, *args):
    """`fn(ctx, *args)`, a formula a constraint calls with its own parameters: within
    `refusal_texts_unread(unchanged=True)`, for constraints that only read, its answer is worked
    out once for these arguments on the board as it is, and given again with the steps of the
    budget it spent charged again (with fewer steps left it runs, and fails where it would). An
    answer that raised is not kept."""
    collector = ctx.collector
    kept = collector.kept if collector is not None else None
    if kept is None:
        return fn(ctx, *args)
    return answer_kept(kept, (fn, *args), ctx, fn, args)


def texts_unread(ctx) -> bool:
    """True when a failed `require` need not work out its message: the constraints being run
    are asked only whether they refuse."""
    collector = ctx.collector
    return collector is not None and not collector.texts


class StatementCompiler:
    def __init__(self, compiled):
        self.compiled = compiled
        self.info = compiled.info
        self.ec = compiled.expr_compiler

    def block(self, block: Block, owner: str) -> Exec:
        stmts = [self.stmt(s, owner) for s in block.stmts]

        def run(env):
            for s in stmts:
                s(env)
        return run

    def stmt(self, stmt, owner: str) -> Exec:
        run = getattr(self, "_" + type(stmt).__name__)(stmt, owner)
        if not isinstance(stmt, (AddEffect, RemoveEffect, MoveEffect, ChangeEffect,
                                 SetEffect, HitEffect, SubmergeEffect, RetreatEffect)):
            return run
        span = stmt.span

        def effect(env):
            # the game refuses what it cannot do (an unknown unit, a full treasury ...): located here
            try:
                run(env)
            except BoardError as e:
                raise located(e, span)
        return effect

    # ------------------------------------------------------------------ control flow

    def _Let(self, stmt: Let, owner):
        f = self.ec.expr(stmt.value)
        slot = self.info.slots[id(stmt.name)]

        def let(env):
            env[slot] = f(env)
        return let

    def _Require(self, stmt: Require, owner):
        cond = self.ec.expr(stmt.cond)
        message = self.ec.expr(stmt.message) if stmt.message is not None else None
        span = stmt.span
        default = f"requirement not met: {stmt.cond.span.text}"

        def require(env):
            if cond(env) is True:
                return
            ctx = env[0]
            refuse(ctx, span, None if texts_unread(ctx) else message(env) if message is not None else default)
        return require

    def _IfStmt(self, stmt: IfStmt, owner):
        branches = [(self.ec.expr(c), self.block(b, owner)) for c, b in stmt.branches]
        otherwise = self.block(stmt.else_block, owner) if stmt.else_block is not None else None

        def run_if(env):
            for cond, body in branches:
                if cond(env):
                    body(env)
                    return
            if otherwise is not None:
                otherwise(env)
        return run_if

    def _ForStmt(self, stmt: ForStmt, owner):
        it = self.ec.expr(stmt.iterable)
        slot = self.info.slots[id(stmt.var)]
        cond = self.ec.expr(stmt.condition) if stmt.condition is not None else None
        body = self.block(stmt.body, owner)
        span = stmt.span

        def run_for(env):
            host = env[0].host
            for v in tuple(items_of(it(env))):
                host.spend(span)
                env[slot] = v
                if cond is None or cond(env):
                    body(env)
        return run_for

    def _Choose(self, stmt: Choose, owner):
        options = self.ec.expr(stmt.options)
        player = self.ec.expr(stmt.player)
        count = self.ec.expr(stmt.count) if stmt.count is not None else None
        prompt = self.ec.expr(stmt.prompt) if stmt.prompt is not None else None
        slot = self.info.slots[id(stmt.name)]
        decision_id = f"{owner}.{stmt.name.text}"
        mode = stmt.mode
        span = stmt.span

        default = default_prompt(mode, decision_id)

        def choose(env):
            opts = list(items_of(options(env)))
            n = count(env) if count is not None else 1
            who = player(env)
            text = prompt(env) if prompt is not None else default
            env[slot] = decide(env[0], decision_id, mode, span, opts, n, who, text)
        return choose

    # ----------------------------------------------------------------------- effects

    def _ChangeEffect(self, stmt: ChangeEffect, owner):
        amount = self.ec.expr(stmt.amount)
        return self._store(stmt.target, lambda old, env: plus(old, amount(env), stmt.span), stmt.span)

    def _SetEffect(self, stmt: SetEffect, owner):
        value = self.ec.expr(stmt.value)
        return self._store(stmt.target, lambda old, env: value(env), stmt.span)

    def _store(self, target, new_value, span):
        """A `set` or `change`: `new_value(old, env)` written into a counter or a settable board property."""
        if isinstance(target, Name):  # a counter without keys
            name, args = target.id, ()
        else:
            name, args = target.func.id, target.args
        sym = self.compiled.symbols.get(name)
        keys = [self.ec.expr(a) for a in args]
        if sym is not None and sym.kind == "counter":
            def counter(env):
                ctx = env[0]
                key = tuple(k(env) for k in keys)
                old = ctx.counter(name, key)
                ctx.set_counter(name, key, new_value(old, env))
            return counter
        prop = SETTABLE_PROPERTIES[name]
        write = prop.write
        key = keys[0]
        named = [(k.name.text, self.ec.expr(k.value)) for k in target.kwargs]

        def board_property(env):
            ctx = env[0]
            state = game_state(ctx, span)
            x = key(env)
            write(ctx, state, x, lambda old: new_value(old, env), span, **{k: f(env) for k, f in named})
        return board_property

    def _AddEffect(self, stmt: AddEffect, owner):
        count = self.ec.expr(stmt.count)
        unit_type = self.ec.expr(stmt.unit_type)
        space = self.ec.expr(stmt.space)
        who = self.ec.expr(stmt.owner) if stmt.owner is not None else None
        span = stmt.span

        def add(env):
            ctx = env[0]
            state = game_state(ctx, span)
            n = units_to_add(count(env), span)
            player = who(env) if who is not None else current_player(ctx)
            state.add_units(space(env).name, unit_type(env).name, player.name, n)
        return add

    def _RemoveEffect(self, stmt: RemoveEffect, owner):
        units = self.ec.expr(stmt.units)
        span = stmt.span

        def remove(env):
            game_state(env[0], span).remove_units(unit_ids(units(env)))
        return remove

    def _MoveEffect(self, stmt: MoveEffect, owner):
        units = self.ec.expr(stmt.units)
        to = self.ec.expr(stmt.to)
        span = stmt.span

        def move(env):
            game_state(env[0], span).move_units(unit_ids(units(env)), to(env).name)
        return move

    def _LogEffect(self, stmt: LogEffect, owner):
        message = self.ec.expr(stmt.message)

        def log(env):
            env[0].log("log", message=message(env), by=owner)
        return log

    def _WinEffect(self, stmt: WinEffect, owner):
        winner = self.ec.expr(stmt.winner)
        reason = self.ec.expr(stmt.reason) if stmt.reason is not None else None
        span = stmt.span

        def win(env):
            ctx = env[0]
            side = winning_side(ctx, winner(env), span)
            declare_winner(ctx, side, reason(env) if reason is not None else "")
        return win

    def _HitEffect(self, stmt: HitEffect, owner):
        count = self.ec.expr(stmt.count)
        units = self.ec.expr(stmt.units)
        chooser = self.ec.expr(stmt.chooser)
        now = stmt.now
        span = stmt.span

        def hit(env):
            ctx = env[0]
            n = hits_to_score(count(env), span)
            try:
                battle_of(ctx, span).hit(ctx, n, unit_ids(units(env)), chooser(env).name, now)
            except EvalError as e:
                raise e.at(span)
        return hit

    def _SubmergeEffect(self, stmt: SubmergeEffect, owner):
        units = self.ec.expr(stmt.units)
        span = stmt.span

        def submerge(env):
            battle_of(env[0], span).submerge(env[0], unit_ids(units(env)))
        return submerge

    def _RetreatEffect(self, stmt: RetreatEffect, owner):
        to = self.ec.expr(stmt.to)
        span = stmt.span

        def retreat(env):
            ctx = env[0]
            try:
                battle_of(ctx, span).retreat(ctx, to(env).name)
            except EvalError as e:
                raise e.at(span)
        return retreat

    def _RunEffect(self, stmt: RunEffect, owner):
        name = stmt.name.text
        span = stmt.span
        if isinstance(self.compiled.symbols[name].decl, HookDecl):  # `run previous` in a hook override
            def run_hook(env):
                ctx = env[0]
                ctx.host.spend(span)
                run_previous_hook(ctx, name)
            return run_hook
        if isinstance(self.compiled.symbols[name].decl, ConstraintDecl):  # `run previous` in a constraint
            values = len(self.compiled.symbols[owner].decl.params)

            def run_constraint(env):
                ctx = env[0]
                ctx.host.spend(span)
                ctx.procedures.constraint(name)(ctx, env[1:1 + values])  # its requires go to the same collector
            return run_constraint

        def run(env):
            run_procedure(env[0], name, span=span)
        return run


# ------------------------------------------------------------------ what a statement does
# Shared by the closures above and the generated statements (codegen_blocks.py): the values a
# statement worked out go in, in the order the statement works them out.


def refuse(ctx, span, text: str | None) -> None:
    """A `require` not met: a refusal for the collector of constraints and checks, else E522."""
    collector = ctx.collector
    if collector is not None:
        collector.refusals.append(Refusal(span, text))
        if collector.first:
            raise _Refused
        return
    raise EvalError("E522", text, span)


def default_prompt(mode: str, decision_id: str) -> str:
    """What a `choose` without a prompt asks."""
    return f"choose {mode.replace('_', ' ')} for {decision_id}"


def decide(ctx, decision_id: str, mode: str, span, opts: list, n, who, text: str):
    """A decision asked of `who`'s agent (`ctx.decide`), its answer checked and logged."""
    if mode == "one" and not opts:
        raise EvalError("E541", f"decision {decision_id} has no options to choose from", span)
    if ctx.decide is None:
        raise EvalError("E540", f"decision {decision_id} needs an answer, and nobody is asked "
                                "(give one with 'answer' in a test)", span)
    try:
        answer = ctx.decide(decision_id, who, opts, mode, n, text)
    except EvalError as e:
        raise e.at(span)
    value = _validate_answer(decision_id, answer, opts, mode, n, span)
    ctx.log("decision", id=decision_id, player=display_text(who), answer=to_json(value))
    return value


def plus(old, amount, span):
    """`change X by amount`: the new value, held to the number limits."""
    try:
        return bounded_number(old + amount)
    except EvalError as e:
        raise e.at(span)


def game_state(ctx, span):
    """The game an effect changes (E530 when there is none)."""
    if ctx.state is None:
        raise EvalError("E530", "this changes the game, but there is no game: give a scenario", span)
    return ctx.state


def battle_of(ctx, span):
    """The battle a battle effect acts on (E535 outside battle steps)."""
    battle = ctx.battle
    if battle is None:
        raise EvalError("E535", "there is no battle here: hit, submerge and retreat act in battle steps", span)
    return battle


def unit_ids(value) -> list[int]:
    """The ids of a unit or a collection of units."""
    if isinstance(value, UnitValue):
        return [value.id]
    return [u.id for u in items_of(value)]


def units_to_add(n: int, span) -> int:
    if n < 0:
        raise EvalError("E506", f"cannot add {n} units", span)
    return n


def hits_to_score(n: int, span) -> int:
    if n < 0:
        raise EvalError("E506", f"cannot score {n} hits", span)
    return n


def current_player(ctx):
    """The player whose turn it is, as a value (who `add` gives units to by default)."""
    return ctx.player_value(ctx.board.current_player())


def winning_side(ctx, who, span):
    """The side `win` names: a side, or the side of a player (E504 for a player of no side)."""
    if isinstance(who, EnumValue) and who.kind == "player":
        side = ctx.side_of(who.name)
        if side is None:
            raise EvalError("E504", f"player {who.name} belongs to no side to win", span)
        return side
    return who


def declare_winner(ctx, side, reason: str) -> None:
    ctx.winner = (side, reason)
    ctx.log("win", side=side.name, reason=reason)


def run_previous_hook(ctx, name: str) -> None:
    """`run previous` in a hook override: the hook it replaced, when that would have run now."""
    ran = ctx.procedures.run_replaced_hook(ctx, name)
    if ran is not None:
        fire(ctx, ran, ran[0].target.text)


def _validate_answer(decision_id, answer, options, mode, n, span):
    if mode == "one":
        if answer not in options:
            raise EvalError("E542", f"decision {decision_id}: {format_value(answer)} is not one of the options "
                                    f"({', '.join(format_value(o) for o in options[:8])})", span)
        return answer
    chosen = list(items_of(answer)) if isinstance(answer, (LSet, tuple, list)) else [answer]
    bad = [c for c in chosen if c not in options]
    if bad:
        raise EvalError("E542", f"decision {decision_id}: {format_value(bad[0])} is not one of the options", span)
    if mode == "exactly" and len(chosen) != n:
        raise EvalError("E542", f"decision {decision_id} needs exactly {n} choices, got {len(chosen)}", span)
    if mode == "up_to" and len(chosen) > n:
        raise EvalError("E542", f"decision {decision_id} allows at most {n} choices, got {len(chosen)}", span)
    return LSet(chosen)


# What a constraint whose refusals may be kept on the same board does not hold (`Procedures.repeatable`).
_NOT_REPEATABLE = (Choose, ChangeEffect, SetEffect, AddEffect, RemoveEffect, MoveEffect,
                   LogEffect, WinEffect, RunEffect, HitEffect, SubmergeEffect, RetreatEffect)


class Procedures:
    """The compiled phases, steps, hooks, constraints and checks of a program."""

    def __init__(self, compiled):
        self.compiled = compiled
        self.pc = StatementCompiler(compiled)
        self._bodies: dict[str, Callable] = {}
        self.hooks: dict[str, list[HookDecl]] = {}
        for name, sym in compiled.symbols.items():
            # a hook an override replaced fires no more: it runs where the override says `run previous`
            if isinstance(sym.decl, HookDecl) and not is_hidden_name(name):
                self.hooks.setdefault(sym.decl.target.phase.text if sym.decl.target.step is None
                                      else sym.decl.target.step.text, []).append(sym.decl)
        self._hook_runs: dict[int, tuple] = {}
        self._checks: dict[int, Callable] = {}
        self._constraints_on: dict[str, list[str]] = {}
        self._constraint_runs: dict[str, list[Callable]] = {}  # action -> the executors of its constraints
        self._repeatable: dict[str, bool] = {}
        self._checking: dict[str, tuple[list[Callable], bool]] = {}  # action -> (its runs, repeatable)
        # the compiled settings of runtime procedures (runtime/config.py), by (procedure, setting):
        # they hold no game, so every game of this program shares them
        self.settings: dict[tuple[int, str], Callable] = {}
        # answers of those settings that read nothing a game changes, by procedure, key and the
        # game's options (`ProcedureConfig.lasting`): every game of the program with those options shares them
        self.constant_answers: dict[tuple, Any] = {}

    def frame_size(self, decl) -> int:
        return self.compiled.info.frames.get(id(decl), 1)

    def executor(self, block: Block, owner: str, decl) -> Exec:
        """The executor `fn(env)` of a block of `owner` (declared by `decl`): generated Python
        under the code generator (CompiledProgram.block_executor), else closures."""
        return self.compiled.block_executor(self.pc, block, owner, self.frame_size(decl))

    def body(self, name: str) -> Callable:
        """The executor of phase or step `name`: fn(ctx)."""
        if name not in self._bodies:
            decl = self.compiled.symbols[name].decl
            proc = decl.procedure
            if isinstance(proc, RuntimeProcedure):
                self._bodies[name] = _runtime_procedure(name, proc)
            else:
                block = self.executor(proc.body, name, decl)
                pad = (None,) * (self.frame_size(decl) - 1)  # the frame's slots

                def run(ctx, block=block, pad=pad):
                    block([ctx, *pad])
                coverage = self.compiled.coverage
                self._bodies[name] = run if coverage is None else coverage.wrap(name, run)
        return self._bodies[name]

    def constraint(self, name: str) -> Callable:
        """The executor of constraint `name`: fn(ctx, args), its requires collected by the caller."""
        run = self._bodies.get(name)
        if run is None:
            decl = self.compiled.symbols[name].decl
            block = self.executor(decl.body, name, decl)
            n = len(decl.params)
            pad = (None,) * (self.frame_size(decl) - 1 - n)  # the frame's slots past the parameters

            def run(ctx, args, block=block, n=n, pad=pad):
                # (one list made: the frame is made for every constraint of every action checked)
                block([ctx, *args[:n], *pad])
            self._bodies[name] = run
        return run

    def constraints_on(self, action: str) -> list[str]:
        """The constraints on `action`, in the order the rulesets declare them (found once: the
        runtime asks for every candidate action)."""
        names = self._constraints_on.get(action)
        if names is None:
            # a constraint an override replaced guards only where the override runs it
            names = self._constraints_on[action] = [
                name for name, sym in self.compiled.symbols.items()
                if isinstance(sym.decl, ConstraintDecl) and sym.decl.action.text == action
                and not is_hidden_name(name)]
        return names

    def constraint_runs(self, action: str) -> list[Callable]:
        """The executors of the constraints on `action` (`constraint` of each of
        `constraints_on(action)`, in that order), found once."""
        runs = self._constraint_runs.get(action)
        if runs is None:
            runs = self._constraint_runs[action] = [self.constraint(name) for name in self.constraints_on(action)]
        return runs

    def repeatable(self, action: str) -> bool:
        """Whether the constraints on `action` only read: no dice, no decision, no effect, no log,
        no `run` (statements: `let`, `require`, `if`, `for`). Their refusals for the same arguments
        are then the same until the game state changes, so a caller asking again on the same board
        may keep them (the runtime's placement tries the same units at the same place many times)."""
        found = self._repeatable.get(action)
        if found is None:
            info = self.compiled.info
            found = self._repeatable[action] = not any(
                isinstance(node, _NOT_REPEATABLE) or info.is_random(node)
                for name in self.constraints_on(action)
                for node in ast.walk(self.compiled.symbols[name].decl.body))
        return found

    def checking(self, action: str) -> tuple[list[Callable], bool]:
        """(`constraint_runs(action)`, `repeatable(action)`), found once: what `check_action`
        reads for every check."""
        found = self._checking.get(action)
        if found is None:
            found = self._checking[action] = (self.constraint_runs(action), self.repeatable(action))
        return found

    def expression(self, node, owner: str, decl) -> Callable:
        """`fn(env)`, an expression of `owner`'s frame (declared by `decl`), generated or a closure
        (CompiledProgram.frame_expression)."""
        return self.compiled.frame_expression(self.pc, node, owner, self.frame_size(decl))

    def check_block(self, decl: CheckDecl) -> Callable:
        """A `check` declaration, built once: the executor of its block of require lines, or the
        value of its condition, `fn(env)`."""
        run = self._checks.get(id(decl))
        if run is None:
            owner = f"check {decl.title}"
            run = (self.executor(decl.body, owner, decl) if decl.expr is None
                   else self.expression(decl.expr, owner, decl))
            self._checks[id(decl)] = run
        return run

    def hook_parts(self, hook: HookDecl):
        parts = self._hook_runs.get(id(hook))
        if parts is None:
            name = hook.name.text
            players = self.expression(hook.players, name, hook) if hook.players is not None else None
            cond = self.expression(hook.condition, name, hook) if hook.condition is not None else None
            parts = (players, cond, self.executor(hook.body, hook.name.text, hook), self.frame_size(hook))
            self._hook_runs[id(hook)] = parts
        return parts

    def replacing_hook(self, ctx, name: str, span) -> tuple | None:
        """The one `instead of` hook that applies to phase `name` now (hook, block, env), or None;
        E521 when several would replace it."""
        instead = self.applicable_hooks(ctx, name, "instead of")
        if len(instead) > 1:
            names = ", ".join(h.name.text for h, _, _ in instead)
            raise EvalError("E521", f"hooks {names} all replace {name}; at most one may apply", span)
        return instead[0] if instead else None

    def applicable_hooks(self, ctx, name: str, when: str) -> list:
        out = []
        for hook in self.hooks.get(name, ()):
            if hook.when != when:
                continue
            found = self._applicable(ctx, hook)
            if found is not None:
                out.append(found)
        return out

    def run_replaced_hook(self, ctx, name: str) -> tuple | None:
        """The hook an override replaced, filed as `name` (`run previous`), as (hook, block, env)
        when it would have run now (its players, its condition), else None."""
        return self._applicable(ctx, self.compiled.symbols[name].decl)

    def _applicable(self, ctx, hook: HookDecl) -> tuple | None:
        """(hook, block, env) when `hook` applies now: the current player is one of its players and
        its condition holds."""
        players, cond, block, size = self.hook_parts(hook)
        env = [ctx] + [None] * (size - 1)
        if players is not None:
            who = players(env)
            current = ctx.player_value(ctx.board.current_player()) if ctx.board else None
            members = who.items if isinstance(who, LSet) else (who,)
            if current not in members:
                return None
        if cond is not None and cond(env) is not True:
            return None
        if self.compiled.coverage is not None:
            self.compiled.coverage.reached.add(hook.name.text)
        return hook, block, env


def _runtime_procedure(name: str, proc: RuntimeProcedure) -> Callable:
    procedure = proc.name.text
    span = proc.span

    def run(ctx):
        impl = ctx.runtime_procedures.get(procedure)
        if impl is None:
            what = ctx.procedures.compiled.program.capabilities.describe(procedure)
            raise EvalError("E520", f"the runtime procedure '{procedure}' ({what}) runs only "
                                    "inside a game (ruleslang play); rule tests can run custom phases", span)
        impl(ctx, proc)
    return run


def fire(ctx, found: tuple, target: str) -> None:
    """Run an applicable hook, (hook, block, env) as `Procedures` gives it, logging it first."""
    hook, block, env = found
    ctx.log("hook", name=hook.name.text, when=hook.when, target=target)
    block(env)


def run_procedure(ctx, name: str, *, span=None, resumed: bool = False) -> None:
    """Run phase or step `name` with its hooks. `resumed`: go on with it in a copy of a game
    made while its body ran that body itself (runtime/agents/lookahead.py `resume`): its start
    and `before` hooks are past, the body goes on from what the copy kept, then its `after` hooks."""
    procs: Procedures = ctx.procedures
    host = ctx.host
    host.steps -= 1  # (`host.spend(span)` in line: a game runs about 1,700 phases and steps)
    if host.steps < 0:
        host.out_of_budget(span)
    running = ctx.running
    running.append(name)
    if len(running) > 50:
        raise EvalError("E521", "phases run inside each other more than 50 deep: " + " -> ".join(running[-6:]), span)
    # most phases and steps have no hooks: their three looks for applicable ones are skipped
    hooked = procs.hooks.get(name)  # (as the branching run skips them: lang/eval/branching.py)
    # a game's own context adds its start and end events to its state's record straight (what
    # `EvalContext.log` does); any other context (a watch of the exact chain) logs through its own
    plain = type(ctx) is EvalContext and ctx.state is not None
    try:
        instead = None
        if not resumed:
            if plain:
                ctx.state.events.append({"kind": "phase", "name": name, "stage": "start"})
            else:
                ctx.log("phase", name=name, stage="start")
            if hooked:
                for found in procs.applicable_hooks(ctx, name, "before"):
                    fire(ctx, found, name)
                instead = procs.replacing_hook(ctx, name, span)
        if instead is not None:
            fire(ctx, instead, name)
        else:
            procs.body(name)(ctx)
        if hooked:
            for found in procs.applicable_hooks(ctx, name, "after"):
                fire(ctx, found, name)
        if plain:
            ctx.state.events.append({"kind": "phase", "name": name, "stage": "end"})
        else:
            ctx.log("phase", name=name, stage="end")
    finally:
        running.pop()


def check_action(ctx, action: str, args: list) -> list[Refusal]:
    """Every refusal the constraints on `action` give for these arguments; within
    `refusal_texts_unread`, when the constraints only read, the first refusal alone (its message
    None): the caller asks only whether there is one."""
    procs: Procedures = ctx.procedures
    # (the placement planner checks thousands of lists a game: one look-up for what the action needs)
    found = procs._checking.get(action)
    runs, repeatable = found if found is not None else procs.checking(action)
    if not runs:
        return []
    saved = ctx.collector
    texts = _TEXTS_READ.get()
    ctx.collector = collector = _Collector(texts, repeatable and not texts)
    if collector.first:
        kept = _KEPT.get()
        if kept is not None:
            collector.kept = kept.answers_for(ctx)
    try:
        for run in runs:
            run(ctx, args)
    except _Refused:
        pass  # the first refusal, for a caller that reads no more
    finally:
        ctx.collector = saved
    return collector.refusals


def run_checks(ctx, block_decl) -> list[Refusal]:
    """The failures of one `check` declaration (a condition, or a block of require lines)."""
    procs: Procedures = ctx.procedures
    saved = ctx.collector
    ctx.collector = _Collector()
    try:
        if block_decl.expr is not None:
            value = procs.check_block(block_decl)([ctx] + [None] * (procs.frame_size(block_decl) - 1))
            if value is not True:
                ctx.collector.refusals.append(Refusal(block_decl.expr.span, f"check failed: {block_decl.title}"))
        else:
            block = procs.check_block(block_decl)
            block([ctx] + [None] * (procs.frame_size(block_decl) - 1))
        return ctx.collector.refusals
    finally:
        ctx.collector = saved
