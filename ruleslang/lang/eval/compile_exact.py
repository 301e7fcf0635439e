"""Compile expressions to exact evaluators: each returns the distribution of its value.

The rule: a variable always holds one concrete value. Where an expression rolls dice, the exact
evaluator enumerates the distinct outcomes of that roll (merged, never the sequences that led
to them) and continues with each. Sub-expressions that roll nothing reuse the concrete closures.
Aggregates over `for` generators are folds (see `exact.Fold`): the accumulated state, not the
list of values, is what gets enumerated, which keeps sums, counts and "best k of" polynomial.
"""

from __future__ import annotations

from typing import Any, Callable

from ruleslang.lang.syntax.expressions import (BestOf, Binary, BoolOp, Call, Compare, Comprehension, DiceLit, Field,
                                               If, In, Index, Lambda, Not, Range, Unary)
from ruleslang.lang import types as T
from ruleslang.lang.eval import exact as X
from ruleslang.lang.builtins.registry import REGISTRY as BUILTINS
from ruleslang.lang.eval.operations import ARITHMETIC, COMPARISONS, check_size, items_of
from ruleslang.base.errors import EvalError
from ruleslang.lang.check.typecheck import CheckInfo
from ruleslang.lang.values import LSet, Record, UnitValue, display_text, sort_key

XFn = Callable[[list], X.XDist]

_EMPTY = ("<empty>",)  # the state of min/max before any value
_LIST_FOLDS = ("sum", "count", "any", "all", "max", "min")  # aggregates whose value on a list is the fold


def _count_step(s, v):
    return s + 1


def _aggregate_fold(name: str, span) -> X.Fold:
    if name == "sum":
        return X.Fold(0, lambda s, v: s + v)
    if name == "count":
        return X.Fold(0, _count_step)
    if name == "any":
        return X.Fold(False, lambda s, v: s or v is True)
    if name == "all":
        return X.Fold(True, lambda s, v: s and v is True)

    def finish(s):
        if s is _EMPTY:
            raise EvalError("E505", f"{name} of an empty collection", span)
        return s
    pick = max if name == "max" else min
    return X.Fold(_EMPTY, lambda s, v: v if s is _EMPTY else pick(s, v), finish)


_KEPT_VALUES = 64  # the values a die compared with a sure value keeps its distributions for (`_die_against`)


class ExactCompiler:
    def __init__(self, info: CheckInfo, compiled, concrete):
        self.info = info
        self.compiled = compiled
        self.concrete = concrete  # the ExprCompiler

    def expr(self, node) -> XFn:
        if id(node) not in self.info.random:
            f = self.concrete.expr(node)
            return lambda env: X.point(f(env))
        return getattr(self, "_" + type(node).__name__)(node)

    # ------------------------------------------------------------------------- helpers

    def _lift(self, nodes, f: Callable, span) -> XFn:
        """f over operands where some roll dice: the product of their distributions."""
        parts = []
        for n in nodes:
            if id(n) in self.info.random:
                parts.append((True, self.expr(n)))
            else:
                parts.append((False, self.concrete.expr(n)))

        def run(env):
            dists = [xf(env) if rnd else X.point(xf(env)) for rnd, xf in parts]
            return X.lift(dists, f, env[0], span)
        return run

    # ------------------------------------------------------------------------ literals

    def _DiceLit(self, node):
        # Worked out when first evaluated, under the budget (never while compiling: `check` compiles
        # every formula), and kept for later evaluations.
        count, sides, span = node.count, node.sides, node.span
        known: list = []

        def dice(env):
            if not known:
                known.append(X.dice(count, sides, env[0], span))
            return known[0]
        return dice

    def _StringLit(self, node):
        parts = [p for p in node.parts if not isinstance(p, str)]

        def build(*values):
            it = iter(values)
            return "".join(p if isinstance(p, str) else display_text(next(it)) for p in node.parts)
        return self._lift(parts, build, node.span)

    # --------------------------------------------------------------------------- names

    def _Name(self, node):
        res = self.info.names[id(node)]
        fn = self.compiled.exact_callable(res.symbol.name)
        return lambda env: fn(env[0])

    # --------------------------------------------------------------------------- calls

    def _Call(self, node: Call):
        info = self.info.calls[id(node)]
        span = node.span
        if info.kind == "builtin":
            return self._builtin(node, info.name)
        if info.kind in ("table", "die table"):
            table = self.compiled.table(info.name)
            return self._lift(list(node.args), lambda *keys: table.lookup_plain(keys, span), span)
        decl = info.symbol.decl
        params = getattr(decl, "params", None) or ()
        ordered: list = [None] * len(params)
        for i, a in enumerate(node.args):
            ordered[i] = a
        names = [p.name.text for p in params]
        for k in node.kwargs:
            ordered[names.index(k.name.text)] = k.value
        arg_nodes = [a for a in ordered if a is not None]
        callee_random = self.compiled.is_random(info.name)
        if not callee_random:
            fn = self.compiled.callable(info.name)
            holder: dict = {}

            def call_concrete(*args):
                return fn(holder["ctx"], *args)

            lifted = self._lift(arg_nodes, call_concrete, span)

            def run(env):
                holder["ctx"] = env[0]
                return lifted(env)
            return run
        xfn = self.compiled.exact_callable(info.name)
        parts = [(id(a) in self.info.random, self.expr(a) if id(a) in self.info.random else self.concrete.expr(a))
                 for a in arg_nodes]

        def call_random(env):
            ctx = env[0]
            values: list = []

            def go(i):
                if i == len(parts):
                    return xfn(ctx, *values)
                rnd, f = parts[i]
                if not rnd:
                    values.append(f(env))
                    try:
                        return go(i + 1)
                    finally:
                        values.pop()

                def k(v):
                    values.append(v)
                    try:
                        return go(i + 1)
                    finally:
                        values.pop()
                return X.bind(f(env), k, ctx, span)
            return go(0)
        return call_random

    def _builtin(self, node: Call, name: str):
        span = node.span
        bi = BUILTINS[name]
        if len(node.args) == 1 and isinstance(node.args[0], Comprehension) and (
                node.args[0].kind == "gen" or (node.args[0].kind == "list" and name in _LIST_FOLDS)):
            # an aggregate of a list comprehension reads each element once, in order, as of a
            # generator: folded the same way rather than enumerating every list the dice can make
            return self._fold(node.args[0], _aggregate_fold(name, span), span)
        if name == "roll":
            table = self.concrete.expr(node.args[0])

            def roll(env):
                t = table(env)
                faces = X.dice(t.dice_count, t.sides, env[0], span)
                out: dict = {}
                for face, w in faces.items():
                    v = t.lookup(env[0], (face,), span)
                    out[v] = out.get(v, 0) + w
                return X.XDist(out, faces.total)
            return roll
        if any(isinstance(a, Lambda) for a in [*node.args, *(k.value for k in node.kwargs)]):
            raise EvalError("E512", f"{name} with a condition cannot take rolled values", span)
        holder: dict = {}
        impl = bi.impl
        kw_names = [k.name.text for k in node.kwargs]
        n_pos = len(node.args)

        def apply(*values):
            try:
                return impl(holder["ctx"], *values[:n_pos], **dict(zip(kw_names, values[n_pos:])))
            except EvalError as e:
                raise e.at(span)
        lifted = self._lift(list(node.args) + [k.value for k in node.kwargs], apply, span)

        def run(env):
            holder["ctx"] = env[0]
            return lifted(env)
        return run

    # ---------------------------------------------------------------------------- folds

    def _fold(self, comp: Comprehension, fold: X.Fold, span) -> XFn:
        """Run a generator's elements into a fold, one independent element at a time."""
        clauses = []
        for c in comp.clauses:
            it_random = id(c.iterable) in self.info.random
            it = self.expr(c.iterable) if it_random else self.concrete.expr(c.iterable)
            cond = None
            cond_random = False
            if c.condition is not None:
                cond_random = id(c.condition) in self.info.random
                cond = self.expr(c.condition) if cond_random else self.concrete.expr(c.condition)
            clauses.append((it_random, it, self.info.slots[id(c.var)], cond_random, cond))
        elt_random = id(comp.element) in self.info.random
        elt = self.expr(comp.element) if elt_random else self.concrete.expr(comp.element)
        if (fold.step is _count_step and not elt_random and not any(c[0] for c in clauses)
                and not any(c[3] for c in clauses[:-1])):
            return _counting(clauses, elt, span)

        def run(env):
            ctx = env[0]

            def element_dist() -> X.XDist:
                return elt(env) if elt_random else X.point(elt(env))

            def level(i: int, acc: X.XDist) -> X.XDist:
                if i == len(clauses):
                    return X.fold_step(acc, element_dist(), fold, ctx, span)
                it_random, it, slot, cond_random, cond = clauses[i]

                def over(collection, acc: X.XDist) -> X.XDist:
                    for v in items_of(collection):
                        ctx.host.spend(span)
                        env[slot] = v
                        if cond is None:
                            acc = level(i + 1, acc)
                        elif not cond_random:
                            if cond(env):
                                acc = level(i + 1, acc)
                        else:
                            cd = cond(env)
                            w_true = cd.weights.get(True, 0)
                            if not w_true:  # never taken: the element leaves the fold as it was
                                continue
                            w_false = cd.total - w_true
                            taken = level(i + 1, acc) if w_true else None
                            parts = [(w_false, cd.total, acc)]
                            if taken is not None:
                                parts.append((w_true, cd.total, taken))
                            acc = X.mixture(parts, ctx, span)
                    return acc

                if it_random:
                    return X.bind(it(env), lambda coll: over(coll, acc), ctx, span)
                return over(it(env), acc)

            start = X.point(fold.init)
            try:
                return X.fold_finish(level(0, start), fold, ctx, span)
            finally:
                level = None  # (a cycle through its own closure, as `_counting`'s)
        return run

    def _Comprehension(self, node: Comprehension):
        span = node.span
        if node.kind == "set":
            fold = X.Fold((), lambda s, v: s + (v,), lambda s: LSet(s))
        else:
            fold = X.Fold((), lambda s, v: s + (v,))
        return self._fold(node, fold, span)

    def _BestOf(self, node: BestOf):
        span = node.span
        largest = node.kind == "best"
        count = self.concrete.expr(node.count)
        if id(node.count) in self.info.random:
            raise EvalError("E512", f"the count of {node.kind} ... of cannot be rolled", node.count.span)
        coll = node.collection
        if isinstance(coll, Comprehension):
            def run(env):
                k = count(env)
                fold = X.Fold((), X.top_k_step(k, largest))
                return self._fold(coll, fold, span)(env)
            # _fold builds closures; build once per k and cache
            cache: dict[int, XFn] = {}

            def run_cached(env):
                k = count(env)
                if k < 0:
                    raise EvalError("E506", f"{node.kind} {k} of: the count cannot be negative", span)
                f = cache.get(k)
                if f is None:
                    f = cache[k] = self._fold(coll, X.Fold((), X.top_k_step(k, largest)), span)
                return f(env)
            del run
            return run_cached
        xcoll = self.expr(coll)

        def best(env):
            k = count(env)

            def pick(values):
                return tuple(sorted(items_of(values), key=sort_key, reverse=largest)[:k])
            return X.lift([xcoll(env)], pick, env[0], span)
        return best

    # -------------------------------------------------------------------- other nodes

    def _Field(self, node: Field):
        concrete = self.concrete
        fi = self.info.fields[id(node)]
        name = fi.name
        span = node.span

        def get(v, ctx):
            if fi.kind == "record":
                return v.get(name)
            if fi.kind == "enumname":
                return v.name
            if fi.kind == "unit" and name in ("id", "type", "owner", "space", "hits", "moved"):
                return getattr(v, name)
            type_name = v.type.name if isinstance(v, UnitValue) else v.name
            if fi.kind in ("unit", "unittype"):
                return ctx.compiled.unit_attribute(ctx, type_name, name)
            if fi.kind == "space":
                return ctx.compiled.space_attribute(ctx, v.name, name)
            if fi.kind == "player":
                return ctx.side_of(v.name)
            return LSet(ctx.side_members(v.name))
        del concrete
        obj = self.expr(node.obj)

        def run(env):
            ctx = env[0]
            return X.lift([obj(env)], lambda v: get(v, ctx), ctx, span)
        return run

    def _Index(self, node: Index):
        span = node.span

        def index(seq, i):
            if not -len(seq) <= i < len(seq):
                raise EvalError("E507", f"index {i} is outside a list of {len(seq)} (the first is 0)", span)
            return seq[i]
        return self._lift([node.obj, node.index], index, span)

    def _Unary(self, node: Unary):
        if node.op == "+":
            return self.expr(node.operand)
        return self._lift([node.operand], lambda v: -v, node.span)

    def _Binary(self, node: Binary):
        span = node.span
        op = ARITHMETIC[node.op]
        if node.op == "+" and not isinstance(self.info.types.get(id(node.left)), type(None)):
            lt = T.strip_optional(self.info.types.get(id(node.left)))
            if lt == T.TEXT or isinstance(lt, T.ListType):
                return self._lift([node.left, node.right], lambda a, b: a + b, span)
        return self._lift([node.left, node.right], lambda a, b: op(a, b, span), span)

    def _Compare(self, node: Compare):
        cmp = COMPARISONS[node.op]
        random = self.info.random
        if isinstance(node.left, DiceLit) and id(node.right) not in random:
            return self._die_against(node.left, node.right, cmp, node.span)
        return self._lift([node.left, node.right], cmp, node.span)

    def _die_against(self, die: DiceLit, other, cmp: Callable, span) -> XFn:
        """A die literal compared with a sure value (`d6 <= attack_value(u)`), as `_lift` gives it,
        the distribution kept per value: a fire step compares the die with a few values over and
        over. The die's distribution is worked out once (`_DiceLit`); the work is charged each
        time as `_lift` charges it."""
        roll, value = self.expr(die), self.concrete.expr(other)
        kept: dict = {}

        def compared(d, v, ctx, budget):
            """(the distribution, its (weight of true, total)) of the die `d` against value `v`."""
            try:
                found = kept.get(v)
            except TypeError:  # a value that cannot be a key
                out = X.lift([d, X.point(v)], cmp, ctx, span)
                return out, _true_weight(out)
            if found is not None and found[0] is d and type(found[1]) is type(v):
                X.charge_both(budget, span, found[5], found[6])  # `charge_lift`'s charges, worked out once
                return found[3], found[4]
            sure = X.point(v)
            out = X.lift([d, sure], cmp, ctx, span)
            if len(kept) >= _KEPT_VALUES:
                kept.clear()
            found = kept[v] = (d, v, sure, out, _true_weight(out), len(d.weights), len(d.weights) * len(sure.weights))
            return out, found[4]

        def run(env):
            ctx = env[0]
            return compared(roll(env), value(env), ctx, ctx)[0]

        def trial(env, budget):
            """`run`'s (weight of true, total), reduced, with the same work charged (the kept
            comparisons' to `budget`, a context or `_Budget`: `_counting`)."""
            return compared(roll(env), value(env), env[0], budget)[1]
        run.trial = trial
        return run

    def _In(self, node: In):
        if node.negated:
            return self._lift([node.element, node.collection], lambda e, c: e not in c, node.span)
        return self._lift([node.element, node.collection], lambda e, c: e in c, node.span)

    def _Not(self, node: Not):
        return self._lift([node.operand], lambda v: not v, node.span)

    def _BoolOp(self, node: BoolOp):
        span = node.span
        left = self.expr(node.left)
        right = self.expr(node.right)
        is_and = node.op == "and"
        if id(node.left) not in self.info.random:
            # a sure left side (`has_tag(u, air) and d6 <= ...`): the mixture below of its one
            # outcome is the right side's distribution (reduced) or the deciding value
            sure_left = self.concrete.expr(node.left)
            decided = X.point(not is_and)

            def run_sure(env):
                if sure_left(env) == is_and:
                    return right(env).reduced()
                return decided
            right_trial = getattr(right, "trial", None)
            if right_trial is not None:
                decided_weight = _true_weight(decided)

                def trial(env, budget):
                    """`run_sure`'s (weight of true, total) (`_counting`)."""
                    if sure_left(env) == is_and:
                        return right_trial(env, budget)
                    return decided_weight
                run_sure.trial = trial
            return run_sure

        def run(env):
            ctx = env[0]
            ld = left(env)
            # the right side is only evaluated where it decides the result
            deciding = True if is_and else False
            w_dec = ld.weights.get(deciding, 0)
            parts = [(ld.total - w_dec, ld.total, X.point(not deciding))]
            if w_dec:
                parts.append((w_dec, ld.total, right(env)))
            return X.mixture(parts, ctx, span)
        return run

    def _If(self, node: If):
        span = node.span
        cond, then, else_ = self.expr(node.cond), self.expr(node.then), self.expr(node.else_)

        def run(env):
            cd = cond(env)
            w_true = cd.weights.get(True, 0)
            parts = []
            if w_true:
                parts.append((w_true, cd.total, then(env)))
            if cd.total - w_true:
                parts.append((cd.total - w_true, cd.total, else_(env)))
            return X.mixture(parts, env[0], span)
        return run

    def _Range(self, node: Range):
        span = node.span

        def rng(a, b):
            check_size(b - a + 1, span)
            return tuple(range(a, b + 1))
        return self._lift([node.lo, node.hi], rng, span)

    def _ListLit(self, node):
        return self._lift(list(node.items), lambda *vs: tuple(vs), node.span)

    def _SetLit(self, node):
        return self._lift(list(node.items), lambda *vs: LSet(vs), node.span)

    def _RecordLit(self, node):
        names = [ident.text for ident, _ in node.fields]
        return self._lift([v for _, v in node.fields], lambda *vs: Record(zip(names, vs)), node.span)


def _counting(clauses: list, elt, span) -> XFn:
    """`count` over a generator whose only rolled part is the last clause's condition (the dice of
    each element: `count(u for u in shooters where d6 <= attack_value(u))`), as `_fold` runs it,
    element by element in the same order with the same charges, each element a Bernoulli trial
    of `exact.Counting` instead of a fold step and a mixture of distributions."""
    last = len(clauses) - 1
    # a condition that gives its (weight of true, total) without its distribution (a die against a
    # unit's value, after a sure test: `has_tag(u, air) and d6 <= attack_value(u)`)
    trials = [getattr(c[4], "trial", None) if c[3] else None for c in clauses]

    def run(env):
        ctx = env[0]
        # the exact helpers charge `budget.host.spend`: the host's own (a context may be a view)
        budget = _Budget(ctx.host.spend)
        spend = budget.spend
        counting = X.Counting()

        def level(i: int) -> None:
            _it_random, it, slot, cond_random, cond = clauses[i]
            trial = trials[i]
            for v in items_of(it(env)):
                spend(span)
                env[slot] = v
                if cond is None:
                    pass
                elif not cond_random:
                    if not cond(env):
                        continue
                else:  # the last clause's: the element is counted with its chance
                    if trial is not None:
                        w_true, total = trial(env, budget)
                    else:
                        cd = cond(env)
                        w_true, total = cd.weights.get(True, 0), cd.total
                    if not w_true:
                        continue
                    elt(env)
                    counting.trial(w_true, total, budget, span)
                    continue
                if i == last:
                    elt(env)
                    counting.sure(budget, span)
                else:
                    level(i + 1)

        try:
            level(0)
        finally:
            # `level` calls itself through its closure: a cycle holding `env` (in the exact battle
            # chain, a step's whole world: the chain's board copy) until the collector's next
            # pass, which the chain's query sets off; broken here, it is freed as the run returns
            level = None
        return counting.result()
    return run


class _Budget:
    """What exact.py's charges read of a context (`ctx.host.spend`), for a fold that charges each
    of its elements: the host's `spend` looked up once (through a view's `__getattr__` in the
    exact chain's steps) rather than at every charge. Its `host` is another object, not itself:
    no cycle for the garbage collector to free."""

    __slots__ = ("host", "spend")

    def __init__(self, spend: Callable):
        self.host, self.spend = _Spender(spend), spend


class _Spender:
    """A host as `_Budget` shows it: its `spend` only."""

    __slots__ = ("spend",)

    def __init__(self, spend: Callable):
        self.spend = spend


def _true_weight(dist: X.XDist) -> tuple:
    """(the weight of true, the total) of a condition's distribution, reduced (as `run_sure` gives it)."""
    dist = dist.reduced()
    return dist.weights.get(True, 0), dist.total


def bind_lets(steps, env: list, ctx, final) -> X.XDist:
    """`final(env)` after the `let` steps `(rolled, fn, slot)`: a let that rolls dice branches the
    rest over its outcomes (X.bind), the others just fill their slot."""
    def go(i: int) -> X.XDist:
        if i == len(steps):
            return final(env)
        rnd, f, slot = steps[i]
        if not rnd:
            env[slot] = f(env)
            return go(i + 1)

        def k(v):
            env[slot] = v
            return go(i + 1)
        return X.bind(f(env), k, ctx, None)
    try:
        return go(0)
    finally:
        go = None  # (a cycle through its own closure, as `_counting`'s; X.bind calls `k` at once)


def exact_body(compiled, info: CheckInfo, xc: ExactCompiler, lets, body, frame_size: int, param_count: int):
    """An exact evaluator of a formula body with `let` lines: each rolled let branches the rest."""
    steps = []
    for let in lets:
        rnd = id(let.value) in info.random
        steps.append((rnd, xc.expr(let.value) if rnd else xc.concrete.expr(let.value), info.slots[id(let.name)]))
    final = xc.expr(body)

    def run(ctx, *args):
        env: list[Any] = [None] * frame_size
        env[0] = ctx
        env[1:1 + param_count] = args
        return bind_lets(steps, env, ctx, final)
    return run
