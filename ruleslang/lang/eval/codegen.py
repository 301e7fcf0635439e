"""Codegen: formulas and modifier lists written out as Python source, compiled once, run directly.

The closure compiler (`compile.py`) pays a Python call per node of a rule. This module writes one
Python function per definition instead: parameters and `let` lines are the function's local
variables, constants are folded, calls between definitions are direct calls, tables whose rows are
all constants are dictionary look-ups, `min` and `max` of two numbers are conditionals, and
comprehensions are Python comprehensions. The source is `compile()`d once, when the definition is
first used (and kept by source for the other programs of the process).

This module holds the expression writers (`Generator`) and the functions of formulas and modifier
lists; `codegen_blocks.py` writes the statements of phases, hooks, constraints and checks with the
same writers; `codegen_runtime.py` holds what generated code calls, the assembly of a function
and the map from its compiled code back to rule spans.

What stays the same as the closures (the property test, tests/test_codegen.py, holds both back ends
to it): every value; every die through `host.roll` with the span of the rule that rolled it, in the
same order; the step budget spent per call and per loop element, never per node; every error with
its code, message and the rule span the closures give it.

Errors. A check with a place of its own (none where a value is needed, a table without the key, the
budget) raises with its span as the closures do. An error a built-in raises without a place takes
the span of the innermost built-in call around it: each such call is marked in the source as it is
written, the marks become (line, columns) ranges of the compiled code, and when an error leaves a
generated function, the traceback's instruction position (PEP 657) is looked up in those ranges.

Safety. No text of a rule reaches the source: local variables are `s<slot>`, and every value other
than a whole number, true, false or none (texts, names, spans, tables, built-ins) is handed in
through the function's globals under a generated name (`_k<n>`). A rule file cannot write Python.

Not generated yet (the definition runs on the closures; docs/performance.md lists them): the exact
built-ins (`probability`, `expected`, `distribution`), `explain`, ranges without an end, and a
unit's or space's attribute read inside the collection a comprehension goes through.
`CompiledProgram` asks `generate` for each definition and falls back when it raises `Unsupported`.
"""

from __future__ import annotations

import os
import re
from typing import Any, Callable

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.limits import MAX_INT_BITS
from ruleslang.board.queries import BoardQueries
from ruleslang.lang import types as T
from ruleslang.lang.builtins.registry import REGISTRY as BUILTINS
from ruleslang.lang.eval.codegen_runtime import HELPERS, ConstantTable, RowIndex, SpaceAttribute, Unsupported, assemble
from ruleslang.lang.eval.constant_filters import SpaceFilter, space_terms
from ruleslang.lang.eval.compile_calls import (ACCEPTS_NONE, DIRECT_QUERIES, fast_aggregate, lambda_free_slots, ordered_args,
                                               stops_early)
from ruleslang.lang.eval.operations import ARITHMETIC, COMPARISONS, NO_VALUE, joined
from ruleslang.lang.syntax.expressions import Binary, Call, Compare, Comprehension, Field, Lambda, Name
from ruleslang.lang.syntax.statements import Let
from ruleslang.lang.syntax.declarations import AdviceDecl, FormulaDecl, ModifiersDecl, OptionalType
from ruleslang.lang.values import LSet, normalize_number

# The back end that runs definitions: "codegen" (the default) or "closures" (RULESLANG_EVAL=closures).
BACKENDS = ("codegen", "closures")
_LIMIT = 1 << MAX_INT_BITS


def default_backend() -> str:
    """The back end named by RULESLANG_EVAL ("codegen" when unset); another name is refused (E580)."""
    name = os.environ.get("RULESLANG_EVAL", "codegen").strip() or "codegen"
    if name not in BACKENDS:
        raise DiagnosticError(error("E580", f"RULESLANG_EVAL is '{name}', expected one of {', '.join(BACKENDS)}",
                                    file="RULESLANG_EVAL", hint="unset it to run the default, codegen"))
    return name


# ----------------------------------------------------------------------------- the generator


class _Code:
    """Python source for one expression: its text, and its value when it folds to a constant."""

    __slots__ = ("src", "const")

    def __init__(self, src: str, const: Any = NO_VALUE):
        self.src = src
        self.const = const


def _is_plain_const(value) -> bool:
    return value is None or value is True or value is False or type(value) is int


_SIMPLE = re.compile(r"\(?-?[0-9]+\)?|[a-z][a-z0-9_]*")


def _is_simple(code: _Code) -> bool:
    """Whether a value's source is a constant or a name: read twice, it costs nothing and does
    nothing twice."""
    return code.const is not NO_VALUE or _SIMPLE.fullmatch(code.src) is not None


class Generator:
    """Writes one definition of a compiled program as Python source."""

    def __init__(self, compiled):
        self.compiled = compiled
        self.info = compiled.info
        self.ns: dict[str, Any] = dict(HELPERS)
        self.consts: dict = {}  # id of a value (or ('named', value)) -> its name
        self.spans: list = []
        self.temps = 0
        self.in_iterable = 0

    # ---------------------------------------------------------------------- plumbing

    def const(self, value) -> str:
        """A value in the source: whole numbers, true, false and none written out, others by name."""
        if _is_plain_const(value):
            return f"({value!r})" if type(value) is int and value < 0 else repr(value)
        key = id(value)
        name = self.consts.get(key)
        if name is None:
            name = self.consts[key] = f"_k{len(self.consts)}"
            self.ns[name] = value
        return name

    def named(self, value) -> str:
        """A value in the source by a generated name, whatever it is."""
        key = ("named", value)
        name = self.consts.get(key)
        if name is None:
            name = self.consts[key] = f"_k{len(self.consts)}"
            self.ns[name] = value
        return name

    def marked(self, src: str, span) -> str:
        """A built-in call's source, marked so an error it raises without a place gets `span`."""
        i = len(self.spans)
        self.spans.append(span)
        return f"\x01{i}\x02{src}\x03{i}\x04"

    def temp(self) -> str:
        if self.in_iterable:
            raise Unsupported("a temporary inside a comprehension's collection")
        self.temps += 1
        return f"w{self.temps}"

    def type_of(self, node):
        return self.info.types.get(id(node))

    def optional(self, node) -> bool:
        return isinstance(self.type_of(node), T.OptionalType)

    def local_slot(self, node) -> int | None:
        if isinstance(node, Name):
            res = self.info.names.get(id(node))
            if res is not None and res.kind == "local":
                return res.slot
        return None

    def need(self, node, code: _Code) -> str:
        """The source of a value required not to be none (E504 at the node otherwise)."""
        if not self.optional(node):
            return code.src
        return f"_need({code.src}, {self.const(node.span)})"

    # ---------------------------------------------------------------------- definitions

    def formula(self, decl: FormulaDecl, name: str) -> Callable:
        params = [f"s{i + 1}" for i in range(len(decl.params or ()))]
        body = ["host = ctx.host", "host.steps -= 1", "if host.steps < 0:",
                f"    host.out_of_budget({self.const(decl.name.span)})"]
        inner = []
        for let in decl.lets:
            inner += self.assign(f"s{self.info.slots[id(let.name)]}", let.value)
        result = self.temp()
        loop = self._sum_loop(result, decl.body)
        inner += [f"return {self.expr(decl.body).src}"] if loop is None else [*loop, f"return {result}"]
        return self._function(name, params, body, inner)

    def assign(self, target: str, node) -> list[str]:
        """Lines giving `target` the value of `node` (a `let`, a formula's body): one assignment,
        or, for a whole-number `sum` of one loop, the loop itself with a running total (no list
        comprehension made and called, no list summed)."""
        loop = self._sum_loop(target, node)
        if loop is not None:
            return loop
        return [f"{target} = {self.expr(node).src}"]

    def _sum_loop(self, target: str, node) -> list[str] | None:
        """`sum(E for x in S where C)` of whole numbers as a Python `for` loop: the budget spent on S's elements
        before the loop starts and the total held to the number limit at the end, at the call's span, as
        the comprehension form does; None for any other shape (the fused `where controller(x) == p` form too)."""
        if self.in_iterable or not isinstance(node, Call) or node.kwargs:
            return None
        info = self.info.calls.get(id(node))
        if info is None or info.kind != "builtin" or info.name != "sum":
            return None
        aggregate = fast_aggregate(node.args, "sum", self.info.types)
        if aggregate is None or aggregate[1] != T.INT or len(aggregate[0].clauses) != 1:
            return None
        comp = aggregate[0]
        clause = comp.clauses[0]
        if self._controlled_shape(clause):
            return None
        span = self.const(node.span)
        items, cond = self.loop(clause, span)
        lines = [f"{target} = 0", f"for s{self.info.slots[id(clause.var)]} in {items}:"]
        add = [f"{target} += {self.expr(comp.element).src}"]
        if cond is not None:
            add = [f"if {cond}:", *("    " + a for a in add)]
        lines += ["    " + a for a in add]
        lines.append(f"if not {-_LIMIT} < {target} < {_LIMIT}:")
        lines.append(f"    _too_big({span})")
        return lines

    def modifiers(self, decl: ModifiersDecl, name: str) -> Callable:
        params = [f"s{i + 1}" for i in range(len(decl.params or ()))]
        body = ["host = ctx.host", "host.steps -= 1", "if host.steps < 0:",
                f"    host.out_of_budget({self.const(decl.name.span)})"]
        inner = ["total = 0"]
        whole = True
        for item in decl.items:
            if isinstance(item, Let):
                inner.append(f"s{self.info.slots[id(item.name)]} = {self.expr(item.value).src}")
                continue
            whole = whole and self.type_of(item.value) == T.INT
            op = "-=" if item.sign == "-" else "+="
            value = self.expr(item.value).src
            if item.condition is None:
                inner.append(f"total {op} {value}")
            else:
                cond = self.expr(item.condition).src
                # a value typed bool is True or False (or none when optional): no `is True` needed
                boolean = T.strip_optional(self.type_of(item.condition)) == T.BOOL
                inner.append(f"if {cond}:" if boolean else f"if ({cond}) is True:")
                inner.append(f"    total {op} {value}")
        inner.append("return total" if whole else "return _normalize(total)")
        return self._function(name, params, body, inner)

    def _function(self, name: str, params: list[str], prologue: list[str], inner: list[str]) -> Callable:
        return assemble(name, ["ctx"] + params, prologue, inner, self.ns, self.spans)

    # ---------------------------------------------------------------------- expressions

    def expr(self, node) -> _Code:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise Unsupported(type(node).__name__)
        code = method(node)
        if code.const is not NO_VALUE:
            return _Code(self.const(code.const), code.const)
        return code

    def _IntLit(self, node):
        return _Code("", node.value)

    def _DecimalLit(self, node):
        return _Code("", normalize_number(node.value))

    def _BoolLit(self, node):
        return _Code("", node.value)

    def _NoneLit(self, node):
        return _Code("", None)

    def _StringLit(self, node):
        if id(node) in self.info.coerce:
            return _Code("", self.info.coerce[id(node)])
        if node.is_plain:
            return _Code("", node.plain)
        parts = [self.const(p) if isinstance(p, str) else f"_display({self.expr(p).src})" for p in node.parts]
        return _Code(f"_text({self.const(node.span)}, {', '.join(parts)})")

    def _DiceLit(self, node):
        span = self.const(node.span)
        if node.count == 1:
            return _Code(f"host.roll({node.sides}, {span})")
        return _Code(f"host.roll_sum({node.count}, {node.sides}, {span})")

    def _Name(self, node):
        res = self.info.names[id(node)]
        if res.kind == "local":
            return _Code(f"s{res.slot}")
        if res.kind == "const":
            return _Code("", res.value)
        sym = res.symbol
        kind, name = sym.kind, sym.name
        compiled = self.compiled
        if kind == "option":
            return _Code(f"ctx.options[{self.const(name)}]")
        if kind == "fact":
            return _Code(f"_fact(ctx, {self.const(name)}, {self.const(compiled.fact_default(name))}, "
                         f"{self.const(node.span)})")
        if kind == "constant":
            folded = compiled.constant_value(name)
            if folded is not NO_VALUE:
                return _Code("", folded)
            return _Code(f"{self.const(compiled.callable(name))}(ctx)")
        if kind == "counter" and compiled.coverage is None:
            return self._counter(name, [])
        if kind in ("formula", "modifiers", "counter"):
            return _Code(f"{self.const(compiled.callable(name))}(ctx)")
        if kind in ("table", "die table"):
            return _Code("", compiled.table(name))
        if kind == "sequence":
            return _Code("", tuple(item.text for item in compiled.symbols[name].decl.items))
        raise Unsupported(f"name of kind {kind}")

    # ---------------------------------------------------------------------- operators

    def _Unary(self, node):
        code = self.expr(node.operand)
        if node.op == "+":
            return code
        if code.const is not NO_VALUE:
            return _Code("", -code.const)
        return _Code(f"(-{self.need(node.operand, code)})")

    def _Binary(self, node):
        left, right = self.expr(node.left), self.expr(node.right)
        op, span = node.op, node.span
        lt, rt = self.type_of(node.left), self.type_of(node.right)
        base = T.strip_optional(lt)
        if base == T.TEXT or isinstance(base, T.ListType):
            is_text = base == T.TEXT
            if left.const is not NO_VALUE and right.const is not NO_VALUE:
                return _Code("", joined(left.const + right.const, is_text, span))
            ls, rs = self.need(node.left, left), self.need(node.right, right)
            return _Code(f"_joined({ls} + {rs}, {is_text}, {self.const(span)})")
        if left.const is not NO_VALUE and right.const is not NO_VALUE:
            return _Code("", ARITHMETIC[op](left.const, right.const, span))
        ls, rs = self.need(node.left, left), self.need(node.right, right)
        if lt == T.INT and rt == T.INT and op in ("+", "-"):
            return _Code(f"({ls} {op} {rs})")
        if lt == T.INT and rt == T.INT and op == "*":
            return self._bounded_int(f"{ls} * {rs}", span)
        return _Code(f"{self.const(ARITHMETIC[op])}({ls}, {rs}, {self.const(span)})")

    def _bounded_int(self, src: str, span) -> _Code:
        """A whole number held to the bit limit (E509 at `span`): checked in line where a
        temporary may be used, else by a helper."""
        if self.in_iterable:
            return _Code(f"_total({src}, {self.const(span)})")
        w = self.temp()
        return _Code(f"({w} if {-_LIMIT} < ({w} := {src}) < {_LIMIT} else _too_big({self.const(span)}))")

    def _Compare(self, node):
        left, right = self.expr(node.left), self.expr(node.right)
        op = node.op
        if left.const is not NO_VALUE and right.const is not NO_VALUE:
            return _Code("", COMPARISONS[op](left.const, right.const))
        ls, rs = left.src, right.src
        if op not in ("==", "!="):
            ls, rs = self.need(node.left, left), self.need(node.right, right)
        return _Code(f"({ls} {op} {rs})")

    def _In(self, node):
        element = self.expr(node.element)
        side = self._members_of(node.collection)
        if side is not None:
            # `p in members(s)`: the side's players as a hashed set, kept (the test a set makes)
            sets = self.const(self.compiled.side_member_lookups())
            collection = self.marked(f"{sets}[{self.expr(side).src}.name]", node.collection.span)
        else:
            collection = self.need(node.collection, self.expr(node.collection))
        return _Code(f"({element.src} {'not in' if node.negated else 'in'} {collection})")

    def _BoolOp(self, node):
        left, right = self.expr(node.left), self.expr(node.right)
        return _Code(f"({left.src} {node.op} {right.src})")

    def _Not(self, node):
        code = self.expr(node.operand)
        if code.const is not NO_VALUE:
            return _Code("", not code.const)
        return _Code(f"(not {code.src})")

    def _If(self, node):
        cond = self.expr(node.cond)
        if cond.const is not NO_VALUE:
            return self._branch(node.then if cond.const else node.else_)
        then, else_ = self.expr(node.then), self.expr(node.else_)
        return _Code(f"({then.src} if {cond.src} else {else_.src})")

    def _branch(self, node):
        # the branch chosen at compile time is not folded further (as the closures do)
        code = self.expr(node)
        return _Code(code.src)

    def _Range(self, node):
        if node.hi is None:
            raise Unsupported("a range without an end")
        lo, hi = self.expr(node.lo), self.expr(node.hi)
        return _Code(f"_range({lo.src}, {hi.src}, {self.const(node.span)})")

    def _Index(self, node):
        obj = self.need(node.obj, self.expr(node.obj))
        return _Code(f"_index({obj}, {self.expr(node.index).src}, {self.const(node.span)})")

    # ---------------------------------------------------------------------- literals

    def _ListLit(self, node):
        items = [self.expr(i) for i in node.items]
        if all(c.const is not NO_VALUE for c in items):
            return _Code("", tuple(c.const for c in items))
        return _Code(f"({''.join(c.src + ', ' for c in items)})")

    def _SetLit(self, node):
        items = [self.expr(i) for i in node.items]
        if all(c.const is not NO_VALUE for c in items):
            return _Code("", LSet(c.const for c in items))
        return _Code(f"_LSet(({''.join(c.src + ', ' for c in items)}))")

    def _RecordLit(self, node):
        target = T.strip_optional(self.type_of(node))
        order = [n for n, _ in target.fields] if isinstance(target, T.RecordType) else None
        fields = {ident.text: self.expr(value).src for ident, value in node.fields}
        names = order if order is not None else list(fields)
        pairs = "".join(f"({self.const(n)}, {fields[n]}), " for n in names if n in fields)
        return _Code(f"_Record(({pairs}))")

    # ---------------------------------------------------------------------- fields

    def _Field(self, node):
        fi = self.info.fields[id(node)]
        if fi.kind == "member":
            return _Code("", fi.value)
        if fi.kind == "record" and isinstance(node.obj, Call):
            fused = self._table_column(node.obj, fi.name)
            if fused is not None:
                return fused
        obj = self.need(node.obj, self.expr(node.obj))
        name, span = fi.name, node.span
        if fi.kind == "record":
            return _Code(f"{obj}.get({self.const(name)})")
        if fi.kind == "enumname":
            return _Code(f"{obj}.name")
        if fi.kind == "unit" and name in ("id", "type", "owner", "space", "hits", "moved"):
            return _Code(f"{obj}.{name}")
        compiled = self.const(self.compiled)
        if fi.kind == "unit" and name == "tags":
            return _Code(f"{compiled}.tags_value({obj}.type.name)")
        if fi.kind == "unittype" and name == "tags":
            return _Code(f"{compiled}.tags_value({obj}.name)")
        if fi.kind == "unittype" and name == "name":
            return _Code(f"{obj}.name")
        if fi.kind in ("unit", "unittype"):
            # a constant value (most costs, attack and defence values ...) read from the program's
            # table of them; any other asked of the context, which works it out (a watch notes its reads)
            table = self.compiled.unit_attribute_constants(name)
            constants = self.const(table)
            if len(table) == len(self.compiled.scope.enums["unittype"].by_name):
                # every type's value is a constant: read by the type's name, without a call (the
                # rules read attack values and costs of every unit a battle or a plan looks at)
                return _Code(self.marked(f"{constants}[{obj}{'.type' if fi.kind == 'unit' else ''}.name]", span))
            return _Code(self.marked(f"_unit_attribute(ctx, {obj}, {self.const(name)}, {constants})", span))
        if fi.kind == "space":
            values = self.const(SpaceAttribute(self.compiled, name, span))
            w = self.temp()
            return _Code(f"({values}[{w}] if ({w} := {obj}.name) in {values} else {values}.read(ctx, {w}))")
        if fi.kind == "player":
            return _Code(f"_side(ctx, {obj}, {self.const(span)})")
        if fi.kind == "side":
            return _Code(f"_LSet(ctx.side_members({obj}.name))")
        raise Unsupported(f"field of kind {fi.kind}")

    def _table_column(self, call: Call, column: str):
        """`t(k).column` of a table of constant rows, as one dictionary look-up; None otherwise."""
        info = self.info.calls.get(id(call))
        if info is None or info.kind not in ("table", "die table") or self.optional(call):
            return None
        return self._table(call, info.name, column)

    # ---------------------------------------------------------------------- calls

    def _Call(self, node):
        info = self.info.calls[id(node)]
        if info.kind == "builtin":
            return self._builtin(node, info.name)
        if info.kind in ("table", "die table"):
            return self._table(node, info.name)
        args = ordered_args(node, info.symbol.decl, self._arg)  # in parameter order, as the closures
        if info.symbol.kind == "counter" and self.compiled.coverage is None:
            return self._counter(info.name, args)
        fn = self.const(self.compiled.callable(info.name))
        if self.keeps(node, info):
            return _Code(f"_kept_call({', '.join(['ctx', fn] + args)})")
        return _Code(f"{fn}({', '.join(['ctx'] + args)})")

    def keeps(self, node, info) -> bool:
        """Whether a call of a definition goes through `_kept_call` (statements.kept_call): only in
        a constraint's block (codegen_blocks.py)."""
        return False

    def _counter(self, name: str, args: list[str]):
        """A counter read as the context's `counter(name, key)` itself, which its callable
        (`CompiledProgram.callable`) only hands the key to: the rules read counters in loops."""
        key = f"({args[0]},)" if len(args) == 1 else f"({', '.join(args)})"
        return _Code(f"ctx.counter({self.const(name)}, {key})")

    def _table(self, node, name, column: str | None = None):
        """A table read; with `column`, that column of the row (only for tables of constant rows:
        None otherwise)."""
        table = self.compiled.table(name)
        rows = table.constant_rows() if self.compiled.coverage is None else None
        if column is not None and rows is None:
            return None
        keys = [self.expr(a).src for a in node.args]
        if rows is not None:
            single = len(keys) == 1
            d = self.const(ConstantTable(rows, table, node.span, single, column))
            return _Code(f"{d}[{keys[0]}]" if single else f"{d}[({', '.join(keys)},)]")
        return _Code(f"{self.const(table)}.lookup(ctx, ({', '.join(keys)},), {self.const(node.span)})")

    def _arg(self, node, param) -> str:
        code = self.expr(node)
        if param is not None and not isinstance(param.type, OptionalType):
            return self.need(node, code)
        return code.src

    def lambda_parts(self, node: Lambda) -> tuple[str, str]:
        """A condition as a Python lambda's source, and the source of its cache key (this
        condition and the values of the outer locals it reads, as the closures key it)."""
        slot = self.info.slots[id(node.param)]
        body = self.expr(node.body).src
        free = lambda_free_slots(self.info, node)
        # the condition's identity by name, not written out: the source stays the same for the
        # same rules (compiled code is kept by source: codegen_runtime.assemble)
        return f"lambda s{slot}: {body}", f"({self.named(id(node))}, ({''.join(f's{s}, ' for s in free)}))"

    def condition(self, node: Lambda) -> str:
        fn, key = self.lambda_parts(node)
        return f"_condition({fn}, {key})"

    def _builtin(self, node, name):
        bi = BUILTINS[name]
        span = node.span
        if name in ("probability", "expected", "distribution"):
            raise Unsupported("exact built-ins")
        fast = self._fast_builtin(node, name)
        if fast is not None:
            return fast
        impl = self.const(bi.impl)
        if len(node.args) == 1 and isinstance(node.args[0], Comprehension) and node.args[0].kind == "gen":
            return _Code(self.marked(f"{impl}(ctx, {self.generate(node.args[0], node.args[0].span)})", span))
        guard = name not in ACCEPTS_NONE

        def argument(a) -> str:
            if isinstance(a, Lambda):
                return self.condition(a)
            return self.need(a, self.expr(a)) if guard else self.expr(a).src
        args = [argument(a) for a in node.args]
        args += [f"**{{{self.const(k.name.text)}: {argument(k.value)}}}" for k in node.kwargs]
        return _Code(self.marked(f"{impl}({', '.join(['ctx'] + args)})", span))

    def _members_of(self, node):
        """The side `s` of a call `members(s)` (s not optional), else None."""
        if not isinstance(node, Call) or node.kwargs or len(node.args) != 1:
            return None
        info = self.info.calls.get(id(node))
        if info is None or info.kind != "builtin" or info.name != "members" or self.optional(node.args[0]):
            return None
        return node.args[0]

    def _fast_builtin(self, node, name):
        args = node.args
        if node.kwargs:
            return None
        span = node.span
        types = self.info.types
        if name == "connected" and len(args) == 2 and isinstance(args[1], Lambda):
            space = self.need(args[0], self.expr(args[0]))
            fn, key = self.lambda_parts(args[1])
            impl = self.const(BUILTINS[name].impl)
            return _Code(self.marked(f"_connected(ctx, {space}, {key}, {fn}, {impl})", span))
        if name in ("min", "max") and len(args) == 2 and all(
                T.is_numeric(types.get(id(a))) and not isinstance(types.get(id(a)), T.AnyType) for a in args):
            a, b = self.expr(args[0]), self.expr(args[1])
            if self.in_iterable:
                return _Code(f"_{name}({a.src}, {b.src})")
            return self._pick(name, a, b)
        if name == "has_tag" and len(args) == 2 and self.type_of(args[0]) in (T.UNIT, T.UNITTYPE):
            tag = self.expr(args[1])
            if tag.const is not NO_VALUE and tag.const is not None:
                # a unit's (or unit type's) tag named in the rule: its type's name in the program's
                # set of the types with that tag, in line (what `unit_has_any_tag` answers; the
                # battle steps ask it of every unit of a side, the exact chain's over and over)
                unit = self.expr(args[0]).src
                type_name = f"{unit}.type.name" if self.type_of(args[0]) == T.UNIT else f"{unit}.name"
                return _Code(f"({type_name} in {self.const(self.compiled.types_with_tag(tag.const.name))})")
        if name == "rows" and len(args) == 1 and self.compiled.coverage is None:
            table = self.expr(args[0]).const
            records = table.constant_records() if getattr(table, "constant_records", None) else None
            if records is not None:
                # every row constant: the records the table makes once, in line
                return _Code(self.const(records))
        if self._members_of(node) is not None:
            # a side's players: the set the program keeps, asked straight (a score asks it per row)
            sets = self.const(self.compiled.side_member_sets())
            return _Code(self.marked(f"{sets}[{self.expr(args[0]).src}.name]", span))
        if name in DIRECT_QUERIES and len(args) == 1:
            method, gives_player = DIRECT_QUERIES[name]
            arg = self.need(args[0], self.expr(args[0]))
            if method == "known_controller" and not self.optional(args[0]):
                # the commonest read of rules, straight from the state (the closures do so too); an
                # argument other than a local (a row's field, say) is marked, as the call it stands for
                src = f"ctx.player_values.get(ctx.board.state.control.get({arg}.name))"
                return _Code(src if self.local_slot(args[0]) is not None else self.marked(src, span))
            call = self.const(getattr(BoardQueries, method))
            if gives_player:
                return _Code(self.marked(f"ctx.player_values.get({call}(ctx.board, {arg}.name))", span))
            return _Code(self.marked(f"{call}(ctx.board, {arg}.name)", span))
        if name in ("floor", "ceil") and len(args) == 1 and isinstance(args[0], Binary) \
                and args[0].op == "/" and types.get(id(args[0].left)) == T.INT \
                and types.get(id(args[0].right)) == T.INT:
            num, den = self.expr(args[0].left), self.expr(args[0].right)
            if type(den.const) is int and den.const != 0:
                # a divisor known not to be zero: Python's own floor division
                return _Code(f"({num.src} // {den.src})" if name == "floor" else f"(-(-{num.src} // {den.src}))")
            return _Code(f"_int_div({num.src}, {den.src}, {name == 'floor'}, {self.const(span)})")
        aggregate = fast_aggregate(args, name, types)
        if aggregate is not None:
            comp, elem = aggregate
            if name == "sum" and elem == T.INT:
                # one loop: the budget is spent at the call's span, as the closures' one-loop sum does
                gen = self._sum_controlled(comp, span) if len(comp.clauses) == 1 else None
                if gen is None:
                    gen = self.generate(comp, span if len(comp.clauses) == 1 else comp.span)
                return self._bounded_int(f"_sum({gen})", span)
            if name in ("any", "all") and stops_early(comp, self.info):
                # the values worked out one by one until the first that decides (`stops_early`)
                return _Code(f"_{name}{self.generate(comp, comp.span, truths=True)}")
            gen = self.generate(comp, comp.span)
            if name == "sum":
                return _Code(self.marked(f"_fraction_sum({gen}, {self.const(span)})", span))
            if name == "count":
                return _Code(f"_len({gen})")
            if name in ("any", "all"):
                w = f"v{id(comp)}"
                return _Code(f"_{name}([{w} is True for {w} in {gen}])")
            return _Code(f"_extreme(_{name}, {gen}, {self.const(name)}, {self.const(span)})")
        return None

    def _pick(self, name: str, a: _Code, b: _Code) -> _Code:
        """`min(a, b)` or `max(a, b)` of two numbers as a conditional expression: Python's own
        built-ins parse their arguments as an iterable or keywords on every call, which cost more
        than the rest of a short formula. The same value as the built-in: `max` keeps the first
        unless the second is greater (`a if a >= b else b`: numbers are totally ordered), `min`
        unless it is less; `a` is worked out before `b`, as the call does."""
        test = ">=" if name == "max" else "<="
        first = a.src if _is_simple(a) else None
        second = b.src if _is_simple(b) else None
        if first is None:
            first = self.temp()
            head = f"({first} := {a.src})"
        else:
            head = first
        if second is None:
            second = self.temp()
            tail = f"({second} := {b.src})"
        else:
            tail = second
        return _Code(f"({first} if {head} {test} {tail} else {second})")

    # ---------------------------------------------------------------------- comprehensions

    def generate(self, node: Comprehension, budget_span, truths: bool = False) -> str:
        """A comprehension's values as a Python list comprehension. Every loop spends a step per
        element before it starts; with more than one `for`, the values are counted as they come
        and refused past the collection limit (E510 at the comprehension, as the closures do,
        though before the value past the limit is worked out rather than after). `truths`: as
        a generator of whether each value is true (`any` and `all` that stop early), its values
        worked out as they are asked for."""
        indexed = self._rows_where(node, budget_span)
        if indexed is not None:
            if truths:
                w = f"v{id(node)}"
                return f"({w} is True for {w} in {indexed})"
            return indexed
        parts = []
        span = self.const(budget_span)
        for clause in node.clauses:
            items, cond = self.loop(clause, span)
            parts.append(f"for s{self.info.slots[id(clause.var)]} in {items}")
            if cond is not None:
                parts.append(f"if {cond}")
        element = self.expr(node.element).src
        if len(node.clauses) > 1:
            parts.insert(0, "for made in (_Made(),)")
            parts.append(f"if made.one_more({self.const(node.span)})")
        if truths:
            return f"(({element}) is True {' '.join(parts)})"
        return f"[{element} {' '.join(parts)}]"

    def _rows_where(self, node: Comprehension, budget_span) -> str | None:
        """`[r for r in rows(t) where r.column == x]` (or `x == r.column`), x a local other than r:
        the rows found through an index of the column (`RowIndex`), the budget spent per row as
        the loop spends it; None for any other shape. (x is a local: reading it once instead of
        once per row reads the same value, with nothing rolled or refused.)"""
        if len(node.clauses) != 1 or self.in_iterable:
            return None
        clause = node.clauses[0]
        cond = clause.condition
        slot = self.info.slots[id(clause.var)]
        if self.local_slot(node.element) != slot or not (isinstance(cond, Compare) and cond.op == "=="):
            return None
        call = clause.iterable
        info = self.info.calls.get(id(call)) if isinstance(call, Call) else None
        if info is None or info.kind != "builtin" or info.name != "rows":
            return None
        for field, other in ((cond.left, cond.right), (cond.right, cond.left)):
            if not isinstance(field, Field) or self.local_slot(field.obj) != slot:
                continue
            fi = self.info.fields.get(id(field))
            value = self.local_slot(other)
            if fi is None or fi.kind != "record" or value is None or value == slot:
                continue
            rows = self.iterable(call)
            return (f"{self.const(RowIndex(fi.name))}.find({rows}, s{value}, host, "
                    f"{self.const(budget_span)})")
        return None

    def _sum_controlled(self, comp: Comprehension, span) -> str | None:
        """`sum(E for x in S where controller(x) == p)` (or `owner`), p a local that may be none:
        the state's control table and p's name read once, after the budget is spent (as the
        closures' fused sum does); None for any other shape."""
        clause = comp.clauses[0]
        if not self._controlled_shape(clause) or self.in_iterable:
            return None
        cond = clause.condition
        slot = self.info.slots[id(clause.var)]
        pslot = self.local_slot(cond.right)
        iterable = self.iterable(clause.iterable)
        element = self.expr(comp.element).src
        p = f"s{pslot}"
        head = f"(_budgeted({iterable}, host, {self.const(span)}), ctx.board.state.control, " \
               f"{p}.name if {p} is not None else None)"
        return f"[{element} for xs, control, pname in ({head},) for s{slot} in xs if control.get(s{slot}.name) == pname]"

    def loop(self, clause, span: str) -> tuple[str, str | None]:
        """A loop's collection, a step spent per element (at `span`), and its condition or None; a map's
        spaces' attribute tests first in it passed once per collection (constant_filters.py)."""
        split, cond = space_terms(self, clause), clause.condition
        if split is None:
            return f"_budgeted({self.iterable(clause.iterable)}, host, {span})", None if cond is None else self.expr(cond).src
        spaces = SpaceFilter(tuple((SpaceAttribute(self.compiled, self.info.fields[id(f)].name, f.span), negated)
                                   for f, negated in split[0]))
        items = f"{self.const(spaces)}.where({self.iterable(clause.iterable)}, ctx, host, {span})"
        return items, " and ".join(self.expr(term).src for term in split[1]) or None

    def iterable(self, node) -> str:
        """The source of the collection a loop goes through (no temporaries there: Python refuses
        `:=` in a comprehension's first collection)."""
        self.in_iterable += 1
        try:
            return self.expr(node).src
        finally:
            self.in_iterable -= 1

    def _controlled_shape(self, clause) -> bool:
        """Whether a loop's condition is `controller(x) == p` (or `owner`) on its variable x and a
        local p: the fused form `_sum_controlled` writes."""
        cond = clause.condition
        if not (isinstance(cond, Compare) and cond.op == "==" and isinstance(cond.left, Call)):
            return False
        call = cond.left
        info = self.info.calls.get(id(call))
        slot = self.info.slots[id(clause.var)]
        if (info is None or info.kind != "builtin" or info.name not in ("controller", "owner") or call.kwargs
                or len(call.args) != 1 or self.local_slot(call.args[0]) != slot or self.optional(call.args[0])):
            return False
        return self.local_slot(cond.right) is not None

    def _BestOf(self, node):
        # the count is checked before the collection is worked out, as the closures do
        count = f"_best_count({self.expr(node.count).src}, {self.const(node.kind)}, {self.const(node.span)})"
        if isinstance(node.collection, Comprehension):
            values = self.generate(node.collection, node.collection.span)
        else:
            values = f"_items_of({self.expr(node.collection).src})"
        return _Code(f"_best_of({count}, {values}, {node.kind == 'best'})")

    def _Comprehension(self, node):
        gen = self.generate(node, node.span)
        if node.kind == "set":
            return _Code(f"_LSet({gen})")
        return _Code(f"_tuple({gen})")


def generate(compiled, decl, name: str) -> Callable:
    """The generated function of a formula, modifier list or advice (`decl`, called `name`),
    `fn(ctx, *args)`; raises `Unsupported` for a shape the generator does not write yet."""
    gen = Generator(compiled)
    if isinstance(decl, (FormulaDecl, AdviceDecl)):
        fn = gen.formula(decl, name)
    elif isinstance(decl, ModifiersDecl):
        fn = gen.modifiers(decl, name)
    else:
        raise Unsupported(type(decl).__name__)
    return fn


__all__ = ["BACKENDS", "Generator", "Unsupported", "default_backend", "generate"]
