"""Import a TripleA game file: a ruleslang map plus a generated base ruleset.

The `triplea*` modules of the package are the ones that know TripleA's vocabulary (its XML
elements, attachment classes, option names and delegates): this one translates the map and the
unit types and runs an import; `triplea_variables` expands `variableList` / `foreach` first,
`triplea_production` reads the production frontiers, `triplea_names` spells names and values,
`triplea_report` holds the report. What the XML declares is translated as data:

- the map: territories, connections, production values, owners, capitals and victory cities
  (as space attributes), impassable and neutral territories, canals, starting units, factories
  and resources;
- the base ruleset: unit types with their numeric options as attributes and their boolean
  options as tags, each player's production frontier (what it may buy, at what price), and a
  player's turn as `phase` declarations over the runtime's procedures plus `sequence turn`.

Everything else (conditions, triggers, political actions, game properties coded in Java, ...)
is listed in the `ImportReport` as untranslated, with its XML line. The XML is read by
`safexml` (no entity declarations, no DTD fetching: D640, D641). Codes:

    D642 not a TripleA game file             D643 the XML contradicts itself
    D645 an item not translated (warning)    D646 a name renamed to fit ruleslang (warning)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, error, warning
from ruleslang.base.source import Source, Span, span_at
from ruleslang.lang.syntax.parser import parse_module
from ruleslang.base.yamlio import dump_yaml, load_yaml
from ruleslang.board.mapdata import map_from_data, natural_key
from ruleslang.base.safexml import XmlElement, read_xml
from ruleslang.base.fileio import write_atomic
from ruleslang.base.limits import MAX_NUMBER_DIGITS, MAX_UNITS
from ruleslang.importers.triplea_names import identifier, map_name_for, option_value, quote, snake_case
from ruleslang.importers.triplea_production import (BOUGHT, FRONTIER_TABLE, IN_FRONTIER, LOTS_CONSTRAINT, Offer,
                                                      first_prices, frontier_lines, purchase_settings,
                                                      read_frontiers)
# format_report is imported for the callers of this module's entry points (the command line, tests).
from ruleslang.importers.triplea_report import RULESET_VERSION, ImportItem, ImportReport, format_report  # noqa: F401
from ruleslang.importers.triplea_variables import expand_variables

MONEY_RESOURCE = "PUs"
_SEA_ZONE_NUMBER = re.compile(r"^(\d+) Sea Zone$")

# ---------------------------------------------------------------- translation tables

_ATTACHMENT_CLASS = "games.strategy.triplea.attachments."

# Settings of the move procedures, filled in from the attributes and tags the file declares.
_MOVE_SETTINGS = "{move_settings}"
# Settings of the purchase procedure: the current player's production frontier.
_PURCHASE_SETTINGS = "{purchase_settings}"


def move_settings(attr_names: dict[str, str], tag_names: dict[str, str]) -> str:
    """The `runtime move` settings a translated game can give: movement, domain and what its
    units declare of blitzing, transports and carriers (the rest of its rules are TripleA's Java)."""
    air, sea = tag_names.get("air"), tag_names.get("sea")
    domain = '"land"'
    if sea:
        domain = f'(if has_tag(u, {sea}) then "sea" else {domain})'
    if air:
        domain = f'(if has_tag(u, {air}) then "air" else {domain})'
    parts = [f"movement: u => u.{attr_names.get('movement', 'movement')}", f"domain: u => {domain}"]
    if "blitz" in tag_names:
        parts.append(f"blitz: u => has_tag(u, {tag_names['blitz']})")
    for attr in ("transport_capacity", "transport_cost", "carrier_capacity", "carrier_cost"):
        if attr in attr_names:
            parts.append(f"{attr}: u => u.{attr_names[attr]}")
    return ", ".join(parts) + "}"

# TripleA delegate classes that ruleslang's turn phases stand for: phase name and declaration.
# A TripleA step runs for one player; a ruleslang phase runs for the current player of the turn.
_TURN_PHASES = {
    # TechnologyDelegate: research is written in the ruleset language (see aar/base@1), not
    # translated: the report lists it.
    "PurchaseDelegate": ("purchase", "runtime purchase with " + _PURCHASE_SETTINGS),
    "NoPUPurchaseDelegate": ("purchase", "runtime purchase with " + _PURCHASE_SETTINGS),
    "combat move": ("combat_move", 'runtime move with {kind: "combat", ' + _MOVE_SETTINGS),
    "noncombat move": ("noncombat_move", 'runtime move with {kind: "noncombat", ' + _MOVE_SETTINGS),
    # BattleDelegate: TripleA fights battles by its own Java rules; their steps are written in the
    # ruleset language (aar/base@1 shows how), not translated: the report lists the step.
    "PlaceDelegate": ("place", "runtime place"),
    "NoAirCheckPlaceDelegate": ("place", "runtime place"),
    # TripleA's end of turn is where the player collects income.
    "EndTurnDelegate": ("collect_income", "\n    let p = current_player()\n    change treasury(p) by income(p)"),
}

# The income the collect-income phase adds: what the scenario states, else the production
# values of the land a player controls (TripleA's rule without national objectives).
_INCOME_FORMULA = [
    "# A player's income: the figure the scenario states, else the IPC values of the land it controls.",
    "formula income(p: player) -> int:",
    "    let stated = stated_income(p)",
    "    if stated != none then stated else sum(t.ipc for t in territories() where controller(t) == p)",
    "",
]

# Unit options whose value is a number: the ruleslang attribute and its default.
_UNIT_NUMBERS = {
    "attack": ("attack", 0),
    "defense": ("defense", 0),
    "movement": ("movement", 0),
    "hitPoints": ("hit_points", 1),
    "carrierCapacity": ("carrier_capacity", 0),
    "carrierCost": ("carrier_cost", 0),
    "transportCapacity": ("transport_capacity", 0),
    "transportCost": ("transport_cost", 0),
    "maxAAattacks": ("max_aa_attacks", 0),
    "attackAA": ("attack_aa", 0),
    "attackAAmaxDieSides": ("attack_aa_max_die_sides", 0),
    "offensiveAttackAA": ("offensive_attack_aa", 0),
    "offensiveAttackAAmaxDieSides": ("offensive_attack_aa_max_die_sides", 0),
}

# Boolean unit options and the tag each becomes; other booleans become snake_case tags.
_UNIT_TAGS = {
    "isSub": "submarine",
    "isAir": "air",
    "isSea": "sea",
    "isDestroyer": "destroyer",
    "canBlitz": "blitz",
    "artillery": "artillery",
    "artillerySupportable": "artillery_supportable",
    "isAA": "aa",
    "isInfantry": "infantry",
    "isFactory": "factory",
    "isStrategicBomber": "strategic_bomber",
    "canBombard": "bombard",
    "canIntercept": "interceptor",
    "canEscort": "escort",
    "canAirBattle": "air_battle",
    "canScramble": "scramble",
    "isAirBase": "air_base",
    "canNotMoveDuringCombatMove": "no_combat_move",
}

# Territory options carried into the map as fields (the rest become space attributes).
_TRIPLEA_NEUTRAL = "Neutral"  # the name of TripleA's neutral pseudo-player (PlayerId.NULL_PLAYERID)
_TERRITORY_FIELDS = {"production", "capital", "victoryCity", "originalOwner", "isImpassable"}
# Territory options that are plain data: kept as attributes without a warning.
_TERRITORY_DATA = {"unitProduction", "blockadeZone", "kamikazeZone", "navalBase", "airBase",
                   "convoyRoute", "isConvoyRoute", "objectiveValue"}

# Top-level elements read by the importer, or with nothing a ruleset could use.
_ELEMENTS_READ = {"info", "loader", "triplea", "map", "resourceList", "playerList", "unitList",
                  "gamePlay", "production", "attachmentList", "initialize", "propertyList", "variableList"}


# ---------------------------------------------------------------- the importer


class _Importer:
    def __init__(self, root: XmlElement, source: Source, report: ImportReport):
        self.source = source
        self.report = report
        self.problems: list[Diagnostic] = []
        self.root = expand_variables(root, self.fail)
        self.unit_names: dict[str, str] = {}
        self.owner_elements: dict[str, XmlElement] = {}
        self.ownerless_units: str | None = None  # the player given the units placed without an owner
        for element in self.section("unitList").all("unit"):
            if element.attrs.get("name"):
                self.unit_name(element.attrs["name"], element)

    def span(self, element: XmlElement | None) -> Span | None:
        if element is None:
            return None
        return span_at(self.source, element.line, element.column, len(element.tag) + 1)

    def untranslated(self, category: str, name: str, detail: str, element: XmlElement | None) -> None:
        self.report.untranslated.append(ImportItem(category, name, detail, element.line if element else None,
                                                   element.column if element else 1))

    def fail(self, message: str, element: XmlElement | None, code: str = "D643") -> None:
        self.problems.append(error(code, message, self.span(element)))

    def whole(self, element: XmlElement, name: str, default: int) -> int | None:
        """The whole number attribute `name` of `element` gives (`default` when absent or empty), or
        None after a located D643 (a decimal, a word, a number of more digits than the limit)."""
        text = (element.attrs.get(name) or "").strip()
        if not text:
            return default
        if re.fullmatch(r"-?\d{1,%d}" % MAX_NUMBER_DIGITS, text):
            return int(text)
        self.fail(f"the {name} '{text[:40]}' is not a whole number", element)
        return None

    def section(self, tag: str) -> XmlElement:
        found = self.root.first(tag)
        return found if found is not None else XmlElement(tag, {}, self.root.line, self.root.column)

    # -- the parts the map needs

    def territories(self) -> dict[str, XmlElement]:
        out: dict[str, XmlElement] = {}
        for element in self.section("map").all("territory"):
            name = element.attrs.get("name", "")
            if not name:
                self.fail("a <territory> has no name", element)
            elif name in out:
                self.fail(f"the territory '{name}' is declared twice", element)
            else:
                out[name] = element
        return out

    def player_elements(self) -> list[XmlElement]:
        return [p for p in self.section("playerList").all("player") if p.attrs.get("name")]

    def unit_name(self, name: str, element: XmlElement | None = None) -> str:
        """The ruleslang name of a TripleA unit type (renamed when it is not an identifier)."""
        if name not in self.unit_names:
            new = identifier(name)
            while new in self.unit_names.values():
                new += "_"
            if new != name:
                self.report.renames.append((name, new))
                self.untranslated("rename", name, f"renamed to '{new}' (not a ruleslang name)", element)
            self.unit_names[name] = new
        return self.unit_names[name]

    def attachments(self, cls: str) -> list[XmlElement]:
        return [a for a in self.section("attachmentList").all("attachment")
                if a.attrs.get("javaClass", "").removeprefix(_ATTACHMENT_CLASS) == cls]

    @staticmethod
    def options(attachment: XmlElement) -> list[tuple[str, str, XmlElement]]:
        return [(o.attrs.get("name", ""), o.attrs.get("value", ""), o) for o in attachment.all("option")]

    def unit_options(self) -> dict[str, dict[str, tuple[str, XmlElement]]]:
        out: dict[str, dict[str, tuple[str, XmlElement]]] = {}
        for attachment in self.attachments("UnitAttachment"):
            unit = attachment.attrs.get("attachTo", "")
            for name, value, element in self.options(attachment):
                out.setdefault(unit, {})[name] = (value, element)
        return out

    def factory_units(self) -> set[str]:
        """Unit types that are factories (TripleA's isFactory or canProduceUnits)."""
        return {unit for unit, options in self.unit_options().items()
                if any(options.get(k, ("",))[0] == "true" for k in ("isFactory", "canProduceUnits"))}

    def map_data(self, name: str, title: str, source: object) -> dict:
        territories = self.territories()
        water = {n for n, e in territories.items() if e.attrs.get("water") == "true"}
        neighbours: dict[str, set[str]] = {n: set() for n in territories}
        for element in self.section("map").all("connection"):
            a, b = element.attrs.get("t1", ""), element.attrs.get("t2", "")
            missing = [t for t in (a, b) if t not in territories]
            if missing:
                self.fail(f"the connection names an unknown territory '{missing[0]}'", element)
            elif a == b:
                self.fail(f"the territory '{a}' is connected to itself", element)
            elif b in neighbours[a]:
                self.untranslated("connection", f"{a} - {b}", "given twice; kept once", element)
            else:
                neighbours[a].add(b)
                neighbours[b].add(a)
        owners: dict[str, str] = {}
        for element in self.section("initialize").walk("territoryOwner"):
            territory, owner = element.attrs.get("territory", ""), element.attrs.get("owner", "")
            if territory not in territories:
                self.fail(f"an owner is given for the unknown territory '{territory}'", element)
            else:
                owners[territory] = owner
                self.owner_elements[territory] = element
        fields: dict[str, dict[str, object]] = {n: {} for n in territories}
        attributes: dict[str, dict[str, object]] = {n: {} for n in territories}
        for attachment in self.attachments("TerritoryAttachment"):
            territory = attachment.attrs.get("attachTo", "")
            if territory not in territories:
                self.fail(f"a territory attachment names the unknown territory '{territory}'", attachment)
                continue
            for option, value, element in self.options(attachment):
                if option in _TERRITORY_FIELDS:
                    fields[territory][option] = value
                    continue
                attributes[territory][snake_case(option)] = option_value(value)
                if option not in _TERRITORY_DATA:
                    self.untranslated("territory option", option,
                                      f"kept as the space attribute '{snake_case(option)}'; its effect is not translated",
                                      element)
        players = [p.attrs["name"] for p in self.player_elements()]
        spaces = []
        for territory in sorted(territories, key=lambda t: (t in water, natural_key(t))):
            spaces.append(self.space_entry(territory, territory in water, fields[territory],
                                           attributes[territory], owners.get(territory), neighbours[territory],
                                           players))
        data: dict = {"format": 1, "name": name, "title": title}
        if source:
            data["source"] = source
        data["players"] = self.players_data(fields)
        data["turn_order"] = self.turn_order(players)
        data["spaces"] = spaces
        canals = self.canals(territories, water, neighbours)
        if canals:
            data["canals"] = canals
        data["start"] = self.start_data(territories, water)
        if self.ownerless_units:
            # TripleA gives units placed without an owner to its neutral pseudo-player: a player here,
            # outside the turn order (it takes no turns, and chooses its casualties when attacked)
            data["players"].append({"name": self.ownerless_units})
        return data

    def space_entry(self, territory: str, is_sea: bool, fields: dict, attributes: dict,
                    owner: str | None, neighbours: set[str], players: list[str]) -> dict:
        entry: dict = {"name": territory, "kind": "sea" if is_sea else "land"}
        number = _SEA_ZONE_NUMBER.match(territory)
        if number:
            entry["aliases"] = [f"SZ {number.group(1)}", f"Sea Zone {number.group(1)}"]
        production = option_value(str(fields.get("production", "0")))
        if isinstance(production, int) and production and not is_sea:
            attributes["ipc"] = production  # the base ruleset declares the space attribute ipc
        elif production:
            attributes["production"] = production
        original = fields.get("originalOwner", owner)
        if is_sea:
            # A sea zone has no owner in ruleslang; TripleA uses owned sea zones as markers.
            if owner:
                attributes["owned_by"] = owner
                self.untranslated("sea zone owner", territory, f"owned by {owner} at the start; kept as the "
                                  "space attribute 'owned_by'", self.owner_elements.get(territory))
        else:
            if owner:
                entry["owner"] = owner
            if original != owner:
                entry["original_owner"] = original or None
        if fields.get("isImpassable") == "true":
            entry["impassable"] = True
        if not is_sea and (owner is None or owner.startswith("Neutral")):
            # TripleA marks neutrals by having no owner, or by a neutral pseudo-player.
            entry["neutral"] = True
        if "capital" in fields:
            attributes = {"capital": fields["capital"], **attributes}
        if "victoryCity" in fields:
            vc = option_value(fields["victoryCity"])
            attributes["victory_city"] = bool(vc)
            if isinstance(vc, int) and vc > 1:
                attributes["victory_city_value"] = vc
        if attributes:
            entry["attributes"] = attributes
        entry["neighbours"] = sorted(neighbours, key=natural_key)
        return entry

    def players_data(self, fields: dict[str, dict]) -> list[dict]:
        sides: dict[str, list[tuple[str, XmlElement]]] = {}
        for element in self.section("playerList").all("alliance"):
            sides.setdefault(element.attrs.get("player", ""), []).append((element.attrs.get("alliance", ""), element))
        capitals: dict[str, str] = {}
        for territory, options in fields.items():
            if "capital" in options:
                capitals.setdefault(options["capital"], territory)
        out = []
        for element in self.player_elements():
            name = element.attrs["name"]
            entry: dict = {"name": name}
            alliances = sides.get(name, [])
            if alliances:
                entry["side"] = alliances[0][0]
                for other, where in alliances[1:]:
                    self.untranslated("alliance", name, f"a second alliance '{other}' is not translated "
                                      "(a ruleslang player has one side)", where)
            if name in capitals:
                entry["capital"] = capitals[name]
            extra = {snake_case(k): option_value(v) for k, v in element.attrs.items() if k != "name"}
            if extra:
                entry["attributes"] = extra
            out.append(entry)
        return out

    def steps(self) -> list[XmlElement]:
        sequence = self.section("gamePlay").first("sequence")
        return sequence.all("step") if sequence is not None else []

    def turn_order(self, players: list[str]) -> list[str]:
        order: list[str] = []
        # The repeating steps give the turn order; one-off bid steps may list players differently.
        repeating = [s for s in self.steps() if s.attrs.get("maxRunCount") != "1"]
        for step in repeating or self.steps():
            player = step.attrs.get("player")
            if player and player in players and player not in order:
                order.append(player)
        return order or players

    def canals(self, territories: dict[str, XmlElement], water: set[str],
               neighbours: dict[str, set[str]]) -> list[dict]:
        """The canals a ruleslang map can hold: passages between sea zones that the canal's land
        controls. TripleA also attaches canals to land (Civil War's rail links); such a canal,
        and one whose sea zones do not border each other, is reported (located) and left out."""
        canals: dict[str, dict] = {}
        first: dict[str, XmlElement] = {}
        on_land: dict[str, list[str]] = {}
        for attachment in self.attachments("CanalAttachment"):
            options = {n: (v, e) for n, v, e in self.options(attachment)}
            name = options.get("canalName", (attachment.attrs.get("name", "canal"),))[0]
            canal = canals.setdefault(name, {"name": name, "sea_zones": [], "land": []})
            first.setdefault(name, attachment)
            territory = attachment.attrs.get("attachTo", "")
            if territory not in territories:
                self.fail(f"the canal '{name}' names the unknown territory '{territory}'", attachment)
            elif territory not in water:
                on_land.setdefault(name, []).append(territory)
            elif territory not in canal["sea_zones"]:
                canal["sea_zones"].append(territory)
            for land in options.get("landTerritories", ("",))[0].split(":"):
                if land and land not in canal["land"]:
                    canal["land"].append(land)
            for option, (value, element) in options.items():
                if option in ("canalName", "landTerritories"):
                    continue
                values = [self.unit_name(v) for v in value.split(":")] if option == "excludedUnits" else option_value(value)
                canal.setdefault("attributes", {})[snake_case(option)] = values
                if option != "excludedUnits":
                    self.untranslated("canal option", option, f"kept as the canal attribute '{snake_case(option)}'",
                                      element)
        kept = []
        for name, canal in canals.items():
            seas = canal["sea_zones"]
            apart = [s for s in seas if not neighbours[s] & (set(seas) - {s})]
            if name in on_land:
                self.untranslated("canal", name, f"attached to the land territory '{on_land[name][0]}': a "
                                  "ruleslang canal is a passage between sea zones; the passage over land is "
                                  "not translated", first[name])
            if apart or not seas:
                if apart and name not in on_land:
                    self.untranslated("canal", name, f"its sea zone '{apart[0]}' borders no other sea zone of "
                                      "the canal; not translated", first[name])
                continue
            kept.append(canal)
        return kept

    def neutral_player_name(self) -> str:
        """The player that holds units placed without an owner: TripleA's name for its neutral
        pseudo-player, or that name made unique where the game has a player so named."""
        taken = {p.attrs["name"].casefold() for p in self.player_elements()}
        name, n = _TRIPLEA_NEUTRAL, 1
        while name.casefold() in taken:
            n += 1
            name = f"{_TRIPLEA_NEUTRAL} {n}"
        return name

    def start_data(self, territories: dict[str, XmlElement], water: set[str]) -> dict:
        factory_types = self.factory_units()
        units: dict[str, dict[str, dict[str, int]]] = {}
        factories: dict[str, dict] = {}
        placed = 0
        for element in self.section("initialize").walk("unitPlacement"):
            attrs = element.attrs
            territory, owner, unit = attrs.get("territory", ""), attrs.get("owner", ""), attrs.get("unitType", "")
            if not owner:
                owner = self.ownerless_units = self.ownerless_units or self.neutral_player_name()
            if territory not in territories:
                self.fail(f"units are placed in the unknown territory '{territory}'", element)
                continue
            quantity = self.whole(element, "quantity", 1)
            if quantity is None:
                continue
            for option in ("hitsTaken", "unitDamage"):
                if attrs.get(option, "0") not in ("", "0"):
                    self.untranslated("unit placement", option,
                                      f"{unit} in {territory} starts with {option}={attrs[option]}; not translated", element)
            if unit in factory_types and territory not in factories and quantity >= 1 and territory not in water:
                factories[territory] = {"owner": owner, "kind": self.unit_name(unit)}
                quantity -= 1
            placed += max(quantity, 0)
            if placed > MAX_UNITS:
                self.fail(f"the unit placements put more than {MAX_UNITS} units on the board, the most a board "
                          "may hold", element)
                break
            if quantity > 0:
                by_type = units.setdefault(territory, {}).setdefault(owner, {})
                by_type[self.unit_name(unit)] = by_type.get(self.unit_name(unit), 0) + quantity
        treasury: dict[str, int] = {}
        counters: dict[str, dict[str, int]] = {}
        money = self.money()
        for element in self.section("initialize").walk("resourceGiven"):
            player, resource = element.attrs.get("player", ""), element.attrs.get("resource", "")
            amount = self.whole(element, "quantity", 0)
            if amount is None:
                continue
            if resource == money:
                treasury[player] = treasury.get(player, 0) + amount
            else:
                counters.setdefault(snake_case(resource), {})[player] = amount
        start: dict = {}
        ordered = lambda d: {k: d[k] for k in sorted(d, key=natural_key)}  # noqa: E731
        if units:
            start["units"] = ordered(units)
        if factories:
            start["factories"] = ordered(factories)
        if treasury:
            start["treasury"] = treasury
        if counters:
            start["counters"] = counters
        return start

    # -- the parts the ruleset needs

    def money(self) -> str:
        """The resource purchases are paid in: TripleA's PUs, else the first resource declared."""
        resources = [r.attrs.get("name", "") for r in self.section("resourceList").all("resource")]
        return MONEY_RESOURCE if MONEY_RESOURCE in resources or not resources else resources[0]

    def offers(self) -> list[Offer]:
        units = {u.attrs["name"] for u in self.section("unitList").all("unit") if u.attrs.get("name")}
        return read_frontiers(self.section("production"), [p.attrs["name"] for p in self.player_elements()],
                              self.money(), units, whole=self.whole, note=self.untranslated, fail=self.fail)

    def ruleset_text(self, family: str, map_name: str, game: str, version: str, xml_name: str) -> str:
        options = self.unit_options()
        offers = self.offers()
        costs = first_prices(offers)
        unit_elements = {u.attrs["name"]: u for u in self.section("unitList").all("unit") if u.attrs.get("name")}
        unit_list = list(unit_elements)
        attributes: dict[str, int] = {"cost": 0}
        tags: list[str] = []
        units: list[tuple[str, str, list[tuple[str, int]], list[str]]] = []
        for unit in unit_list:
            values: list[tuple[str, int]] = []
            unit_tags: list[str] = []
            if unit in costs:
                values.append(("cost", costs[unit]))
                unit_tags.append("purchasable")
            for option, (value, element) in options.get(unit, {}).items():
                parsed = option_value(value)
                if option == "isTwoHit" and parsed is True:
                    values.append(("hit_points", 2))
                    attributes.setdefault("hit_points", 1)
                elif isinstance(parsed, bool):
                    if parsed:
                        unit_tags.append(_UNIT_TAGS.get(option) or snake_case(re.sub(r"^is(?=[A-Z])", "", option)))
                elif isinstance(parsed, int):
                    name, default = _UNIT_NUMBERS.get(option, (snake_case(option), 0))
                    attributes.setdefault(name, default)
                    values.append((name, parsed))
                else:
                    self.untranslated("unit option", option, f"{unit}: {option}={value!r} is not translated", element)
            if "air" not in unit_tags and "sea" not in unit_tags:
                unit_tags.insert(0, "land")
            for tag in unit_tags:
                if tag not in tags:
                    tags.append(tag)
            units.append((self.unit_name(unit, unit_elements[unit]), unit, values, list(dict.fromkeys(unit_tags))))
        self.report.unit_types = len(units)
        # Units, attributes, tags and phases share one namespace in ruleslang.
        unit_names = {name for name, *_ in units}
        attr_names = {a: a + "_value" if a in unit_names else a for a in attributes}
        tag_names = {}
        for tag in tags:
            new = "is_" + tag if tag in unit_names or tag in attr_names.values() else tag
            while new in unit_names or new in attr_names.values():
                new += "_tag"
            tag_names[tag] = new
        for unit in options:
            if unit not in unit_list:
                self.fail(f"a unit attachment names the unknown unit type '{unit}'", None)
        lines = [
            f"ruleset {family}/base@{RULESET_VERSION}",
            f"title {quote(game + ' (imported from TripleA)')}",
            f"source {quote(f'imported by ruleslang import-triplea from {xml_name} (game version {version})')}",
            f"map {quote(map_name)}",
            "",
            "# Generated from the TripleA game file: unit types, production costs and the step",
            "# sequence. Conditions, triggers and game properties are not translated; the import",
            "# report lists them.",
            "",
        ]
        if any(tag_names[t] != t for t in tags):
            lines.append("# A tag named like a unit type gets `is_`: " + ", ".join(
                tag_names[t] for t in tags if tag_names[t] != t) + ".")
            lines.append("")
        for name in sorted(attributes, key=lambda a: (a != "cost", a)):
            lines.append(f"attribute {attr_names[name]}: int = {attributes[name]}")
        lines.append("tag " + ", ".join(sorted(tag_names.values())))
        lines.append("space attribute ipc: int = 0    # a territory's production value, from the map")
        for name, original, values, unit_tags in units:
            lines.append("")
            lines.append(f"unit {name}" + (f" {quote(original)}" if name != original else "") + ":")
            for attr, value in values:
                lines.append(f"    {attr_names[attr]}: {value}")
            lines.append("    tags: " + ", ".join(tag_names[t] for t in unit_tags))
        lines.append("")
        lines.extend(_INCOME_FORMULA)
        taken = unit_names | set(attr_names.values()) | set(tag_names.values()) | {"income"}
        names = {}
        for name in (FRONTIER_TABLE, IN_FRONTIER, BOUGHT, LOTS_CONSTRAINT):
            names[name] = name
            while names[name] in taken:
                names[name] += "_"
            taken.add(names[name])
        # Without a frontier no player may buy anything: the purchase phase offers nothing.
        purchase = purchase_settings(names) if offers else "{buyable: u => false}"
        if offers:
            lines.extend(frontier_lines(offers, self.unit_name, names))
        settings = move_settings(attr_names, tag_names)
        lines.extend(line.replace(_MOVE_SETTINGS, settings).replace(_PURCHASE_SETTINGS, purchase)
                     for line in self.phase_lines(taken))
        lines.extend(self.property_comments())
        return "\n".join(lines).rstrip() + "\n"

    def phase_lines(self, taken: set[str]) -> list[str]:
        """`phase` declarations for the steps of a player's turn, and `sequence turn`.

        TripleA lists each player's steps; ruleslang runs one turn sequence for whoever's turn
        it is. The sequence follows the player with the most translatable steps; a player whose
        turn differs, and every step no runtime procedure stands for, is reported untranslated.
        `taken` holds the names already declared (units, attributes, tags), which phases avoid.
        """
        delegates = {d.attrs.get("name"): d for d in self.section("gamePlay").all("delegate")}
        turns: dict[str, list[str]] = {}
        for step in self.steps():
            delegate = delegates.get(step.attrs.get("delegate"))
            if delegate is None:
                self.fail(f"the step '{step.attrs.get('name')}' uses the unknown delegate "
                          f"'{step.attrs.get('delegate')}'", step)
                continue
            cls = delegate.attrs.get("javaClass", "").rsplit(".", 1)[-1]
            if cls == "MoveDelegate":
                cls = "noncombat move" if step.attrs.get("name", "").lower().endswith("noncombatmove") else "combat move"
            player = step.attrs.get("player")
            if cls not in _TURN_PHASES or step.attrs.get("maxRunCount") == "1" or not player:
                self.untranslated("step", cls, f"the step '{step.attrs.get('name')}' has no ruleslang "
                                  "runtime procedure; not translated", step)
                continue
            for prop in step.all("stepProperty"):
                self.untranslated("step property", prop.attrs.get("name", ""),
                                  f"'{prop.attrs.get('name')}' = {prop.attrs.get('value')!r} of the step "
                                  f"'{step.attrs.get('name')}' is not translated", prop)
            keys = turns.setdefault(player, [])
            phase = _TURN_PHASES[cls][0]
            twin = next((k for k in keys if k != cls and _TURN_PHASES[k][0] == phase), None)
            if twin is not None:
                # Two delegates of one runtime procedure (PurchaseDelegate and NoPUPurchaseDelegate):
                # a ruleslang turn has each phase once, so the first step stands for both.
                self.untranslated("step", cls, f"the step '{step.attrs.get('name')}' is a second {phase} step "
                                  f"of {player}'s turn (after a {twin} step); the turn has one {phase} phase",
                                  step)
            elif cls not in keys:
                keys.append(cls)
        if not turns:
            return []
        template = max(turns.values(), key=len)
        for player, keys in turns.items():
            if keys != template:
                names = ", ".join(_TURN_PHASES[k][0] for k in keys)
                self.untranslated("turn", player, f"{player}'s turn in TripleA is: {names}; "
                                  "the translated turn sequence is the same for every player", None)
        lines = []
        order = []
        for key in template:
            name, body = _TURN_PHASES[key]
            while name in taken:
                name += "_phase"
            taken.add(name)
            order.append(name)
            lines.append(f"phase {name}:" + (body if body.startswith("\n") else f" {body}"))
        lines.append(f"sequence turn: {', '.join(order)}")
        self.report.phases = len(order)
        return lines

    def property_comments(self) -> list[str]:
        lines = []
        for prop in self.section("propertyList").all("property"):
            name = prop.attrs.get("name", "")
            if name in ("notes", "mapName") or not name:
                continue
            value = prop.attrs.get("value", "")
            self.untranslated("game property", name, f"'{name}' = {value!r} is built into TripleA; not translated", prop)
            if not lines:
                lines = ["", "# TripleA game properties (not translated; a ruleset may declare options for them):"]
            lines.append(f"#   {name} = {value}")
        return lines

    def other_untranslated(self) -> None:
        handled = {"UnitAttachment", "TerritoryAttachment", "CanalAttachment"}
        for attachment in self.section("attachmentList").all("attachment"):
            cls = attachment.attrs.get("javaClass", "").rsplit(".", 1)[-1]
            if cls not in handled:
                self.untranslated("attachment", cls, f"'{attachment.attrs.get('name')}' attached to "
                                  f"'{attachment.attrs.get('attachTo')}' is not translated", attachment)
        initialize = self.section("initialize")
        for element in initialize.walk("relationship"):
            a, b, kind = (element.attrs.get(k, "") for k in ("player1", "player2", "type"))
            self.untranslated("relationship", kind, f"{a} - {b} start as '{kind}'; not translated", element)
        for child in self.root.children:
            if child.tag not in _ELEMENTS_READ:
                detail = ", ".join(f"{k}={v}" for k, v in child.attrs.items()) or f"{len(child.children)} entries"
                self.untranslated("element", child.tag, f"<{child.tag}> ({detail}) is not translated", child)


# ---------------------------------------------------------------- entry points


@dataclass
class Translation:
    """A translated game file: the map's YAML text, the base ruleset's text, and the report."""

    map_text: str
    ruleset_text: str
    report: ImportReport


def translate_game(xml_path: Path | str, *, map_name: str | None = None, family: str | None = None,
                   title: str | None = None, source: object = None, overlay=None) -> Translation:
    """Translate a TripleA game file without writing anything.

    `overlay` (a function taking and returning the map data) lets a caller add aliases or
    colours before the map is checked. The map text is checked against the map schema and
    consistency rules, and the ruleset text is parsed, before they are returned. Raises
    `DiagnosticError` when the file cannot be read, is not a game file, or contradicts itself.
    """
    xml_path = Path(xml_path)
    root, xml_source = read_xml(xml_path)
    if root.tag != "game" or root.first("map") is None or root.first("playerList") is None:
        raise DiagnosticError(error("D642", f"not a TripleA game file: expected <game> with <map> and "
                                    f"<playerList>, found <{root.tag}>",
                                    span_at(xml_source, root.line, root.column, len(root.tag) + 1)))
    info = root.first("info")
    game = info.attrs.get("name", xml_path.stem) if info is not None else xml_path.stem
    version = info.attrs.get("version", "") if info is not None else ""
    map_name = map_name or map_name_for(xml_path)
    family = family or map_name
    report = ImportReport(xml_path, game, version, map_name, family)
    importer = _Importer(root, xml_source, report)
    if source is None:
        source = f"imported by ruleslang import-triplea from {xml_path.name} (TripleA game '{game}' version {version})"
    data = importer.map_data(map_name, title or game, source)
    if overlay is not None:
        data = overlay(data)
    ruleset = importer.ruleset_text(family, map_name, game, version, xml_path.name)
    importer.other_untranslated()
    if importer.problems:
        raise DiagnosticError(importer.problems)
    map_text = dump_yaml(data, header=f"ruleslang map '{map_name}', generated by ruleslang's TripleA importer "
                                      f"from {xml_path.name}")
    # Check the map exactly as written, so a file that fails its own checks is never produced.
    loaded, positions = load_yaml(Source(f"{map_name}.yaml", map_text))
    game_map = map_from_data(loaded, positions)
    parse_module(Source(f"{family}/base@{RULESET_VERSION}.rules", ruleset))
    report.spaces = len(game_map.spaces)
    report.land = len(game_map.space_names("land"))
    report.sea = len(game_map.space_names("sea"))
    report.connections = len(game_map.connections())
    report.players = len(game_map.players)
    return Translation(map_text, ruleset, report)


def import_triplea(xml_path: Path | str, out_dir: Path | str, **options) -> ImportReport:
    """Translate a game file into `out_dir/maps/<map>.yaml` and `out_dir/<family>/base@1.rules`.

    `out_dir` is laid out as a ruleset root, so `--rulesets out_dir` finds both files.
    Options are those of `translate_game`.
    """
    out_dir = Path(out_dir)
    translation = translate_game(xml_path, **options)
    report = translation.report
    report.map_path = out_dir / "maps" / f"{report.map_name}.yaml"
    report.ruleset_path = out_dir / report.family / f"base@{RULESET_VERSION}.rules"
    for path, text in ((report.map_path, translation.map_text), (report.ruleset_path, translation.ruleset_text)):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)  # never a half-written map or ruleset
    return report


def run_import(xml_path: Path | str, out_dir: Path | str) -> tuple[ImportReport | None, list[Diagnostic]]:
    """Import for the command line: (report or None, diagnostics), never raising for user errors.

    Untranslated items come back as D645 warnings, one per kind of item, located at its first
    occurrence in the XML.
    """
    try:
        report = import_triplea(xml_path, out_dir)
    except DiagnosticError as exc:
        return None, exc.diagnostics
    source = Source(str(xml_path), Path(xml_path).read_text(encoding="utf-8", errors="replace"))
    diagnostics: list[Diagnostic] = []
    groups: dict[tuple[str, str], list[ImportItem]] = {}
    for item in report.untranslated:
        groups.setdefault((item.category, item.name), []).append(item)
    for (category, name), items in groups.items():
        first = items[0]
        code = "D646" if category == "rename" else "D645"
        count = f" ({len(items)} times)" if len(items) > 1 else ""
        span = span_at(source, first.line, first.column) if first.line else None
        message = (f"unit type '{name}' {first.detail}" if category == "rename"
                   else f"{category} '{name}' not translated{count}: {first.detail}")
        diagnostics.append(warning(code, message, span, file=None if span else str(xml_path)))
    return report, diagnostics
