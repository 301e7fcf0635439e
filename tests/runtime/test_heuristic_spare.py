"""The heuristic agent that spares the exact chain (`HeuristicAgent(spare=...)`, every part of
SPARE by default): it asks the chain only where the quick simulation leaves the answer in doubt;
`spare=()` asks it of every attack and retreat question within its budget (shipped before)."""

from __future__ import annotations

import pytest

from game_fixtures import BASE, ids, make_game, retreat_question, run_phases
from ruleslang.runtime.agents import heuristic, quick_battle
from ruleslang.runtime.agents.battle_odds import CHAIN
from ruleslang.runtime.agents.heuristic import SPARE, HeuristicAgent

KARELIA, BELORUSSIA = "Karelia S.S.R.", "Belorussia"
BALTIC, NORTH_SEA = "5 Sea Zone", "6 Sea Zone"


def _combat_move(units: dict, **options) -> tuple[bool, int]:
    """(whether the Germans' agent made with `options` sends units into Karelia in combat move,
    the chains its battle odds ran)."""
    game = make_game(BASE, scenario={"setup": "empty", "units": units}, agents={"Germans": "heuristic"})
    agent = game.agents["Germans"] = HeuristicAgent(1, "Germans", **options)
    run_phases(game, "Germans", "combat_move")
    return bool(ids(game, KARELIA, "Germans")), agent.battle_odds.counts[CHAIN]


def test_an_attack_the_quick_chance_of_taking_settles_asks_fewer_chains():
    # four armour against an infantry: the shipped agent checks one armour, two and three by the
    # chain; the sparing one refuses one by the quick chance (about 50%, 75% needed), asks the
    # chain of two (about 90%: in doubt), and would take three without asking
    sure = {BELORUSSIA: {"Germans": {"armour": 4}}, KARELIA: {"Russians": {"infantry": 1}}}
    assert _combat_move(sure, spare=()) == (True, 3)
    assert _combat_move(sure, spare=("attacks",)) == (True, 1)


def test_an_attack_in_doubt_is_thrown_again_before_the_chain_is_asked():
    """The part "doubt": a quick chance of taking in the band where the chain is asked is thrown
    again with more trials of the same estimate's dice (the stages of DOUBT_TRIALS), and the chain
    asked only when those leave it within DOUBT_ABOVE over and DOUBT_BELOW under the odds needed.
    Four armour against an infantry: two of them (about 90%) are in doubt at 60 trials and sure
    with more; three armour against two infantry: the chance of three, near the odds needed, is
    still in doubt.
    The more trials draw nothing from the agent's own generator: later estimates roll as before."""
    sure = {BELORUSSIA: {"Germans": {"armour": 4}}, KARELIA: {"Russians": {"infantry": 1}}}
    assert _combat_move(sure, spare=("attacks", "settled")) == (True, 1)
    assert _combat_move(sure, spare=("attacks", "settled", "doubt")) == (True, 0)
    near = {BELORUSSIA: {"Germans": {"armour": 3}}, KARELIA: {"Russians": {"infantry": 2}}}
    assert _combat_move(near, spare=("attacks", "settled", "doubt")) == (True, 1)
    states = []
    for spare in (("attacks", "settled"), ("attacks", "settled", "doubt")):
        game = make_game(BASE, scenario={"setup": "empty", "units": sure}, agents={"Germans": "heuristic"})
        agent = game.agents["Germans"] = HeuristicAgent(1, "Germans", spare=spare)
        run_phases(game, "Germans", "combat_move")
        states.append(agent.rng.getstate())
    assert states[0] == states[1]


def test_the_quick_chance_of_taking_counts_the_land_units_left():
    # three fighters and an infantry against two infantry and an AA gun: the quick simulation wins
    # about 99% (any survivor), but the infantry is the cheapest casualty, so its chance of taking
    # the territory is low enough to say no without the chain (which says no too)
    units = {BELORUSSIA: {"Germans": {"infantry": 1, "fighter": 3}}, KARELIA: {"Russians": {"infantry": 2, "aaGun": 1}}}
    assert _combat_move(units, spare=())[0] is False
    assert _combat_move(units, spare=("attacks",)) == (False, 0)


def _retreat_question(attackers: dict, defenders: dict, **options) -> tuple[bool, int]:
    """(the Germans' answer to the retreat question of a battle for Karelia after its first round,
    the chains their agent made with `options` ran for it)."""
    agent, answer, _ = retreat_question(attackers, defenders, **options)
    return answer, agent.battle_odds.counts[CHAIN]


def test_a_retreat_question_the_quick_estimate_settles_asks_no_chain():
    # (the shipped rulesets retreat below 35%): four armour against an infantry stay, asked or not
    assert _retreat_question({"armour": 4}, {"infantry": 1}, spare=()) == (False, 1)
    assert _retreat_question({"armour": 4}, {"infantry": 1}, spare=("retreat",)) == (False, 0)
    # an infantry against an infantry (about 25%): near the threshold, the chain answers
    assert _retreat_question({"infantry": 1}, {"infantry": 1}, spare=("retreat",)) == (True, 1)


def test_the_agent_spares_every_part_by_default_and_none_with_quick_odds():
    assert HeuristicAgent(1, "Germans").spare == frozenset(SPARE)
    assert HeuristicAgent(1, "Germans", spare=("retreat",)).spare == {"retreat"}
    assert HeuristicAgent(1, "Germans", odds="quick").spare == frozenset()


def test_an_unknown_part_to_spare_is_refused():
    with pytest.raises(ValueError, match="attacks"):
        HeuristicAgent(1, "Germans", spare=("everything",))
    assert set(SPARE) == {"retreat", "attacks", "holds", "fleets", "rollouts", "below", "zeros", "advice",
                          "horizon", "settled", "outmatched", "hittable", "doubt", "band", "again", "exchange",
                          "fought", "forecast", "reckon", "stock", "sonar", "glance", "ledger", "trident",
                          "muster", "near", "whither", "tally", "trust", "landless", "lopsided",
                          "offshore", "sure", "frontline"}


def _fleet_attack(units: dict, **options) -> tuple[int, int]:
    """(how many German units attack the North Sea in the combat move of the Germans' agent made
    with `options`, the chains its fleet odds ran)."""
    game = make_game(BASE, scenario={"setup": "empty", "units": {
        **units, "Germany": {"Germans": {"infantry": 1}}, "United Kingdom": {"British": {"infantry": 1}}}},
        agents={"Germans": "heuristic"})
    agent = game.agents["Germans"] = HeuristicAgent(1, "Germans", **options)
    run_phases(game, "Germans", "combat_move")
    return len(ids(game, NORTH_SEA, "Germans")), agent.fleet_odds.counts[CHAIN]


def test_an_attack_at_sea_its_ships_win_alone_asks_no_chain():
    # two destroyers against a transport: about 98% by the quick simulation, ships alone
    ships = {BALTIC: {"Germans": {"destroyer": 2}}, NORTH_SEA: {"British": {"transport": 1}}}
    assert _fleet_attack(ships, spare=()) == (2, 1)
    assert _fleet_attack(ships, spare=("fleets",)) == (2, 0)


def test_an_attack_at_sea_that_needs_its_aircraft_asks_the_chain():
    # aircraft alone against a submarine: the quick simulation wins, but the ships (none) do not
    # win alone, so the chain is asked (and says no: aircraft cannot hit a lone submarine)
    planes = {"Germany": {"Germans": {"fighter": 2, "infantry": 1}}, BALTIC: {"British": {"submarine": 1}}}
    game = make_game(BASE, scenario={"setup": "empty", "units": {
        **planes, "United Kingdom": {"British": {"infantry": 1}}}}, agents={"Germans": "heuristic"})
    agent = game.agents["Germans"] = HeuristicAgent(1, "Germans", spare=("fleets",))
    run_phases(game, "Germans", "combat_move")
    assert ids(game, BALTIC, "Germans") == [] and agent.fleet_odds.counts[CHAIN] >= 1


def _holds(units: dict, **options) -> tuple[bool, int]:
    """(whether the Germans' agent made with `options` holds Karelia against the Russians next to
    it, the chains its battle odds ran for the answer)."""
    game = make_game(BASE, scenario={"setup": "empty", "units": units})
    agent = HeuristicAgent(1, "Germans", **options)
    agent.battle_odds.new_decision()
    return agent._holds(game, KARELIA), agent.battle_odds.counts[CHAIN]


def test_a_factory_site_the_quick_simulation_settles_asks_no_chain():
    # four Russian armour next to a German infantry take it nearly always: not held, asked or not
    weak = {KARELIA: {"Germans": {"infantry": 1}}, BELORUSSIA: {"Russians": {"armour": 4}}}
    assert _holds(weak, spare=()) == (False, 1)
    assert _holds(weak, spare=("holds",)) == (False, 0)
    # an infantry against four: held, without a chain
    strong = {KARELIA: {"Germans": {"infantry": 4}}, BELORUSSIA: {"Russians": {"infantry": 1}}}
    assert _holds(strong, spare=("holds",)) == (True, 0)


def test_an_attack_a_tenth_over_the_odds_needed_asks_no_chain():
    # four armour against two infantry: the quick chance of taking with two armour is between 0.1
    # and 0.2 over the odds needed (TAKE_ABOVE: 0.2 until the session's second round, when the
    # chain was asked; 0.1 since), so the sparing agent sends two without asking
    units = {BELORUSSIA: {"Germans": {"armour": 4}}, KARELIA: {"Russians": {"infantry": 2}}}
    assert _combat_move(units, spare=("attacks",)) == (True, 0)
    assert _combat_move(units, spare=())[0] is True


def test_an_attack_well_under_the_odds_needed_asks_no_chain_with_the_narrower_band():
    # three armour against an infantry and an armour: the quick chance of taking with all three is
    # 0.075 to 0.1 under the odds needed, in doubt for TAKE_BELOW (the chain asked: it says no) and
    # a no for SPARED_BELOW (part "below"), without the chain
    units = {BELORUSSIA: {"Germans": {"armour": 3}}, KARELIA: {"Russians": {"infantry": 1, "armour": 1}}}
    assert _combat_move(units, spare=("attacks",)) == (False, 1)
    assert _combat_move(units, spare=("attacks", "below")) == (False, 0)


def test_more_aircraft_against_a_submarine_they_cannot_hit_ask_no_chain_again():
    # three fighters against a submarine: the quick simulation sends one, two, three; the chain
    # says exactly 0 for one (aircraft hit a submarine only beside a destroyer), and with the
    # part "zeros" two and three fighters, of the same type, are not asked again
    planes = {"Germany": {"Germans": {"fighter": 3, "infantry": 1}}, BALTIC: {"British": {"submarine": 1}}}
    asked = []
    for spare in (("fleets",), ("fleets", "zeros")):
        game = make_game(BASE, scenario={"setup": "empty", "units": {
            **planes, "United Kingdom": {"British": {"infantry": 1}}}}, agents={"Germans": "heuristic"})
        agent = game.agents["Germans"] = HeuristicAgent(1, "Germans", spare=spare)
        run_phases(game, "Germans", "combat_move")
        assert ids(game, BALTIC, "Germans") == []
        asked.append(agent.fleet_odds.counts[CHAIN])
    assert asked[0] > 1 and asked[1] == 1


def test_a_retreat_question_a_narrower_margin_settles_asks_no_chain():
    # (the shipped rulesets retreat below 35%) an armour against an infantry (the quick estimate
    # between 0.15 and 0.25 over the threshold) and two infantry against two (as far under it): in
    # doubt for ADVICE_MARGIN, settled for ADVICE_NEAR (part "advice"), the same answers
    assert _retreat_question({"armour": 1}, {"infantry": 1}, spare=("retreat",)) == (False, 1)
    assert _retreat_question({"armour": 1}, {"infantry": 1}, spare=("retreat", "advice")) == (False, 0)
    assert _retreat_question({"infantry": 2}, {"infantry": 2}, spare=("retreat",)) == (True, 1)
    assert _retreat_question({"infantry": 2}, {"infantry": 2}, spare=("retreat", "advice")) == (True, 0)
    # three infantry against two: near the threshold, the chain still answers
    assert _retreat_question({"infantry": 3}, {"infantry": 2}, spare=("retreat", "advice")) == (False, 1)


def test_settled_estimates_play_the_game_every_trial_plays(monkeypatch):
    """The part "settled": each quick estimate rolled by a generator of its own (seeded from the
    agent's) and stopped once the trials left cannot change what its caller takes from it. The
    games are those of the same agent with every estimate's SIM_TRIALS trials thrown (the same
    events, seeded house-rules games), from fewer trials."""
    one_hit, any_units = quick_battle._one_hit_trials, quick_battle._trials
    counted = {"settled": 0, "every": 0}
    mode = ["settled"]

    def counting(trials):
        def run(a_vals, d_vals, getrandbits, takes=False, settle=None, count=quick_battle.SIM_TRIALS, lost=None):
            def drawing(bits):
                counted[mode[0]] += 1
                return getrandbits(bits)
            return trials(a_vals, d_vals, drawing, takes, settle if mode[0] == "settled" else None, count, lost)
        return run

    monkeypatch.setattr(quick_battle, "_one_hit_trials", counting(one_hit))
    monkeypatch.setattr(quick_battle, "_trials", counting(any_units))
    # (the part "landless" judged never: it spares mostly estimates that "settled" stops early, which
    # would move the share of dice below, the settling's, in both modes)
    monkeypatch.setattr(heuristic, "landless", lambda a_vals, d_vals, margin: False)
    events = {}
    for seed in (1, 2):
        for mode[0] in ("settled", "every"):
            game = make_game(["aar/house-rules@1"], seed=seed, default_agent="heuristic")
            game.run(3)
            events[mode[0]] = game.state.events
        assert events["settled"] == events["every"]
    assert "settled" in SPARE
    # (dice thrown; with "doubt", an estimate in its band throws all its first trials: 0.81 of them, seeds 1-2)
    assert counted["settled"] < 0.85 * counted["every"]


def test_outmatched_attacks_are_taken_as_winning_no_trial_and_play_the_same_games(monkeypatch):
    """The part "outmatched": an attack whose Lanchester strength is under OUTMATCHED of the
    defence's is taken as winning none of the trials, without rolling them, where the caller's
    answer is the same up to OUTMATCHED_WINS wins. Its generator's seed is drawn all the same, so
    the other estimates' dice are as they were: the seeded house-rules games are those of the agent
    without the part (OUTMATCHED 0), event for event."""
    assert quick_battle.outmatched(((1, 3, 1), (1, 3, 1)), ((2, 3, 1), (2, 3, 1), (2, 3, 1)), 0.5)  # 2 x 2 < 0.5 x 6 x 3
    assert not quick_battle.outmatched(((3, 10, 1), (1, 3, 1)), ((2, 3, 1),), 0.5)
    assert not quick_battle.outmatched(((1, 3, 1),), ((2, 3, 1),), 0.5)  # 1 x 1 is not under 0.5 x 2 x 1
    taken = [0]
    judged = quick_battle.outmatched

    def counting(a_vals, d_vals, ratio):
        found = judged(a_vals, d_vals, ratio)
        taken[0] += found
        return found

    monkeypatch.setattr(heuristic, "outmatched", counting)
    for seed in (1, 2):
        events = []
        for ratio in (heuristic.OUTMATCHED, 0.0):
            monkeypatch.setattr(heuristic, "OUTMATCHED", ratio)
            game = make_game(["aar/house-rules@1"], seed=seed, default_agent="heuristic")
            game.run(3)
            events.append(game.state.events)
        assert events[0] == events[1]
    assert "outmatched" in SPARE
    assert taken[0] >= 10  # (fewer with the part "reckon": a battle it reckons is not judged so)
