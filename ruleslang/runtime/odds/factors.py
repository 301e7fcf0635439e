"""A round of the exact chain kept in factors: the attacker's units and the defender's apart.

A state is named by its sides (`BattleFactors.sid`: the attacker's records and the defender's,
each numbered once, and the counters the battle wrote), so that the states of a round are told
apart and looked up by a few numbers rather than by all their records.

Within a round, the distribution of states is kept as a product of two distributions, one per
side, as long as the steps allow: a step that changes one side only (a side's fire: the hits
it makes on the other side, whose casualties depend on that side alone), from a distribution
the step cannot tell apart on the other side, keeps the product; a step that changes nothing
keeps it too. Which states a step can tell apart is what it read (watch.py): the elements of
each side's distribution are grouped by what they show of the aspects the step read, and the
step is run (or its kept transition looked up) once per pair of groups. A step that changes
both sides, or a counter, or one side in a way that depends on the other side's group, ends
the product: the rest of the round is followed state by state (`_joint_round`).

So the fire steps of a plain round give each side's casualties once per number of hits, and
the round's states are the pairs of them, as a hand-written calculator makes them; the steps
that only look (submerging, the retreat question) run once per group instead of once per pair.
"""

from __future__ import annotations

from ruleslang.runtime.odds.states import RETREATED
from ruleslang.runtime.odds.watch import (COUNTERS, EVERYTHING, PENDING, ROUND, SUBMERGED, WHOLE_READS, NotDeferred,
                                          side_part, split_of)


class BattleFactors:
    """The factored rounds part of `Chain`: the sides numbered, a round as a product of the sides'
    distributions while the steps allow it."""

    def _init_factors(self) -> None:
        self._side_ids: dict[tuple, int] = {}   # a side's records -> its number
        self._side_rows: list[tuple] = []       # its number -> its records
        self._parts: dict[tuple, object] = {}   # (aspect kind, side number) -> what the aspect shows of it
        self._after_round: dict[int, int] = {}  # a side's number -> that of the side without its casualties
        self._fights: dict[int, bool] = {}      # a side's number -> whether a unit of it fights on
        self._step_aspects: dict[str, frozenset] = {}  # step -> the aspects it has read so far (`_groups`)
        self._effects: dict[tuple, tuple] = {}  # a step from a pair of groups -> what it read, its effect
        self._shown: dict[tuple, tuple] = {}    # (aspects, side) -> (side number -> its group's number, kinds)
        self._part_ids: dict[tuple, int] = {}   # what a side shows of some aspects -> its number
        self._part_numbers: dict[tuple, int] = {}  # (aspect kind, side number) -> the number of what it shows
        self._orders: dict[frozenset, tuple] = {}  # aspects -> those of the state, sorted
        self._projections: dict[tuple, tuple] = {}  # (aspects, the sides' numbers) -> `_project` but the counters
        self._projected: tuple = (None, 0, 0)    # the state projected last, its sides' numbers
        # the round transitions shared with other chains (`_round`) hold a side's records without
        # their type order: a side's number -> those records, and back
        self._unordered: dict[int, tuple] = {}
        self._reordered: dict[tuple, int] = {}

    # ------------------------------------------------------------------ naming states

    def _side(self, rows: tuple) -> int:
        found = self._side_ids.get(rows)
        if found is None:
            found = self._side_ids[rows] = len(self._side_rows)
            self._side_rows.append(rows)
        return found

    def sid(self, key: tuple) -> tuple:
        """The name of state `key`: (the attacker's side number, the defender's, the counters)."""
        records, counters = key
        split = split_of(records)
        return self._side(records[:split]), self._side(records[split:]), counters

    def key_of(self, sid: tuple) -> tuple:
        """The state named `sid` (`sid`)."""
        rows = self._side_rows
        return rows[sid[0]] + rows[sid[1]], sid[2]

    def _fights_on(self, side: int) -> bool:
        found = self._fights.get(side)
        if found is None:
            found = self._fights[side] = any(r[5] != SUBMERGED for r in self._side_rows[side])
        return found

    def _project(self, key: tuple, aspects: frozenset, split: int):
        """What of state `key` the aspects name (watch.py; `split`: where its defenders' records
        begin), by numbers: a side read whole by its number, another aspect of it by the number of
        what it shows; with the counters written. Two states with the same projection are the
        same to a step that read only these aspects (`Kept`)."""
        if EVERYTHING in aspects:
            return key
        projected = self._projected
        if key is not projected[0]:  # the same state is looked up for several things in a row
            records = key[0]
            projected = self._projected = (key, self._side(records[:split]), self._side(records[split:]))
        _key, a, d = projected
        found = self._projections.get((aspects, a, d))
        if found is None:
            order = self._orders.get(aspects)
            if order is None:
                # the round is in the key of what is kept (`Kept`), the counters written in every projection
                order = self._orders[aspects] = tuple(sorted(x for x in aspects if x != ROUND and x != COUNTERS))
            out = []
            for kind, side in order:
                s = a if side == "attacker" else d
                out.append(s if kind == "full" else self._part_number(kind, s))
            found = self._projections[(aspects, a, d)] = tuple(out)
        return (key[1],) + found

    def _part_number(self, kind: str, side: int) -> int:
        found = self._part_numbers.get((kind, side))
        if found is None:
            part = self._part(kind, side)
            found = self._part_numbers[(kind, side)] = self._part_ids.setdefault(part, len(self._part_ids))
        return found

    def _part(self, kind: str, side: int):
        found = self._parts.get((kind, side), self)
        if found is self:
            found = self._parts[(kind, side)] = side_part(self._side_rows[side], kind)
        return found

    def _survivor(self, side: int) -> int:
        """The side without this round's casualties (they leave at the round's end)."""
        found = self._after_round.get(side)
        if found is None:
            rows = self._side_rows[side]
            found = self._after_round[side] = self._side(tuple(r for r in rows if r[5] != PENDING))
        return found

    # ------------------------------------------------------------------ a round

    def _round(self, sid: tuple, round_class) -> dict:
        """One round from the state named `sid` (round 1, or a LateRound): every step of the
        sequence, then the round's casualties leave; the states after it, by name."""
        cache_key = (sid, int(round_class))
        found = self._round_cache.get(cache_key)
        if found is not None:
            return found
        gen = self._gen
        if gen is not None:  # shared with other chains of the battle (runtime/odds/shared.py): by records
            unordered = self._unordered_side
            shared_key = (unordered(sid[0]), unordered(sid[1]), sid[2], cache_key[1])
            kept = gen.rounds.get(shared_key)
            if kept is not None:
                side = self._reordered_side
                out = self._round_cache[cache_key] = {(side(x), side(y), c): p for x, y, c, p in kept}
                return out
        a, d, counters = sid
        fa, fd = {a: self.one}, {d: self.one}
        rest = self.sequence
        if self.share and not (counters and counters[0] == RETREATED):
            for i, name in enumerate(self.sequence):
                nxt = self._factored_step(name, fa, fd, counters, round_class)
                if nxt is None:
                    rest = self.sequence[i:]
                    break
                fa, fd = nxt
            else:
                rest = ()
        if rest:
            out = self._joint_round(rest, fa, fd, counters, round_class)
        else:
            out = {}
            ea: dict = {}
            for x, p in fa.items():
                x2 = self._survivor(x)
                ea[x2] = ea.get(x2, 0) + p
            ed: dict = {}
            for y, q in fd.items():
                y2 = self._survivor(y)
                ed[y2] = ed.get(y2, 0) + q
            for x, p in ea.items():
                for y, q in ed.items():
                    out[(x, y, counters)] = p * q
        self._round_cache[cache_key] = out
        if gen is not None and not self._outside.poisoned:
            unordered = self._unordered_side
            self._store.keep(gen, shared_key, tuple([(unordered(x), unordered(y), c, p) for (x, y, c), p in out.items()]))
        return out

    def _unordered_side(self, side: int) -> tuple:
        """Side `side`'s records without their type order (the second field), in their order: the
        form the shared round transitions hold (runtime/odds/shared.py). The records of a side are
        sorted by the chain's type order, so the sequence still tells the order of the side's own
        types: all of the type order that a round from a state depends on (the order of its units on
        the board, of their ids and of their dice, each side's apart)."""
        found = self._unordered.get(side)
        if found is None:
            found = self._unordered[side] = tuple([r[:1] + r[2:] for r in self._side_rows[side]])
        return found

    def _reordered_side(self, rows: tuple) -> int:
        """The number of the side whose records without their type order are `rows` (`_unordered_side`)."""
        found = self._reordered.get(rows)
        if found is None:
            order = self._type_order
            found = self._reordered[rows] = self._side(tuple([(r[0], order[r[1]]) + r[1:] for r in rows]))
        return found

    def _joint_round(self, steps, fa: dict, fd: dict, counters: tuple, round_class) -> dict:
        """The rest of a round state by state: `steps` from the product of `fa` and `fd`. The states
        are named by their sides' numbers (`sid`) and each step's transition is looked up as the
        factored steps look up their effects (`_joint_step`), with the same sums in the same order
        as from the states' records (a name is one state's: the two dicts are the same dict)."""
        dist = {(x, y, counters): p * q for x, p in fa.items() for y, q in fd.items()}
        for name in steps:
            nxt: dict = {}
            for s, p in dist.items():
                if s[2] and s[2][0] == RETREATED:  # the attackers left: the round's other steps are not run
                    nxt[s] = nxt.get(s, 0) + p
                    continue
                for s2, q in self._joint_step(name, s, round_class).items():
                    nxt[s2] = nxt.get(s2, 0) + p * q
            dist = nxt
        out: dict = {}
        survivor = self._survivor
        for (x, y, written), p in dist.items():
            s2 = (survivor(x), survivor(y), written)
            out[s2] = out.get(s2, 0) + p
        return out

    def _joint_step(self, name: str, sid: tuple, round_class) -> dict:
        """Step `name` from the state named `sid`: the states after it by name, with their
        probabilities. A step whose hits wait is looked up by the sides' numbers when its hits each
        change one side (`_side_outcomes`, as `_deferred_step` sums them); else it runs from the
        state's records (`_step`)."""
        x, y, counters = sid
        rows = self._side_rows
        key = (rows[x] + rows[y], counters)
        if self.share and name not in self._plain:
            self._projected = (key, x, y)
            try:
                found = self._side_outcomes(name, key, x, y, round_class, None)
            except NotDeferred:  # as `_step` finds it: the step runs as it is from now on
                self._plain.add(name)
                found = None
            if found is not None:
                changed, outcomes = found
                if changed is None:  # (every outcome's side after is None)
                    return {sid: outcomes[None]} if outcomes else {}
                if changed == 0:
                    return {(x if a is None else a, y, counters): p for a, p in outcomes.items()}
                return {(x, y if a is None else a, counters): p for a, p in outcomes.items()}
        out: dict = {}
        for k2, q in self._step(name, key, round_class).items():
            s2 = self.sid(k2)
            out[s2] = out.get(s2, 0) + q
        return out

    def _groups(self, dist: dict, side: str, aspects: frozenset) -> dict:
        """The elements of one side's distribution grouped by what they show of `aspects` (each
        group under the number of what its elements show)."""
        found = self._shown.get((aspects, side))
        if found is None:
            found = self._shown[(aspects, side)] = ({}, sorted(kind for kind, s in aspects if s == side))
        shown, kinds = found
        groups: dict = {}
        for x in dist:
            g = shown.get(x)
            if g is None:
                g = self._shown_number(x, shown, kinds)
            members = groups.get(g)
            if members is None:
                groups[g] = [x]
            else:
                members.append(x)
        return groups

    def _shown_number(self, x: int, shown: dict, kinds: list) -> int:
        """The number of what side `x` shows of aspect `kinds`, noted in `shown` (`_groups`)."""
        # (a list made and turned into a tuple: cheaper than a generator's tuple; most steps read
        # one or two kinds of a side)
        part = tuple([self._part(kind, x) for kind in kinds])
        g = shown[x] = self._part_ids.setdefault(part, len(self._part_ids))
        return g

    def _group_of(self, x: int, side: str, aspects: frozenset) -> int:
        """The number of the group of side `x` among one side's elements (`_groups` of one)."""
        found = self._shown.get((aspects, side))
        if found is None:
            found = self._shown[(aspects, side)] = ({}, sorted(kind for kind, s in aspects if s == side))
        g = found[0].get(x)
        return self._shown_number(x, *found) if g is None else g

    def _factored_step(self, name: str, fa: dict, fd: dict, counters: tuple, round_class):
        """Step `name` from the product of the sides' distributions `fa` and `fd` (side number ->
        probability): the new pair of distributions, or None when the step ends the product.

        The elements of each side are grouped by what they show of the aspects the step has read
        so far, and the step's effect is worked out once per pair of groups (`_effect`), from its
        first elements; when it read more than the groups tell apart, the groups are made again
        with that too."""
        aspects = self._step_aspects.get(name, frozenset())
        rclass = int(round_class)
        if len(fa) == 1 and len(fd) == 1:
            # one element a side (a round's first step, and most after it in a round that hits
            # no one): the loop below with one pair of groups, without making the groups
            (x,), (y,) = fa, fd
            while True:
                memo_key = (name, rclass, counters, aspects, self._group_of(x, "attacker", aspects),
                            self._group_of(y, "defender", aspects))
                known = self._effects.get(memo_key)
                if known is None:
                    known = self._effects[memo_key] = self._effect(name, x, y, counters, round_class)
                reads, effect = known
                if effect is None:
                    return None
                if reads <= aspects:
                    break
                aspects = self._step_aspects[name] = aspects | reads
            side, outcomes = effect
            if side is None:
                return fa, fd
            if side == "attacker":
                return _mixed(fa, {x: outcomes}), fd
            return fa, _mixed(fd, {y: outcomes})
        while True:
            ga, gd = self._groups(fa, "attacker", aspects), self._groups(fd, "defender", aspects)
            found = []
            grown = aspects
            for pa, xs in ga.items():
                for pd, ys in gd.items():
                    memo_key = (name, rclass, counters, aspects, pa, pd)
                    known = self._effects.get(memo_key)
                    if known is None:
                        known = self._effects[memo_key] = self._effect(name, xs[0], ys[0], counters, round_class)
                    reads, effect = known
                    if effect is None:
                        return None
                    if not reads <= grown:
                        grown = grown | reads
                    found.append((xs, ys, effect))
            if grown is aspects:
                break
            aspects = self._step_aspects[name] = grown
        changed: dict = {}  # element -> [(its side after, probability)]
        changed_side = None
        for xs, ys, (side, outcomes) in found:
            if side is None:
                continue
            if changed_side not in (None, side):
                return None  # one pair changed the attacker, another the defender
            changed_side = side
            # a side changed as the other side's group says: the product holds when that group is
            # the other side's only one (the changed side's group is its one element: it read it whole)
            mine, others = (xs, gd) if side == "attacker" else (ys, ga)
            if len(mine) > 1 or len(others) > 1:
                return None
            changed[mine[0]] = outcomes
        if changed_side == "attacker":
            return _mixed(fa, changed), fd
        if changed_side == "defender":
            return fa, _mixed(fd, changed)
        return fa, fd

    def _effect(self, name: str, x: int, y: int, counters: tuple, round_class) -> tuple:
        """Step `name` from the state of sides `x` and `y`: (the aspects it read, its effect): None
        when it ends the product (it read everything, wrote a counter or changed both sides);
        (None, ()) when it changed nothing; else (the side it changed, [(that side after, p)])."""
        rows = self._side_rows
        ra, rd = rows[x], rows[y]
        reads: set = set()
        key = (ra + rd, counters)
        self._projected = (key, x, y)
        if self.share and name not in self._plain:
            # a step whose hits wait: its effect by the numbers of the sides (makings.py `_side_outcomes`)
            try:
                found = self._side_outcomes(name, key, x, y, round_class, reads)
            except NotDeferred:  # (`_step` finds it so too)
                found = None
            if found is not None:
                reads.discard(ROUND)
                reads = frozenset(reads)
                if not reads.isdisjoint(WHOLE_READS):
                    return reads, None
                changed, outcomes = found
                if changed is None:
                    return reads, (None, ())
                own = x if changed == 0 else y
                return reads, (("attacker", "defender")[changed], [(own if a is None else a, p)
                                                                   for a, p in outcomes.items()])
            reads = set()
        dist = self._step(name, key, round_class, reads)
        reads.discard(ROUND)  # the same for the whole round
        reads = frozenset(reads)
        if not reads.isdisjoint(WHOLE_READS):
            return reads, None
        outcomes = {"attacker": [], "defender": []}
        sides = set()
        for (records, written), p in dist.items():
            if written != counters:
                return reads, None
            split = split_of(records)
            a2, d2 = records[:split], records[split:]
            if a2 != ra:
                sides.add("attacker")
            if d2 != rd:
                sides.add("defender")
            outcomes["attacker"].append((a2, p))
            outcomes["defender"].append((d2, p))
        if len(sides) > 1:
            return reads, None
        if not sides:
            return reads, (None, ())
        side = sides.pop()
        return reads, (side, [(self._side(records), p) for records, p in outcomes[side]])


def _mixed(dist: dict, changed: dict) -> dict:
    """One side's distribution after a step that changed its elements in `changed` (element ->
    [(its side after, probability)]) and left the others as they were."""
    out: dict = {}
    for x, p in dist.items():
        outcomes = changed.get(x)
        if outcomes is None:
            out[x] = out.get(x, 0) + p
            continue
        for x2, q in outcomes:
            out[x2] = out.get(x2, 0) + p * q
    return out
