"""What the movement engine keeps between the moves of a phase (issue 15, session 9): the
player's units by space (`_mine_by_space`, moved along by `apply`), the side's units with
cargo (`_unloads`' list, kept until a load or an unload), the zones its carriers can still reach
(`_later_zones`, kept while no carrier moves) and the land territories air units may land in
(`_landing`'s, kept until a rebuild), and the answers of `landings` (kept until the carrier
room changes, session 16) and of `landing_destinations` (kept as long, session 26). After every move of random and heuristic games the kept
engine's loads, unloads, index, later zones and landing distances are those of a new engine on
the same board; the landing distances of the combat move's air walks, from the landing
territories within the air units' reach alone (session 23), tell every air unit of the player
where it can land as a new engine's full search does; and the stranded air units, kept across
flights between land territories (session 23), are a new engine's."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from game_fixtures import make_game
from movement_fixtures import aar, board, engine, rules  # noqa: F401 (aar and rules are fixtures)
from ruleslang.board.state import Unit
from ruleslang.runtime.kit.movement import Move, MovementEngine


def _index(engine) -> dict[str, list[int]]:
    return {space: sorted(u.id for u in units) for space, units in engine._mine_by_space().items() if units}


# random agents never load (they move units one by one): the heuristic's games load and unload
@pytest.mark.parametrize("refs,rounds,seed,agent,offered", [(["aar/house-rules@1"], 4, 3, "random", "loads"),
                                                            (["g40/house-rules@1"], 2, 1, "random", "loads"),
                                                            (["aar/house-rules@1"], 4, 1, "heuristic", "unloads")])
def test_kept_lists_are_those_of_a_new_engine(refs, rounds, seed, agent, offered, monkeypatch):
    seen = {"moves": 0, "loads": 0, "unloads": 0, "landings": 0, "may_load": 0, "lands_at": 0, "raid_units": 0,
            "landings_kept": 0, "stranded": 0, "landing_spaces": 0, "near": 0}
    kept_apply = MovementEngine.apply

    def compared(self, move):
        kept_apply(self, move)
        seen["moves"] += 1
        self._sync()
        fresh = MovementEngine(self.state, self.rules, self.player, self.phase)
        fresh._sync()
        assert _index(self) == _index(fresh), (self.player, self.phase, move)
        loads, unloads = self._loads(), self._unloads()
        assert loads == fresh._loads(), (self.player, self.phase, move)
        assert unloads == fresh._unloads(), (self.player, self.phase, move)
        seen["loads"] += len(loads)
        seen["unloads"] += len(unloads)
        # what is kept, read without working anything out on the kept engine (which would mend it)
        if self._may_load is not None:
            may_load: set[int] = set()
            fresh._loads(may_load)
            assert self._may_load == may_load, (self.player, self.phase, move)
            seen["may_load"] += 1
        if self._later is not None:
            assert self._later == fresh._later_zones(), (self.player, self.phase, move)
        if self._raid_units is not None:
            assert self.raiding_units() == fresh.raiding_units(), (self.player, self.phase, move)
            seen["raid_units"] += 1
        for cost, found in self._landing_cache.items():
            assert found == fresh._landing(cost), (self.player, self.phase, move, cost)
            seen["landings"] += 1
        # the near search's steps (`_landing_steps`, `_air_walk`'s in combat move): for every air unit
        # of the player of that carrier cost, as it stands now, and every space it can fly to,
        # whether it can land after the flight is the full search's answer
        for cost, found in self._near_cache.items():
            full = fresh._landing(cost)
            for flyer in fresh._mine:
                flyer_rules = fresh._ur[flyer.id]
                if flyer_rules.domain != "air" or flyer_rules.carrier_cost != cost:
                    continue
                left = flyer_rules.movement - flyer.moved
                for space, d in fresh.board.air_reach(flyer.space, left):
                    near, far = found.get(space), full.get(space)
                    assert (near is not None and near <= left - d) == (far is not None and far[0] <= left - d), \
                        (self.player, self.phase, move, cost, flyer, space)
            seen["landings"] += 1
        # the searches from single spaces (`_nearest_landing`, for the plans' reaches at the spaces
        # they aim at and `lands_ashore`): the nearest landing space's steps are the full search's,
        # and where none was found, the full search finds none as near
        for cost, kept in self._landing_near.items():
            full = fresh._landing(cost)
            for space, (steps, searched) in kept.items():
                far = full.get(space)
                if steps is not None:
                    assert far is not None and far[0] == steps, (self.player, self.phase, move, cost, space)
                else:
                    assert far is None or far[0] > searched, (self.player, self.phase, move, cost, space)
                seen["near"] += 1
        if self._stranded is not None:
            assert self.stranded_air() == fresh.stranded_air(), (self.player, self.phase, move)
            seen["stranded"] += 1
        # where an air unit of each carrier cost may end a non-combat move (`_air_walk`'s answers,
        # kept until the carrier room changes), asked of the new engine for an air unit of that cost
        for cost, lands in self._lands_at.items():
            flyer = next(u for u in fresh._mine if fresh._ur[u.id].domain == "air"
                         and fresh._ur[u.id].carrier_cost == cost)
            for space, ok in lands.items():
                if space != flyer.space:
                    assert ok == (fresh._landing_problem(flyer, fresh._ur[flyer.id], space) is None), \
                        (self.player, self.phase, move, cost, space)
                    seen["lands_at"] += 1
        # `landings` answers, kept until the carrier room changes: worked out anew for a stand-in air
        # unit (all they read of the unit is where it stands, and of its rules its carrier cost)
        for (end, left, cost, space), found in self._landings_kept.items():
            assert found == fresh._landings(SimpleNamespace(space=space), SimpleNamespace(carrier_cost=cost),
                                            end, left), (self.player, self.phase, move, end, left, cost, space)
            seen["landings_kept"] += 1
        # `landing_destinations` answers, kept while both answers they are made of are (session 26):
        # a new engine's for each air unit of the player that stands where the key says
        for uid in (u.id for u in fresh._mine if fresh._ur[u.id].domain == "air"):
            unit, unit_rules = fresh._by_id[uid], fresh._ur[uid]
            found = self._landing_spaces.get((unit_rules.carrier_cost, unit.space, unit_rules.movement - unit.moved))
            if found is not None and fresh._blocked(unit, unit_rules) is None:
                assert found == fresh.landing_destinations(uid), (self.player, self.phase, move, uid)
                seen["landing_spaces"] += 1
    monkeypatch.setattr(MovementEngine, "apply", compared)
    game = make_game(refs, seed=seed, rounds=rounds, default_agent=agent)
    game.run(rounds)
    # many moves were compared, with loads (or unloads) on offer among them
    assert seen["moves"] > 50 and seen[offered] > 0 and seen["landings"] + seen["near"] > 20, seen
    # (the heuristic's plans no longer ask the engine's `movable_units`, whose making keeps the
    # units that may load (session 27): the random agents' games check that kept answer)
    assert agent == "heuristic" or seen["may_load"] > 20, seen
    assert seen["lands_at"] > 100, seen
    assert agent == "random" or seen["raid_units"] > 10, seen  # (the heuristic asks for the raiding units)
    # (and where its air units could land: whether ashore, by a search from the space, and
    # `landings` only where not)
    assert agent == "random" or seen["near"] > 100, seen
    assert agent == "random" or seen["stranded"] > 10, seen  # (and which have nowhere to land)
    assert agent == "random" or seen["landing_spaces"] > 10, seen  # (and where those may land)


def test_an_air_unit_standing_where_it_may_land_reaches_a_space_in_combat_move(monkeypatch):
    """`_can_reach`'s short cut in combat move (an air unit with 2 or more movement left in a land
    territory it may land in, or with 1 or more next to one) answers as the full landing search does."""
    taken = []
    kept = MovementEngine._can_reach

    def compared(self, unit, rules):
        answer = kept(self, unit, rules)
        left = rules.movement - unit.moved
        if rules.domain == "air" and self.combat and self._lands_near(unit.space, left):
            assert answer and self._air_walk(unit, rules, left) != {}, (self.player, unit)
            taken.append(unit.id)
        return answer
    monkeypatch.setattr(MovementEngine, "_can_reach", compared)
    game = make_game(["aar/house-rules@1"], seed=5, rounds=4, default_agent="random")
    game.run(4)
    assert len(taken) > 20


@pytest.mark.parametrize("refs,rounds,seed,agent", [(["aar/house-rules@1"], 4, 1, "heuristic"),
                                                   (["aar/house-rules@1"], 4, 2, "random"),
                                                   (["g40/house-rules@1"], 2, 1, "heuristic"),
                                                   (["aa50/house-rules@1"], 2, 1, "heuristic")])
def test_a_move_along_an_offered_path_is_one_the_checks_accept(refs, rounds, seed, agent, monkeypatch):
    """`check` answers a move of one unit along the path its reach, already worked out, gives it
    without the checks of `_check` (`_offered`): each such move of these games is one `_check`
    accepts, of every domain."""
    accepted: list[str] = []
    offered = MovementEngine._offered

    def compared(self, move):
        answer = offered(self, move)
        if answer:
            assert self._check(move) == [], (self.player, self.phase, move)
            accepted.append(self._ur[move.units[0]].domain)
        return answer
    monkeypatch.setattr(MovementEngine, "_offered", compared)
    game = make_game(refs, seed=seed, rounds=rounds, default_agent=agent)
    game.run(rounds)
    assert len(accepted) > 30 and (agent == "random" or set(accepted) == {"land", "sea", "air"}), accepted


def test_a_move_along_an_offered_path_is_answered_without_the_checks(monkeypatch):
    """The heuristic agent checks each move of its plan, made from `destinations`, and `apply`
    checks it again: most are answered by the reach (`_offered`), not by `_check`."""
    checked, asked = [], []
    kept_check, kept_ask = MovementEngine._check, MovementEngine.check
    monkeypatch.setattr(MovementEngine, "_check", lambda self, move: checked.append(move) or kept_check(self, move))
    monkeypatch.setattr(MovementEngine, "check", lambda self, move: asked.append(move) or kept_ask(self, move))
    game = make_game(["aar/house-rules@1"], seed=1, rounds=2, default_agent="heuristic")
    game.run(2)
    # (seed 1, two rounds: 565 asked, 117 checked; 305 before `_offered`)
    assert len(asked) > 100 and 3 * len(checked) < len(asked), (len(asked), len(checked))


@pytest.mark.parametrize("refs,rounds,seed", [(["aar/house-rules@1"], 5, 1), (["g40/house-rules@1"], 2, 2)])
def test_the_moves_of_a_unit_are_those_a_new_engine_gives(refs, rounds, seed, monkeypatch):
    """What the agent is offered for the unit it picked (`moves_of`: the reach worked out from
    the kept landing distances, carrier zones and rooms) is what a new engine offers."""
    asked = []
    kept = MovementEngine.moves_of

    def compared(self, unit_id):
        answer = kept(self, unit_id)
        assert answer == kept(MovementEngine(self.state, self.rules, self.player, self.phase), unit_id), unit_id
        asked.append(self._ur[unit_id].domain)
        return answer
    monkeypatch.setattr(MovementEngine, "moves_of", compared)
    game = make_game(refs, seed=seed, rounds=rounds, default_agent="random")
    game.run(rounds)
    assert len(asked) > 100 and asked.count("air") > 10


def test_the_rules_a_phase_starts_with_are_those_its_settings_give(monkeypatch):
    """A phase's `MovementRules` starts with the kinds' rules kept from earlier phases (`known`):
    each is the one the phase's settings give (`unit_rules_of`, itself compared with a computation
    from nothing in test_unit_rules_kept.py)."""
    from ruleslang.runtime.kit import moves
    real = moves.movement_rules_of
    seeded = []

    def compared(ctx, config, span, allied, capture=None, same=None):
        rules = real(ctx, config, span, allied, capture, same)
        seeded.append(len(rules._rules_cache))
        given = moves.unit_rules_of(ctx, config)
        for kind in sorted({(u.type, u.owner) for u in ctx.state.units}):
            assert rules.unit_rules(*kind) == given(*kind), kind
        return rules
    monkeypatch.setattr(moves, "movement_rules_of", compared)
    game = make_game(["aar/house-rules@1"], seed=4, rounds=3, default_agent="random")
    game.run(3)
    assert len(seeded) >= 20 and max(seeded) > 10


@pytest.mark.parametrize("refs", [["aar/house-rules@1"], ["g40/house-rules@1"]])
def test_the_kept_move_policy_is_the_one_the_settings_give_now(refs, monkeypatch):
    """A phase's `MovePolicy` is read through `ProcedureConfig.kept_value` (kept across phases while
    what each setting read is unchanged), and kept whole across the procedure's phases
    (`kept_move_policy`): at every move phase it equals the one read afresh."""
    from ruleslang.runtime.kit import moves
    real = moves.kept_move_policy
    phases = []

    class Fresh:  # the settings read now, nothing kept
        def __init__(self, config):
            self.config = config

        def kept_value(self, name, default=None):
            return self.config.value(name, default)

    def compared(config, span):
        policy = real(config, span)
        assert policy == moves.move_policy_of(Fresh(config), span)
        phases.append(policy)
        return policy
    monkeypatch.setattr(moves, "kept_move_policy", compared)
    game = make_game(refs, seed=3, rounds=2, default_agent="random")
    game.run(2)
    assert len(phases) >= 10
    assert len({id(policy) for policy in phases}) < len(phases)  # kept across phases


def test_a_move_policy_is_kept_only_while_every_setting_it_read_lasts():
    """`kept_move_policy` keeps the policy in the procedure's kept table when each setting it read
    is a lasting answer, and reads it again in each phase when one is not."""
    from ruleslang.runtime.kit import moves

    class Settings:  # a procedure setting `later_carriers`, lasting or not
        def __init__(self, lasting):
            self.lasting, self.tables, self.asked = lasting, {}, []

        def has(self, name):
            return name == "later_carriers"

        def kept_value(self, name, default=None):
            self.asked.append(name)
            return True if name == "later_carriers" else default

        def is_lasting(self, key):
            return self.lasting

        def kept(self, name):
            return self.tables.setdefault(name, {})
    lasting, passing = Settings(True), Settings(False)
    policy = moves.kept_move_policy(lasting, None)
    assert policy.later_carriers and moves.kept_move_policy(lasting, None) is policy
    assert lasting.asked.count("later_carriers") == 1
    assert moves.kept_move_policy(passing, None) == moves.kept_move_policy(passing, None) == policy
    assert passing.asked.count("later_carriers") == 2


def test_a_unit_leaving_a_crowded_space_is_found_in_the_index_by_identity(aar, rules, monkeypatch):  # noqa: F811
    """`apply` moves the unit along in the player's units by space (`_follow`) without comparing
    the units before it field by field (the data class's `__eq__`)."""
    state = board(aar, """
        setup: empty
        units:
          Germany: {Germans: {infantry: 3}}
    """)
    germans = engine(state, rules, "Germans")
    first, second, last = sorted(u.id for u in state.units)
    assert germans.movable_units() == [first, second, last]
    assert _index(germans) == {"Germany": [first, second, last]}
    compared = []
    equal = Unit.__eq__
    monkeypatch.setattr(Unit, "__eq__", lambda self, other: compared.append(self.id) or equal(self, other))
    germans.apply(Move((last,), ("Germany", "Eastern Europe")))
    assert compared == []
    assert _index(germans) == {"Germany": [first, second], "Eastern Europe": [last]}
