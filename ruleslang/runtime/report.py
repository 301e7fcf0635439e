"""What `ruleslang play` prints: a live progress line, a summary per round, the result."""

from __future__ import annotations

import sys


class RoundPrinter:
    def __init__(self, out=sys.stdout, *, quiet: bool = False, live: bool = False, err=sys.stderr):
        self.out = out
        self.err = err
        self.quiet = quiet
        self.live = live
        self._seen = 0  # events already summarised

    def turn(self, game, player: str) -> None:
        """The progress line (on a terminal only): round, player."""
        if self.live:
            rounds = game.setup.rounds if getattr(game, "setup", None) else "?"
            self.err.write(f"\r  round {game.state.round}/{rounds}: turn of {player} ...".ljust(60))
            self.err.flush()

    def round(self, game, summary) -> None:
        if self.live:
            self.err.write("\r" + " " * 60 + "\r")
        if self.quiet:
            return
        w = self.out.write
        w(f"Round {summary.round}\n")
        parts = []
        for player, income in summary.income.items():
            got = summary.collected.get(player)
            note = "" if got is None or got == income else f" (collected {got})"
            parts.append(f"{player} {income}{note}")
        w("  income:   " + ", ".join(parts) + "\n")
        # what treasuries gained outside the income collection (a capture step's plunder), by cause
        gains = [f"{player} {amount} ({cause})" for player, causes in summary.gains.items()
                 for cause, amount in causes.items()]
        if gains:
            w("  gained:   " + ", ".join(gains) + "\n")
        if summary.battles:
            for b in summary.battles:
                outcome = {"attacker": "the attacker wins", "defender": "the defender holds",
                           "retreat": "the attacker retreats"}[b["result"]]
                took = ", taken" if b["taken"] else ""
                rounds = b["rounds"]
                length = ("without a fight" if rounds == 0 else
                          f"after {rounds} round" + ("" if rounds == 1 else "s"))
                untaken = "; no land unit to take it" if b.get("no_captor") else ""
                w(f"  battle:   {b['attacker']} attacks {b['space']}" +
                  (f" ({b['defender']})" if b["defender"] else "") + f": {outcome}{took} {length}{untaken}\n")
        else:
            w("  battles:  none\n")
        for space, before, after, on_move in summary.control_changes:
            how = " (taken on the move)" if on_move else ""
            w(f"  control:  {space}: {before or 'nobody'} -> {after or 'nobody'}{how}\n")
        # answers the rules refused this round (a player's agent is told why and asked again)
        events = game.state.events
        for e in events[self._seen:]:
            if e.get("kind") == "refused":
                w(f"  refused:  {e['player']} {e['decision']}: {'; '.join(e.get('reasons') or [])}\n")
        self._seen = len(events)
        if summary.scores:
            w("  score:    " + ", ".join(f"{side} {value}" for side, value in summary.scores.items()) + "\n")

    def result(self, game, result: dict) -> None:
        if self.live:
            self.err.write("\r" + " " * 60 + "\r")
        w = self.out.write
        if result.get("winner"):
            w(f"Result: {result['winner']} win after round {result['rounds_played']}: {result['reason']}\n")
        else:
            w(f"Result: {result['reason']}\n")
        if result.get("scores"):
            w("  final score: " + ", ".join(f"{s} {v}" for s, v in result["scores"].items()) + "\n")
