"""Check: a resolved ruleset made into a typed, ordered program, with every problem reported.

Builds the global scope (from the rulesets and their map), orders value definitions by what they
use (rejecting recursion), then checks every declaration: types, tables (duplicate keys, range
overlaps, die coverage), units and their attributes, procedures and effects, checks and tests,
and that overrides keep their definition's parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ruleslang.lang.syntax import ast
from ruleslang.lang import types as T
from ruleslang.lang.builtins.core import REGISTRY as BUILTINS
from ruleslang.base.diagnostics import Diagnostic, Related, error, has_errors, warning
from ruleslang.lang.compose.composition import Ruleset
from ruleslang.runtime.registry import ACTIONS, PROCEDURES, REQUIRED
from ruleslang.lang.scope import Enumeration, GlobalScope, Symbol
from ruleslang.base.suggest import close_matches
from ruleslang.lang.check.advice import check_advice
from ruleslang.lang.check.typecheck import CheckInfo, Frame, TypeChecker
from ruleslang.lang.values import EnumValue

VALUE_KINDS = ("formula", "modifiers", "constant", "table", "die table")
_EXAMPLE_SETTINGS = {
    "purchase": "runtime purchase with {cost: u => u.cost}",
    "move": 'runtime move with {kind: "combat", movement: u => u.movement, domain: u => "land"}',
    "battle": 'runtime battle with {round: "round_steps"} (a sequence of battle steps)',
}
PROCEDURE_KINDS = ("phase", "step")


@dataclass
class TableInfo:
    """A checked table: key types, row type, and keys known at check time."""

    decl: ast.TableDecl | ast.DieTableDecl
    key_types: tuple[T.Type, ...]
    row_type: T.Type
    keys: list[tuple]  # per row: tuple of key specs: ("value", v) or ("range", lo, hi)
    columns: tuple[str, ...] | None
    dice: tuple[int, int] | None = None


@dataclass
class Program:
    """A checked ruleset, ready to compile."""

    ruleset: Ruleset
    scope: GlobalScope
    info: CheckInfo
    formula_types: dict[str, tuple]
    order: list[str]
    tables: dict[str, TableInfo]
    decision_ids: dict[str, ast.Choose]
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


def check_ruleset(ruleset: Ruleset, game_map: Any = None) -> Program:
    """Check a resolved ruleset (with its map, if any); the diagnostics are in `program.diagnostics`."""
    return _Checker(ruleset, game_map).run()


class _Checker:
    def __init__(self, ruleset: Ruleset, game_map: Any):
        self.ruleset = ruleset
        self.diags: list[Diagnostic] = []
        self.scope = GlobalScope(game_map=game_map)
        self.info = CheckInfo()
        self.formula_types: dict[str, tuple] = {}
        self.tc = TypeChecker(self.scope, self.info, self.diags, self.formula_types)
        self.defs = ruleset.live()
        self.type_cache: dict[str, T.Type] = {}
        self.tables: dict[str, TableInfo] = {}
        self.decision_ids: dict[str, ast.Choose] = {}
        self.current_procedure: str | None = None

    def error(self, code, message, span, **kw):
        self.diags.append(error(code, message, span, **kw))

    def run(self) -> Program:
        self._build_enums()
        self._build_symbols()
        self._resolve_declared_types()
        self._attributes()
        order = self._order_values()
        self._signatures()
        for name in order:
            self._check_value(name)
        self._units()
        self._options_facts_counters()
        self._procedures()
        self._checks()
        self._tests()
        check_advice(self)
        self._overrides()
        return Program(self.ruleset, self.scope, self.info, self.formula_types, order, self.tables,
                       self.decision_ids, self.diags)

    # ------------------------------------------------------------------------ enumerations

    def _build_enums(self) -> None:
        scope = self.scope
        for kind in ("player", "side", "space", "unittype", "tag"):
            scope.enum(kind)
        gm = scope.game_map
        if gm is not None:
            players = scope.enums["player"]
            for p in gm.players:
                players.add(p.name)
                players.add_alias(p.name, p.name)
                for alias in p.aliases:
                    players.add_alias(alias, p.name)
            sides = scope.enums["side"]
            for side in gm.sides:
                sides.add(side)
                sides.add_alias(side, side)
            spaces = scope.enums["space"]
            for s in gm.spaces:
                spaces.add(s.name)
                spaces.add_alias(s.name, s.name)
            for s in gm.spaces:  # aliases after every name, so a name always wins over an alias
                for alias in s.aliases:
                    spaces.add_alias(alias, s.name)
        for d in self.defs.values():
            decl, name = d.decl, d.name
            if isinstance(decl, ast.PlayerDecl):
                scope.enums["player"].add(name)
            elif isinstance(decl, ast.SideDecl):
                scope.enums["side"].add(name)
            elif isinstance(decl, ast.UnitDecl):
                scope.enums["unittype"].add(name)
            elif isinstance(decl, ast.TagDecl):
                scope.enums["tag"].add(name)
            elif isinstance(decl, ast.EnumDecl):
                if name in scope.enums or name in T.BUILTIN_TYPE_NAMES:
                    self.error("R202", f"'{name}' is already the name of a type", decl.name.span)
                    continue
                enum = scope.enum(name)
                enum.decl = decl
                for member in decl.members:
                    if member.text in enum.by_name:
                        self.error("R202", f"enum {name} lists '{member.text}' twice", member.span)
                        continue
                    enum.add(member.text)
                    scope.members.setdefault(member.text, []).append(enum.by_name[member.text])
        if gm is not None:
            self._check_sides_against_map(gm)

    def _check_sides_against_map(self, gm) -> None:
        for d in self.defs.values():
            decl, name = d.decl, d.name
            if isinstance(decl, ast.PlayerDecl) and name not in [p.name for p in gm.players]:
                self.error("R230", f"player '{name}' is not a player of map '{gm.name}'", decl.name.span,
                           hint="the map's players: " + ", ".join(p.name for p in gm.players))
            if isinstance(decl, ast.SideDecl) and name in gm.sides:
                want = list(gm.sides[name])
                got = [m.text for m in decl.members]
                if sorted(want) != sorted(got):
                    self.error("R230", f"side '{name}' has {', '.join(got)} here but "
                                       f"{', '.join(want)} on map '{gm.name}'", decl.name.span)

    # -------------------------------------------------------------------------- symbols

    def _build_symbols(self) -> None:
        scope = self.scope
        for kind, enum_name in (("player", "player"), ("side", "side")):
            for value in scope.enums[enum_name].members:
                scope.symbols[value.name] = Symbol(value.name, kind, None, None, T.EnumType(enum_name), value)
        for d in self.defs.values():
            decl, name = d.decl, d.name
            kind = decl.kind
            if isinstance(decl, ast.TagDecl):
                # tags are read where a tag is expected: a namespace of their own, like enum members
                scope.members.setdefault(name, []).append(scope.enums["tag"].by_name[name])
                continue
            if isinstance(decl, ast.AdviceDecl):
                continue  # read by bots through its target, never by name in the rules (check/advice.py)
            if isinstance(decl, ast.AttributeDecl):
                # Attributes are read as fields (u.attack, s.capital): a namespace of their own.
                sym = Symbol(name, "attribute", decl, d.origin)
                (scope.space_attributes if decl.on_spaces else scope.unit_attributes)[name] = sym
                continue
            # A definition may take the name of a built-in function (it shadows it in these
            # rulesets), so a new built-in never breaks a ruleset written before it.
            if name in T.BUILTIN_TYPE_NAMES:
                self.error("R214", f"'{name}' is the name of a built-in type; choose another name", decl.name.span)
                continue
            if name in scope.members and kind != "enum" and any(v.kind != "tag" for v in scope.members[name]):
                kinds = ", ".join(v.kind for v in scope.members[name] if v.kind != "tag")
                self.error("R202", f"'{name}' is already a member of enum {kinds}", decl.name.span)
                continue
            sym = Symbol(name, kind, decl, d.origin)
            if isinstance(decl, ast.PlayerDecl):
                sym.value, sym.type = scope.enums["player"].by_name[name], T.PLAYER
            elif isinstance(decl, ast.SideDecl):
                sym.value, sym.type = scope.enums["side"].by_name[name], T.SIDE
            elif isinstance(decl, ast.UnitDecl):
                sym.value, sym.type = scope.enums["unittype"].by_name[name], T.UNITTYPE
            scope.symbols[name] = sym
        for d in self.defs.values():
            name = d.name
            if isinstance(d.decl, ast.SideDecl):
                for member in d.decl.members:
                    if member.text not in scope.enums["player"].by_name:
                        close = close_matches(member.text, list(scope.enums["player"].by_name), n=2)
                        self.error("R201", f"side {name} lists '{member.text}', which is not a player",
                                   member.span, hint=f"did you mean {', '.join(close)}?" if close else None)

    # ---------------------------------------------------------------------------- types

    def resolve_type(self, texpr) -> T.Type:
        if isinstance(texpr, ast.NamedType) or isinstance(texpr, ast.OptionalType):
            base = self._named_type(texpr.name, texpr.span)
            return T.OptionalType(base) if isinstance(texpr, ast.OptionalType) else base
        if isinstance(texpr, ast.SetType):
            return T.SetType(self.resolve_type(texpr.element))
        if isinstance(texpr, ast.ListType):
            return T.ListType(self.resolve_type(texpr.element))
        if isinstance(texpr, ast.RecordType):
            return T.RecordType(tuple((ident.text, self.resolve_type(t)) for ident, t in texpr.fields))
        return T.ANY

    def _named_type(self, name: str, span) -> T.Type:
        if name in T.BUILTIN_TYPE_NAMES:
            return T.BUILTIN_TYPE_NAMES[name]
        if name in self.type_cache:
            return self.type_cache[name]
        sym = self.scope.symbols.get(name)
        if sym is not None and sym.kind == "enum":
            return T.EnumType(name)
        if sym is not None and sym.kind == "type":
            self.type_cache[name] = T.ANY  # guards against a type defined through itself
            resolved = self.resolve_type(sym.decl.type)
            if isinstance(resolved, T.RecordType):
                resolved = T.RecordType(resolved.fields, name)
            self.type_cache[name] = resolved
            return resolved
        candidates = list(T.BUILTIN_TYPE_NAMES) + [s.name for s in self.scope.symbols.values()
                                                   if s.kind in ("enum", "type")]
        close = close_matches(name, candidates, n=3)
        self.error("R201", f"'{name}' is not a type", span,
                   hint=f"did you mean {', '.join(close)}?" if close else
                   "types: int, number, bool, text, player, side, space, territory, seazone, unittype, "
                   "unit, tag, a declared enum or type, set of T, list of T, {field: T, ...}")
        return T.ANY

    def _resolve_declared_types(self) -> None:
        for name, d in self.defs.items():
            if isinstance(d.decl, ast.TypeDecl):
                self._check_type_cycle(name, d.decl)
                self._named_type(name, d.decl.name.span)

    def _check_type_cycle(self, name: str, decl: ast.TypeDecl) -> None:
        seen = [name]
        reported = self.__dict__.setdefault("_type_cycles", set())

        def visit(texpr):
            for node in ast.walk(texpr):
                if isinstance(node, (ast.NamedType, ast.OptionalType)):
                    sym = self.scope.symbols.get(node.name)
                    if sym is not None and sym.kind == "type":
                        if node.name in seen:
                            cycle = frozenset(seen)
                            if cycle not in reported:
                                reported.add(cycle)
                                self.error("R220", "types are defined through each other: " +
                                           " -> ".join(seen + [node.name]), node.span)
                            return True
                        seen.append(node.name)
                        if visit(sym.decl.type):
                            return True
                        seen.pop()
            return False

        visit(decl.type)

    def _attributes(self) -> None:
        for table in (self.scope.unit_attributes, self.scope.space_attributes):
            for name, sym in table.items():
                decl = sym.decl
                sym.type = self.resolve_type(decl.type)
                if decl.default is not None:
                    self._constant_expr(decl.default, sym.type)

    def _constant_expr(self, expr, want: T.Type) -> None:
        """A default value: checked in an empty frame; it must not roll dice."""
        frame = Frame(id(expr), self.info)
        self.tc.frame = frame
        self.tc.expect(expr, want)
        self.tc.frame = None
        if self.info.is_random(expr):
            self.error("T310", "a default value cannot roll dice", expr.span)

    # -------------------------------------------------------------------- value ordering

    def _references(self, decl) -> list[tuple[str, Any]]:
        """The global value definitions `decl` uses (for ordering and recursion).

        Locals may shadow globals, so names the declaration binds itself are not references;
        nor are names in a tag position (`has_tag(u, x)`, `units(..., tag: x)`).
        """
        local: set[str] = set()
        skip: set[int] = set()
        for node in ast.walk(decl):
            if isinstance(node, ast.Param):
                local.add(node.name.text)
            elif isinstance(node, (ast.Let, ast.Choose)):
                local.add(node.name.text)
            elif isinstance(node, (ast.ForClause, ast.ForStmt)):
                local.add(node.var.text)
            elif isinstance(node, ast.Lambda):
                local.add(node.param.text)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id == "has_tag" and len(node.args) == 2:
                    skip.add(id(node.args[1]))
                for k in node.kwargs:
                    if k.name.text == "tag":
                        skip.add(id(k.value))
        out = []
        for node in ast.walk(decl):
            if isinstance(node, ast.Name) and node.id not in local and id(node) not in skip:
                sym = self.scope.symbols.get(node.id)
                if sym is not None and sym.kind in VALUE_KINDS:
                    out.append((node.id, node))
        return out

    def _order_values(self) -> list[str]:
        """Value definitions, each after what it uses; a cycle (recursion) is an error."""
        names = [n for n, s in self.scope.symbols.items() if s.kind in VALUE_KINDS]
        graph = {n: self._references(self.scope.symbols[n].decl) for n in names}
        order: list[str] = []
        state: dict[str, int] = {}
        reported: set[frozenset] = set()

        def visit(n: str, path: list[str]) -> None:
            if state.get(n) == 2:
                return
            if state.get(n) == 1:
                cycle = path[path.index(n):] + [n]
                key = frozenset(cycle)
                if key not in reported:
                    reported.add(key)
                    site = next((node for dep, node in graph[path[-1]] if dep == n), None)
                    self.error("R220", "definitions use each other in a cycle (recursion is not allowed): "
                               + " -> ".join(cycle), site.span if site is not None else
                               self.scope.symbols[n].decl.name.span,
                               hint="rules are total: write the repetition with for, sum or a table")
                return
            state[n] = 1
            path.append(n)
            for dep, _ in graph[n]:
                visit(dep, path)
            path.pop()
            state[n] = 2
            order.append(n)

        for n in names:
            visit(n, [])
        return order

    # ------------------------------------------------------------------------- signatures

    def _signatures(self) -> None:
        for name, sym in self.scope.symbols.items():
            decl = sym.decl
            if isinstance(decl, (ast.FormulaDecl, ast.ModifiersDecl)):
                params = tuple(self.resolve_type(p.type) for p in decl.params) if decl.params is not None else None
                result = self.resolve_type(decl.result) if decl.result is not None else None
                if isinstance(decl, ast.ModifiersDecl) and result is None:
                    result = T.INT
                self.formula_types[name] = (params, result, False)
            elif isinstance(decl, ast.ConstantDecl):
                result = self.resolve_type(decl.type) if decl.type is not None else None
                self.formula_types[name] = (None, result, False)
            elif isinstance(decl, ast.CounterDecl):
                params = tuple(self.resolve_type(p.type) for p in decl.params)
                sym.type = self.resolve_type(decl.type)
                self.formula_types[name] = (params, sym.type, False)
            elif isinstance(decl, ast.TableDecl):
                self._table_signature(sym, decl)
            elif isinstance(decl, ast.DieTableDecl):
                row = self.resolve_type(decl.result)
                full = T.RecordType((("roll", T.INT), ("value", row)), f"row of {name}")
                sym.type = T.TableRefType(name, full, T.INT, die=True)
                sym.params_types = (T.INT,)
                sym.rows_type = row

    def _table_signature(self, sym: Symbol, decl: ast.TableDecl) -> None:
        key_types = tuple(self.resolve_type(p.type) for p in decl.params)
        names = [p.name.text for p in decl.params]
        if decl.columns is not None:
            cols = tuple((c.name.text, self.resolve_type(c.type)) for c in decl.columns)
            for c in decl.columns:
                if c.name.text in names:
                    self.error("R202", f"column '{c.name.text}' has the name of a key", c.name.span)
            names += [c for c, _ in cols]
            row = T.RecordType(cols, f"row of {sym.name}")
            full = T.RecordType(tuple(zip([p.name.text for p in decl.params], key_types)) + cols,
                                f"row of {sym.name}")
        else:
            row = self.resolve_type(decl.result)
            full = T.RecordType(tuple(zip([p.name.text for p in decl.params], key_types)) + (("value", row),),
                                f"row of {sym.name}")
        key = key_types[0] if len(key_types) == 1 else T.RecordType(tuple(zip([p.name.text for p in decl.params],
                                                                              key_types)))
        # rows(t) gives full records (keys and columns); t(k) gives the row without its keys
        sym.type = T.TableRefType(sym.name, full, key)
        sym.params_types = key_types
        sym.rows_type = row

    # --------------------------------------------------------------------------- values

    def _check_value(self, name: str) -> None:
        sym = self.scope.symbols[name]
        decl = sym.decl
        if isinstance(decl, ast.FormulaDecl):
            self._formula(sym, decl)
        elif isinstance(decl, ast.ModifiersDecl):
            self._modifiers(sym, decl)
        elif isinstance(decl, ast.ConstantDecl):
            params, declared, _ = self.formula_types[name]
            frame = Frame(id(decl), self.info)
            self.info.frames[id(decl)] = frame.size
            self.tc.frame = frame
            got = self.tc.expect(decl.value, declared) if declared is not None else self.tc.check(decl.value)
            self.tc.frame = None
            self.formula_types[name] = (None, declared or got, self.info.is_random(decl.value))
        elif isinstance(decl, ast.TableDecl):
            self._table(sym, decl)
        elif isinstance(decl, ast.DieTableDecl):
            self._die_table(sym, decl)

    def _params_frame(self, decl, params) -> Frame:
        frame = Frame(id(decl), self.info)
        self.info.frames[id(decl)] = frame.size
        for p, ptype in zip(params or (), self.formula_types[decl.name.text][0] or ()):
            self._declare_local(frame, p.name, ptype)
        return frame

    def _declare_local(self, frame: Frame, ident: ast.Ident, typ: T.Type) -> None:
        # A local may shadow a global: a ruleset that extends another must not break its
        # formulas by adding a definition whose name one of their locals happens to use.
        frame.declare(ident, typ, self.tc)

    def _lets(self, frame: Frame, lets) -> None:
        for let in lets:
            t = self.tc.check(let.value)
            self._declare_local(frame, let.name, t)

    def _formula(self, sym: Symbol, decl: ast.FormulaDecl) -> None:
        params, declared, _ = self.formula_types[sym.name]
        frame = self._params_frame(decl, decl.params)
        self.tc.frame = frame
        self._lets(frame, decl.lets)
        got = self.tc.expect(decl.body, declared) if declared is not None else self.tc.check(decl.body)
        self.tc.frame = None
        random = any(self.info.is_random(x) for x in (decl.body, *[l.value for l in decl.lets]))
        self.formula_types[sym.name] = (params, declared or got, random)

    def _modifiers(self, sym: Symbol, decl: ast.ModifiersDecl) -> None:
        params, result, _ = self.formula_types[sym.name]
        if not T.is_numeric(result):
            self.error("T301", f"a modifier list adds numbers; its type cannot be {result}", decl.result.span)
        frame = self._params_frame(decl, decl.params)
        self.tc.frame = frame
        random = False
        for item in decl.items:
            if isinstance(item, ast.Let):
                self._lets(frame, [item])
                random = random or self.info.is_random(item.value)
                continue
            t = T.strip_optional(self.tc.check(item.value))
            if not T.is_numeric(t):
                self.error("T301", f"a modifier term must be a number, found {t}", item.value.span)
            elif t == T.NUMBER and result == T.INT:
                self.error("T301", "this term can be a fraction but the list adds whole numbers", item.value.span,
                           hint="round it (floor, ceil, round) or declare the list '-> number'")
            if item.condition is not None:
                self.tc.expect(item.condition, T.BOOL)
            self.tc.check(item.reason)
            random = random or self.info.is_random(item.value) or (
                item.condition is not None and self.info.is_random(item.condition))
        self.tc.frame = None
        self.formula_types[sym.name] = (params, result, random)

    # ---------------------------------------------------------------------------- tables

    def _key_spec(self, expr, key_type: T.Type):
        """A key cell's value, known at check time: ("value", v) or ("range", lo, hi)."""
        if isinstance(expr, ast.Range):
            if T.strip_optional(key_type) != T.INT:
                self.error("T317", f"a range key needs an int key, not {key_type}", expr.span)
                return None
            lo = self._const_int(expr.lo)
            hi = self._const_int(expr.hi) if expr.hi is not None else None
            if lo is None or (expr.hi is not None and hi is None):
                return None
            if hi is not None and hi < lo:
                self.error("T317", f"range {lo}..{hi} is empty", expr.span)
                return None
            return ("range", lo, hi)
        frame = Frame(id(expr), self.info)
        self.tc.frame = frame
        self.tc.expect(expr, key_type)
        self.tc.frame = None
        value = self._const_value(expr)
        if value is _NOT_CONST:
            self.error("T318", "a table key must be written out: a number, a text, a range or a name",
                       expr.span)
            return None
        return ("value", value)

    def _const_int(self, expr):
        self.tc.frame = Frame(id(expr), self.info)
        self.tc.expect(expr, T.INT)
        self.tc.frame = None
        value = self._const_value(expr)
        if value is _NOT_CONST or not isinstance(value, int):
            self.error("T318", "a range bound must be a whole number written out", expr.span)
            return None
        return value

    def _const_value(self, expr):
        if isinstance(expr, ast.IntLit):
            return expr.value
        if isinstance(expr, ast.Unary) and isinstance(expr.operand, ast.IntLit):
            return -expr.operand.value if expr.op == "-" else expr.operand.value
        if isinstance(expr, ast.BoolLit):
            return expr.value
        if isinstance(expr, ast.StringLit) and expr.is_plain:
            return self.info.coerce.get(id(expr), expr.plain)
        if isinstance(expr, ast.Name):
            res = self.info.names.get(id(expr))
            if res is not None and res.kind == "const":
                return res.value
        if isinstance(expr, ast.Field):
            fi = self.info.fields.get(id(expr))
            if fi is not None and fi.kind == "member":
                return fi.value
        return _NOT_CONST

    def _rows(self, sym: Symbol, decl, key_types, value_types) -> list[tuple]:
        keys: list[tuple] = []
        seen: dict[tuple, ast.TableRow] = {}
        ranges: list[tuple[int, int | None, ast.TableRow]] = []
        for row in decl.rows:
            if len(row.keys) != len(key_types):
                self.error("T319", f"table {sym.name} has {len(key_types)} key(s); this row has {len(row.keys)}",
                           row.span)
                keys.append(())
                continue
            if len(row.values) != len(value_types):
                self.error("T319", f"table {sym.name} has {len(value_types)} column(s); this row has "
                                   f"{len(row.values)}", row.span)
            self.tc.allow_open_range = True
            specs = tuple(self._key_spec(k, kt) for k, kt in zip(row.keys, key_types))
            self.tc.allow_open_range = False
            frame = Frame(id(row), self.info)
            self.tc.frame = frame
            for value, vt in zip(row.values, value_types):
                self.tc.expect(value, vt)
                if self.info.is_random(value):
                    self.error("T310", "a table cell cannot roll dice", value.span,
                               hint="roll in a formula that reads the table")
            self.tc.frame = None
            keys.append(specs)
            if any(s is None for s in specs):
                continue
            if len(specs) == 1 and specs[0][0] == "range":
                _, lo, hi = specs[0]
                for olo, ohi, other in ranges:
                    if (ohi is None or lo <= ohi) and (hi is None or olo <= hi):
                        self.error("T320", f"range {_range_text(lo, hi)} overlaps {_range_text(olo, ohi)}",
                                   row.keys[0].span, related=[Related(other.keys[0].span, "the other range")])
                for (v,), other in seen.items():
                    if isinstance(v, int) and not isinstance(v, bool) and v >= lo and (hi is None or v <= hi):
                        self.error("T320", f"range {_range_text(lo, hi)} includes key {v}, which has its own row",
                                   row.keys[0].span, related=[Related(other.span, "the row for " + str(v))])
                ranges.append((lo, hi, row))
                continue
            plain = tuple(s[1] for s in specs)
            if plain in seen:
                self.error("T320", f"table {sym.name} has two rows for {_key_text(plain)}", row.span,
                           related=[Related(seen[plain].span, "the first row")])
            seen[plain] = row
            if len(specs) == 1:
                for lo, hi, other in ranges:
                    v = plain[0]
                    if isinstance(v, int) and v >= lo and (hi is None or v <= hi):
                        self.error("T320", f"key {v} is also in range {_range_text(lo, hi)}", row.span,
                                   related=[Related(other.span, "the range")])
        return keys

    def _table(self, sym: Symbol, decl: ast.TableDecl) -> None:
        key_types = sym.params_types
        if decl.columns is not None:
            value_types = tuple(t for _, t in sym.rows_type.fields)
            columns = tuple(c.name.text for c in decl.columns)
        else:
            value_types = (sym.rows_type,)
            columns = None
        if not decl.rows:
            self.error("T319", f"table {sym.name} has no rows", decl.name.span)
        keys = self._rows(sym, decl, key_types, value_types)
        self.tables[sym.name] = TableInfo(decl, key_types, sym.rows_type, keys, columns)

    def _die_table(self, sym: Symbol, decl: ast.DieTableDecl) -> None:
        count, sides = decl.dice.count, decl.dice.sides
        keys = self._rows(sym, decl, (T.INT,), (sym.rows_type,))
        covered: dict[int, ast.TableRow] = {}
        lo_roll, hi_roll = count, count * sides
        for specs, row in zip(keys, decl.rows):
            if not specs or specs[0] is None:
                continue
            spec = specs[0]
            values = [spec[1]] if spec[0] == "value" else list(range(spec[1], (spec[2] if spec[2] is not None
                                                                                  else hi_roll) + 1))
            for v in values:
                if not isinstance(v, int) or v < lo_roll or v > hi_roll:
                    self.error("T321", f"{decl.dice.count if count > 1 else ''}d{sides} cannot roll {v}",
                               row.keys[0].span)
                    break
                covered[v] = row
        missing = [v for v in range(lo_roll, hi_roll + 1) if v not in covered]
        if missing:
            self.error("T321", f"die table {sym.name} has no row for roll(s) {', '.join(map(str, missing))}",
                       decl.name.span)
        self.tables[sym.name] = TableInfo(decl, (T.INT,), sym.rows_type, keys, None, (count, sides))

    # ----------------------------------------------------------------------- declarations

    def _units(self) -> None:
        attrs = self.scope.unit_attributes
        for name, sym in self.scope.symbols.items():
            decl = sym.decl
            if not isinstance(decl, ast.UnitDecl):
                continue
            given = set()
            for ident, value in decl.attributes:
                attr = attrs.get(ident.text)
                if attr is None:
                    close = close_matches(ident.text, list(attrs), n=3)
                    self.error("R201", f"unit {name}: '{ident.text}' is not a declared attribute", ident.span,
                               hint=f"did you mean {', '.join(close)}?" if close else
                               f"declare it first: attribute {ident.text}: int")
                    continue
                given.add(ident.text)
                self._constant_expr(value, attr.type)
            for aname, attr in attrs.items():
                if aname not in given and attr.decl.default is None:
                    self.error("T322", f"unit {name} does not give attribute '{aname}', which has no default",
                               decl.name.span, hint=f"add '{aname}: ...' or give the attribute a default")
            for tag in decl.tags or ():
                if tag.text not in self.scope.enums["tag"].by_name:
                    close = close_matches(tag.text, list(self.scope.enums["tag"].by_name), n=3)
                    self.error("R201", f"unit {name}: '{tag.text}' is not a declared tag", tag.span,
                               hint=f"did you mean {', '.join(close)}?" if close else
                               f"declare it first: tag {tag.text}")

    def _options_facts_counters(self) -> None:
        for name, sym in self.scope.symbols.items():
            decl = sym.decl
            if isinstance(decl, ast.OptionDecl):
                sym.type = self.resolve_type(decl.type)
                self._constant_expr(decl.default, sym.type)
            elif isinstance(decl, ast.FactDecl):
                sym.type = self.resolve_type(decl.type)
                if decl.default is not None:
                    self._constant_expr(decl.default, sym.type)
            elif isinstance(decl, ast.CounterDecl):
                if decl.default is not None:
                    frame = self._params_frame(decl, decl.params)
                    self.tc.frame = frame
                    self.tc.expect(decl.default, sym.type)
                    self.tc.frame = None
                    if self.info.is_random(decl.default):
                        self.error("T310", "a counter's starting value cannot roll dice", decl.default.span)

    # ------------------------------------------------------------------------ procedures

    def _procedures(self) -> None:
        symbols = self.scope.symbols
        for name, sym in symbols.items():
            decl = sym.decl
            if isinstance(decl, (ast.PhaseDecl, ast.StepDecl)):
                self._procedure(name, decl)
            elif isinstance(decl, ast.SequenceDecl):
                for item in decl.items:
                    target = symbols.get(item.text)
                    if target is None or target.kind not in PROCEDURE_KINDS:
                        close = close_matches(item.text, [n for n, s in symbols.items()
                                                              if s.kind in PROCEDURE_KINDS], n=3)
                        self.error("R201", f"sequence {name}: '{item.text}' is not a phase or step", item.span,
                                   hint=f"did you mean {', '.join(close)}?" if close else None)
            elif isinstance(decl, ast.HookDecl):
                self._hook(name, decl)
            elif isinstance(decl, ast.ConstraintDecl):
                self._constraint(name, decl)
        self._run_cycles()

    def _procedure(self, name: str, decl) -> None:
        proc = decl.procedure
        if isinstance(proc, ast.RuntimeProcedure):
            known = PROCEDURES.get(proc.name.text)
            if known is None:
                close = close_matches(proc.name.text, list(PROCEDURES), n=3)
                self.error("R201", f"'{proc.name.text}' is not a runtime procedure", proc.name.span,
                           hint=f"did you mean {', '.join(close)}?" if close else
                           "runtime procedures: " + ", ".join(PROCEDURES))
                return
            given = {i.text for i, _ in proc.config.fields} if proc.config is not None else set()
            missing = [f for f in REQUIRED.get(proc.name.text, ()) if f not in given]
            if missing:
                self.error("T325", f"runtime procedure {proc.name.text} needs the setting(s) {', '.join(missing)}",
                           proc.name.span, hint="for example: " + _EXAMPLE_SETTINGS.get(proc.name.text, ""))
            if proc.config is not None:
                fields = known[1]
                frame = Frame(id(proc), self.info)
                self.tc.frame = frame
                for ident, value in proc.config.fields:
                    want = fields.get(ident.text)
                    if want is None:
                        self.error("T303", f"runtime procedure {proc.name.text} has no setting '{ident.text}'",
                                   ident.span, hint="settings: " + (", ".join(fields) or "none"))
                        if not isinstance(value, ast.Lambda):
                            self.tc.check(value)
                    elif isinstance(want, T.FnType):
                        self.tc.check_function_arg(value, want.params, want.result)
                    else:
                        self.tc.expect(value, want)
                self.tc.frame = None
            return
        self._block_owner(name, decl, proc.body, [])

    def _block_owner(self, name: str, owner, block: ast.Block, params) -> Frame:
        frame = Frame(id(owner), self.info)
        self.info.frames[id(owner)] = frame.size
        self.tc.frame = frame
        for ident, typ in params:
            self._declare_local(frame, ident, typ)
        self.current_procedure = name
        self._block(block, frame)
        self.current_procedure = None
        self.tc.frame = None
        return frame

    def _hook(self, name: str, decl: ast.HookDecl) -> None:
        target = self.scope.symbols.get(decl.target.phase.text)
        if target is None or target.kind not in PROCEDURE_KINDS:
            close = close_matches(decl.target.phase.text, [n for n, s in self.scope.symbols.items()
                                                               if s.kind in PROCEDURE_KINDS], n=3)
            self.error("R201", f"hook {name}: '{decl.target.phase.text}' is not a phase or step",
                       decl.target.phase.span, hint=f"did you mean {', '.join(close)}?" if close else None)
        if decl.target.step is not None:
            step = self.scope.symbols.get(decl.target.step.text)
            if step is None or step.kind != "step":
                self.error("R201", f"hook {name}: '{decl.target.step.text}' is not a step",
                           decl.target.step.span)
        frame = Frame(id(decl), self.info)
        self.info.frames[id(decl)] = frame.size
        self.tc.frame = frame
        if decl.players is not None:
            t = self.tc.check(decl.players, T.PLAYER)
            if not (T.assignable(t, T.PLAYER) or T.assignable(t, T.SetType(T.PLAYER))):
                self.error("T301", f"'for' names a player or a set of players, found {t}", decl.players.span)
        if decl.condition is not None:
            self.tc.expect(decl.condition, T.BOOL)
        self.current_procedure = name
        self._block(decl.body, frame)
        self.current_procedure = None
        self.tc.frame = None

    def _constraint(self, name: str, decl: ast.ConstraintDecl) -> None:
        action = ACTIONS.get(decl.action.text)
        if action is None:
            close = close_matches(decl.action.text, list(ACTIONS), n=3)
            self.error("R201", f"'{decl.action.text}' is not an action a constraint can guard", decl.action.span,
                       hint=f"did you mean {', '.join(close)}?" if close else "actions: " + ", ".join(ACTIONS))
            params = [(p, T.ANY) for p in decl.params]
        else:
            if len(decl.params) != len(action):
                self.error("T302", f"action {decl.action.text} gives {len(action)} values "
                                   f"({', '.join(n for n, _ in action)}); found {len(decl.params)} names",
                           decl.action.span)
            params = [(p, t) for p, (_, t) in zip(decl.params, action)]
        frame = self._block_owner(name, decl, decl.body, params)
        del frame
        for stmt in ast.walk(decl.body):
            if isinstance(stmt, (ast.ChangeEffect, ast.SetEffect, ast.AddEffect, ast.RemoveEffect,
                                 ast.MoveEffect, ast.WinEffect, ast.RunEffect, ast.Choose, ast.HitEffect,
                                 ast.SubmergeEffect, ast.RetreatEffect)):
                self.error("T323", "a constraint only checks; it cannot change the game or ask players",
                           stmt.span)

    def _run_cycles(self) -> None:
        """Phases that run each other (directly or through hooks) would never end."""
        symbols = self.scope.symbols
        graph: dict[str, list[tuple[str, Any]]] = {}
        for name, sym in symbols.items():
            decl = sym.decl
            body = None
            if isinstance(decl, (ast.PhaseDecl, ast.StepDecl)) and isinstance(decl.procedure, ast.CustomProcedure):
                body = decl.procedure.body
            elif isinstance(decl, ast.HookDecl):
                body = decl.body
                graph.setdefault(decl.target.phase.text, []).append((name, decl.name))
            if body is not None:
                for node in ast.walk(body):
                    if isinstance(node, ast.RunEffect):
                        graph.setdefault(name, []).append((node.name.text, node))
        state: dict[str, int] = {}

        def visit(n, path):
            if state.get(n) == 2:
                return
            if state.get(n) == 1:
                cycle = path[path.index(n):] + [n]
                site = next((s for d, s in graph.get(path[-1], []) if d == n), None)
                self.error("R221", "phases run each other in a cycle: " + " -> ".join(cycle),
                           site.span if site is not None else None)
                return
            state[n] = 1
            path.append(n)
            for dep, _ in graph.get(n, []):
                visit(dep, path)
            path.pop()
            state[n] = 2

        for n in list(graph):
            visit(n, [])

    # ------------------------------------------------------------------------ statements

    def _block(self, block: ast.Block, frame: Frame) -> None:
        frame.push()
        for stmt in block.stmts:
            self._stmt(stmt, frame)
        frame.pop()

    def _stmt(self, stmt, frame: Frame) -> None:
        tc = self.tc
        if isinstance(stmt, ast.Let):
            t = tc.check(stmt.value)
            self._declare_local(frame, stmt.name, t)
        elif isinstance(stmt, ast.Choose):
            self._choose(stmt, frame)
        elif isinstance(stmt, ast.Require):
            tc.expect(stmt.cond, T.BOOL)
            if stmt.message is not None:
                tc.expect(stmt.message, T.TEXT)
        elif isinstance(stmt, ast.IfStmt):
            for cond, block in stmt.branches:
                tc.expect(cond, T.BOOL)
                self._block(block, frame)
            if stmt.else_block is not None:
                self._block(stmt.else_block, frame)
        elif isinstance(stmt, ast.ForStmt):
            it = T.strip_optional(tc.check(stmt.iterable))
            elem = T.element_type(it)
            if elem is None:
                self.error("T301", f"'for' needs a set or a list to go through, found {it}", stmt.iterable.span)
                elem = T.ANY
            frame.push()
            self._declare_local(frame, stmt.var, elem)
            if stmt.condition is not None:
                tc.expect(stmt.condition, T.BOOL)
            self._block(stmt.body, frame)
            frame.pop()
        elif isinstance(stmt, ast.ChangeEffect):
            t = self._settable(stmt.target, "change")
            amount = tc.check(stmt.amount)
            if t is not None and not T.is_numeric(T.strip_optional(t)):
                self.error("T324", f"'change ... by' adds to a number; {stmt.target.span.text} holds {t}",
                           stmt.target.span, hint="use 'set ... to' instead")
            elif not T.is_numeric(T.strip_optional(amount)):
                self.error("T301", f"expected a number to change by, found {amount}", stmt.amount.span)
        elif isinstance(stmt, ast.SetEffect):
            t = self._settable(stmt.target, "set")
            if t is not None:
                tc.expect(stmt.value, t)
            else:
                tc.check(stmt.value)
        elif isinstance(stmt, ast.AddEffect):
            tc.expect(stmt.count, T.INT)
            tc.expect(stmt.unit_type, T.UNITTYPE)
            tc.expect(stmt.space, T.SPACE)
            if stmt.owner is not None:
                tc.expect(stmt.owner, T.PLAYER)
        elif isinstance(stmt, ast.RemoveEffect):
            self._units_arg(stmt.units, "remove")
        elif isinstance(stmt, ast.MoveEffect):
            self._units_arg(stmt.units, "move")
            tc.expect(stmt.to, T.SPACE)
        elif isinstance(stmt, ast.LogEffect):
            tc.expect(stmt.message, T.TEXT)
        elif isinstance(stmt, ast.WinEffect):
            t = tc.check(stmt.winner, T.SIDE)
            if not (T.assignable(t, T.SIDE) or T.assignable(t, T.PLAYER)):
                self.error("T301", f"'win' names a side or a player, found {t}", stmt.winner.span)
            if stmt.reason is not None:
                tc.check(stmt.reason)
        elif isinstance(stmt, ast.HitEffect):
            tc.expect(stmt.count, T.INT)
            self._units_arg(stmt.units, "hit")
            tc.expect(stmt.chooser, T.PLAYER)
        elif isinstance(stmt, ast.SubmergeEffect):
            self._units_arg(stmt.units, "submerge")
        elif isinstance(stmt, ast.RetreatEffect):
            tc.expect(stmt.to, T.SPACE)
        elif isinstance(stmt, ast.RunEffect):
            target = self.scope.symbols.get(stmt.name.text)
            if target is None or target.kind not in PROCEDURE_KINDS:
                self.error("R201", f"'{stmt.name.text}' is not a phase or step to run", stmt.name.span)

    def _units_arg(self, node, verb: str) -> None:
        t = T.strip_optional(self.tc.check(node))
        if not (t in (T.UNIT, T.ANY) or (T.element_type(t) in (T.UNIT, T.ANY) and T.element_type(t) is not None)):
            self.error("T301", f"'{verb}' takes a unit or a list or set of units, found {t}", node.span)

    def _settable(self, target, verb: str) -> T.Type | None:
        """The type held by a `change`/`set` target: a counter, treasury(p) or controller(s)."""
        if isinstance(target, ast.Name):
            sym = self.scope.symbols.get(target.id)
            if sym is not None and sym.kind == "counter" and not sym.decl.params:
                return self.tc.check(target)
        if isinstance(target, ast.Call) and isinstance(target.func, ast.Name):
            name = target.func.id
            sym = self.scope.symbols.get(name)
            if sym is not None and sym.kind == "counter":
                return self.tc.check(target)
            if name == "treasury" and sym is None:
                self.tc.check(target)
                return T.INT
            if name in ("controller", "owner", "factory_owner") and sym is None and verb == "set":
                self.tc.check(target)
                return T.OptionalType(T.PLAYER) if name == "factory_owner" else T.PLAYER
            if name == "factory_kind" and sym is None and verb == "set":
                self.tc.check(target)
                return T.TEXT
            if name in ("factory_damage", "hits") and sym is None:
                self.tc.check(target)
                return T.INT
        if not isinstance(self.tc.check(target), T.AnyType):  # an unknown name is reported already
            self.error("T324", f"cannot {verb} this: only counters, treasury(p), controller(s), factory_owner(s), "
                               "factory_kind(s), factory_damage(s) and hits(u) can be changed", target.span)
        return None

    def _choose(self, stmt: ast.Choose, frame: Frame) -> None:
        tc = self.tc
        opts = T.strip_optional(tc.check(stmt.options))
        elem = T.element_type(opts)
        if elem is None:
            self.error("T301", f"choose ... of needs a set or a list of options, found {opts}", stmt.options.span)
            elem = T.ANY
        tc.expect(stmt.player, T.PLAYER)
        if stmt.count is not None:
            tc.expect(stmt.count, T.INT)
        if stmt.prompt is not None:
            tc.check(stmt.prompt)
        result = elem if stmt.mode == "one" else T.SetType(elem)
        self._declare_local(frame, stmt.name, result)
        if self.current_procedure is not None:
            key = f"{self.current_procedure}.{stmt.name.text}"
            self.decision_ids.setdefault(key, stmt)

    # ------------------------------------------------------------------------ checks/tests

    def _checks(self) -> None:
        for key, cd in self.ruleset.checks.items():
            decl = cd.decl
            if decl.expr is not None:
                frame = Frame(id(decl), self.info)
                self.info.frames[id(decl)] = frame.size
                self.tc.frame = frame
                self.tc.expect(decl.expr, T.BOOL)
                self.tc.frame = None
            else:
                self._block_owner(f"check {decl.title}", decl, decl.body, [])

    def _tests(self) -> None:
        for test in self.ruleset.tests:
            frame = Frame(id(test), self.info)
            self.info.frames[id(test)] = frame.size
            self.tc.frame = frame
            for line in test.lines:
                self._test_line(line, frame)
            self.tc.frame = None

    def _symbol_of_kind(self, ident, kinds, what: str, hint: str | None = None):
        """The definition `ident` names when it is of one of `kinds`; else R201 (with a
        did-you-mean among the definitions of those kinds, or `hint`) and None."""
        sym = self.scope.symbols.get(ident.text)
        if sym is not None and sym.kind in kinds:
            return sym
        close = close_matches(ident.text, [n for n, s in self.scope.symbols.items() if s.kind in kinds], n=3)
        self.error("R201", f"'{ident.text}' is not {what}", ident.span,
                   hint=f"did you mean {', '.join(close)}?" if close else hint)
        return None

    def _test_line(self, line, frame: Frame) -> None:
        tc = self.tc
        if isinstance(line, ast.TestOption):
            sym = self._symbol_of_kind(line.name, ("option",), "an option")
            if sym is None:
                tc.check(line.value)
            else:
                tc.expect(line.value, sym.type)
        elif isinstance(line, ast.TestAnswer):
            key = line.target.text
            stmt = self.decision_ids.get(key)
            if stmt is None:
                close = close_matches(key, list(self.decision_ids), n=3)
                self.error("R201", f"no decision named '{key}'", line.target.span,
                           hint=f"did you mean {', '.join(close)}?" if close else
                           "a decision is named procedure.variable, after 'let variable = choose ...'")
                tc.check(line.value)
            else:
                want = self.info.types.get(id(stmt.options))
                elem = T.element_type(T.strip_optional(want)) if want is not None else None
                expected = elem if stmt.mode == "one" else T.SetType(elem or T.ANY)
                tc.expect(line.value, expected or T.ANY)
        elif isinstance(line, ast.Let):
            t = tc.check(line.value)
            self._declare_local(frame, line.name, t)
        elif isinstance(line, ast.TestRun):
            self._symbol_of_kind(line.phase, PROCEDURE_KINDS, "a phase or step")
            if line.player is not None:
                tc.expect(line.player, T.PLAYER)
        elif isinstance(line, ast.TestFact):
            sym = self._symbol_of_kind(line.name, ("fact",), "a fact", "declare it: fact NAME: TYPE")
            if sym is None:
                tc.check(line.value)
            else:
                tc.expect(line.value, sym.type)
        elif isinstance(line, ast.TestBattle):
            tc.expect(line.space, T.SPACE)
            tc.expect(line.attacker, T.PLAYER)
            if line.sea_zone is not None:
                tc.expect(line.sea_zone, T.SPACE)
        elif isinstance(line, ast.Expect):
            tc.expect(line.expr, T.BOOL)
        elif isinstance(line, ast.ExpectError):
            if isinstance(line.expr, ast.TestRun):
                self._test_line(line.expr, frame)
            else:
                tc.check(line.expr)
        elif isinstance(line, ast.ExpectAction):
            action = ACTIONS.get(line.action.text)
            if action is None:
                self.error("R201", f"'{line.action.text}' is not an action", line.action.span,
                           hint="actions: " + ", ".join(ACTIONS))
                for a in line.args:
                    tc.check(a)
                return
            if len(line.args) != len(action):
                self.error("T302", f"action {line.action.text} takes {len(action)} values "
                                   f"({', '.join(n for n, _ in action)})", line.span)
            for a, (_, t) in zip(line.args, action):
                tc.expect(a, t)
        elif isinstance(line, ast.TestScenario) and line.changes is not None:
            pass  # scenario changes are data, validated against the scenario schema when the test runs

    # -------------------------------------------------------------------------- overrides

    def _overrides(self) -> None:
        """An override keeps the parameters of what it replaces (callers rely on them)."""
        for name, d in self.ruleset.definitions.items():
            if d.decl is None or d.previous is None or d.previous.decl is None or d.origin == d.previous.origin:
                continue
            old, new = d.previous.decl, d.decl
            old_params = self._param_types(old)
            new_params = self._param_types(new)
            if old_params is None or new_params is None:
                continue
            related = [Related(old.name.span, f"{d.previous.origin} defines {name} here")]
            if len(old_params) != len(new_params) or any(a != b for a, b in zip(old_params, new_params)):
                self.error(
                    "R206", f"override of {name} changes its parameters from ({_types(old_params)}) "
                            f"to ({_types(new_params)})", new.name.span, related=related,
                    hint="an override must take the same parameters; define a new name instead")
                continue
            # Callers written against the old definition use its value; a result they cannot
            # use would otherwise be reported inside their (often shipped) files, not here.
            old_result, new_result = self._old_result_type(old), self._result_type(name, new)
            if old_result is not None and new_result is not None and not T.assignable(new_result, old_result):
                self.error(
                    "R206", f"override of {name} changes its result type from {_shape(old_result)} to "
                            f"{_shape(new_result)}", new.name.span, related=related,
                    hint=f"an override must give a value its callers can use ({_shape(old_result)}); "
                         "define a new name instead")

    def _result_type(self, name: str, decl) -> T.Type | None:
        """The type of the value a live value definition gives (declared or inferred)."""
        if isinstance(decl, (ast.TableDecl, ast.DieTableDecl)):
            return getattr(self.scope.symbols.get(name), "rows_type", None)
        entry = self.formula_types.get(name)
        return entry[1] if entry is not None else None

    def _old_result_type(self, decl) -> T.Type | None:
        """The result type a superseded definition declares (None when it leaves it to inference).

        Its types are resolved without reporting: problems in them belong to the older ruleset.
        """
        mark = len(self.diags)
        try:
            if isinstance(decl, ast.ModifiersDecl):
                return self.resolve_type(decl.result) if decl.result is not None else T.INT
            if isinstance(decl, (ast.FormulaDecl, ast.DieTableDecl)):
                return self.resolve_type(decl.result) if decl.result is not None else None
            if isinstance(decl, ast.ConstantDecl) and decl.type is None:
                # a constant's type is its value's: check that value on a scratch checker
                scratch = TypeChecker(self.scope, CheckInfo(), [], self.formula_types)
                scratch.frame = Frame(id(decl), scratch.info)
                return scratch.check(decl.value)
            if isinstance(decl, (ast.CounterDecl, ast.ConstantDecl)):
                return self.resolve_type(decl.type)
            if isinstance(decl, ast.TableDecl):
                if decl.columns is None:
                    return self.resolve_type(decl.result)
                return T.RecordType(tuple((c.name.text, self.resolve_type(c.type)) for c in decl.columns))
            return None
        finally:
            del self.diags[mark:]

    def _param_types(self, decl) -> tuple | None:
        if isinstance(decl, (ast.FormulaDecl, ast.ModifiersDecl)):
            return tuple(self.resolve_type(p.type) for p in decl.params or ())
        if isinstance(decl, (ast.TableDecl, ast.CounterDecl)):
            return tuple(self.resolve_type(p.type) for p in decl.params)
        if isinstance(decl, ast.DieTableDecl):
            return (T.INT,)
        if isinstance(decl, ast.ConstantDecl):
            return ()
        return None


class _NotConst:
    pass


_NOT_CONST = _NotConst()


def _range_text(lo, hi) -> str:
    return f"{lo}..{hi if hi is not None else ''}"


def _key_text(key: tuple) -> str:
    from ruleslang.lang.values import format_value

    return ", ".join(format_value(v) for v in key)


def _types(ts) -> str:
    return ", ".join(str(t) for t in ts)


def _shape(t: T.Type) -> str:
    """A type as its fields when it is a record (two table rows both read "row of t")."""
    return str(T.RecordType(t.fields)) if isinstance(t, T.RecordType) else str(t)
