"""The transform's declarations: a ruleset's items (players, units, options, tables, formulas,
phases, hooks, constraints, checks, advice, overrides) and the type expressions they are written
with. Rule tests are in `transform_rule_tests`.

A unit attribute or a record type's field given twice is P007 here, with the span of the
second.
"""

from __future__ import annotations

from lark import v_args

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.source import Span
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.declarations import (AdviceDecl, AttributeDecl, CheckDecl, ConstantDecl, ConstraintDecl,
                                                CounterDecl, CustomProcedure, DieTableDecl, EnumDecl, FactDecl,
                                                FormulaDecl, HookDecl, HookTarget, ListType, ModTerm, ModifiersDecl,
                                                NamedType, OptionDecl, OptionalType, Override, Param, PhaseDecl,
                                                PlayerDecl, RecordType, Remove, RuntimeProcedure, SequenceDecl,
                                                SetType, SideDecl, StepDecl, TableDecl, TableRow, TagDecl, TypeDecl,
                                                UnitDecl)
from ruleslang.lang.syntax.expressions import Range
from ruleslang.lang.syntax.statements import Block
from ruleslang.lang.syntax.transform_tokens import TokenTransform, unique_fields


@v_args(meta=True)
class DeclarationTransform(TokenTransform):
    """The grammar rules of declarations and type expressions, mixed into `transform.ToAst`."""

    def override_decl(self, meta, children):
        decl = children[0]
        if isinstance(decl, Many):
            return Many([Override(d, span=d.span) for d in decl])
        return Override(decl, span=self._span(meta))

    def remove_decl(self, meta, children):
        return Remove(self._ident(children[0]), span=self._span(meta))

    def name_list(self, meta, children):
        return [self._ident(t) for t in children]

    def player_decl(self, meta, children):
        return self._each_name(PlayerDecl, children[0], meta)

    def tag_decl(self, meta, children):
        return self._each_name(TagDecl, children[0], meta)

    def _each_name(self, decl: type, names: list, meta):
        """A declaration for each name of a line (`player A, B`): the line's span for a lone one."""
        if len(names) == 1:
            return decl(names[0], span=self._span(meta))
        return Many([decl(n, span=n.span) for n in names])

    def side_decl(self, meta, children):
        name, members = children
        return SideDecl(self._ident(name), tuple(members), span=self._span(meta))

    def enum_decl(self, meta, children):
        name, members = children
        return EnumDecl(self._ident(name), tuple(members), span=self._span(meta))

    def type_decl(self, meta, children):
        name, typ = children
        return TypeDecl(self._ident(name), typ, span=self._span(meta))

    def attribute_decl(self, meta, children):
        name, typ, default = children
        return AttributeDecl(self._ident(name), typ, default, False, span=self._span(meta))

    def space_attribute_decl(self, meta, children):
        name, typ, default = children
        return AttributeDecl(self._ident(name), typ, default, True, span=self._span(meta))

    def unit_decl(self, meta, children):
        name, title, *items = children
        attrs: list = []
        tags = None
        seen: dict[str, Span] = {}
        for item in items:
            key = item[0]
            label = "tags" if key == "tags" else key.text
            span = item[2]
            if label in seen:
                raise DiagnosticError(error("P007", f"'{label}' is given twice for unit '{name}'", span))
            seen[label] = span
            if key == "tags":
                tags = tuple(item[1])
            else:
                attrs.append((key, item[1]))
        return UnitDecl(self._ident(name), self._plain(title) if title is not None else None,
                        tuple(attrs), tags, span=self._span(meta))

    def unit_attr(self, meta, children):
        name, value = children
        return (self._ident(name), value, self._span(meta))

    def unit_tags(self, meta, children):
        return ("tags", children[0], self._span(meta))

    def option_decl(self, meta, children):
        name, typ, default, desc = children
        return OptionDecl(self._ident(name), typ, default,
                          self._plain(desc) if desc is not None else None, span=self._span(meta))

    def constant_decl(self, meta, children):
        name, typ, value = children
        return ConstantDecl(self._ident(name), typ, value, span=self._span(meta))

    def fact_decl(self, meta, children):
        name, typ, default = children
        return FactDecl(self._ident(name), typ, default, span=self._span(meta))

    def counter_decl(self, meta, children):
        name, params, typ, default = children
        return CounterDecl(self._ident(name), tuple(params or ()), typ, default, span=self._span(meta))

    def params(self, meta, children):
        return tuple(c for c in children if c is not None)

    def param(self, meta, children):
        name, typ = children
        return Param(self._ident(name), typ, span=self._span(meta))

    def columns(self, meta, children):
        return ("columns", children[0])

    def table_decl(self, meta, children):
        name, params, result, *rows = children
        if isinstance(result, tuple) and result and result[0] == "columns":
            columns, result_type = tuple(result[1]), None
        else:
            columns, result_type = None, result
        return TableDecl(self._ident(name), tuple(params), columns, result_type, tuple(rows),
                         span=self._span(meta))

    def die_table_decl(self, meta, children):
        name, dice_tok, result, *rows = children
        dice = self._dice(dice_tok)
        return DieTableDecl(self._ident(name), dice, result, tuple(rows), span=self._span(meta))

    def table_row(self, meta, children):
        keys, *values = children
        return TableRow(tuple(keys), tuple(values), span=self._span(meta))

    def key_cells(self, meta, children):
        return list(children)

    def open_range(self, meta, children):
        return Range(children[0], None, span=self._span(meta))

    def formula_decl(self, meta, children):
        name, params, result, *body = children
        *lets, expr = body
        return FormulaDecl(self._ident(name), tuple(params) if params is not None else None,
                           result, tuple(lets), expr, span=self._span(meta))

    def modifiers_decl(self, meta, children):
        name, params, result, *items = children
        return ModifiersDecl(self._ident(name), tuple(params) if params is not None else None,
                             result, tuple(items), span=self._span(meta))

    def mod_term(self, meta, children):
        sign, value, cond, reason = children
        return ModTerm(str(sign), value, cond, self._string(reason), span=self._span(meta))

    def runtime_procedure(self, meta, children):
        name, config = children
        return RuntimeProcedure(self._ident(name), config, span=self._span(meta))

    def custom_procedure(self, meta, children):
        return CustomProcedure(children[0], span=self._span(meta))

    def phase_decl(self, meta, children):
        name, proc = children
        return PhaseDecl(self._ident(name), proc, span=self._span(meta))

    def step_decl(self, meta, children):
        name, proc = children
        return StepDecl(self._ident(name), proc, span=self._span(meta))

    def sequence_decl(self, meta, children):
        name, items = children
        return SequenceDecl(self._ident(name), tuple(items), span=self._span(meta))

    def hook_when(self, meta, children):
        return " ".join(str(t) for t in children)

    def target(self, meta, children):
        phase, step = (children + [None])[:2]
        return HookTarget(self._ident(phase), self._ident(step) if step is not None else None,
                          span=self._span(meta))

    def hook_decl(self, meta, children):
        name, when, target, players, cond, body = children
        return HookDecl(self._ident(name), when, target, players, cond, body, span=self._span(meta))

    def constraint_decl(self, meta, children):
        name, action, params, body = children
        return ConstraintDecl(self._ident(name), self._ident(action), tuple(params or ()), body,
                              span=self._span(meta))

    def check_severity(self, meta, children):
        return str(children[0])

    def check_decl(self, meta, children):
        severity, title_tok, body = children
        title = self._plain(title_tok)
        ident = ast.Ident(title, span=self._tok_span(title_tok))
        if isinstance(body, Block):
            return CheckDecl(ident, severity or "error", title, None, body, span=self._span(meta))
        return CheckDecl(ident, severity or "error", title, body, None, span=self._span(meta))

    def advice_decl(self, meta, children):
        target, params, *body = children
        *lets, expr = body
        ident = ast.Ident(target.text, span=target.span)
        return AdviceDecl(ident, target, tuple(params) if params is not None else None, tuple(lets), expr,
                          span=self._span(meta))

    def named_type(self, meta, children):
        return NamedType(str(children[0]), span=self._span(meta))

    def optional_type(self, meta, children):
        return OptionalType(str(children[0]), span=self._span(meta))

    def set_type(self, meta, children):
        return SetType(children[0], span=self._span(meta))

    def list_type(self, meta, children):
        return ListType(children[0], span=self._span(meta))

    def record_type(self, meta, children):
        return RecordType(unique_fields(children), span=self._span(meta))

    def type_field(self, meta, children):
        return (self._ident(children[0]), children[1])


class Many(list):
    """Several declarations written on one line (`player A, B`)."""


def flatten(items) -> tuple:
    """A module's items with each `Many` spread out in its place."""
    out = []
    for item in items:
        if isinstance(item, Many):
            out.extend(item)
        else:
            out.append(item)
    return tuple(out)
