"""Round transitions shared between the chains of one battle site, checked against what they read.

An agent asks battle after battle at one space while its plans change the board (the attack
with one unit more, the same attack after a what-if that took another space): each question is
a new chain (chain.py), which would work out again the rounds an earlier chain of the same
battle worked out (a state of three attackers left is in the chains of three, four and five).
A `SharedRounds` keeps the chains' round transitions (a state's sides and the counters the battle
wrote -> the states after the round, with their chances) for as long as its holder keeps it (the
agents' battle odds: the games of one process that play one composition with one map, options
and facts), grouped by *site*: everything a transition depends on besides
the state and the board outside the battle (`Chain._site`: the space, the sides, where an
assault comes from and the ships supporting it, exact or float, the round limit).

A transition holds each side's records without their type order (the order of the unit types on
the board when the chain was set up, a field of every record that sorts a side's records:
`BattleFactors._unordered_side`), but in their order: so the chains of a site whose type orders
differ share the states whose own types stand in the same order on each side (a chain of two
attacking types and one of the second type alone share the states of that type alone), and only those:
a state's records in another order are run in another order, and their sums made in another
order can differ in the last digit. What the kit reads of the battle's units past the watch (their
costs and hit points, which a technology may change) is kept by unit type and owner in the
generation (`Generation.units`): a chain joins one only where they agree on the types and owners
both have, since a transition reads those of its own state's units alone. The battle's settings
(`BattleRules`: `casualties_by`, `withdraws`, `retreats`, `retreat_to` and its default, ...) are
evaluated through the step's watch while a step runs (steps.py hands the settings' context the
watch), so what they read of the board is in the generation's reads; those asked only at set-up
(`fights`, `at_war`, `defender`, the units' domain) are in the states' records or the site;
`stays` alone is asked past the watch (`BattleRules`: what the shipped ones read is the same for
every unit a chain makes).

The board outside the battle is the same in every state of one chain (watch.py takes it as
such: `_BOARD_SAME`), but not from one chain to the next. So a site keeps *generations*: the
transitions worked out by chains that agreed on everything they read of the board outside the
battle, with those reads (`BoardReads`: each board query's name and arguments with its answer,
who held a space, the context's facts and options, the board's entries of each counter read). A chain joins
the first generation whose reads all answer the same on its own board (a dependency-checked memo,
as an incremental build checks a target's inputs), takes its transitions and adds its own, with
the reads it made; none answering the same, it starts a new one. A chain whose steps read
anything the watch does not know (`EVERYTHING`: the whole board's units, a counter keyed by a
unit ...) adds nothing from then on (`poisoned`); the units in one space are noted by those of
them outside the battle (`units_outside`: the battle's own are its state's). Bounded: a site keeps its last few generations,
the store a number of transitions in all (then it starts afresh; a chain that misses works its
transitions out again, to the same answers).

A generation also keeps the hits its chains made for every count (`Generation.makings`,
makings.py `_every_count`): a making reads one side alone (the side hit, its records without their
type order as the transitions hold them), the hits' statements and frame values and the board
outside the battle as the generation's reads note it, so a later chain that hits a side with the
same records (most often the defence, the same in every chain of a battle) takes it. A making
that read nothing of the board outside the battle (its own log of reads, `MakingReads`) and
nothing of its site but the sides' players (watch.py `SiteNotedView`) is kept for every site and
generation instead (`SharedRounds.makings`), under the costs and hit points of its side's units
(`Generation.units`) and the battle's attacker and defender as well: what it wrote depends on
nothing else (the casualty order, runtime/kit/casualties.py, reads the units' types, owners,
hits, costs and hit points; the rules' settings and lazy targets are read through the watch).

A battle in progress (an agent's retreat question: `BattleSpec.round` after the first, its
defence named, with the hits its units took) shares the site of the chains that planned it. What
its chain does otherwise than a plan's rounds after the first, and why none of it is missing here:
- its set-up (states.py `_setup`) takes the space's enemy units off the board and makes the named
  defence anew, all of the most numerous owner's, with their hits: the units, owners, hits and
  origins are the states' records; what else the space holds is the board's units outside the
  battle, which a step's read notes by their fields (`units_outside`; the kit past the watch, in a
  round, looks at the battle's own units and lists); who defends (the rules' `defender` setting, asked of the named units) is in
  the site;
- the counters the real battle wrote are on the board, not in its states' counters (those the
  chain wrote): a step's read of a counter notes the board's entries of it (`note_counter`), so
  a board the battle wrote to answers otherwise and starts another generation; a write, or a
  counter keyed by a unit, is `EVERYTHING`;
- every round it fights is a `LateRound`, as a plan's rounds after the first, and the round class
  is in each transition's key; which rounds it runs (no `start` step, no first round) is its own
  solving (`_solve_ends`), not a transition;
- the board is the game's during the battle (another phase): whatever a step reads of it is in
  the generation's reads, as for two plans of different turns."""

from __future__ import annotations

import copy

GENERATIONS = 4          # the generations a site keeps (the oldest dropped first)
# the round transitions a store keeps in all before it starts afresh: the store lives across the
# games of a process (battle_odds.py), which keep about a thousand each in the agents' chains, at
# about 1.2 KB a transition: some 60 MB at most, the transitions of fifty-odd games
TRANSITIONS = 50_000
# the hits made for every count a store keeps for every site (`SharedRounds.makings`) before it
# starts them afresh: a game's chains keep about 300 (seeds 4-8), each a few side records
MAKINGS = 20_000

MISSING = object()  # no entry (a space no one holds)


def frozen(value):
    """`value` as it was read, kept so that a later change of the board's own object does not
    change it (a list or dict the board hands out is copied)."""
    if isinstance(value, (list, dict, set)):
        return copy.deepcopy(value)
    return value


class BoardReads:
    """What the steps of the chains of one generation read of the board outside the battle: (kind,
    name, arguments) -> the answer (`note`); `poisoned`: a step of the chain read something not
    known to be the same in every state that is not recorded here, so it adds no transition."""

    __slots__ = ("answers", "poisoned", "counters")

    def __init__(self, answers: dict, counters: dict):
        self.answers = answers
        self.poisoned = False
        self.counters = counters  # the board's counters before the battle (the chain's `_base_counters`)

    def note_counter(self, name: str) -> None:
        """A read of counter `name` (a step reads its value as the battle wrote it, else the
        board's): noted as the board's entries of that counter (`ask_board` on a board holding no
        battle state yet)."""
        key = ("counter", name)
        if key not in self.answers:
            self.answers[key] = frozen(self.counters.get(name, {}))

    def note(self, key: tuple, value) -> None:
        """A read (`key`: kind, name, arguments) and its answer on this chain's board."""
        if key not in self.answers:
            self.answers[key] = frozen(value)

    def call(self, kind: str, name: str, fn):
        """`fn`, a board query, answering as it does and noting each call's arguments and answer."""

        def recorded(*args, **kwargs):
            value = fn(*args, **kwargs)
            try:
                self.note((kind, name, args, tuple(sorted(kwargs.items()))), value)
            except TypeError:  # an argument that cannot be a key: not recorded, so nothing is shared
                self.poisoned = True
            return value
        return recorded


class MakingReads:
    """What one making of hits for every count (runtime/odds/makings.py `_every_made`) read of the
    board outside the battle: the reads are noted in the chain's `BoardReads` (`reads`) as any
    step's are; `read` tells whether there were any (a making that read none is shared across sites
    and generations: `SharedRounds.makings`)."""

    __slots__ = ("reads", "read")

    def __init__(self, reads: BoardReads):
        self.reads = reads
        self.read = False

    def note_counter(self, name: str) -> None:
        """`BoardReads.note_counter`, noted as a read."""
        self.read = True
        self.reads.note_counter(name)

    def note(self, key: tuple, value) -> None:
        """`BoardReads.note`, noted as a read."""
        self.read = True
        self.reads.note(key, value)

    def call(self, kind: str, name: str, fn):
        """`BoardReads.call`, each call noted as a read."""
        recorded = self.reads.call(kind, name, fn)

        def noted(*args, **kwargs):
            self.read = True
            return recorded(*args, **kwargs)
        return noted


class Generation:
    """The transitions of the chains that agreed on what they read of the board outside the battle,
    and on what the kit reads of their units of each type and owner both had."""

    __slots__ = ("answers", "rounds", "units", "makings")

    def __init__(self, units: dict):
        self.answers: dict = {}    # (kind, name, arguments) -> answer (`BoardReads`)
        # (attacker's records, defender's, counters written, round class) -> [after], each side's
        # records without their type order (`BattleFactors._unordered_side`)
        self.rounds: dict = {}
        # (a deferred hit but its count, counters written, side index, that side's records) -> the
        # hit made for every count up to some number on that side (`BattleSteps._every_count`),
        # with that number; a few for each round kept, dropped with the generation
        self.makings: dict = {}
        self.units = dict(units)   # (unit type, owner) -> what the kit reads of such units (`Chain._unit_reads`)

    def holds(self, ask) -> bool:
        """Whether a board whose reads `ask(key)` answers gives every answer this generation's chains read."""
        for key, value in self.answers.items():
            if ask(key) != value:
                return False
        return True

    def agrees(self, units: dict) -> bool:
        """Whether a chain whose units read `units` (`Chain._unit_reads`) reads the same of every
        type and owner this generation's chains had too (a transition reads those of its state's
        units alone, and a chain's states hold only its own types and owners)."""
        kept = self.units
        for key, value in units.items():
            if kept.get(key, value) != value:
                return False
        return True


class SharedRounds:
    """The round transitions of one game's chains, by site (module docstring)."""

    def __init__(self, transitions: int = TRANSITIONS, generations: int = GENERATIONS, makings: int = MAKINGS):
        self.limit = transitions
        self.generations = generations
        self.sites: dict[tuple, list[Generation]] = {}
        # (a deferred hit but its count, counters written, side index, that side's records, what the
        # kit reads of their units, the attacker, the defender) -> the hit made for every count up
        # to some number on that side, as `Generation.makings` keeps them, for every site
        # (module docstring); started afresh when it holds `makings_limit`
        self.makings: dict = {}
        self.makings_limit = makings
        self.kept = 0       # transitions kept in all
        self.joined = 0     # chains that joined a generation with transitions
        self.started = 0    # chains that started a generation

    def generation(self, site: tuple, ask, units: dict) -> Generation:
        """The generation of `site` whose reads answer the same on a chain's board (`Generation.holds`)
        and whose units read the same as the chain's (`units`: `Generation.agrees`; those it had
        not seen are added), or a new one."""
        kept = self.sites.get(site)
        if kept is None:
            kept = self.sites[site] = []
        for gen in kept:
            if gen.holds(ask) and gen.agrees(units):
                for key, value in units.items():
                    gen.units.setdefault(key, value)
                self.joined += 1
                return gen
        if self.kept >= self.limit:  # full: start afresh
            self.sites = {site: []}
            self.makings = {}
            kept = self.sites[site]
            self.kept = 0
        gen = Generation(units)
        kept.append(gen)
        if len(kept) > self.generations:
            self.kept -= len(kept.pop(0).rounds)
        self.started += 1
        return gen

    def keep(self, gen: Generation, key: tuple, after: tuple) -> None:
        """Keep a round transition in `gen`."""
        if key not in gen.rounds:
            gen.rounds[key] = after
            self.kept += 1


    def keep_making(self, key: tuple, making: tuple) -> None:
        """Keep a hit made for every count for every site (`makings`), starting afresh when full."""
        if len(self.makings) >= self.makings_limit:
            self.makings = {}
        self.makings[key] = making


def ask_board(ctx, key: tuple):
    """The answer a chain's evaluation context `ctx` (its board: a `BoardQueries`) gives now to a
    read noted as `key` (`BoardReads`)."""
    kind, name = key[0], key[1]
    board = ctx.board
    if kind == "context":  # a value of the context itself (the game's facts, ...)
        return getattr(ctx, name)
    if kind == "counter":  # the board's entries of a counter (asked before the chain puts a state on it)
        return board.state.counters.get(name, {})
    if kind == "query":
        _k, _n, args, kwargs = key
        return getattr(board, name)(*args, **dict(kwargs))
    if kind == "value":
        return getattr(board, name)
    if kind == "map":  # a space's entry of a map of the board's state (who holds it)
        return getattr(board.state, name).get(key[2], MISSING)
    if kind == "whole map":
        return dict(getattr(board.state, name))
    if kind == "units in":  # the units in a space that are not the battle's (`units_outside`)
        return units_outside(board, ctx.game.base_index, name)
    return MISSING


def units_outside(board, base_index: dict, space: str) -> tuple:
    """What a read of the units in `space` on a chain's board (`board.units_in`, by id) notes:
    those outside the battle (`base_index`: the chain's units of the board outside it), each with
    every field but its space, in their order. The battle's own units, after them (their ids are the
    chain's, above the board's), are the state's records and what the step did to them, the same
    in every chain that runs that state: a chain whose board answers this the same sees the same
    units there, but for the ids the chain gives its own units (no chain's transitions read those)."""
    return tuple((u.id, u.type, u.owner, u.hits, u.moved, frozen(u.flags), tuple(u.cargo))
                 for u in board.units_in(space) if u.id in base_index)
