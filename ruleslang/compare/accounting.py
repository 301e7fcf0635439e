"""Per-rule accounting of one game, read only from its events: what each rule took, gave, counted
or refused, by power and round, keyed by the names the events carry (`KIND:NAME`).

Nothing here knows a rule: the names are those of the procedures, hooks, counters, decisions and
unit types the rulesets declare, as the events give them. The kinds (docs/compare.md):

- `treasury:P`  IPCs that entered (+) or left (-) treasuries while procedure P ran innermost
- `rises:C`, `falls:C`  the sums of the rises and of the falls of counter C (a counter of numbers;
                one not yet written counts from 0), apart: a rule that sets a counter and a
                procedure that resets it would cancel out in one sum
- `entries:C`   entries written to counter C (a counter of names, flags or records)
- `hook:H`      runs of hook H; `log:R` messages rule R logged
- `refused:D`   answers to decision D the rules refused
- `bought:T`    units of type T bought; `build:purchase` builds ordered at purchase
- `lost:W`, `removed:W`  units lost or removed, by the reason given (a space at its end dropped)
"""

from __future__ import annotations

from typing import Iterable

LABELS = {
    "treasury": ("IPCs moved while {} ran", "IPCs"),
    "rises": ("rises of counter {}", "change"),
    "falls": ("falls of counter {}", "change"),
    "entries": ("entries written to counter {}", "entries"),
    "hook": ("runs of hook {}", "runs"),
    "log": ("messages logged by {}", "messages"),
    "refused": ("refused answers to {} decisions", "answers"),
    "bought": ("{} bought", "units"),
    "build": ("builds ordered at {}", "builds"),
    "lost": ("units lost: {}", "units"),
    "removed": ("units removed: {}", "units"),
}


def label(key: str) -> tuple[str, str]:
    """The label and unit of an accounting key."""
    kind, _, name = key.partition(":")
    text, unit = LABELS.get(kind, ("{}", ""))
    return text.format(name), unit


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _Ledger:
    """Amounts by key, power and round."""

    def __init__(self):
        self.book: dict[str, dict[str, dict[int, float]]] = {}

    def add(self, key: str, power: str | None, round_: int, amount: float) -> None:
        if amount == 0 or power is None:
            return
        rounds = self.book.setdefault(key, {}).setdefault(power, {})
        rounds[round_] = rounds.get(round_, 0) + amount

    def as_lists(self, rounds: int) -> dict[str, dict[str, list[float]]]:
        """key -> power -> the amount of each round, 1 to `rounds` (sorted keys: a stable record)."""
        return {key: {p: [by_round.get(r, 0) for r in range(1, rounds + 1)] for p, by_round in sorted(powers.items())}
                for key, powers in sorted(self.book.items())}


def _reason(why: str, spaces: frozenset[str]) -> str:
    """A reason without the space it names at its end ("casualty in X" -> "casualty")."""
    head, sep, tail = why.rpartition(" in ")
    return head if sep and tail in spaces else why


# the kinds of event the accounting reads (`game_accounting`); a game's others are passed over
_READ = frozenset(("round", "turn", "phase", "treasury", "counter", "hook", "log", "refused", "purchase", "lost",
                   "removed"))


def game_accounting(events: Iterable[dict], players: frozenset[str], spaces: frozenset[str],
                    rounds: int) -> dict[str, dict[str, list[float]]]:
    """The accounting of one game's events: key -> power -> amount per round (round 0, the bids,
    is left out). An amount goes to the power the event names (a treasury's owner, a counter keyed
    by a power), else to the power whose turn it is."""
    ledger = _Ledger()
    round_, turn = 0, None
    running: list[str] = []  # procedures running inside the turn phase, innermost last
    phase = None
    for e in events:
        kind = e.get("kind")
        if kind not in _READ:
            continue  # (most of a game's events: moves, dice, decisions, hits)
        if kind == "round":
            round_ = e.get("round", round_)
            continue
        if round_ < 1:
            continue
        if kind == "phase":  # (the most frequent of the kinds read; it names no power)
            stage = e.get("stage")
            if "phase" in e:
                phase, running = e["phase"], []
            elif stage == "start":
                running.append(e.get("name"))
            elif stage == "end" and running:
                running.pop()
            continue
        who = e.get("player") if e.get("player") in players else turn
        if kind == "turn":
            turn = e.get("player")
        elif kind == "treasury":
            ledger.add(f"treasury:{running[-1] if running else phase}", who, round_, e.get("amount", 0))
        elif kind == "counter":
            key = e.get("key") or []
            owner = key[0] if len(key) == 1 and key[0] in players else turn
            before, after = e.get("before"), e.get("after")
            if _number(after) and (before is None or _number(before)):
                change = after - (before or 0)
                ledger.add(f"{'rises' if change > 0 else 'falls'}:{e.get('name')}", owner, round_, change)
            else:
                ledger.add(f"entries:{e.get('name')}", owner, round_, 1)
        elif kind == "hook":
            ledger.add(f"hook:{e.get('name')}", turn, round_, 1)
        elif kind == "log" and e.get("by"):
            ledger.add(f"log:{e['by']}", turn, round_, 1)
        elif kind == "refused":
            ledger.add(f"refused:{e.get('decision')}", who, round_, 1)
        elif kind == "purchase":
            for unit_type, count in sorted((e.get("units") or {}).items()):
                ledger.add(f"bought:{unit_type}", who, round_, count)
            ledger.add("build:purchase", who, round_, len(e.get("build") or []))
        elif kind in ("lost", "removed"):
            ledger.add(f"{kind}:{_reason(str(e.get('why')), spaces)}", who, round_, len(e.get("units") or []))
    return ledger.as_lists(rounds)
