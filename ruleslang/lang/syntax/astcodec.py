"""A parsed ruleset as data, so that a later process can skip parsing it (the parse cache).

Parsing is most of what a command pays before it runs a rule: lark's LALR parser builds a tree
token by token, and the shipped rulesets are some 35,000 nodes. `encode` writes a module's AST as
JSON (a node as its class's number, its span's offsets and its fields in order; a tuple and a
fraction tagged) and `decode` builds the same AST again, its spans in the source it is handed.

Safe by construction: JSON cannot carry code, and `decode` instantiates only the AST's own node
classes, named in the payload and checked against `ast.NODE_CLASSES` (their field names too), so
a payload from an older layout or from somewhere else is refused (None), never trusted. The cache file
around it is checked whole before it is read (base/cache.py).
"""

from __future__ import annotations

import json
from fractions import Fraction

from ruleslang.base.source import Source, Span
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.declarations import Module

FORMAT = 1
_TUPLE, _FRACTION = -1, -2


def encode(module: Module) -> bytes | None:
    """The module as JSON bytes, or None when it holds something the format does not carry
    (a span in another source)."""
    classes: dict[type, int] = {}
    names_of: dict[type, tuple[str, ...]] = {}
    source = module.span.source

    def enc(value):
        if isinstance(value, ast.Node):
            cls = type(value)
            index = classes.get(cls)
            if index is None:
                index = classes[cls] = len(classes)
                names_of[cls] = ast.field_names(cls)
            span = value.span
            if span.source is not source:
                raise ValueError("a span in another source")
            return [index, span.start, span.end, *[enc(getattr(value, n)) for n in names_of[cls]]]
        if isinstance(value, tuple):
            return [_TUPLE, *[enc(x) for x in value]]
        if isinstance(value, Fraction):
            return [_FRACTION, value.numerator, value.denominator]
        if value is None or isinstance(value, (str, bool, int)):
            return value
        raise ValueError(f"a {type(value).__name__} in the tree")

    try:
        tree = enc(module)
    except (ValueError, RecursionError):
        return None
    table = [[cls.__name__, list(names_of[cls])] for cls in classes]
    return json.dumps({"format": FORMAT, "classes": table, "tree": tree}, separators=(",", ":")).encode("utf-8")


def decode(payload: bytes, source: Source) -> Module | None:
    """The module `encode` wrote, its spans in `source`; None when the payload is not one this
    version of the AST can read."""
    try:
        doc = json.loads(payload)
        if doc.get("format") != FORMAT:
            return None
        classes = []
        for name, names in doc["classes"]:
            cls = ast.NODE_CLASSES.get(name)
            if not (isinstance(cls, type) and issubclass(cls, ast.Node)) or tuple(names) != ast.field_names(cls):
                return None
            classes.append((cls, tuple(names)))
        new = object.__new__

        def dec(value):
            if type(value) is not list:
                return value
            tag = value[0]
            if tag >= 0:
                cls, names = classes[tag]
                if len(value) != 3 + len(names):
                    raise ValueError(f"{cls.__name__} with {len(value) - 3} fields")
                node = new(cls)
                # the frozen dataclass's own fields, set as its generated __init__ would set them
                attrs = node.__dict__
                attrs["span"] = Span(source, value[1], value[2])
                for n, x in zip(names, value[3:]):
                    attrs[n] = dec(x) if type(x) is list else x
                return node
            if tag == _TUPLE:
                return tuple([dec(x) if type(x) is list else x for x in value[1:]])
            if tag == _FRACTION:
                return Fraction(value[1], value[2])
            raise ValueError(f"unknown tag {tag}")

        module = dec(doc["tree"])
    except (ValueError, KeyError, IndexError, TypeError, RecursionError):
        return None
    return module if isinstance(module, Module) else None
