"""The heuristic agent: buys sensibly, attacks battles it expects to win, defends what matters.

Generic over rulesets: it reads the rules only through the ruleset, never by a rule's own names:
unit costs, hit points and movement are the settings of their runtime procedures (a unit's cost,
for casualties and simulated battles too, is the purchase procedure's `cost` setting), a
territory is worth the ruleset's `advice territory_value(t)` plus what taking it changes in the
composition's `score(side)` (the active victory conditions), and battles are estimated by the
exact battle chain of the rules' own steps (battle_odds.py, within its budget), guided by and
falling back to a quick simulation with its own random generator (never the game's dice) in
which each unit fires at the ruleset's `advice firepower(u, side)` (the value its battle steps
roll against). Without that advice, a territory is worth 0 and a unit fires at 0 (neutral
values). It then plays:

- purchase: a factory where the rules make one worth it (FACTORY_PAYBACK below; its cost is the
  purchase's `factory_cost` setting, its site one the rules' `constraint on build` accepts), then
  the land units with the best value for money for attack and defence (their firepower; about
  two defenders for each attacker), plus an air unit when it can afford one;
- combat move: attacks the most valuable reachable enemy spaces (and spaces no one holds that the
  rules value) it takes with high odds, with the
  fewest units that keep the odds (`_fewest`), capitals and score-bearing territories first; enemy ships
  with the fewest sea and air units that win by the exact chain and destroy more value than they
  lose (`_fleet_attacks`); units no attack
  needs that can bomb raid the richest enemy factory they reach, with escorts where enemy air units wait; an air unit goes only where it
  keeps a landing whatever the battles give (the engine's `landings`; carrier places promised once);
- non-combat move: moves units toward the nearest threatened own territory (capitals first);
  transports carry the units that cannot reach the fighting by land to the friendly coast
  nearest it (shipping.py), and land them on an enemy coast in combat move when the odds are good,
  with the ships the ruleset's `advice landing_support` names that reach the zone they land from;
  the purchase adds transports while such units wait ashore; then every air unit with no landing
  where it stands lands where the engine offers (its own carrier first);
- placement: at the factory nearest the front; casualties: cheapest first, multi-hit units absorb
  first;
- rule decisions (`choose`): the answer the ruleset's `advice` on the decision's id gives, fed the
  estimates it asks for (`win_chance`: the battle odds of the battle being fought); without
  advice, the answer that does best by a short look-ahead on a copy of the game with its own
  rules (lookahead.py: the phase played on with each answer, the state it ends in valued),
  else a neutral answer by the options' types (yes, the most, the first option, none);
- bids: each unit bought with a bid (the most costly first) where it adds most, by the quick
  simulation, to holding the space it stands in or to taking an enemy space next to it
  (`_place_bid`).

`previous=True` is the agent as shipped before the look-ahead and the bid placement (no look-ahead,
bid units placed as other units are, no attacks at sea), kept to measure against (benchmarks/play.py).
"""

from __future__ import annotations

import random
from fractions import Fraction

from ruleslang.lang.check.advice import OPTIONS
from ruleslang.runtime.decisions import DONE, Agent, Decision
from ruleslang.runtime.agents.battle_odds import BattleOdds, most_numerous_owner
from ruleslang.runtime.agents.lookahead import MARGIN, Lookahead, candidates, follow
from ruleslang.runtime.agents.quick_battle import SIM_TRIALS, simulate
from ruleslang.runtime.agents.shipping import Shipping
from ruleslang.runtime.kit.casualties import casualty_order, cheapest_rank, enemy_casualty_order
from ruleslang.runtime.kit.movement import Move
from ruleslang.runtime.kit.placement import pack

ATTACK_ODDS = 0.75   # attack when the simulated chance of taking the space is at least this
SCORE_ODDS = 0.55    # ... or this, for a space that raises the side's score
QUICK_MARGIN = 0.25  # the quick simulation misses by about this much (it ignores support fire and first strikes)
EXTRA_UNITS = 2      # units added to the quick guess of an attack while the exact odds fall short
FLEET_STATES = 600   # the exact chain's states for one combat move's attacks at sea (battle_odds.py)
# A factory is bought where the rules let one be built and it pays: in a territory whose value
# repays the factory's cost within FACTORY_PAYBACK turns, at least FACTORY_SPACING land steps from
# its side's factories (or out of their land reach), FACTORY_GAIN land steps nearer the fighting
# than the player's own (or where they cannot reach it by land), that the enemy next to it would
# take with less than HOLD_ODDS; with at least the factory's cost left for units.
FACTORY_PAYBACK = 5
FACTORY_SPACING = 3
FACTORY_GAIN = 2
HOLD_ODDS = 0.25


class HeuristicAgent(Agent):
    name = "heuristic"
    deterministic = True

    def __init__(self, seed: int, player: str, odds: str = "quick", *, previous: bool = False,
                 check_advice: bool = False, sims: dict | None = None, rollout: bool = False):
        """`odds`: "quick", battles estimated by the quick simulation (the shipped agent), or "exact",
        by the exact battle chain within its budget (battle_odds.py). Exact odds are not yet the
        default: until the chain is faster they make a game about 5x slower, and in
        benchmarks/play.py's first duels the agent with them did not beat the quick one (the
        thresholds are not tuned for them yet). `previous`: play as the agent shipped before
        the look-ahead and bid placement (see the module docstring). `check_advice`: also look
        ahead at decisions the ruleset advises on, counting in `advice_checks` (decision id ->
        [agreed, disagreed]) whether the advised answer is the look-ahead's best (within its
        MARGIN); the advice is still followed. `sims`: a memo of the quick simulation's estimates
        shared with other agents (the quick policies of one look-ahead, lookahead.py), which ask
        about the same battles in every rollout. `rollout`: the agent plays in a look-ahead's
        rollout, which values the state the turn ends in (lookahead.py's `valuation`): of the
        non-combat moves it makes only the landings of air units (an air unit with no landing is
        lost; where the other units stand is not valued): about a sixth of the look-ahead's
        time in a Global 1940 game."""
        self.player = player
        self.seed = seed
        self.previous = previous
        self.check_advice = check_advice
        self.advice_checks: dict[str, list[int]] = {}
        # the quick policies of the look-ahead's rollouts: this agent as shipped before it
        self.lookahead = None if previous else Lookahead(
            player, lambda p, sims: HeuristicAgent(seed, p, previous=True, sims=sims, rollout=True))
        self.sims = sims
        self.rollout = rollout
        self.battle_odds = BattleOdds() if odds == "exact" else None
        # the exact chain for attacks at sea (`_fleet_attacks`): small battles, FLEET_STATES a plan
        self.fleet_odds = BattleOdds(decision_states=FLEET_STATES)
        self.rng = random.Random(f"heuristic:{seed}:{player}")
        self._plan: list = []
        self._plan_key = None
        self._deltas: dict[str, float] = {}  # space -> _score_delta, for the plan being made
        self._score_now: tuple | None = None  # (state, its version, side, score): `_what_if_taken`'s "before"
        self._combatants: dict[tuple, tuple] = {}  # (unit id, type, owner, side) -> _combatant, this decision
        self._worth: dict[str, int] = {}  # space -> _territory_value, this decision
        self._origins: dict[int, str] = {}  # air unit id -> where it stood when this turn's combat move was planned
        self._fronts: list[str] = []  # the territories the non-combat plan moves toward
        self._grounded: set[int] = set()  # air units with no landing offered, this phase

    def joined(self, game) -> None:
        if self.lookahead is not None:
            follow(game)  # the game keeps its phase starts for the look-ahead

    def decide(self, decision: Decision, game):
        self._combatants = {}
        self._worth = {}
        if self.battle_odds is not None:
            self.battle_odds.new_decision()
        return getattr(self, "_" + decision.kind)(decision, game)

    # ------------------------------------------------------------------ unit facts

    def _domain(self, game, unit) -> str:
        return game.domain(unit)

    def _fire(self, game, unit, side: str) -> int:
        """The value `unit` fires at on `side` ("attacker" or "defender") of a battle: the
        ruleset's `advice firepower`, else 0."""
        return self._combatant(game, unit, side)[0]

    def _type_fire(self, game, type_name: str, side: str) -> int:
        """The value a unit of `type_name` of this player would fire at on `side`."""
        return self._fire(game, _Sample(type_name, self.player), side)

    def _combatant(self, game, unit, side: str) -> tuple[int, int, int]:
        """(fire value, cost, hit points) of a unit in a simulated battle, by the rules' values: its
        firepower advice (0 without it), its purchase cost setting and its hit points setting."""
        # a stand-in unit (_Sample) has no id of its own: its type and owner tell it apart
        key = (unit.id, unit.type, unit.owner, side)
        found = self._combatants.get(key)
        if found is None:
            advice = game.compiled.advice("firepower")
            fire = advice.fn(game.ctx, game.ctx.unit_value(unit), side) if advice is not None else 0
            found = self._combatants[key] = (fire, game.unit_cost(unit), max(1, game.hit_points(unit)))
        return found

    def _territory_value(self, game, space: str) -> int:
        """What `space` is worth: the ruleset's `advice territory_value`, else 0 (every space alike)."""
        found = self._worth.get(space)
        if found is None:
            advice = game.compiled.advice("territory_value")
            found = advice.fn(game.ctx, game.ctx.space_values[space]) if advice is not None else 0
            self._worth[space] = found
        return found

    # ------------------------------------------------------------------ choose

    def _choose(self, d: Decision, game):
        """The answer the ruleset advises (an `advice` on the decision's id), else the best by
        look-ahead (lookahead.py), else a neutral one."""
        advice = game.compiled.advice(d.id) if d.id else None
        if advice is not None:
            answer = self._advised(advice, d, game)
            if answer is not _NO_ADVICE:
                if self.check_advice and self.lookahead is not None:
                    self._check_advice(d, game, answer)
                return answer
        if self.lookahead is None:
            return _neutral(d)
        return self.lookahead.choose(game, d, _neutral(d))

    def _check_advice(self, d: Decision, game, advised) -> None:
        """Count whether the look-ahead finds no answer better than the advised one by more than MARGIN."""
        values = self.lookahead.values(game, d, candidates(d, advised))
        if values is None:
            return
        tally = self.advice_checks.setdefault(d.id, [0, 0])
        tally[0 if max(values) <= values[0] + MARGIN else 1] += 1

    def _advised(self, advice, d: Decision, game):
        """The advised answer, or _NO_ADVICE when an estimate it needs cannot be made or the rules'
        answer is not a legal one here."""
        args = []
        for name in advice.params:
            value = tuple(d.options) if name == OPTIONS else getattr(self, "_estimate_" + name)(d, game)
            if value is None:
                return _NO_ADVICE
            args.append(value)
        answer = advice.fn(game.ctx, *args)
        if d.mode == "one":
            return answer if answer in d.options else _NO_ADVICE
        chosen = tuple(o for o in d.options if o in answer)
        fits = len(chosen) == d.count if d.mode == "exactly" else len(chosen) <= d.count
        return chosen if fits else _NO_ADVICE

    def _estimate_win_chance(self, d: Decision, game) -> Fraction | None:
        """The chance that the deciding player's side wins the battle being fought."""
        battle = getattr(game.ctx, "battle", None)  # set while a battle is fought
        if battle is None:
            return None
        support = battle.support_units() if battle.amphibious else []
        # what outlives this round (its casualties are still on the board until it ends); the
        # previous agent (odds="quick") counted them too, and is kept as it played
        sides = battle.standing if self.battle_odds is not None else battle.units
        attack, defence = sides("attacker"), sides("defender")
        found = None if self.battle_odds is None else self.battle_odds.chance(
            game, battle.attacker, attack, battle.space, defence=defence,
            amphibious_from=support[0].space if support else None)
        # the quick simulation's count as a fraction: an advice's threshold is compared exactly
        won = Fraction(found) if found is not None else Fraction(self._wins(game, attack, defence), SIM_TRIALS)
        return won if game.allied(d.player, battle.attacker) else 1 - won

    # ------------------------------------------------------------------ purchase

    def _purchase(self, d: Decision, game):
        money = d.context["money"]
        costs = d.context["costs"]
        build = [] if d.refusals else self._factory(d, game)
        if build:
            money -= d.context["factory_cost"](build[0])
        money_at_start = money
        land, air = [], []
        facts = game.unit_rules()
        for t, c in costs.items():
            sample = _Sample(t, self.player)
            domain = facts.domain(sample)
            if domain == "land" and (self._type_fire(game, t, "attacker") or self._type_fire(game, t, "defender")):
                land.append(t)
            elif domain == "air":
                air.append(t)
        if not land:
            return {"units": {}, "build": build}
        # a count bought is a number of lots (`lots`: the types sold several at a time) and a cost the
        # price of a lot: a lot is worth what all its units give
        lots = d.context.get("lots", {})

        def fire(t: str, side: str) -> int:
            return self._type_fire(game, t, side) * lots.get(t, 1)
        defender = max(land, key=lambda t: (fire(t, "defender") / costs[t], -costs[t], t))
        attacker = max(land, key=lambda t: (fire(t, "attacker") / costs[t], fire(t, "attacker"), t))
        bought: dict[str, int] = {}
        if air and money >= 30:
            plane = max(air, key=lambda t: (fire(t, "defender") + fire(t, "attacker"), -costs[t], t))
            bought[plane] = 1
            money -= costs[plane]
        order = [defender, defender, attacker]
        i = 0
        while money >= min(costs[defender], costs[attacker]):
            t = order[i % 3]
            if costs[t] > money:
                t = defender if costs[defender] <= money else attacker
            bought[t] = bought.get(t, 0) + 1
            money -= costs[t]
            i += 1
        for t, n in self._transports_to_buy(game, costs, money_at_start, lots).items():
            # ships for the units that cannot reach the fighting by land: bought first, then
            # the land units above with what is left
            bought = self._with_ships(bought, costs, t, n, money_at_start)
        if d.refusals:
            # the rules refused: halve the purchase until they accept
            halved = {t: n // (2 ** len(d.refusals)) for t, n in bought.items()}
            bought = {t: n for t, n in halved.items() if n}
        return {"units": bought, "build": build}

    def _factory(self, d: Decision, game) -> list[str]:
        """Where to build a factory this turn ([] or [territory]): the most valuable site worth one
        (see FACTORY_PAYBACK) that the rules accept (the decision's check: the budget and the
        rules' `constraint on build`). Its cost is the purchase's `factory_cost` setting."""
        factory_cost = d.context.get("factory_cost")
        check = d.context.get("check")
        if factory_cost is None or check is None:
            return []
        board = game.board
        money = d.context["money"]
        factories = [s for s, f in game.state.factories.items() if f.owner == self.player]
        side_factories = [s for s, f in game.state.factories.items() if game.allied(f.owner, self.player)]
        shipping = Shipping(game, self.player)
        fronts = [shipping.front_distance(s) for s in factories]
        nearest_front = min((f for f in fronts if f is not None), default=None)
        sites = []
        for site in board.spaces("land"):
            if board.controller(site) != self.player or site in game.state.factories:
                continue
            front = shipping.front_distance(site)
            if front is None or (nearest_front is not None and front > nearest_front - FACTORY_GAIN):
                continue  # not enough nearer the fighting than the factories it has
            cost = factory_cost(site)
            worth = self._territory_value(game, site)
            if worth * FACTORY_PAYBACK < cost or money - cost < cost:
                continue
            steps = [board.distance(site, f, by="land") for f in side_factories]
            if any(n is not None and n < FACTORY_SPACING for n in steps):
                continue
            sites.append(site)
        for site in sorted(sites, key=lambda t: (-self._territory_value(game, t), game.space_order(t))):
            if self._holds(game, site) and not check({"units": {}, "build": [site]}):
                return [site]
        return []

    def _holds(self, game, territory: str) -> bool:
        """Whether the player can hold `territory`: the enemy units next to it would take it from
        the units of its side there with less than HOLD_ODDS (a quick simulation)."""
        board = game.board
        attack = [u for n in board.neighbours(territory, "all") for u in board.units(n)
                  if not game.allied(u.owner, self.player) and self._fire(game, u, "attacker") > 0]
        if not attack:
            return True
        defence = [u for u in board.units(territory) if game.allied(u.owner, self.player)]
        return self.odds(game, most_numerous_owner(attack), attack, defence, territory) < HOLD_ODDS

    def _transports_to_buy(self, game, costs: dict, money: int, lots: dict[str, int]) -> dict[str, int]:
        """Transports (lots of them, `lots` as in `_purchase`), when the player's units pile up
        where no enemy can be reached by land."""
        facts = game.unit_rules()
        kinds = [t for t in costs if facts.domain(_Sample(t, self.player)) == "sea"
                 and facts.transport_capacity(_Sample(t, self.player)) > 0]
        factories = [s for s, f in game.state.factories.items() if f.owner == self.player]
        if not kinds or not factories:
            return {}
        shipping = Shipping(game, self.player)
        worth = {s: self._territory_value(game, s) for s in factories}
        stranded_output = sum(worth[s] for s in factories if shipping.front_distance(s) is None)
        share = stranded_output / max(1, sum(worth.values()))
        kind = min(kinds, key=lambda t: (costs[t] / lots.get(t, 1), t))
        room = facts.transport_capacity(_Sample(kind, self.player)) * lots.get(kind, 1)
        # what waits ashore, and about what this turn's purchase adds there (a land unit a 4 IPCs)
        need = shipping.stranded_count() + share * money / 4 - shipping.room_at_sea()
        count = 0
        while need > 0 and (count + 1) * costs[kind] <= money / 2:
            count += 1
            need -= room
        return {kind: count} if count else {}

    def _with_ships(self, bought: dict, costs: dict, kind: str, count: int, money: int) -> dict:
        """`count` ships of `kind`, and the land purchase trimmed (cheapest last bought first) to pay."""
        out = dict(bought)
        out[kind] = out.get(kind, 0) + count
        while sum(costs[t] * n for t, n in out.items()) > money:
            trim = max((t for t in out if t != kind and out[t] > 0), key=lambda t: (costs[t], t), default=None)
            if trim is None:
                break
            out[trim] -= 1
            if out[trim] == 0:
                del out[trim]
        return out

    # ------------------------------------------------------------------ placement

    def _place(self, d: Decision, game):
        if not self.previous and game.bid_purse is not None:  # units bought with a bid (kit/bid.py)
            return self._place_bid(d, game)
        territories = sorted(d.context["candidates"], key=lambda t: (-self._danger(game, t), game.space_order(t)))
        return pack(game.board, territories, sorted(d.context["units"]), d.context["allowed"], d.context["at_sea"])

    def _danger(self, game, territory: str) -> int:
        """Enemy attack strength next to a territory (a rough threat measure)."""
        board = game.board
        total = 0
        for n in board.neighbours(territory, "all"):
            for u in board.units(n):
                if not game.allied(u.owner, self.player):
                    total += self._fire(game, u, "attacker")
        return total

    def _place_bid(self, d: Decision, game):
        """Units bought with a bid, the most costly first, each where it adds most (`_bid_gain`)
        among the spaces the bid rule offers and still accepts with it; nowhere it adds anything,
        the most threatened space (as other placements)."""
        allowed, facts = d.context["allowed"], game.unit_rules()
        spaces = sorted(d.context["candidates"], key=lambda t: (-self._danger(game, t), game.space_order(t)))
        placed: dict[str, list[str]] = {}
        memo: dict = {}
        for t in sorted(d.context["units"], key=lambda t: (-facts.cost(t), t)):
            best = None
            for space in spaces:
                if allowed(space, placed.get(space, []) + [t]):
                    continue
                gain = self._bid_gain(game, space, t, placed, memo)
                if best is None or gain > best[0]:
                    best = (gain, space)
            if best is not None:
                placed.setdefault(best[1], []).append(t)
        return [(space, None, types) for space, types in placed.items()]

    def _bid_gain(self, game, space: str, type_name: str, placed: dict, memo: dict) -> float:
        """What a unit of `type_name` placed in `space` adds, with the bid units `placed` so far:
        the more of holding `space` (its worth: its value and its side's units there, times the
        fall in the quick simulation's chance that the enemy next to it takes it) and of taking
        the best enemy-held space next to it (its worth: its value and the enemy units there,
        times the rise in the chance that this player's units next to it take it)."""
        board = game.board
        facts = game.unit_rules()
        unit = _Sample(type_name, self.player)
        unit.space = space
        domain = facts.domain(unit)
        extra = [_bid_unit(t, self.player, s) for s, types in placed.items() for t in types]
        own = [u for u in board.units(space) if game.allied(u.owner, self.player)] + \
            [u for u in extra if u.space == space]
        enemy = [u for n in board.neighbours(space, "all") for u in board.units(n)
                 if not game.allied(u.owner, self.player) and self._fire(game, u, "attacker") > 0]
        worth = self._territory_value(game, space) + sum(game.unit_cost(u) for u in own)

        def chance(attack: list, defence: list) -> float:
            key = (tuple(sorted((u.type, u.owner, u.space) for u in attack)),
                   tuple(sorted((u.type, u.owner, u.space) for u in defence)))
            if key not in memo:
                memo[key] = self._wins(game, attack, defence) / SIM_TRIALS
            return memo[key]
        gain = 0.0
        if enemy:
            gain = worth * (chance(enemy, own) - chance(enemy, own + [unit]))
        if self._fire(game, unit, "attacker") <= 0:
            return gain
        for target in board.neighbours(space, "all"):
            owner = board.controller(target) if board.is_land(target) else None
            defenders = [u for u in board.units(target) if not game.allied(u.owner, self.player)
                         and self._fire(game, u, "defender") > 0]
            hostile = owner is not None and not game.allied(owner, self.player)
            if not (hostile or defenders) or (domain == "land") != board.is_land(target) and domain != "air":
                continue
            near = set(board.neighbours(target, "all"))
            attackers = [u for n in sorted(near) for u in board.units(n) if u.owner == self.player
                         and self._fire(game, u, "attacker") > 0] + [u for u in extra if u.space in near]
            value = (self._territory_value(game, target) if hostile else 0) + sum(game.unit_cost(u) for u in defenders)
            gain = max(gain, value * (chance(attackers + [unit], defenders) - chance(attackers, defenders)))
        return gain

    # ------------------------------------------------------------------ casualties

    def _casualties(self, d: Decision, game):
        """Units that survive a hit absorb first, then the cheapest (kit/casualties.py's order);
        among an enemy's units (a rule may let it choose them), the dearest are destroyed first."""
        room = d.context["room"]
        units = [game.unit_or_none(uid) for uid in room]
        if units and not any(game.allied(u.owner, self.player) for u in units):
            return enemy_casualty_order(units, room, d.count, cost=game.unit_cost)
        return casualty_order(units, room, d.count, rank=cheapest_rank(game.unit_cost))

    # ------------------------------------------------------------------ battles

    def odds(self, game, attacker: str, attack: list, defence: list, space: str, *,
             amphibious_from: str | None = None, take: bool = False) -> float:
        """The chance that `attack` (units of `attacker`; a joint attack of several powers is
        reckoned as if `attacker` made it) destroys the defence of `space` with some of it left
        (`take`: and takes the territory): the exact battle chain of the rules' own steps on the
        board as it stands (battle_odds.py), else (over its budget, a battle it cannot follow, or
        an agent made with odds="quick") the quick simulation of `attack` against `defence`,
        which takes units that fire for units that take a territory."""
        if self.battle_odds is not None:
            found = self.battle_odds.chance(game, attacker, attack, space, amphibious_from=amphibious_from, take=take)
            if found is not None:
                return found
        return self._wins(game, attack, defence) / SIM_TRIALS

    def _wins(self, game, attack: list, defence: list) -> int:
        """In how many of SIM_TRIALS simulated battles the attacking units destroy the defending ones.
        With a shared memo (`sims`), each different battle is simulated once, with dice of its own
        (a generator seeded by the game's seed and the battle), so an estimate is the same
        whichever agent asks it first."""
        if not defence:
            return SIM_TRIALS if attack else 0
        if not attack:
            return 0
        a_vals = tuple(sorted(self._combatant(game, u, "attacker") for u in attack))
        d_vals = tuple(sorted(self._combatant(game, u, "defender") for u in defence))
        if self.sims is None:
            return simulate(a_vals, d_vals, self.rng)
        key = (a_vals, d_vals)
        found = self.sims.get(key)
        if found is None:
            found = self.sims[key] = simulate(a_vals, d_vals, random.Random(f"quick:{self.seed}:{key}"))
        return found

    # ------------------------------------------------------------------ moves

    def _move(self, d: Decision, game):
        engine = d.context["engine"]
        kind = d.context["kind"]
        key = (game.state.round, kind, self.player)
        if self._plan_key != key:
            self._plan_key = key
            self._deltas = {}
            self._grounded = set()
            if kind == "combat":
                self._plan = self._combat_plan(game, engine)
            else:  # a rollout's non-combat move: only the landings (see __init__)
                self._plan = [] if self.rollout else self._noncombat_plan(game, engine)
        check = d.context.get("check", engine.check)  # the engine's and the rules' constraints
        while self._plan:
            move = self._plan.pop(0)
            if all(game.unit_or_none(uid) is not None for uid in move.units) and not check(move):
                return move
        if kind == "noncombat":
            landing = self._landing_move(game, engine, check)
            if landing is not None:
                return landing
        elif kind == "combat":
            airborne = self._airborne_move(game, engine, check)
            if airborne is not None:
                return airborne
        return DONE

    def _airborne_move(self, game, engine, check) -> Move | None:
        """After the combat plan, a land unit the rules let fly into an attack (the engine's
        airborne moves) joins the most valuable attack the plan made that it reaches
        (a hostile territory where the player's units already stand; it never attacks alone),
        flown without an aircraft where it can be."""
        board = game.board
        for unit in sorted((u for u in game.state.units if u.owner == self.player), key=lambda u: u.id):
            moves = [m for m in engine.airborne_moves(unit.id)
                     if any(u.owner == self.player and u.id not in m.units for u in board.units(m.path[-1]))]
            moves.sort(key=lambda m: (-self._value(game, m.path[-1]), len(m.units), game.space_order(m.path[-1])))
            for move in moves:
                if not check(move):
                    return move
        return None

    def _landing_move(self, game, engine, check) -> Move | None:
        """A landing for one of the player's air units that has none where it stands (the
        engine's `stranded_air`), after the rest of the non-combat plan: to a space the engine
        offers it (its non-combat destinations are the spaces it may land in, carrier room
        counted as it is now) and the rules' constraints allow; None when no such unit is left."""
        board = game.board
        offered = {}
        for uid in engine.stranded_air():
            if uid in self._grounded:
                continue
            # only where it can land as the board stands: this agent moves no carrier to meet it
            now = engine.landings(uid, (game.unit_or_none(uid).space,))
            offered[uid] = {s: path for s, path in engine.destinations(uid).items() if s in now}
        # those that can land only on carriers first, fewest choices first: carrier room is
        # scarce, a territory takes any number
        ashore = {uid: any(board.is_land(s) for s in offered[uid]) for uid in offered}
        for uid in sorted(offered, key=lambda i: (ashore[i], 0 if ashore[i] else len(offered[i]), i)):
            destinations = offered[uid]
            for space in self._landing_order(game, uid, destinations):
                move = Move((uid,), destinations[space])
                if not check(move):
                    return move
            self._grounded.add(uid)  # nowhere to land: asked no more this phase
        return None

    def _landing_order(self, game, uid: int, destinations: dict) -> list[str]:
        """The landing spaces offered to an air unit, best first: back to the sea zone it started
        the turn in (the carrier it flew from), then territories nearest the fronts, then other
        sea zones."""
        board = game.board
        home = self._origins.get(uid)

        def key(space: str):
            if space == home and not board.is_land(space):
                return (0, 0, game.space_order(space))
            if board.is_land(space):
                return (1, self._distance(game, space, self._fronts), game.space_order(space))
            return (2, 0, game.space_order(space))
        return sorted(destinations, key=key)

    def _value(self, game, space: str) -> float:
        board = game.board
        value = float(self._territory_value(game, space)) if board.is_land(space) else 0.0
        delta = self._score_delta(game, space)
        return value + 4.0 * delta

    def _score_delta(self, game, space: str) -> float:
        """How much taking `space` raises our side's score (the active victory conditions);
        worked out once per space while a phase's plan is made (no move is made meanwhile)."""
        found = self._deltas.get(space)
        if found is None:
            found = self._deltas[space] = self._what_if_taken(game, space)
        return found

    def _what_if_taken(self, game, space: str) -> float:
        sym = game.compiled.symbols.get("score")
        if sym is None or not game.board.is_land(space):
            return 0.0
        side = game.ctx.side_of(self.player)
        if side is None:
            return 0.0
        fn = game.compiled.callable("score")
        state = game.state
        kept = self._score_now
        if kept is not None and kept[0] is state and kept[1] == state.version and kept[2] is side:
            before = kept[3]  # the board as it was for the last space tried: the same score
        else:
            before = fn(game.ctx, side)
        held = space in state.control
        old = state.control.get(space)
        state.control[space] = self.player
        state.version += 1
        try:
            after = fn(game.ctx, side)
        finally:
            if held:
                state.control[space] = old
            else:  # a space no one held goes back to having no entry (logs list control as it was)
                del state.control[space]
            state.version += 1
        self._score_now = (state, state.version, side, before)
        try:
            return float(after - before)
        except TypeError:
            return 0.0

    def _combat_plan(self, game, engine) -> list:
        board = game.board
        self._origins = {u.id: u.space for u in game.state.units
                         if u.owner == self.player and self._domain(game, u) == "air"}
        reach: dict[str, list[tuple[int, tuple]]] = {}
        for uid in engine.movable_units():
            unit = game.unit_or_none(uid)
            if unit is None or self._domain(game, unit) == "sea":
                continue
            for target, path in engine.destinations(uid).items():
                if self._target(game, target):
                    reach.setdefault(target, []).append((uid, path))
        can_raid = {uid for uid in engine.movable_units() if any(m.kind == "bomb" for m in engine.moves_of(uid))}
        held = self._escort_reserve(game, engine, can_raid)
        plan: list = []
        used: set[int] = set()
        reserved: dict[str, int] = {}  # sea zone -> carrier places promised to this plan's air units
        targets = sorted(reach, key=lambda t: (-self._value(game, t), game.space_order(t)))
        for target in targets:
            defenders = [u for u in board.units(target) if not game.allied(u.owner, self.player)
                         and self._fire(game, u, "defender") > 0]
            candidates = [(uid, path) for uid, path in reach[target] if uid not in used and uid not in held]
            # strongest attackers first, units that could raid a factory last; land units must be
            # among them to take the space
            candidates.sort(key=lambda up: (up[0] in can_raid, -self._fire(game, game.unit_or_none(up[0]), "attacker"),
                                            up[0]))
            if not any(self._domain(game, game.unit_or_none(uid)) == "land" for uid, _ in candidates):
                continue
            needed = SCORE_ODDS if self._score_delta(game, target) > 0 else ATTACK_ODDS
            eligible: list[tuple[tuple[int, tuple], dict]] = []  # (candidate, carrier places promised with it)
            promised = dict(reserved)
            for item in candidates:
                if self._keeps_landing(game, engine, item[0], item[1], promised):
                    eligible.append((item, dict(promised)))
                # else: an air unit that would have nowhere sure to land
            count = self._fewest(game, target, [game.unit_or_none(uid) for (uid, _), _ in eligible], defenders, needed)
            if count is None:
                continue
            reserved = eligible[count - 1][1]
            for (uid, path), _ in eligible[:count]:
                used.add(uid)
                plan.append(Move((uid,), path))
        plan += self._assaults(game, engine, used)
        if not self.previous:
            plan += self._fleet_attacks(game, engine, used, held)
        return plan + self._raids(game, engine, used, reserved)

    def _target(self, game, space: str) -> bool:
        """Whether the combat plan considers taking `space` (one the engine lets a unit enter in
        combat move): a territory an enemy holds, or one no player holds that the rules value
        (`_value`: its territory value or what taking it adds to the side's score; TripleA's
        neutral territories, which some games are about taking). A worthless unowned space is
        left alone: taking it gives nothing for the units it costs."""
        board = game.board
        if not board.is_land(space):
            return False
        controller = board.controller(space)
        if controller is None:
            return self._value(game, space) > 0
        return not game.allied(controller, self.player)

    def _fewest(self, game, target: str, units: list, defenders: list, needed: float) -> int | None:
        """How many of `units` (strongest first) attack `target`: the fewest, a land unit among
        them, that take it with at least `needed` odds (`_takes`); None when all of them do not.
        The quick simulation guesses the number; with exact odds the chain checks the guess,
        adding up to EXTRA_UNITS units while it falls short (and checks all of them when the
        quick simulation finds no number)."""
        land = next((i + 1 for i, u in enumerate(units) if self._domain(game, u) == "land"), None)
        if land is None:
            return None
        if self.battle_odds is None:
            return self._fewest_quick(game, units, defenders, needed, land)
        guess = next((n for n in range(land, len(units) + 1)
                      if self._wins(game, units[:n], defenders) / SIM_TRIALS >= needed), None)
        first = guess if guess is not None else len(units)
        last = min(len(units), first + EXTRA_UNITS) if guess is not None else len(units)
        return next((n for n in range(first, last + 1) if self._takes(game, target, units[:n], defenders, needed)),
                    None)

    def _fewest_quick(self, game, units: list, defenders: list, needed: float, land: int) -> int | None:
        """`_fewest` by the quick simulation alone, as the previous agent searched (each number
        from one, and the number found simulated again), so that odds="quick" plays its games."""
        count = next((n for n in range(1, len(units) + 1)
                      if self._wins(game, units[:n], defenders) / SIM_TRIALS >= needed and n >= land), len(units))
        return count if self._wins(game, units[:count], defenders) / SIM_TRIALS >= needed else None

    def _takes(self, game, target: str, units: list, defenders: list, needed: float, *,
               amphibious_from: str | None = None) -> bool:
        """Whether `units` take `target` with at least `needed` odds: the exact odds (`odds`),
        unless the quick simulation gives them less than `needed` - QUICK_MARGIN (then the quick
        answer, no: the chain is spent on attacks that might be made)."""
        quick = self._wins(game, units, defenders) / SIM_TRIALS
        if self.battle_odds is None or quick < needed - QUICK_MARGIN:
            return quick >= needed
        return self.odds(game, self.player, units, defenders, target, amphibious_from=amphibious_from,
                         take=True) >= needed

    def _keeps_landing(self, game, engine, uid: int, path: tuple, promised: dict[str, int]) -> bool:
        """Whether a unit moving along `path` in combat move will have a landing whatever the
        battles give (always, for a unit that is not an air unit): a space the engine says it
        could land in as the board stands (`landings`: territories its side has held since the
        turn started, carrier room now; none that a battle decides), the carrier it stands on, or
        a carrier place not `promised` to another air unit of the plan (then promised to it)."""
        unit = game.unit_or_none(uid)
        if self._domain(game, unit) != "air":
            return True
        landings = engine.landings(uid, path)
        if any(room is None for room in landings.values()) or unit.space in landings:
            return True
        for zone, room in landings.items():
            if room > promised.get(zone, 0):
                promised[zone] = promised.get(zone, 0) + 1
                return True
        return False

    def _assaults(self, game, engine, used: set[int]) -> list:
        """Amphibious assaults with what transports carry, where the simulated odds are good."""
        board = game.board

        def wins(units: list, territory: str, zone: str) -> bool:
            defenders = [u for u in board.units(territory) if not game.allied(u.owner, self.player)
                         and self._fire(game, u, "defender") > 0]
            needed = SCORE_ODDS if self._score_delta(game, territory) > 0 else ATTACK_ODDS
            return self._takes(game, territory, units, defenders, needed, amphibious_from=zone)
        return Shipping(game, self.player, engine).assaults(used, wins, lambda u: self._supports_landing(game, u))

    def _fleet_attacks(self, game, engine, used: set[int], held: set[int]) -> list:
        """Attacks on enemy ships with the sea and air units no other attack needs (nor a raid as an
        escort: `held`): each sea zone with enemy units, the dearest fleet first (the units'
        purchase costs), with the fewest of the units that fire there (strongest first; an air unit
        only if a territory is left for it to land in) that win with at least ATTACK_ODDS and are
        expected to destroy more value than they lose. The quick simulation guesses the number;
        the exact chain of the rules' own battle steps (`fleet_odds`) decides, since the quick
        simulation knows nothing of what may fire at what (units the rules let hit only some
        others, say); a battle the chain does not answer (over its budget, or one it cannot
        follow) is not fought."""
        board = game.board
        reach: dict[str, list[tuple[int, tuple]]] = {}
        for uid in engine.movable_units():
            unit = game.unit_or_none(uid)
            if uid in used or uid in held or unit is None or self._domain(game, unit) == "land" \
                    or self._fire(game, unit, "attacker") <= 0:
                continue
            for target, path in engine.destinations(uid).items():
                if not board.is_land(target) and any(not game.allied(u.owner, self.player) for u in board.units(target)):
                    reach.setdefault(target, []).append((uid, path))
        worth = {t: sum(game.unit_cost(u) for u in board.units(t) if not game.allied(u.owner, self.player))
                 for t in reach}
        plan: list = []
        self.fleet_odds.new_decision()
        for target in sorted(reach, key=lambda t: (-worth[t], game.space_order(t))):
            candidates = [(uid, path) for uid, path in reach[target] if uid not in used]
            candidates.sort(key=lambda up: (-self._fire(game, game.unit_or_none(up[0]), "attacker"), up[0]))
            defenders = [u for u in board.units(target) if not game.allied(u.owner, self.player)]
            # an air unit goes only where a territory is left to land in: a carrier place may sail
            # away or sink before the non-combat move (a battle at sea is where carriers fight)
            eligible = [(uid, path) for uid, path in candidates
                        if self._domain(game, game.unit_or_none(uid)) != "air"
                        or any(room is None for room in engine.landings(uid, path).values())]
            units = [game.unit_or_none(uid) for uid, _ in eligible]
            # the quick simulation guesses how many; the chain checks the guess and up to EXTRA_UNITS more
            guess = next((n for n in range(1, len(units) + 1)
                          if self._wins(game, units[:n], defenders) / SIM_TRIALS >= ATTACK_ODDS), None)
            if guess is None:
                continue
            for n in range(guess, min(len(units), guess + EXTRA_UNITS) + 1):
                found = self.fleet_odds.exchange(game, self.player, units[:n], target)
                if found is None:
                    break
                win, lost, destroyed = found
                if win >= ATTACK_ODDS and destroyed > lost:
                    for uid, path in eligible[:n]:
                        used.add(uid)
                        plan.append(Move((uid,), path))
                    break
        return plan

    def _supports_landing(self, game, unit) -> bool:
        """Whether `unit` sails with the player's amphibious assaults to the zone they land from:
        the ruleset's `advice landing_support`, else no unit does."""
        advice = game.compiled.advice("landing_support")
        return bool(advice.fn(game.ctx, game.ctx.unit_value(unit))) if advice is not None else False

    def _raids(self, game, engine, used: set[int], reserved: dict[str, int]) -> list:
        """Bombing raids by the units no attack needs, on the richest enemy factory each reaches
        from which it keeps a landing (`_keeps_landing`); then escorts (`_escorts`)."""
        raids = []
        for uid in engine.movable_units():
            if uid in used:
                continue
            bombs = [m for m in engine.moves_of(uid) if m.kind == "bomb"]
            for move in sorted(bombs, key=lambda m: (-self._territory_value(game, m.path[-1]),
                                                     game.space_order(m.path[-1]))):
                if self._keeps_landing(game, engine, uid, move.path, reserved):
                    raids.append(move)
                    used.add(uid)
                    break
        return raids + self._escorts(game, engine, raids, used, reserved)

    def _waiting(self, game, target: str) -> int:
        """The enemy air units in `target`: the interceptors a raid there may meet."""
        return sum(1 for u in game.board.units(target)
                   if not game.allied(u.owner, self.player) and self._domain(game, u) == "air")

    def _escort_reserve(self, game, engine, can_raid: set[int]) -> set[int]:
        """The units kept out of the attacks to escort raids (`_escorts`): for each space a unit
        that can raid would bomb (the richest it reaches), one escort that reaches it for each
        enemy air unit waiting there."""
        if not can_raid:
            return set()
        escorts = [uid for uid in engine.movable_units() if engine.escorts_raids(uid)]
        targets = set()
        for uid in sorted(can_raid):
            bombs = [m.path[-1] for m in engine.moves_of(uid) if m.kind == "bomb"]
            if bombs:
                targets.add(min(bombs, key=lambda t: (-self._territory_value(game, t), game.space_order(t))))
        held: set[int] = set()
        for target in sorted(targets, key=game.space_order):
            waiting = self._waiting(game, target)
            for uid in escorts:
                if waiting <= 0:
                    break
                if uid not in held and target in engine.destinations(uid):
                    held.add(uid)
                    waiting -= 1
        return held

    def _escorts(self, game, engine, raids: list, used: set[int], reserved: dict[str, int]) -> list:
        """Escorts (units the rules let fly with the bombing units: `escorts`) that no attack needs, to each
        raid where enemy air units wait to intercept: one for each of them, each keeping a landing.
        They are planned after the raids, so the engine accepts them once the bombing units have flown."""
        escorts = []
        for target in sorted({m.path[-1] for m in raids}, key=game.space_order):
            waiting = self._waiting(game, target)
            for uid in engine.movable_units():
                if waiting <= 0:
                    break
                if uid in used or not engine.escorts_raids(uid):
                    continue
                path = engine.destinations(uid).get(target)
                if path is not None and self._keeps_landing(game, engine, uid, path, reserved):
                    escorts.append(Move((uid,), path, "bomb"))
                    used.add(uid)
                    waiting -= 1
        return escorts

    def _noncombat_plan(self, game, engine) -> list:
        board = game.board
        own = [t for t in board.spaces("land") if board.controller(t) == self.player]
        threatened = sorted(own, key=lambda t: (-self._danger(game, t) - 3 * self._value(game, t), game.space_order(t)))
        fronts = self._fronts = threatened[:4]
        plan = []
        landing = set(engine.stranded_air())  # they land after the plan's moves (_landing_move)
        for uid in engine.movable_units():
            unit = game.unit_or_none(uid)
            if unit is None or uid in landing:
                continue
            destinations = engine.destinations(uid)
            if not destinations or unit.space in fronts:
                continue
            best = None
            for front in fronts:
                if front in destinations:
                    best = front
                    break
            if best is None:
                # a step toward the most threatened front that it can reach
                ranked = sorted(destinations, key=lambda s: (self._distance(game, s, fronts), game.space_order(s)))
                best = ranked[0] if ranked else None
                if best is not None and self._distance(game, best, fronts) >= self._distance(game, unit.space, fronts):
                    best = None
            if best is not None:
                plan.append(Move((uid,), destinations[best]))
        used = {uid for move in plan for uid in move.units}
        return plan + Shipping(game, self.player, engine).ferry(used)

    def _distance(self, game, space: str, fronts: list[str]) -> int:
        best = 99
        for f in fronts:
            d = game.board.distance(space, f, by="land") if game.board.is_land(space) else None
            if d is not None and d < best:
                best = d
        return best


_NO_ADVICE = object()  # the advice gives no answer here


def _neutral(d: Decision):
    """The answer to a decision without advice, by the options' types alone: yes to a yes-or-no
    question, the most of a number, the first option, the first `count` of `choose N`, none of
    `choose up to N`."""
    options = d.options
    if d.mode == "one":
        if all(isinstance(o, bool) for o in options):
            return True
        if all(isinstance(o, int) for o in options):
            return max(options)
        return options[0]
    return tuple(options[: d.count]) if d.mode == "exactly" else ()


class _Sample:
    """A stand-in unit of a type, for settings that read a unit."""

    def __init__(self, type_name: str, owner: str):
        self.id, self.type, self.owner, self.space, self.hits = 0, type_name, owner, None, 0


def _bid_unit(type_name: str, owner: str, space: str) -> _Sample:
    """A stand-in for a bid unit placed in `space`."""
    unit = _Sample(type_name, owner)
    unit.space = space
    return unit
