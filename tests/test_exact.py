"""Exact distributions agree with brute-force enumeration of every roll sequence on small inputs,
and sampling agrees with them."""

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from ruleslang.base.limits import MAX_KEPT_ROLLS
from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host

from conftest import load

RULES = {
    "x/dice@1": """
        ruleset x/dice@1
        formula hit(v: int) -> int:
            let r = d6
            if r <= v then r else 0
        formula surface(n: int, v: int) -> int = sum(best 1 of [hit(v) for i in 1..n])
        formula subs(n: int) -> int = sum(best 3 of [hit(2) for s in 1..n for i in 1..3])
        formula zone(n: int, v: int, m: int) -> int = surface(n, v) + subs(m)
        formula detected(dds: int, value: int) -> bool = any(d6 <= value for i in 1..dds)
        formula hits(n: int, v: int) -> int = count(i for i in 1..n where d6 <= v)
        formula top(k: int, n: int) -> list of int = best k of [d6 for i in 1..n]
        formula low(n: int) -> int = min(d4 for i in 1..n)
        formula sum_dice(n: int) -> int = sum(d6 for i in 1..n)
        formula sum_list(n: int) -> int = sum([d6 for i in 1..n])
        formula max_list(n: int) -> int = max([d4 for i in 1..n])
        formula sixes_list(n: int) -> int = count([i for i in 1..n where d6 == 6])
        formula capped(n: int, cap: int) -> int = min(cap, sum(d6 for i in 1..n))
        formula both(v: int) -> bool = d6 <= v and d6 <= v
        formula avg() -> number = expected(2d6)
        formula mixed_hits(vs: list of int) -> int = count(v for v in vs for i in 1..2 where v > 1 and d6 <= v)
        formula kept_hits(n: int, v: int) -> int = count(i for i in 1..n where d6 <= v)
        formula kept_left(v: int) -> int = if 7 - v >= d6 then 1 else 0
    """,
}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    root = tmp_path_factory.mktemp("exact")
    _, loaded = load(root, RULES)
    assert loaded.ok, loaded.diagnostics
    return loaded.compiled


def exact(compiled, name, *args):
    ctx = EvalContext(compiled, Host(0))
    return dict(compiled.exact_callable(name)(ctx, *args).to_dist().outcomes)


def brute(n_dice, sides, f):
    counts = Counter(f(rolls) for rolls in itertools.product(range(1, sides + 1), repeat=n_dice))
    total = sides ** n_dice
    return {v: Fraction(c, total) for v, c in counts.items()}


def _hit(r, v):
    return r if r <= v else 0


@given(n=st.integers(1, 4), v=st.integers(0, 6))
@settings(max_examples=25, deadline=None)
def test_best_surface_roll(compiled, n, v):
    assert exact(compiled, "surface", n, v) == brute(n, 6, lambda rs: max(_hit(r, v) for r in rs))


@pytest.mark.parametrize("m", [1, 2])
def test_best_three_submarine_rolls(compiled, m):
    want = brute(3 * m, 6, lambda rs: sum(sorted((_hit(r, 2) for r in rs), reverse=True)[:3]))
    assert exact(compiled, "subs", m) == want


def test_one_sea_zone_battleship_fighter_two_submarines(compiled):
    # surface units: battleship (4) and fighter (3) share one best roll; here both hit on 4 or 3.
    want = brute(1 + 6, 6, lambda rs: _hit(rs[0], 4) + sum(sorted((_hit(r, 2) for r in rs[1:]), reverse=True)[:3]))
    assert exact(compiled, "zone", 1, 4, 2) == want


@given(dds=st.integers(0, 4), value=st.integers(0, 6))
@settings(max_examples=25, deadline=None)
def test_detection(compiled, dds, value):
    want = brute(dds, 6, lambda rs: any(r <= value for r in rs)) if dds else {False: Fraction(1)}
    assert exact(compiled, "detected", dds, value) == want


def test_detection_values_of_the_destroyer_example(compiled):
    assert exact(compiled, "detected", 3, 3)[True] == Fraction(7, 8)
    assert exact(compiled, "detected", 1, 5)[True] == Fraction(5, 6)


@given(n=st.integers(0, 5), v=st.integers(1, 6))
@settings(max_examples=20, deadline=None)
def test_hit_counts_are_binomial(compiled, n, v):
    want = brute(n, 6, lambda rs: sum(r <= v for r in rs)) if n else {0: Fraction(1)}
    assert exact(compiled, "hits", n, v) == want


@pytest.mark.parametrize("k,n", [(1, 3), (2, 4), (3, 5), (4, 4), (0, 3)])
def test_best_k_as_lists(compiled, k, n):
    assert exact(compiled, "top", k, n) == brute(n, 6, lambda rs: tuple(sorted(rs, reverse=True)[:k]))


def test_min_of_d4(compiled):
    assert exact(compiled, "low", 3) == brute(3, 4, min)


def test_sums_and_caps(compiled):
    assert exact(compiled, "sum_dice", 4) == brute(4, 6, sum)
    assert exact(compiled, "capped", 3, 10) == brute(3, 6, lambda rs: min(10, sum(rs)))


def test_aggregates_of_dice_lists_are_folded_like_generators(compiled):
    assert exact(compiled, "sum_list", 4) == brute(4, 6, sum)
    assert exact(compiled, "max_list", 3) == brute(3, 4, max)
    assert exact(compiled, "sixes_list", 3) == brute(3, 6, lambda rs: rs.count(6))
    # the list form once enumerated every list of rolls (E511 from 7 dice); folded, 30 dice are quick
    assert exact(compiled, "sum_list", 30) == exact(compiled, "sum_dice", 30)


def test_the_record_of_rolls_keeps_the_latest(compiled):
    host = Host(3)
    ctx = EvalContext(compiled, host)
    fn = compiled.callable("sum_dice")
    for _ in range(MAX_KEPT_ROLLS // 500 + 1):
        fn(ctx, 500)
        host.reset_budget()
    assert len(host.rolls) == MAX_KEPT_ROLLS
    assert host.rolls[-1].where.endswith(":12:39")  # the d6 of sum_dice


def test_two_rolls_are_independent(compiled):
    assert exact(compiled, "both", 3) == {True: Fraction(1, 4), False: Fraction(3, 4)}


def test_expected_value_is_exact(compiled):
    ctx = EvalContext(compiled, Host(0))
    assert compiled.callable("avg")(ctx) == 7


def test_sampling_follows_the_exact_distribution(compiled):
    ctx = EvalContext(compiled, Host(12345))
    fn = compiled.callable("zone")
    n = 4000
    counts = Counter(fn(ctx, 1, 4, 2) for _ in range(n))
    want = exact(compiled, "zone", 1, 4, 2)
    # every sampled value is possible, and the mean is within a few standard errors
    assert set(counts) <= set(want)
    mean = sum(float(v * p) for v, p in want.items())
    var = sum(float(p) * (v - mean) ** 2 for v, p in want.items())
    sample_mean = sum(v * c for v, c in counts.items()) / n
    assert abs(sample_mean - mean) < 4 * (var / n) ** 0.5


def test_every_sampled_roll_is_recorded(compiled):
    host = Host(3)
    ctx = EvalContext(compiled, host)
    compiled.callable("zone")(ctx, 2, 4, 1)
    assert len(host.rolls) == 2 + 3
    assert all(r.sides == 6 and 1 <= r.value <= 6 and r.where.endswith(":3:13") for r in host.rolls)


@given(vs=st.lists(st.integers(0, 6), max_size=3))
@settings(max_examples=20, deadline=None)
def test_counted_dice_of_several_values_are_a_sum_of_bernoulli_trials(compiled, vs):
    # each value with a die of its own (two dice each), and values of 1 or less left out before any die
    rolled = [v for v in vs for _ in range(2) if v > 1]
    want = brute(len(rolled), 6, lambda rs: sum(r <= v for r, v in zip(rs, rolled))) if rolled else {0: Fraction(1)}
    assert exact(compiled, "mixed_hits", tuple(vs)) == want


class _Spent:
    """A context whose host notes the budget charged."""

    def __init__(self):
        self.host = self
        self.charged: list = []

    def spend(self, span, work=1):
        self.charged.append(work)


@given(trials=st.lists(st.tuples(st.integers(1, 6), st.integers(0, 6)), max_size=8))
@settings(max_examples=40, deadline=None)
def test_counting_gives_the_folds_distribution_and_charges(trials):
    # X.Counting against a fold step and a mixture per element (what a count folded element by
    # element does): the same weights in the same order, the same total, the same charges
    from ruleslang.lang.eval import exact as X

    folded_ctx, counted_ctx = _Spent(), _Spent()
    fold = X.Fold(0, lambda s, v: s + 1)
    acc = X.point(0)
    counting = X.Counting()
    for total, w_true in trials:
        w_true = min(w_true, total)
        if not w_true:
            continue
        taken = X.fold_step(acc, X.point("unit"), fold, folded_ctx, None)
        acc = X.mixture([(total - w_true, total, acc), (w_true, total, taken)], folded_ctx, None)
        counting.trial(w_true, total, counted_ctx, None)
    counted = counting.result()
    assert list(counted.weights.items()) == list(acc.weights.items())
    assert counted.total == acc.total
    assert counted_ctx.charged == folded_ctx.charged


def test_a_die_compared_with_a_value_is_worked_out_once_per_value(compiled):
    # `d6 <= v` keeps its distribution per value v (ExactCompiler._die_against): evaluated again,
    # the same distribution, and the same work charged to the budget as the first time (the die's
    # own distribution is worked out at its first evaluation, as before: made here first)
    compiled.exact_callable("kept_hits")(EvalContext(compiled, Host(0)), 1, 100)
    for v in range(-1, 8):
        runs = []
        for _ in range(2):
            host = Host(0)
            host.reset_budget()
            found = compiled.exact_callable("kept_hits")(EvalContext(compiled, host), 3, v)
            runs.append((dict(found.to_dist().outcomes), host.budget - host.steps))
        assert runs[0] == runs[1]
        assert runs[0][0] == brute(3, 6, lambda rs: sum(r <= v for r in rs))
    assert exact(compiled, "kept_left", 2) == {1: Fraction(5, 6), 0: Fraction(1, 6)}  # the die on the right


@pytest.mark.parametrize("name, args", [("hits", (3, 2)), ("sum_dice", (3,)), ("mixed_hits", ([1, 2, 3],))])
def test_an_exact_fold_leaves_no_cycle_holding_its_context(compiled, name, args, collector_paused):
    # a fold's element loop calls itself through its closure: left as a cycle, it kept the run's
    # frame values and context (in the exact battle chain, a step's whole world: the chain's board
    # copy) until the cyclic collector's next pass
    import weakref

    ctx = EvalContext(compiled, Host(0))
    assert compiled.exact_callable(name)(ctx, *args).to_dist().outcomes
    alive = weakref.ref(ctx)
    del ctx
    assert alive() is None
