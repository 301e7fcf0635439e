"""The results store of a comparison: an SQLite file, `DIR/games.sqlite`, one row a finished game.

Table `header` (key, value as JSON) describes what every game was played with: the store's format,
the ruleslang version, the seed, the rounds, the agents and, for each variant, its composition,
the content hash of each ruleset file and of its scenario's text. Table `games` holds
(variant, game, record as JSON, seconds); each row is committed as its game finishes, so an
interruption loses only the games in flight. `seconds` (how long the game took in its process)
is the only column that depends on the machine: the canonical dump (`dump`) leaves it out.

`--resume` goes on with a store only when its header is the one this run would write; what differs
is named (D681). A store without `--resume` that already holds games is refused (D682); a file
that is not a store of this format, or a damaged one, is D680.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from ruleslang.base.diagnostics import DiagnosticError, error

STORE_FORMAT = "ruleslang-compare-store"
STORE_VERSION = 1
FILE_NAME = "games.sqlite"

_SCHEMA = """
CREATE TABLE header (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (variant INTEGER NOT NULL, game INTEGER NOT NULL, record TEXT NOT NULL, seconds REAL,
                    PRIMARY KEY (variant, game));
"""


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class Store:
    """An open store; `add` commits each game at once."""

    def __init__(self, path: Path, connection: sqlite3.Connection):
        self.path = path
        self.connection = connection

    @classmethod
    def open(cls, folder: Path, header: dict, *, resume: bool) -> "Store":
        """The store in `folder` for a run described by `header`: made when missing (`resume` or
        not), gone on with when `resume` and its header is this one, refused otherwise."""
        path = Path(folder) / FILE_NAME
        if Path(folder).exists() and not Path(folder).is_dir():
            raise DiagnosticError(error("D680", f"--store {folder}: it is a file, not a folder", file=str(folder),
                                        hint="--store takes a folder; the store is the file games.sqlite in it"))
        existed = path.exists()
        if not existed:
            Path(folder).mkdir(parents=True, exist_ok=True)
        try:
            connection = sqlite3.connect(path)
            store = cls(path, connection)
            if not existed:
                with connection:
                    connection.executescript(_SCHEMA)
                    connection.executemany("INSERT INTO header VALUES (?, ?)",
                                           [(k, _canonical(v)) for k, v in sorted(header.items())])
                return store
            stored = store.header()
            games = store.count()
        except sqlite3.DatabaseError as exc:
            raise DiagnosticError(error("D680", f"{path} is not a readable results store ({exc})", file=str(path),
                                        hint="give another --store folder, or remove this file"))
        if stored.get("format") != STORE_FORMAT:
            raise DiagnosticError(error("D680", f"{path} is not a ruleslang compare store", file=str(path),
                                        hint="give another --store folder"))
        if not resume:
            if games:
                raise DiagnosticError(error(
                    "D682", f"{path} already holds {games} game(s) of a comparison", file=str(path),
                    hint="--resume goes on with it; another --store folder (or removing it) starts afresh"))
            with connection:  # an empty store: this run's header replaces the one it was made with
                connection.executemany("INSERT OR REPLACE INTO header VALUES (?, ?)",
                                       [(k, _canonical(v)) for k, v in sorted(header.items())])
            return store
        differences = header_differences(stored, header)
        if differences:
            raise DiagnosticError(error(
                "D681", f"--resume: {path} was played with other settings: " + "; ".join(differences),
                file=str(path), hint="resume with the same variants, rulesets, scenario, rounds, agents, seed "
                                     "and ruleslang, or give another --store folder"))
        return store

    def header(self) -> dict:
        """The stored header (JSON values by key)."""
        try:
            rows = self.connection.execute("SELECT key, value FROM header").fetchall()
            return {key: json.loads(value) for key, value in rows}
        except (ValueError, sqlite3.DatabaseError) as exc:
            raise sqlite3.DatabaseError(f"its header cannot be read: {exc}")

    def count(self) -> int:
        """The number of games stored."""
        return self.connection.execute("SELECT COUNT(*) FROM games").fetchone()[0]

    def add(self, variant: int, game: int, record: dict, seconds: float) -> None:
        """Store one finished game, committed at once."""
        with self.connection:
            self.connection.execute("INSERT INTO games VALUES (?, ?, ?, ?)",
                                    (variant, game, _canonical(record), seconds))

    def records(self) -> dict[tuple[int, int], dict]:
        """Every stored game's record by (variant, game)."""
        try:
            rows = self.connection.execute("SELECT variant, game, record FROM games").fetchall()
            return {(v, g): json.loads(text) for v, g, text in rows}
        except (ValueError, sqlite3.DatabaseError) as exc:
            raise DiagnosticError(error("D680", f"{self.path}: a stored game cannot be read ({exc})",
                                        file=str(self.path), hint="give another --store folder"))

    def dump(self) -> str:
        """The store as text, without timings: the header, then the games sorted by variant and game."""
        lines = [f"header {key} {_canonical(value)}" for key, value in sorted(self.header().items())]
        rows = self.connection.execute("SELECT variant, game, record FROM games ORDER BY variant, game")
        lines += [f"game {v} {g} {text}" for v, g, text in rows]
        return "\n".join(lines) + "\n"

    def close(self) -> None:
        """Close the file (every game is already committed)."""
        self.connection.close()


def header_differences(stored: dict, wanted: dict) -> list[str]:
    """What differs between a stored header and this run's, a phrase each."""
    out = []
    for key in sorted(set(stored) | set(wanted)):
        a, b = stored.get(key), wanted.get(key)
        if a == b:
            continue
        if key == "variants" and isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            out += [f"variant {i + 1}: {phrase}" for i, (x, y) in enumerate(zip(a, b))
                    for phrase in _variant_differences(x, y)]
        else:
            out.append(f"{key}: the store has {_short(a)}, this run {_short(b)}")
    return out


def _variant_differences(a, b) -> list[str]:
    if not isinstance(a, dict) or not isinstance(b, dict):
        return [f"the store has {_short(a)}, this run {_short(b)}"]
    out = []
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key), b.get(key)
        if x == y:
            continue
        if key == "rulesets" and isinstance(x, dict) and isinstance(y, dict):
            for ref in sorted(set(x) | set(y)):
                if ref not in x:
                    out.append(f"ruleset {ref} is new")
                elif ref not in y:
                    out.append(f"ruleset {ref} is no longer played")
                elif x[ref] != y[ref]:
                    out.append(f"ruleset {ref} changed (content hash {x[ref][:12]} -> {y[ref][:12]})")
        else:
            out.append(f"{key}: the store has {_short(x)}, this run {_short(y)}")
    return out


def _short(value) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."
