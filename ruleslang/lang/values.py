"""Runtime values: how ruleslang data is held in Python, ordered and printed deterministically.

    int / Fraction      numbers (a Fraction is normalised to int when whole)
    bool, str           booleans and text
    None                none
    EnumValue           a player, side, space, unit type, tag or declared enum member
    UnitValue           a unit on the board (a snapshot: id, type, owner, space, hits)
    tuple               a list
    LSet                a set, held as a sorted tuple (never a Python set: order must not
                        depend on PYTHONHASHSEED)
    Record              fields in declaration order
    Dist                a probability distribution over exact fractions
"""

from __future__ import annotations

from fractions import Fraction
from operator import attrgetter
from typing import Any, Iterable

from ruleslang.base.errors import EvalError
from ruleslang.base.limits import MAX_INT_BITS

_NUMBER_LIMIT = 1 << MAX_INT_BITS


class EnumValue:
    """A member of an enumeration, ordered by declaration.

    Each member exists once per program (an `Enumeration` creates it), so equality and hashing
    are by identity: the cheapest comparison there is, on the hottest path of rule evaluation.
    Nothing iterates a hashed collection of them (sets are sorted tuples), so identity hashes
    never reach an output.
    """

    __slots__ = ("kind", "name", "index", "__weakref__")

    def __init__(self, kind: str, name: str, index: int):
        self.kind = kind
        self.name = name
        self.index = index

    def __repr__(self) -> str:
        return f"{self.kind}:{self.name}"

    def __str__(self) -> str:
        return self.name

    # a copy of a member would be another member, equal to nothing (equality is identity): a copied
    # value (a kept answer, a board's facts) holds the program's own members, as the value did
    def __copy__(self) -> EnumValue:
        return self

    def __deepcopy__(self, memo: dict) -> EnumValue:
        return self


class UnitValue:
    """A unit as the rules see it; equal by id."""

    __slots__ = ("id", "type", "owner", "space", "hits", "moved", "flags")

    def __init__(self, id: int, type: EnumValue, owner: EnumValue, space: EnumValue, hits: int = 0,
                 moved: int = 0, flags: tuple[tuple[str, Any], ...] = ()):
        self.id = id
        self.type = type
        self.owner = owner
        self.space = space
        self.hits = hits
        self.moved = moved
        self.flags = flags

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnitValue) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("unit", self.id))

    def __repr__(self) -> str:
        return f"unit#{self.id}({self.type.name} of {self.owner.name} at {self.space.name})"

    __str__ = __repr__


class Record:
    """An immutable record; fields keep the order they were declared or written in."""

    __slots__ = ("_fields", "_hash")

    def __init__(self, fields: Iterable[tuple[str, Any]]):
        self._fields = dict(fields)
        self._hash = None

    def get(self, name: str) -> Any:
        return self._fields[name]

    def has(self, name: str) -> bool:
        return name in self._fields

    def items(self):
        return self._fields.items()

    def names(self):
        return tuple(self._fields)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and list(other._fields.items()) == list(self._fields.items())

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(tuple(self._fields.items()))
        return self._hash

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k}: {format_value(v)}" for k, v in self._fields.items()) + "}"


class LSet:
    """A set of values held in canonical order."""

    __slots__ = ("items", "_hash", "_members")

    def __init__(self, items: Iterable[Any] = ()):
        unique = dict.fromkeys(items)
        if unique and set(map(type, unique)) == _ENUMS_ONLY and len(set(map(_KIND, unique))) == 1:
            # members of one enumeration (most sets are of spaces): `sort_key`'s order is theirs
            self.items = tuple(sorted(unique, key=_ENUM_ORDER))
        else:
            self.items = tuple(sorted(unique, key=sort_key))
        self._hash = None
        self._members = None

    @classmethod
    def of_enums(cls, values: Iterable["EnumValue"]) -> "LSet":
        """A set of members of one enumeration: ordered by declaration, without the general sort."""
        out = cls.__new__(cls)
        unique = {v: None for v in values}
        out.items = tuple(sorted(unique, key=_enum_index))
        out._hash = None
        out._members = None
        return out

    @classmethod
    def of_ordered(cls, items: tuple) -> "LSet":
        """A set of `items`, distinct values already in canonical order (a part of another set's
        items, in their order): taken as they are, without the sort."""
        out = cls.__new__(cls)
        out.items = items
        out._hash = None
        out._members = None
        return out

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __contains__(self, item: object) -> bool:
        # Membership only (never iteration) goes through a hashed set: its order does not matter.
        if self._members is None:
            self._members = frozenset(self.items)
        return item in self._members

    def members(self) -> frozenset:
        """The set's values hashed, for membership tests alone (kept with the set)."""
        if self._members is None:
            self._members = frozenset(self.items)
        return self._members

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LSet) and other.items == self.items

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(("set", self.items))
        return self._hash

    def __repr__(self) -> str:
        return "{" + ", ".join(format_value(v) for v in self.items) + "}"


class Dist:
    """A probability distribution: outcomes with exact probabilities summing to 1."""

    __slots__ = ("outcomes",)

    def __init__(self, weights: dict):
        self.outcomes = tuple(sorted(weights.items(), key=lambda kv: sort_key(kv[0])))

    def probability(self, predicate) -> Fraction:
        return sum((p for v, p in self.outcomes if predicate(v)), Fraction(0))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dist) and other.outcomes == self.outcomes

    def __hash__(self) -> int:
        return hash(("dist", self.outcomes))

    def __repr__(self) -> str:
        return "distribution {" + ", ".join(f"{format_value(v)}: {p}" for v, p in self.outcomes) + "}"


_ENUM_ORDER = attrgetter("index", "name")  # `sort_key`'s order of members of one enumeration
_ENUMS_ONLY = {EnumValue}
_KIND = attrgetter("kind")


def _enum_index(value: "EnumValue") -> int:
    return value.index


_RANK = {bool: 0, int: 1, Fraction: 1, str: 2, EnumValue: 3, UnitValue: 4, tuple: 5, LSet: 6, Record: 7, Dist: 8}


def sort_key(value: Any):
    """A total order over values, the same in every process."""
    if value is None:
        return (-1,)
    t = type(value)
    rank = _RANK.get(t, 9)
    if t is bool:
        return (rank, int(value))
    if t is int or t is Fraction:
        return (rank, value)
    if t is str:
        return (rank, value)
    if t is EnumValue:
        return (rank, value.kind, value.index, value.name)
    if t is UnitValue:
        return (rank, value.id)
    if t is tuple:
        return (rank, len(value), tuple(sort_key(v) for v in value))
    if t is LSet:
        return (rank, len(value.items), tuple(sort_key(v) for v in value.items))
    if t is Record:
        return (rank, tuple((k, sort_key(v)) for k, v in value.items()))
    if t is Dist:
        return (rank, tuple((sort_key(v), p) for v, p in value.outcomes))
    return (rank, repr(value))


def normalize_number(value):
    """Whole fractions become ints, so 6/2 and 3 are the same value."""
    if type(value) is Fraction and value.denominator == 1:
        return int(value.numerator)
    return value


def bounded_number(v):
    """A number as the language keeps it: a whole fraction as an int; E509 beyond the bit limit."""
    if type(v) is Fraction:
        if v.denominator == 1:
            return int(v.numerator)
        if v.numerator.bit_length() > MAX_INT_BITS or v.denominator.bit_length() > MAX_INT_BITS:
            raise EvalError("E509", f"a fraction grew beyond {MAX_INT_BITS} bits")
        return v
    if -_NUMBER_LIMIT < v < _NUMBER_LIMIT:
        return v
    raise EvalError("E509", f"a number grew beyond {MAX_INT_BITS} bits")


def bounded_sum(values: Iterable) -> Any:
    """The total of numbers, each partial total held to the number limit (E509): exact fractions
    grow with every term (a harmonic sum), and the limit is what keeps their arithmetic cheap."""
    total = 0
    for v in values:
        total = bounded_number(total + v)
    return total


def format_number(value) -> str:
    if type(value) is Fraction:
        return f"{value.numerator}/{value.denominator}"
    return str(value)


def format_value(value: Any) -> str:
    """The value as ruleslang would write it (used in messages, explanations, test output)."""
    if value is None:
        return "none"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) in (int, Fraction):
        return format_number(value)
    if type(value) is str:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if type(value) is tuple:
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    if type(value) is EnumValue:
        return value.name
    return repr(value)


def display_text(value: Any) -> str:
    """The value as it reads inside interpolated text: text and names without quotes."""
    if type(value) is str:
        return value
    if isinstance(value, EnumValue):
        return value.name
    return format_value(value)


def to_json(value: Any) -> Any:
    """The value as JSON: fractions as "p/q" strings (exact), names as strings, sets as sorted lists."""
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is Fraction:
        return format_number(value)
    if isinstance(value, EnumValue):
        return value.name
    if isinstance(value, UnitValue):
        return {"id": value.id, "type": value.type.name, "owner": value.owner.name,
                "space": value.space.name, "hits": value.hits}
    if type(value) is tuple:
        return [to_json(v) for v in value]
    if isinstance(value, LSet):
        return [to_json(v) for v in value.items]
    if isinstance(value, Record):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, Dist):
        return [[to_json(v), format_number(p)] for v, p in value.outcomes]
    return repr(value)
