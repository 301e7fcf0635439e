"""What generated code calls, and how a generated function is assembled and its errors placed.

The code generator (`codegen.py` for formulas and modifier lists, `codegen_blocks.py` for the
statements of phases, hooks, constraints and checks) writes Python source; this module holds the
rest:

- the run-time helpers that source calls (`HELPERS`, handed to every generated function through
  its globals under their `_` names), each raising with the span it is handed, as the closures do;
- the constant tables and space attribute memos that call sites look values up in;
- `assemble`: source lines into a function, compiled with `compile()`; the marks the writers put
  around built-in calls become (line, column) ranges of the compiled code (`Places`), and an
  error leaving a generated function without a place is located at the innermost marked call
  around the instruction that failed (`relocate`, PEP 657 positions).
"""

from __future__ import annotations

import re
from types import CodeType
from typing import Any, Callable

from ruleslang.base.errors import EvalError
from ruleslang.base.limits import MAX_COLLECTION, MAX_INT_BITS, MAX_TEXT
from ruleslang.board.state import BoardError
from ruleslang.lang.eval.operations import NO_VALUE, check_size, items_of, joined, located
from ruleslang.lang.values import (LSet, Record, UnitValue, bounded_number, bounded_sum, display_text, normalize_number,
                                   sort_key)

class Unsupported(Exception):
    """A shape the generator does not write yet (or source Python will not compile: blocks nested
    past its limit): the definition, statement or block runs on the closures."""


# ----------------------------------------------------------------------------- run-time helpers
# Called from generated code; each raises with the span it is handed, as the closures do.


def _budgeted(value, host, span):
    """The items of a collection about to be looped over, each counted as a step of the budget."""
    items = value if type(value) is tuple else items_of(value)
    host.steps -= len(items)
    if host.steps < 0:
        host.out_of_budget(span)
    return items


def _unit_attribute(ctx, thing, name: str, constants: dict):
    """Unit attribute `name` of a unit or unit type: from `constants` (the program's constant
    values of it, by type name) when there, else as the context works it out."""
    type_name = thing.type.name if isinstance(thing, UnitValue) else thing.name
    found = constants.get(type_name, NO_VALUE)
    if found is not NO_VALUE:
        return found
    return ctx.unit_attribute(type_name, name)


def _need(value, span):
    if value is None:
        raise EvalError("E504", f"'{span.text}' is none here, where a value is needed", span)
    return value


def _too_big(span):
    raise EvalError("E509", f"a number grew beyond {MAX_INT_BITS} bits", span)


def _total(value, span):
    try:
        return bounded_number(value)
    except EvalError as e:
        raise e.at(span)


def _fraction_sum(values, span):
    try:
        return bounded_sum(values)
    except EvalError as e:
        raise e.at(span)


def _extreme(pick, values, name, span):
    if not values:
        raise EvalError("E505", f"{name} of an empty collection", span)
    return pick(values)


def _int_div(num, den, floor, span):
    if den == 0:
        raise EvalError("E503", "division by zero", span)
    return num // den if floor else -(-num // den)


def _text(span, *parts):
    text = "".join(parts)
    if len(text) > MAX_TEXT:
        raise EvalError("E510", f"a text of {len(text)} characters is more than the limit of {MAX_TEXT}", span)
    return text


def _range(lo, hi, span):
    check_size(hi - lo + 1, span)
    return tuple(range(lo, hi + 1))


def _index(seq, i, span):
    if not -len(seq) <= i < len(seq):
        raise EvalError("E507", f"index {i} is outside a list of {len(seq)} (the first is 0)", span)
    return seq[i]


def _side(ctx, player, span):
    s = ctx.side_of(player.name)
    if s is None:
        raise EvalError("E504", f"player {player.name} belongs to no side", span)
    return s


def _fact(ctx, name, default, span):
    facts = ctx.facts
    if name in facts:
        return facts[name]
    if default is NO_VALUE:
        raise EvalError("E532", f"fact '{name}' has no value: give it in the scenario's facts", span)
    return default


def _condition(fn, key):
    """A condition handed to a built-in, with the key a board query keeps its answer under."""
    fn.cache_key = key
    return fn


def _connected(ctx, space, key, cond, impl):
    found = ctx.board.cached_connected(space.name, key)
    if found is not None:
        return ctx.spaces(found)
    cond.cache_key = key
    return impl(ctx, space, cond)


def _best_count(k, kind, span):
    if k < 0:
        raise EvalError("E506", f"{kind} {k} of: the count cannot be negative", span)
    return k


def _best_of(k, values, largest):
    return tuple(sorted(values, key=sort_key, reverse=largest)[:k])


class _Made:
    """The values a comprehension of several loops has made so far, held to the collection limit."""

    __slots__ = ("count",)

    def __init__(self):
        self.count = 0

    def one_more(self, span) -> bool:
        self.count += 1
        if self.count > MAX_COLLECTION:
            check_size(self.count, span)
        return True


class ConstantTable(dict):
    """A table whose rows are all constants, as a dictionary from its keys; a key it does not hold
    (a range row, or no row) is asked of the table, which finds the range or refuses at `span`."""

    __slots__ = ("table", "span", "single", "column")

    def __init__(self, rows: dict, table, span, single: bool, column: str | None = None):
        """`column`: the dictionary holds that column of each row (`t(k).column` read in one look-up)."""
        items = ((k[0] if single else k, v if column is None else v.get(column)) for k, v in rows.items())
        super().__init__(items)
        self.table, self.span, self.single, self.column = table, span, single, column

    def __missing__(self, key):
        row = self.table.lookup(None, (key,) if self.single else key, self.span)
        return row if self.column is None else row.get(self.column)


class RowIndex:
    """`[r for r in rows(t) where r.column == x]` at one call site: the rows grouped by the column,
    made once per tuple of rows (a table of constant rows hands out the same tuple each time), so
    the rows are found by a look-up instead of a comparison per row. The budget is spent per row,
    as the loop does; a column value that cannot be hashed compares row by row."""

    __slots__ = ("column", "records", "index")

    def __init__(self, column: str):
        self.column = column
        self.records: tuple | None = None
        self.index: dict | bool | None = None  # None: not made yet; False: a column value cannot be hashed

    def find(self, rows, value, host, span) -> list:
        items = _budgeted(rows, host, span)
        column = self.column
        if items is not self.records:
            # rows seen for the first time (a table whose cells read the state hands out new ones
            # on every read): compared row by row; indexed when the same rows come again
            self.records, self.index = items, None
        elif self.index is None:
            index: dict | bool = {}
            try:
                for row in items:
                    index.setdefault(row.get(column), []).append(row)
            except TypeError:
                index = False
            self.index = index
        if self.index:
            try:
                return list(self.index.get(value, ()))
            except TypeError:
                pass
        return [row for row in items if row.get(column) == value]


class SpaceAttribute(dict):
    """The values of one space attribute at one call site, by space name, filled as they are read."""

    __slots__ = ("compiled", "name", "span")

    def __init__(self, compiled, name, span):
        super().__init__()
        self.compiled, self.name, self.span = compiled, name, span

    def read(self, ctx, space):
        try:
            value = self[space] = self.compiled.space_attribute(ctx, space, self.name)
        except EvalError as e:
            raise e.at(self.span)
        return value


# every helper by the name generated source calls it by
HELPERS = {
    "_budgeted": _budgeted, "_need": _need, "_too_big": _too_big, "_total": _total, "_fraction_sum": _fraction_sum,
    "_extreme": _extreme, "_int_div": _int_div, "_joined": joined, "_text": _text, "_range": _range,
    "_index": _index, "_side": _side, "_fact": _fact, "_condition": _condition, "_connected": _connected,
    "_unit_attribute": _unit_attribute,
    "_Made": _Made, "_best_count": _best_count, "_best_of": _best_of, "_items_of": items_of, "_LSet": LSet, "_Record": Record, "_UnitValue": UnitValue, "_display": display_text,
    "_normalize": normalize_number, "_min": min, "_max": max, "_sum": sum, "_len": len,
    "_any": any, "_all": all, "_tuple": tuple, "_isinstance": isinstance,
}


# ----------------------------------------------------------------------------- errors located


class Places:
    """Where the marked built-in calls of one generated function sit in its compiled code."""

    def __init__(self, ranges: list[tuple[int, int, int, Any]], code: CodeType):
        self.ranges = ranges  # (line, first column, end column, span)
        self.top = code  # the function's own code
        self.nested: set[CodeType] = set()  # its comprehensions' and conditions' code
        self.positions: dict[CodeType, list] = {}
        self._add_nested(code)

    def _add_nested(self, code: CodeType) -> None:
        for c in code.co_consts:
            if isinstance(c, CodeType):
                self.nested.add(c)
                self._add_nested(c)

    def span_at(self, code: CodeType, lasti: int):
        positions = self.positions.get(code)
        if positions is None:
            positions = self.positions[code] = list(code.co_positions())
        line, end_line, col, end_col = positions[lasti // 2]
        if line is None or col is None:
            return None
        if end_line != line:
            end_col = 1 << 30
        best = None
        for rline, start, end, span in self.ranges:
            if rline == line and start <= col and end_col <= end and (best is None or end - start < best[0]):
                best = (end - start, span)
        return best[1] if best is not None else None


def relocate(error, places: Places):
    """The error leaving a generated function, located as the closures locate it: at the innermost
    marked built-in call around the instruction that failed, when it has no place yet.

    Called in the function's own handler, so the traceback starts at this run's frame; the frame
    that failed is the deepest one after it that runs this function's nested code, before any
    other run of the same code (a definition calling itself, or a definition of another program
    compiled from the same source, has placed what it could in its own handler)."""
    if isinstance(error, EvalError) and error.span is not None:
        return error
    last = error.__traceback__
    if last is None or last.tb_frame.f_code is not places.top:
        return error
    tb = last.tb_next
    while tb is not None:
        code = tb.tb_frame.f_code
        if code is places.top:
            break
        if code in places.nested:
            last = tb
        tb = tb.tb_next
    span = places.span_at(last.tb_frame.f_code, last.tb_lasti)
    if span is None:
        return error
    return located(error, span)


# what a generated function locates as it leaves
ERRORS = (EvalError, BoardError)



# ----------------------------------------------------------------------------- assembly


_MARK = re.compile("[\x01\x03]([0-9]+)[\x02\x04]")


def unmark(text: str) -> tuple[str, list]:
    """The source without its marks, and the (line, first column, end column, mark) of each mark."""
    out_lines, ranges = [], []
    for lineno, line in enumerate(text.split("\n"), 1):
        if "\x01" not in line:
            out_lines.append(line)
            continue
        pieces, stack, col, at = [], [], 0, 0
        for m in _MARK.finditer(line):
            pieces.append(line[at:m.start()])
            col += m.start() - at
            at = m.end()
            if line[m.start()] == "\x01":
                stack.append((int(m.group(1)), col))
            else:
                mark, start = stack.pop()
                ranges.append((lineno, start, col, mark))
        pieces.append(line[at:])
        out_lines.append("".join(pieces))
    return "\n".join(out_lines), ranges


def safe_label(name: str) -> str:
    """A definition's name as a code object's file label: letters, digits and _ only."""
    return "".join(c if c.isalnum() and c.isascii() or c == "_" else "_" for c in name)[:60]


# Compiled code by (source, label): the programs of one process (a game builds its own) generate
# the same source for the same rules, and compiling it is most of what generating costs. Bounded:
# emptied when full.
_CODE: dict[tuple[str, str], CodeType] = {}
_CODE_LIMIT = 4096


def assemble(name: str, params: list[str], prologue: list[str], inner: list[str], ns: dict, spans: list,
             kind: str = "") -> Callable:
    """The function `f(params)` of source lines (`prologue`, then `inner` inside the handler that
    locates errors), compiled once; `ns` its globals (helpers and `_k<n>` values), `spans` the
    rule span of each mark in the lines. Its code's file name is `<ruleslang KIND:NAME>` (`<ruleslang
    NAME>` without a kind). The function keeps its source as `generated_source`."""
    fname = "f"
    lines = [f"def {fname}({', '.join(params)}):"]
    lines += ["    " + line for line in prologue]
    lines.append("    try:")
    lines += ["        " + line for line in inner]
    lines.append("    except _ERRORS as e:")
    lines.append("        raise _relocate(e, _places)")
    source, marks = unmark("\n".join(lines) + "\n")
    label = f"<ruleslang {kind + ':' if kind else ''}{safe_label(name)}>"
    code = _CODE.get((source, label))
    if code is None:
        if len(_CODE) >= _CODE_LIMIT:
            _CODE.clear()
        try:
            code = compile(source, label, "exec")
        except (SyntaxError, RecursionError, MemoryError) as e:
            # Python's own limits (20 nested loops and handlers, nested brackets): the closures run it
            raise Unsupported(f"Python cannot compile it ({type(e).__name__}: {e})") from None
        _CODE[(source, label)] = code
    scope: dict[str, Any] = {}
    exec(code, ns, scope)  # noqa: S102 - our own source: no rule text reaches it (codegen.py's docstring)
    fn = scope[fname]
    places = Places([(line, start, end, spans[mark]) for line, start, end, mark in marks], fn.__code__)
    ns.update({"_ERRORS": ERRORS, "_relocate": relocate, "_places": places})
    fn.generated_source = source  # for tests and for reading what was generated (tools/show_code.py)
    return fn
