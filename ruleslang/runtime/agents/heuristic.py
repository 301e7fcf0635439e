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

- purchase: a factory where the rules make one worth it (purchasing.py's FACTORY_PAYBACK; its cost is the
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
  the purchase adds transports while such units wait ashore, and buys no more than the rules let it
  place (the purchase's `place_refusals`); then every air unit with no landing
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

The agent is one class in five modules: this one (unit facts, casualties, the battle estimates,
moves, the values of spaces), advising.py (rule decisions), purchasing.py (purchase, placement,
bids), attack_planning.py (the combat move's plan) and positioning.py (the non-combat plan and
the air units' landings).

`previous=True` is the agent as shipped before the look-ahead and the bid placement (no look-ahead,
bid units placed as other units are, no attacks at sea), kept to measure against (benchmarks/play.py).
"""

from __future__ import annotations

import random

from ruleslang.runtime.decisions import DONE, Agent, Decision
from ruleslang.runtime.agents.advising import Advising
from ruleslang.runtime.agents.attack_planning import AttackPlanning
from ruleslang.runtime.agents.battle_odds import BattleOdds, Belligerents
from ruleslang.runtime.agents.lookahead import Lookahead
from ruleslang.runtime.agents.phase_starts import follow
from ruleslang.runtime.agents.positioning import Positioning
from ruleslang.runtime.agents.purchasing import Purchasing, Sample
from ruleslang.runtime.agents.quick_battle import SIM_TRIALS, landless, outmatched, reckon, reckonable, simulate
from ruleslang.runtime.agents.shipping import Shipping, enemy_held, front_distances
from ruleslang.runtime.kit.casualties import casualty_order, cheapest_rank_of, enemy_casualty_order
from ruleslang.runtime.kit.movement import Move

FLEET_STATES = 600   # the exact chain's states for one combat move's attacks at sea (battle_odds.py)
# the parts of its work a `spare` agent spares where something cheaper settles the answer. The
# exact chain, asked only when something cheaper (the quick simulation; for "zeros", the chain's
# own answer to a smaller attack) leaves the answer in doubt: "retreat", the advice of a rule's
# decision fed `win_chance` (`_advised`); "attacks", the combat plan's attacks on territories, by
# land and from transports (attack_planning.py's `_takes`); "holds", whether a factory's
# territory is held against the enemy next to it (purchasing.py's `_holds`); "fleets", the
# attacks at sea (attack_planning.py's `_fleet_settled`); "below", a narrower doubt under the odds an
# attack on a territory needs (attack_planning.py's SPARED_BELOW); "zeros", an attack at sea
# asked again with more units of types the chain gave no chance (`_fleet_attacks`); "advice", a
# retreat question's quick estimate taken as advising.py's ADVICE_NEAR from the chain's at most. The
# look-ahead's rollouts: "rollouts", a rule decision's rounds of rollouts stopped once the rounds
# so far settle the choice (lookahead.py's `settle`); "horizon", a rollout played to the end of
# the decision's phase, not of the turn (lookahead.py's `horizon`); "fought", with "horizon", to the
# end of the battle the decision was asked in (lookahead.py's `fought`). The quick simulation: "settled",
# an estimate's trials stopped once those left cannot change what its caller takes from it (`_wins`);
# "outmatched", with "settled", an attack far weaker than the defence taken as winning no trial
# where the caller's answer is the same up to OUTMATCHED_WINS wins (`_wins`); "hittable", with
# "fleets", an attack at sea made on its quick chance alone where the rules let its air units hit
# every defender (attack_planning.py's `_hittable`), its ships not asked to win alone; "doubt", with
# "attacks", a quick chance of taking a territory that leaves the answer in doubt thrown again with
# more trials before the chain is asked (attack_planning.py's DOUBT_TRIALS); "band", with "doubt", a
# narrower doubt after the last of those trials (attack_planning.py's DOUBT_BAND); "again", with
# "settled" and "attacks", an estimate of taking a territory asked again within one combat plan
# (the same force against the same defence, the same odds needed) answered as the first time
# (attack_planning.py's `_spared_takes`); "exchange", with "hittable", an attack at sea whose air
# units the rules let hit every defender settled by more trials of the quick simulation, with the
# values each side loses, before the chain is asked (attack_planning.py's EXCHANGE_STAGES);
# "forecast", a placement's list the turn's purchase found refused taken as refused (purchasing.py's
# `_place_allowed`); "reckon", with "settled", a quick estimate of a small battle (quick_battle.py's
# `reckonable`) worked out exactly (`reckon`: the chance its trials tend to) instead of thrown, and
# a doubt or an exchange at sea that it leaves judged as their last stage judges (`_quick_verdict`,
# `_fleet_exchange`); "stock", the purchase's forecast planned as a placement and that plan placed
# where the rules still accept it (purchasing.py's `_stocked`); "sonar", the chain's answer for a battle
# of the same sides at the same space, read the same of the board, taken again without solving
# (battle_odds.py's `_RECALLED`); "glance", with "settled" and "reckon", a retreat question's quick
# estimate worked out exactly taken as advising.py's GLANCE_NEAR from the chain's at most; "ledger",
# the rules' answers to a purchase's forecast of its placement kept from turn to turn while the
# territory stands as it did (place_ledger.py); "trident", with "exchange" and "reckon", an attack at
# sea some of whose air units the rules may not let hit some defender settled by the quick model
# reckoned with the units the rules' `stalemate` setting keeps apart hitting only others, before
# the chain is asked (attack_planning.py's `_fleet_apart`); "muster", a rule decision asked in a
# battle before its first round answered as the agent would without the look-ahead (lookahead.py's
# `muster`); "near", with "doubt", an attack on a territory by land that the doubt's last stage leaves
# in doubt answered by its quick chance against the odds it needs, the chain not asked
# (attack_planning.py's `_spared_takes`); "whither", with "horizon" and "fought", a decision in a battle
# whose options are all spaces (a retreat's destination) answered without the look-ahead, whose
# rollouts valued every such answer alike (lookahead.py's `whither`); "tally", a quick battle whose
# units all take one hit draws each side's hits of a round at once, by their chances
# (quick_battle.py's `_tallied_trials`), instead of a die for each unit; "trust", with "glance", a
# retreat question's quick estimate worked out exactly taken as the answer wherever it lies, the
# chain not asked (advising.py's `_spared_win_chance`); "landless", with "settled", an estimate of
# taking a territory whose attack Lanchester's square law says destroys the defence only with no
# unit that takes territory left, even were it LANDLESS times as strong (quick_battle.py's
# `landless`), taken as winning no trial where the caller's answer is the same up to
# OUTMATCHED_WINS wins, as "outmatched" (`_estimate`); "lopsided", with "reckon", a small battle
# that "outmatched" or "landless" judges so taken as winning no trial too, not reckoned
# (`_lopsided`: the battles they judge are most of the reckonings that are not yet kept);
# "offshore", an assault from the sea and an attack at sea left in doubt by the last quick stage
# answered by it, the chain not asked (attack_planning.py's `_spared_takes`, `_exchange_taken`);
# "sure", a retreat question the square law settles not estimated (advising.py's SURE_RATIO);
# "frontline", with "stock", the purchase's forecast tries the territories nearest the fighting
# first, not the most threatened (purchasing.py's `_frontline`): no threat worked out for it
SPARE = ("retreat", "attacks", "holds", "fleets", "rollouts", "below", "zeros", "advice", "horizon", "settled",
         "outmatched", "hittable", "doubt", "band", "again", "exchange", "fought", "forecast", "reckon", "stock", "sonar",
         "glance", "ledger", "trident", "muster", "near", "whither", "tally", "trust", "landless", "lopsided",
         "offshore", "sure", "frontline")
# (SPARE "outmatched") an attack whose strength (quick_battle.py's `outmatched`: fire values' sum times
# hit points' sum) is under OUTMATCHED of the defence's: in seeded house-rules games (seeds 1-40,
# every trial thrown) the quick chance of taking the space of all 8,950 such estimates was at most
# 0.283 (17 wins of 60), and the chance of winning of the 1,752 other such estimates (attacks at
# sea, holds, retreats) at most 0.383; it is taken as 0 where the caller's answer is the same from
# 0 wins to OUTMATCHED_WINS
OUTMATCHED = 0.5
OUTMATCHED_WINS = 24
# (SPARE "landless") ... and an attack on a territory that quick_battle.py's `landless` says is left
# with no unit that takes territory even were it LANDLESS times as strong: in compare games of the
# house rules (games 0-19, both variants, main's play; 2,229 estimates of taking thrown, 1,232 of them
# needing 0.55) none of the 1,039 such estimates won more trials than its caller takes as 0 wins;
# judged at the square law itself (1.0), 18 of 1,340 did (all needing 0.55: near-even battles of
# many weak units), at 1.1, 5 of 1,230
LANDLESS = 1.25


class HeuristicAgent(Advising, Purchasing, AttackPlanning, Positioning, Agent):
    name = "heuristic"
    deterministic = True

    def __init__(self, seed: int, player: str, odds: str | None = None, *, previous: bool = False,
                 check_advice: bool = False, sims: dict | None = None, rollout: bool = False,
                 spare: tuple[str, ...] | None = None):
        """`odds`: "exact" (the default), battles estimated by the exact battle chain within its
        budget (battle_odds.py), or "quick", by the quick simulation alone (the agent shipped
        before, kept to measure against: benchmarks/play.py --paired). `spare` (with exact odds):
        the parts of SPARE in which the agent spares work where something cheaper settles the
        answer: asks the chain only where the quick simulation leaves the answer in doubt
        (`_advised`, `_takes`, `_holds`, `_fleet_settled`), stops a look-ahead's
        rollouts once they settle the choice ("rollouts", session 15), ends each rollout with the
        decision's phase ("horizon", session 15) or battle ("fought", session 22), stops a quick
        estimate's trials once they settle what its caller asks of it ("settled", session 17:
        `_wins`): all of them unless given
        (the default since session 14); `spare=()` is the agent shipped before, which asks the
        chain of every attack and retreat question within its budget and plays every rollout
        (benchmarks/play.py --spare-paired plays the two). `previous`: play as the
        agent shipped before the look-ahead and bid placement (see the module docstring), with
        quick odds unless `odds` says otherwise. `check_advice`: also look
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
        self.sims = sims
        self.rollout = rollout
        if odds is None:
            odds = "quick" if previous else "exact"
        spare = SPARE if spare is None else spare
        unknown = set(spare) - set(SPARE)
        if unknown:
            raise ValueError(f"unknown parts to spare: {sorted(unknown)} (known: {', '.join(SPARE)})")
        self.spare = frozenset(spare) if odds == "exact" else frozenset()
        self.battle_odds = BattleOdds(recall="sonar" in self.spare) if odds == "exact" else None
        # the quick policies of the look-ahead's rollouts: this agent as shipped before it
        self.lookahead = None if previous else Lookahead(
            player, lambda p, sims: HeuristicAgent(seed, p, previous=True, sims=sims, rollout=True),
            settle="rollouts" in self.spare, horizon="horizon" in self.spare, fought="fought" in self.spare,
            muster="muster" in self.spare, whither="whither" in self.spare)
        # the exact chain for attacks at sea (`_fleet_attacks`): small battles, FLEET_STATES a plan
        self.fleet_odds = BattleOdds(decision_states=FLEET_STATES, recall="sonar" in self.spare)
        self.rng = random.Random(f"heuristic:{seed}:{player}")
        # the quick estimates' own generator (`_estimate_dice`), and the seed `_dice` drew for it
        # that is not in it yet: most seeds drawn are of estimates answered without throwing
        self._estimate_generator = random.Random()
        self._unsown: int | None = None
        self._plan: list = []
        self._plan_key = None
        self._verdicts: dict = {}  # (SPARE "again") a combat plan's estimates of taking a space
        self._deltas: dict[str, float] = {}  # space -> _score_delta, for the plan being made
        self._score_now: tuple | None = None  # (state, its version, side, score): `_what_if_taken`'s "before"
        self._combatants: dict[tuple, tuple] = {}  # (unit id, type, owner, side) -> _combatant, this decision
        # ... keyed (type, owner, side) alone where the firepower advice reads its unit only for
        # its kind (`Advice.by_kind`): found at a decision's first `_combatant` (None: not yet)
        self._fire_by_kind: bool | None = None
        # (type, owner, side) -> the advice's fire, kept from decision to decision where the advice
        # reads nothing of the game but counters (`Advice.counters`) while those stand (`_fires_mark`)
        self._fires: dict[tuple, int] = {}
        self._fires_mark: tuple | None = None
        self._fire_names: tuple = (None, ())  # (the advice, the counters it reads, sorted)
        self._kinds: dict[tuple, tuple] = {}  # (type, owner) -> (cost, hit points): `_combatant`, this decision
        self._domains: dict[tuple, str] = {}  # (type, owner) -> `_domain`, this decision
        self._worth: dict[str, int] = {}  # space -> _territory_value, this decision
        self._threats: dict | None = None  # space -> the enemy attack strength there (`_threat`), this decision
        self._origins: dict[int, str] = {}  # air unit id -> where it stood when this turn's combat move was planned
        self._fronts: list[str] = []  # the territories the non-combat plan moves toward
        self._steps: dict[str, int] = {}  # space -> `_distance` to `_fronts` (the map's: kept while they stand)
        self._grounded: set[int] = set()  # air units with no landing offered, this phase
        # air unit id -> [its landing spaces as the engine keeps them, its place in the order of
        # units, the spaces in order or None until it is tried]: `_landing_move`'s, this phase
        self._landings: dict[int, list] = {}
        self._belligerents = Belligerents()  # who fights whom in a battle (`_enemies`)
        self._commanded: frozenset[int] = frozenset()  # the allies' units the player commands, this phase
        self._constraints = None  # the rules' constraints on a move, this phase (`_may`)
        self._engine = None  # the movement engine of the move phase being planned (`_what_if_taken`)
        self._front_kept: tuple | None = None  # (board, version, map, enemy_held, front_distances, control): `_shipping`

    def joined(self, game) -> None:
        if self.lookahead is not None:
            follow(game)  # the game keeps its phase starts for the look-ahead

    def left(self, game) -> None:
        for odds in (self.battle_odds, self.fleet_odds):
            if odds is not None:
                odds.close()

    def decide(self, decision: Decision, game):
        self._combatants = {}
        self._fire_by_kind = None  # (`_fire_kinds`, at the decision's first `_combatant`)
        self._kinds = {}
        self._domains = {}
        self._worth = {}
        self._threats = None
        if self.battle_odds is not None:
            self.battle_odds.new_decision()
        return getattr(self, "_" + decision.kind)(decision, game)

    # ------------------------------------------------------------------ unit facts

    def _domain(self, game, unit) -> str:
        """The unit's movement domain: a setting the kit keeps by type and owner for the phase
        (`ProcedureConfig.unit_fn`), asked once a kind in a decision (the plans ask it of every
        candidate of every target)."""
        kind = (unit.type, unit.owner)
        found = self._domains.get(kind)
        if found is None:
            found = self._domains[kind] = game.domain(unit)
        return found

    def _fire(self, game, unit, side: str) -> int:
        """The value `unit` fires at on `side` ("attacker" or "defender") of a battle: the
        ruleset's `advice firepower`, else 0."""
        return self._combatant(game, unit, side)[0]

    def _type_fire(self, game, type_name: str, side: str) -> int:
        """The value a unit of `type_name` of this player would fire at on `side`."""
        return self._fire(game, Sample(type_name, self.player), side)

    def _combatant(self, game, unit, side: str) -> tuple[int, int, int]:
        """(fire value, cost, hit points) of a unit in a simulated battle, by the rules' values: its
        firepower advice (0 without it), its purchase cost setting and its hit points setting."""
        # a stand-in unit (Sample) has no id of its own: its type and owner tell it apart. Where the
        # advice reads its unit only for the unit's kind, every unit of the kind fires alike while
        # the board stands (a decision's: its what-ifs put the board back before anything else is
        # asked): one answer a kind and side, where units of a few kinds are asked thousands of times
        by_kind = self._fire_by_kind
        if by_kind is None:
            by_kind = self._fire_kinds(game)
        key = (unit.type, unit.owner, side) if by_kind else (unit.id, unit.type, unit.owner, side)
        found = self._combatants.get(key)
        if found is None:
            fire = self._fires.get(key)  # (an earlier decision's, by kind, while the counters it read stand)
            if fire is None:
                advice = game.compiled.advice("firepower")
                fire = advice.fn(game.ctx, game.ctx.unit_value(unit), side) if advice is not None else 0
                if self._fires_mark is not None:
                    self._fires[key] = fire
            # the cost and hit points are settings the kit keeps by type and owner for the phase
            # (`ProcedureConfig.unit_fn`, `type_fn`): asked once a kind in a decision
            kind = (unit.type, unit.owner)
            worth = self._kinds.get(kind)
            if worth is None:
                worth = self._kinds[kind] = (game.unit_cost(unit), max(1, game.hit_points(unit)))
            found = self._combatants[key] = (fire, *worth)
        return found

    def _fire_kinds(self, game) -> bool:
        """Whether this decision's fires are kept by kind (the advice reads its unit only for its
        kind: `Advice.by_kind`; no advice: every unit fires at 0), asked at its first `_combatant`
        (most decisions ask none). The fires of earlier decisions (`_fires`) are kept for it where
        the advice reads nothing of the game but its unit's kind and counters (kind_reads.py) and
        none of those counters was written since, in the same game state (its counters dicts the
        same, or equal, and each written as often: `GameState.counter_writes`); else it starts anew
        (and keeps none where the advice may read more)."""
        advice = game.compiled.advice("firepower")
        by_kind = self._fire_by_kind = advice is None or 0 in advice.by_kind
        state = game.ctx.state
        if advice is None or not by_kind or advice.counters is None or state is None:
            self._fires, self._fires_mark = {}, None
            return by_kind
        if self._fire_names[0] is not advice:
            self._fire_names = (advice, tuple(sorted(advice.counters)))
        counters, writes = state.counters, state.counter_writes
        mark = (state, counters, *[(counters.get(name), writes.get(name, 0)) for name in self._fire_names[1]])
        if mark != self._fires_mark:  # (a tuple compares its items by identity first: the same dicts)
            self._fires = {}
            self._fires_mark = mark
        return by_kind

    def _territory_value(self, game, space: str) -> int:
        """What `space` is worth: the ruleset's `advice territory_value`, else 0 (every space alike)."""
        found = self._worth.get(space)
        if found is None:
            advice = game.compiled.advice("territory_value")
            found = advice.fn(game.ctx, game.ctx.space_values[space]) if advice is not None else 0
            self._worth[space] = found
        return found

    def _shipping(self, game, engine=None, hostile=None) -> Shipping:
        """The player's `Shipping` (for a plan of this phase with `engine`, or a purchase's
        questions without), its land steps to the fighting kept while the territories the enemy
        holds stand (a purchase and the plans of a turn ask them on boards that differ only in
        where units stand); `hostile`: the spaces holding units not on the player's side, when
        the caller has them for the board as it stands (`_hostile_spaces`)."""
        kept = self._front(game)
        if engine is None:
            return Shipping(game, self.player, front=kept[4], enemy=kept[3])
        return Shipping(game, self.player, engine, self._may, front=kept[4], enemy=kept[3],
                        commanded=self._commanded, hostile=hostile)

    def _front(self, game) -> tuple:
        """(state, its version, map, `enemy_held`, `front_distances`, control) of the board as it
        stands: the territories the enemy holds and the land steps to them, kept while those stand."""
        state = game.state
        kept = self._front_kept
        if kept is None or kept[0] is not state or kept[1] != state.version:
            # the steps read the map and the territories the enemy holds: kept while those stand
            # (most changes of the board move units, or change hands among one side's powers); the
            # enemy holds what it held where no territory changed hands (the sides are the rules')
            if kept is not None and kept[0] is state and kept[5] == state.control:
                kept = self._front_kept = (state, state.version, *kept[2:])
            else:
                enemy, control = enemy_held(game, self.player), dict(state.control)
                if kept is not None and kept[2] is state.map and kept[3] == enemy:
                    kept = self._front_kept = (state, state.version, state.map, enemy, kept[4], control)
                else:
                    steps = game.board.graph.land_steps()  # (kept by the map's graph)
                    kept = self._front_kept = (state, state.version, state.map, enemy,
                                               front_distances(game, self.player, enemy, steps.__getitem__), control)
        return kept

    # ------------------------------------------------------------------ casualties

    def _casualties(self, d: Decision, game):
        """Units that survive a hit absorb first, then the cheapest (kit/casualties.py's order);
        among an enemy's units (a rule may let it choose them), the dearest are destroyed first."""
        room = d.context["room"]
        units = [game.unit_or_none(uid) for uid in room]
        if units and not any(game.allied(u.owner, self.player) for u in units):
            return enemy_casualty_order(units, room, d.count, cost=game.unit_cost)
        return casualty_order(units, room, d.count, rank=cheapest_rank_of(units, game.unit_cost))

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

    def _quick_takes(self, game, attack: list, defence: list, settle: tuple[int, ...] | None = None, *,
                     values: tuple[tuple, tuple] | None = None, outmatch: bool = True) -> float:
        """The quick simulation's chance that `attack` takes the space `defence` holds: it destroys
        the defence with a unit that takes territory (a land unit, by `_domain`) left. Its dice are
        the agent's own generator's, as `_wins`'s (`settle`: as there). `values`: the simulation's
        (attack, defence) values of these units (`_taker` of each attacker, sorted; the
        defenders' `_combatant`, sorted), when the caller has them. `outmatch`: as `_wins`'s (false
        where the caller found `_lopsided` false of these values: not asked again)."""
        if not defence:
            return 1.0 if any(self._domain(game, u) == "land" for u in attack) else 0.0
        if values is None:
            values = self._take_values(game, attack, defence)
        return self._estimate(*values, settle, takes=True, outmatch=outmatch) / SIM_TRIALS

    def _more_takes(self, game, attack: list, defence: list, trials: int, settle: tuple[int, ...] | None = None, *,
                    values: tuple[tuple, tuple] | None = None) -> int:
        """In how many of `trials` more battles `attack` takes the space `defence` holds, after the
        estimate of the same battle just made (`_quick_takes`, all its trials thrown): thrown with
        that estimate's dice, going on (`_dice`, with the part "settled"; else the agent's
        generator), so later estimates roll as they would have (`settle`, `values`: as there)."""
        if values is None:
            values = self._take_values(game, attack, defence)
        dice = self._estimate_dice if "settled" in self.spare else self.rng
        return simulate(*values, dice, takes=True, settle=settle, trials=trials, tally="tally" in self.spare)

    def _take_values(self, game, attack: list, defence: list) -> tuple[tuple, tuple]:
        """The quick simulation's (attack, defence) values of taking the space `defence` holds:
        each attacker's `_taker`, sorted, and the defenders' `_defence_values`."""
        return tuple(sorted(self._taker(game, u) for u in attack)), self._defence_values(game, defence)

    def _taker(self, game, unit) -> tuple:
        """What the quick simulation of taking a space knows of an attacking unit: its
        `_combatant` values and whether it takes territory (a land unit)."""
        return (*self._combatant(game, unit, "attacker"), self._domain(game, unit) == "land")

    def _defence_values(self, game, defence: list) -> tuple:
        """The defenders' `_combatant` values, sorted: the quick simulation's defence."""
        return tuple(sorted(self._combatant(game, u, "defender") for u in defence))

    def _wins(self, game, attack: list, defence: list, settle: tuple[int, ...] | None = None, *,
              outmatch: bool = True) -> float:
        """In how many of SIM_TRIALS simulated battles the attacking units destroy the defending ones
        (with the part "reckon", of a small battle, how many on average: `_estimate`).
        With a shared memo (`sims`), each different battle is simulated once, with dice of its own
        (a generator seeded by the game's seed and the battle), so an estimate is the same
        whichever agent asks it first. With the part "settled" (SPARE), `settle` (quick_battle.py's
        `settling` of the one answer the caller takes from the count) stops the trials once the
        trials left cannot change that answer, each estimate rolled by a generator of its own
        (`_dice`); `outmatch` false: no "outmatched" (nor "landless") answer of 0 wins (the count
        then stays one that `settle` alone cut short)."""
        if not defence:
            return SIM_TRIALS if attack else 0
        if not attack:
            return 0
        a_vals = tuple(sorted(self._combatant(game, u, "attacker") for u in attack))
        d_vals = tuple(sorted(self._combatant(game, u, "defender") for u in defence))
        if self.sims is None:
            return self._estimate(a_vals, d_vals, settle, outmatch=outmatch)
        key = (a_vals, d_vals)
        found = self.sims.get(key)
        if found is None:
            found = self.sims[key] = simulate(a_vals, d_vals, random.Random(f"quick:{self.seed}:{key}"),
                                              tally="tally" in self.spare)
        return found

    def _estimate(self, a_vals: tuple, d_vals: tuple, settle: tuple[int, ...] | None, takes: bool = False, *,
                  outmatch: bool = True) -> float:
        """`simulate` with the agent's own generator; with the part "settled", with the estimate's
        own (`_dice`), stopped by `settle` (`_wins`); with "outmatched", 0 wins for an attack far
        weaker than the defence where the caller's answer is the same from 0 wins to
        OUTMATCHED_WINS (its generator's seed drawn all the same: the later estimates' dice stay
        as they would have been); with "landless", as "outmatched", an attack (`takes`) the square
        law leaves with no unit that takes territory even were it LANDLESS times as strong
        (quick_battle.py's `landless`); with "reckon", a battle small enough (`reckonable`) worked out
        exactly, its wins the chance times SIM_TRIALS (a float; no dice drawn), unless (with
        "lopsided") "outmatched" or "landless" takes it as 0 wins (`_lopsided`; no dice drawn)."""
        if "settled" not in self.spare:
            return simulate(a_vals, d_vals, self.rng, takes=takes, tally="tally" in self.spare)
        if self._reckons(a_vals, d_vals):
            if "lopsided" in self.spare and self._lopsided(a_vals, d_vals, settle, takes, outmatch):
                return 0  # (no dice: a reckoned estimate draws no seed either)
            return reckon(a_vals, d_vals, takes)[0] * SIM_TRIALS
        self._dice()
        if self._lopsided(a_vals, d_vals, settle, takes, outmatch):
            return 0
        return simulate(a_vals, d_vals, self._estimate_dice, takes=takes, settle=settle, tally="tally" in self.spare)

    def _lopsided(self, a_vals: tuple, d_vals: tuple, settle: tuple[int, ...] | None, takes: bool,
                  outmatch: bool) -> bool:
        """Whether `_estimate` takes an estimate as winning no trial without throwing it: the
        caller's answer is the same from 0 wins to OUTMATCHED_WINS (`settle`) and the attack is far
        weaker than the defence (the part "outmatched") or, taking a territory (`takes`), is left
        with no unit that takes it by the square law (the part "landless")."""
        return (outmatch and settle is not None and settle[0] >= OUTMATCHED_WINS
                and ("outmatched" in self.spare and outmatched(a_vals, d_vals, OUTMATCHED)
                     or takes and "landless" in self.spare and landless(a_vals, d_vals, LANDLESS)))

    def _wins_reckoned(self, game, attack: list, defence: list) -> bool:
        """Whether `_wins` of `attack` against `defence` is worked out exactly (`_estimate`'s
        "reckon") rather than thrown or taken from the shared memo (`sims`): both sides stand, the
        agent has "settled" and reckons a battle of their values (`_reckons`)."""
        if not attack or not defence or self.sims is not None or "settled" not in self.spare:
            return False
        return self._reckons(tuple(sorted(self._combatant(game, u, "attacker") for u in attack)),
                             tuple(sorted(self._combatant(game, u, "defender") for u in defence)))

    def _reckons(self, a_vals: tuple, d_vals: tuple) -> bool:
        """Whether an estimate of `a_vals` against `d_vals` is reckoned (the part "reckon", a battle
        `reckonable` says is small enough) rather than thrown."""
        return "reckon" in self.spare and reckonable(a_vals, d_vals)

    def _dice(self) -> None:
        """Draw the seed of one quick estimate of an agent with the part "settled": the estimate
        throws dice of its own (`_estimate_dice`), seeded from the agent's generator, so that an
        estimate whose trials stop early leaves the dice of every later estimate as they would
        have been (each estimate still rolls fresh dice of its own, as from the agent's generator).
        The seed is put in the generator when it is next read: most seeds are drawn for estimates
        answered without throwing (a verdict kept, a lopsided battle), and seeding costs about
        10 us, a hundred times the draw."""
        self._unsown = self.rng.getrandbits(64)

    @property
    def _estimate_dice(self) -> random.Random:
        """The quick estimates' own generator, seeded first with the seed `_dice` drew last if
        that is not in it yet: as it would stand had every seed drawn been put in at once."""
        dice = self._estimate_generator
        if self._unsown is not None:
            dice.seed(self._unsown)
            self._unsown = None
        return dice

    # ------------------------------------------------------------------ moves

    def _move(self, d: Decision, game):
        engine = self._engine = d.context["engine"]
        kind = d.context["kind"]
        key = (game.state.round, kind, self.player)
        if self._plan_key != key:
            self._plan_key = key
            self._deltas = {}
            self._grounded = set()
            self._landings = {}
            self._commanded = frozenset(engine.commanded_units())
            self._constraints = d.context.get("constraints")
            if kind == "combat":
                self._plan = self._combat_plan(game, engine)
            else:  # a rollout's non-combat move: only the landings (see __init__)
                self._plan = [] if self.rollout else self._noncombat_plan(game, engine)
        check = d.context.get("check", engine.check)  # the engine's and the rules' constraints
        on_board = game.state.unit_index()  # (read, not changed: no move is made meanwhile)
        while self._plan:
            move = self._plan.pop(0)
            if all(uid in on_board for uid in move.units) and not check(move):
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
        capable = engine.airborne_units()  # (most rules let no unit fly: then none is asked)
        if not capable:
            return None
        board = game.board
        mine = self._movers(game, engine)
        for uid in capable:  # (by id; the others have no airborne move)
            if uid not in mine:
                continue
            moves = [m for m in engine.airborne_moves(uid)
                     if any(u.id in mine and u.id not in m.units for u in board.units(m.path[-1]))]
            moves.sort(key=lambda m: (-self._value(game, m.path[-1]), len(m.units), game.space_order(m.path[-1])))
            for move in moves:
                if not check(move):
                    return move
        return None

    def _enemies(self, game, space: str) -> list:
        """The units at `space` that would fight the player's attack there (its battle's rule:
        not on its side and at war with it; a power at peace sharing the space does not fight)."""
        return self._belligerents.enemies_at(game, space, self.player)

    def _may(self, move: Move) -> bool:
        """Whether a plan may make `move`: any move the engine offers for the player's own units;
        one moving an ally's unit the player commands, only if the rules' constraints accept it
        too (asked as the plan is made: the rules that let a player command another's units
        limit what it may do with them, and a unit planned into a refused move is lost to the plan)."""
        if self._constraints is None or not self._commanded.intersection(move.units):
            return True
        return not self._constraints(move)

    def _movers(self, game, engine) -> set[int]:
        """Ids of the units the player moves this phase: its own, and the allies' units the
        engine lets it command (the move setting `commands`): the engine's own list, made by its
        pass over the board (no second pass here)."""
        return set(engine.player_units())

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
        state = game.state
        if state.control.get(space) == self.player and not game.compiled.is_random("score"):
            # taking a space it holds changes nothing the score can read: the same score (asked
            # first: the non-combat plan asks it of every territory the player holds)
            return 0.0
        sym = game.compiled.symbols.get("score")
        if sym is None or not game.board.is_land(space):
            return 0.0
        side = game.ctx.side_of(self.player)
        if side is None:
            return 0.0
        fn = game.compiled.callable("score")
        kept = self._score_now
        if kept is not None and kept[0] is state and kept[1] == state.version and kept[2] is side:
            before = kept[3]  # the board as it was for the last space tried: the same score
        else:
            before = fn(game.ctx, side)
        held = space in state.control
        old = state.control.get(space)
        version = state.version
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
        # the board is as it was: the phase's movement engine keeps what it worked out (its
        # reaches, landings, movable units), which a new version would have it work out again
        engine = self._engine
        if engine is not None and engine.state is state:
            engine.restored(version)
        # and so do the board's queries (their index of units by place: the combat plan's next
        # questions made it again after every what-if), when the score logged nothing (no dice)
        if game.board.state is state and state.version == version + 2:
            game.board.restored(version)
        self._score_now = (state, state.version, side, before)
        try:
            return float(after - before)
        except TypeError:
            return 0.0
