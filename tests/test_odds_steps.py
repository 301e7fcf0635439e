"""Exact battle odds (runtime/odds/): how the chain follows the rules' steps: transitions shared between
states, hits made after a step's statements, G40's kamikaze, rounds in factors, and the generated code
against the closures (the odds themselves: tests/test_odds.py)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from conftest import write_rulesets
from ruleslang.base.errors import EvalError
from ruleslang.cli.app import main
from ruleslang.runtime.kit.casualties import casualty_order, cheapest_rank, keep_rank, listed_rank
from ruleslang.runtime.odds.chain import ATTACKER_WINS, DEFENDER_HOLDS, BattleSpec, CasualtyPolicy, Chain
from ruleslang.runtime.odds.sample import sample_battle
from ruleslang.runtime.odds.watch import StepWatch
from odds_fixtures import AT_WAR, LAND, Casualty as _U, base_game, make_game as _game  # noqa: F401,F811 (base_game: a pytest fixture, used by name)


# ---------------------------------------------------------------------- transitions shared between states


def _same_floats(ends: dict, others: dict) -> None:
    """The same ends, with the same probabilities but for the rounding of sums taken in another order."""
    assert ends.keys() == others.keys()
    for end, p in ends.items():
        assert p == pytest.approx(others[end], rel=1e-12, abs=1e-15)


def _both_ways(game, spec, **options):
    shared = Chain(game, spec, share=True, **options)
    alone = Chain(game, spec, share=False, **options)
    return shared, shared.solve(), alone, alone.solve()


@pytest.mark.parametrize("refs, spec", [
    (("aar/base@1",), BattleSpec(LAND, "Germans", {"infantry": 2, "artillery": 1, "armour": 1},
                                 {"infantry": 3, "armour": 1}, "Russians", ["Eastern Europe"])),
    (("aar/base@1",), BattleSpec("12 Sea Zone", "Germans", {"battleship": 1, "submarine": 1},
                                 {"battleship": 1, "destroyer": 1}, "Americans")),
    (("aa50/base@1", "aa50/sub-detection@1"), BattleSpec("12 Sea Zone", "Germans", {"submarine": 2},
                                                         {"destroyer": 1, "submarine": 1}, "Americans")),
    # the bombardment reads the round: its first round's transition is not the later rounds'
    (("aar/base@1",), BattleSpec(LAND, "Germans", {"infantry": 1, "battleship": 1}, {"infantry": 2}, "Russians",
                                 [], "5 Sea Zone")),
])
def test_shared_transitions_give_the_same_fractions(refs, spec):
    shared, a, alone, b = _both_ways(_game(refs), spec)
    assert a.ends == b.ends and a.taken == b.taken and a.rounds == b.rounds
    assert shared.step_runs <= alone.step_runs


HEAVY_BOMBERS = """format: 1
title: the start, Germany with heavy bombers and Russia with jet fighters
map: aar
counters:
  developed:
    Germans:
      heavy_bombers: true
    Russians:
      jet_power: true
"""


@pytest.mark.parametrize("scenario", [None, HEAVY_BOMBERS])
def test_a_counter_keyed_by_no_unit_is_shared_by_the_states(scenario, monkeypatch):
    # the bomber's dice (`dice_of`) and the fighters' defence read a technology counter keyed by a
    # player: the states that agree on the rest share the fire steps' transitions (the counters the
    # battle wrote are in every state's key), with the same fractions as each state's own run
    game = _game(scenario_text=scenario)
    spec = BattleSpec(LAND, "Germans", {"infantry": 2, "fighter": 1, "bomber": 1}, {"infantry": 3, "fighter": 1},
                      "Russians")
    shared, a, alone, b = _both_ways(game, spec)
    assert a.ends == b.ends and a.taken == b.taken and a.rounds == b.rounds
    monkeypatch.setattr(Chain, "_shares_counters", lambda self: False)  # a counter read as everything
    whole = Chain(game, spec)
    assert whole.solve().ends == a.ends
    assert shared.step_runs < whole.step_runs


def test_a_step_is_run_once_per_what_it_read(base_game):
    # the round's last steps read the units that fight (not which are this round's casualties,
    # nor their hits), so they run about once per state at the start of a round, not once per
    # casualties of the round
    spec = BattleSpec(LAND, "Germans", {"infantry": 3, "armour": 2}, {"infantry": 3, "armour": 1}, "Russians")
    shared, a, alone, b = _both_ways(base_game, spec, exact=False)
    _same_floats(a.ends, b.ends)
    assert shared.step_runs * 4 < alone.step_runs


def _defender_fire(tmp_path, body: str):
    """A game of a house rule over aar/base@1 whose `defender_fire` step is `body`."""
    write_rulesets(tmp_path, {"house/fire@1": """
        ruleset house/fire@1
        uses aar/base@1
        override step defender_fire:
            BODY
    """.replace("BODY", body)})
    return _game(["house/fire@1"], [tmp_path])


def test_the_hits_of_a_fire_step_are_looked_up_by_the_side_hit(base_game):
    # a pair of sides takes a fire step's effect from the plan of the firing side and the hits
    # made on the side hit, kept by that side's number (Chain._made_on): each is made once
    spec = BattleSpec(LAND, "Germans", {"infantry": 3, "artillery": 1, "armour": 2}, {"infantry": 3, "armour": 2},
                      "Russians")
    shared, a, _alone, b = _both_ways(base_game, spec)
    assert a.ends == b.ends and a.rounds == b.rounds
    assert shared._made_on and not shared._unmade
    sides = {(index, number) for (_desc, _counters, index, number) in shared._made_on}
    assert {index for index, _ in sides} == {0, 1}  # both sides were hit, each looked up by its number
    for (_desc, _counters, index, number), (side, reads, after, _changes) in shared._made_on.items():
        assert side == index and {s for _kind, s in reads} == {("attacker", "defender")[index]}
        assert all(n is None or n != number for n, _p in after)  # None: the hits left the side as it was


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 12), st.integers(1, 3)), min_size=1, max_size=8), st.integers(0, 30),
       st.sampled_from(["cheapest", "listed", "keep"]))
def test_the_casualties_of_fewer_hits_are_the_first_of_those_of_more(rows, most, kind):
    # the chain makes a hit once for every count (Chain._every_count) on this: the casualties of
    # n hits are the first n of those of more hits, whatever the order's rank
    units = [_U(i, "t%d" % (cost % 3), cost) for i, (cost, _room) in enumerate(rows)]
    room = {u.id: r for u, (_cost, r) in zip(units, rows)}
    cost = lambda u: u.cost  # noqa: E731
    rank = {"cheapest": cheapest_rank(cost), "listed": listed_rank(["t2", "t0"], cost),
            "keep": keep_rank(lambda u: u.type != "t1", units, cost)}[kind]
    every = casualty_order(units, room, most, rank=rank)
    assert len(every) == min(most, sum(room.values()))
    for n in range(most + 1):
        assert casualty_order(units, room, n, rank=rank) == every[:n]


def _mixed_owners():
    # two defending powers share the zone: each chooses its own casualties (`casualties_by`)
    game = _game()
    game.state.add_units("12 Sea Zone", "battleship", "Americans", 1)
    game.state.add_units("12 Sea Zone", "destroyer", "British", 2)
    return game, BattleSpec("12 Sea Zone", "Germans", {"battleship": 1, "destroyer": 2, "submarine": 1})


@pytest.mark.parametrize("setup, options", [
    # two-hit battleships; submarines against no destroyer take their hits off at once (`now`)
    (lambda: (_game(), BattleSpec("12 Sea Zone", "Germans", {"battleship": 1, "submarine": 2},
                                  {"battleship": 1, "transport": 2}, "Americans")), {}),
    (_mixed_owners, {}),
    (lambda: (_game(), BattleSpec(LAND, "Germans", {"infantry": 2, "armour": 1, "fighter": 1}, {"infantry": 3},
                                  "Russians")), {"policies": {"attacker": CasualtyPolicy("keep-attackers")}}),
    (lambda: (_game(), BattleSpec(LAND, "Germans", {"infantry": 2, "armour": 2}, {"infantry": 2, "armour": 1},
                                  "Russians")), {"policies": {"attacker": CasualtyPolicy("list", ("armour",))}}),
])
def test_a_hit_is_made_once_for_every_count_on_a_side(setup, options):
    # the casualties of n hits on a side are the state after the first n casualties of a hit made
    # with as many hits as the side can take (Chain._families): the same fractions as each
    # state's own steps, with fewer hits made than counts looked up
    game, spec = setup()
    shared = Chain(game, spec, **options)
    made, asked = [], set()
    every_made, counted, make_counted = shared._every_made, shared._counted, shared._make_counted

    def count_made(hit, key, round_class, *most):
        made.append((hit.stmt, key))
        return every_made(hit, key, round_class, *most)

    def count_counted(desc, hits, key, *rest):
        asked.add((desc, key))
        return counted(desc, hits, key, *rest)

    def count_make_counted(desc, hit, key, *rest):
        asked.add((desc, key))
        return make_counted(desc, hit, key, *rest)
    shared._every_made, shared._counted, shared._make_counted = count_made, count_counted, count_make_counted
    a, b = shared.solve(), Chain(game, spec, share=False, **options).solve()
    assert a.ends == b.ends and a.taken == b.taken and a.rounds == b.rounds
    # (a count is asked once per side it hits: a joint round's steps look the making up by the
    # side's number too, `BattleFactors._joint_step`; made for each count, made == asked)
    assert made and len(made) < len(asked)


def test_a_hit_on_both_sides_at_once_is_made_for_each_count(tmp_path):
    # a hit whose casualties may fall on either side is not made once for every count (the
    # states after its casualties are written one side at a time): it is made for each count
    game = _defender_fire(tmp_path, """let hits = count(u for u in battle_units("defender") where d6 <= 2)
            hit hits of battle_units("attacker") + battle_units("defender") by attacker()""")
    spec = BattleSpec("12 Sea Zone", "Germans", {"destroyer": 2}, {"destroyer": 1, "battleship": 1}, "Americans")
    shared, a, _alone, b = _both_ways(game, spec)
    assert a.ends == b.ends and a.rounds == b.rounds
    assert shared._count_by_count and shared._uncounted


def test_chains_of_one_game_share_their_compiled_steps(base_game):
    # the steps' executors are compiled once per game; each chain is the world of its own runs,
    # also when one chain runs inside another's step (the chance to win, for the retreat threshold)
    spec = BattleSpec(LAND, "Germans", {"infantry": 2, "armour": 1}, {"infantry": 2}, "Russians", ["Eastern Europe"])
    first = Chain(base_game, spec)
    retreating = Chain(base_game, spec, retreat_below=Fraction(1, 2))
    assert first.branching is retreating.branching and first.branching.world is None
    with_threshold = retreating.solve()
    assert retreating._fight_on is not None and retreating._fight_on.branching is first.branching
    assert first.branching.world is None
    plain = first.solve()
    assert plain.ends == Chain(_game(), spec).solve().ends
    assert with_threshold.ends == Chain(_game(), spec, retreat_below=Fraction(1, 2)).solve().ends
    assert with_threshold.ends != plain.ends


@pytest.mark.parametrize("fire", [
    'let hits = count(u for u in battle_units("defender") where d6 <= (if u.hits > 0 then 1 else u.defense))',
    # the dice's distribution is kept under the units it reads from a local (`Chain.remember`);
    # the step that reuses it has read their hits all the same
    'let shooters = battle_units("defender")\n'
    '            let hits = count(u for u in shooters where d6 <= (if u.hits > 0 then 1 else u.defense))',
])
def test_a_step_that_reads_hits_tells_damaged_units_apart(tmp_path, fire):
    # a damaged battleship fires at 1: the transition of a step that reads hits is not shared
    # between states whose units differ only in their hits
    game = _defender_fire(tmp_path, fire + '\n            hit hits of battle_units("attacker") by attacker()')
    spec = BattleSpec("12 Sea Zone", "Germans", {"destroyer": 2}, {"battleship": 1}, "Americans")
    _shared, a, _alone, b = _both_ways(game, spec)
    assert a.ends == b.ends
    plain = Chain(_game(), spec).solve()
    assert a.outcome(ATTACKER_WINS) > plain.outcome(ATTACKER_WINS)


def test_aa50_artillery_opens_fire_from_an_adjacent_territory():
    # AA50's house rule: the attacker's artillery next to the battle fires once, at 2, before the
    # first round, its hits removed at once; then the battle is the plain one against what is left
    spec = BattleSpec(LAND, "Germans", {"infantry": 2, "artillery": 1}, {"infantry": 2}, "Russians")
    house = _game(["aa50/base@1", "aa50/artillery@1"])
    plain = _game(["aa50/base@1"])
    # at the start no German artillery stands next to Karelia: the house rule changes nothing
    assert Chain(house, spec).solve().outcome(ATTACKER_WINS) == Chain(plain, spec).solve().outcome(ATTACKER_WINS)
    house.state.add_units("Baltic States", "artillery", "Germans", 1)
    result = Chain(house, spec).solve()
    p = Fraction(2, 6)
    after_opening = [Chain(plain, BattleSpec(LAND, "Germans", {"infantry": 2, "artillery": 1}, {"infantry": 2 - h},
                                             "Russians")).solve().outcome(ATTACKER_WINS) for h in range(2)]
    assert result.outcome(ATTACKER_WINS) == (1 - p) * after_opening[0] + p * after_opening[1]


def test_each_sampled_battle_starts_from_the_board_as_it_was():
    # the boards of the sampled battles are copies; what the game and its context keep per board
    # version (the unit index, the counters) must not come from an earlier battle that passed
    # through the same version number: there, both artillery had fired already
    spec = BattleSpec(LAND, "Germans", {"infantry": 3, "artillery": 1}, {"infantry": 3}, "Russians")
    for trials in (2, 4):
        game = _game(["aa50/base@1", "aa50/artillery@1"])  # sampling leaves the game holding its last board
        game.state.add_units("Baltic States", "artillery", "Germans", 2)
        sample_battle(game, spec, trials, seed=11)
        opening = [r for r in game.host.rolls if r.span is not None and "artillery@1" in r.span.source.display_name]
        assert len(opening) == 2  # the last battle's opening fire: both pieces next to the battle


# ---------------------------------------------------------------------- hits made after the step's statements


def test_a_fire_step_runs_once_per_firing_side(base_game):
    # the fire steps' statements read the firing side's units (their dice), not the targets: they
    # run once per attacking (defending) composition at the start of a round, not once per state;
    # the casualties of n hits are made per side hit and reused (Chain._make)
    spec = BattleSpec(LAND, "Germans", {"infantry": 3, "artillery": 1, "armour": 2}, {"infantry": 3, "armour": 2},
                      "Russians")
    shared, a, alone, b = _both_ways(base_game, spec, exact=False)
    _same_floats(a.ends, b.ends)
    starts = [shared.key_of(k) for (k, _round) in shared._round_cache]
    attackers = {tuple(r for r in records if r[0] == "attacker") for records, _ in starts}
    defenders = {tuple(r for r in records if r[0] == "defender") for records, _ in starts}
    assert len(starts) > 2 * len(attackers)
    assert shared.runs["attacker_fire"] <= len(attackers)
    assert shared.runs["defender_fire"] <= len(defenders)
    assert alone.runs["attacker_fire"] >= len(starts) > 2 * shared.runs["attacker_fire"]


@pytest.mark.parametrize("fire", [
    # a statement reads the side after a hit that removed units at once: the step runs as it is
    'hit 1 of battle_units("attacker") by attacker() now\n'
    '            hit max(0, count(battle_units("attacker")) - 2) of battle_units("attacker") by attacker()',
    # a `let` left for later is read after a hit that changed what it reads
    'let targets = [u for u in battle_units("attacker") where u.hits == 0]\n'
    '            hit count(u for u in battle_units("defender") where d6 <= 2) of battle_units("attacker") by attacker()\n'
    '            hit 1 of targets by attacker()',
])
def test_a_step_whose_hits_cannot_wait_gives_the_same_fractions(tmp_path, fire):
    game = _defender_fire(tmp_path, fire)
    spec = BattleSpec("12 Sea Zone", "Germans", {"battleship": 1, "destroyer": 2}, {"battleship": 1, "destroyer": 1},
                      "Americans")
    _shared, a, _alone, b = _both_ways(game, spec)
    assert a.ends == b.ends and a.rounds == b.rounds
    assert a.ends != Chain(_game(), spec).solve().ends


def test_a_let_read_by_several_others_is_evaluated_once_in_a_run(tmp_path):
    # in a run whose hits wait nothing changes while its statements run: a `let` left for later
    # (`shooters`) is evaluated once, not again for each `let` that reads it (Branching._forced)
    game = _defender_fire(tmp_path, """let shooters = battle_units("defender")
            let many = count(shooters)
            let first = [u for u in shooters where u.defense > 0]
            let hits = count(u for u in first where d6 <= u.defense)
            hit min(hits, many) of battle_units("attacker") by attacker()""")
    spec = BattleSpec(LAND, "Germans", {"infantry": 2, "armour": 1}, {"infantry": 2, "armour": 1}, "Russians")
    chain = Chain(game, spec)
    asked = []
    units = chain.battle.units
    chain.battle.units = lambda side: asked.append(side) or units(side)
    plan = chain._plan(chain.initial, 1, "defender_fire", StepWatch(chain.ctx, chain.battle, deferring=True))
    assert asked.count("defender") == 1 and len(plan) == 4  # 0 to 3 hits
    chain.battle.units = units
    _shared, a, _alone, b = _both_ways(game, spec)
    assert a.ends == b.ends and a.rounds == b.rounds


# ---------------------------------------------------------------------- G40 kamikaze


def test_the_chain_follows_kamikaze_strikes_on_ships_in_the_battle():
    # the bots' advice strikes twice at the one American destroyer before the battle; two strikes
    # at 2 or less sink it with 1 - (2/3)^2 = 5/9; otherwise the plain battle is fought (the two
    # powers at war: at peace the battle leaves Japan's ships out, E548)
    spec = BattleSpec("6 Sea Zone", "Americans", {"destroyer": 1}, {"destroyer": 1}, "Japanese")
    house = Chain(_game(["g40/base@1", "g40/kamikaze@1"], scenario_text=AT_WAR), spec).solve()
    plain = Chain(_game(["g40/base@1"], scenario_text=AT_WAR), spec).solve()
    assert house.outcome(ATTACKER_WINS) == Fraction(4, 9) * plain.outcome(ATTACKER_WINS)
    assert house.outcome(DEFENDER_HOLDS) == Fraction(5, 9) + Fraction(4, 9) * plain.outcome(DEFENDER_HOLDS)
    # a battleship struck twice: sunk by two hits (1/9), damaged by one (4/9): it fights on with one hit left
    spec = BattleSpec("6 Sea Zone", "Americans", {"battleship": 1}, {"destroyer": 1}, "Japanese")
    house = Chain(_game(["g40/base@1", "g40/kamikaze@1"], scenario_text=AT_WAR), spec).solve()
    plain = Chain(_game(["g40/base@1"], scenario_text=AT_WAR), spec).solve()
    # were the one hit not kept, the battleship would win as often as unstruck whenever not sunk
    assert Fraction(4, 9) * plain.outcome(ATTACKER_WINS) < house.outcome(ATTACKER_WINS) \
        < Fraction(8, 9) * plain.outcome(ATTACKER_WINS)
    assert house.outcome(DEFENDER_HOLDS) > Fraction(1, 9)


def test_a_kamikaze_strike_on_a_ship_offshore_is_refused():
    # an amphibious assault from a kamikaze zone: the strikes fall on the ships offshore, which are
    # not in the battle's states
    spec = BattleSpec("Okinawa", "Americans", {"infantry": 1, "cruiser": 1}, {"infantry": 1}, "Japanese", [],
                      "19 Sea Zone")
    with pytest.raises(EvalError) as caught:
        Chain(_game(["g40/base@1", "g40/kamikaze@1"]), spec).solve()
    assert caught.value.code == "E546" and "not in the battle" in caught.value.message
    assert caught.value.span.source.display_name.endswith("kamikaze@1.rules")


# ---------------------------------------------------------------------- rounds in factors


def test_battle_units_with_a_tag_gives_those_units_in_order(tmp_path):
    write_rulesets(tmp_path, {"house/tagged@1": """
        ruleset house/tagged@1
        uses aar/base@1
        test "battle_units with a tag: the side's units that have it, in their order":
            scenario aar/start with {units: {"12 Sea Zone": {Germans: {submarine: 2, destroyer: 1, transport: 1},
                                                             Americans: {destroyer: 1}}}}
            battle at "12 Sea Zone" by Germans
            expect [u.type for u in battle_units("attacker", tag: submarine)] == [submarine, submarine]
            expect [u.id for u in battle_units("attacker", tag: submarine)] == \
                [u.id for u in battle_units("attacker") where has_tag(u, submarine)]
            expect count(battle_units("defender", tag: submarine)) == 0
    """})
    assert main(["test", "house/tagged@1", "--rulesets", str(tmp_path)]) == 0


def test_a_land_battle_runs_the_submarine_steps_once(base_game):
    # `submarine_fire` and `submarines_submerge` read only the sides' submarines
    # (`battle_units(side, tag: submarine)`): none in a land battle, so one run serves every state;
    # the retreat question reads whether each side still stands and which attackers, where they
    # came from and who holds it (the same in every state), not the defenders' casualties
    spec = BattleSpec(LAND, "Germans", {"infantry": 3, "artillery": 1, "armour": 2}, {"infantry": 3, "armour": 2},
                      "Russians", ["Eastern Europe"])
    shared, a, alone, b = _both_ways(base_game, spec)
    assert a.ends == b.ends and a.rounds == b.rounds
    assert shared.runs["submarine_fire"] == 1 and shared.runs["submarines_submerge"] == 1
    assert len(shared._round_cache) > 10
    assert shared.runs["attacker_retreat"] < 3 * len(shared._round_cache) < alone.runs["attacker_retreat"]


def test_a_round_that_changes_both_sides_at_once_is_followed_state_by_state(tmp_path):
    # a step that hits both sides (here each side's fire made in one step) cannot keep the round
    # in factors: the rest of the round is followed state by state, with the same fractions
    write_rulesets(tmp_path, {"house/both@1": """
        ruleset house/both@1
        uses aar/base@1
        override step attacker_fire:
            let a = count(u for u in battle_units("attacker") where d6 <= attack_value(u))
            let d = count(u for u in battle_units("defender") where d6 <= defense_value(u))
            hit a of battle_units("defender") by defender()
            hit d of battle_units("attacker") by attacker()
        override step defender_fire:
            log "fired"
    """})
    game = _game(["house/both@1"], [tmp_path])
    spec = BattleSpec(LAND, "Germans", {"infantry": 2, "armour": 1}, {"infantry": 2, "artillery": 1}, "Russians")
    _shared, a, _alone, b = _both_ways(game, spec)
    plain = Chain(_game(), spec).solve()
    assert a.ends == b.ends and a.rounds == b.rounds
    assert a.ends == plain.ends and a.rounds == plain.rounds  # the same battle, written in one step


def test_a_battle_state_that_comes_back_is_refused(tmp_path):
    # a repair that gives a damaged battleship its hit point back: the state before the damage
    # comes back, which the chain (whose states only lose units) refuses
    write_rulesets(tmp_path, {"house/repair@1": """
        ruleset house/repair@1
        uses aar/base@1
        hook repair_in_battle after attacker_retreat:
            for u in battle_units("defender"):
                if u.hits > 0 and d6 <= 3:
                    set hits(u) to 0
    """})
    game = _game(["house/repair@1"], [tmp_path])
    spec = BattleSpec("12 Sea Zone", "Germans", {"destroyer": 1}, {"battleship": 1}, "Americans")
    with pytest.raises(EvalError) as caught:
        Chain(game, spec).solve()
    assert caught.value.code == "E547"


def test_the_retreat_question_is_asked_once_per_standing_attackers(base_game):
    # aar/base@1's retreat step reads where the attackers may go (`retreat_options()`: the sides'
    # standing units, the attackers' origins), not the defenders' units besides: with somewhere to
    # retreat to it runs about once per attacking side and whether the defence stands, not once
    # per pair of sides
    spec = BattleSpec(LAND, "Germans", {"infantry": 3, "artillery": 1, "armour": 2}, {"infantry": 4, "armour": 2},
                      "Russians", ["Eastern Europe"])
    chain = Chain(base_game, spec, exact=False)
    chain.solve()
    assert chain.runs["attacker_retreat"] <= 2 * (chain.runs["attacker_fire"] + 1)
    assert chain.runs["attacker_retreat"] < chain.runs["attacker_fire"] * chain.runs["defender_fire"]


@pytest.mark.parametrize("method", ["--float", "--sample"])
def test_named_defenders_of_a_power_at_peace_are_refused_not_fought(tmp_path, capsys, method):
    # on Global 1940's start the United States and Japan are at peace: the game's battle leaves
    # Japan's ships in the zone out, so the chain (and the sampled battle) must not answer it
    battle = ["odds", "--ruleset", "g40/base@1", "--at", "6 Sea Zone", "--attacker", "Americans",
              "2 destroyer, 1 carrier", "--defender", "Japanese", "--defender-units", "1 destroyer"]
    extra = ["--sample", "50"] if method == "--sample" else ["--float"]
    assert main(battle + extra) == 1
    err = capsys.readouterr().err
    assert "<--defender-units>:1:1: error[E548]: Japanese is not at war with Americans" in err
    # at war (the rules' own counter, from a scenario), the same battle is fought: chain and sample agree
    scenario = tmp_path / "war.yaml"
    scenario.write_text(AT_WAR)
    assert main(battle + extra + ["--scenario", str(scenario), "--format", "json"]) == 0
    wins = json.loads(capsys.readouterr().out)["outcomes"]["attacker wins"]["float"]
    assert wins > 0.9  # two destroyers and a carrier against a destroyer (the stalemate gave 0)


def test_a_retreat_threshold_with_air_units_that_withdraw_changes_only_where_it_retreats(base_game):
    # air units alone may withdraw where they stand (a partial retreat: `withdrawn`); a state the
    # chain put on the board after one that withdrew once took its air units as gone (they fired
    # no more and could not be hit: "stalemates", and more battles held than without retreats);
    # each end but a retreat is at most as likely as when never retreating, and sharing
    # transitions changes nothing
    spec = BattleSpec(LAND, "Germans", {"infantry": 1, "fighter": 1}, {"infantry": 2}, "Russians", ["Eastern Europe"])
    never = Chain(base_game, spec).solve().ends
    below = Fraction(35, 100)
    shared = Chain(base_game, spec, retreat_below=below).solve()
    alone = Chain(base_game, spec, retreat_below=below, share=False).solve()
    assert shared.ends == alone.ends
    assert shared.outcome("attacker retreats") > 0
    assert all(p <= never.get(end, 0) for end, p in shared.ends.items() if end[0] != "attacker retreats")
    assert sum(shared.ends.values()) == 1



@pytest.fixture(scope="module")
def games_by_backend():
    """A house-rules game under each back end (RULESLANG_EVAL, read as its program is made)."""
    games = {}
    for backend in ("closures", "codegen"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("RULESLANG_EVAL", backend)
            games[backend] = _game(("aar/house-rules@1",))
        assert games[backend].compiled.backend == backend
    return games


@pytest.mark.parametrize("space,attacking,defending,defender", [
    (LAND, {"infantry": 3, "artillery": 1, "armour": 1}, {"infantry": 2}, "Russians"),
    (LAND, {"infantry": 1, "fighter": 2, "bomber": 1}, {"infantry": 2, "aaGun": 1}, "Russians"),
    ("2 Sea Zone", {"battleship": 1, "submarine": 2, "fighter": 1}, {"destroyer": 1, "submarine": 1}, "British"),
])
def test_the_generated_code_gives_the_chain_the_closures_floats(games_by_backend, space, attacking, defending,
                                                                  defender):
    # the plain parts of a step's statements and of its rolled expressions run as generated code
    # (lang/eval/branching.py `_plain`, `_exact`): every float the same as on the closures
    ends = {}
    for backend, game in games_by_backend.items():
        chain = Chain(game, BattleSpec(space, "Germans", attacking, defending, defender), exact=False)
        ends[backend] = {end: repr(p) for end, p in chain.solve().ends.items()}
        if backend == "codegen":
            steps = game.compiled.symbols["attacker_fire"].decl.procedure.body.stmts
            shooters = steps[0].value  # `let shooters = [u for u in battle_units("attacker") where ...]`
            assert hasattr(chain.branching._plain(shooters, "attacker_fire"), "generated_source")
            assert chain.branching._exact("attacker_fire") is not chain.branching.xc
    assert ends["codegen"] == ends["closures"]
    assert len(ends["codegen"]) > 1
