"""TripleA's triggers and their conditions, translated into hooks of the generated ruleset.

A trigger (`TriggerAttachment`, attached to a player) fires `before:` or `after:` a step of the
game sequence (its `when` options), when its conditions hold (`RulesAttachment`s named by its
`conditions`, combined by `conditionType`, `invert`), with a `chance` (`a:b`: a die of b sides
showing a or less), at most `uses` times. What it does, for each of its `players` (the player it
is attached to when it names none):

- `placement` `TERRITORY:UNIT` (count N): N units added there;
- `removeUnits` `TERRITORY:UNIT` (count N; `all` for every territory): up to N removed there;
- `resource` with `resourceCount` N: money (the treasury) or another resource (its counter)
  changed by N, never below 0, times the `each` count of its conditions;
- `changeOwnership` `TERRITORY:OLD:NEW:...` (`any` for OLD): the territory changes hands;
- `activateTrigger` `NAME:TIMES:useUses:testUses:testConditions:testChance`: another trigger
  fired from this one, its conditions and chance tested as the flags say.

A condition becomes a formula of the ruleset: `directPresenceTerritories` (with `unitPresence`:
at least that many units of those types of the players in each; `count` how many territories,
`each` their number, which multiplies a trigger's resources and placements),
`directOwnershipTerritories`, `directExclusionTerritories` (no units of the players, of the
`unitPresence` types when given), `switch`, `conditions` with `conditionType`, `invert`; the
territories a list, or `map`/`all`, `controlled`, `controlledNoWater`, `original`,
`originalNoWater`. Each trigger becomes lines of one hook per (before/after, phase): the steps
TripleA names map onto the phases of the translated turn (`step_anchors`); a step with no phase
of its own stands for the end of the player's phase before it (else the start of the one after);
a step of no player (the game's start) fires before the first turn. A trigger some
`activateTrigger` fires is a `step` of the ruleset, run from there.

Everything else a trigger or condition does is not translated: each kind a D645 warning at its
first option, counted; a trigger whose conditions cannot be translated is left out whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ruleslang.base.safexml import XmlElement
from ruleslang.importers.triplea_names import identifier, quote

# Trigger options that say when and whether it fires, rather than what it does.
_TRIGGER_CONTROL = {"when", "conditions", "conditionType", "invert", "chance", "uses", "players"}
# Trigger options this module translates into effects.
_TRIGGER_ACTIONS = {"placement", "removeUnits", "resource", "resourceCount", "changeOwnership", "activateTrigger",
                    "victory"}
# The game property that makes TripleA test triggers with `victory` at the end of each round.
TRIGGERED_VICTORY = "Triggered Victory"
# Where triggers that fire at the end of a round go (TripleA's EndRoundDelegate).
ROUND_END = "round end"
# Condition options this module translates.
_CONDITION_OPTIONS = {"directPresenceTerritories", "directOwnershipTerritories", "directExclusionTerritories",
                      "alliedOwnershipTerritories", "unitPresence", "switch", "conditions", "conditionType",
                      "invert", "players", "gameProperty"}
# How deep activateTrigger chains are followed (TripleA's own chains are short; a cycle stops here).
_MAX_CHAIN = 8


@dataclass
class Anchor:
    """Where a step of the sequence fires its triggers: `timing` ("before"/"after") of `phase`
    for `player` (None: any player), or at the game's start (`phase` None)."""

    timing: str
    phase: str | None
    player: str | None


@dataclass
class _Trigger:
    name: str
    element: XmlElement
    players: list[str]
    whens: list[tuple[str, str]] = field(default_factory=list)
    conditions: list[str] = field(default_factory=list)
    condition_type: str = "AND"
    invert: bool = False
    chance: tuple[int, int] | None = None
    uses: int | None = None
    actions: list[tuple[str, str, str, XmlElement]] = field(default_factory=list)


def step_anchors(sequence: list[tuple[str, str | None, str | None]]) -> dict[str, tuple[Anchor, Anchor]]:
    """Step name -> (its `before:` anchor, its `after:` anchor), from the game sequence as
    (step name, player or None, translated phase or None) in order."""
    out: dict[str, tuple[Anchor, Anchor]] = {}
    for i, (step, player, phase) in enumerate(sequence):
        if phase is not None:
            out[step] = (Anchor("before", phase, player), Anchor("after", phase, player))
            continue
        if player is None:
            start = Anchor("start", None, None)
            out[step] = (start, start)
            continue
        earlier = next((p for s, who, p in reversed(sequence[:i]) if who == player and p is not None), None)
        later = next((p for s, who, p in sequence[i + 1:] if who == player and p is not None), None)
        if earlier is not None:
            anchor = Anchor("after", earlier, player)
        elif later is not None:
            anchor = Anchor("before", later, player)
        else:
            continue
        out.setdefault(step, (anchor, anchor))
    return out


class Code:
    """Ruleset text with holes for the literals one trigger names (players, spaces, unit types,
    numbers, texts): triggers that differ only in those share one text (its `shape`) and become
    rows of a table the hook loops over. A player, space or unit type named twice is one hole."""

    def __init__(self):
        self.args: list[tuple[str, object]] = []
        self.index: dict[tuple[str, object], int] = {}

    def hole(self, kind: str, value: object) -> str:
        key = (kind, value)
        if kind != "int" and key in self.index:
            return f"\x00{self.index[key]}\x00"
        self.args.append(key)
        self.index[key] = len(self.args) - 1
        return f"\x00{len(self.args) - 1}\x00"

    def player(self, name: str) -> str:
        return self.hole("player", name)

    def space(self, name: str) -> str:
        return self.hole("space", name)

    def number(self, value: int) -> str:
        return self.hole("int", value)


_HOLE = re.compile("\x00(\\d+)\x00")
_COLUMN_TYPES = {"player": "player", "space": "space", "unit": "unittype", "int": "int", "text": "text"}


def literal(kind: str, value: object) -> str:
    """A hole's value written in the ruleset."""
    if kind == "player":
        return f"player({quote(str(value))})"
    if kind == "space":
        return f"space({quote(str(value))})"
    if kind == "text":
        return quote(str(value))
    return str(value)


def cell(kind: str, value: object) -> str:
    """A hole's value as a table cell (a text names a player or space)."""
    return quote(str(value)) if kind in ("player", "space", "text") else str(value)


class TriggerWriter:
    """The triggers of one game file as ruleset lines. `reader` is the import's GameReader;
    `counters` maps each resource besides money to its counter; `taken` the names declared."""

    def __init__(self, reader, money: str, counters: dict[str, str], taken: set[str]):
        self.reader = reader
        self.money = money
        self.counters = counters
        self.taken = taken
        self.players = [p.attrs["name"] for p in reader.player_elements()]
        territories = reader.territories()
        self.territories = set(territories)
        self.factories = {reader.unit_name(u) for u in reader.factory_units()}
        self.conditions = {a.attrs.get("name", ""): a for a in reader.attachments("RulesAttachment")}
        self.properties = {p.attrs.get("name", ""): p.attrs.get("value", "")
                           for p in reader.section("propertyList").all("property")}
        self.sides = reader.first_alliances()
        self.bad_conditions: set[str] = set()
        self.good_conditions: set[str] = set()
        self.triggers: dict[str, _Trigger] = {}
        self.uses_counter: str | None = None
        self.fired: set[str] = set()  # the triggers some hook fires
        self.activated: set[str] = set()  # the triggers another fires
        self.needs_first = False
        self.tables = 0  # tables of trigger rows written so far (their names are numbered)

    # ------------------------------------------------------------ names

    def fresh(self, base: str) -> str:
        name = identifier(base).lower()
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name

    def note(self, kind: str, detail: str, element: XmlElement) -> None:
        self.reader.untranslated("trigger", kind, detail, element)

    # ------------------------------------------------------------ conditions

    def territory_list(self, code: Code, value: str, owners: str) -> str | None:
        """A list-of-spaces expression for a TripleA territory list (None: not translated)."""
        special = {"map": "spaces()", "all": "spaces()",
                   "controlled": f"[t for t in spaces() where {one_of('controller(t)', owners)}]",
                   "controlledNoWater": f"[t for t in territories() where {one_of('controller(t)', owners)}]",
                   "original": f"[t for t in spaces() where {one_of('original_owner(t)', owners)}]",
                   "originalNoWater": f"[t for t in territories() where {one_of('original_owner(t)', owners)}]"}
        if value in special:
            return special[value]
        names = [n for n in value.split(":") if n]
        if not names or any(n not in self.territories for n in names):
            return None
        return "[" + ", ".join(code.space(n) for n in names) + "]"

    def unit_set(self, code: Code, value: str) -> list[str] | None:
        """The ruleslang names of a TripleA list of unit types (None: one is unknown)."""
        names = [n for n in value.split(":") if n]
        if not names or any(n not in self.reader.unit_names for n in names):
            return None
        return [self.reader.unit_names[n] for n in names]

    def count_of(self, code: Code, place: str, owners: str, kinds: list[str] | None) -> str:
        """How many units of `kinds` (None: any) the `owners` have at `place`; a factory type
        (the map keeps one factory a territory, not a unit) counts 1 where it stands."""
        if kinds is None:
            return f"count(units({place}, owner: {owners}))"
        plain = [k for k in kinds if k not in self.factories]
        built = [k for k in kinds if k in self.factories]
        parts = []
        if plain:
            kind = code.hole("unit", plain[0]) if len(plain) == 1 else "{" + ", ".join(plain) + "}"
            parts.append(f"count(units({place}, owner: {owners}, type: {kind}))")
        if built:
            kinds_text = "{" + ", ".join(quote(k) for k in built) + "}"
            parts.append(f"(if {one_of(f'factory_owner({place})', owners)} and factory_kind({place}) in "
                         f"{kinds_text} then 1 else 0)")
        return " + ".join(parts)

    @staticmethod
    def owner_set(code: Code, players: list[str]) -> str:
        if len(players) == 1:
            return code.player(players[0])
        return "{" + ", ".join(f"player({quote(p)})" for p in players) + "}"

    def condition(self, code: Code, name: str, depth: int = 0) -> tuple[str | None, str | None]:
        """(the expression testing condition `name`, the expression of its `each` count or None);
        (None, None) when it cannot be translated (reported once, at its element)."""
        element = self.conditions.get(name)
        if element is None or name in self.bad_conditions or depth > _MAX_CHAIN:
            return None, None
        found = self._condition(code, name, element, depth)
        if found[0] is None:
            self.bad_conditions.add(name)
        else:
            self.good_conditions.add(name)
        return found

    def _condition(self, code: Code, name: str, element: XmlElement, depth: int) -> tuple[str | None, str | None]:
        options = self.reader.options(element)
        players = [element.attrs.get("attachTo", "")]
        for option, value, _ in options:
            if option == "players":
                players = [p for p in value.split(":") if p in self.players] or players
        if any(p not in self.players for p in players):
            return None, None
        owners = self.owner_set(code, players)
        clauses: list[str] = []
        each: str | None = None
        nested: list[str] = []
        kind = "AND"
        invert = False
        presence = [(v, e.attrs.get("count", "1")) for o, v, e in options if o == "unitPresence"]
        for option, value, opt in options:
            if option not in _CONDITION_OPTIONS:
                self.reader.untranslated("condition", option, f"'{name}': {option}={value!r} is not translated; "
                                         "the triggers that test it are left out", opt)
                return None, None
            if option in ("directPresenceTerritories", "directOwnershipTerritories", "directExclusionTerritories",
                          "alliedOwnershipTerritories"):
                single = value in self.territories
                spaces = code.space(value) if single else self.territory_list(code, value, owners)
                if spaces is None:
                    self.reader.untranslated("condition", option, f"'{name}': the territories {value!r} are not "
                                             "translated", opt)
                    return None, None
                place = spaces if single else "t"
                if option == "directOwnershipTerritories":
                    pred = one_of(f"controller({place})", owners)
                elif option == "alliedOwnershipTerritories":  # held by the first of the players or an ally
                    pred = f"controller({place}) != none and allied(controller({place}), {code.player(players[0])})"
                elif option == "directExclusionTerritories":
                    kinds = [self.unit_set(code, v) for v, _ in presence]
                    if any(k is None for k in kinds):
                        return None, None
                    pred = " and ".join(f"{self.count_of(code, place, owners, k)} == 0" for k in kinds) \
                        or f"{self.count_of(code, place, owners, None)} == 0"
                else:
                    parts = []
                    for v, n in presence:
                        k = self.unit_set(code, v)
                        if k is None or not re.fullmatch(r"\d+", n):
                            return None, None
                        parts.append(f"{self.count_of(code, place, owners, k)} >= {code.number(int(n))}")
                    pred = " and ".join(parts) or f"{self.count_of(code, place, owners, None)} > 0"
                wanted = opt.attrs.get("count", "")
                if single:
                    clauses.append(pred)
                    if wanted == "each":
                        each = f"(if {pred} then 1 else 0)"
                    continue
                if spaces == "spaces()" and option == "directPresenceTerritories" and presence:
                    # Only where the players have units of the first kind asked for can the test hold:
                    # those spaces, rather than every space of the map (the same count, far quicker).
                    for value_, n in presence:
                        kinds_ = self.unit_set(code, value_) or []
                        if kinds_ and n != "0" and not any(k in self.factories for k in kinds_):
                            kind = code.hole("unit", kinds_[0]) if len(kinds_) == 1 else "{" + ", ".join(kinds_) + "}"
                            spaces = f"{{u.space for u in units(owner: {owners}, type: {kind})}}"
                            break
                matching = f"count(t for t in {spaces} where {pred})"
                if wanted == "each":
                    each = matching
                    clauses.append(f"{matching} > 0")
                elif re.fullmatch(r"\d+", wanted):
                    clauses.append(f"{matching} >= {code.number(int(wanted))}")
                else:  # every territory listed
                    clauses.append(f"{matching} == count({spaces})")
            elif option == "gameProperty":  # a property of the game file: fixed when it is imported
                clauses.append("true" if self.properties.get(value) == "true" else "false")
            elif option == "switch":
                clauses.append("true" if value == "true" else "false")
            elif option == "conditions":
                nested += [c for c in value.split(":") if c]
            elif option == "conditionType":
                kind = value
            elif option == "invert":
                invert = value == "true"
        if nested:
            calls = []
            for other in nested:
                call, _ = self.condition(code, other, depth + 1)
                if call is None:
                    return None, None
                calls.append(call)
            combined = combine(calls, kind)
            if combined is None:
                return None, None
            clauses.append(combined)
        test = " and ".join(clauses if len(clauses) == 1 else [f"({c})" for c in clauses]) or "true"
        if invert:
            test = f"not ({test})"
        return test, each

    # ------------------------------------------------------------ triggers

    def read_triggers(self) -> None:
        for element in self.reader.attachments("TriggerAttachment"):
            name = element.attrs.get("name", "")
            owner = element.attrs.get("attachTo", "")
            trigger = _Trigger(name, element, [owner])
            for option, value, opt in self.reader.options(element):
                if option == "when":
                    timing, _, step = value.partition(":")
                    trigger.whens.append((timing, step))
                elif option in ("conditions", "trigger"):  # `trigger`: TripleA's older name for it
                    trigger.conditions += [c for c in value.split(":") if c]
                elif option == "conditionType":
                    trigger.condition_type = value
                elif option == "invert":
                    trigger.invert = value == "true"
                elif option == "chance":
                    m = re.fullmatch(r"(\d+):(\d+)", value)
                    trigger.chance = (int(m.group(1)), int(m.group(2))) if m else None
                elif option == "uses":
                    trigger.uses = int(value) if re.fullmatch(r"\d+", value) else None
                elif option == "players":
                    trigger.players = [p for p in value.split(":") if p]
                elif option in _TRIGGER_ACTIONS:
                    trigger.actions.append((option, value, opt.attrs.get("count", ""), opt))
                else:
                    self.note(option, f"'{name}': {option}={value!r} is not translated", opt)
            self.triggers[name] = trigger

    def test_of(self, code: Code, trigger: _Trigger, *, conditions: bool = True, chance: bool = True) -> str | None:
        """The expression a trigger fires on (None: its conditions cannot be translated)."""
        parts = []
        if conditions and trigger.conditions:
            calls = [self.condition(code, c)[0] for c in trigger.conditions]
            if any(c is None for c in calls):
                return None
            combined = combine(calls, trigger.condition_type)
            if combined is None:
                return None
            parts.append(f"not ({combined})" if trigger.invert else combined)
        if chance and trigger.chance is not None:
            hit, sides = trigger.chance
            if hit < sides:
                parts.append(f"d{sides} <= {hit}")
        return " and ".join(parts) or "true"

    def each_of(self, code: Code, trigger: _Trigger) -> str | None:
        for c in trigger.conditions:
            each = self.condition(code, c)[1]
            if each is not None:
                return each
        return None

    def action_lines(self, code: Code, trigger: _Trigger, depth: int) -> list[str] | None:
        """The statements of a trigger's effects (None: nothing it does is translated)."""
        if any(p not in self.players for p in trigger.players):
            self.note("players", f"'{trigger.name}' names a player the game does not have", trigger.element)
            return None
        each = self.each_of(code, trigger) if trigger.conditions else None
        lines: list[str] = []
        resources: list[str] = [v for o, v, _, _ in trigger.actions if o == "resource"]
        for option, value, count, opt in trigger.actions:
            if option == "resource":
                continue
            if option == "activateTrigger":
                lines += self.activation(code, trigger, value, opt, depth)
                continue
            if option == "victory":
                side = self.sides.get(trigger.players[0])
                if side is None or self.properties.get(TRIGGERED_VICTORY) != "true":
                    why = "its player has no alliance" if side is None else f"the game's {TRIGGERED_VICTORY!r} is off"
                    self.note(option, f"'{trigger.name}': victory={value!r} is not translated: {why}", opt)
                    continue
                lines.append(f"win side({quote(side)}) {quote('TripleA victory: ' + value)}")
                continue
            if option == "changeOwnership":
                parts = value.split(":")
                if len(parts) < 3 or parts[0] not in self.territories or parts[2] not in self.players \
                        or (parts[1] != "any" and parts[1] not in self.players):
                    self.note(option, f"'{trigger.name}': {option}={value!r} is not translated", opt)
                    continue
                space = code.space(parts[0])
                change = f"set controller({space}) to {code.player(parts[2])}"
                lines += [change] if parts[1] == "any" else \
                    [f"if controller({space}) == {code.player(parts[1])}:", "    " + change]
                continue
            for p in trigger.players:
                who = code.player(p)
                if option in ("placement", "removeUnits"):
                    lines += self.units_lines(code, trigger, option, value, count, opt, who, each)
                elif option == "resourceCount":
                    if not re.fullmatch(r"-?\d+", value) or not resources:
                        self.note(option, f"'{trigger.name}': {option}={value!r} is not translated", opt)
                        continue
                    resource = resources[-1]
                    if resource == self.money:
                        stock = f"treasury({who})"
                    elif resource in self.counters:
                        stock = f"{self.counters[resource]}({who})"
                    else:
                        self.note("resource", f"'{trigger.name}': the resource {resource!r} has no counter", opt)
                        continue
                    change = code.number(int(value)) + (f" * {each}" if each else "")
                    if value.startswith("-"):  # TripleA never takes a stock below nothing
                        lines += [f"if {stock} > 0:", f"    change {stock} by max({change}, -{stock})"]
                    else:
                        lines.append(f"change {stock} by {change}")
        return lines or None

    def units_lines(self, code: Code, trigger: _Trigger, option: str, value: str, count: str, opt: XmlElement,
                    who: str, each: str | None) -> list[str]:
        """A `placement` or `removeUnits` of one player (`who`): units added or removed."""
        where, _, unit = value.rpartition(":")
        kinds = self.unit_set(code, unit)
        amount = count or "1"
        if kinds is None or len(kinds) != 1 or not re.fullmatch(r"\d+", amount) or \
                (where != "all" and where not in self.territories) or (option == "placement" and where == "all"):
            self.note(option, f"'{trigger.name}': {option}={value!r} is not translated", opt)
            return []
        kind = kinds[0]
        place = "t" if where == "all" else code.space(where)
        if kind in self.factories:  # the map's factory of the territory, not a unit
            built = f"factory_owner({place}) == {who} and factory_kind({place}) == {quote(kind)}"
            lines = ([f"set factory_owner({place}) to {who}", f"set factory_kind({place}) to {quote(kind)}"]
                     if option == "placement" else [f"if {built}:", f"    set factory_owner({place}) to none"])
        else:
            n = code.number(int(amount))
            if option == "placement":
                # the unit type written in: `add` takes a unit type's name, not a value
                lines = [f"add ({n} * {each}) {kind} at {place} for {who}" if each
                         else f"add {n} {kind} at {place} for {who}"]
            else:
                self.needs_first = True
                found = f"units({place}, owner: {who}, type: {code.hole('unit', kind)})"
                lines = [f"if count({found}) > 0:", f"    remove first_units({found}, {n})"]
        if where == "all":
            return ["for t in spaces():"] + ["    " + line for line in lines]
        return lines

    def activation(self, code: Code, trigger: _Trigger, value: str, opt: XmlElement, depth: int) -> list[str]:
        parts = value.split(":")
        target = self.triggers.get(parts[0])
        if target is None or len(parts) < 6 or not re.fullmatch(r"\d+", parts[1]) or depth >= _MAX_CHAIN:
            self.note("activateTrigger", f"'{trigger.name}': activateTrigger={value!r} is not translated", opt)
            return []
        test = self.test_of(code, target, conditions=parts[4] == "true", chance=parts[5] == "true")
        body = self.action_lines(code, target, depth + 1)
        if test is None or body is None:
            return []
        self.activated.add(target.name)
        times = int(parts[1])
        if test != "true":
            body = [f"if {test}:"] + ["    " + line for line in body]
        if times == 1:
            return body
        return [f"for i in 1..{times}:"] + ["    " + line for line in body]

    def lines(self, anchors: dict[str, tuple[Anchor, Anchor]], opening: str | None,
              round_end: tuple[str, int] | None = None) -> list[str]:
        """The ruleset lines: one hook per (timing, phase) the triggers fire at, each trigger its
        lines there (triggers of one shape: a table of their holes and one loop).
        `opening`: the phase that opens the game (the start's triggers fire before it); `round_end`:
        (the turn's last phase, the last player's place in the turn order), where a round ends."""
        self.read_triggers()
        self.needs_first = False
        # (timing, phase) -> shape -> rows of hole values, in the order the triggers come
        hooks: dict[tuple[str, str | None], dict[str, list[list[tuple[str, object]]]]] = {}
        for trigger in self.triggers.values():
            places: dict[tuple[str, str | None], set[str | None]] = {}
            for timing, step in trigger.whens:
                anchor = anchors.get(step)
                if anchor is None:
                    continue  # a step the sequence does not have ("before:Never"): fired only by others
                a = anchor[0] if timing == "before" else anchor[1]
                places.setdefault((a.timing, a.phase), set()).add(a.player)
            if not trigger.whens and any(o == "victory" for o, *_ in trigger.actions):
                places[("after", ROUND_END)] = {None}  # TripleA tests them at the end of each round
            if not places:
                if not trigger.whens:
                    self.note("when", f"'{trigger.name}' has no `when`; not translated", trigger.element)
                continue
            for key, who in places.items():
                code = Code()
                guard = [] if None in who else [f"current_player() in {self.owner_set(code, sorted(who))}"
                                                if len(who) > 1 else
                                                f"current_player() == {code.player(next(iter(who)))}"]
                test = self.test_of(code, trigger)
                if test is None:
                    self.note("conditions", f"'{trigger.name}': its conditions are not translated; left out",
                              trigger.element)
                    break
                body = self.action_lines(code, trigger, 0)
                if body is None:
                    break
                if trigger.uses is not None:
                    used = self.uses_name()
                    name = code.hole("text", trigger.name)
                    test = f"{used}({name}) < {code.number(trigger.uses)} and {test}"
                    body = body + [f"change {used}({name}) by 1"]
                self.fired.add(trigger.name)
                condition = " and ".join(guard + ([test] if test != "true" else []))
                shape = "\n".join(([f"if {condition}:"] + ["    " + line for line in body]) if condition else body)
                hooks.setdefault(key, {}).setdefault(shape, []).append(code.args)
        out: list[str] = []
        if not hooks:
            return out
        out += ["", "# TripleA's triggers (ruleslang/importers/triplea_triggers.py): one hook per step they fire",
                "# at; triggers that differ only in the players, spaces, units and numbers they name share",
                "# one text, looping over a table of those (`trigger_rows_N`)."]
        if self.uses_counter:
            out.append(f"counter {self.uses_counter}(name: text) -> int = 0    # times a trigger with `uses` fired")
        if self.needs_first:
            self.first = self.fresh("first_units")
            out.append(f"formula {self.first}(us: list of unit, n: int) -> list of unit = "
                       "[us[i] for i in 0..min(n, count(us)) - 1]")
        hook_lines: list[str] = []
        for (timing, phase), shapes in hooks.items():
            if phase is None:
                if opening is None:
                    continue
                name = self.fresh("triggers_at_start")
                hook_lines.append(f"hook {name} before {opening} when round() == 1 and turn_index(current_player()) == 1:")
            elif phase == ROUND_END:
                if round_end is None:
                    continue
                name = self.fresh("triggers_at_round_end")
                hook_lines.append(f"hook {name} after {round_end[0]} when turn_index(current_player()) == {round_end[1]}:")
            else:
                name = self.fresh(f"triggers_{timing}_{phase}")
                hook_lines.append(f"hook {name} {timing} {phase}:")
            for shape, rows in shapes.items():
                table_lines, body = self.folded(shape, rows)
                out += table_lines
                hook_lines += ["    " + line for line in body]
        out += hook_lines
        self.reader.report.triggers = len(self.fired)
        return out

    def folded(self, shape: str, rows: list[list[tuple[str, object]]]) -> tuple[list[str], list[str]]:
        """One shape's text: with one row, its values written in; with more, the holes whose value
        differs between rows read from a table (the others written in), in a loop over its rows.
        A shape that fires only for the player a hole names (`if current_player() == <hole>`)
        loops over that player's rows alone (a table keyed by player and number, and their count)."""
        text = shape.replace("first_units(", f"{getattr(self, 'first', 'first_units')}(")
        width = len(rows[0])
        varying = [k for k in range(width) if any(r[k] != rows[0][k] for r in rows)] if len(rows) > 1 else []
        mover = re.match("if current_player\\(\\) == \x00(\\d+)\x00(:| and )", text)
        by_player = int(mover.group(1)) if mover and int(mover.group(1)) in varying else None
        if by_player is not None:  # the guard always holds for the current player's own rows
            text = text.replace(mover.group(0), "if " if mover.group(2) == " and " else "if true:", 1)
            varying.remove(by_player)
        columns = {k: f"c{n}" for n, k in enumerate(varying, 1)}
        self.tables += 1
        table = self.fresh(f"trigger_rows_{self.tables}") if varying or by_player is not None else None

        def fill(m: re.Match) -> str:
            k = int(m.group(1))
            if k == by_player:
                return "current_player()"
            return f"r.{columns[k]}" if k in columns else literal(*rows[0][k])

        body = _HOLE.sub(fill, text).splitlines()
        if body[0] == "if true:":  # the player's guard was the whole test
            body = [line[4:] for line in body[1:]]
        if by_player is None and not varying:
            return [], (body if len(rows) == 1 else [f"for i in 1..{len(rows)}:"] + ["    " + line for line in body])
        kinds = ", ".join(f"{columns[k]}: {_COLUMN_TYPES[rows[0][k][0]]}" for k in varying)
        if by_player is None:
            table_lines = [f"table {table}(i: int) -> ({kinds}):"]
            table_lines += [f"    {i} -> " + ", ".join(cell(*row[k]) for k in varying) for i, row in enumerate(rows, 1)]
            return table_lines, [f"for r in rows({table}):"] + ["    " + line for line in body]
        mine: dict[str, list[list[tuple[str, object]]]] = {p: [] for p in self.players}
        for row in rows:
            mine[str(row[by_player][1])].append(row)
        table_lines = [f"table {table}_count(p: player) -> int:"]
        table_lines += [f"    {quote(p)} -> {len(got)}" for p, got in mine.items()]
        loop = [f"for i in 1..{table}_count(current_player()):"]
        if varying:
            table_lines.append(f"table {table}(p: player, i: int) -> ({kinds}):")
            table_lines += [f"    {quote(p)}, {i} -> " + ", ".join(cell(*row[k]) for k in varying)
                            for p, got in mine.items() for i, row in enumerate(got, 1)]
            loop.append(f"    let r = {table}(current_player(), i)")
        return table_lines, loop + ["    " + line for line in body]

    def translated(self) -> set[str]:
        """The attachments (triggers and conditions) written into the ruleset."""
        return (self.good_conditions - self.bad_conditions) | self.fired | self.activated

    def uses_name(self) -> str:
        if self.uses_counter is None:
            self.uses_counter = self.fresh("trigger_uses")
        return self.uses_counter


def one_of(who: str, owners: str) -> str:
    """`who` is one of `owners` (a set literal, or one player: compared, no set made each time)."""
    return f"{who} in {owners}" if owners.startswith("{") else f"{who} == {owners}"


def combine(calls: list[str], kind: str) -> str | None:
    """Conditions joined as TripleA's conditionType says: AND, OR, or how many must hold (`2`, `1-3`)."""
    if kind in ("AND", "and", ""):
        return " and ".join(calls)
    if kind in ("OR", "or"):
        return "(" + " or ".join(calls) + ")"
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", kind)
    if not m:
        return None
    held = f"count(c for c in [{', '.join(calls)}] where c)"
    low, high = m.group(1), m.group(2)
    return f"{held} >= {low}" + (f" and {held} <= {high}" if high else "")
