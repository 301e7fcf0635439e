"""Compile call sites to closures: built-ins (the commonest shapes without the general call
machinery), tables and definitions; the conditions handed to built-ins.

`CallCompiler` is the part of the closure compiler (`compile.ExprCompiler`) that compiles calls;
it relies on the compiler's `expr`, `expr_folded`, `need`, `local_slot` and `generate`. The
helpers below it are shared with the code generator.
"""

from __future__ import annotations

from typing import Any, Callable

from ruleslang.base.errors import EvalError
from ruleslang.board.queries import BoardQueries
from ruleslang.board.state import BoardError
from ruleslang.lang import types as T
from ruleslang.lang.builtins.registry import REGISTRY as BUILTINS
from ruleslang.lang.check.typecheck import CheckInfo
from ruleslang.lang.eval.operations import NO_VALUE, budgeted_items, located
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import Binary, Call, Compare, Comprehension, Lambda, Name
from ruleslang.lang.syntax.declarations import OptionalType
from ruleslang.lang.values import bounded_number, bounded_sum

Fn = Callable[[list], Any]
# Board queries both back ends call directly (the closures here, generated code in codegen.py):
# built-in -> (the board's method for names known to be spaces, whether it gives a player)
DIRECT_QUERIES = {
    "controller": ("known_controller", True), "owner": ("known_controller", True),
    "controller_at_start": ("known_controller_at_turn_start", True),
    "original_owner": ("known_original_owner", True),
    "is_land": ("known_is_land", False), "is_sea": ("known_is_sea", False),
}
# Unbound methods of the board class: one C-level call, no attribute lookup by name per call.
_BOARD_METHODS = {method: getattr(BoardQueries, method) for method, _ in DIRECT_QUERIES.values()}
# Built-ins that accept none as an argument; every other built-in argument that may be none is
# checked at the call site, so the built-in itself never sees none.
ACCEPTS_NONE = {"allied", "text"}


class CallCompiler:
    """The call sites of the closure compiler (mixed into `compile.ExprCompiler`)."""

    def _Call(self, node: Call):
        info = self.info.calls[id(node)]
        if info.kind == "builtin":
            return self._builtin(node, info.name)
        if info.kind in ("table", "die table"):
            table = self.compiled.table(info.name)
            keys = [self.expr(a) for a in node.args]
            span = node.span
            if len(keys) == 1:
                k0 = keys[0]
                return (lambda env: table.lookup(env[0], (k0(env),), span)), NO_VALUE
            return (lambda env: table.lookup(env[0], tuple(k(env) for k in keys), span)), NO_VALUE
        # a formula, modifier list, counter or constant: arguments in parameter order
        args = self.ordered_args(node, info.symbol.decl)
        fn = self.compiled.callable(info.name)
        span = node.span
        if not args:
            return (lambda env: fn(env[0])), NO_VALUE
        if len(args) == 1:
            a0 = args[0]
            return (lambda env: fn(env[0], a0(env))), NO_VALUE
        if len(args) == 2:
            a0, a1 = args
            return (lambda env: fn(env[0], a0(env), a1(env))), NO_VALUE
        return (lambda env: fn(env[0], *[a(env) for a in args])), NO_VALUE

    def ordered_args(self, node: Call, decl) -> list[Fn]:
        """The closures of a call's arguments to a definition, in the definition's parameter order."""
        return ordered_args(node, decl, self._need_arg)

    def _need_arg(self, node, param) -> Fn:
        fn = self.expr(node)
        if param is not None and not isinstance(param.type, OptionalType):
            return self.need(node, fn)
        return fn

    def _builtin(self, node: Call, name: str):
        bi = BUILTINS[name]
        span = node.span
        fast = self._fast_builtin(node, name)
        if fast is not None:
            return fast, NO_VALUE
        if name in ("probability", "expected", "distribution"):
            xfn = self.compiled.exact_compiler.expr(node.args[0])
            impl = bi.impl

            def exact(env):
                try:
                    return impl(env[0], xfn(env).to_dist())
                except EvalError as e:
                    raise e.at(span)
            return exact, NO_VALUE
        if len(node.args) == 1 and isinstance(node.args[0], Comprehension) and node.args[0].kind == "gen":
            gen = self.generate(node.args[0])
            impl = bi.impl

            def aggregate(env):
                try:
                    return impl(env[0], gen(env))
                except EvalError as e:
                    raise e.at(span)
            return aggregate, NO_VALUE
        guard = name not in ACCEPTS_NONE
        args = []
        for a in node.args:
            if isinstance(a, Lambda):
                args.append(self.condition(a))
            else:
                f = self.expr(a)
                args.append(self.need(a, f) if guard else f)
        kwargs = [(k.name.text, self.condition(k.value) if isinstance(k.value, Lambda)
                   else self.need(k.value, self.expr(k.value)) if guard else self.expr(k.value))
                  for k in node.kwargs]
        impl = bi.impl
        # Each call site keeps its span: evaluation and board errors are reported at the rule text.
        if kwargs:
            def call_kw(env):
                try:
                    return impl(env[0], *[a(env) for a in args], **{k: f(env) for k, f in kwargs})
                except (EvalError, BoardError) as e:
                    raise located(e, span)
            return call_kw, NO_VALUE
        if not args:
            def call0(env):
                try:
                    return impl(env[0])
                except (EvalError, BoardError) as e:
                    raise located(e, span)
            return call0, NO_VALUE
        if len(args) == 1:
            a0 = args[0]

            def call1(env):
                try:
                    return impl(env[0], a0(env))
                except (EvalError, BoardError) as e:
                    raise located(e, span)
            return call1, NO_VALUE
        if len(args) == 2:
            a0, a1 = args

            def call2(env):
                try:
                    return impl(env[0], a0(env), a1(env))
                except (EvalError, BoardError) as e:
                    raise located(e, span)
            return call2, NO_VALUE

        def call(env):
            try:
                return impl(env[0], *[a(env) for a in args])
            except (EvalError, BoardError) as e:
                raise located(e, span)
        return call, NO_VALUE

    def _fast_builtin(self, node: Call, name: str):
        """Closures for the commonest built-in shapes, without the general call machinery."""
        types = self.info.types
        args = node.args
        if node.kwargs:
            return None
        span = node.span
        if name == "connected" and len(args) == 2 and isinstance(args[1], Lambda):
            # the board keeps each answer per condition until the state changes: look it up by the
            # condition's key first, and build the condition only when the board must work it out
            space_fn = self.need(args[0], self.expr(args[0]))
            make = self.condition(args[1])
            node_id, free = id(args[1]), self._lambda_free_slots(args[1])
            impl = BUILTINS[name].impl

            def connected(env):
                ctx = env[0]
                space = space_fn(env)
                try:
                    found = ctx.board.cached_connected(space.name, (node_id, tuple(env[s] for s in free)))
                    if found is not None:
                        return ctx.spaces(found)
                    return impl(ctx, space, make(env))
                except (EvalError, BoardError) as e:
                    raise located(e, span)
            return connected
        if name in ("min", "max") and len(args) == 2 and all(types.get(id(a)) == T.INT for a in args):
            # two whole numbers: Python's own min / max, no built-in layer
            a0, a1 = self.expr(args[0]), self.expr(args[1])
            pick = min if name == "min" else max
            return lambda env: pick(a0(env), a1(env))
        if name in DIRECT_QUERIES and len(args) == 1:
            # the board method called straight from the call site (no built-in layer between)
            method, gives_player = DIRECT_QUERIES[name]
            arg = self.need(args[0], self.expr(args[0]))
            call = _BOARD_METHODS[method]
            slot = self.local_slot(args[0])

            if slot is not None and method == "known_controller":
                def controller_local(env):
                    ctx = env[0]
                    value = ctx.board.state.control.get(env[slot].name)
                    return ctx.player_values[value] if value is not None else None
                return controller_local
            if gives_player and slot is not None:
                def player_query_local(env):
                    ctx = env[0]
                    try:
                        value = call(ctx.board, env[slot].name)
                    except (EvalError, BoardError) as e:
                        raise located(e, span)
                    return ctx.player_values[value] if value is not None else None
                return player_query_local
            if slot is not None:
                def query_local(env):
                    try:
                        return call(env[0].board, env[slot].name)
                    except (EvalError, BoardError) as e:
                        raise located(e, span)
                return query_local
            if gives_player:
                def player_query(env):
                    ctx = env[0]
                    try:
                        value = call(ctx.board, arg(env).name)
                    except (EvalError, BoardError) as e:
                        raise located(e, span)
                    return ctx.player_values[value] if value is not None else None
                return player_query

            def query(env):
                try:
                    return call(env[0].board, arg(env).name)
                except (EvalError, BoardError) as e:
                    raise located(e, span)
            return query
        if name in ("min", "max") and len(args) == 2 and all(
                T.is_numeric(types.get(id(a))) and not isinstance(types.get(id(a)), T.AnyType) for a in args):
            pick = min if name == "min" else max
            (a, ca), (b, cb) = self.expr_folded(args[0]), self.expr_folded(args[1])
            if ca is not NO_VALUE:
                return lambda env: pick(ca, b(env))
            if cb is not NO_VALUE:
                return lambda env: pick(a(env), cb)
            return lambda env: pick(a(env), b(env))
        if name in ("floor", "ceil") and len(args) == 1 and isinstance(args[0], Binary) \
                and args[0].op == "/" and types.get(id(args[0].left)) == T.INT \
                and types.get(id(args[0].right)) == T.INT:
            # whole numbers divided and rounded: integer arithmetic, no fraction built
            num, den = self.expr(args[0].left), self.expr(args[0].right)
            floor = name == "floor"

            def int_div(env):
                d = den(env)
                if d == 0:
                    raise EvalError("E503", "division by zero", span)
                return num(env) // d if floor else -(-num(env) // d)
            return int_div
        aggregate = fast_aggregate(args, name, types)
        if aggregate is not None:
            comp, elem = aggregate
            if name == "sum" and elem == T.INT and len(comp.clauses) == 1:
                # one loop, no list: the commonest aggregate of rules
                clause = comp.clauses[0]
                it, slot = self.expr(clause.iterable), self.info.slots[id(clause.var)]
                cond = self.expr(clause.condition) if clause.condition is not None else None
                elt = self.expr(comp.element)
                pslot = self._controlled_by_local(clause.condition, slot)
                if pslot is not None:
                    # `sum(... for x in S where controller(x) == p)`: the control table read once
                    def sum_controlled(env):
                        items = budgeted_items(it(env), env, span)
                        control = env[0].board.state.control
                        p = env[pslot]
                        pname = p.name if p is not None else None
                        total = 0
                        for v in items:
                            if control.get(v.name) == pname:
                                env[slot] = v
                                total += elt(env)
                        return _total(total, span)
                    return sum_controlled

                def sum_loop(env):
                    items = budgeted_items(it(env), env, span)
                    total = 0
                    for v in items:
                        env[slot] = v
                        if cond is None or cond(env):
                            total += elt(env)
                    # whole numbers grow a bit at most per (budgeted) term: one check at the end
                    return _total(total, span)
                return sum_loop
            if name in ("any", "all") and stops_early(comp, self.info):
                truths = self.truths(comp)
                return (lambda env: any(truths(env))) if name == "any" else (lambda env: all(truths(env)))
            gen = self.generate(comp)
            if name == "sum":
                if elem == T.INT:
                    return lambda env: _total(sum(gen(env)), span)

                def fraction_sum(env):
                    try:
                        return bounded_sum(gen(env))
                    except EvalError as e:
                        raise e.at(span)
                return fraction_sum
            if name == "count":
                return lambda env: len(gen(env))
            if name == "any":
                return lambda env: any(v is True for v in gen(env))
            if name == "all":
                return lambda env: all(v is True for v in gen(env))
            pick = max if name == "max" else min

            def extreme(env):
                values = gen(env)
                if not values:
                    raise EvalError("E505", f"{name} of an empty collection", span)
                return pick(values)
            return extreme
        return None

    def condition(self, node: Lambda) -> Fn:
        """A condition for a built-in: a Python function of one value, run in the caller's frame.

        It carries a `cache_key` (this condition, and the values of the outer locals it reads) so a
        board query can keep its answer for the same condition until the game state changes.
        """
        slot = self.info.slots[id(node.param)]
        body = self.expr(node.body)
        free = self._lambda_free_slots(node)
        node_id = id(node)

        def make(env):
            def fn(value):
                env[slot] = value
                return body(env)
            fn.cache_key = (node_id, tuple(env[s] for s in free))
            return fn
        return make

    def _lambda_free_slots(self, node: Lambda) -> list[int]:
        return lambda_free_slots(self.info, node)

    # ------------------------------------------------------------ board queries fused

    def query_equals_local(self, node, rslot: int, span):
        """`controller(x) == p` with x and p locals: the board's answer compared by name, in one closure."""
        if not (isinstance(node, Call) and not node.kwargs and len(node.args) == 1):
            return None
        info = self.info.calls.get(id(node))
        if info is None or info.kind != "builtin" or info.name not in DIRECT_QUERIES:
            return None
        method, gives_player = DIRECT_QUERIES[info.name]
        aslot = self.local_slot(node.args[0])
        if not gives_player or aslot is None:
            return None
        call = _BOARD_METHODS[method]
        nspan = node.span

        if method == "known_controller":
            def controller_equals(env):
                # the commonest test of rules, read straight from the state
                name = env[0].board.state.control.get(env[aslot].name)
                other = env[rslot]
                return other is None if name is None else (other is not None and other.name == name)
            return controller_equals

        def equals(env):
            try:
                name = call(env[0].board, env[aslot].name)
            except BoardError as e:
                raise located(e, nspan)
            other = env[rslot]
            return other is None if name is None else (other is not None and other.name == name)
        return equals

    def _controlled_by_local(self, cond, var_slot: int) -> int | None:
        """For a condition `controller(x) == p` (or `owner`) on the loop variable x and a local p
        (which may be none): the slot of p; None for any other condition."""
        if not (isinstance(cond, Compare) and cond.op == "==" and isinstance(cond.left, Call)):
            return None
        call = cond.left
        info = self.info.calls.get(id(call))
        if (info is None or info.kind != "builtin" or info.name not in ("controller", "owner")
                or call.kwargs or len(call.args) != 1 or self.local_slot(call.args[0]) != var_slot):
            return None
        return self.local_slot(cond.right, may_be_none=True)


def fast_aggregate(args, name: str, types: dict):
    """(the comprehension, its element's type) for `sum`, `count`, `any`, `all`, `max` or `min` of
    a generator that the compilers loop over themselves (sum, max and min of numbers only); else None."""
    if not (len(args) == 1 and isinstance(args[0], Comprehension) and args[0].kind == "gen"
            and name in ("sum", "count", "any", "all", "max", "min")):
        return None
    elem = types.get(id(args[0].element))
    if name in ("sum", "max", "min") and elem not in (T.INT, T.NUMBER):
        return None
    return args[0], elem


def stops_early(comp, info) -> bool:
    """Whether `any` or `all` of the generator `comp` stops at the first value that decides it
    (`any` at a true one, `all` at one not true), the values after it not worked out: when it has
    one `for` and rolls no dice (the checker's `random`), so that what is left out draws nothing
    from the game's dice; the stalemate of a battle asks whether any unit can hit, every round.
    What the values left out would have spent of the budget, or raised, is neither spent nor
    raised (as `and` and `or` leave their right side). With dice, every value is worked out."""
    return len(comp.clauses) == 1 and not info.is_random(comp)


def ordered_args(node: Call, decl, compile_arg: Callable) -> list:
    """`compile_arg(argument node, its parameter or None)` of each argument of a call to a
    definition, in the definition's parameter order (the order they are evaluated in)."""
    params = getattr(decl, "params", None) or ()
    slots: list = [None] * len(params)
    for i, a in enumerate(node.args):
        slots[i] = compile_arg(a, params[i] if i < len(params) else None)
    names = [p.name.text for p in params]
    for k in node.kwargs:
        i = names.index(k.name.text)
        slots[i] = compile_arg(k.value, params[i])
    return [s for s in slots if s is not None]


def lambda_free_slots(info: CheckInfo, node: Lambda) -> list[int]:
    """The slots of the outer locals a condition reads (part of its cache key)."""
    slot = info.slots[id(node.param)]
    return sorted({res.slot for n in ast.walk(node.body) if isinstance(n, Name)
                   for res in [info.names.get(id(n))]
                   if res is not None and res.kind == "local" and res.slot != slot})



def _total(value, span):
    """A whole-number total held to the number limit, reported at the aggregate's call."""
    try:
        return bounded_number(value)
    except EvalError as e:
        raise e.at(span)


