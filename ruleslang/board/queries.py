"""Board queries: the read-only questions rulesets ask about a game state.

`BoardQueries(state)` answers them with caches keyed on `state.version`, so a query asked
again before the next effect costs a dictionary look-up. Distances depend on the map alone and
are computed once per map and start space (`map_graph`). Every answer is deterministic: spaces
come in natural order (`Zone 2` before `Zone 10`), players in the map's order, units by id.

Movement semantics shared by `within` and `distance`: with `by="land"` every space entered
must be land, with `by="sea"` every space entered must be sea, with `by="all"` any space; the
start may be of either kind, and impassable spaces are never entered. Canals do not restrict
these counts (a ruleset that needs canal rules asks `canals()` and controller).
"""

from __future__ import annotations

import functools
from collections import defaultdict, deque
from operator import attrgetter
from typing import Callable, Hashable, Sequence

from ruleslang.board.mapdata import Canal, GameMap, natural_sorted
from ruleslang.board.state import BoardError, Factory, GameState, Unit

MOVES = ("land", "sea", "all")
NEIGHBOUR_KINDS = ("all", "land", "sea")
_id_of = attrgetter("id")
_NO_UNITS: tuple = ()  # the units of a space that holds none


class MapGraph:
    """Breadth-first distances over one map, computed once per (start, kind of move)."""

    def __init__(self, game_map: GameMap):
        self.map = game_map
        self._distances: dict[tuple[str, str], dict[str, int]] = {}
        self.spaces_by_kind: dict[str | None, tuple[str, ...]] = {}
        # each space's kind by name: `is_sea` and `is_land` are asked for every unit in many loops
        self.kind_of: dict[str, str] = {s.name: s.kind for s in game_map.spaces}
        self._enterable: dict[str, frozenset[str]] = {}  # kind of move -> the spaces it may enter (`_search`)
        self._land_steps: dict[str, tuple[str, ...]] | None = None  # `land_steps`, made once

    def distances(self, start: str, by: str) -> dict[str, int]:
        """Steps from `start` to every space reachable moving `by` land, sea or all."""
        key = (start, by)
        found = self._distances.get(key)
        if found is None:
            found = self._distances[key] = self._search(start, by)
        return found

    def land_steps(self) -> dict[str, tuple[str, ...]]:
        """Each land territory of the map -> its land neighbours (the map's own tuples), for a
        caller that searches the map's land steps many times (the agents' distances to the
        fighting: a dictionary look-up a territory, where the map's method costs two calls)."""
        found = self._land_steps
        if found is None:
            found = self._land_steps = {t: self.map.land_neighbours(t) for t in self.map.space_names("land")}
        return found

    def _search(self, start: str, by: str) -> dict[str, int]:
        adjacency = self.map.adjacency  # (the map's own tuples, read straight: `neighbours` in line)
        enterable = self._enterable.get(by)
        if enterable is None:  # the spaces a move `by` may enter, found once per kind of move
            enterable = self._enterable[by] = frozenset(
                s.name for s in self.map.spaces if not s.impassable and (by == "all" or s.kind == by))
        seen = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            steps = seen[here] + 1
            for there in adjacency[here]:
                if there not in seen and there in enterable:
                    seen[there] = steps
                    queue.append(there)
        return seen


@functools.lru_cache(maxsize=16)
def map_graph(game_map: GameMap) -> MapGraph:
    """The distance tables of a map, shared by every state on it."""
    return MapGraph(game_map)


class BoardQueries:
    """Read-only queries over a `GameState`, cached until the state's next effect."""

    def __init__(self, state: GameState):
        self.state = state
        self.map = state.map
        self.graph = map_graph(state.map)
        self._version = -1
        self._quiet = -1
        self._places = -1
        self._units_seen: list[Unit] | None = None
        self._factory_order: tuple[tuple[str, ...], tuple[str, ...]] | None = None  # (names, in natural order)
        self._refresh()

    def _refresh(self) -> None:
        if self._version != self.state.version:
            self._advance(self.state.version)

    def _advance(self, version: int) -> None:
        """Take the state as it stands for `version` (the state's version, or one it is back at)."""
        state = self.state
        # the units' index and answers stay when every change since was an event that changes no
        # unit (counters, treasury, income, the log: `GameState.quiet_changes`) on the same list
        steps = version - self._version
        same_list = self._units_seen is state.units
        units_stay = same_list and state.quiet_changes - self._quiet == steps
        # the index of units by place stays, too, when every change since left each unit where it
        # stood (`GameState.places_kept`: hits, flags, owners and control may have changed)
        places_stay = same_list and state.places_kept - self._places == steps
        self._version, self._quiet, self._places, self._units_seen = (version, state.quiet_changes,
                                                                      state.places_kept, state.units)
        if not places_stay:
            self._units_by_space: dict[str, list[Unit]] | None = None
            self._units_by_id: list[Unit] | None = None
            self._spaces_asked = 0  # spaces asked for (`units_in`) since: the index is made at the second
            # (space, its units by id) found without the index since (`units_in`'s first question, or
            # a caller's own walk: `note_units_in`): asked again, answered without making the index
            self._one_space: tuple[str, list[Unit]] | None = None
        if not units_stay:
            self._unit_answers: dict[Hashable, object] = {}
        self._components: dict[Hashable, dict[str, tuple[str, ...]]] = {}
        self._verdicts: dict[Hashable, dict[str, bool]] = {}
        self._answers: dict[Hashable, object] = {}

    def restored(self, version: int) -> None:
        """The state is again exactly as it was at `version`, by a change written straight into it
        and undone, with no event between (an agent's what-if: the state's counts of changes are
        those of `version`): what these queries keep for the board at `version` (the index of units
        by place, the answers) holds for the state's version now. Nothing is kept when they were
        asked meanwhile (what they hold is of the changed board)."""
        if self._version > version:
            return
        if self._version < version:
            self._advance(version)  # as a question at `version` would have taken it
        self._version = self.state.version

    def answers(self) -> dict[Hashable, object]:
        """A memo for answers worked out from the board (by whoever asks, under keys of its own),
        emptied when the state next changes."""
        self._refresh()
        return self._answers

    def unit_answers(self) -> dict[Hashable, object]:
        """A memo for answers worked out from the board's units alone (their spaces, owners, types,
        hits, moves, flags), emptied when they may have changed: kept across changes of counters,
        treasuries, income and the log, which rules make between two questions on the units."""
        self._refresh()
        return self._unit_answers

    # ---------------------------------------------------------------- names

    def _space(self, space: str) -> str:
        if space not in self.graph.kind_of:  # (the map's spaces by name: asked about 5,000 times a game)
            raise BoardError(f"unknown space '{space}'")
        return space

    def _player(self, player: str) -> str:
        if not self.map.has_player(player):
            raise BoardError(f"unknown player '{player}'")
        return player

    def players(self) -> tuple[str, ...]:
        """All players, in the map's order."""
        return self.map.player_names()

    def turn_order(self) -> tuple[str, ...]:
        """The players who take turns, in order."""
        return self.map.turn_order

    def spaces(self, kind: str | None = None) -> tuple[str, ...]:
        """All spaces (or only `land` / `sea`), in natural order."""
        if kind not in (None, "land", "sea"):
            raise BoardError(f"a space kind is 'land' or 'sea', not '{kind}'")
        found = self.graph.spaces_by_kind.get(kind)
        if found is None:  # the map never changes: sort once per map
            found = self.graph.spaces_by_kind[kind] = tuple(natural_sorted(self.map.space_names(kind)))
        return found

    # ---------------------------------------------------------------- known names
    # The language's space values are always spaces of this map, so its compiled call sites
    # read the state and the map straight, without checking the name again (user text is
    # checked once, where it becomes a value).

    def known_controller(self, space: str) -> str | None:
        return self.state.control.get(space)

    def known_controller_at_turn_start(self, space: str) -> str | None:
        return self.state.control_at_turn_start.get(space)

    def known_original_owner(self, space: str) -> str | None:
        return self.map.space(space).original_owner

    def known_is_land(self, space: str) -> bool:
        return self.map.space(space).kind == "land"

    def known_is_sea(self, space: str) -> bool:
        return self.map.space(space).kind == "sea"

    # ---------------------------------------------------------------- spaces

    def controller(self, space: str) -> str | None:
        """Who controls a space now (None: no one, or a sea zone)."""
        self._refresh()
        return self.state.control.get(self._space(space))

    def controller_at_turn_start(self, space: str) -> str | None:
        """Who controlled a space when the current turn started."""
        return self.state.control_at_turn_start.get(self._space(space))

    def original_owner(self, space: str) -> str | None:
        """Who owned a space when the game began (None: no one)."""
        return self.map.space(self._space(space)).original_owner

    def is_land(self, space: str) -> bool:
        """True for a land territory."""
        kind = self.graph.kind_of.get(space)
        if kind is None:
            return self.map.space(self._space(space)).kind == "land"
        return kind == "land"

    def is_sea(self, space: str) -> bool:
        """True for a sea zone."""
        kind = self.graph.kind_of.get(space)
        if kind is None:
            return self.map.space(self._space(space)).kind == "sea"
        return kind == "sea"

    def attribute(self, space: str, name: str, default: object = None) -> object:
        """A space attribute of the map (whatever attributes the map gives), or `default`."""
        return self.map.space(self._space(space)).attributes.get(name, default)

    def neighbours(self, space: str, kind: str = "all") -> tuple[str, ...]:
        """Adjacent spaces, all or only `land` / `sea` ones, in natural order."""
        if kind == "all":
            found = self.map.adjacency.get(space)  # (the map's own tuple, read straight)
            if found is not None:
                return found
        self._space(space)
        if kind == "all":
            return self.map.neighbours(space)
        if kind == "land":
            return self.map.land_neighbours(space)
        if kind == "sea":
            return self.map.sea_neighbours(space)
        raise BoardError(f"a neighbour kind is 'all', 'land' or 'sea', not '{kind}'")

    def distance(self, a: str, b: str, by: str = "all") -> int | None:
        """Fewest steps from `a` to `b` moving `by` land, sea or all; None when unreachable."""
        self._space(b)
        return self.graph.distances(self._space(a), _move(by)).get(b)

    def within(self, space: str, n: int, by: str = "all", through: Callable[[str], bool] | None = None
               ) -> tuple[str, ...]:
        """Spaces 1 to `n` steps from `space` (never `space` itself), in natural order; with
        `through`, only along paths whose spaces between `space` and the end satisfy it (the end
        itself need not)."""
        if through is None:
            distances = self.graph.distances(self._space(space), _move(by))
            return natural_sorted(s for s, d in distances.items() if 1 <= d <= n)
        by = _move(by)
        game_map = self.map
        seen = {self._space(space): 0}
        queue = deque([space])
        while queue:
            here = queue.popleft()
            if seen[here] >= n or (here != space and not through(here)):
                continue  # a path goes on only from a space it may pass
            for there in game_map.neighbours(here):
                info = game_map.space(there)
                if there in seen or info.impassable or (by != "all" and info.kind != by):
                    continue
                seen[there] = seen[here] + 1
                queue.append(there)
        return natural_sorted(s for s, d in seen.items() if d >= 1)

    def cached_connected(self, space: str, cache_key: Hashable) -> tuple[str, ...] | None:
        """The answer `connected(space, ..., cache_key)` keeps for this state, or None when there
        is none yet (so a caller can skip building the predicate)."""
        self._refresh()
        group = self._components.get(cache_key)
        return group.get(space) if group is not None else None

    def connected(self, space: str, predicate: Callable[[str], bool], cache_key: Hashable | None = None
                  ) -> tuple[str, ...]:
        """The land territories joined to `space` by a path of land territories satisfying `predicate`.

        Every territory of the path, `space` included, must satisfy the predicate; so the
        answer holds `space` itself exactly when it satisfies it, and is empty otherwise. Sea
        zones never join a path and impassable territories are never on one. With a
        `cache_key` (the caller's name for the predicate, e.g. `("friendly", player)`) the
        answer, and every other answer in the same group, is kept until the state changes.
        """
        self._refresh()
        self._space(space)
        if cache_key is not None:
            group = self._components.setdefault(cache_key, {})
            if space in group:
                return group[space]
            verdicts = self._verdicts.setdefault(cache_key, {})

            def holds(name: str) -> bool:
                if name not in verdicts:
                    verdicts[name] = bool(predicate(name))
                return verdicts[name]
        else:
            holds = lambda name: bool(predicate(name))  # noqa: E731
        result = natural_sorted(self._component(space, holds))
        if cache_key is not None:
            for member in result or (space,):
                group[member] = result
        return result

    def _component(self, start: str, holds: Callable[[str], bool]) -> list[str]:
        def on_path(name: str) -> bool:
            info = self.map.space(name)
            return info.kind == "land" and not info.impassable and holds(name)

        if not on_path(start):
            return []
        found = {start}
        queue = deque([start])
        while queue:
            for there in self.map.land_neighbours(queue.popleft()):
                if there not in found and on_path(there):
                    found.add(there)
                    queue.append(there)
        return list(found)

    def canals(self) -> tuple[Canal, ...]:
        """The canals of the map."""
        return self.map.canals

    # ---------------------------------------------------------------- units and factories

    def units(self, space: str | None = None, owner: str | None = None, unit_type: str | None = None,
              has_tag: Callable[[str], bool] | None = None) -> list[Unit]:
        """Units filtered by space, owner, type and a test on the unit type (its tags), by id."""
        if space is not None:
            pool = self.units_in(space)
        else:
            self._refresh()
            pool = self._units_by_id
            if pool is None:
                # every unit by id, kept until a unit moves, comes or goes: rules ask for the whole
                # board's units often (the index by space is made only when spaces are asked for)
                pool = self._units_by_id = sorted(self.state.units, key=_id_of)
        if owner is None and unit_type is None and has_tag is None:
            return list(pool)
        return [u for u in pool
                if (owner is None or u.owner == owner)
                and (unit_type is None or u.type == unit_type)
                and (has_tag is None or has_tag(u.type))]

    def units_in(self, space: str) -> Sequence[Unit]:
        """The units in one space, by id: the index's own list (read it, do not change it; it is
        kept until a unit moves, comes or goes). `units(space)` without filters, uncopied."""
        self._refresh()
        index = self._units_by_space
        if index is None:
            one = self._one_space
            if one is not None and one[0] == space:
                return one[1]
            if not self._spaces_asked:
                # the first space asked for since units moved, came or went (a battle's first step
                # asks for its own space, and often nothing else is asked before the next move or
                # casualty): its units found by one pass over the board, without the index of all
                self._spaces_asked = 1
                name = self._space(space)
                here = [u for u in self.state.units if u.space == name]
                if len(here) > 1:
                    here.sort(key=_id_of)  # (the index's order)
                self._one_space = (name, here)
                return here
            index = self._units_by_space = self._index_by_space()
        return index.get(self._space(space), _NO_UNITS)

    def note_units_in(self, space: str, units: list[Unit]) -> None:
        """Take `units` as the units in `space` now (in any order), from a caller that has just
        walked the board for them (a battle's set-up: its first step then asks for its own
        space): `units_in(space)` answers them, by id, until a unit moves, comes or goes, without
        a pass over the board of its own. Not counted as a question (`units_in`'s first)."""
        self._refresh()
        if self._units_by_space is None:
            self._one_space = (self._space(space), sorted(units, key=_id_of))

    def _index_by_space(self) -> dict[str, list[Unit]]:
        """Every space's units by id (a space holding none is not a key)."""
        index: dict[str, list[Unit]] = defaultdict(list)  # read with .get only: no key is added by a read
        by_id = self._units_by_id
        if by_id is None:
            by_id = self._units_by_id = sorted(self.state.units, key=_id_of)
        for unit in by_id:
            index[unit.space].append(unit)
        return index

    def factories(self, space: str | None = None, owner: str | None = None) -> tuple[Factory, ...]:
        """Factories, optionally in one space or of one owner, in natural space order."""
        if space is not None:
            found = self.state.factories.get(self._space(space))
            candidates = [found] if found is not None else []
        else:
            # the spaces' natural order kept while the same spaces hold factories (rules ask for a
            # player's factories every turn; a capture or a new factory changes the names)
            held = self.state.factories
            names = tuple(held)
            kept = self._factory_order
            if kept is None or kept[0] != names:
                kept = self._factory_order = (names, natural_sorted(names))
            candidates = [held[s] for s in kept[1]]
        if owner is None:
            return tuple(candidates)
        return tuple([f for f in candidates if f.owner == owner])

    # ---------------------------------------------------------------- economy

    def stated_income(self, player: str) -> int | None:
        """The income figure the scenario (or a rule) states for a player, or None when it states
        none: what a player earns otherwise is the rulesets' formula, not the board's. A player
        with several economies has a figure when it is stated as one number or for every economy."""
        self._player(player)
        total = self.state.income_override.get(player)
        if total is not None:
            return total
        stated = self.state.income_override_by_economy.get(player, {})
        economies = self.map.player(player).economies
        if stated and all(e in stated for e in economies):
            return sum(stated[e] for e in economies)
        return None

    def treasury(self, player: str, economy: str | None = None) -> int:
        """What a player has in the bank: one economy, or all of them added up."""
        amounts = self.state.treasury[self._player(player)]
        if economy is None:
            return sum(amounts.values())
        if economy not in amounts:
            raise BoardError(f"'{player}' has no economy '{economy}'")
        return amounts[economy]

    def counter(self, name: str, key: tuple = (), default: object = None) -> object:
        """One entry of a named counter, or `default`."""
        return self.state.counters.get(name, {}).get(tuple(key), default)

    # ---------------------------------------------------------------- players and sides

    def side_of(self, player: str) -> str | None:
        """The side of a player (None: it stands alone)."""
        return self.map.side_of(self._player(player))

    def allies(self, player: str) -> tuple[str, ...]:
        """The other players of the same side (none for a player without a side)."""
        side = self.side_of(player)
        if side is None:
            return ()
        return tuple(p for p in self.map.sides.get(side, ()) if p != player)

    def enemies(self, player: str) -> tuple[str, ...]:
        """Every other player not on the player's side."""
        side = self.side_of(player)
        return tuple(p.name for p in self.map.players
                     if p.name != player and (side is None or p.side != side))

    def is_friendly(self, player: str, other: str | None) -> bool:
        """True when `other` is `player` or one of its allies."""
        return other is not None and (other == player or other in self.allies(player))

    def current_player(self) -> str | None:
        """Whose turn it is."""
        return self.state.current_player

    def round(self) -> int:
        """The round number, from 1."""
        return self.state.round


def _move(by: str) -> str:
    if by not in MOVES:
        raise BoardError(f"a move is by 'land', 'sea' or 'all', not '{by}'")
    return by
