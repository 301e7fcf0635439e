"""A compiled program: every definition of a checked ruleset as something callable.

`CompiledProgram(program)` compiles each definition once, on first use, into a Python callable
`fn(ctx, *args)`; an exact twin `exact_callable(name)` returns distributions. Tables are
`TableRuntime` objects; modifier lists can also explain themselves term by term.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from ruleslang.lang.syntax.statements import Block, Let
from ruleslang.lang.syntax.declarations import (ConstantDecl, CounterDecl, FormulaDecl, ModTerm, ModifiersDecl,
                                                SideDecl, TableDecl, UnitDecl)
from ruleslang.lang.eval import exact as X
from ruleslang.lang import types as T
from ruleslang.lang.check.program import Program
from ruleslang.lang.compose.composition import advice_key
from ruleslang.lang.eval import codegen, codegen_blocks, kept_formulas
from ruleslang.lang.eval.compile import ExprCompiler
from ruleslang.lang.eval.operations import NO_VALUE
from ruleslang.lang.eval.compile_exact import ExactCompiler, bind_lets, exact_body
from ruleslang.lang.eval.coverage import Coverage
from ruleslang.lang.eval.explain import Explanation, Term, formula_explainer
from ruleslang.lang.eval.kind_reads import counters_read, kind_params
from ruleslang.lang.eval.statements import Procedures
from ruleslang.base.errors import EvalError
from ruleslang.base.suggest import did_you_mean
from ruleslang.lang.values import LSet, Record, display_text, normalize_number


class TableRuntime:
    """A table's rows, indexed by key; cells are evaluated when a row is read, except that a row
    whose cells all fold to constants is built once (most tables: a cell that reads the state or
    calls a formula is not folded, so such rows are still evaluated on every read)."""

    def __init__(self, name: str, info, compiler: ExprCompiler, scope):
        self.name = name
        self.info = info
        self.columns = info.columns
        decl = info.decl
        self.key_names = [p.name.text for p in decl.params] if isinstance(decl, TableDecl) else ["roll"]
        self.exact: dict[tuple, int] = {}
        self.ranges: list[tuple[int, int | None, int]] = []
        self.rows: list[list[Callable]] = []
        self.row_keys: list[tuple] = []
        self._constant_rows: list[Any] = []  # per row: its value when every cell is a constant, else NO_VALUE
        for i, (specs, row) in enumerate(zip(info.keys, decl.rows)):
            cells = [compiler.expr_folded(v) for v in row.values]
            self.rows.append([fn for fn, _ in cells])
            self._constant_rows.append(self._row_value([const for _, const in cells])
                                       if all(const is not NO_VALUE for _, const in cells) else NO_VALUE)
            self.row_keys.append(specs)
            if not specs or any(s is None for s in specs):
                continue
            if len(specs) == 1 and specs[0][0] == "range":
                self.ranges.append((specs[0][1], specs[0][2], i))
            else:
                self.exact[tuple(s[1] for s in specs)] = i
        if info.dice is not None:
            self.dice_count, self.sides = info.dice
        self._cache: dict[int, Any] = {}
        self._records: tuple | None = None  # rows_as_records, when every row listed is constant

    def _row_index(self, key: tuple, span) -> int:
        i = self.exact.get(key)
        if i is not None:
            return i
        if len(key) == 1 and isinstance(key[0], int) and not isinstance(key[0], bool):
            v = key[0]
            for lo, hi, idx in self.ranges:
                if v >= lo and (hi is None or v <= hi):
                    return idx
        shown = ", ".join(display_text(k) for k in key)
        known = [", ".join(display_text(k) for k in ks) for ks in self.exact]
        hint = did_you_mean(shown, known, n=3)
        ints = [ks[0] for ks in self.exact if len(ks) == 1 and type(ks[0]) is int]
        ranges = [(lo, hi) for lo, hi, _ in self.ranges]
        if len(key) == 1 and type(key[0]) is int and (ints or ranges):
            lows = ints + [lo for lo, _ in ranges]
            highs = ints + [hi for _, hi in ranges if hi is not None]
            top = "" if any(hi is None for _, hi in ranges) else f" to {max(highs)}"
            hint = f"the table's keys run from {min(lows)}{top}"
        raise EvalError("E502", f"table {self.name} has no row for {shown}", span, hint=hint)

    def _row_value(self, values: list):
        if self.columns is None:
            return values[0]
        return Record(zip(self.columns, values))

    def _value(self, ctx, i: int):
        value = self._constant_rows[i]
        if value is not NO_VALUE:
            return value
        env = [ctx]
        return self._row_value([c(env) for c in self.rows[i]])

    def constant_rows(self) -> dict | None:
        """Every row with exact keys as {key tuple: value} when every row of the table (ranges
        included) is a constant; None when some cell must be evaluated when it is read."""
        if any(value is NO_VALUE for value in self._constant_rows):
            return None
        return {key: self._constant_rows[i] for key, i in self.exact.items()}

    def lookup(self, ctx, key: tuple, span=None):
        return self._value(ctx, self._row_index(key, span))

    def lookup_plain(self, key: tuple, span=None):
        """A lookup for exact evaluation, where cells are constants (checked: cells roll no dice)."""
        i = self._row_index(key, span)
        if i not in self._cache:
            self._cache[i] = self._value(None, i)
        return self._cache[i]

    def keys_list(self) -> tuple:
        out = []
        for specs in self.row_keys:
            if not specs or any(s is None for s in specs):
                continue
            if specs[0][0] == "range":
                continue
            out.append(specs[0][1] if len(specs) == 1 else Record(zip(self.key_names, (s[1] for s in specs))))
        return tuple(out)

    def constant_records(self) -> tuple | None:
        """`rows_as_records` when every row of the table is a constant (the tuple it hands out
        every time), else None."""
        if self.constant_rows() is None:
            return None
        self.rows_as_records(None)  # builds and keeps them
        return self._records

    def rows_as_records(self, ctx) -> tuple:
        """Every row with an exact key as a record of its keys and cells (built once when every such
        row is constant: `rows(t)` is read in loops by constraints run on every candidate action)."""
        if self._records is not None:
            return self._records
        out = []
        constant = True
        for i, specs in enumerate(self.row_keys):
            if not specs or any(s is None for s in specs) or specs[0][0] == "range":
                continue
            constant = constant and self._constant_rows[i] is not NO_VALUE
            keys = list(zip(self.key_names, (s[1] for s in specs)))
            value = self._value(ctx, i)
            if self.columns is None:
                out.append(Record(keys + [("value", value)]))
            else:
                out.append(Record(keys + list(value.items())))
        if constant:
            self._records = tuple(out)
        return tuple(out)

    def __repr__(self) -> str:
        return f"table {self.name}"


@dataclass(frozen=True)
class Advice:
    """Compiled advice: `fn(ctx, *args)` gives the advised answer or value; `params` names what the
    bot passes, in order (for a decision, estimates; lang/check/advice.py lists them); `by_kind`:
    the indices of the unit arguments it reads only for the unit's type and owner (kind_reads.py),
    whose answer a bot may keep for every unit of the kind while the board stands; `counters`:
    the counters it reads where it reads nothing else of the game (kind_reads.py `counters_read`:
    its answer for a kind stands while they do), else None."""

    params: tuple[str, ...]
    fn: Callable
    by_kind: frozenset[int] = frozenset()
    counters: frozenset[str] | None = None


class CoveredTable(TableRuntime):
    """A table that records the rows read (`ruleslang test --coverage`)."""

    def __init__(self, name: str, info, compiler: ExprCompiler, scope, coverage: Coverage):
        super().__init__(name, info, compiler, scope)
        self.coverage = coverage

    def _row_index(self, key: tuple, span) -> int:
        i = super()._row_index(key, span)
        self.coverage.rows.add((self.name, i))
        return i


class CompiledProgram:
    def __init__(self, program: Program, coverage: Coverage | None = None, backend: str | None = None):
        """`coverage`, when given, records what runs (definitions called, table rows read);
        `backend` runs formulas and modifier lists as generated Python ("codegen", the default) or
        as closures ("closures"); None: as RULESLANG_EVAL says (lang/eval/codegen.py)."""
        self.program = program
        self.backend = backend if backend is not None else codegen.default_backend()
        # the definitions the code generator left to the closures, with why (docs/performance.md)
        self.not_generated: dict[str, str] = {}
        self.statements_generated = 0  # statements of blocks written as Python (the rest: not_generated)
        self.coverage = coverage
        self.info = program.info
        self.scope = program.scope
        self.symbols = program.scope.symbols
        self.expr_compiler = ExprCompiler(self.info, self)
        self.exact_compiler = ExactCompiler(self.info, self, self.expr_compiler)
        self._callables: dict[str, Callable] = {}
        self._exact: dict[str, Callable] = {}
        self._tables: dict[str, TableRuntime] = {}
        self._constants: dict[str, Any] = {}
        self._unit_attrs: dict[tuple[str, str], Callable] = {}
        self._unit_attr_constants: dict[str, dict] = {}  # attribute -> {type name: constant value}
        self._space_attr_cache: dict[tuple[str, str], Any] = {}
        self._counter_defaults: dict[str, Callable] = {}
        # the value of an unset entry of a counter whose default is a constant (or not given: its
        # type's zero), by name, noted as `counter_default` first makes it: a context reads it
        # without a call
        self.counter_constants: dict[str, Any] = {}
        self._explainers: dict[str, Callable] = {}
        self._advice: dict[str, Advice | None] = {}
        self.unit_tags: dict[str, tuple[str, ...]] = {}
        self._types_with_tag: dict[str, frozenset] = {}
        self._member_sets: dict[str, LSet] = {}  # side -> its players as `members(side)` gives them
        self._member_lookups: dict[str, frozenset] = {}  # side -> the same players, for `in`
        # what a caller compiles from the program and keeps for as long as the program lives, under
        # the caller's own key (the exact chain's branching executors of the battle steps: compiled
        # once a program, not once a game of it; a table keyed by the program would keep it alive)
        self.kept: dict[Any, Any] = {}
        self._build_sides()
        self._build_units()

    # ------------------------------------------------------------------------ structure

    def _build_sides(self) -> None:
        self.side_of_player: dict[str, str] = {}
        self.side_members: dict[str, tuple[str, ...]] = {}
        gm = self.scope.game_map
        if gm is not None:
            for side, members in gm.sides.items():
                self.side_members[side] = tuple(members)
                for p in members:
                    self.side_of_player[p] = side
        for name, sym in self.symbols.items():
            if sym.kind == "side" and isinstance(sym.decl, SideDecl):
                members = tuple(m.text for m in sym.decl.members)
                self.side_members[name] = members
                for p in members:
                    self.side_of_player[p] = name

    def side_member_set(self, side: str) -> LSet:
        """The players of `side` as the set `members(side)` gives (in declaration order). Made once a
        side: a program's sides and players never change, and a set is never changed once made (a
        score that asks it once per row of a table asked for a new set every time)."""
        found = self._member_sets.get(side)
        if found is None:
            players = self.scope.enums["player"].by_name
            found = self._member_sets[side] = LSet.of_enums(players[p] for p in self.side_members.get(side, ()))
        return found

    def side_member_sets(self) -> dict[str, LSet]:
        """`side_member_set` of every side of the program, by side name (for generated code)."""
        for side in self.scope.enums["side"].by_name:
            self.side_member_set(side)
        return self._member_sets

    def side_member_lookups(self) -> dict[str, frozenset]:
        """The players of every side as a hashed set, by side name: what `p in members(side)`
        tests (as the set does)."""
        if not self._member_lookups:
            self._member_lookups.update((side, frozenset(found.items))
                                        for side, found in self.side_member_sets().items())
        return self._member_lookups

    def _build_units(self) -> None:
        for name, sym in self.symbols.items():
            if isinstance(sym.decl, UnitDecl):
                self.unit_tags[name] = tuple(t.text for t in sym.decl.tags or ())

    def types_with_tag(self, tag: str) -> frozenset:
        """The names of the unit types that carry `tag`, made once a tag (a program's unit types
        and their tags never change): `has_tag` of a tag named in a rule is one test of a type's
        name against it in generated code."""
        found = self._types_with_tag.get(tag)
        if found is None:
            found = self._types_with_tag[tag] = frozenset(t for t, tags in self.unit_tags.items() if tag in tags)
        return found

    @property
    def procedures(self):
        """The compiled phases, hooks, constraints and checks (built on first use)."""
        procs = self.__dict__.get("_procedures")
        if procs is None:
            procs = self.__dict__["_procedures"] = Procedures(self)
        return procs

    def tags_value(self, type_name: str) -> LSet:
        tags = self.scope.enums["tag"].by_name
        return LSet(tags[t] for t in self.unit_tags.get(type_name, ()) if t in tags)

    def is_random(self, name: str) -> bool:
        ft = self.program.formula_types.get(name)
        return bool(ft and ft[2])

    # ------------------------------------------------------------------------- values

    def constant_value(self, name: str):
        """A constant's value when it can be folded at compile time, else NO_VALUE."""
        if name not in self._constants:
            decl = self.symbols[name].decl
            self._constants[name] = NO_VALUE
            if id(decl.value) not in self.info.random:
                self._constants[name] = self.expr_compiler.folded(decl.value)
        return self._constants[name]

    def callable(self, name: str) -> Callable:
        """`fn(ctx, *args)`: a definition's value, compiled the first time it is asked for."""
        return self._made_once(self._callables, name, self._make_callable)

    def _made_once(self, made: dict, name: str, make: Callable[[str], Callable]) -> Callable:
        """`made`'s function for `name`, made by `make` the first time (wrapped to note coverage
        when it is noted)."""
        fn = made.get(name)
        if fn is None:
            fn = make(name)
            if self.coverage is not None:
                fn = self.coverage.wrap(name, fn)
            made[name] = fn
        return fn

    def _make_callable(self, name: str) -> Callable:
        sym = self.symbols[name]
        decl = sym.decl
        if isinstance(decl, FormulaDecl) and kept_formulas.keeps(self, decl):
            # a formula of its arguments alone: answered once per arguments for the program
            return kept_formulas.kept(self._compile_callable(decl, name))
        return self._compile_callable(decl, name)

    def _compile_callable(self, decl, name: str) -> Callable:
        """A definition's callable as compiled (`_make_callable` without the kept answers)."""
        if self.backend == "codegen" and isinstance(decl, (FormulaDecl, ModifiersDecl)):
            fn = self._generated(decl, name)
            if fn is not None:
                return fn
        if isinstance(decl, FormulaDecl):
            return self._formula(decl)
        if isinstance(decl, ModifiersDecl):
            runtime = self._modifiers(decl)
            return lambda ctx, *args: runtime(ctx, args, False)
        if isinstance(decl, ConstantDecl):
            value = self.constant_value(name)
            if value is not NO_VALUE:
                return lambda ctx: value
            f = self.expr_compiler.expr(decl.value)
            return lambda ctx: f([ctx])
        if isinstance(decl, CounterDecl):
            key_count = len(decl.params)
            if key_count == 0:
                return lambda ctx: ctx.counter(name, ())
            return lambda ctx, *key: ctx.counter(name, key)
        raise AssertionError(f"{name} is not callable")

    def _generated(self, decl, name: str) -> Callable | None:
        """The definition as generated Python, or None when it runs on the closures: a shape the
        generator does not write yet, or a constant part that fails as it is folded (the closure
        compiler then reports it, as it always has)."""
        try:
            return codegen.generate(self, decl, name)
        except codegen.Unsupported as e:
            self.not_generated[name] = str(e)
        except EvalError as e:
            self.not_generated[name] = f"{e.code} while folding"
        return None

    def block_executor(self, closures, block: Block, owner: str, size: int) -> Callable:
        """The executor `fn(env)` of a block of statements of `owner` in a frame of `size` slots:
        generated Python under the code generator (a statement it cannot write yet runs as its
        closure: `not_generated` lists them under "owner: statement kind"), else `closures`' (a
        `StatementCompiler`) executor."""
        if self.backend != "codegen":
            return closures.block(block, owner)
        try:
            fn, gen = codegen_blocks.generate_block(self, closures, block, owner, size, owner)
        except codegen.Unsupported as e:
            self.not_generated[owner] = str(e)
            return closures.block(block, owner)
        for kind, why in gen.fell_back:
            self.not_generated[f"{owner}: {kind}"] = why
        self.statements_generated += gen.written
        return fn

    def frame_expression(self, closures, node, owner: str, size: int) -> Callable:
        """`fn(env)`, the value of an expression of `owner`'s frame of `size` slots (a hook's
        players or condition, a check's condition): generated Python under the code generator
        when it can write it (else `not_generated` says why), else `closures`' closure."""
        if self.backend == "codegen":
            try:
                return codegen_blocks.generate_expression(self, closures, node, owner, size, owner)
            except codegen.Unsupported as e:
                self.not_generated[f"{owner}: expression"] = str(e)
            except EvalError as e:
                self.not_generated[f"{owner}: expression"] = f"{e.code} while folding"
        return closures.ec.expr(node)

    def _formula(self, decl: FormulaDecl) -> Callable:
        ec = self.expr_compiler
        size = self.info.frames.get(id(decl), 1)
        nparams = len(decl.params or ())
        lets = [(ec.expr(let.value), self.info.slots[id(let.name)]) for let in decl.lets]
        body = ec.expr(decl.body)
        span = decl.name.span
        pad = [None] * (size - 1 - nparams)
        if not lets and nparams == 1:
            def fn1(ctx, a):
                host = ctx.host
                host.steps -= 1
                if host.steps < 0:
                    host.out_of_budget(span)
                return body([ctx, a, *pad])
            return fn1
        if len(lets) == 1 and nparams == 1:
            (let_fn, let_slot), = lets

            def fn1_let(ctx, a):
                host = ctx.host
                host.steps -= 1
                if host.steps < 0:
                    host.out_of_budget(span)
                env = [ctx, a, *pad]
                env[let_slot] = let_fn(env)
                return body(env)
            return fn1_let

        def fn(ctx, *args):
            host = ctx.host
            host.steps -= 1
            if host.steps < 0:
                host.out_of_budget(span)
            env = [ctx, *args, *pad]
            for f, slot in lets:
                env[slot] = f(env)
            return body(env)
        return fn

    def advice(self, key: str) -> "Advice | None":
        """The ruleset's advice on the decision `key` (procedure.variable), or on the value
        bots build estimates from of that name (no dot), compiled on first use; None when the
        rulesets give none."""
        if key not in self._advice:
            decl = self.program.ruleset.decl(advice_key(key))
            fn = None
            if decl is not None and self.backend == "codegen":
                fn = self._generated(decl, advice_key(key))
            if decl is None:
                self._advice[key] = None
            else:
                kinds = kind_params(self.info, decl)  # (found once: `counters_read` starts from them)
                self._advice[key] = Advice(tuple(p.name.text for p in decl.params or ()), fn or self._formula(decl),
                                           kinds, counters_read(self, decl, kinds))
        return self._advice[key]

    def _modifiers(self, decl: ModifiersDecl) -> Callable:
        ec = self.expr_compiler
        size = self.info.frames.get(id(decl), 1)
        nparams = len(decl.params or ())
        items = []
        for item in decl.items:
            if isinstance(item, Let):
                items.append(("let", ec.expr(item.value), self.info.slots[id(item.name)]))
            else:
                cond = ec.expr(item.condition) if item.condition is not None else None
                items.append(("term", item.sign, ec.expr(item.value), cond, ec.expr(item.reason)))
        pad = [None] * (size - 1 - nparams)
        span = decl.name.span

        def run(ctx, args, explain: bool):
            host = ctx.host
            host.steps -= 1
            if host.steps < 0:
                host.out_of_budget(span)
            env = [ctx, *args, *pad]
            total = 0
            terms: list[Term] = []
            for it in items:
                if it[0] == "let":
                    env[it[2]] = it[1](env)
                    continue
                _, sign, value, cond, reason = it
                applied = cond is None or cond(env) is True
                if applied:
                    v = value(env)
                    total = total - v if sign == "-" else total + v
                    if explain:
                        terms.append(Term(sign, reason(env), True, v))
                elif explain:
                    try:
                        v = value(env)
                    except EvalError:
                        v = None
                    terms.append(Term(sign, reason(env), False, v))
            total = normalize_number(total)
            if explain:
                return Explanation(decl.name.text, terms, total)
            return total
        self._explainers[decl.name.text] = lambda ctx, *args: run(ctx, args, True)
        return run

    def explainer(self, name: str) -> Callable:
        """`fn(ctx, *args) -> Explanation` for a modifier list or formula."""
        if name in self._explainers:
            return self._explainers[name]
        decl = self.symbols[name].decl
        if isinstance(decl, ModifiersDecl):
            if name not in self._explainers:
                self._modifiers(decl)  # a generated modifier list explains itself through the closures
            return self._explainers[name]
        fn = self._explainers[name] = formula_explainer(self, decl)
        return fn

    # -------------------------------------------------------------------------- exact

    def exact_callable(self, name: str) -> Callable:
        """`fn(ctx, *args) -> XDist`: the exact distribution of a definition's value."""
        return self._made_once(self._exact, name, self._make_exact)

    def _make_exact(self, name: str) -> Callable:
        decl = self.symbols[name].decl
        if not self.is_random(name):
            concrete = self.callable(name)
            return lambda ctx, *args: X.point(concrete(ctx, *args))
        if isinstance(decl, FormulaDecl):
            size = self.info.frames.get(id(decl), 1)
            return exact_body(self, self.info, self.exact_compiler, decl.lets, decl.body, size,
                              len(decl.params or ()))
        if isinstance(decl, ConstantDecl):
            f = self.exact_compiler.expr(decl.value)
            return lambda ctx: f([ctx])
        if isinstance(decl, ModifiersDecl):
            return self._exact_modifiers(decl)
        raise AssertionError(name)

    def _exact_modifiers(self, decl: ModifiersDecl) -> Callable:
        """A rolled modifier list: its lets branch; each term is a mixture of applying or not."""
        xc = self.exact_compiler
        size = self.info.frames.get(id(decl), 1)
        nparams = len(decl.params or ())
        lets = [i for i in decl.items if isinstance(i, Let)]
        terms = [i for i in decl.items if isinstance(i, ModTerm)]
        compiled_terms = [(t.sign, xc.expr(t.value), xc.expr(t.condition) if t.condition is not None else None,
                           t.span) for t in terms]
        lets_steps = [(id(l.value) in self.info.random,
                       xc.expr(l.value) if id(l.value) in self.info.random else xc.concrete.expr(l.value),
                       self.info.slots[id(l.name)]) for l in lets]
        fold = X.Fold(0, lambda s, v: s + v, normalize_number)

        def run(ctx, *args):
            env: list = [ctx, *args] + [None] * (size - 1 - nparams)

            def terms(env):
                acc = X.point(0)
                for sign, value, cond, span in compiled_terms:
                    vd = value(env)
                    if sign == "-":
                        vd = X.lift([vd], lambda v: -v, ctx, span)
                    if cond is not None:
                        cd = cond(env)
                        w_true = cd.weights.get(True, 0)
                        skip = X.point(X.SKIP)
                        vd = X.mixture([(w_true, cd.total, vd), (cd.total - w_true, cd.total, skip)], ctx, span)
                    acc = X.fold_step(acc, vd, fold, ctx, span)
                return X.fold_finish(acc, fold, ctx, None)
            return bind_lets(lets_steps, env, ctx, terms)
        return run

    # -------------------------------------------------------------------------- tables

    def table(self, name: str) -> TableRuntime:
        t = self._tables.get(name)
        if t is None:
            info = self.program.tables[name]
            t = self._tables[name] = (TableRuntime(name, info, self.expr_compiler, self.scope) if self.coverage is None
                                      else CoveredTable(name, info, self.expr_compiler, self.scope, self.coverage))
        return t

    # ------------------------------------------------------------------- options, facts

    def option_default(self, ctx, name: str):
        decl = self.symbols[name].decl
        return self.expr_compiler.expr(decl.default)([ctx])

    def default_options(self, ctx) -> dict:
        return {name: self.option_default(ctx, name) for name, sym in self.symbols.items() if sym.kind == "option"}

    def fact_default(self, name: str):
        decl = self.symbols[name].decl
        if decl.default is None:
            return NO_VALUE
        return self.expr_compiler.expr(decl.default)([None])

    def counter_default(self, ctx, name: str, key: tuple):
        fn = self._counter_defaults.get(name)
        if fn is None:
            decl = self.symbols[name].decl
            if decl.default is None:
                zero = self.counter_constants[name] = _zero_of(self.symbols[name].type)
                fn = lambda ctx, key: zero  # noqa: E731
            else:
                body, folded = self.expr_compiler.expr_folded(decl.default)
                if folded is not NO_VALUE:  # (what `body` gives, whatever the key)
                    self.counter_constants[name] = folded
                size = self.info.frames.get(id(decl), 1)

                def fn(ctx, key, body=body, size=size):
                    env = [ctx, *key] + [None] * (size - 1 - len(key))
                    return body(env)
            self._counter_defaults[name] = fn
        return fn(ctx, key)

    # ------------------------------------------------------------------- attributes

    def unit_attribute(self, ctx, type_name: str, attr: str):
        fn = self._unit_attrs.get((type_name, attr))
        if fn is None:
            fn = self._unit_attrs[(type_name, attr)] = self._make_unit_attr(type_name, attr)
        return fn(ctx)

    def _make_unit_attr(self, type_name: str, attr: str) -> Callable:
        f = self.expr_compiler.expr(self._unit_attr_expr(type_name, attr))
        return lambda ctx: f([ctx])

    def _unit_attr_expr(self, type_name: str, attr: str):
        """The expression of unit attribute `attr` of `type_name`: its own, else the default."""
        decl = self.symbols[type_name].decl
        for ident, value in decl.attributes:
            if ident.text == attr:
                return value
        return self.scope.unit_attributes[attr].decl.default

    def unit_attribute_constants(self, attr: str) -> dict:
        """The value of unit attribute `attr` of each unit type whose value is a constant, by type
        name (what `unit_attribute` gives it: a constant reads nothing); a type whose value is
        worked out when read (from a counter, an option ...) is left out. Made once an attribute."""
        found = self._unit_attr_constants.get(attr)
        if found is None:
            found = {}
            for type_name in self.scope.enums["unittype"].by_name:
                value = self.expr_compiler.folded(self._unit_attr_expr(type_name, attr))
                if value is not NO_VALUE:
                    found[type_name] = value
            self._unit_attr_constants[attr] = found
        return found

    def space_attribute(self, ctx, space: str, attr: str):
        key = (space, attr)
        if key in self._space_attr_cache:
            return self._space_attr_cache[key]
        sym = self.scope.space_attributes[attr]
        gm = self.scope.game_map
        raw = NO_VALUE
        if gm is not None:
            info = gm.space(space)
            if attr in info.attributes:
                raw = info.attributes[attr]
        if raw is NO_VALUE:
            if sym.decl.default is None:
                raise EvalError("E533", f"space {space} has no attribute '{attr}' and the attribute has no default")
            value = self.expr_compiler.expr(sym.decl.default)([ctx])
        else:
            value = self.convert_data(raw, sym.type, f"attribute '{attr}' of space {space}")
        self._space_attr_cache[key] = value
        return value

    def convert_data(self, raw, typ: T.Type, what: str, units=None):
        """A value from a data file (YAML, JSON, the command line) as a value of type `typ`;
        `units(id)` turns a unit's id back into the unit (counters that hold units)."""
        return convert_data(self.scope, raw, typ, what, units)


def _zero_of(typ: T.Type):
    t = T.strip_optional(typ)
    if isinstance(typ, T.OptionalType):
        return None
    if t == T.BOOL:
        return False
    if t in (T.INT, T.NUMBER):
        return 0
    if t == T.TEXT:
        return ""
    if isinstance(t, T.SetType):
        return LSet()
    if isinstance(t, T.ListType):
        return ()
    return None


def convert_data(scope, raw, typ: T.Type, what: str, units=None):
    """Turn plain data (from YAML or JSON) into a language value of type `typ`, or raise EvalError."""
    if isinstance(typ, T.AnyType):
        return raw
    if isinstance(typ, T.OptionalType):
        return None if raw is None else convert_data(scope, raw, typ.inner, what, units)
    if typ == T.UNIT and units is not None:
        uid = raw.get("id") if isinstance(raw, dict) else raw
        if isinstance(uid, int) and not isinstance(uid, bool):
            found = units(uid)
            if found is None:
                raise EvalError("E533", f"{what}: unit {uid} is no longer on the board")
            return found
    if raw is None:
        raise EvalError("E533", f"{what} is empty, expected {typ}")
    if typ == T.BOOL:
        if isinstance(raw, bool):
            return raw
    elif typ == T.INT:
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw
    elif typ == T.NUMBER:
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            return normalize_number(Fraction(str(raw)))
        if isinstance(raw, str):
            try:
                return normalize_number(Fraction(raw))
            except (ValueError, ZeroDivisionError):
                pass
    elif typ == T.TEXT:
        if isinstance(raw, str):
            return raw
    elif isinstance(typ, T.EnumType):
        if isinstance(raw, str):
            enum = scope.enums.get(typ.name)
            value = enum.lookup(raw) if enum is not None else None
            if value is not None:
                return value
            hint = did_you_mean(raw, enum.spellings()) if enum is not None else None
            # callers report only the message (an option, a fact, an argument), so the hint goes in it
            raise EvalError("E533", f"{what}: there is no {typ.name} named '{raw}'" + (f" ({hint})" if hint else ""))
    elif isinstance(typ, (T.SetType, T.ListType)):
        if isinstance(raw, list):
            items = [convert_data(scope, r, typ.element, what, units) for r in raw]
            return LSet(items) if isinstance(typ, T.SetType) else tuple(items)
    elif isinstance(typ, T.RecordType):
        if isinstance(raw, dict):
            missing = [n for n, _ in typ.fields if n not in raw]
            extra = [k for k in raw if typ.field(k) is None]
            if missing:
                raise EvalError("E533", f"{what} lacks field(s) {', '.join(missing)} of {typ}")
            if extra:
                raise EvalError("E533", f"{what} has field(s) {', '.join(map(str, extra))} that {typ} does not have")
            return Record((n, convert_data(scope, raw[n], t, f"{what}.{n}", units)) for n, t in typ.fields)
    raise EvalError("E533", f"{what} is {_describe_raw(raw)}, expected {_article(typ)}")


def _describe_raw(raw) -> str:
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, str):
        return f'"{raw}"'
    if isinstance(raw, list):
        return "a list"
    if isinstance(raw, dict):
        return "an object"
    return str(raw)


def _article(t: T.Type) -> str:
    text = str(t)
    return ("an " if text[:1] in "aeiou" else "a ") + text
