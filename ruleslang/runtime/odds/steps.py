"""The exact chain's steps: a step maps a state to a distribution of states, and its transition is
shared between the states that agree on what it read (runtime/odds/watch.py).

A step runs as in a game (the runtime's `Battle` takes the hits, the casualty order chooses the
casualties), except that where it rolls dice every outcome is followed with its probability
(`lang/eval/branching.py`). Its hits wait until its statements have run (`_deferred_step`): the
statements read what the dice and the choices need (a side's fire: that side's units), and the
hits are made afterwards (runtime/odds/makings.py), kept per what making them read (the side hit); a
step whose hits cannot wait runs as it is (`_step`). What a step's work is kept under: runtime/odds/kept.py.
"""

from __future__ import annotations

from fractions import Fraction
from operator import is_

from ruleslang.lang.eval.branching_values import cannot_follow, content
from ruleslang.runtime.odds.kept import Kept, apply_changes
from ruleslang.runtime.odds.watch import EVERYTHING, NotDeferred, RecordingWatch, StepWatch, changed_by, split_of

_PLAIN = frozenset({int, bool, float, str, type(None), Fraction})  # values that hold no unit of the battle


class BattleSteps:
    """The steps part of `Chain`: running a step from a state, sharing its transition, deferring
    its hits, and keeping the distributions of rolled expressions (Branching's world)."""

    def remember(self, key, compute):
        """The distribution of a rolled expression (`Branching`'s world): kept under `key` (the
        expression and the values of the locals it reads, units by all they hold) when all it
        read of the battle besides them is the hits of those units, which the key holds; the
        reads are noted again for the step that reuses it. In a run whose hits wait (the state
        does not change while its statements run), a distribution of plain values (no unit) is
        also kept under `key` and what it read of the state (`Kept`), as a step's transition is."""
        watch = self._watch
        if watch is None:
            return compute()
        found = self._rolled.get(key)
        if found is not None:
            dist, noted = found
            watch.reads.update(noted)
            return dist
        at = self._at if self.deferring else None
        kept = self._rolled_kept.get(key) if at is not None else None
        if kept is not None:
            found = kept.find(self._project, *at)
            if found is not None:
                watch.reads.update(found[0])
                return found[1]
        reads = watch.reads
        outer, reads.log = reads.log, []
        try:
            dist = compute()
            noted = reads.log
        finally:
            reads.log = outer
        if outer is not None:
            outer.extend(noted)
        if all(aspect[0] == "hits" for aspect in noted):
            self._rolled[key] = (dist, frozenset(noted))
        elif at is not None and EVERYTHING not in noted and all(type(v) in _PLAIN for v, _w in dist.items()):
            if kept is None:
                kept = self._rolled_kept[key] = Kept()
            kept.keep(self._project, *at, frozenset(noted), dist)
        return dist

    # ------------------------------------------------------------------ transitions

    def _run(self, key: tuple, round_number, name: str, watch: StepWatch | None = None) -> dict:
        """The distribution of states after running step `name` from state `key` (seen through
        `watch`, when given, which notes what the step read)."""
        out: dict = {}
        self.step_runs += 1
        self.runs[name] = self.runs.get(name, 0) + 1
        self._materialize(key, round_number)

        def finish(p) -> None:
            k = self._key()
            out[k] = out.get(k, 0) + p
        self._retreating = False
        config = self.rules.config
        if watch is None:
            self._in_world(self.branching.run_procedure, self.ctx, name, self.one, finish)
            return out
        # the battle's settings (retreat_to, ...) are evaluated through the watch too
        self._watch, saved, config.ctx = watch, config.ctx, watch
        try:
            self._in_world(self.branching.run_procedure, watch, name, self.one, finish)
        finally:
            self._watch, config.ctx = None, saved
        return out

    def _shares_counters(self) -> bool:
        """Whether a step's read of a counter keyed by no unit is `COUNTERS` (watch.py), shared by the
        states that agree on the rest of what it read, rather than a read of everything: not with a
        retreat threshold (the chain that retreats and the one that values its states), whose shared
        transitions gave other answers than the unshared ones (`share=False`) when this was made (air
        units that withdrew stayed withdrawn in later states: mended since, in `_materialize`); not
        checked since in that mode, so left off there."""
        return self.retreat_below is None and not self._notes_retreats

    def _watching(self, deferring: bool = False, each=None, log=None) -> StepWatch:
        """The watch a step runs through (watch.py); one that also notes what the step reads of the
        board outside the battle when the chain shares its transitions with other chains
        (`_outside`, runtime/odds/shared.py); with `log` (a `MakingReads` over `_outside`), notes
        them there, and notes whether the step read the battle's site (`SiteNotedView`)."""
        outside = self._outside
        if outside is None:
            return StepWatch(self.ctx, self.battle, deferring, each, self._shares_counters())
        if log is not None:
            return RecordingWatch(self.ctx, self.battle, deferring, each, self._shares_counters(), log, True)
        return RecordingWatch(self.ctx, self.battle, deferring, each, self._shares_counters(), outside)

    def _watched(self, watch: StepWatch) -> None:
        """After a run through `watch`: a run that read everything (the whole board's units, a counter keyed
        by a unit, ...) may have read the board outside the battle in a way `_outside` does not
        note, so the chain adds no transition to those shared from then on."""
        if self._outside is not None and EVERYTHING in watch.reads:
            self._outside.poisoned = True

    def _in_world(self, call, *args) -> None:
        """`call(*args)` with this chain as the world of the shared `Branching` (chain.py,
        `_branching`); the world before is put back after (a chain may run inside another's step:
        the chance to win from a state, `_chance_now`)."""
        before = self.branching.use(self)
        try:
            call(*args)
        finally:
            self.branching.use(before)

    def _step(self, name: str, key: tuple, round_class, reads: set | None = None) -> dict:
        """Step `name` from state `key` in round 1 (`round_class` 1), a later round or the start (0);
        `reads`, when given, gets the aspects of the state the transition depends on (watch.py).

        A step's transition is shared between states: the step runs through a `StepWatch`, and
        its transition is kept under what it read of the state (`_project`, and the round
        when it read the round); a state that agrees with an earlier one on that takes its
        transition, as changes of the sides the step changed (it read those whole)."""
        rclass = int(round_class) if round_class is not None else 0
        if self.share and name not in self._plain:
            try:
                return self._deferred_step(name, key, round_class, rclass, reads)
            except NotDeferred:
                self._plain.add(name)
        if not self.share:
            if reads is not None:
                reads.add(EVERYTHING)
            found = self._transitions.get((name, rclass, key))
            if found is None:
                found = self._transitions[(name, rclass, key)] = self._run(key, round_class, name)
            return found
        kept = self._shared.get(name)
        if kept is None:
            kept = self._shared[name] = Kept()
        split = split_of(key[0])
        found = kept.find(self._project, key, split, rclass)
        if found is not None:
            if reads is not None:
                reads.update(found[0])
            return apply_changes(key, split, found[1])
        watch = self._watching()
        out = self._run(key, round_class, name, watch)
        self._watched(watch)
        aspects = kept.keep_changes(self._project, key, split, rclass, out, frozenset(watch.reads))
        if reads is not None:
            reads.update(aspects)
        return out

    # ------------------------------------------------------------------ deferred hits

    def deferred(self) -> int:
        """How many hits the run has deferred so far (Branching's world)."""
        return len(self._deferred)

    def defer(self, hit) -> None:
        """Take a hit the run defers (Branching's world): kept with a key of what it will read (its
        statement, count, and the values of its frame's slots, units by all they hold); the
        battle's units among them are read with their hits, so the run's key holds those."""
        values = tuple([hit.env[s] for s in hit.reads])
        last = self._last_defer
        if last is not None and last[0] is hit.stmt and all(map(is_, values, last[1])):
            # the same statement from the same frame values (another outcome of its count): nothing
            # the key reads changes while a run's hits wait, so its key and sides are as before
            framed, sides = last[2], last[3]
        else:
            try:
                framed = tuple([content(v) for v in values])
                hash(framed)
            except TypeError:
                raise NotDeferred("a value that cannot be a key") from None
            sides = self._unit_sides(framed)
            self._last_defer = (hit.stmt, values, framed, sides)
        hit.desc = (id(hit.stmt), hit.count, hit.now, framed)
        reads = self._watch.reads
        if sides:
            saved, reads.dirty = reads.dirty, None  # what it read before the earlier hits are made
            reads.update(("hits", side) for side in sides)
            reads.dirty = saved
        self._deferred.append(hit)
        reads.dirty = (reads.dirty or set()) | changed_by(hit)

    def hold(self, stmt, unit_ids: list[int]) -> None:
        """A `remove` or a change of `hits` of these units (Branching's world): followed for the
        battle's units, which a state holds (a unit removed leaves the battle's state, its hits
        are in its record); a unit outside the battle is E546 (the state does not hold it)."""
        if self.deferring:
            raise NotDeferred("an effect on units")
        battle = self.battle
        inside = set(battle.attacking) | set(battle.defending)
        outside = [uid for uid in unit_ids if uid not in inside]
        if outside:
            unit = self.host.unit_or_none(outside[0])
            where = f" (a {unit.type} of {unit.owner} in {unit.space})" if unit is not None else ""
            raise cannot_follow(stmt, f"it changes a unit that is not in the battle{where}, which the "
                                      "battle's states do not hold")

    def _unit_sides(self, value) -> set:
        """The sides of the battle's units inside a key made by `content`."""
        found: set = set()
        stack = [value]
        battle = self.battle
        while stack:
            v = stack.pop()
            if type(v) is tuple:
                if len(v) == 8 and v[0] == "unit":
                    side = battle.side_of_unit(v[1])
                    if side is not None:
                        found.add(side)
                else:
                    stack.extend(v)
        return found

    def _deferred_step(self, name: str, key: tuple, round_class, rclass: int, reads: set | None = None) -> dict:
        """Step `name` from state `key` with its hits deferred: its statements run once per what
        they read (the dice of a side's fire read that side's units, not the targets), giving a
        distribution of lists of hits; the hits are made afterwards, kept per what they read
        (the side hit, `_make`), so a side's casualties of n hits are worked out once and reused
        in every state with that side. NotDeferred when the step's effects cannot wait."""
        split = split_of(key[0])
        found = self._planned(name, key, split, round_class, rclass)
        if reads is not None:
            reads.update(found[0])
        out: dict = {}
        for desc, hits, p in found[1]:
            if not hits:
                out[key] = out.get(key, 0) + p
                continue
            for k2, q in self._make(desc, hits, key, split, round_class, rclass, reads).items():
                out[k2] = out.get(k2, 0) + p * q
        return out

    def _planned(self, name: str, key: tuple, split: int, round_class, rclass: int) -> tuple:
        """(what it read, the plan) of step `name` from state `key`: kept for a state like it, or run."""
        kept = self._plans.get(name)
        if kept is None:
            kept = self._plans[name] = Kept()
        found = kept.find(self._project, key, split, rclass)
        if found is None:
            watch = self._watching(deferring=True)
            plan = self._plan(key, round_class, name, watch)
            self._watched(watch)
            # its hits deferred, the run changed nothing: the board still holds `key` for its hits
            self._held = (key, round_class)
            found = (frozenset(watch.reads), plan)
            kept.keep(self._project, key, split, rclass, found[0], plan)
        return found

    def _plan(self, key: tuple, round_class, name: str, watch: StepWatch) -> list:
        """Run step `name` from state `key` deferring its hits: [(their key, the hits, probability)]."""
        self.step_runs += 1
        self.runs[name] = self.runs.get(name, 0) + 1
        split = split_of(key[0])
        self._materialize(key, round_class, split)
        self._at = (key, split, int(round_class) if round_class is not None else 0)
        plan: dict = {}

        def finish(p) -> None:
            hits = tuple(self._deferred)
            desc = tuple(h.desc for h in hits)
            found = plan.get(desc)
            plan[desc] = (desc, hits, p) if found is None else (desc, found[1], found[2] + p)
        self._retreating = False
        config = self.rules.config
        self._watch, saved, config.ctx = watch, config.ctx, watch
        self.deferring, self._deferred, self._last_defer = True, [], None
        try:
            self._in_world(self.branching.run_procedure, watch, name, self.one, finish)
        finally:
            self._watch, config.ctx = None, saved
            self.deferring, self._deferred, self._at, self._last_defer = False, [], None, None
        return list(plan.values())
