"""The base ruleset of a TripleA game file: unit types (numeric options as attributes, boolean
options as tags), each player's production frontier, the income formula, and one turn as `phase`
declarations over the runtime's procedures plus `sequence turn`."""

from __future__ import annotations

import re

from ruleslang.base.limits import MAX_DIE_SIDES
from ruleslang.importers.triplea_battle import (BATTLE_PHASE, BATTLE_PROPERTIES, BATTLE_RULESET, BATTLE_TAGS,
                                                  BATTLE_NUMBERS, LAND_TAG, UNPLAYED_BATTLE_OPTIONS, battle_names,
                                                  die_lines)
from ruleslang.importers.triplea_names import option_value, quote, snake_case
from ruleslang.importers.triplea_production import (FRONTIER_TABLE, IN_FRONTIER, Offer, first_prices, frontier_lines, purchase_settings,
                                                      read_frontiers)
from ruleslang.importers.triplea_reader import GameReader
from ruleslang.importers.triplea_support import read_supports, support_lines
from ruleslang.importers.triplea_triggers import TriggerWriter, step_anchors
from ruleslang.importers.triplea_victory import is_victory_property, victory_lines
from ruleslang.importers.triplea_start import RANDOM_PROPERTY, RANDOM_START_DELEGATE, pick_order, random_start_lines
from ruleslang.importers.triplea_report import RULESET_VERSION

# The table of the game's properties (property_table).
PROPERTY_TABLE = "game_properties"
# Settings of the move procedures, filled in from the attributes and tags the file declares.
_MOVE_SETTINGS = "{move_settings}"
# Settings of the purchase procedure: the current player's production frontier.
_PURCHASE_SETTINGS = "{purchase_settings}"


def move_settings(attr_names: dict[str, str], tag_names: dict[str, str]) -> str:
    """The `runtime move` settings a translated game can give: movement, domain (the battle
    ruleset's `domain_of`) and what its units declare of blitzing, transports and carriers (the
    rest of its rules are TripleA's Java)."""
    parts = [f"movement: u => u.{attr_names.get('movement', 'movement')}", "domain: u => domain_of(u)"]
    if "blitz" in tag_names:
        parts.append(f"blitz: u => has_tag(u, {tag_names['blitz']})")
    if BATTLE_TAGS["isStrategicBomber"] in tag_names:  # the battle ruleset's raid (bombing_raid)
        parts += ["bombs: u => bombs(u)", "raid_target: t => raid_target(t)"]
    for attr in ("transport_capacity", "transport_cost", "carrier_capacity", "carrier_cost"):
        parts.append(f"{attr}: u => u.{attr}")
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
    # BattleDelegate: the battle ruleset every import uses declares the phase (None: not written here).
    "BattleDelegate": (BATTLE_PHASE, None),
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

# Unit options whose value is a number: the ruleslang attribute and its default (those the battle
# ruleset reads are declared there, with TripleA's defaults).
_UNIT_NUMBERS = {
    "movement": ("movement", 0),
    "attackAAmaxDieSides": ("attack_aa_max_die_sides", 0),
    "offensiveAttackAAmaxDieSides": ("offensive_attack_aa_max_die_sides", 0),
    **{option: (name, 0) for option, name in BATTLE_NUMBERS.items()},
}

# Boolean unit options and the tag each becomes; other booleans become snake_case tags.
_UNIT_TAGS = {
    "canBlitz": "blitz",
    "isInfantry": "infantry",
    "isFactory": "factory",
    "canIntercept": "interceptor",
    "canEscort": "escort",
    "canAirBattle": "air_battle",
    "canScramble": "scramble",
    "isAirBase": "air_base",
    "canNotMoveDuringCombatMove": "no_combat_move",
    **BATTLE_TAGS,
}


def _phase_of(key: str) -> str:
    """The phase a turn's step stands for: its delegate class's, or (`CLASS#delegate`, a turn with
    several place delegates) its delegate's name."""
    cls, _, delegate = key.partition("#")
    return snake_case(delegate) if delegate else _TURN_PHASES[cls][0]


def merged_order(turns: list[list[str]]) -> list[str]:
    """One order of the phases of every player's turn: the first turn's, with each phase another
    turn adds put right after the phase it follows there (first, when it follows none)."""
    order: list[str] = []
    for turn in turns:
        before = -1
        for phase in turn:
            if phase in order:
                before = order.index(phase)
            else:
                before += 1
                order.insert(before, phase)
    return order


class RulesetWriter(GameReader):
    """The ruleset part of an import: `ruleset_text` is the base ruleset's text."""

    def offers(self) -> list[Offer]:
        """The rows of the frontier table: what each player's production frontier offers."""
        units = {u.attrs["name"] for u in self.section("unitList").all("unit") if u.attrs.get("name")}
        money = self.money()
        stocks = {r.attrs.get("name", "") for r in self.section("resourceList").all("resource")} - {money}
        return read_frontiers(self.section("production"), [p.attrs["name"] for p in self.player_elements()],
                              money, units, stocks=stocks, whole=self.whole, note=self.untranslated, fail=self.fail)

    def ruleset_text(self, family: str, map_name: str, game: str, version: str, xml_name: str) -> str:
        """The base ruleset's text: attributes, tags, unit types, frontiers, income and the turn."""
        options = self.unit_options()
        offers = self.offers()
        costs = first_prices(offers)
        self.unit_costs = costs  # what the random start orders a hand by (TripleA's costs for TUV)
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
                if option in UNPLAYED_BATTLE_OPTIONS and parsed not in (False, 0, ""):
                    self.untranslated("battle option", option, f"{unit}: {option}={value!r} is not played: "
                                      f"{BATTLE_RULESET} fights without it", element)
                if option == "isTwoHit" and parsed is True:
                    values.append(("hit_points", 2))
                elif isinstance(parsed, bool):
                    if parsed:
                        unit_tags.append(_UNIT_TAGS.get(option) or snake_case(re.sub(r"^is(?=[A-Z])", "", option)))
                elif isinstance(parsed, int):
                    name, default = _UNIT_NUMBERS.get(option, (snake_case(option), 0))
                    attributes.setdefault(name, default)
                    values.append((name, parsed))
                else:
                    self.untranslated("unit option", option, f"{unit}: {option}={value!r} is not translated", element)
            if BATTLE_TAGS["isAir"] not in unit_tags and BATTLE_TAGS["isSea"] not in unit_tags:
                unit_tags.insert(0, LAND_TAG)
            for tag in unit_tags:
                if tag not in tags:
                    tags.append(tag)
            units.append((self.unit_name(unit, unit_elements[unit]), unit, values, list(dict.fromkeys(unit_tags))))
        self.report.unit_types = len(units)
        # Units, attributes, tags and phases share one namespace in ruleslang; the battle ruleset
        # declares its attributes and tags (unit types never take its names: see unit_name).
        battle = battle_names()
        unit_names = {name for name, *_ in units}
        attr_names = {a: a if a in battle.attributes else a + "_value" if a in unit_names else a for a in attributes}
        tag_names = {}
        for tag in tags:
            if tag in battle.tags:
                tag_names[tag] = tag
                continue
            new = "is_" + tag if tag in unit_names or tag in attr_names.values() else tag
            while new in unit_names or new in attr_names.values() or new in battle.tags:
                new += "_tag"
            tag_names[tag] = new
        for unit, given in options.items():
            if unit not in unit_list:  # located at the attachment's first option (within its element)
                self.fail(f"a unit attachment names the unknown unit type '{unit}'",
                          next(iter(given.values()))[1])
        lines = [
            f"ruleset {family}/base@{RULESET_VERSION}",
            f"title {quote(game + ' (imported from TripleA)')}",
            f"source {quote(f'imported by ruleslang import-triplea from {xml_name} (game version {version})')}",
            f"map {quote(map_name)}",
            f"uses {BATTLE_RULESET}",
            "",
            "# Generated from the TripleA game file: unit types, production costs, the step sequence,",
            "# triggers and victory conditions; " + BATTLE_RULESET + " fights the battles with the unit",
            "# values written here. What is not translated (most game properties, some trigger and",
            "# condition options, ...) the import report lists.",
            "",
        ]
        if any(tag_names[t] != t for t in tags):
            lines.append("# A tag named like a unit type gets `is_`: " + ", ".join(
                tag_names[t] for t in tags if tag_names[t] != t) + ".")
            lines.append("")
        for name in sorted(attributes, key=lambda a: (a != "cost", a)):
            if name not in battle.attributes:
                lines.append(f"attribute {attr_names[name]}: int = {attributes[name]}")
        own_tags = sorted(t for t in tag_names.values() if t not in battle.tags)
        if own_tags:
            lines.append("tag " + ", ".join(own_tags))
        lines.extend(self.battle_overrides())
        for name, original, values, unit_tags in units:
            lines.append("")
            lines.append(f"unit {name}" + (f" {quote(original)}" if name != original else "") + ":")
            for attr, value in values:
                lines.append(f"    {attr_names.get(attr, attr)}: {value}")
            lines.append("    tags: " + ", ".join(tag_names[t] for t in unit_tags))
        lines.append("")
        lines.extend(_INCOME_FORMULA)
        taken = unit_names | set(attr_names.values()) | set(tag_names.values()) | {"income"} | battle.names
        counter_lines, counters = self.resource_counters(taken)
        all_counters = dict(counters)  # what triggers may change, charged by purchases or not
        lines.extend(counter_lines)
        # A rule that costs a resource left without a counter cannot be charged: not offered.
        kept = [o for o in offers if all(r in counters for r, _ in o.resources)]
        for o in offers:
            if o not in kept:
                self.untranslated("production", o.unit, f"{o.player}'s {o.unit} costs a resource that has no "
                                  "counter; not offered", None)
        offers = kept
        charged = {r for o in offers for r, _ in o.resources}
        counters = {r: c for r, c in counters.items() if r in charged}  # the resources purchases charge
        names = {}
        for name in (FRONTIER_TABLE, IN_FRONTIER):
            names[name] = name
            while names[name] in taken:
                names[name] += "_"
            taken.add(names[name])
        # Without a frontier no player may buy anything: the purchase phase offers nothing.
        purchase = purchase_settings(names, counters) if offers else "{buyable: u => false}"
        if offers:
            lines.extend(frontier_lines(offers, self.unit_name, names, counters))
        settings = move_settings(attr_names, tag_names)
        lines.extend(line.replace(_MOVE_SETTINGS, settings).replace(_PURCHASE_SETTINGS, purchase)
                     for line in self.phase_lines(taken))
        round_end = None
        if getattr(self, "last_phase", None):
            order = self.turn_order([p.attrs["name"] for p in self.player_elements()])
            round_end = (self.last_phase, len(order))
        triggers = TriggerWriter(self, self.money(), all_counters, taken)
        lines.extend(triggers.lines(step_anchors(getattr(self, "step_sequence", [])),
                                    getattr(self, "opening_phase", None), round_end))
        self.translated_attachments = triggers.translated()
        lines.extend(self.victory(round_end, taken))
        lines.extend(self.supports())
        lines.extend(self.property_table(taken))
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
        start_step = None  # TripleA's RandomStartDelegate step, translated as a hook (random_start)
        # The sequence as (step, player, delegate key or None): where triggers name steps (step_anchors).
        sequence: list[tuple[str, str | None, str | None]] = []
        split = self.split_places(delegates)
        for step in self.steps():
            sequence.append((step.attrs.get("name", ""), step.attrs.get("player"), None))
            delegate = delegates.get(step.attrs.get("delegate"))
            if delegate is None:
                self.fail(f"the step '{step.attrs.get('name')}' uses the unknown delegate "
                          f"'{step.attrs.get('delegate')}'", step)
                continue
            cls = delegate.attrs.get("javaClass", "").rsplit(".", 1)[-1]
            if cls == "MoveDelegate":
                cls = "noncombat move" if step.attrs.get("name", "").lower().endswith("noncombatmove") else "combat move"
            player = step.attrs.get("player")
            if cls == RANDOM_START_DELEGATE and start_step is None:
                start_step = step
                continue
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
            if (player, cls) in split:  # one phase for each place delegate of the turn
                cls = f"{cls}#{step.attrs.get('delegate')}"
                phase = snake_case(step.attrs.get("delegate", ""))
            sequence[-1] = (sequence[-1][0], player, cls)
            twin = next((k for k in keys if k != cls and _phase_of(k) == phase), None)
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
        for player, keys in turns.items():
            if "combat move" in keys and "BattleDelegate" not in keys:
                # Its moves into enemy land would start battles no step of its turn fights.
                keys.remove("combat move")
                where = next(s for s in self.steps() if s.attrs.get("player") == player)
                self.untranslated("step", "combat move", f"{player}'s turn has a combat move and no battle step; "
                                  "its combat move is skipped", where)
                sequence = [(s, p, None if p == player and k == "combat move" else k) for s, p, k in sequence]
        phase_of = {key: _phase_of(key) for keys in turns.values() for key in keys}
        classes: dict[str, str] = {}  # phase name -> the delegate class first seen for it
        for keys in turns.values():
            for key in keys:
                classes.setdefault(phase_of[key], key)
        order = merged_order([[phase_of[k] for k in keys] for keys in sorted(turns.values(), key=len, reverse=True)])
        for player, keys in turns.items():
            mine = [phase_of[k] for k in keys]
            if [p for p in order if p in mine] != mine:
                self.untranslated("turn", player, f"{player}'s turn in TripleA is: {', '.join(mine)}; the translated "
                                  f"turn runs them in the order {', '.join(p for p in order if p in mine)}", None)
        lines = []
        names = {}
        for phase in order:
            name, body = _TURN_PHASES[classes[phase].split("#")[0]]
            name = _phase_of(classes[phase])
            if body is not None:  # else declared by the battle ruleset
                while name in taken:
                    name += "_phase"
                taken.add(name)
                lines.append(f"phase {name}:" + (body if body.startswith("\n") else f" {body}"))
            names[phase] = name
        lines.append(f"sequence turn: {', '.join(names[p] for p in order)}")
        lines.extend(self.skip_hooks(order, names, {player: {phase_of[k] for k in keys} for player, keys in turns.items()},
                                     taken))
        first = next(iter(turns))  # the first player's turn opens the game (TripleA's turn order)
        opening = next(p for p in order if p in {phase_of[k] for k in turns[first]})
        lines.extend(self.random_start(start_step, names[opening], taken))
        self.report.phases = len(order)
        self.opening_phase = names[opening]
        self.last_phase = names[order[-1]]
        kept = {key for keys in turns.values() for key in keys}
        self.step_sequence = [(s, p, names[phase_of[k]] if k in kept else None) for s, p, k in sequence]
        return lines

    def split_places(self, delegates: dict) -> set[tuple[str, str]]:
        """(player, delegate class) of the place delegates that a player's turn has more than one
        of (Imperialism 1974: wealth, armies, structures): each becomes a phase of its own, named
        after its delegate, so that the triggers TripleA fires at each step fire there."""
        seen: dict[tuple[str, str], set[str]] = {}
        for step in self.steps():
            delegate = delegates.get(step.attrs.get("delegate"))
            player = step.attrs.get("player")
            if delegate is None or not player or step.attrs.get("maxRunCount") == "1":
                continue
            cls = delegate.attrs.get("javaClass", "").rsplit(".", 1)[-1]
            if _TURN_PHASES.get(cls, ("",))[0] == "place":
                seen.setdefault((player, cls), set()).add(step.attrs.get("delegate"))
        return {key for key, names in seen.items() if len(names) > 1}

    @staticmethod
    def skip_hooks(order: list[str], names: dict[str, str], turns: dict[str, set[str]], taken: set[str]) -> list[str]:
        """Players whose turn in TripleA lacks a phase of the common sequence skip it: a hook
        `instead of` the phase for those players (TripleA lists each player's steps; ruleslang runs
        one sequence for every player)."""
        lines = []
        for phase in order:
            skipping = [p for p in turns if phase not in turns[p]]
            if not skipping:
                continue
            hook = f"skip_{names[phase]}"
            while hook in taken:
                hook += "_"
            taken.add(hook)
            players = ", ".join(f"player({quote(p)})" for p in skipping)
            lines += ["", f"# {', '.join(skipping)}: no {phase} step in TripleA's turn.",
                      f"hook {hook} instead of {names[phase]} for {{{players}}}:",
                      f"    log {quote(f'{names[phase]}: not in this player' + chr(39) + 's turn')}"]
        return lines

    def supports(self) -> list[str]:
        """TripleA's support attachments as the override of the battle ruleset's `supports_of`
        (triplea_support.py)."""
        units = {u.attrs["name"] for u in self.section("unitList").all("unit") if u.attrs.get("name")}
        players = {p.attrs["name"] for p in self.player_elements()}
        found = read_supports(self.attachments("UnitSupportAttachment"), self.unit_name, units, players,
                              self.untranslated)
        return support_lines(found)

    def victory(self, round_end: tuple[str, int] | None, taken: set[str]) -> list[str]:
        """TripleA's victory conditions, judged at the end of each round (triplea_victory.py)."""
        if round_end is None:
            return []
        properties = {p.attrs.get("name", ""): p.attrs.get("value", "")
                      for p in self.section("propertyList").all("property")}
        sides: dict[str, list[str]] = {}
        for player, side in self.first_alliances().items():
            if side and player in {p.attrs["name"] for p in self.player_elements()}:
                sides.setdefault(side, []).append(player)
        cities = sum(1 for a in self.attachments("TerritoryAttachment") for o, v, _ in self.options(a)
                     if o == "victoryCity" and v not in ("0", "false", ""))
        names: dict[str, str | None] = {}
        for key, base in (("hook", "triplea_victory"), ("attribute", "victory_city")):
            name = base
            if key == "attribute" and name in taken:
                names[key] = None  # a unit, tag or attribute of that name: the cities are not counted
                continue
            while name in taken:
                name += "_"
            names[key] = name
        lines, missing = victory_lines(properties, sides, cities, round_end[0], round_end[1], names)
        elements = {p.attrs.get("name", ""): p for p in self.section("propertyList").all("property")}
        for switch, count, needed in missing:
            self.untranslated("victory", count, f"'{switch}' is on and the file gives no '{count}': TripleA's "
                              f"built-in number is not translated; the alliance needs all {needed} victory cities",
                              elements.get(switch))
        taken.update(n for n in names.values() if n and lines)
        return lines

    def random_start(self, step, phase: str, taken: set[str]) -> list[str]:
        """TripleA's held units (`heldUnits`), dealt before the first turn when the game has a
        RandomStartDelegate step (triplea_start.py), before `phase`; without that step they are
        reported, not placed."""
        hands: dict[str, list[tuple[int, int, str]]] = {p.attrs["name"]: [] for p in self.player_elements()}
        held = list(self.section("initialize").walk("heldUnits"))
        for n, element in enumerate(held):
            player, unit = element.attrs.get("player", ""), element.attrs.get("unitType", "")
            count = self.whole(element, "quantity", 1)
            if player not in hands or unit not in self.unit_names:
                self.fail(f"units are held by the unknown player '{player}' or of the unknown type '{unit}'", element)
                continue
            if step is None:
                self.untranslated("held units", unit, f"{player} holds {count} {unit} to place; without a "
                                  f"{RANDOM_START_DELEGATE} step they are not placed", element)
                continue
            hands[player] += [(self.unit_costs.get(unit, 0), n, self.unit_name(unit))] * (count or 0)
        if step is None:
            return []
        territories = self.territories()
        closed = {e.attrs.get("territory") for e in self.section("initialize").walk("territoryOwner")}
        closed |= {e.attrs.get("territory") for e in self.section("initialize").walk("unitPlacement")}
        for attachment in self.attachments("TerritoryAttachment"):
            if any(o == "isImpassable" and v == "true" for o, v, _ in self.options(attachment)):
                closed.add(attachment.attrs.get("attachTo"))
        open_spaces = [t for t, e in territories.items() if e.attrs.get("water") != "true" and t not in closed]
        randomly = any(p.attrs.get("name") == RANDOM_PROPERTY and p.attrs.get("value") == "true"
                       for p in self.section("propertyList").all("property"))
        picks = pick_order({p: [u for *_, u in sorted(h)] for p, h in hands.items()}, len(open_spaces))
        if not picks:
            return []
        names = []
        for name in ("random_start", "start_open"):
            while name in taken:
                name += "_"
            taken.add(name)
            names.append(name)
        factories = {self.unit_name(u) for u in self.factory_units()}
        return random_start_lines(picks, open_spaces, factories, randomly=randomly, hook=names[0], phase=phase,
                                  open_formula=names[1], step_name=step.attrs.get("name", ""))

    def battle_overrides(self) -> list[str]:
        """What the battle ruleset reads of the game besides its units: the game's die (TripleA's
        `diceSides`, six when absent) and the game properties it plays (BATTLE_PROPERTIES)."""
        lines = []
        dice = self.root.first("diceSides")
        sides = self.whole(dice, "value", 6) if dice is not None else 6
        if sides is not None and sides != 6:
            if not 2 <= sides <= MAX_DIE_SIDES:
                self.fail(f"a die of {sides} sides: expected 2 to {MAX_DIE_SIDES}", dice)
            else:
                lines.extend(die_lines(sides))
        for prop in self.section("propertyList").all("property"):
            constant = BATTLE_PROPERTIES.get(prop.attrs.get("name", ""))
            if constant and prop.attrs.get("value") == "true":
                lines.append(f"override constant {constant} = true    # TripleA's {quote(prop.attrs['name'])}")
        return lines

    def resource_counters(self, taken: set[str]) -> tuple[list[str], dict[str, str]]:
        """A counter for each resource besides money: a player's stock, which the map's `counters`
        start (TripleA's resourceGiven) and purchases charge. A counter is named like the map's
        counters key; one that would share a unit type's, attribute's or tag's name (or a column of
        the frontier table) is reported and not declared. The lines, and resource -> counter."""
        money = self.money()
        lines = []
        counters: dict[str, str] = {}
        for element in self.section("resourceList").all("resource"):
            resource = element.attrs.get("name", "")
            if not resource or resource == money:
                continue
            name = snake_case(resource)
            if name in taken or name in ("price", "lot"):
                self.untranslated("resource", resource, f"its counter '{name}' would share the name of a unit "
                                  "type, attribute or tag; not declared", element)
                continue
            taken.add(name)
            counters[resource] = name
            if not lines:
                lines = ["# Resources besides money: a player's stock of each (the map's counters give the start)."]
            lines.append(f"counter {name}(p: player) -> int = 0    # TripleA's resource {quote(resource)}")
        return (lines + [""] if lines else []), counters

    def property_table(self, taken: set[str]) -> list[str]:
        """TripleA's game properties as a table of the ruleset, name -> value as the file gives it,
        so that `ruleslang diff` shows a changed property as a changed row. Those the battle ruleset
        plays are also its constants (battle_overrides); the others no rule reads, and each is
        reported untranslated. `taken`: the names declared already (the table avoids them)."""
        values: dict[str, str] = {}
        for prop in self.section("propertyList").all("property"):
            name = prop.attrs.get("name", "")
            if name in ("notes", "mapName") or not name:
                continue
            value = prop.attrs.get("value", "")
            values[name] = value  # a property given twice: TripleA keeps the last
            if name not in BATTLE_PROPERTIES and name != RANDOM_PROPERTY and not is_victory_property(name):
                self.untranslated("game property", name, f"'{name}' = {value!r} is built into TripleA; not "
                                  f"translated (kept in the table {PROPERTY_TABLE})", prop)
        if not values:
            return []
        table = PROPERTY_TABLE
        while table in taken:
            table += "_"
        taken.add(table)
        played = ", ".join(sorted({*BATTLE_PROPERTIES, RANDOM_PROPERTY} & set(values)))
        lines = ["", "# TripleA's game properties as the file sets them; translated above: " + (played or "none") + ".",
                 "# No rule reads this table; the import report lists the others as not translated.",
                 f"table {table}(name: text) -> text:"]
        lines += [f"    {quote(name)} -> {quote(value)}" for name, value in values.items()]
        return lines
