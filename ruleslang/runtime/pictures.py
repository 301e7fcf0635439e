"""Pictures of a recorded game: the board after each round of a save or log, replayed from its record.

`replay_document` plays the record again (as `ruleslang replay` does, refusing a record that does
not replay the same) and gives the document `reports/replay.py` renders: for the start and for
every round, the board drawn as SVG (control as colours, units as lines, factories), the round's
summary (income, gains by cause, battles, control changes, scores), the raids and the messages
each rule logged. `final_state` is the board at the end of a record (`map show --save`).
"""

from __future__ import annotations

from ruleslang.board.render import by_position, render_svg
from ruleslang.board.state import GameState
from ruleslang.runtime import saves


def replay_document(workspace, data: dict, path: str) -> tuple[saves.ReplayResult, dict]:
    """The replay of `data` (read from `path`) and the document of its rounds, drawn."""
    frames: list[dict] = []
    seen = [0]  # the events already given to a frame
    drawn: list = []  # the board's map, to say how it is laid out

    def on_round(game, summary) -> None:
        events = game.state.events[seen[0]:]
        seen[0] = len(game.state.events)
        frames.append(_frame(game, summary, events))
        drawn[:] = [game.state.map]

    result = saves.replay(workspace, data, path, progress=on_round)
    document = {
        "layout": "by the spaces' positions on the map" if drawn and by_position(drawn[0]) else
                  "from the map's connections (the map carries no positions)",
        "title": f"{' + '.join(data.get('compose') or [])}: seed {data.get('seed')}",
        "record": path,
        "compose": list(data.get("compose") or []),
        "map": (data.get("map") or {}).get("name"),
        "seed": data.get("seed"),
        "rounds_played": data.get("rounds_played"),
        "finished": data.get("finished"),
        "frames": frames,
    }
    return result, document


def final_state(workspace, data: dict, path: str) -> tuple[saves.ReplayResult, GameState | None]:
    """The board at the end of the record `data` (None when the record does not replay the same)."""
    last: list = [None]

    def keep(game, summary) -> None:
        last[0] = game.state

    result = saves.replay(workspace, data, path, progress=keep)
    return result, last[0]


def _frame(game, summary, events: list[dict]) -> dict:
    """One round (or the start, with no summary) of the document."""
    state = game.state
    rules: dict[str, list[str]] = {}
    for event in events:
        if event.get("kind") == "log" and event.get("message"):
            rules.setdefault(str(event.get("by") or "the rules"), []).append(str(event["message"]))
    return {
        "round": summary.round if summary is not None else 0,
        "label": f"round {summary.round}" if summary is not None else "start",
        "svg": render_svg(state),
        "summary": summary.to_json() if summary is not None else None,
        "raids": [e for e in events if e.get("kind") == "raid"],
        "rules": rules,
        "control": {name: owner for name, owner in sorted(state.control.items())},
        "units": len(state.units),
    }
