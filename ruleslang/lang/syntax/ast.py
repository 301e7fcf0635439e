"""The abstract syntax tree's ground: frozen dataclasses, every node with its span.

Nothing here knows lark. Spans are excluded from equality, so two nodes compare equal when they
say the same thing wherever they are written (the semantic diff relies on this). This module holds
what every node shares (`Node`, `node`, `Ident`) and the walks over a tree; the nodes themselves
are in `expressions`, `statements` and `declarations` (type expressions and the module too).
"""

from __future__ import annotations

from dataclasses import MISSING, FrozenInstanceError, dataclass, field, fields
from ruleslang.base.source import Span


# Every node class is a dataclass whose equality, hash and repr are Node's own (one copy for all,
# where the dataclass decorator would generate three functions per class: importing this module,
# which every command does, is a third as long). They read the same fields the generated ones
# would: every field but the span, so two nodes are equal when they say the same thing wherever
# they are written. Nodes are frozen as a frozen dataclass is (Node's __setattr__ and __delattr__
# refuse), and their __init__s, the ones `dataclass` would write, are made for all the classes at
# once at the end of each module of nodes (`give_inits`), compiled when its first node is made: per
# class, as the decorator makes them, they were most of the time every command spends importing the AST.
_node_class = dataclass(init=False, eq=False, repr=False)


# Every node class by its name (each is unique across the modules of nodes): the parse cache
# names classes so (astcodec).
NODE_CLASSES: dict[str, type] = {}


def node(cls: type) -> type:
    """Make `cls` a node class (a dataclass as above). A class without a docstring gets a plain one:
    `dataclass` would write one from the class's signature, through `inspect`, which cost more
    than everything else it does for a node class."""
    if cls.__doc__ is None:
        cls.__doc__ = f"A {cls.__name__} node."
    NODE_CLASSES[cls.__name__] = cls
    return _node_class(cls)


@node
class Node:
    span: Span = field(kw_only=True, repr=False)

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in field_names(self.__class__))

    def __hash__(self):
        return hash((self.__class__.__name__, *[getattr(self, n) for n in field_names(self.__class__)]))

    def __repr__(self):
        return f"{self.__class__.__name__}(" + ", ".join(
            f"{n}={getattr(self, n)!r}" for n in field_names(self.__class__)) + ")"


@node
class Ident(Node):
    """A name as written, with its own span (declaration names, parameters, fields)."""

    text: str


def give_inits(namespace: dict) -> None:
    """Give each node class defined in the module of `namespace` (its globals) the __init__ a
    frozen dataclass would have (its fields in order, the keyword-only ones after `*`, defaults as
    declared), compiled together in one piece of code. Each module of nodes calls it at its end.

    They are compiled when the first node of the module is made: a command that reads its programs
    back from the cache (a warm `call`) makes none, and compiling them was most of what importing
    the AST cost it."""
    classes = [c for c in list(namespace.values())
               if isinstance(c, type) and issubclass(c, Node) and c.__module__ == namespace["__name__"]]
    for cls in classes:
        for f in fields(cls):
            if f.default is MISSING and f.default_factory is not MISSING:
                raise TypeError(f"{cls.__name__}.{f.name}: a node field takes a default value, not a factory")
    made: list = []

    def compiled(cls: type):
        if not made:  # the first node of the module: every class's __init__ at once
            made.append(_compile_inits(classes))
        return cls.__dict__["__init__"]

    for cls in classes:
        type.__setattr__(cls, "__init__", _first_init(cls, compiled))


def _first_init(cls: type, compiled):
    """`cls`'s __init__ until the module's are compiled: compiles them, then makes the node."""
    def __init__(self, *args, **kwargs):
        compiled(cls)(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _compile_inits(classes: list[type]) -> None:
    """The __init__s of `classes` (node classes of one module), compiled together and set on them."""
    env: dict = {"_set": object.__setattr__}
    code = []
    for cls in classes:
        params, keywords, body = [], [], []
        for f in fields(cls):
            param = f.name
            if f.default is not MISSING:
                env[f"_{cls.__name__}_{f.name}"] = f.default
                param += f"=_{cls.__name__}_{f.name}"
            (keywords if f.kw_only else params).append(param)
            body.append(f"    _set(self, {f.name!r}, {f.name})")
        signature = ", ".join(["self", *params, *(["*", *keywords] if keywords else [])])
        code.append(f"def _init_{cls.__name__}({signature}):\n" + "\n".join(body or ["    pass"]))
    exec("\n".join(code), env)
    for cls in classes:
        init = env[f"_init_{cls.__name__}"]
        init.__qualname__ = f"{cls.__qualname__}.__init__"
        type.__setattr__(cls, "__init__", init)


give_inits(globals())


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """The fields of node class `cls` in order, without its span (looked up once per class: the
    checker walks the tree many times, and `dataclasses.fields` is slow)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls) if f.name != "span")
    return names


def children(node: Node):
    """Yield the direct child nodes of `node` (through tuples), in field order."""
    return iter(_children(node))


def _children(node: Node) -> list[Node]:
    """The direct child nodes of `node` as a list (the walks of the checker: no generator per node)."""
    out: list[Node] = []
    for name in field_names(type(node)):
        value = getattr(node, name)
        if isinstance(value, Node):
            out.append(value)
        elif isinstance(value, tuple) and value:
            _collect(value, out)
    return out


def _collect(items: tuple, out: list) -> None:
    for item in items:
        if isinstance(item, Node):
            out.append(item)
        elif isinstance(item, tuple):
            _collect(item, out)


def walk(node: Node):
    """Yield `node` and every node below it, depth first."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        below = _children(current)
        if below:
            below.reverse()
            stack.extend(below)


def dump(node) -> str:
    """A one-line S-expression of a node, without spans (parse-shape tests compare these)."""
    if isinstance(node, Node):
        parts = [type(node).__name__]
        for f in fields(node):
            if f.name == "span":
                continue
            parts.append(dump(getattr(node, f.name)))
        return "(" + " ".join(parts) + ")"
    if isinstance(node, tuple):
        return "[" + " ".join(dump(x) for x in node) + "]"
    if isinstance(node, str):
        return repr(node)
    if node is None:
        return "-"
    return str(node)
