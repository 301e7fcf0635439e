"""The exact chain's deferred hits made (runtime/odds/steps.py defers them while a step's statements
run): a plan's hits made in a state and kept under what making them read (`_make`), a hit of a
number of hits made once for every count (`_every_made`, `_counted`), shared between the chains of
a generation (`_every_count`, runtime/odds/shared.py), and a step's outcomes on the one side its
hits changed (`_side_outcomes`, for the factored rounds of runtime/odds/factors.py).
"""

from __future__ import annotations

from bisect import bisect_left, insort

from ruleslang.lang.eval.branching_values import DeferredHit
from ruleslang.runtime.odds.kept import Kept, apply_changes, as_changes
from ruleslang.runtime.odds.shared import MakingReads
from ruleslang.runtime.odds.watch import COUNTERS, EVERYTHING, ROUND, NotDeferred, changed_by, split_of

_EVERY = 1 << 62  # a count of hits above what any battle's units can take (`_every_count`)


class BattleMakings:
    """The hits part of `Chain`: making a step's deferred hits, kept per what making them read."""

    def _side_outcomes(self, name: str, key: tuple, x: int, y: int, round_class, reads: set | None):
        """Step `name` from state `key` (the sides numbered `x` and `y`) as `_deferred_step` runs
        it: (the index of the side it changes, or None; {that side after, or None when unchanged:
        probability}, summed in the order `_deferred_step` sums the states it makes, so that floats
        come out the same). The hits of the plan are looked up by the number of the one side their
        making read (`_made_on`), without writing the states. NotDeferred when the step's plan
        cannot wait; None when making some hits cannot wait, read or changed more than one side or
        wrote a counter. What it read is added to `reads` (when given)."""
        rclass = int(round_class) if round_class is not None else 0
        split = len(self._side_rows[x])
        plan_reads, plan = self._planned(name, key, split, round_class, rclass)
        if reads is not None:
            reads.update(plan_reads)
        counters = key[1]
        made_on = self._made_on
        changed = None
        outcomes: dict = {}
        most = None  # the most hits a single hit of its statement made in any plan so far (`_counted`)
        for desc, hits, p in plan:
            if not hits:
                outcomes[None] = outcomes.get(None, 0) + p
                continue
            found = made_on.get((desc, counters, 0, x))
            if found is None:
                found = made_on.get((desc, counters, 1, y))
                if found is None:
                    if desc in self._unmade:
                        return None
                    try:
                        if _counts(desc):
                            if most is None:
                                most = self._most_hits(plan)
                            found = self._counted(desc, hits, key, split, x, y, round_class,
                                                  most.get(desc[-1][0], _EVERY))
                        else:
                            found = None
                        if found is None:
                            found = self._made_side(desc, hits, key, split, x, y, round_class, rclass)
                    except NotDeferred:  # `_step` runs it as it is
                        return None
                    if found is None:
                        self._unmade.add(desc)
                        return None
            side, made_reads, after, changes = found
            if changes:
                if changed is not None and side != changed:
                    return None
                changed = side
            if reads is not None:
                reads.update(made_reads)
            for a, q in after:
                outcomes[a] = outcomes.get(a, 0) + p * q
        return changed, outcomes

    def _most_hits(self, plan: list) -> dict:
        """The most hits the last deferred hit of each statement made in `plan` or any plan before
        (by the statement's id: `_counted` makes a hit for every count up to that). A battle's
        first round is planned first, from all its units, so later plans seldom ask for more."""
        most = self._most
        for desc, hits, _p in plan:
            if _counts(desc) and desc[-1][1] > most.get(desc[-1][0], 0):
                most[desc[-1][0]] = desc[-1][1]
        return most

    def _counted(self, desc: tuple, hits: tuple, key: tuple, split: int, x: int, y: int, round_class,
                 most: int = _EVERY):
        """Deferred hits of numbers of hits (`hits`, `desc` their key; one, or two on one side) on
        state `key` as `_made_side` gives them, from the last hit made once for every number of
        hits up to `most` (at least its own) on that side after those before it (`_every_count`):
        kept in `_made_on` as `_made_side` keeps it. None when the hits cannot be made so (their
        making read both sides, the round or everything, changed the other side or wrote a
        counter), to be made as they are."""
        hit = desc[-1]
        family = desc[:-1] + ((hit[0],) + hit[2:],)  # the hits but the last one's count
        counters = key[1]
        families = self._families
        found = families.get((family, counters, 0, x))
        if found is None:
            found = families.get((family, counters, 1, y))
        if found is not None and hit[1] > found[3]:
            found = None  # made for fewer hits than these, and the side could take more: made again
        if found is None:
            if family in self._uncounted:
                return None
            found = self._every_count(family, hits, key, split, x, y, round_class, max(most, hit[1]))
            if found is None:
                self._uncounted.add(family)
                return None
        index, made_reads, made, _most = found
        n = min(hit[1], len(made))
        result = made[n - 1] if n else (index, made_reads, [(None, self.one)], False)
        self._made_on[(desc, counters, index, x if index == 0 else y)] = result
        return result

    def _every_count(self, family: tuple, hits: tuple, key: tuple, split: int, x: int, y: int, round_class,
                     most: int):
        """The last of deferred `hits` made in state `key` for every count up to `most` at once,
        after those before it (`_every_made`), kept by the number of the one side the making read
        (`_families`): (that side's index, what it read, per number of casualties n the result
        `_made_side` gives for n hits, the most hits it answers: any number when the side took
        fewer than `most`). None as `_counted` says, or when the last hit had nothing to hit
        after those before it (the state after those is not written).

        What the making wrote depends on the side it read alone (its records, the counters the
        battle wrote, the hits' statements and frame values: `family`, which holds no unit of the
        battle's own ids where it is found again) and on the board outside the battle, so the
        chains of one generation (runtime/odds/shared.py) share it (`Generation.makings`: by that
        side's records without their type order, as the generation's round transitions hold
        them; `_shared_making`)."""
        gen = self._gen
        every = self._shared_making(family, key, x, y, most) if gen is not None else None
        if every is None:
            every = self._every_made(hits[-1], key, round_class, most, hits[:-1])
            if every is None:
                return None
            shared = gen is not None and not self._outside.poisoned
        else:
            shared = False
        written, made_reads, took_all, made_hits, anywhere = every
        found = self._one_side_written(key, split, made_reads, written)
        if found is None:
            return None
        index, sides = found
        if shared:
            mine = ("attacker", "defender")[index]
            # not kept when a casualty is on the other side (a later chain's own other side differs),
            # nor when the hits' key holds a unit: a battle unit's id names another unit in a chain
            # whose sides' blocks of ids begin elsewhere (`_materialize`)
            if all(side == mine for side, _rows in written) and not _holds_unit(family):
                # (one found kept could not answer: this one answers more)
                making = ([tuple([r[:1] + r[2:] for r in rows]) for _side, rows in written], made_reads, took_all,
                          made_hits, most)
                side = x if index == 0 else y
                if anywhere:  # read nothing of the board outside the battle nor of the site
                    self._store.keep_making(self._making_key(family, key[1], index, side, True), making)
                else:
                    gen.makings[self._making_key(family, key[1], index, side)] = making
        made = [(index, made_reads, [(after, self.one)], after is not None) for after in sides]
        answers = _EVERY if took_all else len(made)
        found = self._families[(family, key[1], index, x if index == 0 else y)] = (index, made_reads, made, answers)
        return found

    def _making_key(self, family: tuple, counters, index: int, side: int, anywhere: bool = False) -> tuple:
        """The key of `Generation.makings` for the hits `family` (but their count) on the side of
        index `index` whose records are `side`'s, with the battle's `counters`: that side's records
        without their type order (`_unordered_side`), as the generation's transitions hold them.
        `anywhere`: the key of `SharedRounds.makings` (kept for every site), which also holds what
        the kit reads of the side's units (their costs and hit points, `Generation.units`) and the
        battle's attacker and defender."""
        if not anywhere:
            return (family, counters, index, self._unordered_side(side))
        return (family, counters, index, self._unordered_side(side), self._side_units(side), self.attacker,
                self.defender)

    def _side_units(self, side: int) -> tuple:
        """What the kit reads of the units of side `side` (`Generation.units`), record by record."""
        found = self._units_read.get(side)
        if found is None:
            units = self._gen.units
            found = self._units_read[side] = tuple([units[r[1], r[2]] for r in self._unordered_side(side)])
        return found

    def _shared_making(self, family: tuple, key: tuple, x: int, y: int, most: int) -> tuple | None:
        """What `_every_made` gives for the last of the hits `family` (but its count) with `most`
        hits in state `key`, from a making an earlier chain kept for a side with the records of one
        of this state's sides (`_every_count`): a chain of its generation, or one of any site and
        generation when the making read neither the board outside the battle nor the site
        (`SharedRounds.makings`); or None. A making of `kept` hits answers one of `most` when it
        made them all and `most` is no more, or when the side took all it could (fewer than
        `kept`); the casualties of fewer hits are the first of those of more. The sides it wrote
        are given this chain's type order (`_reordered_side`), in their order."""
        making_key = self._making_key
        counters = key[1]
        index = 0
        found = None
        for makings, anywhere in ((self._gen.makings, False), (self._store.makings, True)):
            found = makings.get(making_key(family, counters, 0, x, anywhere))
            if found is not None:
                index = 0
                break
            found = makings.get(making_key(family, counters, 1, y, anywhere))
            if found is not None:
                index = 1
                break
        if found is None:
            return None
        written, made_reads, took_all, made, kept = found
        if most != kept:
            if not took_all and most > kept:  # the side may take more than that making asked
                return None
            now = min(most, made)
            if now == 0 and made:  # the state after the hits before it is not among those written
                return None
            if now < made:  # (else all that making made, or the state after the hits before it)
                written, took_all, made = written[:now], False, now
            else:
                took_all = now < most
        side, rows, reordered = ("attacker", "defender")[index], self._side_rows, self._reordered_side
        return [(side, rows[reordered(after)]) for after in written], made_reads, took_all, made, False

    def _every_made(self, hit, key: tuple, round_class, most: int = _EVERY, before: tuple = ()) -> tuple | None:
        """Deferred `hit` made in state `key` (after deferred hits `before`, made as they are) with
        as many hits as its units can take, or `most` if fewer (a hit of no more than `most` hits
        needs no more: its casualties are the first of those): (after each of its casualties
        has taken its hit (`Battle.hit`'s `each`), the side it is on and that side's
        records (`_written_keys`: the states), what the making read, whether the side took fewer
        than `most` (all it can take), how many hits the last made, whether it read nothing of the
        board outside the battle nor of the battle's site, in a chain that shares its transitions:
        kept for every site, `_every_count`). The
        state after n of them is what the hit of n hits makes: the casualties of n hits are the
        first n of those of more (the casualty order, runtime/kit/casualties.py, answers every
        casualty decision of the chain), and each casualty takes its hit in turn; a hit of more
        than all of them makes what all of them make. After each casualty only its record is
        written again (the rest of its side, the other side and the counters are as they were:
        checked once, on the state after the last). None when the casualties are of both sides
        or the check fails (the hit is then made for each count: `_make`)."""
        self._materialize(key, round_class)
        battle = self.battle
        written: list = []  # (the side of a casualty, that side's records after it)
        rows: dict = {}     # the records of the side of the first casualty, by unit id
        ordered: list = []  # those records, sorted
        marks = self._counters_written()[1]  # a hit writes no counter (checked on the last state)
        host = self.host
        last: list = []  # how many casualties the hits before the last made, once they are made

        def each(uid) -> None:
            side = battle.side_of_unit(uid)
            if not rows:
                rows.update(self.side_rows(side, battle.attacking if side == "attacker" else battle.defending,
                                           marks, self._battle_index()))
                ordered.extend(sorted(rows.values()))
            else:  # only this casualty's record changed: it leaves its place in the order for its new one
                old = rows.pop(uid, None)
                if old is not None:
                    del ordered[bisect_left(ordered, old)]
                new = self.side_rows(side, (uid,), marks, {uid: host.unit_or_none(uid)}).get(uid)
                if new is not None:
                    rows[uid] = new
                    insort(ordered, new)
            written.append((side, tuple(ordered)))
        # a making of a chain that shares its transitions notes its own reads of the board outside
        # the battle and of the site: one that read neither is kept for every site (`_every_count`)
        log = MakingReads(self._outside) if self._outside is not None else None
        watch = self._watching(each=each, log=log)
        every = DeferredHit(hit.stmt, most, hit.now, hit.env, hit.units, hit.chooser, hit.reads, hit.epoch)
        config = self.rules.config
        self._watch, saved, config.ctx = watch, config.ctx, watch
        self._applying = before + (every,)
        world = self.branching.use(self)
        try:
            for i, made in enumerate(before):  # as `_make` makes them
                self._made = i
                self.branching.apply_hit(watch, made, self._force)
            self._made = len(before)
            last.append(len(written))
            self.branching.apply_hit(watch, every, self._force)
        finally:
            self.branching.use(world)
            self._watch, config.ctx = None, saved
            self._applying, self._made = (), 0
        self._watched(watch)
        if written and (len({side for side, _rows in written}) > 1
                        or self._written_keys(key, split_of(key[0]), written[-1:])[0] != self._key()):
            return None
        start = last[0]
        made = len(written) - start
        took_all = made < most  # (fewer: the side took all it can take)
        # the last hit's; none when it found nothing left to hit: then the state after those before
        # it, what any count of it makes
        anywhere = log is not None and not log.read and not watch.battle.site_read
        return written[start:] or written[start - 1:start], frozenset(watch.reads), took_all, made, anywhere

    @staticmethod
    def _written_keys(key: tuple, split: int, written: list) -> list:
        """The states `_every_made` made from state `key`, from the sides it wrote."""
        records, counters = key
        attackers, defenders = records[:split], records[split:]
        return [((rows + defenders) if side == "attacker" else (attackers + rows), counters) for side, rows in written]

    def _make_counted(self, desc: tuple, hit, key: tuple, split: int, round_class, rclass: int,
                      reads: set | None) -> dict:
        """`_make` of one deferred hit of a number of hits: the hit made once for every count
        (`_every_made`), kept under the hit but its count and what making it read. None when it
        cannot be made so (`_make` makes it for this count)."""
        family = (desc[0][0],) + desc[0][2:]
        if family in self._count_by_count:
            return None
        kept = self._every_applied.get(family)
        if kept is None:
            kept = self._every_applied[family] = Kept()
        found = kept.find(self._project, key, split, rclass)
        if found is None:
            every = self._every_made(hit, key, round_class)
            if every is None:
                self._count_by_count.add(family)
                return None
            written, aspects, _took_all, _made, _anywhere = every
            written = self._written_keys(key, split, written)
            made = [as_changes(key, split, {k: self.one}, aspects) for k in written]
            if None in made:  # a side it did not read whole changed: kept for this state alone
                aspects = frozenset((EVERYTHING, ROUND))
                made = [as_changes(key, split, {k: self.one}, aspects) for k in written]
            kept.keep(self._project, key, split, rclass, aspects, made)
            found = (aspects, made)
        aspects, made = found
        if reads is not None:
            reads.update(aspects)
        n = min(desc[0][1], len(made))
        return apply_changes(key, split, made[n - 1]) if n else {key: self.one}

    def _made_side(self, desc: tuple, hits: tuple, key: tuple, split: int, x: int, y: int, round_class,
                   rclass: int):
        """Make deferred `hits` in state `key` (`_make`) and keep the result by the number of the one
        side the making read (`_made_on`): (that side's index, what it read, [(the side after, or
        None when unchanged, probability)], whether any changed it). None when it read both sides,
        the round or everything, changed the other side or wrote a counter."""
        made_reads: set = set()
        out = self._make(desc, hits, key, split, round_class, rclass, made_reads)
        found = self._one_side(key, split, made_reads, out)
        if found is None:
            return None
        index, sides = found
        found = self._made_on[(desc, key[1], index, x if index == 0 else y)] = (
            index, frozenset(made_reads), list(zip(sides, out.values())), any(a is not None for a in sides))
        return found

    def _one_side(self, key: tuple, split: int, made_reads, made) -> tuple | None:
        """(the index of the one side that making hits in state `key` read, per state of `made` that
        the hits made that side after it: None when unchanged, else its number). None when the
        making read both sides, the round or everything, changed the other side or wrote a
        counter."""
        index = _side_read(made_reads)
        if index is None:
            return None
        records, counters = key
        before, other = (records[:split], records[split:]) if index == 0 else (records[split:], records[:split])
        after = []
        for records2, counters2 in made:
            s2 = split_of(records2)
            mine, theirs = (records2[:s2], records2[s2:]) if index == 0 else (records2[s2:], records2[:s2])
            if counters2 != counters or theirs != other:
                return None
            after.append(None if mine == before else self._side(mine))
        return index, after

    def _one_side_written(self, key: tuple, split: int, made_reads, written: list) -> tuple | None:
        """`_one_side` of the states `_every_made` made from state `key`, from the sides it wrote
        (`written`; each state's other side and counters are those of `key`)."""
        index = _side_read(made_reads)
        if index is None:
            return None
        records = key[0]
        before, other = (records[:split], records[split:]) if index == 0 else (records[split:], records[:split])
        mine = ("attacker", "defender")[index]
        after = []
        for side, rows in written:
            if side != mine:  # the other side written: changed, or the state as it was
                if rows != other:
                    return None
                after.append(None)
            else:
                after.append(None if rows == before else self._side(rows))
        return index, after

    def _make(self, desc: tuple, hits: tuple, key: tuple, split: int, round_class, rclass: int,
              reads: set | None = None) -> dict:
        """The state after making deferred `hits` (`desc`: their key) in state `key`, kept under the
        hits and what making them read (the units hit, with their hits and casualties; added to
        `reads` when given). A last hit of more than its units can take makes what as many as they
        can take make (`Battle.hit`): that is kept too, for any larger count (`_saturated`)."""
        if len(hits) == 1 and type(desc[0][1]) is int:
            out = self._make_counted(desc, hits[0], key, split, round_class, rclass, reads)
            if out is not None:
                return out
        kept = self._applied.get(desc)
        if kept is None:
            kept = self._applied[desc] = Kept()
        found = kept.find(self._project, key, split, rclass)
        last = desc[-1] if type(desc[-1][1]) is int else None
        full_key = desc[:-1] + ((last[0],) + last[2:],) if last is not None else None
        if found is None and last is not None:
            full = self._saturated.get(full_key)
            found = full.find(self._project, key, split, rclass) if full is not None else None
            if found is not None and last[1] < found[1][1]:
                found = None
            elif found is not None:
                found = (found[0], found[1][0])
        if found is not None:
            if reads is not None:
                reads.update(found[0])
            return apply_changes(key, split, found[1])
        self._materialize(key, round_class)
        watch = self._watching()
        config = self.rules.config
        self._watch, saved, config.ctx = watch, config.ctx, watch
        self._applying = hits
        taken = 0
        before = self.branching.use(self)
        try:
            for i, hit in enumerate(hits):
                self._made = i
                taken = sum(self.battle.hits_taken.values())
                self.branching.apply_hit(watch, hit, self._force)
        finally:
            self.branching.use(before)
            self._watch, config.ctx = None, saved
            self._applying, self._made = (), 0
        self._watched(watch)
        out = {self._key(): self.one}
        aspects = kept.keep_changes(self._project, key, split, rclass, out, frozenset(watch.reads))
        made = sum(self.battle.hits_taken.values()) - taken
        if last is not None and made < last[1]:  # the units took all they could of the last hit
            full = self._saturated.get(full_key)
            if full is None:
                full = self._saturated[full_key] = Kept()
            made_changes = kept.find(self._project, key, split, rclass)[1]
            full.keep(self._project, key, split, rclass, aspects, (made_changes, made))
        if reads is not None:
            reads.update(aspects)
        return out

    def _force(self, lazy, ctx, force):
        """A `let` the run left for later, evaluated while its hits are made: it must read nothing
        the hits made since it was written (those deferred after it) changed."""
        reads = self._watch.reads
        since = self._applying[lazy.epoch:self._made]
        saved, reads.dirty = reads.dirty, (set().union(*map(changed_by, since)) or None)
        try:
            return self.branching.force(lazy, ctx, force)
        finally:
            reads.dirty = saved


def _counts(desc: tuple) -> bool:
    """Whether deferred hits `desc` (their key) are one or two, each with a number of hits."""
    n = len(desc)
    return (n == 1 and type(desc[0][1]) is int) or (n == 2 and type(desc[0][1]) is int and type(desc[1][1]) is int)


def _holds_unit(value) -> bool:
    """Whether a key made by `content` holds a unit."""
    stack = [value]
    while stack:
        v = stack.pop()
        if type(v) is tuple:
            if len(v) == 8 and v[0] == "unit":
                return True
            stack.extend(v)
    return False


def _side_read(made_reads) -> int | None:
    """The index of the one side that making hits read (`made_reads`), or None when they read both
    sides, the round, the counters or everything."""
    if EVERYTHING in made_reads or ROUND in made_reads or COUNTERS in made_reads:
        return None
    sides = {side for _kind, side in made_reads}
    if len(sides) != 1:
        return None
    return 0 if sides.pop() == "attacker" else 1
