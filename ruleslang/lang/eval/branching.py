"""Procedures run over every outcome of their dice: a step as a map from one state to a distribution.

The statements of a step run as in a game (`statements.py`), except where they roll dice: there
the exact evaluator (`compile_exact`) gives the distribution of the value rolled (`let hits =
count(u for u in xs where d6 <= v)` is a sum of Bernoullis, an `if d6 <= 1:` a yes or a no), and
the rest of the procedure runs once per outcome, carrying its probability. Each run of the rest
starts from the state of the world and the frame as they were at the roll: the world (what the
effects change) is saved and restored by the caller's `World`, so that this module knows no game.

A statement that rolls nothing is run by the ordinary compiled executor. Effects that change the
game outside what the world can restore (`add`, `remove`, `move`, `win`, `set` and `change` of a
board property; those of a counter are followed) and decisions whose options are rolled are
refused with E546 where they are reached, naming the statement: the caller samples instead.

A rolled `let` is not looked at until a statement needs its value (its slot holds a `Deferred`,
its outcomes): a statement whose expression reads rolled values that no later statement reads
(`hit a + b + c of ...` after three rolled lets) runs once per distinct value of that expression,
not once per combination of the values it adds up. A statement that needs a rolled value as it
is (or reads one that is read again later) first follows each of its outcomes.

A world may defer the effects of a run (`World.deferring`, the exact chain's shared fire steps):
then a `hit` is not made but handed to the world as a `DeferredHit` (its count, and the frame its
units and chooser are read from), and a `let` that rolls nothing is not evaluated until a
statement reads it (its slot holds a `Lazy`): the statements then read only what the dice and the
choices need, and the world applies the hits afterwards (`apply_hit`), to any state, in order.

Continuation-passing style: an executor is `run(env, p, k)`; it does its statement and calls
`k(p')` once per outcome, with `p'` the probability of reaching there. At the end of the
procedure the caller's `k` sees the world in that outcome's state.

Under the codegen back end a block runs as generated code (`codegen_branching.py`): the statements
whose executors carry `inline` (lets, conditions that roll nothing, a hit whose count rolls
nothing itself, a statement that rolls nothing) are written out in line, and a statement hands
over to its executor here where that would fork; the others are their executors.
"""

from __future__ import annotations

from typing import Any, Callable

from ruleslang.base.errors import EvalError
from ruleslang.lang.eval.branching_values import (Deferred, DeferredHit, Lazy, World, any_deferred, cannot_follow,
                                                    content, unit_ids)
from ruleslang.lang.eval.codegen_branching import write_block
from ruleslang.lang.eval.compile_exact import ExactCompiler
from ruleslang.lang.eval.operations import items_of
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import BoolLit, Call, DecimalLit, IntLit, Name, NoneLit, StringLit
from ruleslang.lang.syntax.statements import (AddEffect, Block, ChangeEffect, Choose, ForStmt, HitEffect, IfStmt, Let,
                                              LogEffect, MoveEffect, RemoveEffect, Require, RetreatEffect, RunEffect,
                                              SetEffect, SubmergeEffect, WinEffect)
from ruleslang.lang.syntax.declarations import HookDecl, RuntimeProcedure

Cont = Callable[[Any], None]
BExec = Callable[[list, Any, Cont], None]

# Effects whose change the world of a branching run does not hold (E546 where reached); `set` and
# `change` of a counter it holds (the world saves the counters), of a board property not.
_OUTSIDE = (AddEffect, RemoveEffect, MoveEffect, ChangeEffect, SetEffect, WinEffect)
_STORES = (ChangeEffect, SetEffect)
MAX_DEPTH = 50  # procedures run inside each other, as run_procedure allows
# Whether blocks run as generated code (`codegen_branching.py`) under the codegen back end; the
# closures' own chaining otherwise (tests compare the two).
GENERATE_BLOCKS = True


class Branching:
    """Compiles procedures of `compiled` to branching executors; `world` saves and restores the
    state the effects change; `prob(w, total)` makes the probability of an outcome of weight `w`
    out of `total` (a Fraction for exact results, a float for speed)."""

    def __init__(self, compiled, world: World, prob: Callable[[int, int], Any]):
        self.compiled = compiled
        self.info = compiled.info
        self.procs = compiled.procedures
        self.pc = self.procs.pc
        self.ec = compiled.expr_compiler
        self.xc = compiled.exact_compiler
        self.world = world
        self.prob = prob
        self._stmts: dict[int, BExec] = {}
        self._bodies: dict[tuple, tuple] = {}
        self._hooks: dict[int, BExec] = {}
        self._rolls: dict[int, bool] = {}
        self._frames: dict[str, Any] = {}  # owner of a block compiled here -> its declaration (its frame)
        self._exacts: dict[str, ExactCompiler] = {}  # owner -> the exact compiler of its rolled expressions
        self._plains: dict[tuple, Callable] = {}  # (id of an expression, owner) -> `_plain`'s function
        # the slots each node reads depend on the program only: shared by its Branchings
        self._read_sets: dict[int, frozenset] = _READ_SETS.setdefault(id(self.info), (self.info, {}))[1]
        self.one = prob(1, 1)
        self._remember = getattr(world, "remember", None)
        self._run_values: dict[int, tuple] = {}  # id of a `Lazy` of the run under way -> (it, its value)
        self.generate = GENERATE_BLOCKS and getattr(compiled, "backend", "codegen") == "codegen"

    def use(self, world: World) -> World:
        """Make `world` the one the runs save, restore and defer to; gives the one it replaces. The
        compiled executors do not depend on the world (but for whether it has `hold`: worlds of one
        kind), so one Branching serves several worlds in turn, each for its own runs."""
        before = self.world
        self.world = world
        self._remember = getattr(world, "remember", None)
        return before

    def _deferring(self) -> bool:
        return getattr(self.world, "deferring", False)

    # ------------------------------------------------------------------ deferred effects

    def _ready(self, env, slots) -> None:
        """Evaluate the `Lazy` values among `slots` (in the run's own context)."""
        for s in slots:
            if type(env[s]) is Lazy:
                env[s] = self._forced(env[s], env[0], None)

    def _forced(self, lazy: Lazy, ctx, _force) -> Any:
        """`force` of a `Lazy` of the run under way (and of those it reads), each evaluated once in
        the run: a run whose world defers its effects changes nothing while its statements run,
        so a `let` has one value in all of it (a `let` read by several others, `foot` and
        `boosted` both of `shooters`, is not evaluated again for each). The hits deferred are
        made later in other states: their `Lazy` values are evaluated again there (`apply_hit`)."""
        found = self._run_values.get(id(lazy))
        if found is not None and found[0] is lazy:
            return found[1]
        value = self.force(lazy, ctx, self._forced)
        self._run_values[id(lazy)] = (lazy, value)
        return value

    def force(self, lazy: Lazy, ctx, force: Callable) -> Any:
        """The value of `lazy` in context `ctx` (as it is now); the `Lazy` values it reads are
        given by `force(lazy, ctx, force)` (the world may check when each is evaluated)."""
        env = list(lazy.env)
        env[0] = ctx
        for s in lazy.reads:
            if type(env[s]) is Lazy:
                env[s] = force(env[s], ctx, force)
        return lazy.f(env)

    def apply_hit(self, ctx, hit: DeferredHit, force: Callable) -> None:
        """Make deferred `hit` in context `ctx` (its units and chooser read now, from its frame;
        its `Lazy` values given by `force(lazy, ctx, force)`)."""
        env = list(hit.env)
        env[0] = ctx
        for s in hit.reads:
            if type(env[s]) is Lazy:
                env[s] = force(env[s], ctx, force)
        span = hit.stmt.span
        battle = ctx.battle
        if battle is None:
            raise EvalError("E535", "there is no battle here: hit, submerge and retreat act in battle steps", span)
        try:
            battle.hit(ctx, hit.count, unit_ids(hit.units(env)), hit.chooser(env).name, hit.now)
        except EvalError as e:
            raise e.at(span)

    # ------------------------------------------------------------------ procedures

    def run_procedure(self, ctx, name: str, p, k: Cont, depth: int = 0, span=None) -> None:
        """Phase or step `name` with its hooks (as `statements.run_procedure`), over its outcomes."""
        if depth > MAX_DEPTH:
            raise EvalError("E521", f"phases run inside each other more than {MAX_DEPTH} deep at {name}", span)
        if depth == 0:  # a run of its own (also one inside another's step): its `Lazy` values its own
            saved, self._run_values = self._run_values, {}
            try:
                self._run_procedure(ctx, name, p, k, depth, span)
            finally:
                self._run_values = saved
            return
        self._run_procedure(ctx, name, p, k, depth, span)

    def _run_procedure(self, ctx, name: str, p, k: Cont, depth: int, span) -> None:
        """`run_procedure`, the run's values of `Lazy` set up."""
        ctx.host.spend(span)
        procs = self.procs
        if self.compiled.coverage is not None:
            self.compiled.coverage.reached.add(name)
        if not procs.hooks.get(name):  # no hook on it (most steps): its body, continued by `k` itself
            run, size = self._body(name, depth)
            run([ctx] + [None] * (size - 1), p, k)
            return
        before = procs.applicable_hooks(ctx, name, "before")

        # no local function here refers to itself: a run's continuations are then freed with it,
        # not left in cycles for the garbage collector (with the world they reach: the exact
        # battle chain and all it kept)
        def body(p) -> None:
            instead = procs.replacing_hook(ctx, name, span)
            if instead is not None:
                hook, _block, env = instead
                self._hook(hook)(env, p, then_after)
            else:
                run, size = self._body(name, depth)
                run([ctx] + [None] * (size - 1), p, then_after)

        def then_after(p) -> None:
            self._run_hooks(procs.applicable_hooks(ctx, name, "after"), 0, p, k)

        self._run_hooks(before, 0, p, body)

    def _run_hooks(self, hooks: list, i: int, p, after: Cont) -> None:
        """Hooks `hooks` from the `i`th on, then `after`."""
        if i == len(hooks):
            after(p)
            return
        hook, _block, env = hooks[i]
        self._hook(hook)(env, p, lambda q: self._run_hooks(hooks, i + 1, q, after))

    def _decl(self, name: str):
        return self.compiled.symbols[name].decl

    def _body(self, name: str, depth: int) -> tuple:
        """(the executor of procedure `name`'s body at `depth`, the size of its frame)."""
        key = (name, depth)
        found = self._bodies.get(key)
        if found is None:
            decl = self._decl(name)
            proc = decl.procedure
            if isinstance(proc, RuntimeProcedure):
                def refuse(env, p, k, proc=proc):
                    raise EvalError("E546", f"the exact battle chain cannot run the runtime procedure "
                                            f"'{proc.name.text}' inside a battle step", proc.span)
                run = refuse
            else:
                self._frames[name] = decl
                run = self._block(proc.body, name, depth)
            found = self._bodies[key] = (run, self.procs.frame_size(decl))
        return found

    def _hook(self, hook: HookDecl) -> BExec:
        found = self._hooks.get(id(hook))
        if found is None:
            self._frames[hook.name.text] = hook
            found = self._hooks[id(hook)] = self._block(hook.body, hook.name.text, 0)
        return found

    # ------------------------------------------------------------------ statements

    def _block(self, block: Block, owner: str, depth: int, later: frozenset = frozenset()) -> BExec:
        """The statements of `block` in turn; `later`: the local slots read after the block."""
        after: list[frozenset] = []
        acc = set(later)
        for s in reversed(block.stmts):
            after.append(frozenset(acc))
            acc |= self._reads(s)
        after.reverse()
        stmts = [self._stmt(s, owner, depth, after[i]) for i, s in enumerate(block.stmts)]
        if not stmts:
            return _skip
        if self.generate:
            generated = write_block(self, stmts, owner)
            if generated is not None:
                return generated
        if len(stmts) == 1:
            return stmts[0]
        last = len(stmts) - 1

        # the last statement continues with the block's own continuation (one call less per run)
        def run(env, p, k, i=0):
            if i == last:
                stmts[i](env, p, k)
                return
            stmts[i](env, p, lambda q: run(env, q, k, i + 1))
        return run

    def _stmt(self, stmt, owner: str, depth: int, later: frozenset) -> BExec:
        target = self._unit_target(stmt)
        if target is not None:
            return self._unit_change(stmt, target, owner)
        if self._outside(stmt):
            return self._refuse(stmt, "it changes the game outside the battle's units and counters")
        if isinstance(stmt, _STORES) and id(stmt.amount if isinstance(stmt, ChangeEffect) else stmt.value) \
                in self.info.random:
            return self._refuse(stmt, "the value it writes is rolled")
        if not self._branches(stmt) and not isinstance(stmt, _LOOKS_LATER):
            plain = self.pc.stmt(stmt, owner)
            reads = tuple(sorted(self._reads(stmt)))

            def run_plain(env, p, k):
                self._ready(env, reads)
                if any_deferred(env, reads):
                    self._force(env, p, reads, lambda q: (plain(env), k(q)))
                    return
                plain(env)
                k(p)
            run_plain.inline = ("plain", plain, reads)
            return run_plain
        method = getattr(self, "_" + type(stmt).__name__, None)
        if method is None:
            return self._refuse(stmt, "its dice cannot be followed here")
        return method(stmt, owner, depth, later)

    def _unit_target(self, stmt):
        """The units a `remove UNITS`, `set hits(UNIT) to ...` or `change hits(UNIT) by ...` acts on
        (None for any other statement, or when the world cannot say whether it holds the units)."""
        if not hasattr(self.world, "hold"):
            return None
        if isinstance(stmt, RemoveEffect):
            return stmt.units
        if isinstance(stmt, _STORES) and isinstance(stmt.target, Call) and stmt.target.func.id == "hits" \
                and self._outside(stmt) and len(stmt.target.args) == 1:
            return stmt.target.args[0]
        return None

    def _unit_change(self, stmt, target, owner: str) -> BExec:
        """A change of units the world may hold (`World.hold`, asked with their ids before it is
        made): the statement runs as in a game once its rolled values are followed."""
        written = stmt.amount if isinstance(stmt, ChangeEffect) else getattr(stmt, "value", None)
        if written is not None and id(written) in self.info.random:
            return self._refuse(stmt, "the value it writes is rolled")
        if id(target) in self.info.random:
            return self._refuse(stmt, "the units it changes are rolled")
        plain = self.pc.stmt(stmt, owner)
        units = self._plain(target, owner)
        reads = tuple(sorted(self._reads(stmt)))

        def run(env, p, k):
            def go(q):
                self.world.hold(stmt, unit_ids(units(env)))
                plain(env)
                k(q)
            self._ready(env, reads)
            pending = [s for s in reads if type(env[s]) is Deferred]
            if pending:
                self._force(env, p, pending, go)
            else:
                go(p)
        return run

    def _outside(self, stmt) -> bool:
        """True for an effect the world does not hold: a change of the board outside the battle."""
        if isinstance(stmt, _STORES):
            target = stmt.target
            name = target.id if isinstance(target, Name) else target.func.id
            sym = self.compiled.symbols.get(name)
            return sym is None or sym.kind != "counter"
        return isinstance(stmt, _OUTSIDE)

    def _refuse(self, stmt, why: str) -> BExec:
        def refuse(env, p, k):
            raise cannot_follow(stmt, why)
        return refuse

    def _branches(self, stmt) -> bool:
        """True when running `stmt` may roll dice, run a procedure or reach an effect to refuse."""
        found = self._rolls.get(id(stmt))
        if found is None:
            found = self._rolls[id(stmt)] = _walk(stmt, self.info.random, self._outside)
        return found

    def _reads(self, node) -> frozenset:
        """The local slots statement or expression `node` reads (anywhere inside it)."""
        found = self._read_sets.get(id(node))
        if found is None:
            found = self._read_sets[id(node)] = frozenset(_slots_read(node, self.info.names))
        return found

    def _force(self, env, p, slots, go: Cont) -> None:
        """Follow every combination of the outcomes of the rolled values in `slots`, then `go(p')`."""
        pending = [s for s in slots if type(env[s]) is Deferred]
        combos: list = [((), self.one)]
        for s in pending:
            combos = [(values + (v,), q * r) for values, q in combos for v, r in env[s].outcomes]

        def go_with(values, q):
            for s, v in zip(pending, values):
                env[s] = v
            go(q)
        self._fork(env, p, combos, go_with)

    def _fork(self, env, p, outcomes, go: Callable[[Any, Any], None]) -> None:
        """Continue with `go(value, p')` once per outcome, each from the state at the fork."""
        if len(outcomes) == 1:
            go(outcomes[0][0], p * outcomes[0][1])
            return
        saved_env = list(env)
        saved = self.world.snapshot()
        for i, (value, q) in enumerate(outcomes):
            if i:
                env[:] = saved_env
                self.world.restore(saved)
            go(value, p * q)

    def _plain(self, node, owner: str) -> Callable:
        """fn(env): the value of `node`, which rolls nothing, in a frame of `owner`: the generated
        code a game's own run of the statement uses (`Procedures.expression`: Python written for
        the expression, else its closure), but for a local's read or a constant (one closure call
        costs less than a generated function's prologue). Made once per expression and owner (a
        body is compiled once per depth it runs at, a rolled expression once per owner)."""
        key = (id(node), owner)
        found = self._plains.get(key)
        if found is None:
            if isinstance(node, _SIMPLE) or owner not in self._frames:
                found = self.ec.expr(node)
            else:
                found = self.procs.expression(node, owner, self._frames[owner])
            self._plains[key] = found
        return found

    def _exact(self, owner: str) -> ExactCompiler:
        """The exact compiler of `owner`'s rolled expressions: their parts that roll nothing are
        evaluated as `_plain` gives them (generated code rather than closures)."""
        found = self._exacts.get(owner)
        if found is None:
            found = self._exacts[owner] = ExactCompiler(self.info, self.compiled, _Plain(self, owner)) \
                if owner in self._frames else self.xc
        return found

    def _value(self, node, later: frozenset, owner: str) -> Callable:
        """fn(env, p, go): the value of `node`, rolled or not, passed on with its probability;
        `later`: the slots read after it (a rolled value it reads that is read again is followed
        as it is, the others only through the value of `node`)."""
        outcomes = self._outcomes(node, later, owner)
        f = self._plain(node, owner) if id(node) not in self.info.random else None
        if outcomes is None:
            def sure(env, p, go):
                go(f(env), p)
            sure.parts = (f, ())
            return sure

        def rolled(env, p, go):
            outcomes(env, p, lambda found, q: go(f(env), q) if found is None else self._fork(env, q, found, go))
        if f is not None:  # what `codegen_branching` writes of a condition that rolls nothing
            rolled.parts = (f, outcomes.reads)
            rolled.later = later
        return rolled

    def _outcomes(self, node, later: frozenset, owner: str) -> Callable | None:
        """fn(env, p, use): `use(outcomes, p')` with the (value, probability) outcomes of `node`,
        or `use(None, p')` when it rolls nothing and reads no rolled value (the caller evaluates
        it); None when `node` can never roll nor read a local slot."""
        random = id(node) in self.info.random
        reads = tuple(sorted(self._reads(node)))
        if not random and not reads:
            return None
        xf = self._exact(owner).expr(node) if random else None
        f = None if random else self._plain(node, owner)
        prob, one = self.prob, self.one

        def outcomes(env, p, use):
            pending = []
            for s in reads:  # `_ready`, then the rolled values among them, in one pass
                t = type(env[s])
                if t is Lazy:
                    env[s] = self._forced(env[s], env[0], None)
                    t = type(env[s])
                if t is Deferred:
                    pending.append(s)
            if not pending and not random:
                use(None, p)
                return
            live = [s for s in pending if s in later]
            if live:
                self._force(env, p, live, lambda q: outcomes(env, q, use))
                return
            if not random:
                merged = self._merged(env, pending, f)
                if merged is None:  # a value that cannot be merged (not hashable): follow each combination
                    self._force(env, p, pending, lambda q: use(None, q))
                    return
                use(merged, p)
                return
            saved = [env[s] for s in pending]
            found: dict = {}
            try:
                combos: list = [((), one)]
                for d in saved:
                    combos = [(values + (v,), q * r) for values, q in combos for v, r in d.outcomes]
                for values, q in combos:
                    for s, v in zip(pending, values):
                        env[s] = v
                    dist = self._distribution(xf, node, env, reads)
                    for v, w in dist.weights.items():
                        if w:
                            found[v] = found.get(v, 0) + q * prob(w, dist.total)
            except TypeError:  # a value that cannot be merged (not hashable): follow each combination
                for s, d in zip(pending, saved):
                    env[s] = d
                self._force(env, p, pending, lambda q: outcomes(env, q, use))
                return
            for s in pending:  # read by nothing after: looked at only through this value
                env[s] = None
            use(list(found.items()), p)
        outcomes.xf, outcomes.reads, outcomes.later = xf, reads, later
        return outcomes

    def _merged(self, env, pending: list, f: Callable) -> list | None:
        """The (value, probability) outcomes of plain `f` over the rolled values in slots `pending`
        (a `Deferred` each), merged by value, the slots then emptied (read by nothing after: looked
        at only through this value); None, the slots as they were, when a value cannot be merged."""
        saved = [env[s] for s in pending]
        found: dict = {}
        try:
            # every combination of the values in turn (the last slot's varying fastest), each
            # with the product of their probabilities multiplied in the same order: the
            # combinations of all but the last slot made once, the last one's run through
            combos: list = [((), self.one)]
            for d in saved[:-1]:
                combos = [(values + (v,), q * r) for values, q in combos for v, r in d.outcomes]
            head, last, last_outcomes = pending[:-1], pending[-1], saved[-1].outcomes
            for values, q in combos:
                for s, v in zip(head, values):
                    env[s] = v
                for v, r in last_outcomes:
                    env[last] = v
                    x = f(env)
                    found[x] = found.get(x, 0) + q * r
        except TypeError:
            for s, d in zip(pending, saved):
                env[s] = d
            return None
        for s in pending:
            env[s] = None
        return list(found.items())

    def _distribution(self, xf, node, env, reads: tuple):
        """The distribution of rolled expression `node` (`xf`: its exact form), kept by the world
        when it can keep it (`World.remember`), under the expression and the values it reads."""
        remember = self._remember
        if remember is None:
            return xf(env)
        try:
            key = (id(node), tuple([content(env[s]) for s in reads]))
            hash(key)
        except TypeError:  # a value that cannot be a key
            return xf(env)
        return remember(key, lambda: xf(env))

    def _Let(self, stmt: Let, owner, depth, later):
        outcomes = self._outcomes(stmt.value, later, owner)
        slot = self.info.slots[id(stmt.name)]
        f = self._plain(stmt.value, owner) if id(stmt.value) not in self.info.random else None
        reads = tuple(sorted(self._reads(stmt.value)))
        random = id(stmt.value) in self.info.random

        def lazily(env) -> bool:
            """Deferring effects, a `let` that rolls nothing (nor reads a rolled value) waits."""
            if random or not getattr(self.world, "deferring", False) or any_deferred(env, reads):
                return False
            env[slot] = Lazy(stmt.value, f, list(env), reads, self.world.deferred())
            return True

        if outcomes is None:
            def let_plain(env, p, k):
                if not lazily(env):
                    env[slot] = f(env)
                k(p)
            let_plain.inline = ("plain let", stmt.value, slot, f)
            return let_plain

        def keep(env, found, p, k):
            if found is None:
                env[slot] = f(env)
            elif len(found) == 1:
                env[slot] = found[0][0]
            else:  # looked at when a statement needs it
                env[slot] = Deferred(found)
            k(p)

        def let(env, p, k):
            if lazily(env):
                k(p)
                return
            outcomes(env, p, lambda found, q: keep(env, found, q, k))
        let.inline = ("rolled let", stmt.value, slot, outcomes.xf, reads) if random else \
            ("let", stmt.value, slot, f, reads)
        return let

    def _Require(self, stmt: Require, owner, depth, later):
        return self._refuse(stmt, "its condition rolls dice")

    def _IfStmt(self, stmt: IfStmt, owner, depth, later):
        # a condition's rolled values may be read again by the bodies and the other conditions
        rest = later | _union(self._reads(b) for _, b in stmt.branches) | (
            self._reads(stmt.else_block) if stmt.else_block is not None else frozenset())
        branches = [(self._value(c, rest | _union(self._reads(c2) for c2, _ in stmt.branches if c2 is not c), owner),
                     self._block(b, owner, depth, later)) for c, b in stmt.branches]
        otherwise = self._block(stmt.else_block, owner, depth, later) if stmt.else_block is not None else None

        def run_if(env, p, k, i=0):
            if i == len(branches):
                if otherwise is not None:
                    otherwise(env, p, k)
                else:
                    k(p)
                return
            cond, body = branches[i]

            def go(v, q):
                if v:
                    body(env, q, k)
                else:
                    run_if(env, q, k, i + 1)
            cond(env, p, go)
        if all(hasattr(c, "parts") for c, _ in branches):  # conditions that roll nothing: written in line
            run_if.inline = ("if", [c.parts + (b,) for c, b in branches], otherwise)
        return run_if

    def _ForStmt(self, stmt: ForStmt, owner, depth, later):
        again = later | self._reads(stmt)  # the next turns of the loop read what the loop reads
        iterable = self._value(stmt.iterable, again, owner)
        slot = self.info.slots[id(stmt.var)]
        cond = self._value(stmt.condition, again, owner) if stmt.condition is not None else None
        body = self._block(stmt.body, owner, depth, again)
        span = stmt.span

        loop = (slot, cond, body, span)

        def run_for(env, p, k):
            iterable(env, p, lambda coll, q: self._for_step(loop, env, tuple(items_of(coll)), 0, q, k))
        return run_for

    def _for_step(self, loop: tuple, env, items: tuple, i: int, p, k) -> None:
        """A `for` loop's turns from the `i`th on (a method, not a local function calling itself:
        see `run_procedure`)."""
        if i == len(items):
            k(p)
            return
        slot, cond, body, span = loop
        env[0].host.spend(span)
        env[slot] = items[i]
        if cond is None:
            body(env, p, lambda q: self._for_step(loop, env, items, i + 1, q, k))
            return

        def go(v, q):
            if v:
                body(env, q, lambda r: self._for_step(loop, env, items, i + 1, r, k))
            else:
                self._for_step(loop, env, items, i + 1, q, k)
        cond(env, p, go)

    def _Choose(self, stmt: Choose, owner, depth, later):
        return self._refuse(stmt, "its options or its chooser are rolled")

    def _HitEffect(self, stmt: HitEffect, owner, depth, later):
        count = self._value(stmt.count, later | self._reads(stmt.units) | self._reads(stmt.chooser), owner)
        if id(stmt.units) in self.info.random or id(stmt.chooser) in self.info.random:
            return self._refuse(stmt, "the units it hits or who chooses them are rolled")
        units = self._plain(stmt.units, owner)
        chooser = self._plain(stmt.chooser, owner)
        now = stmt.now
        span = stmt.span
        needed = tuple(sorted(self._reads(stmt.units) | self._reads(stmt.chooser)))

        def make(env, n) -> None:
            """The hit of `n` made, or handed to the world that makes it later."""
            ctx = env[0]
            if n < 0:
                raise EvalError("E506", f"cannot score {n} hits", span)
            if self._deferring():  # the world makes the hit later (no hits: nothing to make)
                if n:
                    self.world.defer(DeferredHit(stmt, n, now, list(env), units, chooser, needed,
                                                 self.world.deferred()))
                return
            battle = ctx.battle
            if battle is None:
                raise EvalError("E535", "there is no battle here: hit, submerge and retreat act in battle steps",
                                span)
            try:
                battle.hit(ctx, n, unit_ids(units(env)), chooser(env).name, now)
            except EvalError as e:
                raise e.at(span)

        def hit(env, p, k):
            def go(n, q):
                make(env, n)
                k(q)
            if any_deferred(env, needed):
                self._force(env, p, needed, lambda q: count(env, q, go))
                return
            count(env, p, go)
        if hasattr(count, "parts"):  # a count that rolls nothing itself: written in line
            hit.inline = ("hit", count.parts, getattr(count, "later", frozenset()), needed, make)
        return hit

    def _SubmergeEffect(self, stmt, owner, depth, later):
        return self._refuse(stmt, "the units it submerges are rolled")

    def _RetreatEffect(self, stmt, owner, depth, later):
        return self._refuse(stmt, "where it retreats to is rolled")

    def _LogEffect(self, stmt, owner, depth, later):
        def skip(env, p, k):  # a message with dice in it: the battle's units do not depend on it
            k(p)
        return skip

    def _RunEffect(self, stmt: RunEffect, owner, depth, later):
        name = stmt.name.text
        span = stmt.span
        if isinstance(self._decl(name), HookDecl):
            return self._refuse(stmt, "it runs the hook an override replaced (run previous in a hook)")

        def run(env, p, k):
            self.run_procedure(env[0], name, p, k, depth + 1, span)
        return run


class _Plain:
    """The compiler of plain expressions an owner's exact compiler uses (`Branching._exact`)."""

    __slots__ = ("branching", "owner")

    def __init__(self, branching: Branching, owner: str):
        self.branching, self.owner = branching, owner

    def expr(self, node) -> Callable:
        """fn(env): the value of `node`, which rolls nothing, in a frame of the owner."""
        return self.branching._plain(node, self.owner)


def _walk(node, random: set, outside: Callable) -> bool:
    """True when statement `node` (or one inside it) has an expression that rolls dice, runs a
    procedure, or is an effect a branching run refuses (`outside(stmt)`)."""
    if isinstance(node, RunEffect) or (isinstance(node, _OUTSIDE) and outside(node)):
        return True
    if isinstance(node, Block):
        return any(_walk(s, random, outside) for s in node.stmts)
    if isinstance(node, tuple):
        return any(_walk(x, random, outside) for x in node)
    if isinstance(node, ast.Node):
        if id(node) in random:
            return True
        if isinstance(node, _STATEMENTS):
            return any(_walk(getattr(node, f), random, outside) for f in node.__dataclass_fields__ if f != "span")
    return False


# Expressions a closure evaluates in one call: a local's read or a constant (`_plain`)
_SIMPLE = (Name, IntLit, DecimalLit, StringLit, BoolLit, NoneLit)

# Statements that look at a rolled value only through what they compute from it (run here even
# when they roll nothing themselves, so that their rolled values are merged by that).
_LOOKS_LATER = (Let, IfStmt, ForStmt, HitEffect)

_STATEMENTS = (Let, Choose, Require, IfStmt, ForStmt, LogEffect, HitEffect,
               SubmergeEffect, RetreatEffect, ChangeEffect, SetEffect)


_READ_SETS: dict[int, tuple] = {}  # id of a program's check info -> (it, node id -> the slots it reads)


def _slots_read(node, names: dict) -> set:
    """The local slots read by the Name nodes anywhere in `node`."""
    found: set = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
        elif isinstance(n, ast.Node):
            if isinstance(n, Name):
                res = names.get(id(n))
                if res is not None and res.kind == "local":
                    found.add(res.slot)
            stack.extend(getattr(n, f) for f in n.__dataclass_fields__ if f != "span")
    return found


def _skip(env, p, k) -> None:
    """An empty block: it goes straight on."""
    k(p)


def _union(sets) -> frozenset:
    out: set = set()
    for s in sets:
        out |= s
    return frozenset(out)
