"""Lark tree -> AST. The only module besides `parser` that imports lark.

The parser owns parsing: it hands the transformer a function that parses the `{expr}` of a text
interpolation, so this module never calls the parser itself.

Structural rules the grammar cannot say (one `title` per header, a unit attribute given twice,
malformed text escapes) are reported here as P-codes, with the span of the offending part.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from lark import Token, Transformer, Tree, v_args
from lark.exceptions import VisitError

from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import (BestOf, Binary, BoolLit, BoolOp, Call, Compare, Comprehension,
                                               DecimalLit, DiceLit, Explain, Expr, Field, ForClause, If, In, Index,
                                               IntLit, KeywordArg, Lambda, ListLit, Name, NoneLit, Not, Range,
                                               RecordLit, SetLit, StringLit, Unary)
from ruleslang.lang.syntax.statements import (AddEffect, Block, ChangeEffect, Choose, ForStmt, HitEffect, IfStmt, Let,
                                              LogEffect, MoveEffect, RemoveEffect, Require, RetreatEffect, RunEffect,
                                              SetEffect, SubmergeEffect, WinEffect)
from ruleslang.lang.syntax.declarations import (AdviceDecl, AttributeDecl, CheckDecl, ConstantDecl, ConstraintDecl,
                                                CounterDecl, CustomProcedure, DieTableDecl, EnumDecl, Expect,
                                                ExpectAction, ExpectError, FactDecl, FormulaDecl, Header, HookDecl,
                                                HookTarget, ListType, ModTerm, ModifiersDecl, Module, NamedType,
                                                OptionDecl, OptionalType, Override, Param, PhaseDecl, PlayerDecl,
                                                RecordType, RefLit, Remove, RuntimeProcedure, SequenceDecl, SetType,
                                                SideDecl, StepDecl, TableDecl, TableRow, TagDecl, TestAnswer,
                                                TestBattle, TestConstraintsOnly, TestDecl, TestFact, TestNextRound,
                                                TestOption, TestRun, TestScenario, TestSeed, TypeDecl, UnitDecl)
from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.limits import MAX_DICE, MAX_DIE_SIDES, MAX_INT_BITS, MAX_NUMBER_DIGITS, MAX_TEXT
from ruleslang.base.source import Source, Span

_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}


def _too_big(value: int) -> bool:
    return value.bit_length() > MAX_INT_BITS


# (fragment text, source, offset of the fragment in the source) -> the fragment's lark tree
ParseFragment = Callable[[str, Source, int], Tree]


@v_args(meta=True)
class _ToAst(Transformer):
    def __init__(self, source: Source, parse_fragment: ParseFragment, base: int = 0):
        super().__init__(visit_tokens=False)
        self.source = source
        self.parse_fragment = parse_fragment
        self.base = base

    # --------------------------------------------------------------------------- helpers

    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.source, self.base, self.base)
        text = self.source.text
        # the parser reads one newline more than the file holds
        start, end = self.base + meta.start_pos, min(self.base + meta.end_pos, len(text))
        start = min(start, end)
        if end > start and text[end - 1] in "\n\r\t #":
            end = _trim_end(text, start, end)
        return Span(self.source, start, end)

    def _tok_span(self, tok: Token) -> Span:
        return Span(self.source, self.base + tok.start_pos, self.base + tok.end_pos)

    def _ident(self, tok: Token) -> ast.Ident:
        return ast.Ident(str(tok), span=self._tok_span(tok))

    def _string(self, tok: Token) -> StringLit:
        """Unescape a STRING token and split out `{expr}` interpolations."""
        raw = str(tok)[1:-1]
        start = self.base + tok.start_pos + 1
        if len(raw) > MAX_TEXT:
            raise DiagnosticError(error(
                "E510", f"a text of {len(raw)} characters is more than the limit of {MAX_TEXT}",
                Span(self.source, start - 1, start)))
        parts: list = []
        buf: list[str] = []
        i = 0
        while i < len(raw):
            ch = raw[i]
            if ch == "\\":
                nxt = raw[i + 1] if i + 1 < len(raw) else ""
                if nxt not in _ESCAPES:
                    raise DiagnosticError(error(
                        "P006", f"unknown escape '\\{nxt}' in text",
                        Span(self.source, start + i, start + i + 2),
                        hint='the escapes are \\" \\\\ \\n \\t; write {{ and }} for braces'))
                buf.append(_ESCAPES[nxt])
                i += 2
            elif ch == "{" and raw[i + 1:i + 2] == "{":
                buf.append("{")
                i += 2
            elif ch == "}" and raw[i + 1:i + 2] == "}":
                buf.append("}")
                i += 2
            elif ch == "{":
                depth, j = 1, i + 1
                while j < len(raw) and depth:
                    if raw[j] == "{":
                        depth += 1
                    elif raw[j] == "}":
                        depth -= 1
                    j += 1
                if depth:
                    raise DiagnosticError(error(
                        "P006", "'{' in text starts an interpolation that is never closed",
                        Span(self.source, start + i, start + i + 1),
                        hint="write {{ for a literal brace"))
                fragment = raw[i + 1:j - 1].replace('\\"', '"').replace("\\\\", "\\")
                if not fragment.strip():
                    raise DiagnosticError(error(
                        "P006", "empty interpolation '{}' in text",
                        Span(self.source, start + i, start + j)))
                if buf:
                    parts.append("".join(buf))
                    buf = []
                tree = self.parse_fragment(fragment, self.source, start + i + 1)
                parts.append(_transform(_ToAst(self.source, self.parse_fragment, start + i + 1), tree))
                i = j
            elif ch == "}":
                raise DiagnosticError(error(
                    "P006", "unmatched '}' in text", Span(self.source, start + i, start + i + 1),
                    hint="write }} for a literal brace"))
            else:
                buf.append(ch)
                i += 1
        if buf or not parts:
            parts.append("".join(buf))
        return StringLit(tuple(parts), span=self._tok_span(tok))

    def _plain(self, tok: Token) -> str:
        lit = self._string(tok)
        if not lit.is_plain:
            raise DiagnosticError(error("P006", "interpolation '{...}' is not allowed here",
                                        lit.span, hint="write {{ and }} for literal braces"))
        return lit.plain

    # ---------------------------------------------------------------------------- module

    def start(self, meta, children):
        header, *items = children
        return Module(header, tuple(items), span=self._span(meta))

    def header(self, meta, children):
        ref, *items = children
        seen: dict[str, Span] = {}
        values: dict = {"title": None, "source_note": None, "change_note": None, "revises": None, "map": None}
        uses: list[RefLit] = []
        for kind, value, span in items:
            if kind == "uses":
                uses.extend(value)
                continue
            if kind in seen:
                word = {"source_note": "source", "change_note": "note"}.get(kind, kind)
                raise DiagnosticError(error("P007", f"'{word}' is given twice in the ruleset header", span))
            seen[kind] = span
            values[kind] = value
        return Header(ref, values["title"], values["source_note"], values["change_note"],
                          values["revises"], tuple(uses), values["map"], span=self._span(meta))

    def ref(self, meta, children):
        (tok,) = children
        if tok.type == "STRING":
            return RefLit(self._plain(tok), True, span=self._tok_span(tok))
        return RefLit(str(tok), False, span=self._tok_span(tok))

    def title(self, meta, children):
        return ("title", self._plain(children[0]), self._span(meta))

    def source_note(self, meta, children):
        return ("source_note", self._plain(children[0]), self._span(meta))

    def change_note(self, meta, children):
        return ("change_note", self._plain(children[0]), self._span(meta))

    def revises(self, meta, children):
        return ("revises", children[0], self._span(meta))

    def uses(self, meta, children):
        return ("uses", list(children), self._span(meta))

    def uses_map(self, meta, children):
        return ("map", self._string(children[0]), self._span(meta))

    # ----------------------------------------------------------------------- declarations

    def override_decl(self, meta, children):
        decl = children[0]
        if isinstance(decl, _Many):
            return _Many([Override(d, span=d.span) for d in decl])
        return Override(decl, span=self._span(meta))

    def remove_decl(self, meta, children):
        return Remove(self._ident(children[0]), span=self._span(meta))

    def name_list(self, meta, children):
        return [self._ident(t) for t in children]

    def player_decl(self, meta, children):
        names = children[0]
        if len(names) == 1:
            return PlayerDecl(names[0], span=self._span(meta))
        return _Many([PlayerDecl(n, span=n.span) for n in names])

    def tag_decl(self, meta, children):
        names = children[0]
        if len(names) == 1:
            return TagDecl(names[0], span=self._span(meta))
        return _Many([TagDecl(n, span=n.span) for n in names])

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

    def test_decl(self, meta, children):
        title_tok, *lines = children
        title = self._plain(title_tok)
        return TestDecl(ast.Ident(title, span=self._tok_span(title_tok)), title, tuple(lines),
                            span=self._span(meta))

    def test_scenario(self, meta, children):
        ref, changes = children
        return TestScenario(ref, changes, span=self._span(meta))

    def test_option(self, meta, children):
        name, value = children
        return TestOption(self._ident(name), value, span=self._span(meta))

    def test_answer(self, meta, children):
        target, value = children
        return TestAnswer(target, value, span=self._span(meta))

    def test_seed(self, meta, children):
        return TestSeed(int(children[0]), span=self._span(meta))

    def test_fact(self, meta, children):
        name, value = children
        return TestFact(self._ident(name), value, span=self._span(meta))

    def test_battle(self, meta, children):
        space, attacker, sea_zone = children
        return TestBattle(space, attacker, sea_zone, span=self._span(meta))

    def test_next_round(self, meta, children):
        return TestNextRound(span=self._span(meta))

    def test_run(self, meta, children):
        name, player = children
        return TestRun(self._ident(name), player, span=self._span(meta))

    def test_expect(self, meta, children):
        return Expect(children[0], span=self._span(meta))

    def test_expect_error(self, meta, children):
        pattern, expr = children
        return ExpectError(self._plain(pattern), expr, span=self._span(meta))

    def test_expect_run_error(self, meta, children):
        pattern, name, player = children
        run = TestRun(self._ident(name), player, span=self._span(meta))
        return ExpectError(self._plain(pattern), run, span=self._span(meta))

    def test_expect_allowed(self, meta, children):
        name, args = children
        return ExpectAction(self._ident(name), tuple(self._plain_args(args)), True, None, span=self._span(meta))

    def test_expect_refused(self, meta, children):
        name, args, pattern = children
        return ExpectAction(self._ident(name), tuple(self._plain_args(args)), False,
                                self._plain(pattern) if pattern is not None else None, span=self._span(meta))

    def test_do(self, meta, children):
        name, args = children
        return ExpectAction(self._ident(name), tuple(self._plain_args(args)), True, None, apply=True,
                                span=self._span(meta))

    def test_constraints_only(self, meta, children):
        return TestConstraintsOnly(span=self._span(meta))

    def _plain_args(self, args):
        if args is None:
            return []
        if isinstance(args, Comprehension):
            raise DiagnosticError(error("P008", "an action takes plain arguments", args.span))
        for a in args:
            if isinstance(a, KeywordArg):
                raise DiagnosticError(error("P008", "an action takes its arguments by position", a.span))
        return args

    # ------------------------------------------------------------------------- statements

    def block(self, meta, children):
        return Block(tuple(children), span=self._span(meta))

    def let_line(self, meta, children):
        name, value = children
        return Let(self._ident(name), value, span=self._span(meta))

    def choose_count(self, meta, children):
        words = [c for c in children if isinstance(c, Token) and c.type != "NAME"]
        exprs = [c for c in children if not isinstance(c, Token)]
        if words and str(words[0]) == "one":
            return ("one", None)
        if words and str(words[0]) == "up":
            return ("up_to", exprs[0])
        return ("exactly", exprs[0])

    def choose_stmt(self, meta, children):
        name, (mode, count), options, player, prompt = children
        return Choose(self._ident(name), mode, count, options, player,
                          self._string(prompt) if prompt is not None else None, span=self._span(meta))

    def require_stmt(self, meta, children):
        cond, message = (children + [None])[:2]
        return Require(cond, message, span=self._span(meta))

    def if_stmt(self, meta, children):
        cond, block, *rest = children
        branches = [(cond, block)]
        else_block = None
        for item in rest:
            if item is None:
                continue
            if item[0] == "elif":
                branches.append((item[1], item[2]))
            else:
                else_block = item[1]
        return IfStmt(tuple(branches), else_block, span=self._span(meta))

    def elif_clause(self, meta, children):
        return ("elif", children[0], children[1])

    def else_clause(self, meta, children):
        return ("else", children[0])

    def for_stmt(self, meta, children):
        var, iterable, cond, body = children
        return ForStmt(self._ident(var), iterable, cond, body, span=self._span(meta))

    def change_effect(self, meta, children):
        return ChangeEffect(children[0], children[1], span=self._span(meta))

    def set_effect(self, meta, children):
        return SetEffect(children[0], children[1], span=self._span(meta))

    def add_effect(self, meta, children):
        count, type_tok, space, owner = children
        name = Name(str(type_tok), span=self._tok_span(type_tok))
        return AddEffect(count, name, space, owner, span=self._span(meta))

    def remove_effect(self, meta, children):
        return RemoveEffect(children[0], span=self._span(meta))

    def move_effect(self, meta, children):
        return MoveEffect(children[0], children[1], span=self._span(meta))

    def log_effect(self, meta, children):
        return LogEffect(children[0], span=self._span(meta))

    def win_effect(self, meta, children):
        winner, reason = children
        return WinEffect(winner, self._string(reason) if reason is not None else None, span=self._span(meta))

    def hit_effect(self, meta, children):
        count, units, chooser, now = children
        return HitEffect(count, units, chooser, now is not None, span=self._span(meta))

    def submerge_effect(self, meta, children):
        return SubmergeEffect(children[0], span=self._span(meta))

    def retreat_effect(self, meta, children):
        return RetreatEffect(children[0], span=self._span(meta))

    def run_effect(self, meta, children):
        return RunEffect(self._ident(children[0]), span=self._span(meta))

    # ------------------------------------------------------------------------------ types

    def named_type(self, meta, children):
        return NamedType(str(children[0]), span=self._span(meta))

    def optional_type(self, meta, children):
        return OptionalType(str(children[0]), span=self._span(meta))

    def set_type(self, meta, children):
        return SetType(children[0], span=self._span(meta))

    def list_type(self, meta, children):
        return ListType(children[0], span=self._span(meta))

    def record_type(self, meta, children):
        fields = tuple(c for c in children if c is not None)
        seen: set[str] = set()
        for name, _ in fields:
            if name.text in seen:
                raise DiagnosticError(error("P007", f"field '{name.text}' is given twice", name.span))
            seen.add(name.text)
        return RecordType(fields, span=self._span(meta))

    def type_field(self, meta, children):
        return (self._ident(children[0]), children[1])

    # ------------------------------------------------------------------------ expressions

    def if_expr(self, meta, children):
        return If(*children, span=self._span(meta))

    def lambda_expr(self, meta, children):
        return Lambda(self._ident(children[0]), children[1], span=self._span(meta))

    def or_op(self, meta, children):
        return BoolOp("or", children[0], children[1], span=self._span(meta))

    def and_op(self, meta, children):
        return BoolOp("and", children[0], children[1], span=self._span(meta))

    def not_op(self, meta, children):
        return Not(children[0], span=self._span(meta))

    def compare(self, meta, children):
        left, op, right = children
        return Compare(str(op), left, right, span=self._span(meta))

    def in_op(self, meta, children):
        return In(children[0], children[1], False, span=self._span(meta))

    def not_in_op(self, meta, children):
        return In(children[0], children[1], True, span=self._span(meta))

    def range_op(self, meta, children):
        return Range(children[0], children[1], span=self._span(meta))

    def arith(self, meta, children):
        left, op, right = children
        return Binary(str(op), left, right, span=self._span(meta))

    def unary_op(self, meta, children):
        op, operand = children
        return Unary(str(op), operand, span=self._span(meta))

    def best_kind(self, meta, children):
        return str(children[0])

    def best_of(self, meta, children):
        kind, count, coll = children
        return BestOf(kind, count, coll, span=self._span(meta))

    def call(self, meta, children):
        func, args = children
        span = self._span(meta)
        if args is None:
            return Call(func, (), (), span=span)
        if isinstance(args, Comprehension):
            return Call(func, (args,), (), span=span)
        positional, keywords = [], []
        for arg in args:
            if isinstance(arg, KeywordArg):
                if any(k.name.text == arg.name.text for k in keywords):
                    raise DiagnosticError(error("P007", f"argument '{arg.name.text}' is given twice", arg.span))
                keywords.append(arg)
            else:
                if keywords:
                    raise DiagnosticError(error(
                        "P008", "a positional argument cannot follow a named one", arg.span))
                positional.append(arg)
        return Call(func, tuple(positional), tuple(keywords), span=span)

    def args(self, meta, children):
        return [c for c in children if c is not None]

    def generator_args(self, meta, children):
        elt, *clauses = children
        return Comprehension("gen", elt, tuple(clauses), span=self._span(meta))

    def keyword_arg(self, meta, children):
        return KeywordArg(self._ident(children[0]), children[1], span=self._span(meta))

    def comp_for(self, meta, children):
        var, iterable, cond = children
        return ForClause(self._ident(var), iterable, cond, span=self._span(meta))

    def field(self, meta, children):
        return Field(children[0], self._ident(children[1]), span=self._span(meta))

    def index(self, meta, children):
        return Index(children[0], children[1], span=self._span(meta))

    def int_lit(self, meta, children):
        self._check_digits(children[0])
        value = int(children[0])
        if _too_big(value):
            raise DiagnosticError(error("E509", f"number has more than {MAX_INT_BITS} bits",
                                        self._tok_span(children[0])))
        return IntLit(value, span=self._span(meta))

    def decimal_lit(self, meta, children):
        self._check_digits(children[0])
        value = Fraction(str(children[0]))
        if _too_big(value.numerator) or _too_big(value.denominator):
            raise DiagnosticError(error("E509", f"number has more than {MAX_INT_BITS} bits",
                                        self._tok_span(children[0])))
        return DecimalLit(value, span=self._span(meta))

    def _check_digits(self, token) -> None:
        """E509 for a number written with more digits than any number the language keeps."""
        digits = sum(ch.isdigit() for ch in str(token))
        if digits > MAX_NUMBER_DIGITS:
            raise DiagnosticError(error(
                "E509", f"number written with {digits} digits; at most {MAX_NUMBER_DIGITS} are allowed "
                        f"(numbers are limited to {MAX_INT_BITS} bits)", self._tok_span(token)))

    def string_lit(self, meta, children):
        return self._string(children[0])

    def true_lit(self, meta, children):
        return BoolLit(True, span=self._span(meta))

    def false_lit(self, meta, children):
        return BoolLit(False, span=self._span(meta))

    def none_lit(self, meta, children):
        return NoneLit(span=self._span(meta))

    def _dice(self, tok: Token) -> DiceLit:
        self._check_digits(tok)  # thousands of dice digits are past what Python turns into an int
        count_text, sides_text = str(tok).split("d")
        count = int(count_text) if count_text else 1
        sides = int(sides_text)
        span = self._tok_span(tok)
        if count < 1 or count > MAX_DICE:
            raise DiagnosticError(error("P009", f"a dice literal rolls 1 to {MAX_DICE} dice, not {count}", span))
        if sides < 2 or sides > MAX_DIE_SIDES:
            raise DiagnosticError(error("P009", f"a die has 2 to {MAX_DIE_SIDES} sides, not {sides}", span))
        return DiceLit(count, sides, span=span)

    def dice_lit(self, meta, children):
        return self._dice(children[0])

    def name(self, meta, children):
        return Name(str(children[0]), span=self._span(meta))

    def list_lit(self, meta, children):
        return ListLit(tuple(c for c in children if c is not None), span=self._span(meta))

    def set_lit(self, meta, children):
        return SetLit(tuple(c for c in children if c is not None), span=self._span(meta))

    def list_comp(self, meta, children):
        elt, *clauses = children
        return Comprehension("list", elt, tuple(clauses), span=self._span(meta))

    def set_comp(self, meta, children):
        elt, *clauses = children
        return Comprehension("set", elt, tuple(clauses), span=self._span(meta))

    def record(self, meta, children):
        fields = tuple(c for c in children if c is not None)
        seen: set[str] = set()
        for name, _ in fields:
            if name.text in seen:
                raise DiagnosticError(error("P007", f"field '{name.text}' is given twice", name.span))
            seen.add(name.text)
        return RecordLit(fields, span=self._span(meta))

    def record_field(self, meta, children):
        key, value = children
        if key.type == "STRING":
            ident = ast.Ident(self._plain(key), span=self._tok_span(key))
        else:
            ident = self._ident(key)
        return (ident, value)

    def explain_expr(self, meta, children):
        return Explain(children[0], span=self._span(meta))


def _trim_end(text: str, start: int, end: int) -> int:
    """Statements end with their newline (and any comment); a span should stop at the last code."""
    while True:
        while end > start and text[end - 1] in " \t\r\n":
            end -= 1
        line_start = text.rfind("\n", start, end) + 1
        line = text[max(line_start, start):end]
        cut = _comment_start(line)
        if cut is None:
            return end
        end = max(line_start, start) + cut


def _comment_start(line: str) -> int | None:
    in_text = False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and in_text:
            i += 2
            continue
        if ch == '"':
            in_text = not in_text
        elif ch == "#" and not in_text:
            return i
        i += 1
    return None


class _Many(list):
    """Several declarations written on one line (`player A, B`)."""


def _flatten(items):
    out = []
    for item in items:
        if isinstance(item, _Many):
            out.extend(item)
        else:
            out.append(item)
    return tuple(out)


def _transform(transformer: _ToAst, tree: Tree):
    try:
        return transformer.transform(tree)
    except VisitError as exc:
        # lark wraps what a callback raises; a located diagnostic is what the caller wants.
        if isinstance(exc.orig_exc, DiagnosticError):
            raise exc.orig_exc from None
        raise


def to_module(tree: Tree, source: Source, parse_fragment: ParseFragment) -> Module:
    """Transform a parsed file into a Module; `parse_fragment` parses its text interpolations."""
    module = _transform(_ToAst(source, parse_fragment), tree)
    return Module(module.header, _flatten(module.items), span=module.span)


def to_expr(tree: Tree, source: Source, parse_fragment: ParseFragment, base: int = 0) -> Expr:
    """Transform a parsed lone expression; `parse_fragment` parses its text interpolations."""
    return _transform(_ToAst(source, parse_fragment, base), tree)
