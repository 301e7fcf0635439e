"""The exact chain an agent asks about a game's battle shares the game's compiled procedure
settings (runtime/odds/states.py `BattleHost`: `ProcedureConfig.for_context`) instead of
compiling them for every chain, and answers as a chain of a game that had built none. The chains
an agent asks about one board share one copy of it (`Chain`'s `board`: `GameState.copy_sharing`
copies only the battle's units), and the program's runtime procedures are scanned once per name
(`runtime_procedures`): each answers as the computation without them."""

from __future__ import annotations

import copy

import pytest

from ruleslang.runtime import saves
from ruleslang.runtime.agents.battle_odds import CHAIN, BattleOdds
from ruleslang.runtime.config import _scan_procedures, runtime_procedures, setting_procedure
from ruleslang.runtime.odds.chain import ATTACKER_WINS, BattleSpec, Chain
from ruleslang.workspace.compositions import Workspace

SPECS = [
    BattleSpec("Karelia S.S.R.", "Germans", {"infantry": 2, "artillery": 1, "armour": 1}, {"infantry": 3},
               "Russians"),
    BattleSpec("12 Sea Zone", "Germans", {"battleship": 1, "submarine": 2}, {"destroyer": 1, "fighter": 1},
               "Americans"),
    BattleSpec("Karelia S.S.R.", "Germans", {"fighter": 1, "bomber": 1}, {"infantry": 1, "aaGun": 1},
               "Russians"),
]
KARELIA = "Karelia S.S.R."
BOARD_SPECS = [  # the chain's own copy of the board, against one from a shared copy (an assault too)
    BattleSpec(KARELIA, "Germans", {"infantry": 2, "artillery": 1, "armour": 1}),
    BattleSpec(KARELIA, "Germans", {"infantry": 2, "artillery": 1}, amphibious_from="5 Sea Zone"),
    BattleSpec("12 Sea Zone", "Germans", {"battleship": 1, "submarine": 2}, {"destroyer": 1, "fighter": 1},
               "Americans"),
    BattleSpec(KARELIA, "Germans", {"fighter": 1, "bomber": 1}, {"infantry": 1, "aaGun": 1}, "Russians"),
]


@pytest.fixture(scope="module")
def played():
    """A house-rules game one round in: the game has built its battle and move settings."""
    setup = saves.GameSetup(refs=["aar/house-rules@1"], scenario=None, seed=2, rounds=1, players={},
                            default_agent="random", settings=[], orders=None)
    game = saves.build_game(Workspace([]), setup)
    game.run(1)
    return game


def test_the_chain_shares_the_games_compiled_settings(played):
    assert played.configs
    chain = Chain(played, SPECS[0], exact=True)
    for key, config in played.configs.items():
        mine = chain.host.configs[key]
        assert mine is not config and mine.ctx is chain.ctx  # its own context and caches
        assert mine._compiled is config._compiled           # the compiled code shared


@pytest.mark.parametrize("spec", SPECS, ids=["land", "sea", "air against aa"])
def test_a_chain_with_the_shared_settings_answers_as_one_without(played, spec):
    shared = Chain(played, spec, exact=True).solve()
    kept = played.configs
    try:
        played.configs = {}  # as a game that has built no settings: the chain compiles its own
        alone = Chain(played, spec, exact=True).solve()
    finally:
        played.configs = kept
    assert shared.ends == alone.ends and shared.taken == alone.taken and shared.rounds == alone.rounds
    assert shared.states == alone.states


def _units(state) -> list:
    return [u.to_json() for u in state.units]


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
@pytest.mark.parametrize("spec", BOARD_SPECS, ids=["land", "amphibious", "sea", "air against aa"])
def test_a_chain_from_a_shared_board_answers_as_one_that_copies_its_own(played, spec, exact):
    board = played.state.copy(events=False)
    before = _units(board)
    alone = Chain(played, spec, exact=exact).solve()
    chain = Chain(played, spec, exact=exact, board=board, retreat_below=0.5 if exact else None)
    shared = chain.solve()
    if exact:  # with a retreat threshold on the shared board, against one without
        alone = Chain(played, spec, exact=exact, retreat_below=0.5).solve()
    assert shared.ends == alone.ends and shared.taken == alone.taken and shared.rounds == alone.rounds
    assert shared.states == alone.states
    assert _units(board) == before  # no unit of the shared board changed
    away = {u.id: u for u in board.units if u.space not in (spec.space, spec.amphibious_from)}
    mine = [u for u in chain.host.state.units if u.id in away]
    assert mine and all(u is away[u.id] for u in mine)  # the units outside the battle are the board's own


def test_a_chain_changes_no_unit_of_the_shared_board_where_an_assault_comes_from(played):
    spec = BOARD_SPECS[1]
    board = played.state.copy(events=False)
    transport = next(u for u in board.units if u.space == spec.amphibious_from and u.type == "transport")
    transport.cargo = [u.id for u in board.add_units(spec.amphibious_from, "infantry", "Germans")]
    before = _units(board)
    Chain(played, spec, exact=False, board=board).solve()  # the chain empties its ships' cargo
    assert _units(board) == before


def test_a_board_copied_sharing_units_copies_those_of_the_spaces_and_every_other_field(played):
    state = played.state
    spaces = {KARELIA, "5 Sea Zone"}
    clone = state.copy_sharing(spaces)
    assert [u.to_json() for u in clone.units] == [u.to_json() for u in state.units]  # same units, same order
    for mine, theirs in zip(clone.units, state.units):
        assert (mine is theirs) == (theirs.space not in spaces)
    assert clone.units is not state.units and clone.events == []
    player = next(iter(state.treasury))
    clone.treasury[player][next(iter(clone.treasury[player]))] += 1000
    assert clone.treasury != state.treasury  # not shared


def test_runtime_procedures_are_scanned_once_and_handed_out_as_new_lists(played):
    compiled = played.compiled
    for name in ("battle", "move", "purchase", "no such procedure"):
        first = runtime_procedures(compiled, name)
        assert first == _scan_procedures(compiled.symbols, name)
        first.clear()  # the caller's own list
        assert runtime_procedures(compiled, name) == _scan_procedures(compiled.symbols, name)
    assert runtime_procedures(compiled, "battle")


def test_the_agents_odds_on_one_board_are_each_a_chain_of_its_own(played):
    odds = BattleOdds(query_states=10_000, decision_states=10_000)
    scratch = played.state.copy()  # where the attacking units are made (the odds read their types)
    for spec in BOARD_SPECS[:2]:
        attack = [u for t, n in spec.attacking.items() for u in scratch.add_units(spec.space, t, spec.attacker, n)]
        alone = Chain(played, BattleSpec(spec.space, spec.attacker, dict(spec.attacking),
                                         amphibious_from=spec.amphibious_from), exact=False).solve()
        assert odds.chance(played, "Germans", attack, spec.space, amphibious_from=spec.amphibious_from) \
            == float(alone.outcome(ATTACKER_WINS))
        assert odds.chance(played, "Germans", attack, spec.space, amphibious_from=spec.amphibious_from,
                           take=True) == float(alone.taken)
    assert odds.counts[CHAIN] == 2


def test_a_chain_makes_the_games_settings_for_its_context_as_it_uses_them(played):
    chain = Chain(played, SPECS[0], exact=False)
    made = dict(chain.host.configs)  # those made so far: the ones its battle has used
    assert made and len(made) < len(played.configs)
    assert chain.host.configs.get(-1) is None and chain.host.configs.get(-1, "none") == "none"
    key = next(k for k in played.configs if k not in made)
    assert chain.host.configs.get(key) is chain.host.configs[key]  # made once, on first use
    assert chain.host.configs[key].ctx is chain.ctx


@pytest.mark.parametrize("collecting", [True, False], ids=["collector on", "collector off"])
def test_the_agents_odds_leave_the_collector_as_they_found_it(played, collecting):
    import gc  # start-up time: only this test pauses the collector
    scratch = played.state.copy()
    attack = scratch.add_units(KARELIA, "infantry", "Germans", 3)
    was = gc.isenabled()
    try:
        if not collecting:
            gc.disable()
        odds = BattleOdds()
        assert odds.chance(played, "Germans", attack, KARELIA) is not None
        assert gc.isenabled() is collecting
    finally:
        if was:
            gc.enable()


def test_the_agents_odds_change_nothing_of_the_games_own_board(played):
    # the agents' chains copy their battle's units from the game's board itself (no copy of the
    # whole board per version), sharing the fields they do not change (`_UNCHANGED`): asking
    # every battle, an assault whose ships' cargo the chain empties among them, leaves the game's
    # units and every other field as they were
    state = played.state
    scratch = state.copy()
    transport = next(u for u in state.units if u.space == BOARD_SPECS[1].amphibious_from and u.type == "transport")
    saved_cargo = transport.cargo
    transport.cargo = [u.id for u in scratch.add_units(BOARD_SPECS[1].amphibious_from, "infantry", "Germans")]
    try:
        before = (_units(state), _fields(state), len(state.events))
        odds = BattleOdds(query_states=10_000, decision_states=10_000)
        for spec in BOARD_SPECS:
            attack = [u for t, n in spec.attacking.items() for u in scratch.add_units(spec.space, t, spec.attacker, n)]
            defence = ([u for t, n in spec.defending.items() for u in scratch.add_units(spec.space, t, spec.defender, n)]
                       if spec.defending else None)
            assert odds.chance(played, spec.attacker, attack, spec.space, defence=defence,
                               amphibious_from=spec.amphibious_from) is not None
        assert odds.counts[CHAIN] == len(BOARD_SPECS)
        assert (_units(state), _fields(state), len(state.events)) == before
    finally:
        transport.cargo = saved_cargo


def _fields(state) -> dict:
    """The board's fields but its units, map and events, deep-copied."""
    return {name: copy.deepcopy(value) for name, value in vars(state).items()
            if name not in ("units", "map", "events", "_unit_index", "_indexed")}


def test_a_board_copied_sharing_fields_shares_those_and_copies_the_others(played):
    state = played.state
    clone = state.copy_sharing({KARELIA}, {"control", "counters"})
    assert clone.control is state.control and clone.counters is state.counters
    assert clone.treasury == state.treasury and clone.treasury is not state.treasury
    assert clone.counter_writes is not state.counter_writes


def test_a_chains_host_shares_the_games_index_of_spaces_and_turn_order(played):
    host = Chain(played, SPECS[0], exact=False, board=played.state).host
    assert host._space_index is played._space_index  # not made again per chain
    spaces = [s.name for s in played.state.map.spaces]
    assert [host.space_order(s) for s in spaces] == list(range(len(spaces)))
    assert [host.turn_position(p) for p in played.state.map.turn_order] == list(range(len(played.state.map.turn_order)))


@pytest.mark.parametrize("procedure,setting", [("battle", "hit_points"), ("move", "domain"), ("purchase", "cost"),
                                               ("move", "transport_capacity"), ("move", "no such setting"),
                                               ("no such procedure", "cost")])
def test_the_procedure_giving_a_setting_is_found_once_and_is_the_first_that_gives_it(played, procedure, setting):
    compiled = played.compiled
    scanned = next((proc for _, proc in _scan_procedures(compiled.symbols, procedure)
                    if proc.config is not None and any(i.text == setting for i, _ in proc.config.fields)), None)
    assert setting_procedure(compiled, procedure, setting) is scanned
    assert setting_procedure(compiled, procedure, setting) is scanned  # kept
    assert (scanned is None) == (setting.startswith("no such") or procedure.startswith("no such"))
