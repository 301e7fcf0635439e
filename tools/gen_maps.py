"""Regenerate the embedded maps (rulesets/maps/*.yaml) from the public TripleA game files.

    python tools/gen_maps.py [--reference DIR] [--check]

The game files are read from `../shared/reference/triplea/` (beside the checkout) unless
`--reference` names another folder. Each map is produced by the TripleA importer, then given
the aliases the rule documents use, the players' colours and each space's position on the map's
TripleA picture (from tools/map_positions.yaml; a space with no centre there is placed at the
mean of its neighbours' positions). `--check` writes nothing and exits 1 when a checked-in map
differs from what would be generated.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ruleslang.importers.triplea import translate_game  # noqa: E402
from ruleslang.base.diagnostics import DiagnosticError, error, render_all_text  # noqa: E402
from ruleslang.importers.triplea_centers import add_positions  # noqa: E402

MAPS_DIR = REPO / "rulesets" / "maps"
POSITIONS = Path(__file__).resolve().parent / "map_positions.yaml"

# Colours close to the ones TripleA's maps use for each nation.
COLORS = {
    "Russians": "#8f2d1e", "Germans": "#5b5d60", "British": "#b78a3a", "UK_Pacific": "#c9a45e",
    "Japanese": "#e0a100", "Americans": "#4d7a2e", "Italians": "#6b4a2d", "Chinese": "#6f5aa8",
    "ANZAC": "#5a86b5", "French": "#2f5fa8", "Dutch": "#e07b22", "Mongolians": "#9c8f7a",
    "Neutral_Axis": "#a9a29a", "Neutral_Allies": "#b3b8ae", "Neutral_True": "#c4c0b8",
}

PLAYER_ALIASES = {
    "Russians": ["Russia", "Russian", "USSR", "Soviet Union", "Soviets"],
    "Germans": ["Germany", "German"],
    "British": ["UK", "Britain", "Great Britain", "United Kingdom"],
    "Japanese": ["Japan"],
    "Americans": ["US", "USA", "United States", "America", "American"],
    "Italians": ["Italy", "Italian"],
    "Chinese": ["China"],
    "French": ["France"],
    "UK_Pacific": ["UK Pacific", "UK (Pacific)"],
}

# Spellings the rule documents (shared/seeds/*.txt) use for spaces of the Revised board.
AAR_SPACE_ALIASES = {
    "United Kingdom": ["UK", "Great Britain"],
    "Western Europe": ["W. Europe", "France"],
    "Southern Europe": ["S. Europe", "Italy"],
    "Eastern Europe": ["E. Europe"],
    "Eastern Canada": ["E. Canada"],
    "Western Canada": ["W. Canada"],
    "Eastern United States": ["E. US", "E. USA", "Eastern US"],
    "Central United States": ["C. US", "Central US"],
    "Western United States": ["W. US", "W. USA", "Western US"],
    "Karelia S.S.R.": ["Karelia"],
    "Buryatia S.S.R.": ["Buryatia"],
    "Kazakh S.S.R.": ["Kazakh", "Kazakhstan"],
    "Yakut S.S.R.": ["Yakut"],
    "Ukraine S.S.R.": ["Ukraine"],
    "Kwantung": ["Kwangtung"],
    "French Indochina": ["FIC", "French Indo-China", "Indochina"],
    "Philipine Islands": ["Philippines", "Philippine Islands"],
    "Hawaiian Islands": ["Hawaii"],
    "Anglo Egypt": ["Egypt"],
    "Union of South Africa": ["South Africa"],
    "Soviet Far East": ["SFE"],
    "Evenki National Okrug": ["Evenki"],
    "Solomon Islands": ["Solomons"],
    "Caroline Islands": ["Carolines"],
    "Wake Island": ["Wake"],
}

COMMON_SPACE_ALIASES = {
    "United Kingdom": ["UK"],
    "Eastern United States": ["E. US", "Eastern US"],
    "Central United States": ["C. US", "Central US"],
    "Western United States": ["W. US", "Western US"],
}

GAMES = {
    "aar": {
        "xml": "ww2v2.xml",
        "title": "Axis & Allies Revised (TripleA World War II Revised)",
        "repository": "triplea-maps/world_war_ii_revised",
        "path": "map/games/ww2v2.xml",
        "commit": "8f170528c71903b9bb25682e3fe4751c44aaa29c",
        "spaces": AAR_SPACE_ALIASES,
    },
    "aa50-1942": {
        "xml": "WW2v3-1942.xml",
        "title": "Axis & Allies Anniversary Edition, 1942 setup (TripleA World War II v3 1942)",
        "repository": "triplea-maps/world_war_ii_v3",
        "path": "map/games/WW2v3-1942.xml",
        "commit": "1f61c6f4a9e5",
        "spaces": COMMON_SPACE_ALIASES,
    },
    "g40": {
        "xml": "ww2global40_2nd_edition.xml",
        "title": "Axis & Allies Global 1940, second edition (TripleA World War II Global 1940 2nd Edition)",
        "repository": "triplea-maps/world_war_ii_global",
        "path": "map/games/ww2global40_2nd_edition.xml",
        "commit": "9e25a588eb4f",
        "spaces": COMMON_SPACE_ALIASES,
    },
}


def overlay_for(space_aliases: dict[str, list[str]], positions: dict | None = None):
    """A function adding aliases, colours and (from an entry of map_positions.yaml) the spaces'
    positions to imported map data."""

    def overlay(data: dict) -> dict:
        if positions is not None:
            _add_positions(data, positions)
        for player in data["players"]:
            aliases = PLAYER_ALIASES.get(player["name"])
            if aliases:
                player["aliases"] = aliases
            if player["name"] in COLORS:
                player["color"] = COLORS[player["name"]]
        names = {s["name"] for s in data["spaces"]}
        for space in data["spaces"]:
            extra = [a for a in space_aliases.get(space["name"], []) if a not in names]
            if extra:
                space["aliases"] = space.get("aliases", []) + extra
        # Keep `aliases` next to `name` where a reader looks for it.
        data["spaces"] = [_aliases_first(s) for s in data["spaces"]]
        data["players"] = [_aliases_first(p) for p in data["players"]]
        return data

    return overlay


def _add_positions(data: dict, positions: dict) -> None:
    """Each space's `position` and, in the map's `source`, where the positions come from."""
    where = f"{positions['repository']}/{positions['path']}"
    centres = {name: tuple(point) for name, point in positions["centres"].items()}
    problems = add_positions(data, centres, where, positions.get("wrap"))
    spaces = data["spaces"]
    if not all("position" in space for space in spaces):
        raise DiagnosticError(problems or [error("U143", f"{where}: not every space has a position", file=where)])
    derived = sorted(space["name"] for space in spaces if space["name"] not in centres)
    note = f"each space's centre on that map's picture: {positions['how']}"
    if derived:
        note += (f"; the other {len(derived)} spaces, which that file does not name, each placed at "
                 "the mean of its neighbours' positions")
    data["source"]["positions"] = {"note": note, "repository": positions["repository"],
                                   "path": positions["path"], "commit": positions["commit"]}


def _aliases_first(entry: dict) -> dict:
    """The entry with `aliases` right after `name` and `attributes` last, where a reader looks."""
    ordered = {"name": entry["name"]}
    if "aliases" in entry:
        ordered["aliases"] = entry["aliases"]
    ordered.update((k, v) for k, v in entry.items() if k not in ordered and k != "attributes")
    if "attributes" in entry:
        ordered["attributes"] = entry["attributes"]
    return ordered


def generate(name: str, reference: Path) -> str:
    """The YAML text of one embedded map."""
    game = GAMES[name]
    xml = reference / "triplea" / game["xml"]
    source = {
        "note": f"generated by tools/gen_maps.py with ruleslang's TripleA importer from {game['xml']}; "
                "names, production values, adjacency and the starting position are that file's facts",
        "repository": game["repository"],
        "path": game["path"],
        "commit": game["commit"],
    }
    positions = yaml.safe_load(POSITIONS.read_text(encoding="utf-8")).get(name)
    translation = translate_game(xml, map_name=name, title=game["title"], source=source,
                                 overlay=overlay_for(game["spaces"], positions))
    return translation.map_text.replace(
        "generated by ruleslang's TripleA importer", "generated by tools/gen_maps.py (ruleslang's TripleA importer)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, default=REPO.parent / "shared" / "reference")
    parser.add_argument("--check", action="store_true", help="compare with the checked-in maps, write nothing")
    parser.add_argument("maps", nargs="*", default=sorted(GAMES), help="maps to generate (default: all)")
    args = parser.parse_args(argv)
    status = 0
    for name in args.maps:
        try:
            text = generate(name, args.reference)
        except DiagnosticError as exc:
            print(render_all_text(exc.diagnostics), file=sys.stderr)
            return 1
        target = MAPS_DIR / f"{name}.yaml"
        if args.check:
            same = target.is_file() and target.read_text(encoding="utf-8") == text
            print(f"{target.relative_to(REPO)}: {'up to date' if same else 'differs'}")
            status |= 0 if same else 1
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target.relative_to(REPO)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
