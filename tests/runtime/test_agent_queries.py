"""The cheaper queries the heuristic agent's plans ask (issue 15, session 10) answer as the
queries they replaced: each is compared with the full one on every call of heuristic games."""

from __future__ import annotations

import pytest

from game_fixtures import make_game, run_phases
from ruleslang.runtime.agents.attack_planning import AttackPlanning
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.agents import heuristic, shipping
from ruleslang.runtime.agents.shipping import Shipping
from ruleslang.runtime.kit.movement import MovementEngine

HB = "Holland Belgium"
# a German bomber raids the United Kingdom from Holland Belgium, where a fighter that may escort
# it waits (Global 1940: its escorts fly once a raid has flown)
RAID = {"scenario": {"units": {HB: {"Germans": {"bomber": 1, "fighter": 1, "infantry": 1}},
                               "United Kingdom": {"British": {"infantry": 2, "fighter": 1}}}},
        "orders": {"Germans": [{"round": 1, "combat": [{"from": HB, "type": "bomber", "to": "United Kingdom",
                                                        "kind": "bomb"}],
                                "answers": {"bombing_raid.target": "industrial_complex"}}]}}


def _heuristic_game(seed: int, spare: tuple[str, ...] | None = None) -> None:
    """Play 3 rounds of a house-rules game with heuristic agents (the wrapped queries check as it
    goes); `spare`: the agents' parts of SPARE, where a test follows the game of an agent before one."""
    game = make_game(["aar/house-rules@1"], seed=seed, rounds=3, default_agent="heuristic")
    if spare is not None:
        for player in list(game.agents):
            game.agents[player] = HeuristicAgent(seed, player, spare=spare)
    game.run(3)


@pytest.mark.parametrize("case", ["heuristic", "escort"])
def test_a_units_raids_are_its_bomb_moves(case, monkeypatch):
    """`raids_of` (the combat plan asks it of every unit) lists the "bomb" moves `moves_of` gives,
    in its order: for bombers as heuristic plans are made, and for escorts once a raid has flown
    (after each raid, every unit of the player is asked)."""
    asked = {"units": 0, "raids": 0, "escorts": 0}
    kept, kept_apply = MovementEngine.raids_of, MovementEngine.apply

    def compared(self, unit_id):
        answer = kept(self, unit_id)
        assert answer == [m for m in self.moves_of(unit_id) if m.kind == "bomb"], unit_id
        asked["units"] += 1
        asked["raids"] += len(answer)
        if not self._ur[unit_id].can_bomb:
            asked["escorts"] += len(answer)
        return answer

    def applied(self, move):
        kept_apply(self, move)
        if move.kind == "bomb":
            for unit_id in self.movable_units():
                compared(self, unit_id)
    monkeypatch.setattr(MovementEngine, "raids_of", compared)
    monkeypatch.setattr(MovementEngine, "apply", applied)
    if case == "heuristic":
        # (the game of the agent before the parts "doubt", session 21, "reckon", session 23, and
        # "tally", session 26, whose seed-1 game raids with more units: with "doubt", or with the
        # dice "tally" draws, 9 units are asked)
        _heuristic_game(1, spare=tuple(part for part in heuristic.SPARE if part not in ("doubt", "reckon", "tally")))
        # (only `raiding_units` are asked: session 12; each once a plan, and escorts not before a
        # raid has flown: session 29)
        assert asked["units"] > 5 and asked["raids"] > 10, asked
    else:
        game = make_game(["g40/house-rules@1"], **RAID)
        run_phases(game, "Germans", "combat_move")
        assert asked["escorts"] == 1, asked


def _plain_front(game, player: str) -> dict[str, int]:
    """The land steps to the enemy's territories as the board's own queries give them (a
    search asking `controller` and `neighbours` of the board, as `front_distances` did)."""
    board = game.board
    enemy = [t for t in board.spaces("land")
             if (holder := board.controller(t)) is not None and not game.allied(holder, player)]
    found = {t: 0 for t in enemy}
    queue = list(enemy)
    while queue:
        here = queue.pop(0)
        for there in board.neighbours(here, "land"):
            if there not in found:
                found[there] = found[here] + 1
                queue.append(there)
    return found


def test_the_kept_land_steps_to_the_fighting_are_those_of_the_board(monkeypatch):
    """The heuristic's `Shipping` reads the land steps to the fighting kept while the territories
    the enemy holds stand (`_shipping`): on every call of heuristic games they equal a search on
    the board as it stands, and the commanded units the engine's; some calls reuse the kept
    steps on the same board, some on a later board (units moved, or a territory changed hands
    within a side)."""
    seen = {"calls": 0, "reused": 0, "later": 0}
    kept = HeuristicAgent._shipping

    def compared(self, game, engine=None, hostile=None):
        before = self._front_kept
        shipping = kept(self, game, engine, hostile)
        assert shipping._front == _plain_front(game, self.player)
        if engine is not None:
            assert shipping._commanded == frozenset(engine.commanded_units())
        seen["calls"] += 1
        seen["reused"] += before is self._front_kept
        seen["later"] += before is not None and before is not self._front_kept and before[4] is self._front_kept[4]
        return shipping
    monkeypatch.setattr(HeuristicAgent, "_shipping", compared)
    _heuristic_game(2)
    assert seen["calls"] > 20 and seen["reused"] > 5 and seen["later"] > 5, seen


def test_the_kept_land_steps_follow_a_change_of_control():
    """A territory changing hands steps the board's version: the steps are worked out again."""
    game = make_game(["aar/house-rules@1"], seed=1)
    agent = HeuristicAgent(1, "Germans")
    first = agent._shipping(game)
    assert agent._shipping(game)._front is first._front  # the same board: kept
    near = min((t for t, n in first._front.items() if n == 1), key=game.space_order)
    held = next(t for t in game.board.neighbours(near, "land") if first._front.get(t) == 0)
    game.state.set_control(held, "Germans")
    again = agent._shipping(game)
    assert again._front is not first._front and again._front == _plain_front(game, "Germans")
    assert again._front.get(held) != 0
    # a change of hands within the player's side leaves the enemy's territories as they were: kept
    ally = next(p for p in game.board.players() if p != "Germans" and game.allied(p, "Germans"))
    game.state.set_control(held, ally)
    steps = agent._shipping(game)._front
    game.state.set_control(held, "Germans")
    assert agent._shipping(game)._front is steps
    assert steps == _plain_front(game, "Germans")


def test_the_enemy_held_territories_are_looked_at_again_only_where_a_territory_changed_hands(monkeypatch):
    """A board whose version moved with no territory changing hands (units moved, a treasury
    changed) has the enemy holding what it held: the kept steps are taken without looking over the
    territories again (`enemy_held`); a change of hands looks again."""
    looked = []
    real = heuristic.enemy_held

    def counted(game, player):
        looked.append(player)
        return real(game, player)
    monkeypatch.setattr(heuristic, "enemy_held", counted)
    game = make_game(["aar/house-rules@1"], seed=1)
    agent = HeuristicAgent(1, "Germans")
    first = agent._shipping(game)._front
    game.state.change_treasury("Germans", 5)
    unit = next(u for u in game.state.units if u.owner == "Germans" and u.type == "infantry")
    game.state.move_units([unit.id], next(iter(game.board.neighbours(unit.space, "land"))))
    assert agent._shipping(game)._front is first and len(looked) == 1
    held = next(t for t, n in first.items() if n == 0)
    game.state.set_control(held, "Germans")
    again = agent._shipping(game)._front
    assert len(looked) == 2 and again == _plain_front(game, "Germans") and again.get(held) != 0


def test_a_what_if_leaves_the_engine_its_answers(monkeypatch):
    """A what-if of the score (`_what_if_taken`) puts the board back as it was, and the phase's
    movement engine keeps what it worked out (`MovementEngine.restored`): on every what-if of
    heuristic games, the engine's movable units and their destinations equal those of the same
    engine rebuilt from the board; and the engine was kept some of the time."""
    seen = {"what_ifs": 0, "kept": 0}
    kept_restored = MovementEngine.restored

    def compared(self, version):
        kept_restored(self, version)
        seen["what_ifs"] += 1
        if self._version != self.state.version:
            return
        seen["kept"] += 1
        movable = self.movable_units()
        reach = {uid: self.destinations(uid) for uid in movable}
        self._version = None  # rebuilt on the next query
        assert self.movable_units() == movable
        assert {uid: self.destinations(uid) for uid in movable} == reach
    monkeypatch.setattr(MovementEngine, "restored", compared)
    _heuristic_game(1)
    assert seen["kept"] > 20, seen



def test_the_kept_steps_to_the_fronts_are_those_of_the_map(monkeypatch):
    """`_distance` keeps each space's steps to the non-combat plan's fronts: every answer equals
    the one worked out anew (asked with a copy of the fronts, which is not kept), and some are kept."""
    seen = {"calls": 0, "kept": 0}
    kept = HeuristicAgent._distance

    def compared(self, game, space, fronts):
        was_kept = fronts is self._fronts and space in self._steps
        answer = kept(self, game, space, fronts)
        assert answer == kept(self, game, space, list(fronts)), space
        seen["calls"] += 1
        seen["kept"] += was_kept
        return answer
    monkeypatch.setattr(HeuristicAgent, "_distance", compared)
    _heuristic_game(2)
    assert seen["calls"] > 100 and seen["kept"] > 50, seen


def test_a_combat_plan_asks_each_target_once_and_its_answer_holds(monkeypatch):
    """The combat plan keeps `_target`'s answer per space while it is made (the board stands
    still meanwhile): each space is asked once a plan, and asked again once the plan is made,
    every answer is the same."""
    kept_target, kept_plan = AttackPlanning._target, AttackPlanning._combat_plan
    asked: list[dict] = []
    seen = {"plans": 0, "spaces": 0}

    def target(self, game, space):
        answer = kept_target(self, game, space)
        if asked:
            assert space not in asked[-1], space  # once a plan
            asked[-1][space] = answer
        return answer

    def plan(self, game, engine):
        asked.append({})
        made = kept_plan(self, game, engine)
        for space, answer in asked.pop().items():
            assert kept_target(self, game, space) == answer, space
            seen["spaces"] += 1
        seen["plans"] += 1
        return made
    monkeypatch.setattr(AttackPlanning, "_target", target)
    monkeypatch.setattr(AttackPlanning, "_combat_plan", plan)
    _heuristic_game(3)
    # (41 spaces in 15 plans: the air units aim at the spaces the land units reach alone, session
    # 29; over 100 when their walks asked every space they reach)
    assert seen["plans"] > 5 and seen["spaces"] > 30, seen


def _kept_by_kind(monkeypatch, cls, name: str, memo, check, *, unit_at: int) -> dict:
    """Wrap `cls.name` (a unit is its argument `unit_at`, after self): each answer is given to
    `check(self, args, answer)`; counts the calls and those whose unit kind (type, owner) the
    memo `memo(self)` held before the call."""
    seen = {"calls": 0, "kept": 0}
    kept = getattr(cls, name)

    def ask(self, *args):
        unit = args[unit_at]
        was = (unit.type, unit.owner) in memo(self)
        answer = kept(self, *args)
        check(self, args, answer)
        seen["calls"] += 1
        seen["kept"] += was
        return answer
    monkeypatch.setattr(cls, name, ask)
    return seen


def test_a_shippings_kept_transport_settings_are_the_units_own(monkeypatch):
    """`Shipping` keeps each unit kind's transport capacity and cargo cost for its decision: on
    every call of a heuristic game the kept answer equals the kit's for that very unit, and most
    answers were kept."""
    def same_capacity(self, args, answer):
        assert answer == self.facts.transport_capacity(args[0]), args[0].type

    def same_cost(self, args, answer):
        assert answer == self.facts.transport_cost(args[0]), args[0].type
    capacity = _kept_by_kind(monkeypatch, Shipping, "capacity", lambda s: s._capacities, same_capacity, unit_at=0)
    cost = _kept_by_kind(monkeypatch, Shipping, "cargo_cost", lambda s: s._cargo_costs, same_cost, unit_at=0)
    # the player's transports and stranded units read the kept settings in line (session 12):
    # each list equals the one made by asking the kit of every unit
    lists = {"transports": 0, "ashore": 0}
    kept_transports, kept_ashore = Shipping.transports, Shipping._ashore_far

    def transports(self):
        answer = kept_transports(self)
        assert answer == [u for u in self._mine_units() if self.facts.transport_capacity(u) > 0]
        lists["transports"] += bool(answer)
        return answer

    def ashore(self, used):
        answer = kept_ashore(self, used)
        assert answer == [u for u in self._mine_units() if u.id not in used and self.board.is_land(u.space)
                          and self.facts.transport_cost(u) > 0 and self.front_distance(u.space) is None]
        lists["ashore"] += bool(answer)
        return answer
    monkeypatch.setattr(Shipping, "transports", transports)
    monkeypatch.setattr(Shipping, "_ashore_far", ashore)
    _heuristic_game(2)
    assert cost["calls"] > 50 and cost["kept"] > cost["calls"] // 5, cost
    # (`transports` reads the kept capacities in line and asks `capacity` of a kind's first unit;
    # since session 27 the assaults' `_support`, which asked it of the kinds kept, runs only where
    # the rules advise a landing support, none in the house rules)
    assert capacity["calls"] > 50 and capacity["kept"] > 0, capacity
    assert lists["transports"] > 20 and lists["ashore"] > 5, lists


def test_a_combatants_kept_cost_and_hit_points_are_the_units_own(monkeypatch):
    """`_combatant` asks a unit kind's cost and hit points once a decision: on every call of a
    heuristic game they equal the kit's for that very unit, and most were kept."""
    def same(self, args, answer):
        game, unit, _ = args
        assert answer[1:] == (game.unit_cost(unit), max(1, game.hit_points(unit))), unit.type
    seen = _kept_by_kind(monkeypatch, HeuristicAgent, "_combatant", lambda a: a._kinds, same, unit_at=1)
    _heuristic_game(2)
    assert seen["calls"] > 500 and seen["kept"] > seen["calls"] // 2, seen


def test_a_kept_domain_is_the_units_own(monkeypatch):
    """`_domain` asks a unit kind's movement domain once a decision: on every call of a heuristic
    game it equals the kit's for that very unit, and most were kept."""
    def same(self, args, answer):
        game, unit = args
        assert answer == game.domain(unit), unit.type
    seen = _kept_by_kind(monkeypatch, HeuristicAgent, "_domain", lambda a: a._domains, same, unit_at=1)
    _heuristic_game(2)
    assert seen["calls"] > 500 and seen["kept"] > seen["calls"] // 2, seen


def test_landings_read_in_line_are_the_landing_problems_answers(monkeypatch):
    """`landings` reads a territory's landing answer in line (session 12): on every call of a
    heuristic game it equals the spaces `_landing_problem` finds no problem with, in natural
    order, with the same carrier room."""
    seen = {"calls": 0, "territories": 0}
    kept = MovementEngine.landings

    def compared(self, unit_id, path):
        answer = kept(self, unit_id, path)
        unit = self._unit(unit_id)
        rules = self._rules(unit)
        if rules.domain == "air" and rules.movement - unit.moved - (len(path) - 1) >= 0:
            left = rules.movement - unit.moved - (len(path) - 1)
            spaces = sorted([path[-1], *(s for s, _ in self.board.air_reach(path[-1], left))],
                            key=self.board.order.__getitem__)
            expected = {}
            for space in spaces:
                if self._landing_problem(unit, rules, space, later=False) is None:
                    expected[space] = None if not self.board.is_sea[space] else (
                        (self._rooms().get(space, 0) + (rules.carrier_cost if unit.space == space else 0))
                        // rules.carrier_cost)
            assert list(answer.items()) == list(expected.items()), (unit_id, path)
            seen["calls"] += 1
            seen["territories"] += sum(1 for v in answer.values() if v is None)
        return answer
    monkeypatch.setattr(MovementEngine, "landings", compared)
    # the plans ask whether a flight lands ashore (`lands_ashore`) before they ask `landings` (only
    # where none is ashore): `landings` is asked here of every such flight too
    ashore = MovementEngine.lands_ashore

    def asked(self, unit_id, path):
        self.landings(unit_id, path)
        return ashore(self, unit_id, path)
    monkeypatch.setattr(MovementEngine, "lands_ashore", asked)
    _heuristic_game(2)
    assert seen["calls"] > 20 and seen["territories"] > 100, seen


def test_a_danger_read_in_line_is_the_sum_of_its_neighbours_threats(monkeypatch):
    """`_danger` reads the threats worked out already in line (session 12): on every call of a
    heuristic game it equals the sum of `_threat` over the territory's neighbours."""
    seen = {"calls": 0, "threatened": 0}
    kept = HeuristicAgent._danger

    def compared(self, game, territory):
        answer = kept(self, game, territory)
        assert answer == sum(self._threat(game, n) for n in game.board.neighbours(territory, "all")), territory
        seen["calls"] += 1
        seen["threatened"] += answer > 0
        return answer
    monkeypatch.setattr(HeuristicAgent, "_danger", compared)
    _heuristic_game(2)
    assert seen["calls"] > 100 and seen["threatened"] > 20, seen


@pytest.mark.parametrize("case", ["heuristic", "escort"])
def test_raiding_units_hold_every_unit_with_a_raid_or_an_escort(case, monkeypatch):
    """`raiding_units` (the combat plan asks it before it asks each unit for its raids, session 12)
    holds every unit of the player that `raids_of` gives a move or `escorts_raids` says yes of,
    on every call: as heuristic plans are made, and once a raid has flown (escorts)."""
    seen = {"calls": 0, "raiding": 0, "escorting": 0}
    kept = MovementEngine.raiding_units

    def compared(self):
        answer = kept(self)
        raiding = [u.id for u in self._mine if self.raids_of(u.id)]
        escorting = [u.id for u in self._mine if self.combat and self.escorts_raids(u.id)]
        assert set(raiding) | set(escorting) <= set(answer), (raiding, escorting, answer)
        seen["calls"] += 1
        seen["raiding"] += len(raiding)
        seen["escorting"] += len(escorting)
        return answer
    kept_apply = MovementEngine.apply

    def applied(self, move):
        kept_apply(self, move)
        if move.kind == "bomb":
            self.raiding_units()
    monkeypatch.setattr(MovementEngine, "raiding_units", compared)
    monkeypatch.setattr(MovementEngine, "apply", applied)
    if case == "heuristic":
        _heuristic_game(1)
        assert seen["calls"] > 20 and seen["raiding"] > 5, seen
    else:
        game = make_game(["g40/house-rules@1"], **RAID)
        run_phases(game, "Germans", "combat_move")
        assert seen["escorting"] > 0 and seen["raiding"] > 0, seen


def test_front_distances_over_kept_land_steps_are_the_maps(monkeypatch):
    """The agent's land steps to the fighting search the map's land neighbours kept by territory
    (`land_steps`, session 12): on every call of heuristic games they equal the search over the
    map's own method."""
    seen = {"calls": 0, "kept": 0}
    kept = shipping.front_distances

    def compared(game, player, enemy=None, land=None):
        answer = kept(game, player, enemy, land)
        assert answer == kept(game, player, enemy), player
        seen["calls"] += 1
        seen["kept"] += land is not None
        return answer
    monkeypatch.setattr(shipping, "front_distances", compared)
    monkeypatch.setattr(heuristic, "front_distances", compared)
    _heuristic_game(2)
    assert seen["kept"] > 5, seen


def test_a_kept_enemy_free_space_is_the_boards(monkeypatch):
    """`Shipping` keeps whether a space holds enemy units for its decision (session 12), or
    reads it from the caller's spaces holding units not on the player's side (the non-combat
    plan's threats' table, session 28; the combat plan's `foe_spaces`, session 31): on every
    call of a heuristic game the answer equals the board's as it stands, every one read from the
    caller's spaces; a `Shipping` without them keeps its answers."""
    seen = {"calls": 0, "kept": 0, "told": 0, "enemy": 0}
    kept = Shipping._enemy_free

    def compared(self, space):
        was = space in self._free
        answer = kept(self, space)
        assert answer == (not any(self._enemy(u.owner) for u in self.board.units(space))), space
        seen["calls"] += 1
        seen["kept"] += was
        seen["told"] += self._hostile is not None
        seen["enemy"] += not answer
        return answer
    monkeypatch.setattr(Shipping, "_enemy_free", compared)
    _heuristic_game(2)
    assert seen["calls"] > 50 and seen["told"] == seen["calls"] and seen["enemy"] > 0, seen
    game = make_game(["aar/house-rules@1"])
    plain = Shipping(game, "Germans")  # (no spaces told: each answer asked of the board, then kept)
    answers = [compared(plain, space) for space in game.board.spaces("sea")[:20] * 2]
    assert answers[:20] == answers[20:] and seen["kept"] == 20, seen


def test_the_fewest_units_asks_each_units_estimate_values_once(monkeypatch):
    """`_fewest_spared` makes the quick simulation's values of the defence and of each unit once,
    adding a unit's as the number grows (each number made those of all its units again): every
    `_quick_takes` it asks is given the sorted values `_quick_takes` would make of those units,
    and a call asks `_combatant` at most once for each unit it could try and each defender."""
    kept_fewest, kept_quick = AttackPlanning._fewest_spared, HeuristicAgent._quick_takes
    kept_combatant = HeuristicAgent._combatant
    seen = {"calls": 0, "numbers": 0, "given": 0}
    inside: list[int] = []

    def fewest(self, game, target, units, defenders, needed, land):
        inside.append(0)
        try:
            answer = kept_fewest(self, game, target, units, defenders, needed, land)
        finally:
            asked = inside.pop()
        tried = (answer if answer is not None else len(units)) - land + 1
        assert asked <= len(units) + len(defenders), (asked, len(units), len(defenders))
        seen["calls"] += 1
        seen["numbers"] += tried > 1
        return answer

    def quick(self, game, attack, defence, settle=None, **given):
        values = given.get("values")
        if values is not None:
            # (the check's own asks are not the plan's; an assault's estimate, outside
            # `_fewest_spared`, is given the values `_spared_takes` made once for its stages)
            before = inside[-1] if inside else None
            assert values == (tuple(sorted(self._taker(game, u) for u in attack)),
                              self._defence_values(game, defence))
            if inside:
                inside[-1] = before
            seen["given"] += 1
        return kept_quick(self, game, attack, defence, settle, **given)

    def combatant(self, game, unit, side):
        if inside:
            inside[-1] += 1
        return kept_combatant(self, game, unit, side)
    monkeypatch.setattr(AttackPlanning, "_fewest_spared", fewest)
    monkeypatch.setattr(HeuristicAgent, "_quick_takes", quick)
    monkeypatch.setattr(HeuristicAgent, "_combatant", combatant)
    _heuristic_game(1)
    assert seen["calls"] > 20 and seen["numbers"] > 5 and seen["given"] > 40, seen


def _within(where: list, label: str, kept, after=None):
    """`kept` (a method) wrapped to note `label` in `where` while it runs, then call `after`."""
    def wrapped(self, *args):
        where.append(label)
        try:
            return kept(self, *args)
        finally:
            where.pop()
            if after is not None:
                after()
    return wrapped


def test_a_combat_plan_asks_a_units_fire_and_a_zones_enemies_once(monkeypatch):
    """The combat plan orders each target's candidates by a key found once a unit (its attack
    fire asked at its first target), and the attacks at sea keep each zone's enemies for the
    plan (whether to attack it, its fleet's worth, the defence): no unit's attack fire is asked
    twice by the plan's targets on land, nor a zone's enemies twice by `_fleet_attacks`, which
    asks none of a zone where no unit stands."""
    kept_plan, kept_fleets = AttackPlanning._combat_plan, AttackPlanning._fleet_attacks
    kept_fire, kept_enemies = HeuristicAgent._fire, HeuristicAgent._enemies
    where: list[str] = []  # "land" in the plan's targets on land, "sea" in `_fleet_attacks`
    asked: dict[str, list] = {"land": [], "sea": []}
    seen = {"plans": 0, "fire": 0, "zones": 0}

    def planned():  # a plan made: what it asked, each once
        for kind, counted in (("fire", asked["land"]), ("zones", asked["sea"])):
            assert len(counted) == len(set(counted)), sorted(counted)
            seen[kind] += len(counted)
            counted.clear()
        seen["plans"] += 1
    plan = _within(where, "land", kept_plan, planned)
    fleets = _within(where, "sea", kept_fleets)

    def fire(self, game, unit, side):
        if where and where[-1] == "land" and side == "attacker":
            asked["land"].append(unit.id)
        return kept_fire(self, game, unit, side)

    def enemies(self, game, space):
        if where and where[-1] == "sea":
            assert game.board.units_in(space), space  # (a zone with no units has no enemies to ask for)
            asked["sea"].append(space)
        return kept_enemies(self, game, space)
    monkeypatch.setattr(AttackPlanning, "_combat_plan", plan)
    monkeypatch.setattr(AttackPlanning, "_fleet_attacks", fleets)
    monkeypatch.setattr(HeuristicAgent, "_fire", fire)
    monkeypatch.setattr(HeuristicAgent, "_enemies", enemies)
    _heuristic_game(1)
    assert seen["plans"] > 5 and seen["fire"] > 30 and seen["zones"] > 10, seen


def test_the_noncombat_plan_asks_no_destinations_of_a_unit_at_a_front(monkeypatch):
    """A unit standing at one of the non-combat plan's fronts stays there: the plan asks the
    engine where it could go only of the units elsewhere (and of the allies' units it commands,
    whose moves the rules' constraints are asked of), and moves none from a front."""
    kept_plan = HeuristicAgent._noncombat_plan
    planning: list = []  # the agent making its non-combat plan
    seen = {"plans": 0, "asked": 0, "stay": 0}

    def plan(self, game, engine):
        planning.append((self, game))
        try:
            made = kept_plan(self, game, engine)
        finally:
            planning.pop()
        at_front = {u.id for u in game.state.units if u.space in self._fronts}
        assert not any(uid in at_front and move.kind == "move" for move in made for uid in move.units)
        seen["plans"] += 1
        seen["stay"] += len(at_front)
        return made

    def asking(kept):  # (the plan asks the engine's kept reaches, and a commanded unit's copy)
        def destinations(self, unit_id):
            if planning:
                agent, game = planning[-1]
                assert game.unit_or_none(unit_id).space not in agent._fronts or unit_id in agent._commanded, unit_id
                seen["asked"] += 1
            return kept(self, unit_id)
        return destinations
    monkeypatch.setattr(HeuristicAgent, "_noncombat_plan", plan)
    for name in ("destinations", "kept_destinations"):
        monkeypatch.setattr(MovementEngine, name, asking(getattr(MovementEngine, name)))
    _heuristic_game(2)
    assert seen["plans"] > 5 and seen["asked"] > 50 and seen["stay"] > 50, seen
