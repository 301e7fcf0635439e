"""Reading a TripleA game file's element tree: its sections, attachments, options, whole numbers
and unit names, with every problem a located D643 and every untranslated item in the report.
The map and the ruleset are translated by the subclasses in `triplea_map` and `triplea_ruleset`."""

from __future__ import annotations

import re

from ruleslang.base.diagnostics import Diagnostic, error
from ruleslang.base.limits import MAX_NUMBER_DIGITS
from ruleslang.base.safexml import XmlElement
from ruleslang.base.source import Source, Span, span_at
from ruleslang.importers.triplea_battle import BATTLE_RULESET, battle_names
from ruleslang.importers.triplea_names import identifier
from ruleslang.importers.triplea_report import ImportItem, ImportReport
from ruleslang.importers.triplea_variables import expand_variables

MONEY_RESOURCE = "PUs"
ATTACHMENT_CLASS = "games.strategy.triplea.attachments."


class GameReader:
    """A game file's tree (its variables expanded), the report it fills, and the problems found."""

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
        """The span of an element's start tag, for a diagnostic (None: no element)."""
        if element is None:
            return None
        return span_at(self.source, element.line, element.column, len(element.tag) + 1)

    def untranslated(self, category: str, name: str, detail: str, element: XmlElement | None) -> None:
        """Report one item of the XML as not translated (or kept only as data), at its element."""
        self.report.untranslated.append(ImportItem(category, name, detail, element.line if element else None,
                                                   element.column if element else 1))

    def fail(self, message: str, element: XmlElement | None, code: str = "D643") -> None:
        """A located error: the import is refused once every problem is found."""
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
        """The top-level element `tag` (an empty one, at the root, when the file has none)."""
        found = self.root.first(tag)
        return found if found is not None else XmlElement(tag, {}, self.root.line, self.root.column)

    def territories(self) -> dict[str, XmlElement]:
        """Territory name -> its element; a nameless or repeated territory is a located D643."""
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
        """The `<player>` elements that have a name, in the file's order."""
        return [p for p in self.section("playerList").all("player") if p.attrs.get("name")]

    def turn_order(self, players: list[str]) -> list[str]:
        """The players in the order their repeating steps come in the sequence."""
        order: list[str] = []
        # The repeating steps give the turn order; one-off bid steps may list players differently.
        repeating = [s for s in self.steps() if s.attrs.get("maxRunCount") != "1"]
        for step in repeating or self.steps():
            player = step.attrs.get("player")
            if player and player in players and player not in order:
                order.append(player)
        return order or players

    def first_alliances(self) -> dict[str, str]:
        """Player -> its side: the first alliance the player list gives it (as the map's players)."""
        out: dict[str, str] = {}
        for element in self.section("playerList").all("alliance"):
            out.setdefault(element.attrs.get("player", ""), element.attrs.get("alliance", ""))
        return out

    def unit_name(self, name: str, element: XmlElement | None = None) -> str:
        """The ruleslang name of a TripleA unit type (renamed when it is not an identifier, or
        when the battle ruleset every import uses declares the name)."""
        if name not in self.unit_names:
            new = identifier(name)
            reserved = battle_names().names
            while new in self.unit_names.values() or new in reserved:
                new += "_"
            if new != name:
                self.report.renames.append((name, new))
                why = (f"{BATTLE_RULESET} declares '{identifier(name)}'" if identifier(name) in reserved
                       else "not a ruleslang name")
                self.untranslated("rename", name, f"renamed to '{new}' ({why})", element)
            self.unit_names[name] = new
        return self.unit_names[name]

    def attachments(self, cls: str) -> list[XmlElement]:
        """The attachments of one TripleA attachment class (its short or full Java name)."""
        return [a for a in self.section("attachmentList").all("attachment")
                if a.attrs.get("javaClass", "").removeprefix(ATTACHMENT_CLASS) == cls]

    @staticmethod
    def options(attachment: XmlElement) -> list[tuple[str, str, XmlElement]]:
        """An attachment's options as (name, value, element)."""
        return [(o.attrs.get("name", ""), o.attrs.get("value", ""), o) for o in attachment.all("option")]

    def unit_options(self) -> dict[str, dict[str, tuple[str, XmlElement]]]:
        """Unit type -> option name -> (value, element), over all its unit attachments."""
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

    def steps(self) -> list[XmlElement]:
        """The steps of the game sequence (its `forEach` already expanded)."""
        sequence = self.section("gamePlay").first("sequence")
        return sequence.all("step") if sequence is not None else []

    def money(self) -> str:
        """The resource purchases are paid in: TripleA's PUs, else the first resource declared."""
        resources = [r.attrs.get("name", "") for r in self.section("resourceList").all("resource")]
        return MONEY_RESOURCE if MONEY_RESOURCE in resources or not resources else resources[0]
