"""Round transitions shared between the chains of one battle (runtime/odds/shared.py, issue 15,
session 13): a sequence of chains asked as an agent asks them (one unit more each time, the
board changed between them in what a step reads: who holds a space, a counter) answers with
the same floats, to the last digit, whether the chains share a store or each works its rounds
out alone; sharing runs fewer steps, and a chain on a board that answers a read differently
takes nothing from a generation made on the other board."""

from __future__ import annotations

from conftest import write_rulesets
from ruleslang.compare.runner import LoadedOnce
from ruleslang.runtime import saves
from ruleslang.runtime.agents.battle_odds import BattleOdds
from ruleslang.runtime.odds.chain import ATTACKER_WINS, BattleSpec, Chain
from ruleslang.runtime.odds.shared import SharedRounds
from ruleslang.workspace.compositions import Workspace

SPACE = "Karelia S.S.R."
# the defence fires again, at 1, while the Russians hold Archangel or have drilled: a step that reads
# who holds another space and a counter, both outside the battle
HOME_GUARD = """
    ruleset house/home-guard@1
    uses aar/base@1
    counter drilled(p: player) -> bool = false
    hook home_guard after defender_fire:
        if controller("Archangel") == defender() or drilled(defender()):
            hit count(u for u in battle_units("defender") where d6 <= 1) of battle_units("attacker") by attacker()
"""


def _game(tmp_path):
    write_rulesets(tmp_path, {"house/home-guard@1": HOME_GUARD})
    setup = saves.GameSetup(refs=["house/home-guard@1"], scenario=None, seed=1, rounds=1, players={},
                            default_agent="heuristic", settings=[], orders=None)
    return saves.build_game(Workspace([str(tmp_path)]), setup)


def _boards(game):
    """The boards the chains are asked on, in turn: as set up; Archangel taken (the extra fire
    stops); Archangel back (as the first again); Archangel taken but the Russians drilled (it fires)."""
    state = game.state
    held = state.control.get("Archangel")
    yield "as set up"
    state.control["Archangel"] = "Germans"
    state.version += 1
    yield "Archangel taken"
    state.control["Archangel"] = held
    state.version += 1
    yield "Archangel back"
    state.control["Archangel"] = "Germans"
    state.set_counter("drilled", ("Russians",), True)
    state.version += 1
    yield "drilled"


def _sequence(tmp_path, store):
    """(the answers of every chain as float reprs, the steps they ran) over the boards and the
    attacks of one to three infantry with an armour."""
    game = _game(tmp_path)
    answers, runs = [], 0
    for board in _boards(game):
        for n in (1, 2, 3):
            spec = BattleSpec(SPACE, "Germans", {"infantry": n, "armour": 1})
            chain = Chain(game, spec, exact=False, board=game.state, store=store)
            result = chain.solve()
            runs += chain.step_runs
            answers.append((board, n, result.states, [repr(p) for p in result.ends.values()],
                            repr(result.taken), repr(result.rounds)))
    return answers, runs


def test_shared_rounds_give_the_same_floats_with_fewer_steps(tmp_path):
    alone, runs_alone = _sequence(tmp_path / "alone", None)
    store = SharedRounds()
    shared, runs_shared = _sequence(tmp_path / "shared", store)
    assert shared == alone
    assert runs_shared < runs_alone
    # the board changes move the answers (the rule's reads are live), so a generation made on one
    # board and taken on another would have shown
    by_board = {}
    for board, n, _states, ends, _taken, _rounds in alone:
        by_board.setdefault(n, {})[board] = ends
    for n, ends in by_board.items():
        assert ends["as set up"] == ends["Archangel back"] != ends["Archangel taken"] != ends["drilled"], n
    assert store.kept > 0 and store.joined > 0
    # the site of one to three infantry and an armour: a generation for each answer of the reads
    # (Archangel held, taken, taken but drilled); the board as set up again joined the first
    [site] = [gens for key, gens in store.sites.items() if key[0] == SPACE and len(gens) > 1]
    assert len(site) == 3
    reads = [set(key[:2] for key in gen.answers) for gen in site]
    assert all(("map", "control") in r or ("query", "controller") in r for r in reads), reads


def test_a_read_that_answers_otherwise_takes_nothing(tmp_path):
    game = _game(tmp_path)
    store = SharedRounds()
    spec = {"infantry": 2, "armour": 1}
    Chain(game, BattleSpec(SPACE, "Germans", dict(spec)), exact=False, board=game.state, store=store).solve()
    game.state.control["Archangel"] = "Germans"
    game.state.version += 1
    chain = Chain(game, BattleSpec(SPACE, "Germans", dict(spec)), exact=False, board=game.state, store=store)
    alone = Chain(game, BattleSpec(SPACE, "Germans", dict(spec)), exact=False, board=game.state)
    assert chain.solve().ends == alone.solve().ends
    assert chain.step_runs == alone.step_runs  # nothing taken: every round worked out again
    assert store.joined == 0 and store.started == 2


# ---------------------------------------------------------------- a battle in progress (issue 15, session 14)

# Karelia's defence on the board as set up: three Russian infantry and a fighter
DEFENCE = {"infantry": 2, "fighter": 1}  # ... after a round that cost it an infantry


def _floats(result) -> tuple:
    """A chain's answer as float reprs (to the last digit)."""
    return ([(end, repr(p)) for end, p in result.ends.items()], repr(result.taken), repr(result.rounds), result.states)


def _in_progress(attacking: dict) -> BattleSpec:
    """The battle at SPACE from its second round (an agent's retreat question): `attacking` against DEFENCE."""
    return BattleSpec(SPACE, "Germans", dict(attacking), defending=dict(DEFENCE), defender="Russians", round=2)


def _after_plan(tmp_path, attacking: dict) -> tuple:
    """(a chain of the battle in progress with `attacking`, sharing the store of a planning chain of
    three infantry and an armour that went before it; the same chain without a store)."""
    game = _game(tmp_path)
    store = SharedRounds()
    Chain(game, BattleSpec(SPACE, "Germans", {"infantry": 3, "armour": 1}), exact=False, board=game.state,
          store=store).solve()
    shared = Chain(game, _in_progress(attacking), exact=False, board=game.state, store=store)
    alone = Chain(game, _in_progress(attacking), exact=False, board=game.state)
    assert shared._gen is store.sites[shared._site()][0]  # it joined the plan's generation
    return shared, alone


def test_a_battle_in_progress_takes_the_rounds_its_plan_worked_out(tmp_path):
    # the retreat question's chain: the board as the battle left it (its defence named, the rest of
    # the space's units taken off), every round a late one; its states are the plan's later ones
    shared, alone = _after_plan(tmp_path, {"infantry": 2, "armour": 1})
    assert _floats(shared.solve()) == _floats(alone.solve())
    assert shared.step_runs < alone.step_runs


def test_a_battle_in_progress_with_fewer_unit_types_takes_the_plans_rounds(tmp_path):
    # the attacking infantry are gone: the chain's type order (armour first) and its units differ
    # from the plan's (infantry, armour, fighter), but its states' own types stand in the plan's
    # order on each side, and the plan read the same of the armour, infantry and fighter
    shared, alone = _after_plan(tmp_path, {"armour": 1})
    assert shared._type_order != {"infantry": 0, "armour": 1, "fighter": 2}
    assert _floats(shared.solve()) == _floats(alone.solve())
    assert shared.step_runs < alone.step_runs


def test_a_chain_whose_types_stand_in_another_order_answers_as_alone(tmp_path):
    # armour before infantry: the states holding both stand in another order than the plan's (and
    # their sums go in another order), so those are worked out again; those holding one type are taken
    shared, alone = _after_plan(tmp_path / "other", {"armour": 1, "infantry": 2})
    assert _floats(shared.solve()) == _floats(alone.solve())
    assert shared.step_runs < alone.step_runs
    # a chain of the same units in the plan's order takes those states too (it runs fewer steps)
    same, _alone = _after_plan(tmp_path / "same", {"infantry": 2, "armour": 1})
    same.solve()
    assert same.step_runs < shared.step_runs


def test_a_generation_is_joined_only_where_the_units_read_the_same():
    # what the kit reads of a chain's units, (type, owner) -> (cost, hit points), is checked where
    # both the generation and the chain have the type and owner, and the chain's others are added
    store = SharedRounds()
    first = store.generation("site", lambda key: None, {("a", "P"): ((3, 1),)})
    assert store.generation("site", lambda key: None, {("a", "P"): ((3, 1),), ("b", "P"): ((5, 1),)}) is first
    assert first.units == {("a", "P"): ((3, 1),), ("b", "P"): ((5, 1),)}
    assert store.generation("site", lambda key: None, {("b", "P"): ((4, 1),)}) is not first  # b costs less now
    assert store.generation("site", lambda key: None, {("c", "Q"): ((3, 2),)}) is first


# ---------------------------------------------------------------- across the games of one process

def _games(tmp_path, count: int, settings=()):
    """`count` games of the home-guard composition from one workspace that loads it once (as
    benchmarks/play.py and the compare workers do): one compiled program, one map."""
    write_rulesets(tmp_path, {"house/home-guard@1": HOME_GUARD})
    workspace = LoadedOnce([str(tmp_path)])
    setup = saves.GameSetup(refs=["house/home-guard@1"], scenario=None, seed=1, rounds=1, players={},
                            default_agent="heuristic", settings=list(settings), orders=None)
    return [saves.build_game(workspace, setup) for _ in range(count)]


def _agent_answers(game, odds: BattleOdds) -> list[str]:
    """The agent's chances of one to three infantry with an armour against the defence of SPACE."""
    odds.new_decision()
    return [repr(odds.chance(game, "Germans", _attack(game, n), SPACE)) for n in (1, 2, 3)]


def _attack(game, n: int) -> list:
    """Units of the Germans (made on a copy of the board, never on the game's) to ask with."""
    board = game.state.copy(events=False)
    return board.add_units(SPACE, "infantry", "Germans", n) + board.add_units(SPACE, "armour", "Germans", 1)


def test_games_of_one_composition_share_the_store_checked_by_their_boards(tmp_path):
    first, second, third = _games(tmp_path, 3)
    assert first.compiled is second.compiled is third.compiled
    store = BattleOdds._store(first)
    assert BattleOdds._store(second) is store and BattleOdds._store(third) is store
    # the second game's board answers the step's read otherwise (Archangel taken): it takes
    # nothing of the first game's transitions, and answers as a game played alone does
    second.state.control["Archangel"] = "Germans"
    second.state.version += 1
    asked_first = _agent_answers(first, BattleOdds())
    joined, started = store.joined, store.started
    asked_second = _agent_answers(second, BattleOdds())
    assert asked_second != asked_first
    alone = [repr(float(Chain(second, BattleSpec(SPACE, "Germans", {"infantry": n, "armour": 1}), exact=False)
                        .solve().outcome(ATTACKER_WINS))) for n in (1, 2, 3)]
    assert asked_second == alone
    assert store.started > started  # a new generation for the other answer
    # the third game's board is the first's: its chains join the first game's generation, and
    # take its rounds (fewer step runs than alone), with the same answers to the last digit
    joined = store.joined
    asked_third = _agent_answers(third, BattleOdds())
    assert asked_third == asked_first
    assert store.joined > joined
    for n in (1, 2, 3):
        spec = {"infantry": n, "armour": 1}
        shared = Chain(third, BattleSpec(SPACE, "Germans", dict(spec)), exact=False, board=third.state, store=store)
        alone = Chain(third, BattleSpec(SPACE, "Germans", dict(spec)), exact=False)
        assert shared.solve().ends == alone.solve().ends
        assert shared.step_runs < alone.step_runs, n


def test_games_given_other_options_keep_their_own_stores(tmp_path):
    plain, = _games(tmp_path / "plain", 1)
    other, = _games(tmp_path / "other", 1)
    assert plain.compiled is not other.compiled  # each workspace loads its own program
    assert BattleOdds._store(plain) is not BattleOdds._store(other)
    same, changed = _games(tmp_path / "one", 2)
    changed.ctx.options["victory"] = next(v for v in changed.compiled.program.scope.enums["victory_condition"]
                                          .by_name.values() if v is not same.ctx.options["victory"])
    assert BattleOdds._store(same) is not BattleOdds._store(changed)
    changed.ctx.options["victory"] = same.ctx.options["victory"]
    assert BattleOdds._store(same) is BattleOdds._store(changed)


# ---------------------------------------------------------------- what the battle settings read (issue 15, session 14)

# The battle's settings without `retreat_to` (its default: a sea zone, or a territory the attacker's
# side holds); the defence fires again while the attackers have nowhere to retreat to: a step
# whose answer follows what the default reads of the board
CORNERED = """
    ruleset house/cornered@1
    uses aar/base@1
    override phase battle: runtime battle with {round: "round_steps", start: "battle_start", capture: "capture",
                                                raid: "bombing_raid", fights: u => not has_tag(u, aa),
                                                hit_points: u => u.hit_points, captured: u => has_tag(u, aa),
                                                captures: u => takes_territory(u), retreats: attacker_may_retreat(),
                                                stalemate: no_side_can_hit(), withdraws: u => withdraws_alone(u),
                                                casualties_by: u => casualty_chooser(u)}
    hook cornered after defender_fire:
        if count(retreat_options()) == 0:
            hit count(u for u in battle_units("defender") where d6 <= 1) of battle_units("attacker") by attacker()
"""
ORIGIN = "Belorussia"  # where the attackers came from: the Germans' at the start


def _cornered(tmp_path, change) -> tuple:
    """(the answers of chains of one to three infantry with an armour from ORIGIN sharing a store, on
    the board as set up and then on the board `change(state)` made; the same chains alone)."""
    write_rulesets(tmp_path, {"house/cornered@1": CORNERED})
    setup = saves.GameSetup(refs=["house/cornered@1"], scenario=None, seed=1, rounds=1, players={},
                            default_agent="heuristic", settings=[], orders=None)
    game = saves.build_game(Workspace([str(tmp_path)]), setup)
    store = SharedRounds()
    shared, alone = [], []
    for changed in (False, True):
        if changed:
            change(game.state)
            game.state.version += 1
        for n in (1, 2, 3):
            spec = BattleSpec(SPACE, "Germans", {"infantry": n, "armour": 1}, came_from=[ORIGIN])
            shared.append(_floats(Chain(game, spec, exact=False, board=game.state, store=store).solve()))
            alone.append(_floats(Chain(game, spec, exact=False, board=game.state).solve()))
    assert store.joined > 0  # the chains of one board shared their rounds
    return shared, alone


def test_a_default_setting_notes_what_it_reads_of_the_board(tmp_path):
    # `retreat_to` left out: who holds ORIGIN decides whether the attackers may retreat there, so a
    # board where the Russians took it answers otherwise, and takes nothing of the first board's rounds
    def taken(state):
        state.control[ORIGIN] = "Russians"
    shared, alone = _cornered(tmp_path, taken)
    assert shared == alone
    assert alone[:3] != alone[3:]

