"""Checking tables and die tables: signatures, rows (keys written out, no duplicates or overlaps), die coverage."""

from __future__ import annotations

from ruleslang.base.diagnostics import Related
from ruleslang.lang import types as T
from ruleslang.lang.check.state import CheckState, TableInfo
from ruleslang.lang.check.typecheck import Frame
from ruleslang.lang.scope import Symbol
from ruleslang.lang.syntax.expressions import BoolLit, Field, IntLit, Name, Range, StringLit, Unary
from ruleslang.lang.syntax.declarations import DieTableDecl, TableDecl, TableRow
from ruleslang.lang.values import format_value


class _NotConst:
    pass


_NOT_CONST = _NotConst()


def table_signature(state: CheckState, sym: Symbol, decl: TableDecl) -> None:
    """A table's key types and row type; a column named like a key is R202."""
    key_types = tuple(state.resolve_type(p.type) for p in decl.params)
    names = [p.name.text for p in decl.params]
    if decl.columns is not None:
        cols = tuple((c.name.text, state.resolve_type(c.type)) for c in decl.columns)
        for c in decl.columns:
            if c.name.text in names:
                state.error("R202", f"column '{c.name.text}' has the name of a key", c.name.span)
        names += [c for c, _ in cols]
        row = T.RecordType(cols, f"row of {sym.name}")
        full = T.RecordType(tuple(zip([p.name.text for p in decl.params], key_types)) + cols,
                            f"row of {sym.name}")
    else:
        row = state.resolve_type(decl.result)
        full = T.RecordType(tuple(zip([p.name.text for p in decl.params], key_types)) + (("value", row),),
                            f"row of {sym.name}")
    key = key_types[0] if len(key_types) == 1 else T.RecordType(tuple(zip([p.name.text for p in decl.params],
                                                                          key_types)))
    # rows(t) gives full records (keys and columns); t(k) gives the row without its keys
    sym.type = T.TableRefType(sym.name, full, key)
    sym.params_types = key_types
    sym.rows_type = row


def die_table_signature(state: CheckState, sym: Symbol, decl: DieTableDecl) -> None:
    """A die table's row type; its key is the roll."""
    row = state.resolve_type(decl.result)
    full = T.RecordType((("roll", T.INT), ("value", row)), f"row of {sym.name}")
    sym.type = T.TableRefType(sym.name, full, T.INT, die=True)
    sym.params_types = (T.INT,)
    sym.rows_type = row


def table(state: CheckState, sym: Symbol, decl: TableDecl) -> None:
    """A table's rows, recorded in `state.tables`."""
    key_types = sym.params_types
    if decl.columns is not None:
        value_types = tuple(t for _, t in sym.rows_type.fields)
        columns = tuple(c.name.text for c in decl.columns)
    else:
        value_types = (sym.rows_type,)
        columns = None
    if not decl.rows:
        state.error("T319", f"table {sym.name} has no rows", decl.name.span)
    keys = _rows(state, sym, decl, key_types, value_types)
    state.tables[sym.name] = TableInfo(decl, key_types, sym.rows_type, keys, columns)


def die_table(state: CheckState, sym: Symbol, decl: DieTableDecl) -> None:
    """A die table's rows: each roll of its dice has exactly one (T321 otherwise); recorded in `state.tables`."""
    count, sides = decl.dice.count, decl.dice.sides
    keys = _rows(state, sym, decl, (T.INT,), (sym.rows_type,))
    covered: dict[int, TableRow] = {}
    lo_roll, hi_roll = count, count * sides
    for specs, row in zip(keys, decl.rows):
        if not specs or specs[0] is None:
            continue
        spec = specs[0]
        values = [spec[1]] if spec[0] == "value" else list(range(spec[1], (spec[2] if spec[2] is not None
                                                                              else hi_roll) + 1))
        for v in values:
            if not isinstance(v, int) or v < lo_roll or v > hi_roll:
                state.error("T321", f"{decl.dice.count if count > 1 else ''}d{sides} cannot roll {v}",
                            row.keys[0].span)
                break
            covered[v] = row
    missing = [v for v in range(lo_roll, hi_roll + 1) if v not in covered]
    if missing:
        state.error("T321", f"die table {sym.name} has no row for roll(s) {', '.join(map(str, missing))}",
                    decl.name.span)
    state.tables[sym.name] = TableInfo(decl, (T.INT,), sym.rows_type, keys, None, (count, sides))


def _key_spec(state: CheckState, expr, key_type: T.Type):
    """A key cell's value, known at check time: ("value", v) or ("range", lo, hi)."""
    if isinstance(expr, Range):
        if T.strip_optional(key_type) != T.INT:
            state.error("T317", f"a range key needs an int key, not {key_type}", expr.span)
            return None
        lo = _const_int(state, expr.lo)
        hi = _const_int(state, expr.hi) if expr.hi is not None else None
        if lo is None or (expr.hi is not None and hi is None):
            return None
        if hi is not None and hi < lo:
            state.error("T317", f"range {lo}..{hi} is empty", expr.span)
            return None
        return ("range", lo, hi)
    frame = Frame(id(expr), state.info)
    state.tc.frame = frame
    state.tc.expect(expr, key_type)
    state.tc.frame = None
    value = _const_value(state, expr)
    if value is _NOT_CONST:
        state.error("T318", "a table key must be written out: a number, a text, a range or a name",
                    expr.span)
        return None
    return ("value", value)


def _const_int(state: CheckState, expr):
    state.tc.frame = Frame(id(expr), state.info)
    state.tc.expect(expr, T.INT)
    state.tc.frame = None
    value = _const_value(state, expr)
    if value is _NOT_CONST or not isinstance(value, int):
        state.error("T318", "a range bound must be a whole number written out", expr.span)
        return None
    return value


def _const_value(state: CheckState, expr):
    if isinstance(expr, IntLit):
        return expr.value
    if isinstance(expr, Unary) and isinstance(expr.operand, IntLit):
        return -expr.operand.value if expr.op == "-" else expr.operand.value
    if isinstance(expr, BoolLit):
        return expr.value
    if isinstance(expr, StringLit) and expr.is_plain:
        return state.info.coerce.get(id(expr), expr.plain)
    if isinstance(expr, Name):
        res = state.info.names.get(id(expr))
        if res is not None and res.kind == "const":
            return res.value
    if isinstance(expr, Field):
        fi = state.info.fields.get(id(expr))
        if fi is not None and fi.kind == "member":
            return fi.value
    return _NOT_CONST


def _rows(state: CheckState, sym: Symbol, decl, key_types, value_types) -> list[tuple]:
    keys: list[tuple] = []
    seen: dict[tuple, TableRow] = {}
    ranges: list[tuple[int, int | None, TableRow]] = []
    for row in decl.rows:
        if len(row.keys) != len(key_types):
            state.error("T319", f"table {sym.name} has {len(key_types)} key(s); this row has {len(row.keys)}",
                        row.span)
            keys.append(())
            continue
        if len(row.values) != len(value_types):
            state.error("T319", f"table {sym.name} has {len(value_types)} column(s); this row has "
                                f"{len(row.values)}", row.span)
        state.tc.allow_open_range = True
        specs = tuple(_key_spec(state, k, kt) for k, kt in zip(row.keys, key_types))
        state.tc.allow_open_range = False
        frame = Frame(id(row), state.info)
        state.tc.frame = frame
        for value, vt in zip(row.values, value_types):
            state.tc.expect(value, vt)
            if state.info.is_random(value):
                state.error("T310", "a table cell cannot roll dice", value.span,
                            hint="roll in a formula that reads the table")
        state.tc.frame = None
        keys.append(specs)
        if any(s is None for s in specs):
            continue
        if len(specs) == 1 and specs[0][0] == "range":
            _, lo, hi = specs[0]
            for olo, ohi, other in ranges:
                if (ohi is None or lo <= ohi) and (hi is None or olo <= hi):
                    state.error("T320", f"range {_range_text(lo, hi)} overlaps {_range_text(olo, ohi)}",
                                row.keys[0].span, related=[Related(other.keys[0].span, "the other range")])
            for (v,), other in seen.items():
                if isinstance(v, int) and not isinstance(v, bool) and v >= lo and (hi is None or v <= hi):
                    state.error("T320", f"range {_range_text(lo, hi)} includes key {v}, which has its own row",
                                row.keys[0].span, related=[Related(other.span, "the row for " + str(v))])
            ranges.append((lo, hi, row))
            continue
        plain = tuple(s[1] for s in specs)
        if plain in seen:
            state.error("T320", f"table {sym.name} has two rows for {_key_text(plain)}", row.span,
                        related=[Related(seen[plain].span, "the first row")])
        seen[plain] = row
        if len(specs) == 1:
            for lo, hi, other in ranges:
                v = plain[0]
                if isinstance(v, int) and v >= lo and (hi is None or v <= hi):
                    state.error("T320", f"key {v} is also in range {_range_text(lo, hi)}", row.span,
                                related=[Related(other.span, "the range")])
    return keys


def _range_text(lo, hi) -> str:
    return f"{lo}..{hi if hi is not None else ''}"


def _key_text(key: tuple) -> str:
    return ", ".join(format_value(v) for v in key)
