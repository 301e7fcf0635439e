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

    def _string(self, tok: Token) -> ast.StringLit:
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
        return ast.StringLit(tuple(parts), span=self._tok_span(tok))

    def _plain(self, tok: Token) -> str:
        lit = self._string(tok)
        if not lit.is_plain:
            raise DiagnosticError(error("P006", "interpolation '{...}' is not allowed here",
                                        lit.span, hint="write {{ and }} for literal braces"))
        return lit.plain

    # ---------------------------------------------------------------------------- module

    def start(self, meta, children):
        header, *items = children
        return ast.Module(header, tuple(items), span=self._span(meta))

    def header(self, meta, children):
        ref, *items = children
        seen: dict[str, Span] = {}
        values: dict = {"title": None, "source_note": None, "change_note": None, "revises": None, "map": None}
        uses: list[ast.RefLit] = []
        for kind, value, span in items:
            if kind == "uses":
                uses.extend(value)
                continue
            if kind in seen:
                word = {"source_note": "source", "change_note": "note"}.get(kind, kind)
                raise DiagnosticError(error("P007", f"'{word}' is given twice in the ruleset header", span))
            seen[kind] = span
            values[kind] = value
        return ast.Header(ref, values["title"], values["source_note"], values["change_note"],
                          values["revises"], tuple(uses), values["map"], span=self._span(meta))

    def ref(self, meta, children):
        (tok,) = children
        if tok.type == "STRING":
            return ast.RefLit(self._plain(tok), True, span=self._tok_span(tok))
        return ast.RefLit(str(tok), False, span=self._tok_span(tok))

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
            return _Many([ast.Override(d, span=d.span) for d in decl])
        return ast.Override(decl, span=self._span(meta))

    def remove_decl(self, meta, children):
        return ast.Remove(self._ident(children[0]), span=self._span(meta))

    def name_list(self, meta, children):
        return [self._ident(t) for t in children]

    def player_decl(self, meta, children):
        names = children[0]
        if len(names) == 1:
            return ast.PlayerDecl(names[0], span=self._span(meta))
        return _Many([ast.PlayerDecl(n, span=n.span) for n in names])

    def tag_decl(self, meta, children):
        names = children[0]
        if len(names) == 1:
            return ast.TagDecl(names[0], span=self._span(meta))
        return _Many([ast.TagDecl(n, span=n.span) for n in names])

    def side_decl(self, meta, children):
        name, members = children
        return ast.SideDecl(self._ident(name), tuple(members), span=self._span(meta))

    def enum_decl(self, meta, children):
        name, members = children
        return ast.EnumDecl(self._ident(name), tuple(members), span=self._span(meta))

    def type_decl(self, meta, children):
        name, typ = children
        return ast.TypeDecl(self._ident(name), typ, span=self._span(meta))

    def attribute_decl(self, meta, children):
        name, typ, default = children
        return ast.AttributeDecl(self._ident(name), typ, default, False, span=self._span(meta))

    def space_attribute_decl(self, meta, children):
        name, typ, default = children
        return ast.AttributeDecl(self._ident(name), typ, default, True, span=self._span(meta))

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
        return ast.UnitDecl(self._ident(name), self._plain(title) if title is not None else None,
                            tuple(attrs), tags, span=self._span(meta))

    def unit_attr(self, meta, children):
        name, value = children
        return (self._ident(name), value, self._span(meta))

    def unit_tags(self, meta, children):
        return ("tags", children[0], self._span(meta))

    def option_decl(self, meta, children):
        name, typ, default, desc = children
        return ast.OptionDecl(self._ident(name), typ, default,
                              self._plain(desc) if desc is not None else None, span=self._span(meta))

    def constant_decl(self, meta, children):
        name, typ, value = children
        return ast.ConstantDecl(self._ident(name), typ, value, span=self._span(meta))

    def fact_decl(self, meta, children):
        name, typ, default = children
        return ast.FactDecl(self._ident(name), typ, default, span=self._span(meta))

    def counter_decl(self, meta, children):
        name, params, typ, default = children
        return ast.CounterDecl(self._ident(name), tuple(params or ()), typ, default, span=self._span(meta))

    def params(self, meta, children):
        return tuple(c for c in children if c is not None)

    def param(self, meta, children):
        name, typ = children
        return ast.Param(self._ident(name), typ, span=self._span(meta))

    def columns(self, meta, children):
        return ("columns", children[0])

    def table_decl(self, meta, children):
        name, params, result, *rows = children
        if isinstance(result, tuple) and result and result[0] == "columns":
            columns, result_type = tuple(result[1]), None
        else:
            columns, result_type = None, result
        return ast.TableDecl(self._ident(name), tuple(params), columns, result_type, tuple(rows),
                             span=self._span(meta))

    def die_table_decl(self, meta, children):
        name, dice_tok, result, *rows = children
        dice = self._dice(dice_tok)
        return ast.DieTableDecl(self._ident(name), dice, result, tuple(rows), span=self._span(meta))

    def table_row(self, meta, children):
        keys, *values = children
        return ast.TableRow(tuple(keys), tuple(values), span=self._span(meta))

    def key_cells(self, meta, children):
        return list(children)

    def open_range(self, meta, children):
        return ast.Range(children[0], None, span=self._span(meta))

    def formula_decl(self, meta, children):
        name, params, result, *body = children
        *lets, expr = body
        return ast.FormulaDecl(self._ident(name), tuple(params) if params is not None else None,
                               result, tuple(lets), expr, span=self._span(meta))

    def modifiers_decl(self, meta, children):
        name, params, result, *items = children
        return ast.ModifiersDecl(self._ident(name), tuple(params) if params is not None else None,
                                 result, tuple(items), span=self._span(meta))

    def mod_term(self, meta, children):
        sign, value, cond, reason = children
        return ast.ModTerm(str(sign), value, cond, self._string(reason), span=self._span(meta))

    def runtime_procedure(self, meta, children):
        name, config = children
        return ast.RuntimeProcedure(self._ident(name), config, span=self._span(meta))

    def custom_procedure(self, meta, children):
        return ast.CustomProcedure(children[0], span=self._span(meta))

    def phase_decl(self, meta, children):
        name, proc = children
        return ast.PhaseDecl(self._ident(name), proc, span=self._span(meta))

    def step_decl(self, meta, children):
        name, proc = children
        return ast.StepDecl(self._ident(name), proc, span=self._span(meta))

    def sequence_decl(self, meta, children):
        name, items = children
        return ast.SequenceDecl(self._ident(name), tuple(items), span=self._span(meta))

    def hook_when(self, meta, children):
        return " ".join(str(t) for t in children)

    def target(self, meta, children):
        phase, step = (children + [None])[:2]
        return ast.HookTarget(self._ident(phase), self._ident(step) if step is not None else None,
                              span=self._span(meta))

    def hook_decl(self, meta, children):
        name, when, target, players, cond, body = children
        return ast.HookDecl(self._ident(name), when, target, players, cond, body, span=self._span(meta))

    def constraint_decl(self, meta, children):
        name, action, params, body = children
        return ast.ConstraintDecl(self._ident(name), self._ident(action), tuple(params or ()), body,
                                  span=self._span(meta))

    def check_severity(self, meta, children):
        return str(children[0])

    def check_decl(self, meta, children):
        severity, title_tok, body = children
        title = self._plain(title_tok)
        ident = ast.Ident(title, span=self._tok_span(title_tok))
        if isinstance(body, ast.Block):
            return ast.CheckDecl(ident, severity or "error", title, None, body, span=self._span(meta))
        return ast.CheckDecl(ident, severity or "error", title, body, None, span=self._span(meta))

    def advice_decl(self, meta, children):
        target, params, *body = children
        *lets, expr = body
        ident = ast.Ident(target.text, span=target.span)
        return ast.AdviceDecl(ident, target, tuple(params) if params is not None else None, tuple(lets), expr,
                              span=self._span(meta))

    def test_decl(self, meta, children):
        title_tok, *lines = children
        title = self._plain(title_tok)
        return ast.TestDecl(ast.Ident(title, span=self._tok_span(title_tok)), title, tuple(lines),
                            span=self._span(meta))

    def test_scenario(self, meta, children):
        ref, changes = children
        return ast.TestScenario(ref, changes, span=self._span(meta))

    def test_option(self, meta, children):
        name, value = children
        return ast.TestOption(self._ident(name), value, span=self._span(meta))

    def test_answer(self, meta, children):
        target, value = children
        return ast.TestAnswer(target, value, span=self._span(meta))

    def test_seed(self, meta, children):
        return ast.TestSeed(int(children[0]), span=self._span(meta))

    def test_fact(self, meta, children):
        name, value = children
        return ast.TestFact(self._ident(name), value, span=self._span(meta))

    def test_battle(self, meta, children):
        space, attacker, sea_zone = children
        return ast.TestBattle(space, attacker, sea_zone, span=self._span(meta))

    def test_next_round(self, meta, children):
        return ast.TestNextRound(span=self._span(meta))

    def test_run(self, meta, children):
        name, player = children
        return ast.TestRun(self._ident(name), player, span=self._span(meta))

    def test_expect(self, meta, children):
        return ast.Expect(children[0], span=self._span(meta))

    def test_expect_error(self, meta, children):
        pattern, expr = children
        return ast.ExpectError(self._plain(pattern), expr, span=self._span(meta))

    def test_expect_run_error(self, meta, children):
        pattern, name, player = children
        run = ast.TestRun(self._ident(name), player, span=self._span(meta))
        return ast.ExpectError(self._plain(pattern), run, span=self._span(meta))

    def test_expect_allowed(self, meta, children):
        name, args = children
        return ast.ExpectAction(self._ident(name), tuple(self._plain_args(args)), True, None, span=self._span(meta))

    def test_expect_refused(self, meta, children):
        name, args, pattern = children
        return ast.ExpectAction(self._ident(name), tuple(self._plain_args(args)), False,
                                self._plain(pattern) if pattern is not None else None, span=self._span(meta))

    def test_do(self, meta, children):
        name, args = children
        return ast.ExpectAction(self._ident(name), tuple(self._plain_args(args)), True, None, apply=True,
                                span=self._span(meta))

    def test_constraints_only(self, meta, children):
        return ast.TestConstraintsOnly(span=self._span(meta))

    def _plain_args(self, args):
        if args is None:
            return []
        if isinstance(args, ast.Comprehension):
            raise DiagnosticError(error("P008", "an action takes plain arguments", args.span))
        for a in args:
            if isinstance(a, ast.KeywordArg):
                raise DiagnosticError(error("P008", "an action takes its arguments by position", a.span))
        return args

    # ------------------------------------------------------------------------- statements

    def block(self, meta, children):
        return ast.Block(tuple(children), span=self._span(meta))

    def let_line(self, meta, children):
        name, value = children
        return ast.Let(self._ident(name), value, span=self._span(meta))

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
        return ast.Choose(self._ident(name), mode, count, options, player,
                          self._string(prompt) if prompt is not None else None, span=self._span(meta))

    def require_stmt(self, meta, children):
        cond, message = (children + [None])[:2]
        return ast.Require(cond, message, span=self._span(meta))

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
        return ast.IfStmt(tuple(branches), else_block, span=self._span(meta))

    def elif_clause(self, meta, children):
        return ("elif", children[0], children[1])

    def else_clause(self, meta, children):
        return ("else", children[0])

    def for_stmt(self, meta, children):
        var, iterable, cond, body = children
        return ast.ForStmt(self._ident(var), iterable, cond, body, span=self._span(meta))

    def change_effect(self, meta, children):
        return ast.ChangeEffect(children[0], children[1], span=self._span(meta))

    def set_effect(self, meta, children):
        return ast.SetEffect(children[0], children[1], span=self._span(meta))

    def add_effect(self, meta, children):
        count, type_tok, space, owner = children
        name = ast.Name(str(type_tok), span=self._tok_span(type_tok))
        return ast.AddEffect(count, name, space, owner, span=self._span(meta))

    def remove_effect(self, meta, children):
        return ast.RemoveEffect(children[0], span=self._span(meta))

    def move_effect(self, meta, children):
        return ast.MoveEffect(children[0], children[1], span=self._span(meta))

    def log_effect(self, meta, children):
        return ast.LogEffect(children[0], span=self._span(meta))

    def win_effect(self, meta, children):
        winner, reason = children
        return ast.WinEffect(winner, self._string(reason) if reason is not None else None, span=self._span(meta))

    def hit_effect(self, meta, children):
        count, units, chooser, now = children
        return ast.HitEffect(count, units, chooser, now is not None, span=self._span(meta))

    def submerge_effect(self, meta, children):
        return ast.SubmergeEffect(children[0], span=self._span(meta))

    def retreat_effect(self, meta, children):
        return ast.RetreatEffect(children[0], span=self._span(meta))

    def run_effect(self, meta, children):
        return ast.RunEffect(self._ident(children[0]), span=self._span(meta))

    # ------------------------------------------------------------------------------ types

    def named_type(self, meta, children):
        return ast.NamedType(str(children[0]), span=self._span(meta))

    def optional_type(self, meta, children):
        return ast.OptionalType(str(children[0]), span=self._span(meta))

    def set_type(self, meta, children):
        return ast.SetType(children[0], span=self._span(meta))

    def list_type(self, meta, children):
        return ast.ListType(children[0], span=self._span(meta))

    def record_type(self, meta, children):
        fields = tuple(c for c in children if c is not None)
        seen: set[str] = set()
        for name, _ in fields:
            if name.text in seen:
                raise DiagnosticError(error("P007", f"field '{name.text}' is given twice", name.span))
            seen.add(name.text)
        return ast.RecordType(fields, span=self._span(meta))

    def type_field(self, meta, children):
        return (self._ident(children[0]), children[1])

    # ------------------------------------------------------------------------ expressions

    def if_expr(self, meta, children):
        return ast.If(*children, span=self._span(meta))

    def lambda_expr(self, meta, children):
        return ast.Lambda(self._ident(children[0]), children[1], span=self._span(meta))

    def or_op(self, meta, children):
        return ast.BoolOp("or", children[0], children[1], span=self._span(meta))

    def and_op(self, meta, children):
        return ast.BoolOp("and", children[0], children[1], span=self._span(meta))

    def not_op(self, meta, children):
        return ast.Not(children[0], span=self._span(meta))

    def compare(self, meta, children):
        left, op, right = children
        return ast.Compare(str(op), left, right, span=self._span(meta))

    def in_op(self, meta, children):
        return ast.In(children[0], children[1], False, span=self._span(meta))

    def not_in_op(self, meta, children):
        return ast.In(children[0], children[1], True, span=self._span(meta))

    def range_op(self, meta, children):
        return ast.Range(children[0], children[1], span=self._span(meta))

    def arith(self, meta, children):
        left, op, right = children
        return ast.Binary(str(op), left, right, span=self._span(meta))

    def unary_op(self, meta, children):
        op, operand = children
        return ast.Unary(str(op), operand, span=self._span(meta))

    def best_kind(self, meta, children):
        return str(children[0])

    def best_of(self, meta, children):
        kind, count, coll = children
        return ast.BestOf(kind, count, coll, span=self._span(meta))

    def call(self, meta, children):
        func, args = children
        span = self._span(meta)
        if args is None:
            return ast.Call(func, (), (), span=span)
        if isinstance(args, ast.Comprehension):
            return ast.Call(func, (args,), (), span=span)
        positional, keywords = [], []
        for arg in args:
            if isinstance(arg, ast.KeywordArg):
                if any(k.name.text == arg.name.text for k in keywords):
                    raise DiagnosticError(error("P007", f"argument '{arg.name.text}' is given twice", arg.span))
                keywords.append(arg)
            else:
                if keywords:
                    raise DiagnosticError(error(
                        "P008", "a positional argument cannot follow a named one", arg.span))
                positional.append(arg)
        return ast.Call(func, tuple(positional), tuple(keywords), span=span)

    def args(self, meta, children):
        return [c for c in children if c is not None]

    def generator_args(self, meta, children):
        elt, *clauses = children
        return ast.Comprehension("gen", elt, tuple(clauses), span=self._span(meta))

    def keyword_arg(self, meta, children):
        return ast.KeywordArg(self._ident(children[0]), children[1], span=self._span(meta))

    def comp_for(self, meta, children):
        var, iterable, cond = children
        return ast.ForClause(self._ident(var), iterable, cond, span=self._span(meta))

    def field(self, meta, children):
        return ast.Field(children[0], self._ident(children[1]), span=self._span(meta))

    def index(self, meta, children):
        return ast.Index(children[0], children[1], span=self._span(meta))

    def int_lit(self, meta, children):
        self._check_digits(children[0])
        value = int(children[0])
        if _too_big(value):
            raise DiagnosticError(error("E509", f"number has more than {MAX_INT_BITS} bits",
                                        self._tok_span(children[0])))
        return ast.IntLit(value, span=self._span(meta))

    def decimal_lit(self, meta, children):
        self._check_digits(children[0])
        value = Fraction(str(children[0]))
        if _too_big(value.numerator) or _too_big(value.denominator):
            raise DiagnosticError(error("E509", f"number has more than {MAX_INT_BITS} bits",
                                        self._tok_span(children[0])))
        return ast.DecimalLit(value, span=self._span(meta))

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
        return ast.BoolLit(True, span=self._span(meta))

    def false_lit(self, meta, children):
        return ast.BoolLit(False, span=self._span(meta))

    def none_lit(self, meta, children):
        return ast.NoneLit(span=self._span(meta))

    def _dice(self, tok: Token) -> ast.DiceLit:
        self._check_digits(tok)  # thousands of dice digits are past what Python turns into an int
        count_text, sides_text = str(tok).split("d")
        count = int(count_text) if count_text else 1
        sides = int(sides_text)
        span = self._tok_span(tok)
        if count < 1 or count > MAX_DICE:
            raise DiagnosticError(error("P009", f"a dice literal rolls 1 to {MAX_DICE} dice, not {count}", span))
        if sides < 2 or sides > MAX_DIE_SIDES:
            raise DiagnosticError(error("P009", f"a die has 2 to {MAX_DIE_SIDES} sides, not {sides}", span))
        return ast.DiceLit(count, sides, span=span)

    def dice_lit(self, meta, children):
        return self._dice(children[0])

    def name(self, meta, children):
        return ast.Name(str(children[0]), span=self._span(meta))

    def list_lit(self, meta, children):
        return ast.ListLit(tuple(c for c in children if c is not None), span=self._span(meta))

    def set_lit(self, meta, children):
        return ast.SetLit(tuple(c for c in children if c is not None), span=self._span(meta))

    def list_comp(self, meta, children):
        elt, *clauses = children
        return ast.Comprehension("list", elt, tuple(clauses), span=self._span(meta))

    def set_comp(self, meta, children):
        elt, *clauses = children
        return ast.Comprehension("set", elt, tuple(clauses), span=self._span(meta))

    def record(self, meta, children):
        fields = tuple(c for c in children if c is not None)
        seen: set[str] = set()
        for name, _ in fields:
            if name.text in seen:
                raise DiagnosticError(error("P007", f"field '{name.text}' is given twice", name.span))
            seen.add(name.text)
        return ast.RecordLit(fields, span=self._span(meta))

    def record_field(self, meta, children):
        key, value = children
        if key.type == "STRING":
            ident = ast.Ident(self._plain(key), span=self._tok_span(key))
        else:
            ident = self._ident(key)
        return (ident, value)

    def explain_expr(self, meta, children):
        return ast.Explain(children[0], span=self._span(meta))


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


def to_module(tree: Tree, source: Source, parse_fragment: ParseFragment) -> ast.Module:
    """Transform a parsed file into a Module; `parse_fragment` parses its text interpolations."""
    module = _transform(_ToAst(source, parse_fragment), tree)
    return ast.Module(module.header, _flatten(module.items), span=module.span)


def to_expr(tree: Tree, source: Source, parse_fragment: ParseFragment, base: int = 0) -> ast.Expr:
    """Transform a parsed lone expression; `parse_fragment` parses its text interpolations."""
    return _transform(_ToAst(source, parse_fragment, base), tree)
