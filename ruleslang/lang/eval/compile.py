"""Compile: a checked program into Python closures, once.

Each expression becomes a function of one argument, the frame `env` (a list: slot 0 holds the
evaluation context, the other slots hold parameters and local variables, numbered by the
checker). Nothing walks the tree while rules run. Constants are folded, the common shapes get
specialised closures, and each call site keeps its span so a run-time error points at rule text.

This module builds the concrete closures (a value per evaluation, dice sampled through the
host), their call sites in `compile_calls`; `compile_exact` builds the exact ones (a distribution
per evaluation). What closures and generated code share at run time is in `operations`.
"""

from __future__ import annotations

from typing import Any, Callable

from ruleslang.base.errors import EvalError
from ruleslang.base.limits import MAX_COLLECTION, MAX_INT_BITS, MAX_TEXT
from ruleslang.lang import types as T
from ruleslang.lang.check.typecheck import CheckInfo
from ruleslang.lang.eval.compile_calls import CallCompiler
from ruleslang.lang.eval.operations import (ARITHMETIC, COMPARISONS, NO_VALUE, budgeted_items, check_size, items_of,
                                            joined)
from ruleslang.lang.syntax.expressions import (BestOf, Binary, BoolOp, Compare, Comprehension, Explain, Field, If, In,
                                               Index, Name, Not, Range, Unary)
from ruleslang.lang.values import LSet, Record, UnitValue, display_text, normalize_number, sort_key

Fn = Callable[[list], Any]
_LIMIT = 1 << MAX_INT_BITS


def _too_big(span) -> EvalError:
    return EvalError("E509", f"a number grew beyond {MAX_INT_BITS} bits", span)


class ExprCompiler(CallCompiler):
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

    def local_slot(self, node, may_be_none: bool = False) -> int | None:
        """The slot of a local variable (that is never none, unless `may_be_none`), for closures
        that read it directly."""
        if isinstance(node, Name) and (may_be_none or not isinstance(self.info.types.get(id(node)), T.OptionalType)):
            res = self.info.names.get(id(node))
            if res is not None and res.kind == "local":
                return res.slot
        return None

    def need(self, node, fn: Fn) -> Fn:
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


    def generate(self, node: Comprehension) -> Fn:
        """A comprehension's values, in order, as a list (the shared loop of lists, sets, aggregates)."""
        clauses = [(self.expr(c.iterable), self.info.slots[id(c.var)],
                    self.expr(c.condition) if c.condition is not None else None) for c in node.clauses]
        elt = self.expr(node.element)
        span = node.span
        if len(clauses) == 1:
            it, slot, cond = clauses[0]

            def gen1(env):
                items = budgeted_items(it(env), env, span)  # one step per element, spent before the loop
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
                for v in budgeted_items(it(env), env, span):
                    env[slot] = v
                    if cond is None or cond(env):
                        loop(i + 1)
            loop(0)
            return out
        return gen

    def truths(self, node: Comprehension) -> Fn:
        """Whether each value of a comprehension of one `for` is true, worked out as they are asked
        for (`any` and `all` that stop at the value that decides them: compile_calls.py `stops_early`)."""
        clause = node.clauses[0]
        it, slot = self.expr(clause.iterable), self.info.slots[id(clause.var)]
        cond = self.expr(clause.condition) if clause.condition is not None else None
        elt = self.expr(node.element)
        span = node.span

        def truths(env):
            for v in budgeted_items(it(env), env, span):  # one step per element, spent before the loop
                env[slot] = v
                if cond is None or cond(env):
                    yield elt(env) is True
        return truths

    def _Comprehension(self, node: Comprehension):
        gen = self.generate(node)
        if node.kind == "set":
            return (lambda env: LSet(gen(env))), NO_VALUE
        return (lambda env: tuple(gen(env))), NO_VALUE

    def _BestOf(self, node: BestOf):
        count = self.expr(node.count)
        if isinstance(node.collection, Comprehension):
            coll = self.generate(node.collection)
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

    def _Field(self, node: Field):
        fi = self.info.fields[id(node)]
        if fi.kind == "member":
            return self._const(fi.value)
        obj = self.need(node.obj, self.expr(node.obj))
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

        slot = self.local_slot(obj_node)
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

    def _Index(self, node: Index):
        obj = self.need(node.obj, self.expr(node.obj))
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

    def _Unary(self, node: Unary):
        f, c = self._c(node.operand)
        if node.op == "+":
            return f, c
        if c is not NO_VALUE:
            return self._const(-c)
        f = self.need(node.operand, f)
        return (lambda env: -f(env)), NO_VALUE

    def _Binary(self, node: Binary):
        lf, lc = self._c(node.left)
        rf, rc = self._c(node.right)
        op = node.op
        span = node.span
        lt, rt = self.info.types.get(id(node.left)), self.info.types.get(id(node.right))
        if T.strip_optional(lt) == T.TEXT or isinstance(T.strip_optional(lt), T.ListType):
            lf, rf = self.need(node.left, lf), self.need(node.right, rf)
            is_text = T.strip_optional(lt) == T.TEXT
            if lc is not NO_VALUE and rc is not NO_VALUE:
                return self._const(joined(lc + rc, is_text, span))

            def join(env):
                return joined(lf(env) + rf(env), is_text, span)
            return join, NO_VALUE
        fn = ARITHMETIC[op]
        if lc is not NO_VALUE and rc is not NO_VALUE:
            return self._const(fn(lc, rc, span))
        lf, rf = self.need(node.left, lf), self.need(node.right, rf)
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

    def _Compare(self, node: Compare):
        lf, lc = self._c(node.left)
        rf, rc = self._c(node.right)
        op = node.op
        cmp = COMPARISONS[op]
        if lc is not NO_VALUE and rc is not NO_VALUE:
            return self._const(cmp(lc, rc))
        if op not in ("==", "!="):
            lf, rf = self.need(node.left, lf), self.need(node.right, rf)
        if rc is not NO_VALUE:
            if op == "==":
                return (lambda env: lf(env) == rc), NO_VALUE
            if op == "<=":
                return (lambda env: lf(env) <= rc), NO_VALUE
            return (lambda env: cmp(lf(env), rc)), NO_VALUE
        if op == "==":
            # `controller(x) == p` compares names, so p may be none (equal only to no controller)
            qslot = self.local_slot(node.right, may_be_none=True)
            fused = self.query_equals_local(node.left, qslot, node.span) if qslot is not None else None
            if fused is not None:
                return fused, NO_VALUE
            rslot = self.local_slot(node.right)
            if rslot is not None:
                return (lambda env: lf(env) == env[rslot]), NO_VALUE
            return (lambda env: lf(env) == rf(env)), NO_VALUE
        return (lambda env: cmp(lf(env), rf(env))), NO_VALUE

    def _In(self, node: In):
        ef = self.expr(node.element)
        cf = self.need(node.collection, self.expr(node.collection))
        negated = node.negated
        if negated:
            return (lambda env: ef(env) not in cf(env)), NO_VALUE
        return (lambda env: ef(env) in cf(env)), NO_VALUE

    def _BoolOp(self, node: BoolOp):
        lf, rf = self.expr(node.left), self.expr(node.right)
        if node.op == "and":
            return (lambda env: lf(env) and rf(env)), NO_VALUE
        return (lambda env: lf(env) or rf(env)), NO_VALUE

    def _Not(self, node: Not):
        f, c = self._c(node.operand)
        if c is not NO_VALUE:
            return self._const(not c)
        return (lambda env: not f(env)), NO_VALUE

    def _Range(self, node: Range):
        lo, hi = self.expr(node.lo), self.expr(node.hi)
        span = node.span

        def rng(env):
            a, b = lo(env), hi(env)
            check_size(b - a + 1, span)
            return tuple(range(a, b + 1))
        return rng, NO_VALUE

    def _If(self, node: If):
        cf, cc = self._c(node.cond)
        tf, ef = self.expr(node.then), self.expr(node.else_)
        if cc is not NO_VALUE:
            return (tf if cc else ef), NO_VALUE
        return (lambda env: tf(env) if cf(env) else ef(env)), NO_VALUE

    def _Lambda(self, node):
        raise AssertionError("lambdas are compiled as built-in arguments")

    # ----------------------------------------------------------------------- literals

    def _ListLit(self, node):
        return self._collection(node, tuple)

    def _SetLit(self, node):
        return self._collection(node, LSet)

    def _collection(self, node, make: Callable) -> tuple[Fn, Any]:
        """A list or set literal (`make` builds it from its items): its value when every item is
        constant, else a closure building it."""
        items = [self._c(i) for i in node.items]
        if all(c is not NO_VALUE for _, c in items):
            return self._const(make(c for _, c in items))
        fns = [f for f, _ in items]
        return (lambda env: make(f(env) for f in fns)), NO_VALUE

    def _RecordLit(self, node):
        target = T.strip_optional(self.info.types.get(id(node)))
        order = [n for n, _ in target.fields] if isinstance(target, T.RecordType) else None
        fields = {ident.text: self.expr(value) for ident, value in node.fields}
        names = order if order is not None else list(fields)
        pairs = [(n, fields[n]) for n in names if n in fields]
        return (lambda env: Record((n, f(env)) for n, f in pairs)), NO_VALUE

    def _Explain(self, node: Explain):
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
