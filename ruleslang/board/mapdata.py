"""Maps: the board's players, sides, spaces, adjacency, canals and starting position.

A map is a YAML file (`<root>/maps/<name>.yaml`, format in docs/maps.md) validated against
`map.schema.json` and then checked for consistency; a bad map is rejected whole with every
problem located. Codes:

    D610 schema                      D620 a name or alias given twice
    D621 unknown space               D622 unknown player
    D623 one-sided adjacency         D624 a sea zone with land-only facts
    D625 a canal that does not fit   D626 a space next to itself, or a neighbour twice
    D627 unknown side, or a player twice in the turn order
    D628 unknown economy             D629 unknown map
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Mapping, Sequence

from ruleslang.base import reads
from ruleslang.base.fileio import is_file, is_folder
from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, Related, error, refuse_nul
from ruleslang.base.limits import MAX_UNITS
from ruleslang.base.paths import confined
from ruleslang.base.source import Span
from ruleslang.base.suggest import did_you_mean
from ruleslang.base.yamlio import (Positions, Problems, keep_data, kept_data, load_schema, load_yaml, not_a_file, read_source,
                                   validate, validate_text)

DEFAULT_ECONOMY = "main"
SPACE_KINDS = ("land", "sea")


def name_key(text: str) -> str:
    """The form names are matched in: case, spaces and punctuation ignored (`north-east` is `North East`)."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


@functools.lru_cache(maxsize=8192)  # the same few hundred names are sorted again and again in a game
def natural_key(name: str) -> tuple:
    """Sort key putting `Zone 2` before `Zone 10` (digits compared as numbers)."""
    parts = re.split(r"(\d+)", name.casefold())
    return tuple(_number_key(p) if i % 2 else p for i, p in enumerate(parts)), name


def _number_key(digits: str) -> tuple[int, str]:
    """A run of digits ordered as its number, without making the number: a name may carry thousands
    of digits, past what Python turns into an int (shorter is smaller, then digit by digit)."""
    plain = "".join(str(unicodedata.decimal(ch)) for ch in digits).lstrip("0")
    return len(plain), plain


def natural_sorted(names: Iterable[str]) -> tuple[str, ...]:
    """The names in natural order, as every query returns them."""
    return tuple(sorted(names, key=natural_key))


def _frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class PlayerInfo:
    """A player (nation) of the map."""

    name: str
    side: str | None = None
    aliases: tuple[str, ...] = ()
    capital: str | None = None
    economies: tuple[str, ...] = (DEFAULT_ECONOMY,)
    color: str | None = None
    attributes: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class SpaceInfo:
    """A land territory or a sea zone. `owner` is its controller at the start of the game."""

    name: str
    kind: str
    owner: str | None = None
    original_owner: str | None = None
    impassable: bool = False
    neutral: bool = False
    island: bool = False
    economy: str | None = None
    aliases: tuple[str, ...] = ()
    attributes: Mapping[str, object] = field(default_factory=dict)
    position: tuple[float, float] | None = None  # its centre on the map's picture (y downwards), if known

    @property
    def is_land(self) -> bool:
        """True for a land territory."""
        return self.kind == "land"

    @property
    def is_sea(self) -> bool:
        """True for a sea zone."""
        return self.kind == "sea"


@dataclass(frozen=True)
class Canal:
    """A passage between sea zones whose use depends on who holds the `land` territories."""

    name: str
    sea_zones: tuple[str, ...]
    land: tuple[str, ...] = ()
    attributes: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class FactoryInfo:
    """A factory standing in a space at the start: its owner, kind (`None`: the plain kind),
    damage, and whether the game counts it as one it began with (a scenario may give a factory
    bought during play: `original: false`)."""

    owner: str
    kind: str | None = None
    damage: int = 0
    attributes: Mapping[str, object] = field(default_factory=dict)
    original: bool = True


@dataclass(frozen=True)
class StartPosition:
    """Units, factories, treasuries and counters at the start of the game."""

    control: Mapping[str, str] = field(default_factory=dict)
    units: Mapping[str, Mapping[str, Mapping[str, int]]] = field(default_factory=dict)
    factories: Mapping[str, FactoryInfo] = field(default_factory=dict)
    treasury: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    counters: Mapping[str, Mapping[tuple, object]] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class GameMap:
    """A loaded, checked map. Treat it as read-only; it is shared by every state built on it."""

    name: str
    title: str
    source: str
    players: tuple[PlayerInfo, ...]
    spaces: tuple[SpaceInfo, ...]
    adjacency: Mapping[str, tuple[str, ...]]
    turn_order: tuple[str, ...]
    sides: Mapping[str, tuple[str, ...]]
    canals: tuple[Canal, ...] = ()
    start: StartPosition = field(default_factory=StartPosition)
    path: Path | None = None
    _spaces: dict = field(init=False, repr=False)
    _players: dict = field(init=False, repr=False)
    _space_keys: dict = field(init=False, repr=False)
    _player_keys: dict = field(init=False, repr=False)
    _by_kind: dict = field(init=False, repr=False)  # (space, kind) -> its neighbours of that kind, made once

    def __post_init__(self) -> None:
        object.__setattr__(self, "_spaces", {s.name: s for s in self.spaces})
        object.__setattr__(self, "_by_kind", {})
        object.__setattr__(self, "_players", {p.name: p for p in self.players})
        object.__setattr__(self, "_space_keys", _lookup(self.spaces))
        object.__setattr__(self, "_player_keys", _lookup(self.players))

    # -- names

    def space(self, name: str) -> SpaceInfo:
        """The space with this canonical name (KeyError otherwise: resolve user text first)."""
        return self._spaces[name]

    def player(self, name: str) -> PlayerInfo:
        """The player with this canonical name."""
        return self._players[name]

    def has_space(self, name: str) -> bool:
        """True when `name` is a canonical space name."""
        return name in self._spaces

    def has_player(self, name: str) -> bool:
        """True when `name` is a canonical player name."""
        return name in self._players

    def resolve_space(self, text: str) -> str | None:
        """The canonical space a user's text names (name or alias, any case), or None."""
        if text in self._spaces:
            return text
        return self._space_keys.get(name_key(text))

    def resolve_player(self, text: str) -> str | None:
        """The canonical player a user's text names (name or alias, any case), or None."""
        if text in self._players:
            return text
        return self._player_keys.get(name_key(text))

    def space_spellings(self) -> dict[str, str]:
        """Each name and alias of a space, to the canonical space it spells (what a hint offers)."""
        return _spellings(self.spaces)

    def player_spellings(self) -> dict[str, str]:
        """Each name and alias of a player, to the canonical player it spells."""
        return _spellings(self.players)

    # -- board

    def neighbours(self, name: str) -> tuple[str, ...]:
        """All spaces adjacent to `name`, in natural order."""
        return self.adjacency[name]

    def land_neighbours(self, name: str) -> tuple[str, ...]:
        """The adjacent land territories, in natural order."""
        return self._neighbours_of_kind(name, "land")

    def sea_neighbours(self, name: str) -> tuple[str, ...]:
        """The adjacent sea zones, in natural order."""
        return self._neighbours_of_kind(name, "sea")

    def _neighbours_of_kind(self, name: str, kind: str) -> tuple[str, ...]:
        # the same tuple every time: rules ask for them in loops, and the evaluator keeps the
        # set it makes of a tuple the board hands out by the tuple's identity (EvalContext.spaces)
        key = (name, kind)
        found = self._by_kind.get(key)
        if found is None:
            found = self._by_kind[key] = tuple(n for n in self.adjacency[name] if self._spaces[n].kind == kind)
        return found

    def connections(self) -> tuple[tuple[str, str], ...]:
        """Every adjacency once, as (a, b) with a before b in natural order."""
        pairs = []
        for a in natural_sorted(self.adjacency):
            ka = natural_key(a)
            pairs.extend((a, b) for b in self.adjacency[a] if natural_key(b) > ka)
        return tuple(pairs)

    def side_of(self, player: str) -> str | None:
        """The side of a player (None: it stands alone)."""
        return self._players[player].side

    def player_names(self) -> tuple[str, ...]:
        """All players, in the map's order."""
        return tuple(p.name for p in self.players)

    def space_names(self, kind: str | None = None) -> tuple[str, ...]:
        """Space names in file order, optionally only `land` or `sea`."""
        return tuple(s.name for s in self.spaces if kind is None or s.kind == kind)

    def unit_types_used(self) -> tuple[str, ...]:
        """The unit types the starting position places, sorted."""
        return tuple(sorted({t for by_player in self.start.units.values()
                             for by_type in by_player.values() for t in by_type}))

    def factory_kinds_used(self) -> tuple[str, ...]:
        """The factory kinds the starting position names, sorted."""
        return tuple(sorted({f.kind for f in self.start.factories.values() if f.kind}))

    def canal_named(self, name: str) -> Canal | None:
        """The canal with this name, or None."""
        return next((c for c in self.canals if c.name == name), None)


def _lookup(items: Iterable) -> dict[str, str]:
    """The loose spelling (`name_key`) of every name and alias -> the name it spells. A loose
    spelling two names share (`New Bern` and `Newbern`) spells neither: each is found by its exact
    name only."""
    table: dict[str, str] = {}
    shared: set[str] = set()
    for item in items:
        for text in (item.name, *item.aliases):
            key = name_key(text)
            if table.setdefault(key, item.name) != item.name:
                shared.add(key)
    return {key: name for key, name in table.items() if key not in shared}


def _spellings(items: Iterable) -> dict[str, str]:
    table: dict[str, str] = {}
    for item in items:
        for text in (item.name, *item.aliases):
            table.setdefault(text, item.name)
    return table


# ---------------------------------------------------------------- loading


def map_from_data(data: object, positions: Positions, *, path: Path | None = None,
                  text: str | None = None) -> GameMap:
    """Validate map data (schema, then consistency) and build the `GameMap`; `text`, the file the
    data was read from, lets a text found valid before skip the schema (base/yamlio.validate_text).

    Raises `DiagnosticError` listing every problem found, each at its YAML line and column.
    """
    problems = (validate(data, load_schema("map"), positions, code="D610") if text is None
                else validate_text(data, "map", positions, text, code="D610"))
    if not isinstance(data, dict):
        raise DiagnosticError(problems or [error("D610", "the map must be a mapping", positions.span(()))])
    checker = _MapChecker(data, positions)
    game_map = checker.build(path)
    problems.extend(checker.problems)
    if problems:
        raise DiagnosticError(problems)
    return game_map


_adopted: dict[tuple[str, int], GameMap] = {}  # (resolved path, modification time) -> a map read back whole


def adopt_map(game_map: GameMap) -> GameMap:
    """A map read back whole with a kept program (workspace/kept_programs.py, which checked its
    file unchanged): a later `load_map` of its file in this process hands it out instead of
    building it again, while the file keeps its modification time."""
    if game_map.path is not None:
        try:
            _adopted[(str(game_map.path), Path(game_map.path).stat().st_mtime_ns)] = game_map
        except OSError:
            pass
    return game_map


@functools.lru_cache(maxsize=32)
def _load_map_file(path: str, _mtime_ns: int) -> GameMap:
    source = read_source(Path(path))
    data = kept_data(source)
    if data is not None:
        try:
            # the positions are wanted only by a problem, and this text had none when it was kept
            return map_from_data(data, Positions(source), path=Path(path), text=source.text)
        except DiagnosticError:
            pass  # the checks changed since: read the text again, so each problem has its place
    data, positions = load_yaml(source)
    game_map = map_from_data(data, positions, path=Path(path), text=source.text)
    keep_data(source, data)
    return game_map


def is_path_ref(ref: str) -> bool:
    """True when a map or scenario reference reads as a file path (a slash, or a `.yaml` name)."""
    return ref.endswith((".yaml", ".yml")) or "/" in ref or "\\" in ref


def find_map(ref: str, roots: Sequence[Path]) -> Path | None:
    """The file a map reference names: a `.yaml` path, or `<root>/maps/<ref>.yaml`."""
    if is_path_ref(ref):
        candidate = Path(ref)
        return candidate if is_file(candidate) else None
    for root in roots:
        candidate = Path(root) / "maps" / f"{ref}.yaml"
        if is_file(candidate):
            return candidate
    return None


def load_map(ref: str, roots: Sequence[Path], *, span: Span | None = None,
             allowed: Sequence[Path] | None = None) -> GameMap:
    """Load a map by name (looked up as `<root>/maps/<name>.yaml`) or by path to a `.yaml` file.

    Maps are cached by resolved path (and modification time). An unknown map is D629, located
    at `span` when the caller has one (the `map:` line of a scenario). A path named by a file
    (a ruleset's `map`, a scenario's `map:`) must lie inside the `allowed` folders (S005), checked
    before the file is opened, so nothing outside them is read or shown; a path the user typed
    on the command line is read where it points (`allowed` None).
    """
    if allowed is not None and is_path_ref(ref):
        if confined(ref, allowed, "a map name or path", span) is None:
            raise DiagnosticError(error(
                "S005", f"map '{ref}' lies outside the ruleset roots", span,
                hint="a map file must be inside the ruleset folders or beside the file that names it: "
                     + ", ".join(str(r) for r in allowed), file=None if span else ref))
    else:
        refuse_nul(ref, "a map name or path", span)
    found = find_map(ref, roots)
    if found is None and is_path_ref(ref):
        raise DiagnosticError(not_a_file(ref, span))  # a path: say what is wrong with it, not "unknown map"
    if found is None:
        names = [name for name, _, _ in list_maps(roots)]
        hint = did_you_mean(ref, names, n=3) or ("known maps: " + ", ".join(names) if names else None)
        raise DiagnosticError(error("D629", f"unknown map '{ref}'", span, hint=hint,
                                    file=None if span else ref))
    resolved = found.resolve()
    key = (str(resolved), resolved.stat().st_mtime_ns)
    game_map = _adopted.get(key)
    if game_map is None:
        game_map = _load_map_file(*key)
    reads.touch(resolved)  # read once per process: a later user depends on the file all the same
    return game_map


_TITLE_LINE = re.compile(r"^title:[ \t]*(.+?)[ \t]*$", re.MULTILINE)


def list_maps(roots: Sequence[Path]) -> list[tuple[str, Path, str]]:
    """(name, path, title) of every map under the roots; an earlier root hides a later one."""
    seen: dict[str, tuple[str, Path, str]] = {}
    for root in roots:
        folder = Path(root) / "maps"
        if not is_folder(folder):
            continue
        for path in sorted(folder.glob("*.yaml")):
            if path.stem in seen:
                continue
            seen[path.stem] = (path.stem, path, _peek_title(path))
    return [seen[name] for name in sorted(seen)]


def _peek_title(path: Path) -> str:
    # Read only the top-level title line: listing maps must not parse every board.
    # start-up time: PyYAML is loaded only to read a text
    import yaml

    try:
        with path.open(encoding="utf-8") as handle:
            head = handle.read(4096)
        match = _TITLE_LINE.search(head)
        value = yaml.safe_load(match.group(1)) if match else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return ""
    return value if isinstance(value, str) else ""


# ---------------------------------------------------------------- consistency checks


def _entries(data: dict, key: str) -> list[tuple[int, dict]]:
    """The well-formed entries of a list of mappings with a text `name` (schema reports the rest)."""
    items = data.get(key)
    if not isinstance(items, list):
        return []
    return [(i, item) for i, item in enumerate(items)
            if isinstance(item, dict) and isinstance(item.get("name"), str)]


def _texts(value: object) -> list[tuple[int, str]]:
    if not isinstance(value, list):
        return []
    return [(i, v) for i, v in enumerate(value) if isinstance(v, str)]


def _mapping(value: object) -> dict:
    return value if isinstance(value, dict) else {}


class _MapChecker:
    """Reads schema-shaped map data tolerantly, building the map and collecting every problem."""

    def __init__(self, data: dict, positions: Positions):
        self.data = data
        self.positions = positions
        self.problems: list[Diagnostic] = []
        self.problem = Problems(positions, self.problems).add
        self.space_entries = _entries(data, "spaces")
        self.player_entries = _entries(data, "players")
        self.spaces = {e["name"]: (i, e) for i, e in self.space_entries}
        self.players = {e["name"]: (i, e) for i, e in self.player_entries}
        self.space_lookup = _lookup(_Named(e["name"], _alias_list(e)) for _, e in self.space_entries)
        self.player_lookup = _lookup(_Named(e["name"], _alias_list(e)) for _, e in self.player_entries)

    # -- references

    def space_ref(self, path: tuple, name: object, *, at_key: bool = False) -> str | None:
        """The canonical space `name` spells, or None after reporting it (D621)."""
        return self._ref("space", "D621", self.spaces, self.space_lookup, path, name, at_key)

    def player_ref(self, path: tuple, name: object, *, at_key: bool = False) -> str | None:
        """The canonical player `name` spells, or None after reporting it (D622)."""
        return self._ref("player", "D622", self.players, self.player_lookup, path, name, at_key)

    def _ref(self, what: str, code: str, table: dict, lookup: dict, path: tuple, name: object,
             at_key: bool) -> str | None:
        if not isinstance(name, str):
            return None
        if name in table:
            return name
        canonical = lookup.get(name_key(name))
        if canonical is None:
            names = [_Named(n, _alias_list(e)) for n, (_, e) in table.items()]
            self.problem(code, path, f"unknown {what} '{name}'", at_key=at_key,
                         hint=did_you_mean(name, _spellings(names)))
        return canonical

    # -- the parts

    def check_names(self, key: str, entries: list[tuple[int, dict]], what: str) -> None:
        seen: dict[str, tuple] = {}
        for i, entry in entries:
            spellings = [((key, i, "name"), entry["name"])]
            spellings += [((key, i, "aliases", j), a) for j, a in _texts(entry.get("aliases"))]
            for path, text in spellings:
                k = name_key(text)
                if not k:
                    self.problem("D620", path, f"the {what} name '{text}' has no letters or digits")
                    continue
                if k in seen and seen[k][1] != entry["name"] and path[-1] == "name" == seen[k][0][-1]:
                    continue  # two names spelled alike but not the same: each is found by its exact name
                if k in seen and seen[k][1] != entry["name"]:
                    first_path, first_owner, first_text = seen[k]
                    self.problem("D620", path,
                                 f"'{text}' names two {what}s: '{first_owner}' and '{entry['name']}'",
                                 related=[Related(self.positions.span(first_path), "first given here")])
                elif k in seen and path[-1] == "name":
                    first_path = seen[k][0]
                    self.problem("D620", path, f"the {what} '{text}' is declared twice",
                                 related=[Related(self.positions.span(first_path), "first declared here")])
                else:
                    seen.setdefault(k, (path, entry["name"], text))

    def build_players(self) -> tuple[list[PlayerInfo], dict[str, tuple[str, ...]]]:
        self.check_names("players", self.player_entries, "player")
        declared_sides = [s for _, s in _texts(self.data.get("sides"))]
        players = []
        seen_names = set()
        for i, entry in self.player_entries:
            if entry["name"] in seen_names:
                continue
            seen_names.add(entry["name"])
            side = entry.get("side") if isinstance(entry.get("side"), str) else None
            if side is not None and declared_sides and side not in declared_sides:
                self.problem("D627", ("players", i, "side"), f"unknown side '{side}'",
                             hint=did_you_mean(side, declared_sides, n=2)
                             or "sides: " + ", ".join(declared_sides))
            capital = entry.get("capital")
            if capital is not None:
                capital = self.space_ref(("players", i, "capital"), capital)
                if capital is not None and self.spaces[capital][1].get("kind") != "land":
                    self.problem("D621", ("players", i, "capital"), f"the capital '{capital}' is not a land territory")
            economies = tuple(e for _, e in _texts(entry.get("economies"))) or (DEFAULT_ECONOMY,)
            color = entry.get("color") if isinstance(entry.get("color"), str) else None
            players.append(PlayerInfo(entry["name"], side, tuple(a for _, a in _texts(entry.get("aliases"))),
                                      capital, economies, color, _frozen(_mapping(entry.get("attributes")))))
        order = declared_sides + [p.side for p in players if p.side and p.side not in declared_sides]
        sides = {s: tuple(p.name for p in players if p.side == s) for s in dict.fromkeys(order)}
        return players, sides

    def build_turn_order(self, players: list[PlayerInfo]) -> tuple[str, ...]:
        if "turn_order" not in self.data:
            return tuple(p.name for p in players)
        order: list[str] = []
        for j, text in _texts(self.data.get("turn_order")):
            name = self.player_ref(("turn_order", j), text)
            if name is None:
                continue
            if name in order:
                self.problem("D627", ("turn_order", j), f"'{name}' is in the turn order twice")
                continue
            order.append(name)
        return tuple(order)

    def build_adjacency(self) -> dict[str, set[str]]:
        adjacency: dict[str, set[str]] = {name: set() for name in self.spaces}
        from_pairs: set[tuple[str, str]] = set()
        pairs = self.data.get("connections")
        for j, pair in enumerate(pairs if isinstance(pairs, list) else []):
            if not (isinstance(pair, list) and len(pair) == 2):
                continue
            a = self.space_ref(("connections", j, 0), pair[0])
            b = self.space_ref(("connections", j, 1), pair[1])
            if a is None or b is None:
                continue
            if a == b:
                self.problem("D626", ("connections", j), f"'{a}' cannot be its own neighbour")
                continue
            if (a, b) in from_pairs:
                self.problem("D626", ("connections", j), f"the connection '{a}' - '{b}' is given twice")
                continue
            from_pairs.update({(a, b), (b, a)})
            adjacency[a].add(b)
            adjacency[b].add(a)
        listed: dict[str, dict[str, tuple]] = {}
        for i, entry in self.space_entries:
            if entry["name"] in listed:
                continue
            mine = listed[entry["name"]] = {}
            for j, text in _texts(entry.get("neighbours")):
                path = ("spaces", i, "neighbours", j)
                other = self.space_ref(path, text)
                if other is None:
                    continue
                if other == entry["name"]:
                    self.problem("D626", path, f"'{other}' cannot be its own neighbour")
                elif other in mine:
                    self.problem("D626", path, f"'{other}' is listed twice")
                else:
                    mine[other] = path
        for name, mine in listed.items():
            for other, path in mine.items():
                # Kept even when one-sided, so one missing entry does not set off other errors.
                adjacency[name].add(other)
                adjacency[other].add(name)
                if name in listed.get(other, {}) or (name, other) in from_pairs:
                    continue
                other_index = self.spaces[other][0]
                self.problem("D623", path, f"'{name}' lists '{other}' as a neighbour but '{other}' does not list '{name}'",
                             hint=f"add '{name}' to the neighbours of '{other}', or remove it here",
                             related=[Related(self.positions.span(("spaces", other_index)), f"'{other}' is declared here")])
        return adjacency

    def build_spaces(self, adjacency: dict[str, set[str]], economies: set[str]) -> list[SpaceInfo]:
        self.check_names("spaces", self.space_entries, "space")
        spaces = []
        done = set()
        for i, entry in self.space_entries:
            name = entry["name"]
            if name in done:
                continue
            done.add(name)
            kind = entry.get("kind") if entry.get("kind") in SPACE_KINDS else "land"
            owner = self.player_ref(("spaces", i, "owner"), entry.get("owner"))
            original = (self.player_ref(("spaces", i, "original_owner"), entry.get("original_owner"))
                        if "original_owner" in entry else owner)
            economy = entry.get("economy") if isinstance(entry.get("economy"), str) else None
            if economy is not None and economy not in economies:
                self.problem("D628", ("spaces", i, "economy"), f"unknown economy '{economy}'",
                             hint=did_you_mean(economy, sorted(economies), n=2)
                             or "no player declares it in its `economies`")
            if kind == "sea":
                for key in ("owner", "original_owner", "economy"):
                    if entry.get(key) is not None:
                        self.problem("D624", ("spaces", i, key), f"a sea zone cannot have an {key.replace('_', ' ')}",
                                     at_key=True)
                for key in ("neutral", "island"):
                    if entry.get(key) is True:
                        self.problem("D624", ("spaces", i, key), f"a sea zone cannot be {'an island' if key == 'island' else 'neutral'}",
                                     at_key=True)
            land_neighbours = any(self.spaces[n][1].get("kind") == "land" for n in adjacency.get(name, ()))
            island = entry.get("island") if isinstance(entry.get("island"), bool) else (
                kind == "land" and not land_neighbours)
            spaces.append(SpaceInfo(
                name=name, kind=kind, owner=owner, original_owner=original,
                impassable=entry.get("impassable") is True, neutral=entry.get("neutral") is True,
                island=bool(island), economy=economy,
                aliases=tuple(a for _, a in _texts(entry.get("aliases"))),
                attributes=_frozen(_mapping(entry.get("attributes"))),
                position=_position(entry.get("position"))))
        return spaces

    def build_canals(self) -> list[Canal]:
        canals = []
        names: dict[str, int] = {}
        for i, entry in _entries(self.data, "canals"):
            if entry["name"] in names:
                self.problem("D620", ("canals", i, "name"), f"the canal '{entry['name']}' is declared twice")
                continue
            names[entry["name"]] = i
            seas, lands = [], []
            for key, want, bucket in (("sea_zones", "sea", seas), ("land", "land", lands)):
                for j, text in _texts(entry.get(key)):
                    name = self.space_ref(("canals", i, key, j), text)
                    if name is None:
                        continue
                    if self.spaces[name][1].get("kind") != want:
                        self.problem("D625", ("canals", i, key, j),
                                     f"'{name}' is not a {'sea zone' if want == 'sea' else 'land territory'}")
                    bucket.append(name)
            canals.append(Canal(entry["name"], tuple(seas), tuple(lands), _frozen(_mapping(entry.get("attributes")))))
        return canals

    def check_canal_adjacency(self, canals: list[Canal], adjacency: dict[str, set[str]]) -> None:
        for i, canal in enumerate(canals):
            for sea in canal.sea_zones:
                if not any(other in adjacency.get(sea, ()) for other in canal.sea_zones if other != sea):
                    self.problem("D625", ("canals", i, "sea_zones"),
                                 f"'{sea}' borders no other sea zone of the canal '{canal.name}'")

    def build_start(self, players: dict[str, PlayerInfo], spaces: list[SpaceInfo]) -> StartPosition:
        start = _mapping(self.data.get("start"))
        units: dict[str, dict[str, dict[str, int]]] = {}
        total = 0
        for space_text, by_player in _mapping(start.get("units")).items():
            space = self.space_ref(("start", "units", space_text), space_text, at_key=True)
            for player_text, by_type in _mapping(by_player).items():
                player = self.player_ref(("start", "units", space_text, player_text), player_text, at_key=True)
                if space is None or player is None:
                    continue
                counts = {t: n for t, n in _mapping(by_type).items() if isinstance(n, int) and n > 0}
                for t, n in counts.items():
                    total += n
                    if total > MAX_UNITS:
                        self.problem("D612", ("start", "units", space_text, player_text, t),
                                     f"the map's start holds more than {MAX_UNITS} units, the most a board may hold")
                        return StartPosition()  # refused: the map is not built
                if counts:
                    target = units.setdefault(space, {}).setdefault(player, {})
                    for t, n in counts.items():
                        target[t] = target.get(t, 0) + n
        factories: dict[str, FactoryInfo] = {}
        for space_text, value in _mapping(start.get("factories")).items():
            path = ("start", "factories", space_text)
            space = self.space_ref(path, space_text, at_key=True)
            fields = value if isinstance(value, dict) else {"owner": value}
            owner = self.player_ref(path + (("owner",) if isinstance(value, dict) else ()), fields.get("owner"))
            if space is not None and owner is not None:
                damage = fields.get("damage") if isinstance(fields.get("damage"), int) else 0
                factories[space] = FactoryInfo(owner, fields.get("kind"), damage,
                                               _frozen(_mapping(fields.get("attributes"))))
        treasury: dict[str, dict[str, int]] = {}
        for player_text, amount in _mapping(start.get("treasury")).items():
            path = ("start", "treasury", player_text)
            player = self.player_ref(path, player_text, at_key=True)
            if player is None:
                continue
            treasury[player] = self.economy_amounts(path, players[player], amount)
        counters = {name: flatten_counter(value) for name, value in _mapping(start.get("counters")).items()}
        control = {s.name: s.owner for s in spaces if s.owner is not None}
        return StartPosition(_frozen(control), _frozen({k: _frozen({p: _frozen(t) for p, t in v.items()})
                                                        for k, v in units.items()}),
                             _frozen(factories), _frozen({k: _frozen(v) for k, v in treasury.items()}),
                             _frozen({k: _frozen(v) for k, v in counters.items()}))

    def economy_amounts(self, path: tuple, player: PlayerInfo, amount: object) -> dict[str, int]:
        """`30` or `{europe: 20, pacific: 10}` as economy -> amount for the player."""
        if isinstance(amount, int) and not isinstance(amount, bool):
            return {player.economies[0]: amount}
        out = {}
        for economy, value in _mapping(amount).items():
            if economy not in player.economies:
                self.problem("D628", path + (economy,), f"'{player.name}' has no economy '{economy}'",
                             at_key=True, hint="its economies: " + ", ".join(player.economies))
            elif isinstance(value, int):
                out[economy] = value
        return out

    def build(self, path: Path | None) -> GameMap:
        players, sides = self.build_players()
        economies = {e for p in players for e in p.economies}
        adjacency = self.build_adjacency()
        spaces = self.build_spaces(adjacency, economies)
        canals = self.build_canals()
        self.check_canal_adjacency(canals, adjacency)
        turn_order = self.build_turn_order(players)
        start = self.build_start({p.name: p for p in players}, spaces)
        source = self.data.get("source")
        if isinstance(source, dict):
            source = "; ".join(f"{k}: {v}" for k, v in source.items())
        return GameMap(
            name=self.data.get("name") if isinstance(self.data.get("name"), str) else "",
            title=self.data.get("title") if isinstance(self.data.get("title"), str) else "",
            source=source if isinstance(source, str) else "",
            players=tuple(players), spaces=tuple(spaces),
            adjacency=_frozen({name: natural_sorted(adjacency.get(name, ())) for name in (s.name for s in spaces)}),
            turn_order=turn_order, sides=_frozen(sides), canals=tuple(canals), start=start, path=path)


@dataclass(frozen=True)
class _Named:
    """A name with its aliases."""

    name: str
    aliases: tuple[str, ...]


def _position(value: object) -> tuple[float, float] | None:
    """A space's `position: [x, y]` (the schema has checked its shape), or None."""
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
        return (float(value[0]), float(value[1]))
    return None


def _alias_list(entry: dict) -> tuple[str, ...]:
    return tuple(a for _, a in _texts(entry.get("aliases")))


def flatten_counter(value: object, prefix: tuple = ()) -> dict[tuple, object]:
    """A counter's YAML value as key tuple -> value: `5` is `{(): 5}`, `{a: {b: 1}}` is `{("a", "b"): 1}`."""
    if not isinstance(value, dict):
        return {prefix: value}
    out: dict[tuple, object] = {}
    for key, inner in value.items():
        out.update(flatten_counter(inner, prefix + (key,)))
    return out
