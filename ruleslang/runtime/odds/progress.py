"""A battle in progress in the exact chain: its units' hits as the spec gives them, and a state of a
later round answered from a chain already made (a battle kept across its rounds: the heuristic
agent's retreat questions, runtime/agents/battle_odds.py's `KeptBattle`).

A battle in progress is a `BattleSpec` whose `round` is after the first: the chain runs no `start`
step and no first round for it (chain.py, `_solve_ends`), and `hits` gives its damaged units.
"""

from __future__ import annotations

from ruleslang.base.errors import EvalError
from ruleslang.runtime.odds.results import ATTACKER_WINS, BattleSpec


class BattleProgress:
    """The battle-in-progress part of `Chain`: damaged units at set-up, and the chance to win from a
    later state of the same battle."""

    def _damaged(self, made: list, side: str) -> list:
        """The units `made` (of one type, on `side`), the first of them given the hits the spec says
        they took (a battle in progress); E566 when those are more units or hits than they have."""
        hits = self.spec.hits.get((side, made[0].type), ())
        if not hits:
            return made
        room = self.host.hit_points(made[0])
        if len(hits) > len(made) or any(not 0 <= h < room for h in hits):
            raise EvalError("E566", f"the {side}'s {len(made)} {made[0].type} cannot have taken "
                                    f"the hits {list(hits)}: each unit takes 0 to {room - 1} and survives",
                            hint="give at most one number of hits per unit, each below its hit points")
        for unit, h in zip(made, hits):
            unit.hits = h
        return made

    def win_chance_at(self, spec: BattleSpec):
        """The attacker's chance to win, never retreating, from the state `spec` names at the start
        of a late round (a battle in progress: `spec.round` after the first), worked out from this
        chain's states (`_policy_value` with no retreat noted: backward induction over the rounds'
        transitions, as the chain's own `_flow` sums them forward); None when `spec` is not a state
        of this chain's battle (another space or side, a unit type or origin it did not start
        with, more units than it began with), or this chain retreats or stops at a round limit.
        Its answer is that of a new chain of `spec`, exactly, provided the board outside the
        battle is the same (the caller's check: runtime/agents/battle_odds.py's `KeptBattle`)."""
        sid = self._progress_sid(spec)
        if sid is None:
            return None
        end = self._end(sid)
        if end:
            return self.one if end[0] == ATTACKER_WINS else 0 * self.one
        return self._policy_value(sid)

    def _progress_sid(self, spec: BattleSpec) -> tuple | None:
        """The name of the state `spec` starts from, in this chain's terms (`win_chance_at`)."""
        mine = self.spec
        if (spec.round < 2 or mine.round < 2 or self.retreat_below is not None or self.round_limit is not None
                or self._notes_retreats or spec.defending is None or mine.defending is None or self.initial[1]
                or (spec.space, spec.attacker, spec.defender, spec.amphibious_from, spec.came_from)
                != (mine.space, mine.attacker, mine.defender, mine.amphibious_from, mine.came_from)):
            return None
        # a unit's record but its hits, by side and type, as this chain set the battle up
        shape: dict = {}
        for side, order, utype, owner, _hits, status, origin, marks in self.initial[0]:
            row = (order, owner, status, origin, marks)
            if shape.setdefault((side, utype), row) != row:
                return None
        records = []
        for side, units in (("attacker", spec.attacking), ("defender", spec.defending)):
            for utype, n in units.items():
                row = shape.get((side, utype))
                if row is None:
                    return None
                hits = spec.hits.get((side, utype), ())
                order, owner, status, origin, marks = row
                records += [(side, order, utype, owner, hits[i] if i < len(hits) else 0, status, origin, marks)
                            for i in range(n)]
        for side in ("attacker", "defender"):
            if sum(r[0] == side for r in records) > sum(r[0] == side for r in self.initial[0]):
                return None
        return self.sid((tuple(sorted(records)), ()))


def check_progress(spec: BattleSpec) -> None:
    """E565 when the spec's round is no round of a battle; E566 when its hits name units it does not."""
    if spec.round < 1:
        raise EvalError("E565", f"a battle's rounds are counted from 1; round {spec.round} is none of them")
    for side, utype in spec.hits:
        units = spec.attacking if side == "attacker" else spec.defending
        if units is None or utype not in units:
            raise EvalError("E566", f"the hits of the {side}'s {utype}: the {side} has no {utype} named",
                            hint="give hits only for the units the battle names (--defender-units for the defence)")
