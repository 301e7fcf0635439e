"""AST -> ruleslang text, in one canonical layout (for explanations, diffs and messages)."""

from __future__ import annotations

from ruleslang.lang.syntax.expressions import (BestOf, Binary, BoolLit, BoolOp, Call, Compare, Comprehension,
                                               DecimalLit, DiceLit, Explain, Field, If, In, Index, IntLit, Lambda,
                                               ListLit, Name, NoneLit, Not, Range, RecordLit, SetLit, StringLit,
                                               Unary)
from ruleslang.lang.syntax.declarations import ListType, NamedType, OptionalType, RecordType, SetType

# Binding strength: larger binds tighter.
_PREC = {"or": 1, "and": 2, "not": 3, "cmp": 4, "range": 5, "+": 6, "-": 6, "*": 7, "/": 7, "unary": 8,
         "best": 8, "postfix": 9, "atom": 10}


def _prec(node) -> int:
    if isinstance(node, (BoolOp, Binary)):
        return _PREC[node.op]
    if isinstance(node, Not):
        return _PREC["not"]
    if isinstance(node, (Compare, In)):
        return _PREC["cmp"]
    if isinstance(node, Range):
        return _PREC["range"]
    if isinstance(node, Unary):
        return _PREC["unary"]
    if isinstance(node, BestOf):
        return _PREC["best"]
    if isinstance(node, (If, Lambda)):
        return 0
    if isinstance(node, (Call, Field, Index)):
        return _PREC["postfix"]
    return _PREC["atom"]


def _wrap(node, min_prec: int) -> str:
    text = unparse(node)
    return f"({text})" if _prec(node) < min_prec else text


def _string(node: StringLit) -> str:
    out = []
    for part in node.parts:
        if isinstance(part, str):
            out.append(part.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
                       .replace("{", "{{").replace("}", "}}"))
        else:
            out.append("{" + unparse(part) + "}")
    return '"' + "".join(out) + '"'


def _clauses(clauses) -> str:
    parts = []
    for c in clauses:
        text = f"for {c.var.text} in {_wrap(c.iterable, 1)}"
        if c.condition is not None:
            text += f" where {_wrap(c.condition, 1)}"
        parts.append(text)
    return " ".join(parts)


def unparse(node) -> str:
    """The expression (or type) as ruleslang text."""
    if isinstance(node, IntLit):
        return str(node.value)
    if isinstance(node, DecimalLit):
        v = node.value
        return str(float(v)) if v.denominator in (2, 4, 5, 8, 10, 20, 25, 50, 100) else f"{v.numerator}/{v.denominator}"
    if isinstance(node, StringLit):
        return _string(node)
    if isinstance(node, BoolLit):
        return "true" if node.value else "false"
    if isinstance(node, NoneLit):
        return "none"
    if isinstance(node, DiceLit):
        return f"{node.count if node.count > 1 else ''}d{node.sides}"
    if isinstance(node, Name):
        return node.id
    if isinstance(node, Call):
        args = [unparse(a) if not (isinstance(a, Comprehension) and a.kind == "gen")
                else f"{unparse(a.element)} {_clauses(a.clauses)}" for a in node.args]
        args += [f"{k.name.text}: {unparse(k.value)}" for k in node.kwargs]
        return f"{_wrap(node.func, 9)}({', '.join(args)})"
    if isinstance(node, Field):
        return f"{_wrap(node.obj, 9)}.{node.name.text}"
    if isinstance(node, Index):
        return f"{_wrap(node.obj, 9)}[{unparse(node.index)}]"
    if isinstance(node, Unary):
        return f"{node.op}{_wrap(node.operand, 8)}"
    if isinstance(node, (Binary, BoolOp)):
        p = _PREC[node.op]
        return f"{_wrap(node.left, p)} {node.op} {_wrap(node.right, p + 1)}"
    if isinstance(node, Compare):
        return f"{_wrap(node.left, 5)} {node.op} {_wrap(node.right, 5)}"
    if isinstance(node, In):
        return f"{_wrap(node.element, 5)} {'not in' if node.negated else 'in'} {_wrap(node.collection, 5)}"
    if isinstance(node, Not):
        return f"not {_wrap(node.operand, 3)}"
    if isinstance(node, Range):
        return f"{_wrap(node.lo, 6)}..{_wrap(node.hi, 6) if node.hi is not None else ''}"
    if isinstance(node, If):
        then = f"({unparse(node.then)})" if isinstance(node.then, If) else unparse(node.then)
        return f"if {unparse(node.cond)} then {then} else {unparse(node.else_)}"
    if isinstance(node, Lambda):
        return f"{node.param.text} => {unparse(node.body)}"
    if isinstance(node, ListLit):
        return "[" + ", ".join(unparse(i) for i in node.items) + "]"
    if isinstance(node, SetLit):
        return "{" + ", ".join(unparse(i) for i in node.items) + "}"
    if isinstance(node, RecordLit):
        return "{" + ", ".join(f"{_field_name(i.text)}: {unparse(v)}" for i, v in node.fields) + "}"
    if isinstance(node, Comprehension):
        inner = f"{unparse(node.element)} {_clauses(node.clauses)}"
        return {"list": f"[{inner}]", "set": "{" + inner + "}", "gen": inner}[node.kind]
    if isinstance(node, BestOf):
        return f"{node.kind} {_wrap(node.count, 8)} of {_wrap(node.collection, 8)}"
    if isinstance(node, Explain):
        return f"explain({unparse(node.expr)})"
    return unparse_type(node)


def _field_name(text: str) -> str:
    return text if text.isidentifier() else '"' + text + '"'


def unparse_type(node) -> str:
    if isinstance(node, NamedType):
        return node.name
    if isinstance(node, OptionalType):
        return node.name + "?"
    if isinstance(node, SetType):
        return "set of " + unparse_type(node.element)
    if isinstance(node, ListType):
        return "list of " + unparse_type(node.element)
    if isinstance(node, RecordType):
        return "{" + ", ".join(f"{i.text}: {unparse_type(t)}" for i, t in node.fields) + "}"
    if node is None:
        return "-"
    return type(node).__name__


def signature(decl) -> str:
    """`raid_cap(t: territory) -> int` for callable declarations."""
    params = getattr(decl, "params", None)
    text = decl.name.text
    if params is not None:
        text += "(" + ", ".join(f"{p.name.text}: {unparse_type(p.type)}" for p in params) + ")"
    result = getattr(decl, "result", None)
    if result is not None:
        text += " -> " + unparse_type(result)
    return text
