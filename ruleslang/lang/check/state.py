"""What the checker's stages share: the Program under construction and the diagnostics.

Every stage is a function of one `CheckState`. The state also holds the few helpers several stages
use: resolving a written type, checking a default value, and declaring locals in a frame.
"""

from __future__ import annotations

from dataclasses import dataclass

from ruleslang.base.diagnostics import Diagnostic, error
from ruleslang.base.suggest import did_you_mean
from ruleslang.lang import types as T
from ruleslang.lang.check.capabilities import Capabilities
from ruleslang.lang.check.typecheck import CheckInfo, Frame, TypeChecker
from ruleslang.lang.compose.composition import Ruleset
from ruleslang.lang.scope import GlobalScope
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.statements import Choose
from ruleslang.lang.syntax.declarations import (DieTableDecl, ListType, NamedType, OptionalType, RecordType, SetType,
                                                TableDecl)

# what `run NAME`, a sequence, a hook or a rule test's `run` can name
RUNNABLE_KINDS = ("phase", "step")


@dataclass
class TableInfo:
    """A checked table: key types, row type, and keys known at check time."""

    decl: TableDecl | DieTableDecl
    key_types: tuple[T.Type, ...]
    row_type: T.Type
    keys: list[tuple]  # per row: tuple of key specs: ("value", v) or ("range", lo, hi)
    columns: tuple[str, ...] | None
    dice: tuple[int, int] | None = None


class CheckState:
    """One check of a ruleset: its definitions, the host's capabilities, what the stages learn, the diagnostics."""

    def __init__(self, ruleset: Ruleset, game_map, capabilities: Capabilities):
        self.ruleset = ruleset
        self.capabilities = capabilities
        self.diags: list[Diagnostic] = []
        self.scope = GlobalScope(game_map=game_map)
        self.info = CheckInfo()
        self.formula_types: dict[str, tuple] = {}
        self.tc = TypeChecker(self.scope, self.info, self.diags, self.formula_types)
        self.tc.removed = {n for n, d in ruleset.definitions.items() if d.decl is None}
        self.defs = ruleset.live()
        self.type_cache: dict[str, T.Type] = {}
        self.type_cycles: set[frozenset] = set()
        self.order: list[str] = []
        self.tables: dict[str, TableInfo] = {}
        self.decision_ids: dict[str, Choose] = {}
        # the phase, step, hook or check whose body is being checked: its decisions are named after it
        self.current_owner: str | None = None

    def error(self, code, message, span, **kw) -> None:
        """Report an error."""
        self.diags.append(error(code, message, span, **kw))

    def resolve_type(self, texpr) -> T.Type:
        """The type a written type expression stands for (ANY, reported, when it names no type)."""
        if isinstance(texpr, NamedType) or isinstance(texpr, OptionalType):
            base = self.named_type(texpr.name, texpr.span)
            return T.OptionalType(base) if isinstance(texpr, OptionalType) else base
        if isinstance(texpr, SetType):
            return T.SetType(self.resolve_type(texpr.element))
        if isinstance(texpr, ListType):
            return T.ListType(self.resolve_type(texpr.element))
        if isinstance(texpr, RecordType):
            return T.RecordType(tuple((ident.text, self.resolve_type(t)) for ident, t in texpr.fields))
        return T.ANY

    def named_type(self, name: str, span) -> T.Type:
        """The type `name` stands for: built-in, enum or declared type (ANY, reported, when none)."""
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
        suggestion = did_you_mean(name, candidates, n=3)
        self.error("R201", f"'{name}' is not a type", span,
                   hint=suggestion or
                   "types: int, number, bool, text, player, side, space, territory, seazone, unittype, "
                   "unit, tag, a declared enum or type, set of T, list of T, {field: T, ...}")
        return T.ANY

    def constant_expr(self, expr, want: T.Type) -> None:
        """A default value: checked in an empty frame; it must not roll dice."""
        frame = Frame(id(expr), self.info)
        self.tc.frame = frame
        self.tc.expect(expr, want)
        self.tc.frame = None
        if self.info.is_random(expr):
            self.error("T310", "a default value cannot roll dice", expr.span)

    def params_frame(self, decl, params) -> Frame:
        """A new frame for `decl`, holding its parameters (typed by its signature)."""
        frame = Frame(id(decl), self.info)
        self.info.frames[id(decl)] = frame.size
        for p, ptype in zip(params or (), self.formula_types[decl.name.text][0] or ()):
            self.declare_local(frame, p.name, ptype)
        return frame

    def declare_local(self, frame: Frame, ident: ast.Ident, typ: T.Type) -> None:
        """Declare local `ident` in `frame`."""
        # A local may shadow a global: a ruleset that extends another must not break its
        # formulas by adding a definition whose name one of their locals happens to use.
        frame.declare(ident, typ, self.tc)

    def lets(self, frame: Frame, lets) -> None:
        """Check `let` lines and declare their names in `frame`."""
        for let in lets:
            t = self.tc.check(let.value)
            self.declare_local(frame, let.name, t)

    def unhosted(self, expected: str, found: str, span) -> None:
        """R232: `found` needs a host runtime, and this check has none (`Capabilities.none()`)."""
        self.error("R232", f"expected {expected}, found {found}: these rules are checked without a host runtime, "
                           "which provides the runtime procedures and the actions", span,
                   hint="check them with the game runtime's capabilities (ruleslang check does)")
