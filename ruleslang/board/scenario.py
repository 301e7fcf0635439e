"""Scenarios: a board position given as changes to a map's starting position.

A scenario file (format in docs/maps.md) names a map and overrides control, units, factories,
economies, counters, options and facts. Every name accepts the map's spellings and aliases.
Named scenarios live at `<root>/<family>/scenarios/<name>.yaml` and are referred to as
`family/name`. Codes:

    D611 schema                        D630 no map given
    D631 unknown space                 D632 unknown player
    D633 unknown economy               D634 a factory with no owner
    D635 a different map than the base D636 a name given twice under two spellings
    D637 a player who takes no turns   D638 control of a sea zone
    D639 unknown scenario
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping, Sequence

from ruleslang.base.fileio import is_file
from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, Related, error
from ruleslang.base.limits import MAX_UNITS
from ruleslang.base.source import Source, Span
from ruleslang.base.suggest import did_you_mean
from ruleslang.base.yamlio import (Positions, Problems, load_schema, load_yaml, not_a_file, read_source, validate,
                                   validate_text)
from ruleslang.board.mapdata import FactoryInfo, GameMap, flatten_counter, is_path_ref, load_map

_NAMED_REF = re.compile(r"^[a-z][a-z0-9_-]*/[a-z0-9][a-z0-9_-]*$")
SETUPS = ("start", "empty")


@dataclass(frozen=True)
class Located:
    """A raw value from a scenario and where it was written (for "option 'x' expects ..." errors)."""

    value: object
    span: Span | None = None


@dataclass(frozen=True)
class TurnInfo:
    """Whose turn it is: the round (from 1), the player, and the phase when one is named."""

    round: int
    player: str
    phase: str | None = None


@dataclass(frozen=True)
class PlayerEconomy:
    """Economy figures a scenario states for one player.

    `treasury` and `income` map economy -> amount, holding only the economies the scenario
    names; `income_total` is set when the scenario gives income as one number.
    """

    treasury: Mapping[str, int] = field(default_factory=dict)
    income: Mapping[str, int] = field(default_factory=dict)
    income_total: int | None = None


@dataclass(frozen=True, eq=False)
class Scenario:
    """A board position: a map plus the overrides of its starting position.

    `units` REPLACE the starting units of each space they name (all players' units there);
    a space not named keeps its starting units. `factories` add, replace (mapping to a
    player or `{owner, kind, damage, original}`) or remove (mapping to `none`) the factory of each space named.
    With `setup: empty` the board starts with no units and no factories at all.
    """

    map: GameMap
    rulesets: tuple[str, ...] = ()
    setup: str = "start"
    turn: TurnInfo | None = None
    control: Mapping[str, str | None] = field(default_factory=dict)
    units: Mapping[str, Mapping[str, Mapping[str, int]]] = field(default_factory=dict)
    factories: Mapping[str, FactoryInfo | None] = field(default_factory=dict)
    economy: Mapping[str, PlayerEconomy] = field(default_factory=dict)
    options: Mapping[str, Located] = field(default_factory=dict)
    facts: Mapping[str, object] = field(default_factory=dict)
    counters: Mapping[str, Mapping[tuple, object]] = field(default_factory=dict)
    title: str = ""
    path: Path | None = None
    positions: Positions | None = None
    # Where the names that rulesets check were written, kept across `with` layers (whose
    # positions replace the base's): ("map",), ("rulesets", i), ("units", space, player, type).
    name_spans: Mapping[tuple, Span | None] = field(default_factory=dict)

    def span(self, *path) -> Span | None:
        """Where a data path of the scenario was written (`scenario.span("facts", "x")`)."""
        return self.positions.span(path) if self.positions is not None else None

    @classmethod
    def start_of(cls, game_map: GameMap) -> "Scenario":
        """The map's starting position with nothing changed."""
        return cls(map=game_map, turn=TurnInfo(1, _first_player(game_map)))


def _first_player(game_map: GameMap) -> str:
    return (game_map.turn_order or game_map.player_names())[0]


def _freeze(mapping: dict) -> Mapping:
    return MappingProxyType(mapping)


def _mapping(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _section(data: dict, key: str) -> dict:
    """A mapping section of the data, or an empty one (the schema reports a wrong shape)."""
    return _mapping(data.get(key))


# ---------------------------------------------------------------- finding scenario files


def find_scenario(ref: str, roots: Sequence[Path]) -> Path | None:
    """The file a scenario reference names: a `.yaml` path or `family/name` under the roots."""
    if _is_named(ref):
        family, name = ref.split("/")
        for root in roots:
            candidate = Path(root) / family / "scenarios" / f"{name}.yaml"
            if is_file(candidate):
                return candidate
        return None
    candidate = Path(ref)
    return candidate if is_file(candidate) else None


def _is_named(ref: str) -> bool:
    return bool(_NAMED_REF.match(ref)) and not ref.endswith((".yaml", ".yml"))


def list_scenarios(roots: Sequence[Path]) -> list[tuple[str, Path]]:
    """(`family/name`, path) of every named scenario under the roots; earlier roots win."""
    seen: dict[str, Path] = {}
    for root in roots:
        for path in sorted(Path(root).glob("*/scenarios/*.yaml")):
            ref = f"{path.parent.parent.name}/{path.stem}"
            seen.setdefault(ref, path)
    return sorted(seen.items())


def load_scenario(ref: str, roots: Sequence[Path], *, default_map: str | None = None,
                  span: Span | None = None) -> Scenario:
    """Load a scenario by path or by name (`aar/start`); `default_map` serves a file without `map`.

    An unknown scenario is D639 (located at `span` when the caller has one); a bad one raises
    `DiagnosticError` with every problem at its YAML line and column.
    """
    path = find_scenario(ref, roots)
    if path is None and is_path_ref(ref) and not _is_named(ref):
        raise DiagnosticError(not_a_file(ref, span))  # a path: say what is wrong with it, not "unknown scenario"
    if path is None:
        known = [name for name, _ in list_scenarios(roots)]
        hint = did_you_mean(ref, known, n=3)
        raise DiagnosticError(error("D639", f"unknown scenario '{ref}'", span, hint=hint,
                                    file=None if span else ref))
    source = read_source(path)
    data, positions = load_yaml(source)
    return scenario_from_data({} if data is None else data, positions, source, roots,
                              default_map=default_map, path=path, text=source.text)


# ---------------------------------------------------------------- building a scenario


def scenario_from_data(data: dict, positions: Positions, source: Source | None, roots: Sequence[Path], *,
                       base: Scenario | None = None, default_map: str | None = None,
                       path: Path | None = None, text: str | None = None) -> Scenario:
    """Build a scenario from plain data (a loaded file, or a record the language wrote); `text`, the
    file the data was read from, lets a text found valid before skip the schema (yamlio.validate_text).

    With `base`, the data is merged over it: control, units, factories, economy, options,
    facts and counters are overridden key by key, turn fields one by one, rulesets replaced.
    Raises `DiagnosticError` listing every problem.
    """
    problems = (validate(data, load_schema("scenario"), positions, code="D611") if text is None
                else validate_text(data, "scenario", positions, text, code="D611"))
    if not isinstance(data, dict):
        raise DiagnosticError(problems or [error("D611", "a scenario must be a mapping", positions.span(()))])
    game_map = _scenario_map(data, positions, source, roots, base, default_map, path, problems)
    if game_map is None:
        raise DiagnosticError(problems)
    reader = _ScenarioReader(game_map, positions, problems)
    scenario = reader.read(data, base or Scenario.start_of(game_map), path)
    if problems:
        raise DiagnosticError(problems)
    return scenario


def _scenario_map(data: dict, positions: Positions, source: Source | None, roots: Sequence[Path],
                  base: Scenario | None, default_map: str | None, path: Path | None,
                  problems: list[Diagnostic]) -> GameMap | None:
    ref = data.get("map")
    if not isinstance(ref, str):
        if base is not None:
            return base.map
        if default_map is None:
            problems.append(error("D630", "the scenario names no map", positions.span(()),
                                  hint="add a line `map: NAME` (for example `map: aar`)",
                                  file=None if positions.span(()) else (source.name if source else None)))
            return None
        ref = default_map
    span = positions.span(("map",)) if "map" in data else positions.span(())
    if ref.endswith((".yaml", ".yml")) and path is not None and not Path(ref).is_absolute():
        ref = str(path.parent / ref)  # a map file named beside the scenario
    try:
        game_map = load_map(ref, roots, span=span,
                            allowed=[*roots, path.parent] if path is not None else list(roots))
    except DiagnosticError as exc:
        problems.extend(exc.diagnostics)
        return None
    if base is not None and game_map is not base.map:
        problems.append(error("D635", f"map: this scenario is based on the map '{base.map.name}', "
                              f"it cannot change it to '{game_map.name}'", span))
        return None
    return game_map


class _ScenarioReader:
    """Resolves the names of schema-shaped scenario data, collecting every problem."""

    def __init__(self, game_map: GameMap, positions: Positions, problems: list[Diagnostic]):
        self.map = game_map
        self.positions = positions
        self.problem = Problems(positions, problems).add

    def space(self, path: tuple, text: object, *, at_key: bool = False) -> str | None:
        """The canonical space `text` spells on the map, or None after reporting it (D631)."""
        return self._resolve("space", "D631", self.map.resolve_space, self.map.space_spellings, None,
                             path, text, at_key)

    def player(self, path: tuple, text: object, *, at_key: bool = False) -> str | None:
        """The canonical player `text` spells on the map, or None after reporting it (D632)."""
        return self._resolve("player", "D632", self.map.resolve_player, self.map.player_spellings,
                             "players: " + ", ".join(self.map.player_names()), path, text, at_key)

    def _resolve(self, what: str, code: str, resolve, spellings, fallback: str | None, path: tuple,
                 text: object, at_key: bool) -> str | None:
        if not isinstance(text, str):
            return None
        name = resolve(text)
        if name is None:
            self.problem(code, path, f"unknown {what} '{text}' on the map '{self.map.name}'", at_key=at_key,
                         hint=did_you_mean(text, spellings()) or fallback)
        return name

    def keyed(self, section: str, data: dict, resolve) -> dict[str, tuple[object, tuple]]:
        """Resolve the keys of a mapping section; report two spellings of one name (D636)."""
        out: dict[str, tuple[object, tuple]] = {}
        for text, value in _mapping(data).items():
            path = section + (text,) if isinstance(section, tuple) else (section, text)
            name = resolve(path, text, at_key=True)
            if name is None:
                continue
            if name in out:
                first = out[name][1]
                named = f"'{text}'" if text == name else f"'{text}' names '{name}', which"
                self.problem("D636", path, f"{named} is already given as '{first[-1]}'",
                             at_key=True, related=[Related(self.positions.key_span(first), "first given here")])
                continue
            out[name] = (value, path)
        return out

    def read(self, data: dict, base: Scenario, path: Path | None) -> Scenario:
        control = dict(base.control)
        for space, (value, where) in self.keyed("control", _section(data, "control"), self.space).items():
            if self.map.space(space).kind == "sea":
                self.problem("D638", where, f"'{space}' is a sea zone; only land territories are controlled",
                             at_key=True)
                continue
            if value is None:
                control[space] = None
            else:
                player = self.player(where, value)
                if player is not None:
                    control[space] = player
        units = dict(base.units)
        spans = self.layer_spans(data, base)
        written: list[tuple[tuple, int]] = []  # (data path, count) of this layer's counts, in order
        for space, (by_player, where) in self.keyed("units", _section(data, "units"), self.space).items():
            placed: dict[str, dict[str, int]] = {}
            spans = {k: s for k, s in spans.items() if k[:2] != ("units", space)}  # this layer replaces them
            for player, (by_type, at) in self.keyed(where, by_player, self.player).items():
                counts = {t: n for t, n in _mapping(by_type).items() if isinstance(n, int) and n > 0}
                if counts:
                    placed[player] = counts
                written += [(at + (t,), n) for t, n in counts.items()]
                for t in _mapping(by_type):
                    spans[("units", space, player, t)] = self.positions.key_span(at + (t,))
            units[space] = _freeze({p: _freeze(c) for p, c in placed.items()})
        self.check_unit_total(units, written)
        factories = dict(base.factories)
        self.read_factories(data.get("factories"), control, base, factories)
        economy = dict(base.economy)
        for player, (figures, where) in self.keyed("economy", _section(data, "economy"), self.player).items():
            economy[player] = self.read_economy(player, figures if isinstance(figures, dict) else {}, where,
                                                economy.get(player))
        options = dict(base.options)
        for name, value in _section(data, "options").items():
            options[name] = Located(value, self.positions.span(("options", name)))
        facts = {**base.facts, **_section(data, "facts")}
        counters = dict(base.counters)
        for name, value in _section(data, "counters").items():
            counters[name] = _freeze(flatten_counter(value))
        return Scenario(
            map=self.map,
            rulesets=tuple(data["rulesets"]) if isinstance(data.get("rulesets"), list) else base.rulesets,
            setup=data.get("setup") if data.get("setup") in SETUPS else base.setup,
            turn=self.read_turn(data.get("turn"), base.turn),
            control=_freeze(control), units=_freeze(units), factories=_freeze(factories),
            economy=_freeze(economy), options=_freeze(options), facts=_freeze(facts),
            counters=_freeze(counters),
            title=data.get("title") if isinstance(data.get("title"), str) else base.title,
            path=path or base.path, positions=self.positions, name_spans=_freeze(spans))

    def layer_spans(self, data: dict, base: Scenario) -> dict[tuple, Span | None]:
        """The base's `name_spans` with this layer's `map:` and `rulesets:` (units are added by `read`)."""
        spans = dict(base.name_spans)
        if "map" in data:
            spans[("map",)] = self.positions.span(("map",))
        if isinstance(data.get("rulesets"), list):
            spans = {k: s for k, s in spans.items() if k[0] != "rulesets"}
            for i in range(len(data["rulesets"])):
                spans[("rulesets", i)] = self.positions.span(("rulesets", i))
        return spans

    def read_turn(self, turn: object, base: TurnInfo | None) -> TurnInfo:
        base = base or TurnInfo(1, _first_player(self.map))
        if not isinstance(turn, dict):
            return base
        round_ = turn.get("round") if isinstance(turn.get("round"), int) else base.round
        player = base.player
        if "player" in turn:
            found = self.player(("turn", "player"), turn["player"])
            if found is not None and self.map.turn_order and found not in self.map.turn_order:
                self.problem("D637", ("turn", "player"), f"'{found}' takes no turns on the map '{self.map.name}'",
                             hint="players who take turns: " + ", ".join(self.map.turn_order))
            elif found is not None:
                player = found
        phase = turn["phase"] if "phase" in turn and (turn["phase"] is None or isinstance(turn["phase"], str)) \
            else base.phase
        return TurnInfo(round_, player, phase)

    def check_unit_total(self, units: Mapping, written: list[tuple[tuple, int]]) -> None:
        """D612 at the count that takes the board past MAX_UNITS units (a unit is an object in play)."""
        total = sum(n for by_player in units.values() for counts in by_player.values() for n in counts.values())
        if total <= MAX_UNITS:
            return
        running = total - sum(n for _, n in written)  # the units of the scenario this one is based on
        for path, n in written:
            running += n
            if running > MAX_UNITS:
                self.problem("D612", path, f"the board would hold {total} units; at most {MAX_UNITS} are allowed")
                return
        self.problem("D612", ("units",), f"the board would hold {total} units; at most {MAX_UNITS} are allowed")

    def read_factories(self, value: object, control: dict, base: Scenario, factories: dict) -> None:
        kinds = self.map.factory_kinds_used()
        sole_kind = kinds[0] if len(kinds) == 1 else None

        def kind_at(space: str) -> str | None:
            known = factories.get(space) or self.map.start.factories.get(space)
            return known.kind if known is not None else sole_kind

        if isinstance(value, list):
            for i, text in enumerate(value):
                space = self.space(("factories", i), text)
                if space is None:
                    continue
                owner = control.get(space, self.map.start.control.get(space))
                if owner is None:
                    self.problem("D634", ("factories", i), f"no one controls '{space}', so its factory has no owner",
                                 hint=f"write the owner: `factories: {{{space}: PLAYER}}`")
                    continue
                factories[space] = FactoryInfo(owner, kind_at(space))
            return
        for space, (entry, where) in self.keyed("factories", _mapping(value), self.space).items():
            if entry is None:
                factories[space] = None
                continue
            fields = entry if isinstance(entry, dict) else {"owner": entry}
            owner = self.player(where + (("owner",) if isinstance(entry, dict) else ()), fields.get("owner"))
            if owner is not None:
                damage = fields.get("damage") if isinstance(fields.get("damage"), int) else 0
                original = fields.get("original") is not False
                factories[space] = FactoryInfo(owner, fields.get("kind") or kind_at(space), damage,
                                               original=original)

    def read_economy(self, player: str, figures: dict, where: tuple, base: PlayerEconomy | None) -> PlayerEconomy:
        info = self.map.player(player)
        base = base or PlayerEconomy()
        result = {"treasury": dict(base.treasury), "income": dict(base.income)}
        total = base.income_total
        for key in ("treasury", "income"):
            amount = figures.get(key)
            if isinstance(amount, bool) or amount is None:
                continue
            if isinstance(amount, int):
                if key == "income":
                    total = amount
                    result["income"] = {info.economies[0]: amount} if len(info.economies) == 1 else {}
                else:
                    result["treasury"][info.economies[0]] = amount
                continue
            for economy, value in amount.items() if isinstance(amount, dict) else ():
                if economy not in info.economies:
                    self.problem("D633", where + (key, economy), f"'{player}' has no economy '{economy}'",
                                 at_key=True, hint="its economies: " + ", ".join(info.economies))
                elif isinstance(value, int):
                    result[key][economy] = value
                    if key == "income":
                        total = None
        return PlayerEconomy(_freeze(result["treasury"]), _freeze(result["income"]), total)
