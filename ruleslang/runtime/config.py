"""The settings of a runtime procedure, as the ruleset wrote them.

`phase combat_move: runtime move with {kind: "combat", movement: u => u.movement, ...}`: each
setting is an expression, or a condition `x => ...` on a unit or unit type. They are compiled
once per procedure and evaluated in the game's context when the procedure runs; conditions on
unit types and units are cached per (type, owner) for the phase, since the runtime asks them
for every unit many times.
"""

from __future__ import annotations

from typing import Any, Callable

from ruleslang.lang.syntax import ast


class ProcedureConfig:
    def __init__(self, ctx, proc: ast.RuntimeProcedure):
        self.ctx = ctx
        self.size = ctx.compiled.info.frames.get(id(proc), 1)
        self.fields: dict[str, Any] = {}
        if proc.config is not None:
            for ident, value in proc.config.fields:
                self.fields[ident.text] = value
        self._compiled: dict[str, Callable] = {}
        self._cache: dict[tuple, Any] = {}

    def has(self, name: str) -> bool:
        return name in self.fields

    def _fn(self, name: str):
        fn = self._compiled.get(name)
        if fn is None:
            node = self.fields[name]
            ec = self.ctx.compiled.expr_compiler
            fn = ec.condition(node) if isinstance(node, ast.Lambda) else ec.expr(node)
            self._compiled[name] = fn
        return fn

    def _env(self) -> list:
        return [self.ctx] + [None] * self.size

    def new_phase(self) -> None:
        """Forget cached answers: conditions may read the game (technologies, counters)."""
        self._cache.clear()

    def value(self, name: str, default: Any = None) -> Any:
        """A plain setting (text, number, true/false), evaluated now."""
        if name not in self.fields:
            return default
        return self._fn(name)(self._env())

    def text(self, name: str, default: str | None = None) -> str | None:
        return self.value(name, default)

    def unit_fn(self, name: str, default: Any = None) -> Callable | None:
        """A `u => ...` setting as a Python function of a board unit, cached per (type, owner)."""
        if name not in self.fields:
            return None if default is None else (lambda unit: default)
        make = self._fn(name)
        ctx = self.ctx
        cache = self._cache

        def of_unit(unit):
            key = (name, unit.type, unit.owner)
            if key not in cache:
                cache[key] = make(self._env())(ctx.unit_value(unit))
            return cache[key]
        return of_unit

    def type_fn(self, name: str, default: Any = None) -> Callable | None:
        """A `t => ...` setting on unit types, as a Python function of a type name (cached)."""
        if name not in self.fields:
            return None if default is None else (lambda type_name: default)
        make = self._fn(name)
        ctx = self.ctx
        cache = self._cache

        def of_type(type_name: str):
            key = (name, type_name)
            if key not in cache:
                cache[key] = make(self._env())(ctx.unittype_values[type_name])
            return cache[key]
        return of_type

    def space_fn(self, name: str, default: Any = None) -> Callable | None:
        """A `t => ...` setting on spaces (not cached: it may read the board)."""
        if name not in self.fields:
            return None if default is None else (lambda space: default)
        make = self._fn(name)
        ctx = self.ctx
        return lambda space: make(self._env())(ctx.space_values[space])

    def predicate(self, name: str):
        fn = self.unit_fn(name)
        if fn is None:
            return None
        return lambda unit: fn(unit) is True


def runtime_procedures(compiled, name: str) -> list[tuple[Any, ast.RuntimeProcedure]]:
    """Every (symbol, procedure) of the composition whose phase or step is `runtime NAME with ...`,
    in declaration order."""
    found = []
    for sym in compiled.symbols.values():
        proc = getattr(sym.decl, "procedure", None)  # phases and steps have one; other symbols do not
        if isinstance(proc, ast.RuntimeProcedure) and proc.name.text == name:
            found.append((sym, proc))
    return found


def procedure_config(ctx, proc: ast.RuntimeProcedure) -> ProcedureConfig:
    """The settings of `proc` for this game (built once per game and procedure)."""
    game = ctx.game
    found = game.configs.get(id(proc))
    if found is None:
        found = game.configs[id(proc)] = ProcedureConfig(ctx, proc)
    return found
