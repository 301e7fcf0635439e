"""The heuristic agent's purchases and placements (the `Purchasing` part of HeuristicAgent).

A factory where the rules make one worth it, then the land units with the best value for money for
attack and defence, an air unit when it can afford one, transports while units wait ashore; units
placed at the factory nearest the front, and bid units where they add most (`_place_bid`). The
methods read the agent's unit facts and estimates (heuristic.py) through `self`.
"""

from __future__ import annotations

from ruleslang.lang.eval.statements import refusal_texts_unread
from ruleslang.runtime.decisions import Decision
from ruleslang.runtime.agents.battle_odds import most_numerous_owner
from ruleslang.runtime.agents.place_ledger import PlaceLedger
from ruleslang.runtime.agents.quick_battle import SIM_TRIALS, settling
from ruleslang.runtime.kit.placement import pack

# A factory is bought where the rules let one be built and it pays: in a territory whose value
# repays the factory's cost within FACTORY_PAYBACK turns, at least FACTORY_SPACING land steps from
# its side's factories (or out of their land reach), FACTORY_GAIN land steps nearer the fighting
# than the player's own (or where they cannot reach it by land), that the enemy next to it would
# take with less than HOLD_ODDS; with at least the factory's cost left for units.
FACTORY_PAYBACK = 5
FACTORY_SPACING = 3
FACTORY_GAIN = 2
HOLD_ODDS = 0.25
# a `spare` agent (heuristic.py's SPARE "holds") takes the quick simulation's chance of taking the
# territory as the answer when it is at least HOLD_MARGIN from HOLD_ODDS, and asks the chain
# between: in seeded games of the shipped rules (seeds 1-12) the chain agreed with all 91 that far
HOLD_MARGIN = 0.1
# what `_holds` takes from the quick chance (quick_battle.py's `settling`; SPARE's "settled")
_HOLDS = settling(lambda quick: (abs(quick - HOLD_ODDS) >= HOLD_MARGIN, quick < HOLD_ODDS))


# (SPARE "forecast") what a placement is told of a list the purchase's forecast found refused
_FORECAST_REFUSED = ("refused when the purchase was planned",)


class Purchasing:
    """Purchase, placement and bid decisions of the heuristic agent (a part of HeuristicAgent)."""

    # (with the part "forecast") the lists the purchase's forecast found refused, for the turn's
    # placement: (the game state, its round, {(territory, units)})
    _forecast: tuple | None = None
    # (with the part "stock") the purchase's forecast plan, for the turn's placement to take as it
    # stands: (the game state, its round, the plan, whether each of its types goes to sea)
    _stock: tuple | None = None
    # (type, owner) -> its fire as an attacker, for the decision's `_threats` (`_fire_total`)
    _kind_fires: dict | None = None
    # (with the part "ledger") the rules' answers to the forecasts' questions, kept across turns
    _ledger: PlaceLedger | None = None

    def _purchase(self, d: Decision, game):
        money = d.context["money"]
        costs = d.context["costs"]
        build = [] if d.refusals else self._factory(d, game)
        if build:
            money -= d.context["factory_cost"](build[0])
        money_at_start = money
        land, air = [], []
        facts = game.unit_rules()
        typed: dict[tuple, int] = {}  # (type, side) -> `_type_fire`: the keys below ask each many times

        def type_fire(t: str, side: str) -> int:
            found = typed.get((t, side))
            if found is None:
                found = typed[t, side] = self._type_fire(game, t, side)
            return found
        domains: dict[str, str] = {}  # type -> its movement domain (`_transports_to_buy` reads them too)
        for t, c in costs.items():
            domain = domains[t] = facts.domain(Sample(t, self.player))
            if domain == "land" and (type_fire(t, "attacker") or type_fire(t, "defender")):
                land.append(t)
            elif domain == "air":
                air.append(t)
        if not land:
            return {"units": {}, "build": build}
        # a count bought is a number of lots (`lots`: the types sold several at a time) and a cost the
        # price of a lot: a lot is worth what all its units give
        lots = d.context.get("lots", {})

        def fire(t: str, side: str) -> int:
            return type_fire(t, side) * lots.get(t, 1)
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
        for t, n in self._transports_to_buy(game, costs, money_at_start, lots, domains).items():
            # ships for the units that cannot reach the fighting by land: bought first, then
            # the land units above with what is left
            bought = self._with_ships(bought, costs, t, n, money_at_start)
        bought = self._placeable(d, game, bought, costs, lots)
        if d.refusals:
            # the rules refused: halve the purchase until they accept
            halved = {t: n // (2 ** len(d.refusals)) for t, n in bought.items()}
            bought = {t: n for t, n in halved.items() if n}
        return {"units": bought, "build": build}

    def _placeable(self, d: Decision, game, bought: dict[str, int], costs: dict, lots: dict) -> dict[str, int]:
        """`bought` cut to what the rules would let the player place on the board as it stands (the
        purchase's `place_refusals`: the rules' `constraint on place`, a production limit for one),
        the dearest units first: a unit that cannot be placed is lost, so its money is kept."""
        refusals = d.context.get("place_refusals")
        if refusals is None or not bought:
            return bought
        # (`pack` asks no (territory, units) twice when the constraints only read: its refusals
        # are asked as they come, with nothing kept)
        repeatable = game.ctx.procedures.repeatable("place")
        board = game.board
        facts = game.unit_rules()
        control = game.state.control
        candidates = [t for t in board.spaces("land") if control.get(t) == self.player]
        stock = "stock" in self.spare and not d.refusals
        if stock and "frontline" in self.spare:
            # (parts "stock" and "frontline") the nearest the fighting first: no threat worked out
            candidates.sort(key=self._frontline(game))
        elif stock:
            # (part "stock") planned as the placement plans, the most threatened territory first,
            # so that the placement can take the plan as it stands (`_stocked`)
            candidates.sort(key=lambda t: (-self._danger(game, t), game.space_order(t)))
        units = sorted((t for t, n in bought.items() for _ in range(n * lots.get(t, 1))),
                       key=lambda t: (-costs[t] / lots.get(t, 1), t))
        sea: dict[str, bool] = {}  # type -> placed at sea: `pack` asks it of every unit at every territory
        if "forecast" in self.spare:
            refusals = self._forecasting(game, refusals)
        if "ledger" in self.spare and not d.refusals and repeatable:
            # (part "ledger") the rules' answers of earlier turns' forecasts, where the territory
            # stands as it did and the constraints only read (outside "forecast": the placement
            # asks the rules of those itself)
            if self._ledger is None:
                self._ledger = PlaceLedger()
            refusals = self._ledger.asking(game, refusals)

        def at_sea(t: str) -> bool:
            found = sea.get(t)
            if found is None:
                found = sea[t] = facts.domain(Sample(t, self.player)) == "sea"
            return found
        plan = pack(board, candidates, units, refusals, at_sea, repeatable=repeatable)
        if stock:
            self._stock = (game.state, game.state.round, plan, dict(sea))
        placed: dict[str, int] = {}
        for _, _, types in plan:
            for t in types:
                placed[t] = placed.get(t, 0) + 1
        kept = {t: min(n, placed.get(t, 0) // lots.get(t, 1)) for t, n in bought.items()}
        return {t: n for t, n in kept.items() if n}

    def _frontline(self, game):
        """(Part "frontline" of SPARE) the forecast's order of territories, a key: the fewest land
        steps to a territory the enemy holds first (`_front`, which `_factory` worked out for the
        purchase; none last), then the most such territories beside it, then the map's order. It
        reads no unit: the threats' order (`_danger`) is a pass over the board's units and a sum
        of fires for every space beside the player's territories, for each purchase."""
        kept = self._front(game)
        steps, enemy = kept[4], frozenset(kept[3])
        adjacency, order = game.board.map.adjacency, game.space_order
        far = len(adjacency)  # (more steps than any path on the map has)

        def key(territory: str) -> tuple:
            return (steps.get(territory, far), -len(enemy.intersection(adjacency[territory])), order(territory))
        return key

    def _forecasting(self, game, refusals):
        """`refusals` (the purchase's `place_refusals`), the lists they refuse kept for the turn's
        placement (part "forecast" of SPARE: `_place_allowed`)."""
        refused: set[tuple] = set()
        self._forecast = (game.state, game.state.round, refused)

        def kept(territory: str, types: list[str]) -> list:
            found = refusals(territory, types)
            if found:
                refused.add((territory, tuple(types)))
            return found
        return kept

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
        shipping = self._shipping(game)
        fronts = [shipping.front_distance(s) for s in factories]
        nearest_front = min((f for f in fronts if f is not None), default=None)
        sites = []
        control, built = game.state.control, game.state.factories
        for site in board.spaces("land"):
            if control.get(site) != self.player or site in built:
                continue
            front = shipping.front_distance(site)
            if front is None or (nearest_front is not None and front > nearest_front - FACTORY_GAIN):
                continue  # not enough nearer the fighting than the factories it has
            cost = factory_cost(site)
            worth = self._territory_value(game, site)
            if worth * FACTORY_PAYBACK < cost or money - cost < cost:
                continue
            from_site = board.graph.distances(site, "land")  # the map's land steps from it
            if any(n is not None and n < FACTORY_SPACING for n in map(from_site.get, side_factories)):
                continue
            sites.append(site)
        for site in sorted(sites, key=lambda t: (-self._territory_value(game, t), game.space_order(t))):
            if self._holds(game, site) and not check({"units": {}, "build": [site]}):
                return [site]
        return []

    def _holds(self, game, territory: str) -> bool:
        """Whether the player can hold `territory`: the enemy units next to it would take it from
        the units of its side there with less than HOLD_ODDS (the exact chain, `odds`; a `spare`
        agent's quick simulation when it is HOLD_MARGIN or more from HOLD_ODDS)."""
        board = game.board
        attack = [u for n in board.neighbours(territory, "all") for u in board.units(n)
                  if not game.allied(u.owner, self.player) and self._fire(game, u, "attacker") > 0]
        if not attack:
            return True
        defence = [u for u in board.units(territory) if game.allied(u.owner, self.player)]
        if "holds" in self.spare:
            quick = self._wins(game, attack, defence, _HOLDS) / SIM_TRIALS
            if abs(quick - HOLD_ODDS) >= HOLD_MARGIN:
                return quick < HOLD_ODDS
        return self.odds(game, most_numerous_owner(attack), attack, defence, territory) < HOLD_ODDS

    def _transports_to_buy(self, game, costs: dict, money: int, lots: dict[str, int],
                           domains: dict[str, str] | None = None) -> dict[str, int]:
        """Transports (lots of them, `lots` as in `_purchase`), when the player's units pile up
        where no enemy can be reached by land (`domains`: each type's movement domain, when the
        caller has them)."""
        facts = game.unit_rules()
        if domains is None:
            domains = {t: facts.domain(Sample(t, self.player)) for t in costs}
        kinds = [t for t in costs if domains[t] == "sea" and facts.transport_capacity(Sample(t, self.player)) > 0]
        factories = [s for s, f in game.state.factories.items() if f.owner == self.player]
        if not kinds or not factories:
            return {}
        kind = min(kinds, key=lambda t: (costs[t] / lots.get(t, 1), t))
        if costs[kind] > money / 2:
            return {}  # (not one lot within half the money, whatever waits ashore)
        shipping = self._shipping(game)
        worth = {s: self._territory_value(game, s) for s in factories}
        stranded_output = sum(worth[s] for s in factories if shipping.front_distance(s) is None)
        share = stranded_output / max(1, sum(worth.values()))
        room = facts.transport_capacity(Sample(kind, self.player)) * lots.get(kind, 1)
        # what waits ashore, and about what this turn's purchase adds there (a land unit a 4 IPCs),
        # less the room at sea (never below 0: not looked over when nothing waits)
        need = shipping.stranded_count() + share * money / 4
        if need <= 0:
            return {}
        need -= shipping.room_at_sea()
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
        stocked = self._stocked(d, game)
        if stocked is not None:
            return stocked
        territories = sorted(d.context["candidates"], key=lambda t: (-self._danger(game, t), game.space_order(t)))
        return pack(game.board, territories, sorted(d.context["units"]), self._place_allowed(d, game),
                    d.context["at_sea"], repeatable=game.ctx.procedures.repeatable("place"))

    def _stocked(self, d: Decision, game) -> list | None:
        """(Part "stock" of SPARE) the plan the turn's purchase forecast made (`_placeable`: by the
        threats at the turn's start), when it places exactly the units to place, each type at sea
        or on land as the placement's `at_sea` says, at territories the placement offers, each
        territory's list one the rules accept on the board as it stands (asked once a territory:
        the answer's check finds it kept); else None, and the placement is planned again."""
        kept = self._stock
        self._stock = None
        if "stock" not in self.spare or d.refusals or kept is None \
                or kept[0] is not game.state or kept[1] != game.state.round:
            return None
        plan, sea = kept[2], kept[3]
        at_sea = d.context["at_sea"]
        left = sorted(d.context["units"])
        if sorted(t for _, _, types in plan for t in types) != left \
                or any((at_sea(t) is True) != goes for t, goes in sea.items() if t in left):
            return None
        candidates = set(d.context["candidates"])
        allowed = d.context["allowed"]
        with refusal_texts_unread():
            if any(territory not in candidates or allowed(territory, list(types)) for territory, _, types in plan):
                return None
        return [(territory, zone, list(types)) for territory, zone, types in plan]

    def _place_allowed(self, d: Decision, game):
        """The placement's `allowed`; with the part "forecast" of SPARE, a list the purchase's
        forecast of this turn found refused at a territory (`_forecasting`) is taken as refused
        without asking the rules again (the turn's moves and battles rarely change where the player
        may place: in seeded house-rules games, seeds 1-10, each of the 5,706 questions the placement
        asked that the forecast had asked had the forecast's answer). Every list the placement's
        answer holds is one the rules accepted on the board as it stands; once an answer is refused
        (asked again with `refusals`), every list is asked of the rules."""
        allowed = d.context["allowed"]
        kept = self._forecast
        if "forecast" not in self.spare or d.refusals or kept is None \
                or kept[0] is not game.state or kept[1] != game.state.round:
            return allowed
        refused = kept[2]

        def forecast(territory: str, types: list[str]) -> list:
            if (territory, tuple(types)) in refused:
                return list(_FORECAST_REFUSED)
            return allowed(territory, types)
        return forecast

    def _danger(self, game, territory: str) -> int:
        """Enemy attack strength next to a territory (a rough threat measure)."""
        total = 0
        threats = self._threats
        # (the map's own tuple of neighbours, read straight: `Board.neighbours` checks the name and
        # the kind asked, on a territory the board named; a loop: a generator costs a call a space)
        for n in game.board.map.adjacency[territory]:
            # (a strength worked out already read in line: the decision's territories share most
            # of their neighbours)
            found = threats.get(n, 0) if threats is not None else None
            if found is None or type(found) is list:
                found = self._threat(game, n)
                threats = self._threats
            total += found
        return total

    def _threat(self, game, space: str) -> int:
        """The enemy attack strength in `space`, worked out once per decision (a decision's
        territories share most of their neighbours). Fire values are whole numbers or fractions,
        so the sum is the same whatever the grouping."""
        threats = self._threats
        if threats is None:
            threats = self._threat_table(game)
        found = threats.get(space, 0)
        if type(found) is list:
            found = threats[space] = self._fire_total(game, found)
        return found

    def _threat_table(self, game) -> dict:
        """The decision's table of threats (`_threats`), made: the units not on the player's side
        by space, in one pass over the board (a board query per space cost more); a space's list
        becomes its strength when `_threat` first asks it. Its keys are the spaces where such a
        unit stands (`hostile_spaces`)."""
        threats = self._threats = {}
        friends: set = set()  # the owners on the player's side and the others: each asked once,
        enemies: set = set()  # then told apart by a set's test (no call a unit)
        player = self.player
        for u in game.state.units:  # (names read once a unit, no list made to be dropped)
            owner = u.owner
            if owner in friends:
                continue
            if owner not in enemies:
                if game.allied(owner, player):
                    friends.add(owner)
                    continue
                enemies.add(owner)
            at = threats.get(u.space)
            if at is None:
                threats[u.space] = [u]
            else:
                at.append(u)
        self._kind_fires = {}
        return threats

    def _hostile_spaces(self, game) -> dict:
        """The spaces where a unit not on the player's side stands, as the decision's threat table
        found them (its keys: read them, never change the table; made if not yet), on the board as
        the decision found it: while no unit moves, a space not in it holds no such unit."""
        threats = self._threats
        return threats if threats is not None else self._threat_table(game)

    def _fire_total(self, game, units: list) -> int:
        """The sum of `units`' fire values as attackers, in their order; where the decision's fires
        go by kind (`_fire_kinds`), each kind's is asked once for the decision's threats (the enemy
        units near the player's territories are a few kinds, summed space by space)."""
        kept = self._kind_fires
        fires = []
        for u in units:
            kind = (u.type, u.owner)
            fire = kept.get(kind)
            if fire is None:
                fire = self._fire(game, u, "attacker")
                if self._fire_by_kind:
                    kept[kind] = fire
            fires.append(fire)
        return sum(fires)

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
        unit = Sample(type_name, self.player)
        unit.space = space
        domain = facts.domain(unit)
        extra = [bid_unit(t, self.player, s) for s, types in placed.items() for t in types]
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



class Sample:
    """A stand-in unit of a type, for settings that read a unit."""

    def __init__(self, type_name: str, owner: str):
        self.id, self.type, self.owner, self.space, self.hits = 0, type_name, owner, None, 0


def bid_unit(type_name: str, owner: str, space: str) -> Sample:
    """A stand-in for a bid unit placed in `space`."""
    unit = Sample(type_name, owner)
    unit.space = space
    return unit
