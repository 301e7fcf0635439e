"""The types of ruleslang values, and the rules for when one may stand for another."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Type:
    """A ruleslang type."""

    def __str__(self) -> str:  # pragma: no cover - every subclass overrides
        return "type"


@dataclass(frozen=True)
class Prim(Type):
    """int, number (an exact fraction), bool, text."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class AnyType(Type):
    """A type not known because of an earlier error; compatible with everything."""

    def __str__(self) -> str:
        return "any"


@dataclass(frozen=True)
class NoneType(Type):
    """The type of `none`."""

    def __str__(self) -> str:
        return "none"


@dataclass(frozen=True)
class EnumType(Type):
    """A finite set of named values: player, side, space, unittype, tag or a declared enum."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class UnitType(Type):
    """A unit on the board (an instance, not a unit type)."""

    def __str__(self) -> str:
        return "unit"


@dataclass(frozen=True)
class RecordType(Type):
    """A record: named fields, each with its type."""

    fields: tuple[tuple[str, Type], ...]
    name: str | None = None  # the declared type name, for messages

    def field(self, name: str) -> Type | None:
        for fname, ftype in self.fields:
            if fname == name:
                return ftype
        return None

    def __str__(self) -> str:
        if self.name:
            return self.name
        return "{" + ", ".join(f"{n}: {t}" for n, t in self.fields) + "}"


@dataclass(frozen=True)
class SetType(Type):
    """A set of values of `element`."""

    element: Type

    def __str__(self) -> str:
        return f"set of {self.element}"


@dataclass(frozen=True)
class ListType(Type):
    """A list of values of `element`."""

    element: Type

    def __str__(self) -> str:
        return f"list of {self.element}"


@dataclass(frozen=True)
class OptionalType(Type):
    """A value of `inner`, or none."""

    inner: Type

    def __str__(self) -> str:
        return f"{self.inner}?"


@dataclass(frozen=True)
class DistType(Type):
    """A probability distribution over values of `element` (from `distribution(e)`)."""

    element: Type

    def __str__(self) -> str:
        return f"distribution of {self.element}"


@dataclass(frozen=True)
class FnType(Type):
    """A function argument of a built-in (`x => ...`)."""

    params: tuple[Type, ...]
    result: Type

    def __str__(self) -> str:
        return f"({', '.join(map(str, self.params))}) => {self.result}"


@dataclass(frozen=True)
class TableRefType(Type):
    """A table named as a value (`rows(vc)`, `roll(engaging)`)."""

    table: str
    row: Type
    key: Type
    die: bool = False

    def __str__(self) -> str:
        return f"table {self.table}"


INT = Prim("int")
NUMBER = Prim("number")
BOOL = Prim("bool")
TEXT = Prim("text")
ANY = AnyType()
NONE = NoneType()
UNIT = UnitType()
PLAYER = EnumType("player")
SIDE = EnumType("side")
SPACE = EnumType("space")
UNITTYPE = EnumType("unittype")
TAG = EnumType("tag")

BUILTIN_TYPE_NAMES: dict[str, Type] = {
    "int": INT,
    "number": NUMBER,
    "bool": BOOL,
    "text": TEXT,
    "player": PLAYER,
    "side": SIDE,
    "space": SPACE,
    # Territories and sea zones are spaces; the narrower names document intent and are
    # checked when a value arrives from outside (the command line, a scenario).
    "territory": SPACE,
    "seazone": SPACE,
    "unittype": UNITTYPE,
    "tag": TAG,
    "unit": UNIT,
}

# Which spaces a narrower parameter name admits, checked at the boundary.
SPACE_KIND_OF_NAME = {"territory": "land", "seazone": "sea"}


def is_numeric(t: Type) -> bool:
    return t in (INT, NUMBER) or isinstance(t, AnyType)


def strip_optional(t: Type) -> Type:
    return t.inner if isinstance(t, OptionalType) else t


def assignable(value: Type, target: Type) -> bool:
    """May a value of type `value` be used where `target` is expected?

    int widens to number; a value fits its optional; an optional is accepted where its inner
    type is expected (the compiled code checks for none there and reports it with a location).
    """
    if isinstance(value, AnyType) or isinstance(target, AnyType):
        return True
    if value == target:
        return True
    if value == INT and target == NUMBER:
        return True
    if isinstance(target, OptionalType):
        return isinstance(value, NoneType) or assignable(strip_optional(value), target.inner)
    if isinstance(value, OptionalType):
        return assignable(value.inner, target)
    if isinstance(value, SetType) and isinstance(target, SetType):
        return assignable(value.element, target.element)
    if isinstance(value, ListType) and isinstance(target, ListType):
        return assignable(value.element, target.element)
    if isinstance(value, RecordType) and isinstance(target, RecordType):
        if len(value.fields) != len(target.fields):
            return False
        return all(target.field(n) is not None and assignable(t, target.field(n)) for n, t in value.fields)
    if isinstance(value, DistType) and isinstance(target, DistType):
        return assignable(value.element, target.element)
    return False


def join(a: Type, b: Type) -> Type | None:
    """The type of a value that is either `a` or `b` (conditional branches, list items)."""
    if isinstance(a, AnyType):
        return b
    if isinstance(b, AnyType) or a == b:
        return a
    if {a, b} == {INT, NUMBER}:
        return NUMBER
    if isinstance(a, NoneType):
        return b if isinstance(b, OptionalType) else OptionalType(b)
    if isinstance(b, NoneType):
        return a if isinstance(a, OptionalType) else OptionalType(a)
    if isinstance(a, OptionalType) or isinstance(b, OptionalType):
        inner = join(strip_optional(a), strip_optional(b))
        return OptionalType(inner) if inner is not None else None
    if isinstance(a, SetType) and isinstance(b, SetType):
        inner = join(a.element, b.element)
        return SetType(inner) if inner is not None else None
    if isinstance(a, ListType) and isinstance(b, ListType):
        inner = join(a.element, b.element)
        return ListType(inner) if inner is not None else None
    if isinstance(a, RecordType) and isinstance(b, RecordType) and assignable(a, b):
        return b
    return None


def element_type(t: Type) -> Type | None:
    """What iterating over a value of type `t` yields, or None if it cannot be iterated."""
    t = strip_optional(t)
    if isinstance(t, (SetType, ListType)):
        return t.element
    if isinstance(t, AnyType):
        return ANY
    return None
