"""Exact battle odds (`ruleslang odds`, runtime/odds/): checked against an independent calculator,
house rules that change a step change the odds, steps the chain cannot follow are refused (how the
chain follows the steps: tests/test_odds_steps.py)."""

from __future__ import annotations

import gc
import json
import weakref
from fractions import Fraction
from functools import lru_cache
from math import comb

import pytest

from conftest import write_rulesets
from ruleslang.base.errors import EvalError
from ruleslang.cli.app import main
from ruleslang.runtime.decisions import Decision
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.kit.casualties import casualty_order, cheapest_rank, keep_rank, listed_rank
from ruleslang.runtime.odds.chain import (ATTACKER_WINS, BOTH_DESTROYED, DEFENDER_HOLDS, STALEMATE, BattleSpec,
                                          CasualtyPolicy, Chain, LateRound)
from ruleslang.runtime.odds.sample import sample_battle
from odds_fixtures import LAND, Casualty as _U, base_game, make_game as _game, odds as _odds  # noqa: F401,F811 (base_game: a pytest fixture, used by name)


# ---------------------------------------------------------------------- an independent calculator


def _binomial(n: int, k: int, p: Fraction) -> Fraction:
    return comb(n, k) * p ** k * (1 - p) ** (n - k)


def hand_land_battle(attackers: int, defenders: int, attack: int, defense: int):
    """Attackers all hitting on `attack` or less against defenders hitting on `defense`, both sides
    firing each round, casualties removed at its end, until one side is gone: (attacker wins,
    defender holds, both destroyed, expected rounds) as fractions."""
    pa, pd = Fraction(attack, 6), Fraction(defense, 6)

    @lru_cache(maxsize=None)
    def solve(a: int, d: int):
        if a == 0 or d == 0:
            return (Fraction(int(d == 0 and a > 0)), Fraction(int(a == 0 and d > 0)), Fraction(int(a == d == 0)),
                    Fraction(0))
        stay = _binomial(a, 0, pa) * _binomial(d, 0, pd)
        total = [Fraction(0)] * 4
        for i in range(a + 1):
            for j in range(d + 1):
                if i == 0 and j == 0:
                    continue
                q = _binomial(a, i, pa) * _binomial(d, j, pd)
                sub = solve(max(a - j, 0), max(d - i, 0))
                for n in range(4):
                    total[n] += q * sub[n]
        total[3] += 1
        return tuple(x / (1 - stay) for x in total)
    return solve(attackers, defenders)


@pytest.mark.parametrize("a, d", [(1, 1), (2, 2), (3, 3), (3, 1), (1, 3)])
def test_exact_odds_agree_with_an_independent_calculation(base_game, a, d):
    result = _odds(base_game, {"infantry": a}, {"infantry": d})
    won, held, both, rounds = hand_land_battle(a, d, 1, 2)
    assert result.outcome(ATTACKER_WINS) == won
    assert result.outcome(DEFENDER_HOLDS) == held
    assert result.outcome(BOTH_DESTROYED) == both
    assert result.rounds == rounds
    assert result.taken == won
    assert sum(result.ends.values()) == 1


def test_one_against_one_in_known_fractions(base_game):
    result = _odds(base_game, {"infantry": 1}, {"infantry": 1})
    # per round: 1/6 * 4/6 the attacker wins, 5/6 * 2/6 the defender, 1/6 * 2/6 both; 20/36 neither
    assert result.outcome(ATTACKER_WINS) == Fraction(1, 4)
    assert result.outcome(DEFENDER_HOLDS) == Fraction(5, 8)
    assert result.outcome(BOTH_DESTROYED) == Fraction(1, 8)
    assert result.rounds == Fraction(9, 4)


def test_float_mode_gives_the_same_figures(base_game):
    exact = _odds(base_game, {"infantry": 3, "artillery": 1}, {"infantry": 2, "armour": 1})
    quick = _odds(base_game, {"infantry": 3, "artillery": 1}, {"infantry": 2, "armour": 1}, exact=False)
    for kind in (ATTACKER_WINS, DEFENDER_HOLDS, BOTH_DESTROYED):
        assert isinstance(quick.outcome(kind), float)
        assert quick.outcome(kind) == pytest.approx(float(exact.outcome(kind)), abs=1e-12)


@pytest.mark.parametrize("space, attacking, defending, defender, came_from", [
    (LAND, {"infantry": 2, "artillery": 1}, {"infantry": 2}, "Russians", ["Eastern Europe"]),
    ("12 Sea Zone", {"submarine": 2, "destroyer": 1}, {"destroyer": 1, "submarine": 1}, "Americans", []),
])
def test_a_dropped_chain_is_freed_without_the_garbage_collector(base_game, space, attacking, defending, defender,
                                                                came_from, collector_paused):
    # a chain keeps all it worked out; in a cycle, each chain an agent drops would wait for (and
    # cost) a collection of its own objects: the battle steps' `for` loops and hooks, the host's
    # link to its chain and the kept results' projection are not cycles
    chain = Chain(base_game, BattleSpec(space, "Germans", attacking, defending, defender, came_from),
                  exact=False, retreat_below=0.35 if came_from else None)
    assert sum(chain.solve().ends.values()) == pytest.approx(1)
    assert not gc.isenabled()  # as it was before the solve (the solve pauses it and puts it back)
    alive = weakref.ref(chain)
    del chain
    assert alive() is None


@pytest.mark.parametrize("space, attacking, defending, defender", [
    (LAND, {"infantry": 2, "artillery": 1}, {"infantry": 2}, "Russians"),
    ("12 Sea Zone", {"submarine": 2, "destroyer": 1}, {"destroyer": 1, "submarine": 1}, "Americans"),
])
def test_a_closed_chain_frees_its_host_and_board_without_the_garbage_collector(base_game, space, attacking,
                                                                              defending, defender, collector_paused):
    # the host is in cycles (its context names it as the game, its settings name the context):
    # an agent's chain, closed once solved, frees its host, context and board copy as it is
    # dropped, where they waited for (and cost) a collection after every query (`Chain.close`)
    chain = Chain(base_game, BattleSpec(space, "Germans", attacking, defending, defender), exact=False)
    result = chain.solve()
    host, ctx, board = weakref.ref(chain.host), weakref.ref(chain.ctx), weakref.ref(chain.host.state)
    chain.close()
    del chain
    assert host() is None and ctx() is None and board() is None
    assert sum(result.ends.values()) == pytest.approx(1)  # the result holds none of them


def test_artillery_raises_the_attack_of_infantry(base_game):
    # artillery pairs with one infantry each: the infantry hit on 2 (aar/base@1's attacker_fire step)
    plain = _odds(base_game, {"infantry": 2}, {"infantry": 1})
    supported = _odds(base_game, {"infantry": 1, "artillery": 1}, {"infantry": 1})
    won, _, _, _ = hand_land_battle(2, 1, 2, 2)
    assert supported.outcome(ATTACKER_WINS) == won
    assert supported.outcome(ATTACKER_WINS) > plain.outcome(ATTACKER_WINS)


def test_round_limit(base_game):
    one = _odds(base_game, {"infantry": 1}, {"infantry": 1}, round_limit=1)
    assert one.outcome(ATTACKER_WINS) == Fraction(4, 36)
    assert one.outcome("round limit") == Fraction(20, 36)
    assert one.rounds == 1


def test_a_stalemate_is_detected():
    # aircraft against a submarine: the submarine cannot hit aircraft, aircraft cannot hit a
    # submarine without a destroyer of their side
    result = _odds(_game(), {"fighter": 1}, {"submarine": 1}, space="12 Sea Zone", defender="Americans")
    assert result.outcome(STALEMATE) == 1


def test_a_house_rule_that_changes_a_value_changes_the_odds(tmp_path, base_game):
    write_rulesets(tmp_path, {"house/strong-defence@1": """
        ruleset house/strong-defence@1
        uses aar/base@1
        override unit infantry:
            defense: 3
    """})
    game = _game(["house/strong-defence@1"], [tmp_path])
    before = _odds(base_game, {"infantry": 2}, {"infantry": 2})
    after = _odds(game, {"infantry": 2}, {"infantry": 2})
    assert after.outcome(ATTACKER_WINS) < before.outcome(ATTACKER_WINS)
    assert after.outcome(ATTACKER_WINS) == hand_land_battle(2, 2, 1, 3)[0]


def test_a_step_that_changes_the_game_outside_the_battle_is_refused(tmp_path):
    write_rulesets(tmp_path, {"house/tribute@1": """
        ruleset house/tribute@1
        uses aar/base@1
        hook tribute after defender_fire:
            change treasury(defender()) by 1
    """})
    game = _game(["house/tribute@1"], [tmp_path])
    with pytest.raises(EvalError) as caught:
        _odds(game, {"infantry": 1}, {"infantry": 1})
    assert caught.value.code == "E546"
    assert caught.value.span.line == 4 and "change treasury(defender()) by 1" in caught.value.message


def test_counters_the_steps_write_are_part_of_the_state(tmp_path):
    # the attacker scores one sure hit in the battle's first fire, then none: what it remembers
    # is a counter, which the chain follows from state to state
    write_rulesets(tmp_path, {"house/once@1": """
        ruleset house/once@1
        uses aar/base@1
        counter fired_once() -> bool = false
        override step attacker_fire:
            if not fired_once:
                hit 1 of battle_units("defender") by defender()
                set fired_once to true
    """})
    game = _game(["house/once@1"], [tmp_path])
    result = _odds(game, {"infantry": 1}, {"infantry": 2})
    assert result.outcome(DEFENDER_HOLDS) == 1
    [(kind, survivors)] = result.ends
    assert survivors == (((("defender", "infantry", "Russians", 0)), 1),)


def test_a_counter_keyed_by_a_unit_of_the_battle_stays_with_that_unit(tmp_path):
    # an attacking unit hits for sure from the round after its first: the mark is a counter keyed
    # by the unit's id, which the chain keeps with the unit's record from state to state
    write_rulesets(tmp_path, {"house/veteran@1": """
        ruleset house/veteran@1
        uses aar/base@1
        counter veteran(unit_id: int) -> bool = false
        override step attacker_fire:
            for u in battle_units("attacker"):
                if veteran(u.id):
                    hit 1 of battle_units("defender") by defender()
                set veteran(u.id) to true
    """})
    game = _game(["house/veteran@1"], [tmp_path])
    result = _odds(game, {"infantry": 1}, {"infantry": 2})
    # it must outlive three rounds of the defenders' fire (two dice, two dice, one die at 2)
    assert result.outcome(ATTACKER_WINS) == Fraction(4, 9) * Fraction(4, 9) * Fraction(2, 3)
    assert result.outcome(BOTH_DESTROYED) == Fraction(4, 9) * Fraction(4, 9) * Fraction(1, 3)


def test_a_rule_that_tells_later_rounds_apart_is_refused(tmp_path):
    write_rulesets(tmp_path, {"house/third@1": """
        ruleset house/third@1
        uses aar/base@1
        hook third_round before attacker_fire when battle_round() == 3:
            log "the third round"
    """})
    game = _game(["house/third@1"], [tmp_path])
    with pytest.raises(EvalError) as caught:
        _odds(game, {"infantry": 1}, {"infantry": 1})
    assert caught.value.code == "E546"


def test_the_later_round_compares_with_one_only():
    late = LateRound()
    assert not late == 1 and late != 1 and late > 1 and late >= 2 and not late < 2 and not late <= 1
    with pytest.raises(EvalError):
        late == 3
    with pytest.raises(EvalError):
        late + 1


def test_sampling_the_real_battle_agrees(base_game):
    exact = _odds(base_game, {"infantry": 2, "armour": 1}, {"infantry": 2})
    sampled = sample_battle(_game(), BattleSpec(LAND, "Germans", {"infantry": 2, "armour": 1}, {"infantry": 2},
                                                "Russians"), 400, seed=3)
    p = sampled.outcome(ATTACKER_WINS)
    assert abs(p - float(exact.outcome(ATTACKER_WINS))) <= sampled.interval(p) * 1.5
    assert sampled.trials == 400


# ---------------------------------------------------------------------- casualties


def test_a_unit_with_hit_points_to_spare_absorbs_one_hit_not_two():
    big, small = _U(1, "big", 24), _U(2, "small", 3)
    room = {1: 2, 2: 1}
    order = casualty_order([big, small], room, 2, rank=cheapest_rank(lambda u: u.cost))
    assert order == [1, 2]  # one hit on the big unit, the next destroys the cheap one
    assert casualty_order([big, small], room, 1, rank=cheapest_rank(lambda u: u.cost)) == [1]
    assert casualty_order([big, small], room, 3, rank=cheapest_rank(lambda u: u.cost)) == [1, 2, 1]


def test_listed_and_keep_orders():
    a, b, c = _U(1, "x", 3), _U(2, "y", 5), _U(3, "z", 10)
    room = {1: 1, 2: 1, 3: 1}
    assert casualty_order([a, b, c], room, 2, rank=listed_rank(["z", "y"], lambda u: u.cost)) == [3, 2]
    keep = keep_rank(lambda u: u.type != "z", [a, b, c], lambda u: u.cost)
    assert casualty_order([a, b, c], room, 2, rank=keep) == [1, 3]


def test_the_heuristic_agent_lets_a_two_hit_unit_absorb_one_hit(base_game):
    chain = Chain(base_game, BattleSpec("12 Sea Zone", "Germans", {"battleship": 1, "submarine": 1},
                                        {"destroyer": 1}, "Americans"))
    host = chain.host
    ids = list(chain.battle.attacking)
    room = {uid: host.hit_points(host.unit_or_none(uid)) for uid in ids}
    decision = Decision("casualties", "Germans", "2 hits", options=ids, mode="exactly", count=2,
                        context={"room": room, "battle": chain.battle})
    chosen = HeuristicAgent(1, "Germans").decide(decision, host)
    kinds = sorted(host.unit_or_none(uid).type for uid in chosen)
    assert kinds == ["battleship", "submarine"]


def test_the_runtime_default_lets_a_two_hit_unit_absorb_one_hit(base_game):
    # an agent that never answers: the battle falls back to the runtime's default choice
    chain = Chain(base_game, BattleSpec("12 Sea Zone", "Germans", {"battleship": 1, "submarine": 1},
                                        {"destroyer": 1}, "Americans"))
    host, battle = chain.host, chain.battle
    host.ask = lambda decision, check, fallback: fallback()
    battle.hit(host.ctx, 2, list(battle.attacking), "Germans", False)
    hits = sorted((host.unit_or_none(uid).type, host.unit_or_none(uid).hits) for uid in battle.attacking)
    assert hits == [("battleship", 1), ("submarine", 1)]
    assert [host.unit_or_none(uid).type for uid in battle.pending] == ["submarine"]


def test_the_chain_keeps_a_damaged_two_hit_unit(base_game):
    result = _odds(base_game, {"battleship": 1}, {"destroyer": 1}, space="12 Sea Zone", defender="Americans")
    damaged = sum(p for (kind, survivors), p in result.ends.items()
                  if any(s == "attacker" and hits == 1 for (s, _t, _o, hits), _n in survivors))
    assert result.outcome(ATTACKER_WINS) > Fraction(1, 2) and damaged > 0


def test_keep_attackers_keeps_a_unit_that_takes_the_territory(base_game):
    cheapest = _odds(base_game, {"infantry": 1, "fighter": 1}, {"infantry": 1})
    keep = _odds(base_game, {"infantry": 1, "fighter": 1}, {"infantry": 1},
                 policies={"attacker": CasualtyPolicy("keep-attackers")})
    assert keep.taken > cheapest.taken


# ---------------------------------------------------------------------- the command


def test_the_command_prints_the_odds(capsys):
    assert main(["odds", "--ruleset", "aar/base@1", "--at", LAND, "--attacker", "Germans", "1 infantry",
                 "--defender-units", "1 infantry"]) == 0
    out = capsys.readouterr().out
    assert "attacker wins" in out and "25.00%" in out and "expected rounds: 2.25" in out


def test_the_distribution_table_keeps_its_columns_under_long_sides(capsys):
    assert main(["odds", "--ruleset", "aar/base@1", "--at", LAND, "--attacker", "Germans",
                 "6 infantry, 2 armour, 2 fighter, 1 artillery", "--defender-units", "1 infantry, 1 fighter"]) == 0
    lines = capsys.readouterr().out.splitlines()
    table = lines[lines.index("what is left:") + 1:]
    column, end = table[0].index("defender left"), table[0].index("end")
    assert len(table) > 3
    # every row's end and defender entry start under their headings (after a gap)
    assert all(row[end - 2:end] == row[column - 2:column] == "  " and " " != row[end] and " " != row[column]
               for row in table[1:]), table[:4]


def test_the_command_gives_json_with_fractions(capsys):
    assert main(["odds", "--ruleset", "aar/base@1", "--at", LAND, "--attacker", "Germans", "1 infantry",
                 "--defender-units", "1 infantry", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["outcomes"]["attacker wins"] == {"float": 0.25, "fraction": "1/4"}
    assert data["expected_rounds"]["fraction"] == "9/4"
    assert sum(float(Fraction(d["probability"]["fraction"])) for d in data["distribution"]) == pytest.approx(1)


@pytest.mark.parametrize("argv, code", [
    (["--at", LAND, "--attacker", "Germans", "3 infantri"], "U116"),
    (["--at", "Karelia", "--attacker", "Germans", "3 infantry"], "U117"),
    (["--at", LAND, "--attacker", "Germanz", "3 infantry"], "U118"),
    (["--at", "Ukraine S.S.R.", "--attacker", "Germans", "3 infantry"], "U118"),  # their own territory
    (["--at", LAND, "--attacker", "Germans", ","], "U115"),
])
def test_bad_input_is_a_located_diagnostic(capsys, argv, code):
    assert main(["odds", "--ruleset", "aar/base@1", "--format", "json", *argv]) == 2
    [diag] = json.loads(capsys.readouterr().out)["diagnostics"]
    assert diag["code"] == code and diag["line"] == 1


def test_a_rolled_value_read_twice_is_one_value(tmp_path):
    # both hits come from the same roll: the defenders lose none or both, never one
    write_rulesets(tmp_path, {"house/twice@1": """
        ruleset house/twice@1
        uses aar/base@1
        override step attacker_fire:
            let a = count(u for u in battle_units("attacker") where d6 <= 3)
            hit a of battle_units("defender") by defender()
            hit a of battle_units("defender") by defender()
    """})
    game = _game(["house/twice@1"], [tmp_path])
    result = _odds(game, {"infantry": 1}, {"infantry": 2}, round_limit=1)
    left = {}
    for (_kind, survivors), p in result.ends.items():
        n = sum(count for (side, *_), count in survivors if side == "defender")
        left[n] = left.get(n, 0) + p
    assert left == {0: Fraction(1, 2), 2: Fraction(1, 2)}


def test_rolled_values_added_up_are_followed_by_their_sum(base_game):
    # the attacker's fire adds up three rolled counts: one hit per distinct sum, not per combination
    chain = Chain(base_game, BattleSpec(LAND, "Germans", {"infantry": 3, "artillery": 1, "armour": 2},
                                        {"infantry": 3}, "Russians"))
    calls = []
    original = chain.battle.hit
    chain.battle.hit = lambda *args: (calls.append(args[1]), original(*args))
    chain._materialize(chain.initial, 1)
    outcomes = {}
    chain._in_world(chain.branching.run_procedure, chain.ctx, "attacker_fire", Fraction(1),
                    lambda p: outcomes.__setitem__(chain._key(), outcomes.get(chain._key(), 0) + p))
    assert sum(outcomes.values()) == 1
    assert len(calls) <= 2 * 7  # two hit statements, at most 7 distinct counts (0..6 dice)


def test_a_retreat_threshold(base_game):
    spec = BattleSpec(LAND, "Germans", {"infantry": 1}, {"infantry": 1}, "Russians", ["Eastern Europe"])
    never = Chain(base_game, spec).solve()
    assert never.outcome("attacker retreats") == 0
    # below a sure win, the attacker leaves after the first round whenever both sides still stand
    always = Chain(base_game, spec, retreat_below=Fraction(1)).solve()
    assert always.outcome("attacker retreats") == Fraction(20, 36)
    assert always.outcome(ATTACKER_WINS) == Fraction(4, 36)
    assert always.outcome(DEFENDER_HOLDS) == Fraction(10, 36)
    survivors = {s for (kind, s) in always.ends if kind == "attacker retreats"}
    assert survivors == {((("attacker", "infantry", "Germans", 0), 1), (("defender", "infantry", "Russians", 0), 1))}


def _hand_round(infantry: int, armour: int, defenders: int) -> dict:
    """One round of Germans' infantry (hitting on 1) and armour (3) against Russian infantry (2):
    the next states (infantry, armour, defenders) with their chances; the attacker loses its
    infantry first."""
    def hits(dice):  # the distribution of the hits of independent dice, each (chance)
        dist = {0: Fraction(1)}
        for p in dice:
            out: dict = {}
            for n, q in dist.items():
                out[n + 1] = out.get(n + 1, 0) + q * p
                out[n] = out.get(n, 0) + q * (1 - p)
            dist = out
        return dist
    attack = hits([Fraction(1, 6)] * infantry + [Fraction(3, 6)] * armour)
    defence = hits([Fraction(2, 6)] * defenders)
    out: dict = {}
    for i, p in attack.items():
        for j, q in defence.items():
            lost_infantry = min(j, infantry)
            state = (infantry - lost_infantry, max(armour - (j - lost_infantry), 0), max(defenders - i, 0))
            out[state] = out.get(state, 0) + p * q
    return out


def _hand_threshold_policy(start: tuple, below: Fraction, own_value: bool) -> tuple:
    """(attacker wins, attacker retreats) of the battle of `_hand_round` from `start` when the
    attacker, after each round with both sides standing, retreats if its chance to win from there
    is below `below`: that chance under the same policy (`own_value`, optimal stopping) or
    fighting on without ever retreating. By value iteration over the states: a round only loses
    units, so the values of every state with fewer units are known before the state's own."""
    states = sorted({(i, a, d) for i in range(start[0] + 1) for a in range(start[1] + 1)
                     for d in range(start[2] + 1)}, key=sum)
    never: dict = {}
    policy: dict = {}  # state -> (chance to win, chance to retreat), fighting its next round
    for s in states:
        if s[2] == 0:
            never[s] = policy[s] = (Fraction(int(s[0] + s[1] > 0)), Fraction(0))
            continue
        if s[0] + s[1] == 0:
            never[s] = policy[s] = (Fraction(0), Fraction(0))
            continue
        trans = _hand_round(*s)
        stay = trans.get(s, 0)
        win_never = sum(q * never[t][0] for t, q in trans.items() if t != s) / (1 - stay)
        never[s] = (win_never, Fraction(0))
        win = retreat = Fraction(0)
        for t, q in trans.items():
            if t == s:
                continue
            live = t[2] > 0 and t[0] + t[1] > 0
            judge = (policy[t][0] if own_value else never[t][0])
            if live and judge < below:
                retreat += q
            else:
                win += q * policy[t][0]
                retreat += q * policy[t][1]
        policy[s] = (win / (1 - stay), retreat / (1 - stay))
    # the first round is always fought; then the question is asked in the state it left
    win = retreat = Fraction(0)
    for t, q in _hand_round(*start).items():
        live = t[2] > 0 and t[0] + t[1] > 0
        if live and (policy[t][0] if own_value else never[t][0]) < below:
            retreat += q
        else:
            win += q * policy[t][0]
            retreat += q * policy[t][1]
    return win, retreat


def test_the_retreat_threshold_compares_the_policys_own_chance(base_game):
    # optimal stopping: the chance that the threshold compares is the chance to win fighting on
    # and following the same threshold later (later retreats lower it), not the chance of never
    # retreating; checked against value iteration over the battle's states, exactly
    start = (2, 1, 3)
    spec = BattleSpec(LAND, "Germans", {"infantry": 2, "armour": 1}, {"infantry": 3}, "Russians", ["Eastern Europe"])
    below = Fraction(2, 5)
    own = _hand_threshold_policy(start, below, own_value=True)
    fight_on = _hand_threshold_policy(start, below, own_value=False)
    assert own != fight_on  # the two readings differ in this battle
    result = Chain(base_game, spec, retreat_below=below).solve()
    assert (result.outcome(ATTACKER_WINS), result.outcome("attacker retreats")) == own
    # floats: the same policy
    floats = Chain(base_game, spec, exact=False, retreat_below=float(below)).solve()
    assert floats.outcome(ATTACKER_WINS) == pytest.approx(float(own[0]), abs=1e-12)
    # never retreating, and a threshold of 0, are the battle without retreats
    never = Chain(base_game, spec).solve()
    zero = Chain(base_game, spec, retreat_below=Fraction(0)).solve()
    assert never.ends == zero.ends
    assert never.outcome(ATTACKER_WINS) == _hand_threshold_policy(start, Fraction(0), own_value=True)[0]
    assert never.outcome("attacker retreats") == 0


def test_the_command_takes_a_retreat_threshold(capsys):
    argv = ["odds", "--ruleset", "aar/base@1", "--at", LAND, "--attacker", "Germans", "3 infantry",
            "--defender-units", "3 infantry", "--from", "Eastern Europe", "--retreat-below", "0.5", "--format", "json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["outcomes"]["attacker retreats"]["float"] > 0.5
    assert main(argv[:-3] + ["2", "--format", "json"]) == 2
    assert json.loads(capsys.readouterr().out)["diagnostics"][0]["code"] == "U115"
