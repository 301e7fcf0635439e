"""Compile: a checked program into Python closures, once.

Each expression becomes a function of one argument, the frame `env` (a list: slot 0 holds the
evaluation context, the other slots hold parameters and local variables, numbered by the
checker). Nothing walks the tree while rules run. Constants are folded, the common shapes get
specialised closures, and each call site keeps its span so a run-time error points at rule text.

This module builds the concrete closures (a value per evaluation, dice sampled through the
host). `compile_exact` builds the exact ones (a distribution per evaluation).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from ruleslang.lang.syntax import ast
from ruleslang.lang import types as T
from ruleslang.board.queries import BoardQueries
from ruleslang.board.state import BoardError
from ruleslang.lang.builtins.registry import REGISTRY as BUILTINS
from ruleslang.base.errors import EvalError
from ruleslang.base.limits import MAX_COLLECTION, MAX_INT_BITS, MAX_TEXT
from ruleslang.lang.check.typecheck import CheckInfo
from ruleslang.lang.values import (LSet, Record, UnitValue, bounded_number, bounded_sum, display_text, normalize_number,
                                   sort_key)

Fn = Callable[[list], Any]
# Board queries the compiler calls directly:
# built-in -> (the board's method for names known to be spaces, whether it gives a player)
_DIRECT_QUERIES = {
    "controller": ("known_controller", True), "owner": ("known_controller", True),
    "controller_at_start": ("known_controller_at_turn_start", True),
    "original_owner": ("known_original_owner", True),
    "is_land": ("known_is_land", False), "is_sea": ("known_is_sea", False),
}
# Unbound methods of the board class: one C-level call, no attribute lookup by name per call.
_BOARD_METHODS = {method: getattr(BoardQueries, method) for method, _ in _DIRECT_QUERIES.values()}
# Built-ins that accept none as an argument; every other built-in argument that may be none is
# checked at the call site, so the built-in itself never sees none.
ACCEPTS_NONE = {"allied", "text"}
# "No value known here": what `folded` gives for an expression that is not a constant, and
# `CompiledProgram.fact_default` for a fact without a default.
NO_VALUE = object()
_LIMIT = 1 << MAX_INT_BITS


def located(error: EvalError | BoardError, span) -> EvalError:
    """An error raised while evaluating the rule text at `span`, as an EvalError located there:
    an EvalError that has no place yet gets `span`, a board's refusal (BoardError) becomes E534."""
    if isinstance(error, BoardError):
        return EvalError("E534", str(error), span)
    return error.at(span)


def _too_big(span) -> EvalError:
    return EvalError("E509", f"a number grew beyond {MAX_INT_BITS} bits", span)


def check_size(n: int, span) -> None:
    """Refuse (E510) a collection of `n` elements when that is more than the limit."""
    if n > MAX_COLLECTION:
        raise EvalError("E510", f"a collection of {n} elements is more than the limit of {MAX_COLLECTION}", span)


def _budgeted(collection, env, span):
    """The items of a collection about to be looped over, each counted as a step of the budget."""
    items = items_of(collection)
    host = env[0].host
    host.steps -= len(items)
    if host.steps < 0:
        host.out_of_budget(span)
    return items


def items_of(value):
    """The items of a set or list, to loop over (E504 for none)."""
    if isinstance(value, LSet):
        return value.items
    if value is None:
        raise EvalError("E504", "cannot go through none")
    return value


class ExprCompiler:
    """Compiles expressions of one program; `compiled` supplies the callables of definitions."""

    def __init__(self, info: CheckInfo, compiled):
        self.info = info
        self.compiled = compiled

    # ------------------------------------------------------------------------- entry

    def expr(self, node) -> Fn:
        fn, const = self._c(node)
        if const is not NO_VALUE:
            return lambda env, v=const: v
        return fn

    def folded(self, node):
        """The expression's value when it folds to a constant at compile time, else NO_VALUE."""
        return self._c(node)[1]

    def expr_folded(self, node) -> tuple[Fn, Any]:
        """`expr(node)` and `folded(node)` from one compilation."""
        fn, const = self._c(node)
        if const is not NO_VALUE:
            return (lambda env, v=const: v), const
        return fn, const

    def _c(self, node) -> tuple[Fn, Any]:
        """(closure, constant value or NO_VALUE)."""
        return getattr(self, "_" + type(node).__name__)(node)

    def _const(self, value) -> tuple[Fn, Any]:
        return (lambda env: value), value

    def _query_equals_local(self, node, rslot: int, span):
        """`controller(x) == p` with x and p locals: the board's answer compared by name, in one closure."""
        if not (isinstance(node, ast.Call) and not node.kwargs and len(node.args) == 1):
            return None
        info = self.info.calls.get(id(node))
        if info is None or info.kind != "builtin" or info.name not in _DIRECT_QUERIES:
            return None
        method, gives_player = _DIRECT_QUERIES[info.name]
        aslot = self._local_slot(node.args[0])
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
        if not (isinstance(cond, ast.Compare) and cond.op == "==" and isinstance(cond.left, ast.Call)):
            return None
        call = cond.left
        info = self.info.calls.get(id(call))
        if (info is None or info.kind != "builtin" or info.name not in ("controller", "owner")
                or call.kwargs or len(call.args) != 1 or self._local_slot(call.args[0]) != var_slot):
            return None
        return self._local_slot(cond.right, may_be_none=True)

    def _local_slot(self, node, may_be_none: bool = False) -> int | None:
        """The slot of a local variable (that is never none, unless `may_be_none`), for closures
        that read it directly."""
        if isinstance(node, ast.Name) and (may_be_none or not isinstance(self.info.types.get(id(node)), T.OptionalType)):
            res = self.info.names.get(id(node))
            if res is not None and res.kind == "local":
                return res.slot
        return None

    def _need(self, node, fn: Fn) -> Fn:
        """Guard a value whose type admits none where a value is required."""
        if not isinstance(self.info.types.get(id(node)), T.OptionalType):
            return fn
        span = node.span

        def need(env):
            v = fn(env)
            if v is None:
                raise EvalError("E504", f"'{span.text}' is none here, where a value is needed", span)
            return v
        return need

    # ------------------------------------------------------------------------ literals

    def _IntLit(self, node):
        return self._const(node.value)

    def _DecimalLit(self, node):
        return self._const(normalize_number(node.value))

    def _BoolLit(self, node):
        return self._const(node.value)

    def _NoneLit(self, node):
        return self._const(None)

    def _StringLit(self, node):
        if id(node) in self.info.coerce:
            return self._const(self.info.coerce[id(node)])
        if node.is_plain:
            return self._const(node.plain)
        parts = []
        for part in node.parts:
            if isinstance(part, str):
                parts.append(lambda env, s=part: s)
            else:
                f = self.expr(part)
                parts.append(lambda env, f=f: display_text(f(env)))
        span = node.span

        def interpolate(env):
            text = "".join(p(env) for p in parts)
            if len(text) > MAX_TEXT:
                raise EvalError("E510", f"a text of {len(text)} characters is more than the limit of {MAX_TEXT}", span)
            return text
        return interpolate, NO_VALUE

    def _DiceLit(self, node):
        count, sides, span = node.count, node.sides, node.span
        if count == 1:
            return (lambda env: env[0].host.roll(sides, span)), NO_VALUE
        return (lambda env: env[0].host.roll_sum(count, sides, span)), NO_VALUE

    # --------------------------------------------------------------------------- names

    def _Name(self, node):
        res = self.info.names[id(node)]
        if res.kind == "local":
            slot = res.slot
            return (lambda env: env[slot]), NO_VALUE
        if res.kind == "const":
            return self._const(res.value)
        sym = res.symbol
        kind = sym.kind
        name = sym.name
        if kind == "option":
            return (lambda env: env[0].options[name]), NO_VALUE
        if kind == "fact":
            span = node.span
            default = self.compiled.fact_default(name)

            def fact(env):
                facts = env[0].facts
                if name in facts:
                    return facts[name]
                if default is NO_VALUE:
                    raise EvalError("E532", f"fact '{name}' has no value: give it in the scenario's facts", span)
                return default
            return fact, NO_VALUE
        if kind == "constant":
            folded = self.compiled.constant_value(name)
            if folded is not NO_VALUE:
                return self._const(folded)
            fn = self.compiled.callable(name)
            return (lambda env: fn(env[0])), NO_VALUE
        if kind in ("formula", "modifiers", "counter"):
            fn = self.compiled.callable(name)
            return (lambda env: fn(env[0])), NO_VALUE
        if kind in ("table", "die table"):
            return self._const(self.compiled.table(name))
        if kind == "sequence":
            # the composition's sequence (an override's, when a ruleset replaces it)
            return self._const(tuple(item.text for item in self.compiled.symbols[name].decl.items))
        raise AssertionError(f"unexpected name kind {kind}")

    # --------------------------------------------------------------------------- calls

    def _Call(self, node: ast.Call):
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

    def ordered_args(self, node: ast.Call, decl) -> list[Fn]:
        """The closures of a call's arguments to a definition, in the definition's parameter order."""
        return ordered_args(node, decl, self._need_arg)

    def _need_arg(self, node, param) -> Fn:
        fn = self.expr(node)
        if param is not None and not isinstance(param.type, ast.OptionalType):
            return self._need(node, fn)
        return fn

    def _builtin(self, node: ast.Call, name: str):
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
        if len(node.args) == 1 and isinstance(node.args[0], ast.Comprehension) and node.args[0].kind == "gen":
            gen = self._generate(node.args[0])
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
            if isinstance(a, ast.Lambda):
                args.append(self.condition(a))
            else:
                f = self.expr(a)
                args.append(self._need(a, f) if guard else f)
        kwargs = [(k.name.text, self.condition(k.value) if isinstance(k.value, ast.Lambda)
                   else self._need(k.value, self.expr(k.value)) if guard else self.expr(k.value))
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

    def _fast_builtin(self, node: ast.Call, name: str):
        """Closures for the commonest built-in shapes, without the general call machinery."""
        types = self.info.types
        args = node.args
        if node.kwargs:
            return None
        span = node.span
        if name == "connected" and len(args) == 2 and isinstance(args[1], ast.Lambda):
            # the board keeps each answer per condition until the state changes: look it up by the
            # condition's key first, and build the condition only when the board must work it out
            space_fn = self._need(args[0], self.expr(args[0]))
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
        if name in _DIRECT_QUERIES and len(args) == 1:
            # the board method called straight from the call site (no built-in layer between)
            method, gives_player = _DIRECT_QUERIES[name]
            arg = self._need(args[0], self.expr(args[0]))
            call = _BOARD_METHODS[method]
            slot = self._local_slot(args[0])

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
            (a, ca), (b, cb) = self._c(args[0]), self._c(args[1])
            if ca is not NO_VALUE:
                return lambda env: pick(ca, b(env))
            if cb is not NO_VALUE:
                return lambda env: pick(a(env), cb)
            return lambda env: pick(a(env), b(env))
        if name in ("floor", "ceil") and len(args) == 1 and isinstance(args[0], ast.Binary) \
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
                        items = _budgeted(it(env), env, span)
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
                    items = _budgeted(it(env), env, span)
                    total = 0
                    for v in items:
                        env[slot] = v
                        if cond is None or cond(env):
                            total += elt(env)
                    # whole numbers grow a bit at most per (budgeted) term: one check at the end
                    return _total(total, span)
                return sum_loop
            gen = self._generate(comp)
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

    def condition(self, node: ast.Lambda) -> Fn:
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

    def _lambda_free_slots(self, node: ast.Lambda) -> list[int]:
        return lambda_free_slots(self.info, node)

    # ---------------------------------------------------------------------- iteration

    def _generate(self, node: ast.Comprehension) -> Fn:
        """A comprehension's values, in order, as a list (the shared loop of lists, sets, aggregates)."""
        clauses = [(self.expr(c.iterable), self.info.slots[id(c.var)],
                    self.expr(c.condition) if c.condition is not None else None) for c in node.clauses]
        elt = self.expr(node.element)
        span = node.span
        if len(clauses) == 1:
            it, slot, cond = clauses[0]

            def gen1(env):
                items = _budgeted(it(env), env, span)  # one step per element, spent before the loop
                out = []
                if cond is None:
                    for v in items:
                        env[slot] = v
                        out.append(elt(env))
                else:
                    for v in items:
                        env[slot] = v
                        if cond(env):
                            out.append(elt(env))
                return out
            return gen1

        def gen(env):
            out = []

            def loop(i):
                if i == len(clauses):
                    out.append(elt(env))
                    if len(out) > MAX_COLLECTION:
                        check_size(len(out), span)
                    return
                it, slot, cond = clauses[i]
                for v in _budgeted(it(env), env, span):
                    env[slot] = v
                    if cond is None or cond(env):
                        loop(i + 1)
            loop(0)
            return out
        return gen

    def _Comprehension(self, node: ast.Comprehension):
        gen = self._generate(node)
        if node.kind == "set":
            return (lambda env: LSet(gen(env))), NO_VALUE
        return (lambda env: tuple(gen(env))), NO_VALUE

    def _BestOf(self, node: ast.BestOf):
        count = self.expr(node.count)
        if isinstance(node.collection, ast.Comprehension):
            coll = self._generate(node.collection)
        else:
            c = self.expr(node.collection)
            coll = lambda env: items_of(c(env))  # noqa: E731
        largest = node.kind == "best"
        span = node.span

        def best(env):
            k = count(env)
            if k < 0:
                raise EvalError("E506", f"{node.kind} {k} of: the count cannot be negative", span)
            values = sorted(coll(env), key=sort_key, reverse=largest)
            return tuple(values[:k])
        return best, NO_VALUE

    # -------------------------------------------------------------------- fields, index

    def _Field(self, node: ast.Field):
        fi = self.info.fields[id(node)]
        if fi.kind == "member":
            return self._const(fi.value)
        obj = self._need(node.obj, self.expr(node.obj))
        name = fi.name
        span = node.span
        if fi.kind == "record":
            return (lambda env: obj(env).get(name)), NO_VALUE
        if fi.kind == "enumname":
            return (lambda env: obj(env).name), NO_VALUE
        if fi.kind == "unit":
            getter = {"id": lambda u: u.id, "type": lambda u: u.type, "owner": lambda u: u.owner,
                      "space": lambda u: u.space, "hits": lambda u: u.hits, "moved": lambda u: u.moved}.get(name)
            if getter is not None:
                return (lambda env: getter(obj(env))), NO_VALUE
            if name == "tags":
                return (lambda env: env[0].compiled.tags_value(obj(env).type.name)), NO_VALUE
        if fi.kind in ("unit", "unittype"):
            if name == "tags":
                return (lambda env: env[0].compiled.tags_value(obj(env).name)), NO_VALUE
            if name == "name":
                return (lambda env: obj(env).name), NO_VALUE

            def attr(env):
                v = obj(env)
                type_name = v.type.name if isinstance(v, UnitValue) else v.name
                try:
                    return env[0].compiled.unit_attribute(env[0], type_name, name)
                except EvalError as e:
                    raise e.at(span)
            return attr, NO_VALUE
        if fi.kind == "space":
            return self._space_attribute(node.obj, obj, name, span), NO_VALUE
        if fi.kind == "player":
            def side(env):
                s = env[0].side_of(obj(env).name)
                if s is None:
                    raise EvalError("E504", f"player {obj(env).name} belongs to no side", span)
                return s
            return side, NO_VALUE
        if fi.kind == "side":
            return (lambda env: LSet(env[0].side_members(obj(env).name))), NO_VALUE
        raise AssertionError(fi.kind)

    def _space_attribute(self, obj_node, obj: Fn, name: str, span) -> Fn:
        """`t.name` for a space attribute: each space's value is looked up once and then kept at
        the call site (a program's map never changes, nor what its attributes say)."""
        values: dict[str, Any] = {}
        compiled = self.compiled

        def lookup(ctx, space: str):
            try:
                value = values[space] = compiled.space_attribute(ctx, space, name)
            except EvalError as e:
                raise e.at(span)
            return value

        slot = self._local_slot(obj_node)
        if slot is not None:
            def space_attr_local(env):
                space = env[slot].name
                try:
                    return values[space]
                except KeyError:
                    return lookup(env[0], space)
            return space_attr_local

        def space_attr(env):
            space = obj(env).name
            try:
                return values[space]
            except KeyError:
                return lookup(env[0], space)
        return space_attr

    def _Index(self, node: ast.Index):
        obj = self._need(node.obj, self.expr(node.obj))
        index = self.expr(node.index)
        span = node.span

        def get(env):
            seq = obj(env)
            i = index(env)
            if not -len(seq) <= i < len(seq):
                raise EvalError("E507", f"index {i} is outside a list of {len(seq)} (the first is 0)", span)
            return seq[i]
        return get, NO_VALUE

    # ----------------------------------------------------------------------- operators

    def _Unary(self, node: ast.Unary):
        f, c = self._c(node.operand)
        if node.op == "+":
            return f, c
        if c is not NO_VALUE:
            return self._const(-c)
        f = self._need(node.operand, f)
        return (lambda env: -f(env)), NO_VALUE

    def _Binary(self, node: ast.Binary):
        lf, lc = self._c(node.left)
        rf, rc = self._c(node.right)
        op = node.op
        span = node.span
        lt, rt = self.info.types.get(id(node.left)), self.info.types.get(id(node.right))
        if T.strip_optional(lt) == T.TEXT or isinstance(T.strip_optional(lt), T.ListType):
            lf, rf = self._need(node.left, lf), self._need(node.right, rf)
            is_text = T.strip_optional(lt) == T.TEXT
            if lc is not NO_VALUE and rc is not NO_VALUE:
                return self._const(joined(lc + rc, is_text, span))

            def join(env):
                return joined(lf(env) + rf(env), is_text, span)
            return join, NO_VALUE
        fn = ARITHMETIC[op]
        if lc is not NO_VALUE and rc is not NO_VALUE:
            return self._const(fn(lc, rc, span))
        lf, rf = self._need(node.left, lf), self._need(node.right, rf)
        both_int = lt == T.INT and rt == T.INT
        if both_int and op in ("+", "-"):
            # Whole numbers added: no normalising, and sums cannot outgrow the bit limit
            # within the step budget.
            if rc is not NO_VALUE:
                return ((lambda env: lf(env) + rc) if op == "+" else (lambda env: lf(env) - rc)), NO_VALUE
            if lc is not NO_VALUE:
                return ((lambda env: lc + rf(env)) if op == "+" else (lambda env: lc - rf(env))), NO_VALUE
            return ((lambda env: lf(env) + rf(env)) if op == "+" else (lambda env: lf(env) - rf(env))), NO_VALUE
        if both_int and op == "*":
            if lc is not NO_VALUE:
                def mul_c(env):
                    r = lc * rf(env)
                    if -_LIMIT < r < _LIMIT:
                        return r
                    raise _too_big(span)
                return mul_c, NO_VALUE

            def mul(env):
                r = lf(env) * rf(env)
                if -_LIMIT < r < _LIMIT:
                    return r
                raise _too_big(span)
            return mul, NO_VALUE
        return (lambda env: fn(lf(env), rf(env), span)), NO_VALUE

    def _Compare(self, node: ast.Compare):
        lf, lc = self._c(node.left)
        rf, rc = self._c(node.right)
        op = node.op
        cmp = COMPARISONS[op]
        if lc is not NO_VALUE and rc is not NO_VALUE:
            return self._const(cmp(lc, rc))
        if op not in ("==", "!="):
            lf, rf = self._need(node.left, lf), self._need(node.right, rf)
        if rc is not NO_VALUE:
            if op == "==":
                return (lambda env: lf(env) == rc), NO_VALUE
            if op == "<=":
                return (lambda env: lf(env) <= rc), NO_VALUE
            return (lambda env: cmp(lf(env), rc)), NO_VALUE
        if op == "==":
            # `controller(x) == p` compares names, so p may be none (equal only to no controller)
            qslot = self._local_slot(node.right, may_be_none=True)
            fused = self._query_equals_local(node.left, qslot, node.span) if qslot is not None else None
            if fused is not None:
                return fused, NO_VALUE
            rslot = self._local_slot(node.right)
            if rslot is not None:
                return (lambda env: lf(env) == env[rslot]), NO_VALUE
            return (lambda env: lf(env) == rf(env)), NO_VALUE
        return (lambda env: cmp(lf(env), rf(env))), NO_VALUE

    def _In(self, node: ast.In):
        ef = self.expr(node.element)
        cf = self._need(node.collection, self.expr(node.collection))
        negated = node.negated
        if negated:
            return (lambda env: ef(env) not in cf(env)), NO_VALUE
        return (lambda env: ef(env) in cf(env)), NO_VALUE

    def _BoolOp(self, node: ast.BoolOp):
        lf, rf = self.expr(node.left), self.expr(node.right)
        if node.op == "and":
            return (lambda env: lf(env) and rf(env)), NO_VALUE
        return (lambda env: lf(env) or rf(env)), NO_VALUE

    def _Not(self, node: ast.Not):
        f, c = self._c(node.operand)
        if c is not NO_VALUE:
            return self._const(not c)
        return (lambda env: not f(env)), NO_VALUE

    def _Range(self, node: ast.Range):
        lo, hi = self.expr(node.lo), self.expr(node.hi)
        span = node.span

        def rng(env):
            a, b = lo(env), hi(env)
            check_size(b - a + 1, span)
            return tuple(range(a, b + 1))
        return rng, NO_VALUE

    def _If(self, node: ast.If):
        cf, cc = self._c(node.cond)
        tf, ef = self.expr(node.then), self.expr(node.else_)
        if cc is not NO_VALUE:
            return (tf if cc else ef), NO_VALUE
        return (lambda env: tf(env) if cf(env) else ef(env)), NO_VALUE

    def _Lambda(self, node):
        raise AssertionError("lambdas are compiled as built-in arguments")

    # ----------------------------------------------------------------------- literals

    def _ListLit(self, node):
        items = [self._c(i) for i in node.items]
        if all(c is not NO_VALUE for _, c in items):
            return self._const(tuple(c for _, c in items))
        fns = [f for f, _ in items]
        return (lambda env: tuple(f(env) for f in fns)), NO_VALUE

    def _SetLit(self, node):
        items = [self._c(i) for i in node.items]
        if all(c is not NO_VALUE for _, c in items):
            return self._const(LSet(c for _, c in items))
        fns = [f for f, _ in items]
        return (lambda env: LSet(f(env) for f in fns)), NO_VALUE

    def _RecordLit(self, node):
        target = T.strip_optional(self.info.types.get(id(node)))
        order = [n for n, _ in target.fields] if isinstance(target, T.RecordType) else None
        fields = {ident.text: self.expr(value) for ident, value in node.fields}
        names = order if order is not None else list(fields)
        pairs = [(n, fields[n]) for n in names if n in fields]
        return (lambda env: Record((n, f(env)) for n, f in pairs)), NO_VALUE

    def _Explain(self, node: ast.Explain):
        call = node.expr
        info = self.info.calls[id(call)]
        args = self.ordered_args(call, info.symbol.decl)
        explainer = self.compiled.explainer(info.name)
        span = node.span

        def explain(env):
            try:
                return explainer(env[0], *[a(env) for a in args]).one_line()
            except EvalError as e:
                raise e.at(span)
        return explain, NO_VALUE


def fast_aggregate(args, name: str, types: dict):
    """(the comprehension, its element's type) for `sum`, `count`, `any`, `all`, `max` or `min` of
    a generator that the compilers loop over themselves (sum, max and min of numbers only); else None."""
    if not (len(args) == 1 and isinstance(args[0], ast.Comprehension) and args[0].kind == "gen"
            and name in ("sum", "count", "any", "all", "max", "min")):
        return None
    elem = types.get(id(args[0].element))
    if name in ("sum", "max", "min") and elem not in (T.INT, T.NUMBER):
        return None
    return args[0], elem


def ordered_args(node: ast.Call, decl, compile_arg: Callable) -> list:
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


def lambda_free_slots(info: CheckInfo, node: ast.Lambda) -> list[int]:
    """The slots of the outer locals a condition reads (part of its cache key)."""
    slot = info.slots[id(node.param)]
    return sorted({res.slot for n in ast.walk(node.body) if isinstance(n, ast.Name)
                   for res in [info.names.get(id(n))]
                   if res is not None and res.kind == "local" and res.slot != slot})


# --------------------------------------------------------------------------- arithmetic


def _total(value, span):
    """A whole-number total held to the number limit, reported at the aggregate's call."""
    try:
        return bounded_number(value)
    except EvalError as e:
        raise e.at(span)


def joined(value, is_text: bool, span):
    """A text or list made by `+`, held to the size limits (doubling a value 40 times is 10^12)."""
    if is_text and len(value) > MAX_TEXT:
        raise EvalError("E510", f"a text of {len(value)} characters is more than the limit of {MAX_TEXT}", span)
    if not is_text and len(value) > MAX_COLLECTION:
        raise EvalError("E510", f"a list of {len(value)} elements is more than the limit of {MAX_COLLECTION}", span)
    return value


def _wrap(op):
    def f(a, b, span):
        try:
            return bounded_number(op(a, b))
        except EvalError as e:
            raise e.at(span)
    return f


def _div(a, b, span):
    if b == 0:
        raise EvalError("E503", "division by zero", span)
    if type(a) is int and type(b) is int:
        if a % b == 0:
            return a // b
        return bounded_number(Fraction(a, b))
    try:
        return bounded_number(Fraction(a) / Fraction(b))
    except EvalError as e:
        raise e.at(span)


# The arithmetic operators as `fn(a, b, span)`: exact, bounded, errors located at `span`.
ARITHMETIC = {
    "+": _wrap(lambda a, b: a + b),
    "-": _wrap(lambda a, b: a - b),
    "*": _wrap(lambda a, b: a * b),
    "/": _div,
}

# The comparison operators as `fn(a, b)`.
COMPARISONS = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}

