"""Type checking of expressions, and the facts about them the compiler needs.

The checker records, per node (keyed by `id(node)`: nodes that read the same compare equal):
its type, whether it rolls dice (`random`), what each name resolves to, the slot of each local
variable, which text literals stand for enumeration members (`"UK"` where a space is expected),
and what each call and field access refers to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ruleslang.lang.compose.previous import PREVIOUS, is_hidden_name
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import (BestOf, Binary, BoolOp, Call, Compare, Comprehension, Explain, Field,
                                               If, In, Index, KeywordArg, Lambda, ListLit, Name, Not, Range,
                                               RecordLit, SetLit, StringLit, Unary)
from ruleslang.lang import types as T
from ruleslang.lang.builtins.registry import REGISTRY as BUILTINS
from ruleslang.base.diagnostics import Diagnostic, Related, error, warning
from ruleslang.lang.scope import GlobalScope, Resolution, Symbol
from ruleslang.base.source import Span
from ruleslang.base.suggest import did_you_mean
from ruleslang.lang.values import EnumValue

# Aggregates whose single argument may be a `for` generator (compiled as a fold).
AGGREGATES = {"sum", "count", "any", "all", "min", "max"}
# Built-ins whose argument is evaluated exactly (to a distribution), not sampled.
EXACT_BUILTINS = {"probability", "expected", "distribution"}
# Fields every unit has, besides its type's attributes.
UNIT_FIELDS = {"id": T.INT, "type": T.UNITTYPE, "owner": T.PLAYER, "space": T.SPACE, "hits": T.INT,
               "moved": T.INT, "tags": T.SetType(T.TAG)}


@dataclass
class CallInfo:
    """What a call refers to: its kind and name (and symbol, for a definition)."""

    kind: str  # "builtin", "formula", "modifiers", "table", "die table", "counter", "constant"
    name: str
    symbol: Symbol | None = None


@dataclass
class FieldInfo:
    """What a field access refers to: its kind and name (and a value known to the checker)."""

    kind: str  # "record", "unit", "unittype", "space", "player", "side", "member", "enumname"
    name: str
    value: Any = None


@dataclass
class CheckInfo:
    """What the checker learned, for the compiler."""

    types: dict[int, T.Type] = field(default_factory=dict)
    random: set[int] = field(default_factory=set)
    names: dict[int, Resolution] = field(default_factory=dict)
    slots: dict[int, int] = field(default_factory=dict)
    frames: dict[int, int] = field(default_factory=dict)
    coerce: dict[int, Any] = field(default_factory=dict)
    calls: dict[int, CallInfo] = field(default_factory=dict)
    fields: dict[int, FieldInfo] = field(default_factory=dict)

    def is_random(self, node) -> bool:
        return id(node) in self.random

    def forget(self, node) -> None:
        """Drop what is known under the ids of `node`'s subtree, before `node` is checked into this info.

        Entries are keyed by `id(node)`. The program's own nodes live as long as the program, so
        their ids are never reused; but an expression checked later (a command line's, the API's)
        is discarded after use, and Python may give its ids to the next one: what the old one
        left would then be read for the new (a literal taken for a die, a stale coercion)."""
        maps = (self.types, self.names, self.slots, self.frames, self.coerce, self.calls, self.fields)
        for n in ast.walk(node):
            key = id(n)
            self.random.discard(key)
            for m in maps:
                m.pop(key, None)


class Frame:
    """The local variables of one formula, statement body or rule test: nested scopes over numbered slots."""

    def __init__(self, owner_id: int, info: CheckInfo):
        self.owner_id = owner_id
        self.info = info
        self.scopes: list[dict[str, tuple[int, T.Type, ast.Ident]]] = [{}]
        self.size = 1  # slot 0 holds the evaluation context

    def push(self) -> None:
        self.scopes.append({})

    def pop(self) -> None:
        self.scopes.pop()

    def declare(self, ident: ast.Ident, typ: T.Type, tc: "TypeChecker") -> int:
        existing = self.lookup(ident.text)
        if existing is not None and ident.text in self.scopes[-1]:
            tc.error("R202", f"'{ident.text}' is already defined here", ident.span,
                     related=[Related(existing[2].span, "first defined here")])
        slot = self.size
        self.size += 1
        self.scopes[-1][ident.text] = (slot, typ, ident)
        self.info.slots[id(ident)] = slot
        self.info.frames[self.owner_id] = self.size
        return slot

    def lookup(self, name: str):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def names(self) -> list[str]:
        return [n for scope in self.scopes for n in scope]


class TypeChecker:
    """Checks expressions against a global scope; reports diagnostics into `self.diags`."""

    def __init__(self, scope: GlobalScope, info: CheckInfo, diags: list[Diagnostic],
                 formula_types: dict[str, tuple[tuple[T.Type, ...] | None, T.Type, bool]]):
        self.scope = scope
        self.info = info
        self.diags = diags
        # name -> (parameter types or None, result type, random)
        self.formula_types = formula_types
        self.frame: Frame | None = None
        self.allow_lambda = False
        self.allow_open_range = False
        # names a revision removed -> where the composition still uses them (one diagnostic each, at
        # the `remove`, instead of an "is not defined" at every use)
        self.removed: set[str] = set()
        self.removed_uses: dict[str, list[Span]] = {}
        # name -> the rulesets outside the composition that define it (the hint for a missing `uses`)
        self.defined_in: Callable[[str], list[str]] | None = None

    # ------------------------------------------------------------------------- reporting

    def error(self, code, message, span, *, hint=None, related=()):
        self.diags.append(error(code, message, span, hint=hint, related=related))

    def warn(self, code, message, span, *, hint=None):
        self.diags.append(warning(code, message, span, hint=hint))

    def callee_name(self, call: Call) -> str:
        return call.func.id if isinstance(call.func, Name) else "this function"

    def mark_random(self, node) -> None:
        self.info.random.add(id(node))

    # --------------------------------------------------------------------------- entries

    def expect(self, node, want: T.Type) -> T.Type:
        got = self.check(node, want)
        if not T.assignable(got, want):
            self.error("T301", f"expected {_a(want)}, found {_a(got)}", node.span)
        return got

    def check(self, node, expected: T.Type | None = None) -> T.Type:
        method = getattr(self, "_" + type(node).__name__)
        typ = method(node, expected)
        self.info.types[id(node)] = typ
        if id(node) not in self.info.random and not isinstance(node, (Lambda,)):
            if isinstance(node, Call) and self.callee_name(node) in EXACT_BUILTINS:
                return typ
            for child in ast.children(node):
                if isinstance(child, KeywordArg):
                    child = child.value
                if id(child) in self.info.random and not isinstance(child, ast.Ident):
                    self.info.random.add(id(node))
                    break
        return typ

    def check_collection(self, node) -> T.Type | None:
        """The element type of an aggregate's argument: a generator or a set/list value."""
        if isinstance(node, Comprehension) and node.kind == "gen":
            elem = self._comprehension_element(node)
            self.info.types[id(node)] = T.ListType(elem)
            return elem
        t = T.strip_optional(self.check(node))
        elem = T.element_type(t)
        if elem is None:
            self.error("T301", f"expected a set, a list or a generator (e for x in s), found {_a(t)}", node.span)
        return elem

    def check_function_arg(self, node, params: tuple[T.Type, ...], result: T.Type) -> None:
        """An `x => ...` argument of a built-in, its parameter typed by the built-in."""
        if not isinstance(node, Lambda):
            t = self.check(node)
            self.error("T301", f"expected a condition written as x => ..., found {_a(t)}", node.span,
                       hint="for example: x => allied(controller(x), p)")
            return
        assert self.frame is not None
        self.frame.push()
        self.frame.declare(node.param, params[0], self)
        body = self.expect(node.body, result)
        self.frame.pop()
        if id(node.body) in self.info.random:
            self.error("T310", "a condition passed to a built-in cannot roll dice", node.body.span)
        self.info.types[id(node)] = T.FnType(params, body)

    # -------------------------------------------------------------------------- literals

    def _IntLit(self, node, expected):
        return T.INT

    def _DecimalLit(self, node, expected):
        return T.NUMBER

    def _BoolLit(self, node, expected):
        return T.BOOL

    def _NoneLit(self, node, expected):
        return T.NONE

    def _DiceLit(self, node, expected):
        self.mark_random(node)
        return T.INT

    def _StringLit(self, node, expected):
        for part in node.parts:
            if not isinstance(part, str):
                self.check(part)
        target = T.strip_optional(expected) if expected is not None else None
        if isinstance(target, T.EnumType) and node.is_plain:
            value = self.coerce_name(node.plain, target, node.span)
            if value is not None:
                self.info.coerce[id(node)] = value
                return target
            return T.ANY
        return T.TEXT

    def coerce_name(self, text: str, enum_type: T.EnumType, span) -> EnumValue | None:
        """A text naming a member of an enumeration (`"UK"` as a space); reports unknown names."""
        enum = self.scope.enums.get(enum_type.name)
        if enum is None:
            self.error("T304", f"'{text}' cannot be {_a(enum_type)}: there is no such enumeration", span)
            return None
        value = enum.lookup(text)
        if value is not None:
            return value
        if enum_type.name == "space" and not enum.members:
            self.error("T305", f"'{text}' cannot be a space: no map is in use", span,
                       hint='name the map in the ruleset header, e.g. map "aar"')
            return None
        self.error("T305", f"there is no {enum_type.name} named '{text}'", span,
                   hint=did_you_mean(text, enum.spellings()))
        return None

    # ----------------------------------------------------------------------------- names

    def _Name(self, node, expected):
        name = node.id
        if self.frame is not None:
            local = self.frame.lookup(name)
            if local is not None:
                slot, typ, _ = local
                self.info.names[id(node)] = Resolution("local", slot)
                return typ
        target = T.strip_optional(expected) if expected is not None else None
        if isinstance(target, (T.SetType, T.ListType)):
            target = T.strip_optional(target.element)
        if isinstance(target, T.EnumType):
            # Where a tag (say) is expected, `diver` is the tag, even when a unit type shares the word;
            # where a player is expected, a name a player and a side share is the player.
            for member in self.scope.members.get(name, ()):
                if member.kind == target.name:
                    self.info.names[id(node)] = Resolution("const", value=member)
                    return target
            enum = self.scope.enums.get(target.name) if target.name in ("player", "side", "unittype") else None
            if enum is not None and name in enum.by_name and (self.frame is None or self.frame.lookup(name) is None):
                self.info.names[id(node)] = Resolution("const", value=enum.by_name[name])
                return target
        symbol = self.scope.symbols.get(name)
        if symbol is not None:
            return self._global_value(node, symbol)
        members = self.scope.members.get(name)
        if members:
            chosen = members
            target = T.strip_optional(expected) if expected is not None else None
            if len(members) > 1 and isinstance(target, T.EnumType):
                chosen = [m for m in members if m.kind == target.name] or members
            if len(chosen) > 1:
                kinds = " and ".join(m.kind for m in chosen)
                self.error("R203", f"'{name}' is a member of both {kinds}", node.span,
                           hint=f"write {chosen[0].kind}.{name} or {chosen[1].kind}.{name}")
                return T.ANY
            self.info.names[id(node)] = Resolution("const", value=chosen[0])
            return T.EnumType(chosen[0].kind)
        if name in BUILTINS:
            self.error("T306", f"'{name}' is a built-in function; call it: {name}(...)", node.span)
            return T.ANY
        self._undefined(name, node.span)
        return T.ANY

    def _undefined(self, name: str, span) -> None:
        if name in self.removed:
            self.removed_uses.setdefault(name, []).append(span)
            return
        game_map = self.scope.game_map
        space = game_map.resolve_space(name) if game_map is not None else None
        definers = self.defined_in(name) if self.defined_in is not None and space is None else []
        if space is not None:
            # a space is written as text; a bare word is read as a definition's name
            hint = f'a space of the map is written in quotes: "{space}"'
        elif definers:
            also = f" (also {', '.join(definers[1:4])})" if len(definers) > 1 else ""
            hint = f"'{name}' is defined in {definers[0]}{also}: add `uses {definers[0]}`"
        elif name == PREVIOUS:
            hint = ("previous names the definition an override replaces: write it in an `override` of a "
                    "formula, modifier list, table, constant, phase or step")
        else:
            local = self.frame.names() if self.frame is not None else []
            defined = [n for n in self.scope.symbols if not is_hidden_name(n)]
            hint = did_you_mean(name, local + defined + list(self.scope.members) + list(BUILTINS), n=3)
        self.error("R201", f"'{name}' is not defined", span, hint=hint)

    def _global_value(self, node, symbol: Symbol) -> T.Type:
        kind = symbol.kind
        if kind in ("player", "side", "unit", "tag"):
            self.info.names[id(node)] = Resolution("const", value=symbol.value)
            return symbol.type
        if kind in ("constant", "option", "fact"):
            self.info.names[id(node)] = Resolution("global", symbol=symbol)
            if kind == "constant":
                ft = self.formula_types.get(symbol.name)
                if ft is not None and ft[2]:
                    self.mark_random(node)
                return ft[1] if ft else symbol.type
            return symbol.type
        if kind in ("formula", "modifiers", "counter"):
            ft = self.formula_types.get(symbol.name)
            params = ft[0] if ft else None
            if params:
                self.error("T307", f"'{symbol.name}' is a {kind} of {len(params)} argument(s); call it: "
                                   f"{symbol.name}(...)", node.span)
                return T.ANY
            self.info.names[id(node)] = Resolution("global", symbol=symbol)
            if ft is not None and ft[2]:
                self.mark_random(node)
            return ft[1] if ft else T.ANY
        if kind in ("table", "die table"):
            self.info.names[id(node)] = Resolution("global", symbol=symbol)
            return symbol.type
        if kind == "sequence":
            # read as a value, a sequence is the names of its phases or steps, in order, so that
            # a rule test can state the order a rule sheet gives
            self.info.names[id(node)] = Resolution("global", symbol=symbol)
            return T.ListType(T.TEXT)
        what = {"enum": "an enumeration", "type": "a type", "attribute": "an attribute"}.get(kind, f"a {kind}")
        self.error("T308", f"'{symbol.name}' is {what}, not a value", node.span)
        return T.ANY

    # ------------------------------------------------------------------------------ calls

    def _Call(self, node: Call, expected):
        func = node.func
        if not isinstance(func, Name):
            self.check(func)
            self.error("T309", "only named formulas, tables and built-ins can be called", func.span)
            self._check_args_loosely(node)
            return T.ANY
        name = func.id
        if self.frame is not None and self.frame.lookup(name) is not None:
            self.error("T309", f"'{name}' is a local value, not a function", func.span)
            self._check_args_loosely(node)
            return T.ANY
        symbol = self.scope.symbols.get(name)
        if symbol is None:
            bi = BUILTINS.get(name)
            if bi is None:
                self._undefined(name, func.span)
                self._check_args_loosely(node)
                return T.ANY
            self.info.calls[id(node)] = CallInfo("builtin", name)
            if name in AGGREGATES:
                return bi.check(self, node)
            for arg in node.args:
                if isinstance(arg, Comprehension) and arg.kind == "gen":
                    self.error("T311", f"{name} does not take a generator", arg.span,
                               hint="generators (e for x in s) go to sum, count, any, all, min and max")
            return bi.check(self, node)
        kind = symbol.kind
        if kind in ("formula", "modifiers", "counter", "constant"):
            return self._call_definition(node, symbol)
        if kind in ("table", "die table"):
            return self._call_table(node, symbol)
        self.error("T309", f"'{name}' is a {kind}; it cannot be called", func.span)
        self._check_args_loosely(node)
        return T.ANY

    def _check_args_loosely(self, node: Call) -> None:
        for a in node.args:
            if isinstance(a, Comprehension) and a.kind == "gen":
                self.check_collection(a)
            elif not isinstance(a, Lambda):
                self.check(a)
        for k in node.kwargs:
            self.check(k.value)

    def _call_definition(self, node: Call, symbol: Symbol) -> T.Type:
        ft = self.formula_types.get(symbol.name)
        params, result, random = ft if ft else (None, T.ANY, False)
        decl = symbol.decl
        param_nodes = getattr(decl, "params", None) or ()
        names = [p.name.text for p in param_nodes]
        if params is None:
            params = ()
        self.info.calls[id(node)] = CallInfo(symbol.kind, symbol.name, symbol)
        if len(node.args) > len(params):
            self.error("T302", f"{symbol.name} takes {len(params)} argument(s), found "
                               f"{len(node.args) + len(node.kwargs)}", node.span)
        given = set()
        for arg, ptype in zip(node.args, params):
            self.expect(arg, ptype)
        given.update(range(len(node.args)))
        for k in node.kwargs:
            if k.name.text not in names:
                suggestion = did_you_mean(k.name.text, names, n=2)
                self.error("T303", f"{symbol.name} has no parameter named '{k.name.text}'", k.name.span,
                           hint=suggestion or
                           f"parameters: {', '.join(names) or 'none'}")
                self.check(k.value)
                continue
            i = names.index(k.name.text)
            if i in given:
                self.error("T303", f"argument '{k.name.text}' is given twice", k.name.span)
            given.add(i)
            self.expect(k.value, params[i])
        missing = [names[i] for i in range(len(params)) if i not in given and i < len(names)]
        if missing and len(node.args) <= len(params):
            self.error("T302", f"{symbol.name} is missing argument(s): {', '.join(missing)}", node.span)
        for a in node.args[len(params):]:
            self.check(a)
        if random:
            self.mark_random(node)
        return result

    def _call_table(self, node: Call, symbol: Symbol) -> T.Type:
        tref = symbol.type
        assert isinstance(tref, T.TableRefType)
        key_types = symbol.params_types
        self.info.calls[id(node)] = CallInfo(symbol.kind, symbol.name, symbol)
        if node.kwargs:
            self.error("T303", f"table {symbol.name} is looked up by position", node.kwargs[0].span)
        if len(node.args) != len(key_types):
            self.error("T302", f"table {symbol.name} takes {len(key_types)} key(s), found {len(node.args)}",
                       node.span)
        for arg, kt in zip(node.args, key_types):
            self.expect(arg, kt)
        return symbol.rows_type

    # ---------------------------------------------------------------------- field, index

    def _Field(self, node: Field, expected):
        fname = node.name.text
        obj = node.obj
        if isinstance(obj, Name) and (self.frame is None or self.frame.lookup(obj.id) is None):
            symbol = self.scope.symbols.get(obj.id)
            if symbol is not None and symbol.kind == "enum":
                enum = self.scope.enums.get(obj.id)
                value = enum.by_name.get(fname) if enum else None
                if value is None:
                    suggestion = did_you_mean(fname, list(enum.by_name) if enum else [], n=3)
                    self.error("R201", f"enumeration {obj.id} has no member '{fname}'", node.name.span,
                               hint=suggestion)
                    return T.ANY
                self.info.fields[id(node)] = FieldInfo("member", fname, value)
                return T.EnumType(obj.id)
        t = T.strip_optional(self.check(obj))
        if isinstance(t, T.AnyType):
            return T.ANY
        if isinstance(t, T.RecordType):
            ft = t.field(fname)
            if ft is None:
                suggestion = did_you_mean(fname, [n for n, _ in t.fields], n=3)
                self.error("T312", f"{_a(t)} has no field '{fname}'", node.name.span,
                           hint=suggestion or
                           f"fields: {', '.join(n for n, _ in t.fields)}")
                return T.ANY
            self.info.fields[id(node)] = FieldInfo("record", fname)
            return ft
        if t == T.UNIT or t == T.UNITTYPE:
            kind = "unit" if t == T.UNIT else "unittype"
            if kind == "unit" and fname in UNIT_FIELDS:
                self.info.fields[id(node)] = FieldInfo("unit", fname)
                return UNIT_FIELDS[fname]
            if fname == "tags":
                self.info.fields[id(node)] = FieldInfo("unittype", fname)
                return T.SetType(T.TAG)
            if fname == "name":
                self.info.fields[id(node)] = FieldInfo(kind, fname)
                return T.TEXT
            attr = self.scope.unit_attributes.get(fname)
            if attr is None:
                suggestion = did_you_mean(fname, list(self.scope.unit_attributes) +
                                              (list(UNIT_FIELDS) if kind == "unit" else []), n=3)
                self.error("T312", f"a {'unit' if kind == 'unit' else 'unit type'} has no attribute '{fname}'",
                           node.name.span, hint=suggestion or
                           "declare it: attribute NAME: TYPE")
                return T.ANY
            self.info.fields[id(node)] = FieldInfo(kind, fname)
            return attr.type
        if isinstance(t, T.EnumType):
            if fname == "name":
                self.info.fields[id(node)] = FieldInfo("enumname", fname)
                return T.TEXT
            if t == T.SPACE:
                attr = self.scope.space_attributes.get(fname)
                if attr is None:
                    suggestion = did_you_mean(fname, list(self.scope.space_attributes), n=3)
                    self.error("T312", f"a space has no attribute '{fname}'", node.name.span,
                               hint=suggestion or
                               "declare it: space attribute NAME: TYPE = DEFAULT")
                    return T.ANY
                self.info.fields[id(node)] = FieldInfo("space", fname)
                return attr.type
            if t == T.PLAYER and fname == "side":
                self.info.fields[id(node)] = FieldInfo("player", fname)
                return T.SIDE
            if t == T.SIDE and fname in ("players", "members"):
                self.info.fields[id(node)] = FieldInfo("side", fname)
                return T.SetType(T.PLAYER)
        self.error("T312", f"{_a(t)} has no field '{fname}'", node.name.span)
        return T.ANY

    def _Index(self, node: Index, expected):
        t = T.strip_optional(self.check(node.obj))
        self.expect(node.index, T.INT)
        if isinstance(t, T.ListType):
            return t.element
        if not isinstance(t, T.AnyType):
            self.error("T301", f"only lists can be indexed, found {_a(t)}", node.obj.span,
                       hint="sets have no order; use sorted(s)[i]")
        return T.ANY

    # ------------------------------------------------------------------------ operators

    def _Unary(self, node: Unary, expected):
        t = T.strip_optional(self.check(node.operand))
        if not T.is_numeric(t):
            self.error("T301", f"'{node.op}' needs a number, found {_a(t)}", node.operand.span)
            return T.INT
        return t

    def _Binary(self, node: Binary, expected):
        lt = T.strip_optional(self.check(node.left))
        rt = T.strip_optional(self.check(node.right))
        if node.op == "+" and lt == T.TEXT and rt == T.TEXT:
            return T.TEXT
        if node.op == "+" and isinstance(lt, T.ListType) and isinstance(rt, T.ListType):
            joined = T.join(lt, rt)
            if joined is None:
                self.error("T301", f"cannot join {_a(lt)} and {_a(rt)}", node.span)
                return T.ANY
            return joined
        bad = False
        for side, t in ((node.left, lt), (node.right, rt)):
            if not T.is_numeric(t):
                self.error("T301", f"'{node.op}' needs numbers, found {_a(t)}", side.span)
                bad = True
        if bad:
            return T.ANY
        if node.op == "/":
            return T.NUMBER
        return T.INT if (lt == T.INT and rt == T.INT) else (T.NUMBER if T.ANY not in (lt, rt) else T.ANY)

    def _Compare(self, node: Compare, expected):
        lt, rt = self._check_pair(node.left, node.right)
        if node.op in ("==", "!="):
            if T.join(lt, rt) is None:
                self.error("T301", f"cannot compare {_a(lt)} with {_a(rt)}", node.span)
        else:
            ls, rs = T.strip_optional(lt), T.strip_optional(rt)
            ok = (T.is_numeric(ls) and T.is_numeric(rs)) or (ls == rs == T.TEXT)
            if not ok:
                self.error("T301", f"'{node.op}' compares numbers (or texts), found {_a(lt)} and {_a(rt)}",
                           node.span)
        return T.BOOL

    def _check_pair(self, left, right) -> tuple[T.Type, T.Type]:
        """Check two operands; text literals take the enumeration type of the other side
        (`controller(t) == "Reds"`, `neighbours(s) == {"Sea 1", "Sea 2"}`)."""
        if _literal_like(left) and not _literal_like(right):
            rt = self.check(right)
            lt = self.check(left, rt if _names_enum(rt) else None)
            return lt, rt
        lt = self.check(left)
        rt = self.check(right, lt if _names_enum(lt) else None)
        return lt, rt

    def _In(self, node: In, expected):
        if _literal_like(node.collection) and not _literal_like(node.element):
            # `tier in {major, moderate}`: the element's type says which `major` is meant
            et = self.check(node.element)
            want = T.SetType(et) if isinstance(node.collection, SetLit) else T.ListType(et)
            ct = T.strip_optional(self.check(node.collection, want if _names_enum(et) else None))
            elem = T.element_type(ct)
            if elem is None:
                self.error("T301", f"'in' needs a set or a list on its right, found {_a(ct)}", node.collection.span)
            elif T.join(et, elem) is None:
                self.error("T301", f"{_a(et)} can never be in {_a(ct)}", node.span)
            return T.BOOL
        ct = T.strip_optional(self.check(node.collection))
        if ct == T.TEXT:
            self.expect(node.element, T.TEXT)
            return T.BOOL
        elem = T.element_type(ct)
        if elem is None:
            self.error("T301", f"'in' needs a set, a list or a text on its right, found {_a(ct)}",
                       node.collection.span)
            self.check(node.element)
            return T.BOOL
        et = self.check(node.element, elem if isinstance(elem, T.EnumType) else None)
        if T.join(et, elem) is None:
            self.error("T301", f"{_a(et)} can never be in {_a(ct)}", node.span)
        return T.BOOL

    def _BoolOp(self, node: BoolOp, expected):
        self.expect(node.left, T.BOOL)
        self.expect(node.right, T.BOOL)
        return T.BOOL

    def _Not(self, node: Not, expected):
        self.expect(node.operand, T.BOOL)
        return T.BOOL

    def _Range(self, node: Range, expected):
        self.expect(node.lo, T.INT)
        if node.hi is None:
            if not self.allow_open_range:
                self.error("T313", "an open range (n..) is only allowed as a table key", node.span)
            return T.ListType(T.INT)
        self.expect(node.hi, T.INT)
        return T.ListType(T.INT)

    def _If(self, node: If, expected):
        self.expect(node.cond, T.BOOL)
        a = self.check(node.then, expected)
        b = self.check(node.else_, expected)
        joined = T.join(a, b)
        if joined is None:
            self.error("T301", f"the branches give different types: {_a(a)} and {_a(b)}", node.span)
            return T.ANY
        return joined

    def _Lambda(self, node: Lambda, expected):
        self.error("T314", "a condition written x => ... is only allowed as an argument of a built-in "
                           "such as connected", node.span)
        return T.ANY

    # -------------------------------------------------------------------- collections

    def _items(self, items, expected_elem) -> T.Type:
        elem: T.Type | None = expected_elem
        for item in items:
            t = self.check(item, elem if isinstance(elem, T.EnumType) or expected_elem is not None else None)
            if elem is None:
                elem = t
                continue
            joined = T.join(elem, t)
            if joined is None:
                self.error("T301", f"mixed values: {_a(elem)} and {_a(t)}", item.span)
            else:
                elem = joined
        return elem if elem is not None else T.ANY

    def _ListLit(self, node, expected):
        want = T.element_type(expected) if isinstance(expected, T.ListType) else None
        return T.ListType(self._items(node.items, want))

    def _SetLit(self, node, expected):
        want = T.element_type(expected) if isinstance(expected, T.SetType) else None
        return T.SetType(self._items(node.items, want))

    def _RecordLit(self, node: RecordLit, expected):
        target = T.strip_optional(expected) if expected is not None else None
        if isinstance(target, T.RecordType):
            names = {n for n, _ in target.fields}
            given = {ident.text for ident, _ in node.fields}
            for ident, value in node.fields:
                ft = target.field(ident.text)
                if ft is None:
                    suggestion = did_you_mean(ident.text, list(names), n=2)
                    self.error("T312", f"{target} has no field '{ident.text}'", ident.span,
                               hint=suggestion)
                    self.check(value)
                else:
                    self.expect(value, ft)
            missing = [n for n, _ in target.fields if n not in given]
            if missing:
                self.error("T315", f"{target} needs field(s) {', '.join(missing)}", node.span)
            return target
        fields = tuple((ident.text, self.check(value)) for ident, value in node.fields)
        return T.RecordType(fields)

    def _comprehension_element(self, node: Comprehension) -> T.Type:
        assert self.frame is not None, "comprehensions are checked inside a frame"
        self.frame.push()
        for clause in node.clauses:
            it = T.strip_optional(self.check(clause.iterable))
            elem = T.element_type(it)
            if elem is None:
                self.error("T301", f"'for' needs a set or a list to go through, found {_a(it)}",
                           clause.iterable.span)
                elem = T.ANY
            self.frame.declare(clause.var, elem, self)
            if clause.condition is not None:
                self.expect(clause.condition, T.BOOL)
        elem_t = self.check(node.element)
        self.frame.pop()
        if any(id(c) in self.info.random for c in ast.walk(node) if c is not node):
            self.mark_random(node)
        return elem_t

    def _Comprehension(self, node: Comprehension, expected):
        if node.kind == "gen":
            self.error("T311", "a generator (e for x in s) must be the only argument of sum, count, any, "
                               "all, min or max", node.span, hint="write a list [e for x in s] instead")
            self._comprehension_element(node)
            return T.ANY
        elem = self._comprehension_element(node)
        return T.ListType(elem) if node.kind == "list" else T.SetType(elem)

    def _BestOf(self, node: BestOf, expected):
        self.expect(node.count, T.INT)
        coll = node.collection
        if isinstance(coll, Comprehension):
            elem = self._comprehension_element(coll)
            self.info.types[id(coll)] = T.ListType(elem)
        else:
            t = T.strip_optional(self.check(coll))
            elem = T.element_type(t)
            if elem is None:
                self.error("T301", f"{node.kind} ... of needs a set or list, found {_a(t)}", coll.span)
                return T.ListType(T.ANY)
        if not T.is_numeric(T.strip_optional(elem)):
            self.error("T301", f"{node.kind} ... of compares numbers, found {_a(elem)}", coll.span)
        return T.ListType(elem)

    def _Explain(self, node: Explain, expected):
        inner = node.expr
        if not isinstance(inner, Call) or not isinstance(inner.func, Name) or \
                self.scope.symbols.get(inner.func.id) is None or \
                self.scope.symbols[inner.func.id].kind not in ("modifiers", "formula"):
            self.check(inner)
            self.error("T316", "explain(...) takes a call of a modifier list or formula", inner.span)
            return T.TEXT
        self.check(inner)
        return T.TEXT


def _literal_like(node) -> bool:
    return isinstance(node, (StringLit, SetLit, ListLit))


def _names_enum(t: T.Type) -> bool:
    """Does a value of type `t` hold enumeration members (so text literals can name them)?"""
    t = T.strip_optional(t)
    if isinstance(t, (T.SetType, T.ListType)):
        t = T.strip_optional(t.element)
    return isinstance(t, T.EnumType)


def _a(t: T.Type) -> str:
    """'an int', 'a set of space', ..."""
    text = str(t)
    if text in ("any",):
        return "a value"
    if text == "none":
        return "none"
    article = "an" if text[:1] in "aeiou" else "a"
    return f"{article} {text}"
