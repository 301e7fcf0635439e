"""The decisions of a battle step as the exact chain answers them: the casualty order of the side
hit (runtime/kit/casualties.py, the agents' own), and every other `choose` by the rules' advice;
a retreat question by the advice, or by the retreat threshold against the chance to win that the
threshold policy itself gives from there (optimal stopping: `BattleDecisions._policy_value`)."""

from __future__ import annotations

from ruleslang.base.errors import EvalError
from ruleslang.lang.check.advice import OPTIONS
from ruleslang.runtime.kit.casualties import casualty_order, cheapest_rank, keep_rank, listed_rank
from ruleslang.runtime.odds.results import ATTACKER_WINS, CasualtyPolicy
from ruleslang.runtime.odds.rounds import LateRound, came_back, never_left
from ruleslang.runtime.odds.watch import EVERYTHING, PENDING


_IN_ORDER = ("in order",)  # a memo key's order of ids when they are offered in order


class BattleDecisions:
    """The decisions part of `Chain`: casualties (kept per what the casualty order looks at) and
    advised choices, asked by the chain's host and `Branching`'s runs."""

    def casualties(self, decision) -> list[int]:
        """The casualty order of the side taking the hits (`casualties_of` the decision's options)."""
        ids = decision.options
        unit = self.host.unit_or_none
        units = [unit(uid) for uid in ids]
        return self.casualties_of(ids, units, decision.context["room"], decision.count,
                                  self.battle.side_of_unit(ids[0]) if ids else None)

    def casualties_of(self, ids: list[int], units: list, room: dict, count: int, side: str | None) -> list[int]:
        """The casualty order of `side` taking `count` hits among `units` (ids `ids`; `room`: the
        hits each can take). The order only looks at the units' types, owners, hits and room, and
        breaks ties by id: the choice is kept under those, as places among the options, and reused
        in every state that offers the same."""
        # the places of the ids in their order: most often as offered (nothing to sort)
        # (strictly rising: as sorted with no id twice)
        order = _IN_ORDER if ids == sorted(set(ids)) else tuple(
            sorted(range(len(ids)), key=ids.__getitem__))
        memo_key = (count, side, tuple([(u.type, u.owner, u.hits, room.get(u.id)) for u in units]), order)
        places = self._casualty_memo.get(memo_key)
        if places is None:
            chosen = policy_casualties(self.host, self.battle, self.policies, room, count, units, side)
            where = {uid: i for i, uid in enumerate(ids)}
            places = self._casualty_memo[memo_key] = tuple(where[uid] for uid in chosen)
        return [ids[i] for i in places]

    def decide(self, decision_id, player, options, mode, count, prompt):
        """A `choose` in a battle step: the rules' advice (`advised_answer`). A retreat question
        (its advice asks for `win_chance`) is answered as the advice answers a lost battle when
        the attacker's chance to win from the state as it stands, fighting on this round and
        following the same threshold after it (`_chance_now`), is below the retreat threshold,
        and as it answers a won one otherwise (never retreating without a threshold); once the
        attacker retreats, a decision without advice (where to) takes the first option. The
        chain that values the states (`_notes_retreats`) fights on, and notes each state where
        the attacker could have retreated."""
        compiled = self.compiled
        ctx = self._watch or self.ctx  # the advice's reads are noted as the step's
        if self._retreating and compiled.advice(decision_id) is None and mode == "one" and options:
            return options[0]
        if not asks_win_chance(compiled, decision_id):
            return advised_answer(compiled, ctx, decision_id, options, mode, self.one)
        fight_on = advised_answer(compiled, ctx, decision_id, options, mode, self.one)
        if self.retreat_below is None and not self._notes_retreats:
            return fight_on
        if self._watch is not None:  # the chance to win from here (or the note) reads the whole state
            self._watch.reads.add(EVERYTHING)
        give_up = advised_answer(compiled, ctx, decision_id, options, mode, 0 * self.one)
        if give_up == fight_on:
            return fight_on
        if self._notes_retreats:
            self._may_retreat.add(self.sid(self._standing_key()))
            return fight_on
        if self._chance_now() >= self.retreat_below:
            return fight_on
        self._retreating = True
        return give_up

    def _standing_key(self) -> tuple:
        """The battle's state as it stands, this round's casualties gone (the next round's)."""
        key = self._key()
        return tuple(r for r in key[0] if r[5] != PENDING), key[1]

    def _chance_now(self):
        """The attacker's chance to win from the battle as it stands (this round's casualties
        gone), fighting on this round and following the retreat threshold after it: the value of
        the state under the threshold policy, worked out by a second chain of the same battle
        that fights on and notes where a retreat could be asked (`_policy_value`)."""
        if self._fight_on is None:
            self._fight_on = type(self)(self._source_game, self.spec, exact=self.exact, policies=self.policies,
                                        share=self.share, board=self._board)
            self._fight_on._notes_retreats = True
            self._fight_on._policy_below = self.retreat_below
        inner = self._fight_on
        sid = inner.sid(self._standing_key())
        end = inner._end(sid)
        if end:
            return self.one if end[0] == ATTACKER_WINS else 0 * self.one
        return inner._policy_value(sid)

    def _policy_value(self, sid: tuple):
        """The attacker's chance to win from the live state named `sid` at the start of a round
        after the first, fighting that round and then following the threshold policy
        (`_policy_below`): after each round the attacker retreats, where the rules let it
        (`_may_retreat`, noted as the rounds are run), when the same value of the state it is in
        is below the threshold. Backward induction: a round leads only to states with fewer units
        or back to the same state, so with q the chance of staying, the value is the sum over
        the other states of their chance times their worth (1 for a won battle, 0 for another
        end or a retreat, else their value), divided by 1 - q (a state the policy fights on from
        after a round in which nothing changed is fought again; one it would leave is worth less
        than the threshold either way). A stalemate is worth 0."""
        found = self._values.get(sid)
        if found is not None:
            return found
        if sid in self._valuing:
            raise came_back()
        self._valuing.add(sid)
        trans = self._round(sid, LateRound())
        stay = trans.get(sid, 0)
        zero = 0 * self.one
        if never_left(stay, self.one, self.exact):
            found = zero
        else:
            worth = zero
            for k2, q in trans.items():
                if k2 == sid:
                    continue
                end = self._end(k2)
                if end:
                    if end[0] == ATTACKER_WINS:
                        worth += q
                    continue
                value = self._policy_value(k2)
                if k2 not in self._may_retreat or value >= self._policy_below:
                    worth += q * value
            found = worth / (self.one - stay)
        self._valuing.discard(sid)
        self._values[sid] = found
        return found


def policy_casualties(host, battle, policies: dict, room: dict, count: int, units: list, side: str | None) -> list[int]:
    """The casualties of a `hit` (`count` hits among `units` of `battle` on `host`'s board, of
    `side`; `room`: the hits each can take): the casualty order of the side taking the hits, by
    its policy (default: cheapest first)."""
    side = side or "defender"
    policy = policies.get(side, CasualtyPolicy())
    cost = host.unit_cost
    if policy.kind == "keep-attackers" and side == "attacker":
        rank = keep_rank(battle.rules.captures, units, cost)
    elif policy.kind == "list":
        rank = listed_rank(policy.types, cost)
    else:
        rank = cheapest_rank(cost)
    return casualty_order(units, room, count, rank=rank)


def choose_casualties(host, battle, policies: dict, decision) -> list[int]:
    """The casualties of a "casualties" decision of `battle` on `host`'s board (`policy_casualties`)."""
    units = [host.unit_or_none(uid) for uid in decision.options]
    side = battle.side_of_unit(units[0].id) if units else None
    return policy_casualties(host, battle, policies, decision.context["room"], decision.count, units, side)


def advised_answer(compiled, ctx, decision_id: str, options, mode: str, chance):
    """The answer to a `choose` in a battle step that the rules' advice gives; an advice that asks
    for the `win_chance` (a retreat) is given `chance`. A decision without advice, or whose
    advice asks another estimate, is E546."""
    advice = compiled.advice(decision_id)
    if advice is None:
        raise EvalError("E546", f"the exact battle chain cannot follow the decision {decision_id}: the rules "
                                "give no advice for it (only casualties, retreats and advised choices are followed)",
                        hint="write an `advice` for it, or estimate by sampling (ruleslang odds --sample N)")
    args = []
    for name in advice.params:
        if name == OPTIONS:
            args.append(tuple(options))
        elif name == "win_chance":
            args.append(chance)
        else:
            raise EvalError("E546", f"the exact battle chain cannot give the estimate '{name}' that the advice "
                                    f"of decision {decision_id} asks for")
    answer = advice.fn(ctx, *args)
    if mode != "one":
        answer = tuple(o for o in options if o in answer)
    return answer


def asks_win_chance(compiled, decision_id: str) -> bool:
    """True when the advice of the decision asks for the chance to win (a retreat question)."""
    advice = compiled.advice(decision_id)
    return advice is not None and "win_chance" in advice.params
