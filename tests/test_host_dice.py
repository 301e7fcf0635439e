"""The host's dice (lang/eval/host.py): drawn as `random.Random.randint` draws them, so seeded
games stay the same games; kept as plain triples and shown as `Roll`s; loaded dice still asked."""

from __future__ import annotations

import random

import pytest

from ruleslang.base.limits import MAX_KEPT_ROLLS
from ruleslang.lang.eval import host as host_module
from ruleslang.lang.eval.host import Host, Roll


@pytest.mark.parametrize("seed", [0, 1, 7, 20261126])
def test_every_die_is_what_randint_gives_from_the_same_seed(seed):
    host, twin = Host(seed), random.Random(seed)
    sides = [6, 6, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 20, 100, 1000, (1 << 70) + 3] * 50
    assert [host.roll(s) for s in sides] == [twin.randint(1, s) for s in sides]
    # and the generator is left where randint leaves it
    assert host.rng.getstate() == twin.getstate()


def test_the_fast_draw_is_in_use_on_this_python():
    # the check at import agrees with randint here, so the draw is the in-line one (were it not,
    # the test above would still hold, through randint)
    assert host_module._Random is random.Random


def test_a_generator_of_another_kind_is_asked_for_randint():
    class Loaded(random.Random):
        def randint(self, a, b):
            return b

    host = Host(0)
    host.rng = Loaded(0)
    assert [host.roll(6), host.roll(4)] == [6, 4]


def test_a_die_of_no_sides_is_refused_as_randint_refuses_it():
    host = Host(0)
    with pytest.raises(ValueError):
        host.roll(0)


def test_the_record_shows_rolls_with_their_places_and_keeps_the_latest():
    host = Host(3)
    values = [host.roll(6, None) for _ in range(5)]
    record = host.rolls
    assert len(record) == 5 and [r.value for r in record] == values
    assert record[-1] == Roll(6, values[-1], None) and record[1:3] == [Roll(6, v, None) for v in values[1:3]]
    assert all(r.sides == 6 and r.where == "-" for r in record)
    host.rolls = []  # a caller starting a new record (odds sampling does)
    assert len(host.rolls) == 0
    for _ in range(MAX_KEPT_ROLLS + 3):
        host.roll(2)
    assert len(host.rolls) == MAX_KEPT_ROLLS


def test_on_roll_is_told_each_die_as_a_roll():
    host = Host(5)
    told = []
    host.on_roll = lambda roll, span: told.append((roll.sides, roll.value, span))
    value = host.roll(6, None)
    assert told == [(6, value, None)]


def test_a_host_given_a_generator_seeds_none_and_rolls_with_it():
    class Loaded:
        def randint(self, a, b):
            return b
    loaded = Loaded()
    host = Host(None, rng=loaded)
    assert host.rng is loaded and host.roll(6) == 6 and host.roll(20) == 20


def test_a_generator_put_in_its_place_draws_the_next_dice_and_a_pickled_host_rolls_on_alike():
    # (the host binds its generator's draw and its record's append once: each must follow the
    # generator and record it holds now, also in a copy of it)
    import pickle

    host, twin = Host(0), random.Random(11)
    host.roll(6)
    host.rng = random.Random(11)
    assert [host.roll(6) for _ in range(20)] == [twin.randint(1, 6) for _ in range(20)]
    copy = pickle.loads(pickle.dumps(host))
    assert [copy.roll(6) for _ in range(20)] == [host.roll(6) for _ in range(20)]
    assert len(copy.rolls) == len(host.rolls) == 41 and copy.rng.getstate() == host.rng.getstate()
