"""Codegen of statements: the blocks of phases, steps, hooks, constraints and checks as Python.

A block becomes one Python function of the frame, `f(env)` (the executor `statements.py` builds
from closures has the same shape, so `Procedures` runs either): the frame's slots are loaded into
local variables (`s<slot>`) once, each statement is written out in line with the expression
generator of `codegen.py`, and nested blocks are nested Python blocks.

What stays the same as the closures (tests/test_codegen.py runs every rule test under both):

- the order in which a statement works out its parts, and every die through the host in that order;
- the budget: a step per element of a `for` (spent before the element's body, as it comes), per
  `run`, per call of a definition and per element of a comprehension, never per statement;
- errors: the checks of a statement raise at its span (`statements.py` helpers shared with the
  closures); where the closures put a place on an error as it passes a statement (a board's refusal
  in an effect, an error in `hit` or `retreat`), the generated code first places it at the marked
  call it came from (`relocate`), then at the statement, as the nesting of the closures does.

A statement the generator does not write (an expression in it the expression generator leaves to
the closures: see codegen.py) runs as its closure: the locals are written into the frame before it,
read back after it (`fallback`); `BlockGenerator.fell_back` says which and why.
"""

from __future__ import annotations

import re
from typing import Callable

from ruleslang.base.errors import EvalError
from ruleslang.board.state import BoardError
from ruleslang.lang.builtins.board import SETTABLE_PROPERTIES
from ruleslang.lang.eval import statements as S
from ruleslang.lang.eval.codegen import Generator, Unsupported
from ruleslang.lang.eval.codegen_runtime import assemble
from ruleslang.lang.eval.operations import located
from ruleslang.lang import types as T
from ruleslang.lang.eval.constant_filters import conjuncts
from ruleslang.lang.eval.unit_scans import COMPARISONS, hits_test, units_scan
from ruleslang.lang.syntax.expressions import Call, Name
from ruleslang.lang.syntax.statements import (AddEffect, Block, ChangeEffect, Choose, ForStmt, HitEffect, IfStmt, Let,
                                              LogEffect, MoveEffect, RemoveEffect, Require, RetreatEffect, RunEffect,
                                              SetEffect, SubmergeEffect, WinEffect)
from ruleslang.lang.syntax.declarations import ConstraintDecl, HookDecl

_LOCAL = re.compile(r"\bs(\d+)\b")  # a local of the frame in generated source

# The kind in the file name of generated statements' code: `<ruleslang statements:NAME>`.
STATEMENTS = "statements"
# Effects the closures wrap so a board's refusal is located at the statement (statements.py).
_EFFECTS = (AddEffect, RemoveEffect, MoveEffect, ChangeEffect, SetEffect, HitEffect,
            SubmergeEffect, RetreatEffect)

# What generated statements call, by the names the source uses.
_STATEMENT_HELPERS = {
    "_refuse": S.refuse, "_texts_unread": S.texts_unread, "_kept_call": S.kept_call, "_decide": S.decide, "_plus": S.plus,
    "_state": S.game_state, "_battle": S.battle_of,
    "_unit_ids": S.unit_ids, "_units_to_add": S.units_to_add, "_hits_to_score": S.hits_to_score,
    "_current_player": S.current_player, "_winning_side": S.winning_side, "_declare_winner": S.declare_winner,
    "_run_previous_hook": S.run_previous_hook, "_run_procedure": S.run_procedure, "_located": located,
    "_EvalError": EvalError, "_BoardError": BoardError, "_units_scan": units_scan,
}


class BlockGenerator(Generator):
    """Writes one block (and the blocks nested in it) as a Python function of the frame."""

    def __init__(self, compiled, closures: S.StatementCompiler, owner: str, size: int):
        """`closures` compiles the statements left to the closures; `owner` names the phase, hook,
        constraint or check (decision ids, log entries); `size` is the frame's size (the slots
        of a constraint's parameters come first)."""
        super().__init__(compiled)
        self.ns.update(_STATEMENT_HELPERS)
        self.closures = closures
        self.owner = owner
        self.locals = [f"s{i}" for i in range(1, size)]
        self.fell_back: list[tuple[str, str]] = []  # (statement kind, why)
        self.written = 0  # statements written as Python
        symbol = compiled.symbols.get(owner)
        # a constraint's parameters (the first slots): a formula called with them alone may be kept
        # while a planner asks list after list on one board (`statements.kept_call`)
        self.params = len(symbol.decl.params) if symbol is not None and isinstance(symbol.decl, ConstraintDecl) else 0

    def function(self, block: Block, label: str) -> Callable:
        """The executor of `block`: `f(env)`."""
        return assemble(label, ["env"], self.prologue(), self.block(block), self.ns, self.spans, STATEMENTS)

    def expression(self, node, label: str) -> Callable:
        """An expression of the frame (a hook's players or condition, a check's condition, a plain
        part of a step the exact chain runs: lang/eval/branching.py) as `f(env)` giving its value;
        `Unsupported` when the generator leaves it to the closures. Only the slots the expression
        names are loaded (the exact chain calls small ones over and over, in frames of many)."""
        src = self.expr(node).src
        # the locals the source names (`s<slot>`: no other name of generated code is so written)
        slots = sorted({int(slot) for slot in _LOCAL.findall(src)})
        prologue = ["ctx = env[0]", "host = ctx.host"] + [f"s{slot} = env[{slot}]" for slot in slots]
        return assemble(label, ["env"], prologue, [f"return {src}"], self.ns, self.spans, STATEMENTS)

    def keeps(self, node, info) -> bool:
        """A call of a formula with parameters of the constraint alone, each naming one thing (a
        player, a space): kept while a planner asks list after list (`statements.kept_call`)."""
        if not self.params or node.kwargs or not node.args or info.symbol.kind != "formula":
            return False
        for arg in node.args:
            res = self.info.names.get(id(arg)) if isinstance(arg, Name) else None
            if (res is None or res.kind != "local" or not 1 <= res.slot <= self.params
                    or not isinstance(self.info.types.get(id(arg)), T.EnumType)):
                return False
        return True

    def prologue(self) -> list[str]:
        # the frame unpacked whole (a slice of it made and unpacked cost a list more: every
        # constraint of every list the placement planner checks runs this)
        if not self.locals:
            return ["ctx = env[0]", "host = ctx.host"]
        return [f"ctx, {', '.join(self.locals)} = env", "host = ctx.host"]

    # ---------------------------------------------------------------------- blocks

    def block(self, block: Block) -> list[str]:
        lines: list[str] = []
        for stmt in block.stmts:
            lines += self.stmt(stmt)
        return lines or ["pass"]

    def stmt(self, stmt) -> list[str]:
        """A statement's lines; its closure's call when the generator cannot write it."""
        try:
            lines = getattr(self, "_s_" + type(stmt).__name__)(stmt)
        except Unsupported as e:
            self.fell_back.append((type(stmt).__name__, str(e)))
            return self.fallback(stmt)
        except EvalError as e:
            # a constant part that fails as it is folded: the closure compiler reports it (or, folding
            # otherwise, runs the statement), as it always has
            self.fell_back.append((type(stmt).__name__, f"{e.code} while folding"))
            return self.fallback(stmt)
        self.written += 1
        if isinstance(stmt, _EFFECTS):
            # the game refuses what it cannot do (an unknown unit, a full treasury ...): located here
            return ["try:", *_indent(lines), "except _BoardError as e:",
                    f"    raise _located(_relocate(e, _places), {self.const(stmt.span)})"]
        return lines

    def fallback(self, stmt) -> list[str]:
        """The statement's closure, run on the frame: the locals written into it before, read back
        after (the closure may set a slot; a `run` may change the host)."""
        run = self.const(self.closures.stmt(stmt, self.owner))
        if not self.locals:
            return [f"{run}(env)", "host = ctx.host"]
        names = ", ".join(self.locals)
        return [f"env[1:] = [{names}]", f"{run}(env)", f"[{names}] = env[1:]", "host = ctx.host"]

    def located_at(self, lines: list[str], span) -> list[str]:
        """Lines whose errors without a place take `span`, after the marked call they came from."""
        return ["try:", *_indent(lines), "except _EvalError as e:",
                f"    raise _relocate(e, _places).at({self.const(span)})"]

    # ---------------------------------------------------------------------- control flow

    def _s_Let(self, stmt: Let) -> list[str]:
        return self.assign(f"s{self.info.slots[id(stmt.name)]}", stmt.value)

    def _s_Require(self, stmt: Require) -> list[str]:
        cond = self.expr(stmt.cond).src
        if stmt.message is not None:
            text = self.expr(stmt.message).src
        else:
            text = self.const(f"requirement not met: {stmt.cond.span.text}")
        span = self.const(stmt.span)
        # the message is worked out only when it is read (`statements.refusal_texts_unread`)
        return [f"if ({cond}) is not True:", f"    _refuse(ctx, {span}, None if _texts_unread(ctx) else {text})"]

    def _s_IfStmt(self, stmt: IfStmt) -> list[str]:
        lines: list[str] = []
        for i, (cond, body) in enumerate(stmt.branches):
            lines.append(f"{'if' if i == 0 else 'elif'} {self.expr(cond).src}:")
            lines += _indent(self.block(body))
        if stmt.else_block is not None:
            lines.append("else:")
            lines += _indent(self.block(stmt.else_block))
        return lines

    def _s_ForStmt(self, stmt: ForStmt) -> list[str]:
        scan = self._units_scan(stmt)
        if scan is not None:
            return scan
        items = self.expr(stmt.iterable).src
        slot = self.info.slots[id(stmt.var)]
        body = ["host.steps -= 1", "if host.steps < 0:", f"    host.out_of_budget({self.const(stmt.span)})"]
        inner = self.block(stmt.body)
        if stmt.condition is not None:
            body += [f"if {self.expr(stmt.condition).src}:", *_indent(inner)]
        else:
            body += inner
        # the collection is copied before the loop, as the closures copy it (the body may change it)
        return [f"for s{slot} in _tuple(_items_of({items})):", *_indent(body)]

    def _units_scan(self, stmt: ForStmt) -> list[str] | None:
        """`for u in units(...) where hits(u) > 0 ...`: the values made of the units whose hits pass
        alone, the steps of the others spent where the loop would have (unit_scans.py); None for
        any other loop."""
        call, cond, slot = stmt.iterable, stmt.condition, self.info.slots[id(stmt.var)]
        info = self.info.calls.get(id(call)) if isinstance(call, Call) else None
        test = hits_test(self, slot, conjuncts(cond)[0]) if cond is not None else None
        if info is None or info.kind != "builtin" or info.name != "units" or test is None:
            return None
        args = [self.need(a, self.expr(a)) for a in call.args]
        args += [f"**{{{self.const(k.name.text)}: {self.need(k.value, self.expr(k.value))}}}" for k in call.kwargs]
        scan = self.marked(f"_units_scan({', '.join(['ctx', self.const(COMPARISONS[test[0]]), str(test[1])] + args)})",
                           call.span)
        pairs, rest, steps, span = self.temp(), self.temp(), self.temp(), self.const(stmt.span)
        spend = ["if host.steps < 0:", f"    host.out_of_budget({span})"]
        body = [f"host.steps -= {steps}", *spend, f"if {self.expr(cond).src}:", *_indent(self.block(stmt.body))]
        return [f"{pairs}, {rest} = {scan}", f"for {steps}, s{slot} in {pairs}:", *_indent(body),
                f"host.steps -= {rest}", *spend]

    def _s_Choose(self, stmt: Choose) -> list[str]:
        decision_id = f"{self.owner}.{stmt.name.text}"
        opts, n, who, text = self.temp(), self.temp(), self.temp(), self.temp()
        lines = [f"{opts} = [*_items_of({self.expr(stmt.options).src})]",
                 f"{n} = {self.expr(stmt.count).src if stmt.count is not None else 1}",
                 f"{who} = {self.expr(stmt.player).src}",
                 f"{text} = {self.expr(stmt.prompt).src if stmt.prompt is not None else self.const(S.default_prompt(stmt.mode, decision_id))}"]
        args = f"{self.const(decision_id)}, {self.const(stmt.mode)}, {self.const(stmt.span)}, {opts}, {n}, {who}, {text}"
        lines.append(f"s{self.info.slots[id(stmt.name)]} = _decide(ctx, {args})")
        lines.append("host = ctx.host")  # an agent answered: whatever it ran, the host is the context's
        return lines

    # ---------------------------------------------------------------------- effects

    def _s_ChangeEffect(self, stmt: ChangeEffect) -> list[str]:
        span = self.const(stmt.span)
        return self._store(stmt.target, lambda old: f"_plus({old}, {self.expr(stmt.amount).src}, {span})", stmt.span)

    def _s_SetEffect(self, stmt: SetEffect) -> list[str]:
        return self._store(stmt.target, lambda old: self.expr(stmt.value).src, stmt.span)

    def _store(self, target, new_value: Callable[[str], str], span) -> list[str]:
        """A `set` or `change` of a counter or a settable board property; `new_value(old)` the
        source of the value written, given the source of the value before."""
        if isinstance(target, Name):  # a counter without keys
            name, args = target.id, ()
        else:
            name, args = target.func.id, target.args
        sym = self.compiled.symbols.get(name)
        keys = [self.expr(a).src for a in args]
        if sym is not None and sym.kind == "counter":
            key, old, counter = self.temp(), self.temp(), self.const(name)
            return [f"{key} = ({''.join(k + ', ' for k in keys)})",
                    f"{old} = ctx.counter({counter}, {key})",
                    f"ctx.set_counter({counter}, {key}, {new_value(old)})"]
        write = self.const(SETTABLE_PROPERTIES[name].write)
        state, key = self.temp(), self.temp()
        named = "".join(f"{self.const(k.name.text)}: {self.expr(k.value).src}, " for k in target.kwargs)
        # the new value is worked out when the board asks for it, given the old one (as the closures)
        changed = f"lambda old: {new_value('old')}"
        return [f"{state} = _state(ctx, {self.const(span)})",
                f"{key} = {keys[0]}",
                f"{write}(ctx, {state}, {key}, {changed}, {self.const(span)}, **{{{named}}})"]

    def _s_AddEffect(self, stmt: AddEffect) -> list[str]:
        span = self.const(stmt.span)
        state, n, player = self.temp(), self.temp(), self.temp()
        who = self.expr(stmt.owner).src if stmt.owner is not None else "_current_player(ctx)"
        return [f"{state} = _state(ctx, {span})",
                f"{n} = _units_to_add({self.expr(stmt.count).src}, {span})",
                f"{player} = {who}",
                f"{state}.add_units({self.expr(stmt.space).src}.name, {self.expr(stmt.unit_type).src}.name, "
                f"{player}.name, {n})"]

    def _s_RemoveEffect(self, stmt: RemoveEffect) -> list[str]:
        return [f"_state(ctx, {self.const(stmt.span)}).remove_units(_unit_ids({self.expr(stmt.units).src}))"]

    def _s_MoveEffect(self, stmt: MoveEffect) -> list[str]:
        return [f"_state(ctx, {self.const(stmt.span)}).move_units(_unit_ids({self.expr(stmt.units).src}), "
                f"{self.expr(stmt.to).src}.name)"]

    def _s_LogEffect(self, stmt: LogEffect) -> list[str]:
        return [f"ctx.log('log', message={self.expr(stmt.message).src}, by={self.const(self.owner)})"]

    def _s_WinEffect(self, stmt: WinEffect) -> list[str]:
        side = self.temp()
        reason = self.expr(stmt.reason).src if stmt.reason is not None else "''"
        return [f"{side} = _winning_side(ctx, {self.expr(stmt.winner).src}, {self.const(stmt.span)})",
                f"_declare_winner(ctx, {side}, {reason})"]

    def _s_HitEffect(self, stmt: HitEffect) -> list[str]:
        span = self.const(stmt.span)
        n = self.temp()
        hit = (f"_battle(ctx, {span}).hit(ctx, {n}, _unit_ids({self.expr(stmt.units).src}), "
               f"{self.expr(stmt.chooser).src}.name, {stmt.now!r})")
        return [f"{n} = _hits_to_score({self.expr(stmt.count).src}, {span})", *self.located_at([hit], stmt.span)]

    def _s_SubmergeEffect(self, stmt: SubmergeEffect) -> list[str]:
        return [f"_battle(ctx, {self.const(stmt.span)}).submerge(ctx, _unit_ids({self.expr(stmt.units).src}))"]

    def _s_RetreatEffect(self, stmt: RetreatEffect) -> list[str]:
        retreat = f"_battle(ctx, {self.const(stmt.span)}).retreat(ctx, {self.expr(stmt.to).src}.name)"
        return self.located_at([retreat], stmt.span)

    def _s_RunEffect(self, stmt: RunEffect) -> list[str]:
        name = stmt.name.text
        span = self.const(stmt.span)
        decl = self.compiled.symbols[name].decl
        spend = ["host.steps -= 1", "if host.steps < 0:", f"    host.out_of_budget({span})"]
        if isinstance(decl, HookDecl):  # `run previous` in a hook override
            return [*spend, f"_run_previous_hook(ctx, {self.const(name)})", "host = ctx.host"]
        if isinstance(decl, ConstraintDecl):  # `run previous` in a constraint: its requires, the same collector
            values = len(self.compiled.symbols[self.owner].decl.params)
            args = "".join(f"{v}, " for v in self.locals[:values])
            return [*spend, f"ctx.procedures.constraint({self.const(name)})(ctx, ({args}))", "host = ctx.host"]
        return [f"_run_procedure(ctx, {self.const(name)}, span={span})", "host = ctx.host"]


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


def generate_block(compiled, closures: S.StatementCompiler, block: Block, owner: str, size: int,
                   label: str) -> tuple[Callable, BlockGenerator]:
    """The generated executor `f(env)` of a block of `owner` (a frame of `size` slots), and the
    generator that wrote it (what fell back to the closures, `fell_back`)."""
    gen = BlockGenerator(compiled, closures, owner, size)
    return gen.function(block, label), gen


def generate_expression(compiled, closures: S.StatementCompiler, node, owner: str, size: int, label: str) -> Callable:
    """The generated `f(env)` of an expression of `owner`'s frame; raises `Unsupported` (or the
    error of a constant part that fails as it is folded) when the closures must run it."""
    return BlockGenerator(compiled, closures, owner, size).expression(node, label)


__all__ = ["STATEMENTS", "BlockGenerator", "generate_block", "generate_expression"]
