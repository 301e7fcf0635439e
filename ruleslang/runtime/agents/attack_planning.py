"""The heuristic agent's combat move (the `AttackPlanning` part of HeuristicAgent).

The most valuable reachable enemy spaces it takes with high odds, with the fewest units that keep
the odds; amphibious assaults; enemy fleets it beats by the exact chain; raids on the richest enemy
factory with escorts where enemy air units wait (raid_planning.py). An air unit goes only where it
keeps a landing.
The methods read the agent's unit facts and estimates (heuristic.py) through `self`.
"""

from __future__ import annotations

import math
from bisect import insort
from functools import lru_cache

from ruleslang.runtime.agents.meetings import Stalemates
from ruleslang.runtime.agents.quick_battle import SIM_TRIALS, exchange, reckon, reckon_apart, reckonable, settling
from ruleslang.runtime.agents.raid_planning import RaidPlanning
from ruleslang.runtime.agents.shipping import foe_spaces
from ruleslang.runtime.kit.movement import Move

ATTACK_ODDS = 0.75   # attack when the simulated chance of taking the space is at least this
SCORE_ODDS = 0.55    # ... or this, for a space that raises the side's score
QUICK_MARGIN = 0.25  # the quick simulation misses by about this much (it ignores support fire and first strikes)
EXTRA_UNITS = 2      # units added to the quick guess of an attack while the exact odds fall short
# a `spare` agent (heuristic.py's SPARE "attacks") takes the quick simulation's chance of taking a
# space (`_quick_takes`) as the answer when it is at least TAKE_ABOVE over what is needed or more
# than TAKE_BELOW under it, and asks the chain between: in seeded house-rules games the chain
# agreed with all 99 answers 0.2 over and all but one of 77 that far under; TAKE_ABOVE was 0.2
# until the session's second round, which found the chain saying no in 1 of the 189 runs it made
# between 0.1 and 0.2 over (seeds 1-10) and measured 0.1 no weaker (docs/performance.md)
TAKE_ABOVE = 0.1
TAKE_BELOW = 0.1
# ... and (SPARE "fleets") an attack at sea as made, without the chain, when its quick chance of
# winning is at least ATTACK_ODDS + FLEET_ABOVE and its units that are not air units win alone
# with at least ATTACK_ODDS: the quick simulation knows nothing of what may fire at what (a rule
# may let air units hit some ships only beside others, which the chain knows), so the ships must
# carry the battle; in seeded games of the shipped rules (seeds 1-12) the chain agreed with all 72
FLEET_ABOVE = 0.15
# ... and (SPARE "below") the quick chance of taking a space as a no once it is more than
# SPARED_BELOW under what is needed (TAKE_BELOW without the part): in seeded house-rules games
# (seeds 1-40) the chain said no in 147 of the 157 runs it made 0.075 to 0.1 under, 206 of 231
# 0.05 to 0.075 under, 182 of 252 less than 0.05 under; a no moves `_fewest_spared` on to one
# more unit, as the chain's no did. 0.05 played weaker as the Allies over seeds 1-80 (paired
# duels: docs/performance.md, "Session 15: the chain's remaining queries")
SPARED_BELOW = 0.075
# (SPARE "doubt") a quick chance of taking a space left in the band where the chain is asked is
# thrown again with more trials of the same estimate's dice, in stages of DOUBT_TRIALS trials in
# all: at a stage before the last the chance is the answer once it is more than DOUBT_SPREAD of its
# standard errors (and DOUBT_ABOVE or DOUBT_BELOW) over or under what is needed; at the last, the
# chain is asked only when it is still under DOUBT_ABOVE over and not more than DOUBT_BELOW under
# (else it is the answer, as a quick chance outside the band is): the quick chance misses the
# chain's answer mostly by its own spread at SIM_TRIALS trials (about 0.055 at 0.75). In seeded
# house-rules games (seeds 1-40, main's play; 1,649 chain answers in the band, 583 of assaults) a
# quick chance of 2,400 trials differed from the chain's by 0.003 on average (standard deviation
# 0.022; 0.015 by land, 0.031 in assaults); with the constants as here the chain was asked 316
# times, and 31 answers went against the chain's (9 yes, 22 no), 311 more trials a question (480
# all at once: 320, 31, 420; docs/performance.md, "Session 21: the quick estimate's doubt")
DOUBT_TRIALS = (240, 480)
DOUBT_SPREAD = 2.0
DOUBT_ABOVE = 0.03
DOUBT_BELOW = 0.03
# (SPARE "band", with "doubt") the last stage's chance is the answer once it is DOUBT_BAND over or
# under what is needed (DOUBT_ABOVE and DOUBT_BELOW without the part; the stages before keep
# those): in the seeded games above the chain was asked 186 times, not 320, and 50 answers went
# against the chain's (20 yes, 30 no), each within 0.03 of what is needed at 480 trials
# (docs/performance.md, "Session 22: the land attacks' estimates")
DOUBT_BAND = 0.02
# (SPARE "zeros", `_fleet_attacks`) an attack at sea the chain gives no chance at all (exactly 0: units
# that cannot hit some of the defence, as the shipped rules say of air units against some ships
# with none of their side's escorts beside them) is not asked again with more units of the same
# types: in seeded house-rules games (seeds 1-40) the chain gave 0 again in all 57 such runs


# (SPARE "exchange", `_fleet_exchange`) an attack at sea the chain would be asked of, whose air units
# the rules let hit every defender (`_hittable`; or that has none), is thrown again by the quick
# simulation with its values lost (quick_battle.py's `exchange`), in stages of EXCHANGE_STAGES:
# (trials in all, how far over or under ATTACK_ODDS its chance of winning and over or under 0 the
# value it destroys less the value it loses settle the answer); the chain is asked only when the
# last stage leaves it in doubt. Where the rules let every unit hit every other, the quick model
# is the chain's but for its sample: in seeded house-rules games (seeds 1-40, main's play; 402
# such chain answers) the chance of 960 trials differed from the chain's by -0.002 on average
# (standard deviation 0.018), the values lost by +0.10 and +0.07 (0.44, 0.35); with these stages
# the chain was asked 98 times and 4 answers went against the chain's (all no; 353 trials a
# question; docs/performance.md, "Session 22: the attacks at sea settled by the quick exchange")
EXCHANGE_STAGES = ((240, 0.06, 2.0), (480, 0.03, 1.0))
# (SPARE "trident", `_fleet_apart`) ... and one some of whose air units the rules keep from some
# defenders (the shipped rules let an air unit hit some ships only beside an escort of its own side)
# is reckoned with those pairs never hitting each other: in seeded house-rules games (seeds 1-60,
# the part's own play) 163 of 174 such attacks were settled so, 162 as the chain answers them (one
# no the chain made: an escort beside the air units, which the pairs alone cannot see)


# what the plans take from a quick estimate (quick_battle.py's `settling`: with the part "settled"
# of SPARE, its trials stop once that is settled): an attack at sea's chance against ATTACK_ODDS,
# and (`_fleet_settled`) against ATTACK_ODDS + FLEET_ABOVE
_FLEET_WINS = settling(lambda quick: quick >= ATTACK_ODDS)
_FLEET_SETTLED = settling(lambda quick: quick < ATTACK_ODDS + FLEET_ABOVE)


def _exchange_settles(found: tuple[float, float, float], odds: float, value: float) -> bool:
    """Whether a stage of EXCHANGE_STAGES settles an attack at sea of `found` (chance of winning,
    value lost, value destroyed): its chance `odds` under ATTACK_ODDS or the value it destroys
    less what it loses under -`value` (not made), or both as far over (made)."""
    return (found[0] < ATTACK_ODDS - odds or found[2] - found[1] < -value
            or (found[0] >= ATTACK_ODDS + odds and found[2] - found[1] > value))


@lru_cache(maxsize=None)
def _takes_settle(above: float, below: float, needed: float) -> tuple[int, ...]:
    """What `_spared_takes` takes from a quick chance of taking a space: whether it is at least
    `above`, under `below`, and (between them, when the chain gives no answer) at least `needed`."""
    return settling(lambda quick: (quick >= above, quick < below, quick >= needed))


@lru_cache(maxsize=None)
def _doubt_settle(above: float, below: float) -> tuple[int, ...]:
    """`_takes_settle` of an agent with the part "doubt": the trials stop once the quick chance is
    settled at least `above` or under `below`, never between (all SIM_TRIALS trials are counted
    there, the first of the doubt's)."""
    return settling(lambda quick: True if quick >= above else False if quick < below else quick)


def _doubt_judge(quick: float, needed: float, trials: int, band: tuple[float, float] = (DOUBT_ABOVE, DOUBT_BELOW)):
    """What a stage of the doubt takes from a chance of `trials` trials: True or False once it is
    DOUBT_ABOVE over or DOUBT_BELOW under `needed` (before the last stage, also DOUBT_SPREAD of
    its standard errors; at the last, `band`'s over and under), else the chance itself (the next
    stage goes on from all these trials; after the last, the chain is asked)."""
    if trials == DOUBT_TRIALS[-1]:
        above, below = band
    else:
        spread = DOUBT_SPREAD * math.sqrt(max(quick * (1 - quick), 0.01) / trials)
        above, below = max(DOUBT_ABOVE, spread), max(DOUBT_BELOW, spread)
    if quick >= needed + above:
        return True
    if quick < needed - below:
        return False
    return quick


@lru_cache(maxsize=None)
def _doubt_more(needed: float, wins: int, trials: int, band: tuple[float, float] = (DOUBT_ABOVE, DOUBT_BELOW)) -> tuple[int, ...]:
    """What the doubt's trials up to `trials` in all settle, after `wins` so far (the table of 0 sliced:
    made once), at the last stage the chance against `band`'s over and under and (when the chain
    gives no answer) `needed`, before it `_doubt_judge`; indexed by the wins of the stage's own."""
    if wins:
        return _doubt_more(needed, 0, trials, band)[wins:]
    if trials == DOUBT_TRIALS[-1]:
        return settling(lambda quick: (quick >= needed + band[0], quick < needed - band[1], quick >= needed), trials)
    return settling(lambda quick: _doubt_judge(quick, needed, trials), trials)


def _aims(places: dict, aimed: dict[int, tuple[dict, list]], wanted, among: set[str]) -> list[tuple[str, tuple]]:
    """The (target, path) pairs of a reach the engine keeps (`kept_destinations`) whose target is
    one of `among` and `wanted(target)` accepts, in its order: the units of a kind standing
    together share one reach dict, so its spaces are sorted out once, kept in `aimed` by the dict's
    id (the dict is held there with its answer: its id is not reused while `aimed` lives).
    `among` holds every space `wanted` may accept (a set's test: most spaces a unit reaches are
    none of them, and `wanted`, a call each, is asked only of the others)."""
    found = aimed.get(id(places))
    if found is None:
        found = aimed[id(places)] = (places, [(target, path) for target, path in places.items()
                                              if target in among and wanted(target)])
    return found[1]


class AttackPlanning(RaidPlanning):
    """The combat-move plan of the heuristic agent (a part of HeuristicAgent); its raids: raid_planning.py."""

    def _aims_allowed(self, engine, uid: int, among: set[str], aimed: dict, wanted) -> list[tuple[str, tuple]]:
        """The unit's (target, path) pairs for targets in `among` that `wanted` accepts (`_aims`,
        over its reach walked for `among` alone), each a move the rules allow where the unit is an
        ally's the player commands (`_may` is asked only of those)."""
        found = _aims(engine.kept_destinations_among(uid, among), aimed, wanted, among)
        if uid not in self._commanded:
            return found
        return [(target, path) for target, path in found if self._may(Move.of_tuples((uid,), path))]

    def _combat_plan(self, game, engine) -> list:
        self._verdicts = {}  # (SPARE "again") the plan's estimates of taking a space: `_spared_takes`
        # (the decision's kept domains read in line, `_domain` asked on a kind's first unit: the
        # plan's loops ask it of every unit the player moves, a few kinds for many units)
        domains, domain = self._domains, self._domain
        # the player's air units and where they stand (the non-combat landings' `_landing_order`),
        # noted in the reach loop below: it goes over every unit the player moves, not the board's
        origins = self._origins = {}
        # the board's units by id: no unit comes or goes while the plan is made (its what-ifs change
        # control alone; the battles it estimates are fought on copies): read, never changed
        unit_of = game.state.unit_index().get
        reach: dict[str, list[tuple[int, tuple]]] = {}
        # space -> `_target`, asked once a space: the board stands still while the plan is made
        targets: dict[str, bool] = {}
        aimed: dict[int, tuple[dict, list]] = {}  # (`_aims`)

        def wanted(target: str) -> bool:
            found = targets.get(target)
            if found is None:
                found = targets[target] = self._target(game, target)
            return found
        landed: set[str] = set()  # the targets a land unit reaches (no other is ever attacked)
        # the spaces `_target` may accept: land no ally of the player holds (an enemy's, kept with
        # the land steps to them that the plan's assaults read, or no one's)
        # (a space may stand in control with no holder: asked by its holder, as `_target` asks it)
        control = game.state.control
        foreign = set(self._front(game)[3]).union(t for t in game.board.spaces("land") if control.get(t) is None)
        # every unit the player moves, by id: one the engine's `movable_units` leaves out has no
        # destinations (blocked, or an empty reach) and no raid, so the plan finds what it found
        # from that list, whose making (each unit's first steps and air units' landings, which the
        # reaches find again, and every load and unload, which no loop here reads) it spares; so do
        # `_fleet_attacks`, the raids and the escorts (`raiding_units`, by id: the only units with
        # raids or escorts)
        # a target only air units reach is passed over below (a land unit must take it): where
        # valuing it (a what-if of the score) rolls no dice, the air units are walked after the
        # land units, for the targets those reach alone (`landed`: an air walk looks for a landing
        # from each space it is asked of, and most spaces within an air unit's reach are farther
        # than any land unit of the player goes); the candidates are sorted below by a key of
        # their own, not by the order they were found in
        flying: list[int] | None = None if game.compiled.is_random("score") else []
        afloat: list[int] = []  # the units not on land, in this order: the attacks at sea's candidates
        for uid in engine.player_units():
            unit = unit_of(uid)
            kind = None if unit is None else domains.get((unit.type, unit.owner)) or domain(game, unit)
            if kind is None:
                continue
            if kind != "land":
                afloat.append(uid)
                if kind == "sea":
                    continue
            if kind == "air":
                origins[uid] = unit.space
                if flying is not None:
                    flying.append(uid)
                    continue
            for target, path in self._aims_allowed(engine, uid, foreign, aimed, wanted):
                reach.setdefault(target, []).append((uid, path))
                if kind == "land":
                    landed.add(target)
        for uid in flying or ():
            for target, path in self._aims_allowed(engine, uid, landed, aimed, wanted):
                reach[target].append((uid, path))
        # the raids of the only units with raids (most have none to ask for), asked once for the
        # plan (no unit moves while it is made): an escort's fly to raids made already, none
        # before the phase's first raid (the engine's `bombing_raids`), so its reach is not walked
        unraided = not engine.bombing_raids()
        raids = {uid: [] if unraided and engine.escorts_raids(uid) else engine.raids_of(uid)
                 for uid in engine.raiding_units()}
        can_raid = {uid for uid, moves in raids.items() if any(self._may(m) for m in moves)}
        held = self._escort_reserve(game, engine, can_raid, raids)
        plan: list = []
        used: set[int] = set()
        reserved: dict[str, int] = {}  # sea zone -> carrier places promised to this plan's air units
        targets = sorted(reach, key=lambda t: (-self._value(game, t), game.space_order(t)))
        # unit id -> its place in the order of candidates below, found at its first target (a unit
        # is a candidate for each target it reaches; its fire stands while the plan is made)
        rank: dict[int, tuple] = {}

        def ranked(up: tuple[int, tuple]) -> tuple:
            uid = up[0]
            found = rank.get(uid)
            if found is None:
                found = rank[uid] = (uid in can_raid, -self._fire(game, unit_of(uid), "attacker"), uid)
            return found
        for target in targets:
            candidates = [(uid, path) for uid, path in reach[target] if uid not in used and uid not in held]
            # land units must be among them to take the space (asked before the defence is found;
            # the candidates are land units and the air units of `origins`)
            if all(uid in origins for uid, _ in candidates):
                continue
            defenders = [u for u in self._enemies(game, target) if self._fire(game, u, "defender") > 0]
            # strongest attackers first, units that could raid a factory last
            candidates.sort(key=ranked)
            needed = SCORE_ODDS if self._score_delta(game, target) > 0 else ATTACK_ODDS
            eligible: list[tuple[tuple[int, tuple], dict]] = []  # (candidate, carrier places promised with it)
            promised = dict(reserved)
            # the places promised as they stand, shared by the candidates after which none was
            # promised: a unit that is not an air unit always keeps a landing and promises none
            # (`_keeps_landing`, not asked of it); never changed once made (`reserved` is changed
            # only by the raids, after every target)
            kept = reserved
            for item in candidates:
                if item[0] not in origins:
                    eligible.append((item, kept))
                elif self._keeps_landing(game, engine, item[0], item[1], promised):
                    kept = dict(promised)
                    eligible.append((item, kept))
                # else: an air unit that would have nowhere sure to land
            count = self._fewest(game, target, [unit_of(uid) for (uid, _), _ in eligible], defenders, needed)
            if count is None:
                continue
            reserved = eligible[count - 1][1]
            for (uid, path), _ in eligible[:count]:
                used.add(uid)
                plan.append(Move.of_tuples((uid,), path))
        foes = foe_spaces(game, self.player)  # (the board stands while the plan is made)
        plan += self._assaults(game, engine, used, foes)
        if not self.previous:
            plan += self._fleet_attacks(game, engine, used, held, afloat, foes)
        return plan + self._raids(game, engine, used, reserved, raids)

    def _target(self, game, space: str) -> bool:
        """Whether the combat plan considers taking `space` (one the engine lets a unit enter in
        combat move): a territory an enemy holds, or one no player holds that the rules value
        (`_value`: its territory value or what taking it adds to the side's score; TripleA's
        neutral territories, which some games are about taking). A worthless unowned space is
        left alone: taking it gives nothing for the units it costs."""
        board = game.board
        if not board.is_land(space):
            return False
        controller = game.state.control.get(space)
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
        if "attacks" in self.spare:
            return self._fewest_spared(game, target, units, defenders, needed, land)
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

    def _fewest_spared(self, game, target: str, units: list, defenders: list, needed: float,
                       land: int) -> int | None:
        """`_fewest` of a `spare` agent: the first number of units (from the first land unit on)
        that `_takes` by the quick chance of taking the space, asking the chain only where that
        leaves the answer in doubt (`_spared_takes`); None once the chain has said no
        EXTRA_UNITS + 1 times (as `_fewest` checks a guess and up to EXTRA_UNITS more)."""
        refused = 0
        # the simulation's values of the defence and of the first n units, sorted: made once, a
        # unit's added as n grows (each number asked the values of all its units again), as
        # `_quick_takes` makes them (the same sorted tuples, its units asked in the same order;
        # no defence: it makes none)
        values = defence = None
        attack = sorted(self._taker(game, u) for u in units[:land - 1]) if defenders else []
        # (a number whose estimate `_judged_no` answers no without a trial is passed over with its
        # bookkeeping alone: where "settled" stops trials, and the chance of 0 is under `below`)
        below, settle = self._verdict_terms(needed, bool(defenders))[1:]
        judged = bool(defenders) and "settled" in self.spare and below > 0
        for n in range(land, len(units) + 1):
            if defenders:
                insort(attack, self._taker(game, units[n - 1]))
                if defence is None:
                    defence = self._defence_values(game, defenders)
                values = (tuple(attack), defence)
                if judged and self._judged_no(values, needed, settle):
                    continue  # (`_spared_takes`' no: the walk goes on to one more unit)
            found = self._spared_takes(game, target, units[:n], defenders, needed, values=values, judged=judged)
            if found:
                return n
            if found is None:
                refused += 1
                if refused > EXTRA_UNITS:
                    return None
        return None

    def _spared_takes(self, game, target: str, units: list, defenders: list, needed: float, *,
                      amphibious_from: str | None = None, values: tuple[tuple, tuple] | None = None,
                      judged: bool = False) -> bool | None:
        """Whether `units` take `target` with at least `needed` odds, for a `spare` agent: the quick
        chance of taking it (`_quick_takes`; `values`: as there) when it is TAKE_ABOVE over
        `needed` or more than TAKE_BELOW under it (SPARED_BELOW with the part "below"), else the
        chain's (None when the chain said no; over its budget, the quick chance against `needed`).
        With the part "doubt", a quick chance between is thrown again with more trials, in the
        stages of DOUBT_TRIALS, and the chain asked only where those leave it in doubt (with
        "band", within DOUBT_BAND of `needed` at the last stage). With "again" (and "settled"), a
        force's estimate asked again within one combat plan (the same values against the same
        defence, the same odds needed: `_quick_verdict`) is answered as it was the first time. With
        "near" (and "doubt"), an attack by land (no `amphibious_from`) left in doubt after the last
        stage is answered by its chance against `needed` (no, None, as the chain's no), the chain
        not asked; with "offshore" (and "doubt"), an assault from the sea (`amphibious_from`) too,
        from a zone where no unit of the player's side that fires stands (`_backed`). `judged`:
        `_judged_no` found no answer for `values` (its `_lopsided` is not asked again)."""
        again = "again" in self.spare and "settled" in self.spare
        if defenders and values is None and (again or "doubt" in self.spare):
            # (made once for the estimate and each stage of its doubt, which would make them again)
            values = self._take_values(game, units, defenders)
        if again and defenders:
            key = (values, needed)
            verdict = self._verdicts.get(key)
            if verdict is None:
                verdict = self._verdicts[key] = self._quick_verdict(game, units, defenders, needed, values, judged)
            else:
                # the estimate's own generator's seed drawn all the same (as "outmatched" draws it):
                # every later estimate throws the dice it would have thrown
                self._dice()
        else:
            verdict = self._quick_verdict(game, units, defenders, needed, values, judged)
        if verdict is True or verdict is False:
            return verdict
        if "doubt" in self.spare and ("near" in self.spare if amphibious_from is None
                                      else "offshore" in self.spare and not self._backed(game, amphibious_from)):
            # (SPARE "near": the doubt's last stage left a land attack's chance within its band of
            # `needed`, where the chain's answer would turn on a few hundredths; a no counts as the
            # chain's no, moving `_fewest_spared` on to one more unit; "offshore" likewise of an
            # assault from a zone where no unit of the side may fire at the landing)
            return True if verdict >= needed else None
        found = self.battle_odds.chance(game, self.player, units, target, amphibious_from=amphibious_from, take=True)
        if found is None:
            return verdict >= needed
        return True if found >= needed else None

    def _backed(self, game, zone: str) -> bool:
        """Whether a unit of the player's side that fires in an attack stands in `zone`: the rules
        may let it fire at a landing from there (shore bombardment), which the quick simulation
        does not see (SPARE "offshore" leaves such an assault in doubt to the chain)."""
        return any(game.allied(u.owner, self.player) and self._fire(game, u, "attacker") > 0
                   for u in game.board.units(zone))

    def _quick_verdict(self, game, units: list, defenders: list, needed: float,
                       values: tuple[tuple, tuple] | None, judged: bool = False) -> bool | float:
        """What the quick simulation says of `units` taking the space `defenders` hold with at
        least `needed` odds, for `_spared_takes`: True or False where it settles the answer, else
        its chance (the chain is asked). `judged`: as there."""
        above, below, settle = self._verdict_terms(needed, bool(defenders))
        doubt = "doubt" in self.spare and defenders
        quick = self._quick_takes(game, units, defenders, settle, values=values, outmatch=not judged)
        if quick >= above:
            return True
        if quick < below:
            return False
        if doubt:
            band = (DOUBT_BAND, DOUBT_BAND) if "band" in self.spare else (DOUBT_ABOVE, DOUBT_BELOW)
            if self._reckons(*values):
                # (SPARE "reckon": the chance is what the stages' trials tend to: judged as the last
                # stage judges its own)
                return _doubt_judge(quick, needed, DOUBT_TRIALS[-1], band)
            # (the wins of SIM_TRIALS trials, all thrown: `_doubt_settle`)
            wins, done = round(quick * SIM_TRIALS), SIM_TRIALS
            for trials in DOUBT_TRIALS:
                wins += self._more_takes(game, units, defenders, trials - done,
                                         _doubt_more(needed, wins, trials, band), values=values)
                quick, done = wins / trials, trials
                settled = _doubt_judge(quick, needed, trials, band)
                if settled is True or settled is False:
                    return settled
        return quick

    def _verdict_terms(self, needed: float, defended: bool) -> tuple[float, float, tuple[int, ...]]:
        """(above, below, settle) of `_quick_verdict` for the odds `needed`: a quick chance at least
        `above` is a yes, one under `below` a no, and `settle` what its estimate's trials settle
        (`_doubt_settle` with the part "doubt" where a defence stands, else `_takes_settle`)."""
        above = needed + TAKE_ABOVE
        below = needed - (SPARED_BELOW if "below" in self.spare else TAKE_BELOW)
        if "doubt" in self.spare and defended:
            return above, below, _doubt_settle(above, below)
        return above, below, _takes_settle(above, below, needed)

    def _judged_no(self, values: tuple[tuple, tuple], needed: float, settle: tuple[int, ...]) -> bool:
        """Whether `_spared_takes` of an attack of `values` (a defence standing) says no without a
        trial or a reckoning, and if so its bookkeeping done as it would do it: `_estimate` takes
        the attack as winning no trial ("outmatched" or "landless": `_lopsided`; a battle it would
        reckon only with "lopsided"), a chance of 0 that `_quick_verdict` takes as a no (under its
        `below`, here over 0). The generator's seed such an estimate draws is drawn (a battle
        thrown, not reckoned, draws it before it is judged), and with "again" the verdict kept for
        the plan, or the seed of a verdict asked again drawn, as `_spared_takes` draws it: every
        later estimate throws the dice it would have thrown. Asked by `_fewest_spared` before each
        number of units: more than half of its numbers are answered so, each with a few calls, not
        the five of `_spared_takes` down to `_estimate`."""
        if not self._lopsided(*values, settle, True, True):
            return False
        reckons = self._reckons(*values)
        if reckons and "lopsided" not in self.spare:
            return False
        if "again" in self.spare:
            key = (values, needed)
            if key in self._verdicts:
                self._dice()  # (its verdict kept is this no: the same values judged the same)
                return True
            self._verdicts[key] = False
        if not reckons:
            self._dice()
        return True

    def _takes(self, game, target: str, units: list, defenders: list, needed: float, *,
               amphibious_from: str | None = None) -> bool:
        """Whether `units` take `target` with at least `needed` odds: the exact odds (`odds`),
        unless the quick simulation gives them less than `needed` - QUICK_MARGIN (then the quick
        answer, no: the chain is spent on attacks that might be made). A `spare` agent:
        `_spared_takes`."""
        if "attacks" in self.spare:
            return bool(self._spared_takes(game, target, units, defenders, needed, amphibious_from=amphibious_from))
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
        if engine.lands_ashore(uid, path):  # (a territory: `landings` is not made)
            return True
        landings = engine.landings(uid, path)
        if unit.space in landings:
            return True
        for zone, room in landings.items():
            if room > promised.get(zone, 0):
                promised[zone] = promised.get(zone, 0) + 1
                return True
        return False

    def _assaults(self, game, engine, used: set[int], foes: set[str]) -> list:
        """Amphibious assaults with what transports carry, where the simulated odds are good
        (`foes`: `foe_spaces`, the only spaces where an enemy unit may stand)."""
        # territory -> its defenders that fire: the board stands still while the plan is made, and
        # a territory is tried from every transport and zone that reaches it
        defence: dict[str, list] = {}

        def wins(units: list, territory: str, zone: str) -> bool:
            defenders = defence.get(territory)
            if defenders is None:
                defenders = defence[territory] = [u for u in self._enemies(game, territory)
                                                  if self._fire(game, u, "defender") > 0]
            needed = SCORE_ODDS if self._score_delta(game, territory) > 0 else ATTACK_ODDS
            return self._takes(game, territory, units, defenders, needed, amphibious_from=zone)
        # (no `landing_support` advice: no unit supports a landing, none is asked)
        supports = (lambda u: self._supports_landing(game, u)) \
            if game.compiled.advice("landing_support") is not None else None
        return self._shipping(game, engine, foes).assaults(used, wins, supports)

    def _fleet_attacks(self, game, engine, used: set[int], held: set[int], afloat: list[int], foes: set[str]) -> list:
        """Attacks on enemy ships with the sea and air units (`afloat`) no other attack needs (nor a
        raid as an escort: `held`): each sea zone with enemy units, the dearest fleet first (the units'
        purchase costs), with the fewest of the units that fire there (strongest first; an air unit
        only if a territory is left for it to land in) that win with at least ATTACK_ODDS and are
        expected to destroy more value than they lose. The quick simulation guesses the number;
        the exact chain of the rules' own battle steps (`fleet_odds`) decides, since the quick
        simulation knows nothing of what may fire at what (units the rules let hit only some
        others, say); a battle the chain does not answer (over its budget, or one it cannot
        follow) is not fought. A `spare` agent asks no chain of an attack `_fleet_settled`
        makes, nor (with the part "zeros") of one that adds only units of the types of a smaller
        attack on the zone the chain gave no chance at all (the comment on "zeros" above the class),
        nor (with the part "exchange") of one the quick simulation's values settle (`_fleet_exchange`)."""
        board = game.board
        unit_of = game.state.unit_index().get  # (as in `_combat_plan`: no unit comes or goes meanwhile)
        reach: dict[str, list[tuple[int, tuple]]] = {}
        # space -> the enemy units that fight there (none asked of a territory), asked once a space:
        # whether to attack it, what its fleet is worth, and the defence
        hostile: dict[str, list] = {}
        aimed: dict[int, tuple[dict, list]] = {}  # (`_aims`)

        # the only spaces `wanted` may accept: the zones of `foes` (`foe_spaces`: the battle's
        # enemies are never of the player's side, `BattleRules.enemy`); most zones the player's
        # units reach hold only its own side's units, or none (a territory is never a target
        # here: its air walks look for no landing from it)
        occupied = foes.intersection(board.spaces("sea"))

        def wanted(target: str) -> bool:
            found = hostile.get(target)
            if found is None:
                # (asked only of `occupied`'s zones: each holds a unit not of the side)
                found = hostile[target] = self._enemies(game, target)
            return bool(found)
        for uid in afloat:
            unit = unit_of(uid)
            if uid in used or uid in held or self._fire(game, unit, "attacker") <= 0:
                continue
            for target, path in self._aims_allowed(engine, uid, occupied, aimed, wanted):
                reach.setdefault(target, []).append((uid, path))
        worth = {t: sum(game.unit_cost(u) for u in hostile[t]) for t in reach}
        plan: list = []
        self.fleet_odds.new_decision()
        # (SPARE "hittable") which of the plan's air units the rules let hit which defenders
        # (the phase's battle rules shared with `_enemies`, which asked them at each zone in `reach`:
        # made once)
        stalemates = Stalemates(game, self._belligerents.rules(game)) if "hittable" in self.spare and reach else None
        for target in sorted(reach, key=lambda t: (-worth[t], game.space_order(t))):
            candidates = [(uid, path) for uid, path in reach[target] if uid not in used]
            candidates.sort(key=lambda up: (-self._fire(game, unit_of(up[0]), "attacker"), up[0]))
            defenders = hostile[target]
            # an air unit goes only where a territory is left to land in: a carrier place may sail
            # away or sink before the non-combat move (a battle at sea is where carriers fight)
            eligible = [(uid, path) for uid, path in candidates
                        if self._domain(game, unit_of(uid)) != "air"
                        or engine.lands_ashore(uid, path)]
            units = [unit_of(uid) for uid, _ in eligible]
            # the quick simulation guesses how many; the chain checks the guess and up to EXTRA_UNITS more
            guess = self._fleet_guess(game, units, defenders)
            if guess is None:
                continue
            hopeless: set | None = None  # the unit types of a number the chain gave no chance at all
            for n in range(guess, min(len(units), guess + EXTRA_UNITS) + 1):
                if "fleets" in self.spare and self._fleet_settled(game, units[:n], defenders, target, stalemates):
                    win, lost, destroyed = 1.0, 0.0, 1.0  # (taken as won: the attack is made)
                elif hopeless is not None and units[n - 1].type in hopeless:
                    continue  # (SPARE "zeros": more of the same types, no chance again: not made)
                elif stalemates is not None and any(stalemates.at_once(target, self.player, units[:n], enemy)
                                                    for enemy in defenders):
                    # (SPARE "hittable": a defender the attack cannot hit, nor it the attack, is
                    # never destroyed: no chance, as the chain would say; "zeros" as after its 0)
                    if "zeros" in self.spare:
                        hopeless = {u.type for u in units[:n]}
                    continue
                elif "exchange" in self.spare and stalemates is not None \
                        and (settled := self._fleet_exchange(game, units[:n], defenders, target, stalemates)):
                    win, lost, destroyed = settled  # (the quick simulation's: as the chain's would decide)
                else:
                    found = self.fleet_odds.exchange(game, self.player, units[:n], target)
                    if found is None:
                        break
                    win, lost, destroyed = found
                    if win == 0 and "zeros" in self.spare:
                        hopeless = {u.type for u in units[:n]}
                if win >= ATTACK_ODDS and destroyed > lost:
                    for uid, path in eligible[:n]:
                        used.add(uid)
                        plan.append(Move.of_tuples((uid,), path))
                    break
        return plan

    def _fleet_guess(self, game, units: list, defenders: list) -> int | None:
        """The fewest of `units` (in their order) that win against `defenders` (some) with at least
        ATTACK_ODDS by the quick simulation (`_wins` of each number in turn), None where all of
        them do not: the defence's values made once and a unit's added as the number grows (each
        number asked the values of all its units again), the same sorted tuples `_wins` makes."""
        if self.sims is not None:  # (the shared memo's estimates: `_wins` keys them)
            return next((n for n in range(1, len(units) + 1)
                         if self._wins(game, units[:n], defenders, _FLEET_WINS) / SIM_TRIALS >= ATTACK_ODDS), None)
        defence = self._defence_values(game, defenders)
        attack: list = []
        for n, unit in enumerate(units, 1):
            insort(attack, self._combatant(game, unit, "attacker"))
            if self._estimate(tuple(attack), defence, _FLEET_WINS) / SIM_TRIALS >= ATTACK_ODDS:
                return n
        return None

    def _fleet_settled(self, game, units: list, defenders: list, target: str | None = None,
                       stalemates: Stalemates | None = None) -> bool:
        """Whether a `spare` agent makes an attack at sea by the quick simulation alone: `units`
        win against `defenders` with at least ATTACK_ODDS + FLEET_ABOVE, and so do (with
        ATTACK_ODDS) those of them that are not air units (the quick simulation cannot tell the
        targets the rules let air units hit; ships that win alone do not need them). With
        `stalemates` (the part "hittable"), an attack whose air units the rules let hit every
        defender needs no more than the first (`_hittable`)."""
        if self._wins(game, units, defenders, _FLEET_SETTLED) / SIM_TRIALS < ATTACK_ODDS + FLEET_ABOVE:
            return False
        ships = [u for u in units if self._domain(game, u) != "air"]
        if stalemates is not None and len(ships) < len(units) \
                and self._hittable(target, [u for u in units if self._domain(game, u) == "air"], defenders, stalemates):
            if ships and "settled" in self.spare:
                # the ships' estimate, not needed, has its generator's seed drawn all the same (as
                # "outmatched" draws it): every later estimate throws the dice it would have thrown
                self._dice()
            return True
        return self._wins(game, ships, defenders, _FLEET_WINS) / SIM_TRIALS >= ATTACK_ODDS

    def _fleet_exchange(self, game, units: list, defenders: list, target: str,
                        stalemates: Stalemates) -> tuple[float, float, float] | None:
        """(the chance of winning, the value lost, the value destroyed) of `units` attacking
        `defenders` by the quick simulation (quick_battle.py's `exchange`), where that settles
        whether the attack is made (SPARE "exchange"): its air units, if any, can hit every
        defender (`_hittable`), and at a stage of EXCHANGE_STAGES the chance is far enough over
        ATTACK_ODDS and the value destroyed over the value lost (made), or either far enough
        under (not made); None where the chain is to be asked (with the part "offshore", the last
        stage's answer wherever it lies: `_exchange_taken`). Thrown with the dice of the last
        quick estimate going on (`_dice`, with the part "settled"), so later estimates roll as
        they would have."""
        air = [u for u in units if self._domain(game, u) == "air"]
        if air and not self._hittable(target, air, defenders, stalemates):
            return self._fleet_apart(game, units, defenders, target, stalemates) \
                if "trident" in self.spare else None
        a_vals = tuple(sorted(self._combatant(game, u, "attacker") for u in units))
        d_vals = self._defence_values(game, defenders)
        if self._reckons(a_vals, d_vals):
            # (SPARE "reckon": what the stages' trials tend to, judged as the last stage judges its own)
            found = reckon(a_vals, d_vals)
            return found if self._exchange_taken(found) else None
        dice = self._estimate_dice if "settled" in self.spare else self.rng
        wins = lost = destroyed = done = 0
        for trials, odds, value in EXCHANGE_STAGES:
            won, gone, taken = exchange(a_vals, d_vals, dice, trials - done, "tally" in self.spare)
            wins, lost, destroyed, done = wins + won, lost + gone, destroyed + taken, trials
            found = (wins / trials, lost / trials, destroyed / trials)
            if _exchange_settles(found, odds, value):
                return found
        return found if "offshore" in self.spare else None

    def _exchange_taken(self, found: tuple[float, float, float]) -> bool:
        """Whether an attack at sea reckoned to `found` (chance of winning, value lost, value
        destroyed) is answered so, the chain not asked: the last of EXCHANGE_STAGES settles it,
        or (SPARE "offshore") it is left in doubt there, where the chain's answer would turn on a
        few hundredths (as "near" answers an attack by land)."""
        return "offshore" in self.spare or _exchange_settles(found, *EXCHANGE_STAGES[-1][1:])

    def _fleet_apart(self, game, units: list, defenders: list, target: str,
                     stalemates: Stalemates) -> tuple[float, float, float] | None:
        """`_fleet_exchange` of an attack at sea some of whose air units the rules may not let hit
        some defender (SPARE "trident"): each pair of an attacker and a defender that the rules'
        `stalemate` setting ends at once when they meet alone (one of them fires at all) is taken
        to never hit each other, and where those pairs are every unit of some attackers with every
        one of some defenders, the quick model of that battle is reckoned (quick_battle.py's
        `reckon_apart`, a battle `reckonable`), judged as the last of EXCHANGE_STAGES judges; None
        where that leaves it in doubt, the pairs are otherwise or the rules cannot say (the chain
        is asked). No dice are thrown."""
        a_vals = [self._combatant(game, u, "attacker") for u in units]
        d_vals = [self._combatant(game, u, "defender") for u in defenders]
        if not reckonable(a_vals, d_vals) or "reckon" not in self.spare:
            return None
        apart = set()
        for i, unit in enumerate(units):
            for j, enemy in enumerate(defenders):
                if a_vals[i][0] or d_vals[j][0]:
                    met = stalemates.at_once(target, self.player, [unit], enemy)
                    if met is None:
                        return None
                    if met:
                        apart.add((i, j))
        rows = {i for i, _ in apart}
        columns = {j for _, j in apart}
        if not apart or len(apart) != len(rows) * len(columns):
            return None
        found = reckon_apart(tuple(sorted((*v, i in rows) for i, v in enumerate(a_vals))),
                             tuple(sorted((*v, j in columns) for j, v in enumerate(d_vals))))
        # (not "offshore": the pairs alone do not see an escort beside the air units, which the
        # rules may let hit a defender the pair cannot)
        return found if _exchange_settles(found, *EXCHANGE_STAGES[-1][1:]) else None

    def _hittable(self, target: str, air: list, defenders: list, stalemates: Stalemates) -> bool:
        """Whether each of the `air` units alone against each of `defenders` alone at `target` is a
        battle the rules fight (their `stalemate` setting does not end it at once: one of the two
        can hit the other), so that the quick simulation, which lets every unit hit every other,
        does not count much fire the rules withhold; False where the rules cannot say."""
        return all(stalemates.at_once(target, self.player, [unit], enemy) is False
                   for unit in air for enemy in defenders)

    def _supports_landing(self, game, unit) -> bool:
        """Whether `unit` sails with the player's amphibious assaults to the zone they land from:
        the ruleset's `advice landing_support`, else no unit does."""
        advice = game.compiled.advice("landing_support")
        return bool(advice.fn(game.ctx, game.ctx.unit_value(unit))) if advice is not None else False
