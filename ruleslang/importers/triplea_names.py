"""Names and values of TripleA's game files as ruleslang spells them."""

from __future__ import annotations

import re
from pathlib import Path

from ruleslang.base.limits import MAX_NUMBER_DIGITS


def snake_case(name: str) -> str:
    """`russianNonCombatMove` -> `russian_non_combat_move`, `maxAAattacks` -> `max_aa_attacks`."""
    text = name.replace("AA", "AA_") if re.search(r"AA[a-z]", name) else name  # TripleA writes `isAAforX`
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    text = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower()
    return re.sub(r"_+", "_", text) or "unnamed"


def identifier(name: str) -> str:
    """A ruleslang identifier for a name: other characters become `_`; a leading digit gets `_`."""
    text = re.sub(r"[^A-Za-z0-9_]", "_", name.strip())
    if not text or text[0].isdigit():
        text = "_" + text
    return text


def map_name_for(path: Path) -> str:
    """A map name from a file name: `WW2v3-1942.xml` -> `ww2v3-1942`."""
    text = re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")
    return text if text and text[0].isalpha() else "map-" + text


def option_value(text: str) -> object:
    """An XML option value as data: true/false, a whole number, a list (a:b), or text."""
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?\d{1,%d}" % MAX_NUMBER_DIGITS, text):  # longer: kept as text, never converted
        return int(text)
    if ":" in text:
        return [option_value(part) for part in text.split(":")]
    return text


def quote(text: str) -> str:
    """A ruleslang text literal: quotes and backslashes escaped, braces doubled (no interpolation)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return '"' + escaped.replace("{", "{{").replace("}", "}}") + '"'
