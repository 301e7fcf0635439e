"""Which unit parameters of a definition it reads only for the unit's kind (type and owner).

A bot asks some advice (`advice firepower(u: unit, side: text)`) of every unit a plan or an
estimate looks at, most of them units of a few kinds. Where the advice reads its unit only through
what every unit of its type and owner shares, one answer serves all of them on the same board; the
bot may keep it by kind (runtime/agents/heuristic.py `_combatant`). This module tells, from the
checked program, which parameters are read so: a static walk of the definition and of the formulas
the unit is passed to, with what the checker resolved (`CheckInfo`: names, calls, fields).

A unit parameter `u` is read for its kind when every use of it is one of `u.type`, `u.owner`,
`u.tags` or a unit type's attribute (`u.attack`: the program's value for the type,
`CompiledProgram.unit_attribute`), `has_tag(u, ...)`, or an argument of a formula that reads that
parameter so too. Any other use (`u.id`, `u.space`, `u.hits`, `u.moved`, a comparison of units, the
unit in a list, passed to another builtin, a table, a counter or modifiers) reads the unit itself.
What it reads besides its unit (the board, counters) is the same for every unit asked while the
board stands: the caller keeps an answer only that long. (Advice rolls no dice: the checker
refuses it, so each call of it gives the same answer on the same board.)
"""

from __future__ import annotations

from ruleslang.lang.eval.operations import NO_VALUE
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.declarations import ConstantDecl, CounterDecl, FormulaDecl, NamedType
from ruleslang.lang.syntax.expressions import Call, DiceLit, Explain, Field, Lambda, Name

# what a unit value holds of itself (lang/values.py UnitValue): the rest is its type's or owner's
_OWN_FIELDS = frozenset(("id", "space", "hits", "moved", "flags"))
# the builtins that read a unit argument (at this place) for its type alone
_KIND_BUILTINS = {"has_tag": 0}


def kind_params(info, decl) -> frozenset[int]:
    """The indices of `decl`'s unit parameters (an advice's: `params`, `lets`, `body`) that it
    reads only for the unit's kind, by the checker's `info` (see the module docstring). Asked of
    advice alone: a formula that rolls dice would be read here as any other."""
    return frozenset(i for i, p in enumerate(decl.params or ())
                     if isinstance(p.type, NamedType) and p.type.name == "unit" and _reads_kind(info, decl, i, set()))


def _slot(decl, index: int) -> int:
    """The frame slot of `decl`'s parameter `index` (the context is slot 0, then the parameters)."""
    return index + 1


def _reads_kind(info, decl, index: int, asked: set) -> bool:
    """Whether every use of `decl`'s parameter `index` reads only its kind; `asked`: the
    (definition, parameter) pairs being worked out further up (a recursion reads nothing more)."""
    return _reads_kind_in(info, (id(decl), index), _slot(decl, index), [let.value for let in decl.lets] + [decl.body],
                          asked)


def _reads_kind_in(info, key: tuple, slot: int, parts: list, asked: set) -> bool:
    """Whether every use of the unit in frame slot `slot` in `parts` (a definition's lets and body)
    reads only its kind; `key` names the (definition, parameter) pair for `asked` (`_reads_kind`)."""
    if key in asked:
        return True
    asked.add(key)

    def is_param(node) -> bool:
        if not isinstance(node, Name):
            return False
        found = info.names.get(id(node))
        return found is not None and found.kind == "local" and found.slot == slot

    def fits(node) -> bool:
        if isinstance(node, Lambda):
            return False  # (its own frame numbers its slots again: not followed)
        if isinstance(node, Name):
            return not is_param(node)
        if isinstance(node, Field) and is_param(node.obj):
            fi = info.fields.get(id(node))
            return fi is not None and fi.kind == "unit" and fi.name not in _OWN_FIELDS
        if isinstance(node, Call) and any(is_param(a) for a in node.args):
            call = info.calls.get(id(node))
            if call is None or node.kwargs:
                return False
            for i, arg in enumerate(node.args):
                if not is_param(arg):
                    if not fits(arg):
                        return False
                elif call.kind == "builtin" and _KIND_BUILTINS.get(call.name) == i:
                    continue
                elif call.kind == "formula" and call.symbol is not None and isinstance(call.symbol.decl, FormulaDecl):
                    if not _reads_kind(info, call.symbol.decl, i, asked):
                        return False
                else:
                    return False
            return True
        return all(fits(child) for child in ast.children(node))

    return all(fits(part) for part in parts)


# the builtins that read nothing of the game: numbers, collections, text, a unit type's tags
# (lang/builtins/core.py; not its dice, nor the players' and sides' questions, tables' rows)
_PURE_BUILTINS = frozenset(("abs", "all", "any", "ceil", "count", "difference", "floor", "has_tag", "intersection",
                            "keys", "max", "min", "set_of", "sorted", "sum", "text", "union", "values"))
# fields that read nothing of the game: an enumeration's member or name, a record's field, a
# player's side and a side's players (the program's)
_STATIC_FIELDS = frozenset(("member", "enumname", "record", "player", "side"))


def counters_read(compiled, decl, kinds: frozenset[int]) -> frozenset[str] | None:
    """The counters `decl` (an advice whose unit parameters read for their kind are `kinds`, as
    `kind_params` gives them) reads, when it reads nothing else of the game: what it asks of a unit
    is its kind's, and besides its arguments it reads only constants, the unit types' constant
    attributes, counters (each one's default read the same way) and formulas that read so too;
    None when it may read more (the board, a battle, the turn, a table, modifiers, a space's
    attributes, a constant worked out when read). Its answer for a kind then stands while those
    counters do, from one decision to the next."""
    units = {_slot(decl, i) for i, p in enumerate(decl.params or ())
             if isinstance(p.type, NamedType) and p.type.name == "unit"}
    if units - {_slot(decl, i) for i in kinds}:
        return None
    return _reads_besides(compiled, decl, [let.value for let in decl.lets] + [decl.body])


def constant_setting(compiled, setting, unit: bool) -> bool:
    """Whether a runtime procedure's setting `x => ...` (`setting`, a Lambda) on a unit (`unit`)
    or on a unit type gives the same answer wherever the game asks it of units of one kind (type
    and owner), or of one unit type: it reads a unit parameter for its kind alone (as
    `kind_params` walks it), and besides its parameter nothing of the game but constants and the
    unit types' constant attributes, through formulas that read so too (as `counters_read` walks
    them, reading no counter). Such an answer may be kept for every game of the program played
    with the same options (runtime/config.py `unit_fn`, `type_fn`)."""
    slot = compiled.info.slots.get(id(setting.param))
    if slot is None:
        return False
    if unit and not _reads_kind_in(compiled.info, (id(setting), 0), slot, [setting.body], set()):
        return False
    return _reads_besides(compiled, setting, [setting.body]) == frozenset()


def reads_arguments_alone(compiled, decl) -> bool:
    """Whether formula `decl` reads nothing of the game but its arguments: as `counters_read`
    walks it, reading no counter, besides the rows of tables whose every row is a constant
    (`rows(t)`, the records the program makes once) and constants folded when compiled. Its answer
    for the same arguments is then the same in every game of the program (lang/eval/kept_formulas.py)."""
    return _reads_besides(compiled, decl, [let.value for let in decl.lets] + [decl.body], tables=True) == frozenset()


def _constant_rows(compiled, node) -> bool:
    """Whether `node` names a table whose every row is a constant (`rows` of it reads nothing)."""
    found = compiled.info.names.get(id(node)) if isinstance(node, Name) else None
    if found is None or found.kind != "global" or node.id not in compiled.program.tables:
        return False
    return compiled.table(node.id).constant_records() is not None


def _reads_besides(compiled, top, parts: list, tables: bool = False) -> frozenset[str] | None:
    """The counters `parts` (the lets and body of `top`: a definition or a setting) read when
    they read nothing else of the game but their arguments (`counters_read`), else None.
    `tables`: the rows of tables of constant rows read too, and a constant only where the program
    folded it (`reads_arguments_alone`)."""
    info = compiled.info
    read: set[str] = set()
    done: set[int] = set()

    def plain_attribute(name: str) -> bool:
        if name in ("type", "owner", "tags", "name"):
            return True
        if name in _OWN_FIELDS or name not in compiled.scope.unit_attributes:
            return False
        return len(compiled.unit_attribute_constants(name)) == len(compiled.scope.enums["unittype"].by_name)

    def fits(node) -> bool:
        if isinstance(node, (Lambda, Explain, DiceLit)):
            return False
        if isinstance(node, Name):
            found = info.names.get(id(node))
            if tables and found is not None and found.kind == "const":
                # (a constant not folded is worked out when read: it may read an option)
                sym = compiled.symbols.get(node.id)
                if sym is not None and isinstance(sym.decl, ConstantDecl):
                    return compiled.constant_value(node.id) is not NO_VALUE
            return found is not None and found.kind in ("local", "const")
        if isinstance(node, Field):
            fi = info.fields.get(id(node))
            if fi is None:
                return False
            if fi.kind in ("unit", "unittype"):
                ok = plain_attribute(fi.name)
            else:
                ok = fi.kind in _STATIC_FIELDS
            return ok and (fi.kind == "member" or fits(node.obj))
        if isinstance(node, Call):
            call = info.calls.get(id(node))
            if tables and call is not None and call.kind == "builtin" and call.name == "rows":
                return len(node.args) == 1 and not node.kwargs and _constant_rows(compiled, node.args[0])
            if call is None or not all(fits(a) for a in node.args) or not all(fits(k.value) for k in node.kwargs):
                return False
            if call.kind == "builtin":
                return call.name in _PURE_BUILTINS
            decl_of = call.symbol.decl if call.symbol is not None else None
            if call.kind == "formula" and isinstance(decl_of, FormulaDecl):
                return body_fits(decl_of, [let.value for let in decl_of.lets] + [decl_of.body])
            if call.kind == "counter" and isinstance(decl_of, CounterDecl):
                read.add(call.name)
                return body_fits(decl_of, [decl_of.default] if decl_of.default is not None else [])
            return False
        return all(fits(child) for child in ast.children(node))

    def body_fits(of, parts: list) -> bool:
        if id(of) in done:
            return True
        done.add(id(of))
        return all(fits(part) for part in parts)

    # (a unit parameter read for its kind: `kind_params` checked every use of it, so the walk
    # takes its fields and calls as any other's)
    return frozenset(read) if body_fits(top, parts) else None
