"""The global names of a composed ruleset: definitions, enumerations and their members.

Built from a resolved `Ruleset` and its map. Enumerations are the game's finite sets of names:
players, sides, spaces (from the map), unit types, tags and each declared `enum`. Members of
declared enums are names of their own; one that two enums share must be qualified
(`tier.major`) unless the expected type tells which is meant.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from ruleslang.lang.syntax.declarations import Decl
from ruleslang.lang import types as T
from ruleslang.lang.values import EnumValue


@dataclass
class Symbol:
    """A global name: what it is, where it was declared, and its type."""

    name: str
    kind: str
    decl: Decl | None
    origin: str | None = None
    type: T.Type = T.ANY
    value: EnumValue | None = None  # for players, sides, unit types, tags, enum members
    params_types: tuple[T.Type, ...] = ()  # key types of a table, parameters of a counter
    rows_type: T.Type | None = None  # the record type rows(table) gives


@dataclass
class Resolution:
    """What a name in an expression stands for: a local variable (its frame slot), a constant
    known to the checker (an enumeration member, an enumeration's name), or a global symbol."""

    kind: str  # "local", "const", "global"
    slot: int = -1
    value: Any = None
    symbol: Symbol | None = None


@functools.lru_cache(maxsize=4096)  # the checker asks it of the same few hundred names again and again
def normal_name(text: str) -> str:
    """A name with case, spaces and punctuation ignored."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


@dataclass
class Enumeration:
    """A finite set of names (players, spaces, a declared enum, ...)."""

    name: str
    members: list[EnumValue] = field(default_factory=list)
    by_name: dict[str, EnumValue] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)  # lower-cased alias -> canonical name
    decl: Decl | None = None

    def add(self, name: str) -> EnumValue:
        if name in self.by_name:
            return self.by_name[name]
        value = EnumValue(self.name, name, len(self.members))
        self.members.append(value)
        self.by_name[name] = value
        return value

    def lookup(self, text: str) -> EnumValue | None:
        """A member by exact name, then by a declared alias or its name, ignoring case, spaces and
        punctuation (`Anglo-Egypt`, `sz 6`), as the map itself matches names."""
        if text in self.by_name:
            return self.by_name[text]
        canonical = self.aliases.get(text.lower()) or self.aliases.get(normal_name(text))
        if canonical is not None:
            return self.by_name.get(canonical)
        return None

    def add_alias(self, alias: str, canonical: str) -> None:
        self.aliases[alias.lower()] = canonical
        self.aliases.setdefault(normal_name(alias), canonical)

    def spellings(self) -> dict[str, str]:
        """Each member's name and alias, to the member it spells (what a hint offers)."""
        table = {name: name for name in self.by_name}
        for alias, canonical in self.aliases.items():
            table.setdefault(alias, canonical)
        return table


@dataclass
class GlobalScope:
    """The global names of a composition: its symbols, enumerations and their members, attributes."""

    symbols: dict[str, Symbol] = field(default_factory=dict)
    enums: dict[str, Enumeration] = field(default_factory=dict)
    # members of declared enums by bare name; several when enums share a word
    members: dict[str, list[EnumValue]] = field(default_factory=dict)
    unit_attributes: dict[str, Symbol] = field(default_factory=dict)
    space_attributes: dict[str, Symbol] = field(default_factory=dict)
    game_map: Any = None

    def enum(self, name: str) -> Enumeration:
        if name not in self.enums:
            self.enums[name] = Enumeration(name)
        return self.enums[name]


BUILTIN_ENUMS = ("player", "side", "space", "unittype", "tag")
