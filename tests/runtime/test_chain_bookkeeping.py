"""The exact chain's bookkeeping shortcuts give what the long way gives (issue 15).

A state put on the board tells the battle its sides' units (`Battle.units_known`) rather than the
battle working them out from the board; a run whose hits wait leaves the board holding its state,
so making its hits next puts nothing on the board again (`BattleStates._materialize`)."""

from __future__ import annotations

from functools import lru_cache

import pytest

from ruleslang.runtime import saves
from ruleslang.runtime.odds.chain import Chain, BattleSpec
from ruleslang.runtime.odds.states import RETREATED, BattleStates
from ruleslang.runtime.odds.makings import _EVERY
from ruleslang.runtime.odds.watch import PENDING
from ruleslang.workspace.compositions import Workspace

LAND = "Karelia S.S.R."
SEA = "12 Sea Zone"

BATTLES = [
    (["aar/house-rules@1"], LAND, "Germans", {"infantry": 3, "artillery": 1, "armour": 1}, {"infantry": 2}, "Russians"),
    (["aar/base@1"], LAND, "Germans", {"infantry": 2, "fighter": 1, "bomber": 1}, {"infantry": 2, "aaGun": 1},
     "Russians"),
    (["aar/base@1"], SEA, "Germans", {"submarine": 2, "battleship": 1}, {"destroyer": 1, "submarine": 1, "battleship": 1},
     "Americans"),
]


@lru_cache(maxsize=None)
def _game(refs: tuple):
    setup = saves.GameSetup(refs=list(refs), scenario=None, seed=1, rounds=1, players={}, default_agent="heuristic",
                            settings=[], orders=None)
    return saves.build_game(Workspace([]), setup)


def _chain(cls, refs, space, attacker, attacking, defending, defender, **options):
    game = _game(tuple(refs))
    return cls(game, BattleSpec(space, attacker, attacking, defending, defender), board=game.state, **options)


class _Checked(Chain):
    """A chain that checks, for every state put on the board, that the units the battle was told
    are those it works out from the board, and counts the states it did not put there again."""

    def __init__(self, *args, **kwargs):
        self.checked = self.held = 0
        super().__init__(*args, **kwargs)

    def _materialize(self, key, round_number, split=None) -> None:
        held = self._held
        super()._materialize(key, round_number, split)
        if held is not None and held[0] == key and held[1] is round_number:
            self.held += 1
        else:
            # the board's index of units, which the chain keeps from state to state, is the board's
            state = self.host.state
            assert state._indexed is state.units
            assert state._unit_index == {u.id: u for u in state.units}
        battle = self.battle
        for side in ("attacker", "defender"):
            assert battle.units(side) == battle._units_now(side)
        # the board holds the state asked for, whether put there now or kept
        assert self._key() == key
        self.checked += 1


class _Fresh(Chain):
    """A chain that puts every state on the board again (no state kept from a run's plan)."""

    def _materialize(self, key, round_number, split=None) -> None:
        self._held = None
        BattleStates._materialize(self, key, round_number, split)


@pytest.mark.parametrize("battle", BATTLES, ids=["house-rules land", "AA gun", "sea"])
def test_units_told_are_the_boards_and_held_states_are_the_keys(battle):
    chain = _chain(_Checked, *battle, exact=False)
    chain.solve()
    assert chain.checked > 0
    assert chain.held > 0  # some hits were made on the state their plan left on the board


@pytest.mark.parametrize("battle", BATTLES, ids=["house-rules land", "AA gun", "sea"])
@pytest.mark.parametrize("exact", [True, False])
def test_kept_states_give_the_same_answers(battle, exact):
    kept = _chain(Chain, *battle, exact=exact).solve()
    fresh = _chain(_Fresh, *battle, exact=exact).solve()
    assert kept.ends == fresh.ends  # floats too: the same sums in the same order
    assert (kept.taken, kept.rounds) == (fresh.taken, fresh.rounds)


class _JointByRecords(Chain):
    """A chain that follows a round state by state from the states' records (the long way: each
    step run, or its kept transition applied, from the whole state), where the chain looks the
    steps up by the sides' numbers (`BattleFactors._joint_round`); counts the joint rounds."""

    joint = 0

    def _joint_round(self, steps, fa, fd, counters, round_class):
        self.joint += 1
        rows = self._side_rows
        dist = {(rows[x] + rows[y], counters): p * q for x, p in fa.items() for y, q in fd.items()}
        for name in steps:
            nxt: dict = {}
            for k, p in dist.items():
                if k[1] and k[1][0] == RETREATED:
                    nxt[k] = nxt.get(k, 0) + p
                    continue
                for k2, q in self._step(name, k, round_class).items():
                    nxt[k2] = nxt.get(k2, 0) + p * q
            dist = nxt
        out: dict = {}
        for (records, written), p in dist.items():
            s2 = self.sid((tuple(r for r in records if r[5] != PENDING), written))
            out[s2] = out.get(s2, 0) + p
        return out


class _JointCounted(Chain):
    """The chain as it is, counting the steps of its joint rounds looked up by the sides' numbers."""

    looked_up = 0

    def _side_outcomes(self, *args):
        found = super()._side_outcomes(*args)
        if args[-1] is None and found is not None:  # (a joint round's: it notes no reads)
            self.looked_up += 1
        return found


@pytest.mark.parametrize("exact", [True, False])
def test_joint_rounds_by_numbers_give_what_the_records_give(exact):
    # a bomber's dice read a technology counter: the rounds of this battle end their product
    # (`BattleFactors._effect`) and are followed state by state
    battle = BATTLES[1]
    numbers = _chain(_JointCounted, *battle, exact=exact)
    records = _chain(_JointByRecords, *battle, exact=exact)
    by_numbers, by_records = numbers.solve(), records.solve()
    assert records.joint > 0 and numbers.looked_up > 0
    assert by_numbers.ends == by_records.ends  # floats too: the same sums in the same order
    assert (by_numbers.taken, by_numbers.rounds) == (by_records.taken, by_records.rounds)


class _WrittenChecked(Chain):
    """A chain that checks the sides a hit made for every count wrote (`_every_made`: each side's
    records kept in order casualty by casualty) against the states they stand for, taken apart the
    long way (`_one_side` of the whole states)."""

    compared = 0

    def _one_side_written(self, key, split, made_reads, written):
        found = super()._one_side_written(key, split, made_reads, written)
        for side, rows in written:
            assert list(rows) == sorted(rows)
        assert found == self._one_side(key, split, made_reads, self._written_keys(key, split, written))
        self.compared += 1
        return found


@pytest.mark.parametrize("battle", BATTLES, ids=["house-rules land", "AA gun", "sea"])
def test_the_sides_a_hit_wrote_for_every_count_are_its_states(battle):
    chain = _chain(_WrittenChecked, *battle, exact=False)
    result = chain.solve()
    assert chain.compared > 0
    assert result.ends == _chain(_Fresh, *battle, exact=False).solve().ends


class _EveryCount(Chain):
    """A chain that makes a hit for every count its units can take (the long way), where the chain
    makes it for as many as its statement's plans ask (`_most_hits`)."""

    def _every_count(self, family, hit, key, split, x, y, round_class, most):
        return super()._every_count(family, hit, key, split, x, y, round_class, _EVERY)


class _FewerCounted(Chain):
    """The chain as it is, counting the hits made for fewer counts than their units can take."""

    fewer = 0

    def _every_made(self, hit, key, round_class, most=_EVERY, before=()):
        found = super()._every_made(hit, key, round_class, most, before)
        if found is not None and not found[2]:
            self.fewer += 1
        return found


@pytest.mark.parametrize("battle", BATTLES + [
    (["aar/house-rules@1"], LAND, "Germans", {"infantry": 6, "artillery": 2, "armour": 2}, {"infantry": 4}, "Russians"),
], ids=["house-rules land", "AA gun", "sea", "six against four"])
@pytest.mark.parametrize("exact", [True, False])
def test_hits_made_for_the_counts_asked_give_what_every_count_gives(battle, exact):
    fewer = _chain(_FewerCounted, *battle, exact=exact)
    result, every = fewer.solve(), _chain(_EveryCount, *battle, exact=exact).solve()
    assert result.ends == every.ends  # floats too
    assert (result.taken, result.rounds) == (every.taken, every.rounds)
    if battle[3].get("infantry") == 6:
        assert fewer.fewer > 0  # the four defenders' hits on the ten attackers: made up to four


class _TwoHitsEach(Chain):
    """A chain that makes two hits of a plan for each pair of counts (the long way: `_made_side`),
    where the chain makes the second for every count after the first (`_every_made`'s `before`)."""

    def _counted(self, desc, hits, *args):
        return None if len(hits) > 1 else super()._counted(desc, hits, *args)


class _TwoHitsCounted(Chain):
    """The chain as it is, counting the second hits made for every count after a first."""

    after_first = 0

    def _every_made(self, hit, key, round_class, most=_EVERY, before=()):
        found = super()._every_made(hit, key, round_class, most, before)
        if found is not None and before:
            self.after_first += 1
        return found


@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("attacking, defending", [
    ({"infantry": 3, "fighter": 2, "armour": 1}, {"infantry": 3}),
    ({"infantry": 2, "fighter": 1}, {"infantry": 2, "fighter": 1}),
])
def test_two_hits_made_for_every_count_of_the_second_give_what_each_pair_gives(exact, attacking, defending):
    # without a destroyer, the air units' hits and the others' are two hits on the defender's units
    battle = (["aar/house-rules@1"], LAND, "Germans", attacking, defending, "Russians")
    counted = _chain(_TwoHitsCounted, *battle, exact=exact)
    result, each = counted.solve(), _chain(_TwoHitsEach, *battle, exact=exact).solve()
    assert counted.after_first > 0
    assert result.ends == each.ends  # floats too
    assert (result.taken, result.rounds) == (each.taken, each.rounds)
