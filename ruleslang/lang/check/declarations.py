"""Checker stages for declarations: enumerations, symbols, types, attributes, units, options, facts and counters."""

from __future__ import annotations

from ruleslang.base.diagnostics import Related
from ruleslang.base.suggest import did_you_mean
from ruleslang.lang import types as T
from ruleslang.lang.builtins.registry import REGISTRY as BUILTINS
from ruleslang.lang.check.state import CheckState
from ruleslang.lang.compose.composition import Ruleset
from ruleslang.lang.scope import Symbol
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import Call, Name
from ruleslang.lang.syntax.declarations import (AdviceDecl, AttributeDecl, CounterDecl, EnumDecl, FactDecl, NamedType,
                                                OptionDecl, OptionalType, PlayerDecl, SideDecl, TagDecl, TypeDecl,
                                                UnitDecl)


def enumerations(state: CheckState) -> None:
    """Players, sides, spaces, unit types, tags and declared enums (with the map's names and aliases)."""
    scope = state.scope
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
    for d in state.defs.values():
        decl, name = d.decl, d.name
        if isinstance(decl, PlayerDecl):
            scope.enums["player"].add(name)
        elif isinstance(decl, SideDecl):
            scope.enums["side"].add(name)
        elif isinstance(decl, UnitDecl):
            scope.enums["unittype"].add(name)
        elif isinstance(decl, TagDecl):
            scope.enums["tag"].add(name)
        elif isinstance(decl, EnumDecl):
            if name in scope.enums or name in T.BUILTIN_TYPE_NAMES:
                state.error("R202", f"'{name}' is already the name of a type", decl.name.span)
                continue
            enum = scope.enum(name)
            enum.decl = decl
            for member in decl.members:
                if member.text in enum.by_name:
                    state.error("R202", f"enum {name} lists '{member.text}' twice", member.span)
                    continue
                enum.add(member.text)
                scope.members.setdefault(member.text, []).append(enum.by_name[member.text])
    if gm is not None:
        _sides_against_map(state, gm)


def _sides_against_map(state: CheckState, gm) -> None:
    for d in state.defs.values():
        decl, name = d.decl, d.name
        if isinstance(decl, PlayerDecl) and name not in [p.name for p in gm.players]:
            state.error("R230", f"player '{name}' is not a player of map '{gm.name}'", decl.name.span,
                        hint="the map's players: " + ", ".join(p.name for p in gm.players))
        if isinstance(decl, SideDecl) and name in gm.sides:
            want = list(gm.sides[name])
            got = [m.text for m in decl.members]
            if sorted(want) != sorted(got):
                state.error("R230", f"side '{name}' has {', '.join(got)} here but "
                                    f"{', '.join(want)} on map '{gm.name}'", decl.name.span)


def symbols(state: CheckState) -> None:
    """Every definition's name in the global scope (attributes and tags in namespaces of their own)."""
    scope = state.scope
    for kind, enum_name in (("player", "player"), ("side", "side")):
        for value in scope.enums[enum_name].members:
            scope.symbols[value.name] = Symbol(value.name, kind, None, None, T.EnumType(enum_name), value)
    for d in state.defs.values():
        decl, name = d.decl, d.name
        kind = decl.kind
        if isinstance(decl, TagDecl):
            # tags are read where a tag is expected: a namespace of their own, like enum members
            scope.members.setdefault(name, []).append(scope.enums["tag"].by_name[name])
            continue
        if isinstance(decl, AdviceDecl):
            continue  # read by bots through its target, never by name in the rules (check/advice.py)
        if isinstance(decl, AttributeDecl):
            # Attributes are read as fields (u.attack, s.capital): a namespace of their own.
            sym = Symbol(name, "attribute", decl, d.origin)
            (scope.space_attributes if decl.on_spaces else scope.unit_attributes)[name] = sym
            continue
        # A definition may take the name of a built-in function (it shadows it in these
        # rulesets), so a new built-in never breaks a ruleset written before it.
        if name in T.BUILTIN_TYPE_NAMES:
            state.error("R214", f"'{name}' is the name of a built-in type; choose another name", decl.name.span)
            continue
        if name in scope.members and kind != "enum" and any(v.kind != "tag" for v in scope.members[name]):
            kinds = ", ".join(v.kind for v in scope.members[name] if v.kind != "tag")
            state.error("R202", f"'{name}' is already a member of enum {kinds}", decl.name.span)
            continue
        if name in BUILTINS:
            _shadowed_in_used(state, name, decl, d.origin)
        sym = Symbol(name, kind, decl, d.origin)
        if isinstance(decl, PlayerDecl):
            sym.value, sym.type = scope.enums["player"].by_name[name], T.PLAYER
        elif isinstance(decl, SideDecl):
            sym.value, sym.type = scope.enums["side"].by_name[name], T.SIDE
        elif isinstance(decl, UnitDecl):
            sym.value, sym.type = scope.enums["unittype"].by_name[name], T.UNITTYPE
        scope.symbols[name] = sym
    for d in state.defs.values():
        name = d.name
        if isinstance(d.decl, SideDecl):
            for member in d.decl.members:
                if member.text not in scope.enums["player"].by_name:
                    suggestion = did_you_mean(member.text, list(scope.enums["player"].by_name), n=2)
                    state.error("R201", f"side {name} lists '{member.text}', which is not a player",
                                member.span, hint=suggestion)


def _shadowed_in_used(state: CheckState, name: str, decl, origin: str) -> None:
    """R216: a definition that takes the name of a built-in function which a ruleset it uses calls.
    Names are global to the composition, so the definition would replace the built-in in that
    ruleset too, which was written against the built-in (its errors would be reported in its own
    file, far from their cause): reported here, at the definition, with the call it would take."""
    used = _used_refs(state.ruleset, origin)
    for other in state.defs.values():
        if other.origin not in used or other.decl is None:
            continue
        call = next((n for n in ast.walk(other.decl)
                     if isinstance(n, Call) and isinstance(n.func, Name) and n.func.id == name), None)
        if call is not None:
            state.error("R218", f"'{name}' is a built-in function that {other.origin} calls; this definition "
                                f"would replace it there too", decl.name.span,
                        related=[Related(call.span, f"{other.origin} calls the built-in {name} here")],
                        hint="choose another name")
            return


def _used_refs(root: Ruleset, origin: str) -> set[str]:
    """The refs of the rulesets that ruleset `origin` of the composition `root` uses, directly or
    not (not `origin` itself)."""
    found: Ruleset | None = None
    stack = [root]
    while stack and found is None:
        r = stack.pop()
        if r.ref == origin:
            found = r
        stack.extend(r.uses)
    used: set[str] = set()
    stack = list(found.uses) if found is not None else []
    while stack:
        r = stack.pop()
        if r.ref not in used:
            used.add(r.ref)
            stack.extend(r.uses)
    return used - {origin}


def declared_types(state: CheckState) -> None:
    """Every `type` declaration resolved; types defined through each other are R220."""
    for name, d in state.defs.items():
        if isinstance(d.decl, TypeDecl):
            _type_cycle(state, name, d.decl)
            state.named_type(name, d.decl.name.span)


def _type_cycle(state: CheckState, name: str, decl: TypeDecl) -> None:
    seen = [name]
    reported = state.type_cycles

    def visit(texpr):
        for node in ast.walk(texpr):
            if isinstance(node, (NamedType, OptionalType)):
                sym = state.scope.symbols.get(node.name)
                if sym is not None and sym.kind == "type":
                    if node.name in seen:
                        cycle = frozenset(seen)
                        if cycle not in reported:
                            reported.add(cycle)
                            state.error("R220", "types are defined through each other: " +
                                        " -> ".join(seen + [node.name]), node.span)
                        return True
                    seen.append(node.name)
                    if visit(sym.decl.type):
                        return True
                    seen.pop()
        return False

    visit(decl.type)


def attributes(state: CheckState) -> None:
    """Unit and space attributes: their types and defaults."""
    for table in (state.scope.unit_attributes, state.scope.space_attributes):
        for name, sym in table.items():
            decl = sym.decl
            sym.type = state.resolve_type(decl.type)
            if decl.default is not None:
                state.constant_expr(decl.default, sym.type)


def units(state: CheckState) -> None:
    """Unit types: each attribute declared and given (or defaulted), each tag declared."""
    attrs = state.scope.unit_attributes
    for name, sym in state.scope.symbols.items():
        decl = sym.decl
        if not isinstance(decl, UnitDecl):
            continue
        given = set()
        for ident, value in decl.attributes:
            attr = attrs.get(ident.text)
            if attr is None:
                suggestion = did_you_mean(ident.text, list(attrs), n=3)
                state.error("R201", f"unit {name}: '{ident.text}' is not a declared attribute", ident.span,
                            hint=suggestion or
                            f"declare it first: attribute {ident.text}: int")
                continue
            given.add(ident.text)
            state.constant_expr(value, attr.type)
        for aname, attr in attrs.items():
            if aname not in given and attr.decl.default is None:
                state.error("T322", f"unit {name} does not give attribute '{aname}', which has no default",
                            decl.name.span, hint=f"add '{aname}: ...' or give the attribute a default")
        for tag in decl.tags or ():
            if tag.text not in state.scope.enums["tag"].by_name:
                suggestion = did_you_mean(tag.text, list(state.scope.enums["tag"].by_name), n=3)
                state.error("R201", f"unit {name}: '{tag.text}' is not a declared tag", tag.span,
                            hint=suggestion or
                            f"declare it first: tag {tag.text}")


def options_facts_counters(state: CheckState) -> None:
    """Options, facts and counters: their types and defaults (a counter's start may not roll dice)."""
    for name, sym in state.scope.symbols.items():
        decl = sym.decl
        if isinstance(decl, OptionDecl):
            sym.type = state.resolve_type(decl.type)
            state.constant_expr(decl.default, sym.type)
        elif isinstance(decl, FactDecl):
            sym.type = state.resolve_type(decl.type)
            if decl.default is not None:
                state.constant_expr(decl.default, sym.type)
        elif isinstance(decl, CounterDecl):
            if decl.default is not None:
                frame = state.params_frame(decl, decl.params)
                state.tc.frame = frame
                state.tc.expect(decl.default, sym.type)
                state.tc.frame = None
                if state.info.is_random(decl.default):
                    state.error("T310", "a counter's starting value cannot roll dice", decl.default.span)
