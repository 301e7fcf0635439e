"""The map of a TripleA game file: territories, connections, owners, production, capitals and
victory cities, canals, the players and their turn order, starting units, factories and resources."""

from __future__ import annotations

import re

from ruleslang.base.limits import MAX_UNITS
from ruleslang.base.safexml import XmlElement
from ruleslang.board.mapdata import natural_key
from ruleslang.importers.triplea_names import option_value, snake_case
from ruleslang.importers.triplea_reader import GameReader

_SEA_ZONE_NUMBER = re.compile(r"^(\d+) Sea Zone$")
_TRIPLEA_NEUTRAL = "Neutral"  # the name of TripleA's neutral pseudo-player (PlayerId.NULL_PLAYERID)
# Territory options carried into the map as fields (the rest become space attributes).
_TERRITORY_FIELDS = {"production", "capital", "victoryCity", "originalOwner", "isImpassable"}
# Territory options that are plain data: kept as attributes without a warning.
_TERRITORY_DATA = {"unitProduction", "blockadeZone", "kamikazeZone", "navalBase", "airBase",
                   "convoyRoute", "isConvoyRoute", "objectiveValue"}


class MapReader(GameReader):
    """The map part of an import: `map_data` is the map's YAML data."""

    def map_data(self, name: str, title: str, source: object) -> dict:
        """The map's data, as the map YAML holds it: players, turn order, spaces, canals, start."""
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
        """One space of the map: kind, aliases, owner, production, flags, attributes, neighbours."""
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
        """The map's players: each with its side (the first alliance), capital and attributes."""
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
        """The starting position: units, factories, treasuries (money) and counters (other resources)."""
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
