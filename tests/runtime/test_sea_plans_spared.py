"""The attacks at sea and the assaults spare work whose answer a cheaper test knows (issue 15,
session 27): a zone holding only units of the player's side has no enemies asked, the fleet's
guess makes its values once, the phase's battle rules are made once for the defence and the
stalemates, an assault with no transport asks no stranded units and none without the
`landing_support` advice asks it of any unit. Checked on seeded heuristic games, each against
what the longer way gives."""

from __future__ import annotations

from game_fixtures import BASE, make_game, run_phases
from ruleslang.runtime.agents.attack_planning import _FLEET_WINS, ATTACK_ODDS, AttackPlanning
from ruleslang.runtime.agents.battle_odds import Belligerents
from ruleslang.runtime.agents.heuristic import HeuristicAgent
from ruleslang.runtime.agents.meetings import Stalemates
from ruleslang.runtime.agents.quick_battle import SIM_TRIALS
from ruleslang.runtime.agents.shipping import Shipping


def _heuristic_game(seed: int, rounds: int = 2, rulesets=("aar/house-rules@1",)) -> None:
    """Play a few rounds of a game with heuristic agents (the wrapped queries check as it goes)."""
    make_game(list(rulesets), seed=seed, rounds=rounds, default_agent="heuristic").run(rounds)


def test_a_zone_of_the_players_side_alone_has_no_enemies_asked_in_the_attacks_at_sea(monkeypatch):
    """In seeded games the attacks at sea ask `_enemies` only of zones where a unit not on the
    player's side stands; at every zone holding units of its side alone `_enemies` is empty."""
    where: list[str] = []
    kept_fleet, kept_enemies = AttackPlanning._fleet_attacks, HeuristicAgent._enemies
    asked, passed = [], []

    def fleet_attacks(self, game, engine, used, held, *rest):
        for space in {u.space for u in game.state.units}:
            units = game.board.units_in(space)
            if not game.board.is_land(space) and all(game.allied(u.owner, self.player) for u in units):
                assert kept_enemies(self, game, space) == []
                passed.append(space)
        where.append("fleet")
        try:
            return kept_fleet(self, game, engine, used, held, *rest)
        finally:
            where.pop()

    def enemies(self, game, space):
        if where:
            asked.append(space)
            assert any(not game.allied(u.owner, self.player) for u in game.board.units_in(space))
        return kept_enemies(self, game, space)
    monkeypatch.setattr(AttackPlanning, "_fleet_attacks", fleet_attacks)
    monkeypatch.setattr(HeuristicAgent, "_enemies", enemies)
    _heuristic_game(1)
    assert asked and passed


def test_the_fleets_guess_is_the_number_each_estimate_in_turn_gives(monkeypatch):
    """`_fleet_guess` gives the number `_wins` of each number in turn gives, with the same dice
    drawn (the agent's generator left where the longer way leaves it)."""
    kept = AttackPlanning._fleet_guess
    guessed = []

    def fleet_guess(self, game, units, defenders):
        before = self.rng.getstate()
        longer = next((n for n in range(1, len(units) + 1)
                       if self._wins(game, units[:n], defenders, _FLEET_WINS) / SIM_TRIALS >= ATTACK_ODDS), None)
        after = self.rng.getstate()
        self.rng.setstate(before)
        found = kept(self, game, units, defenders)
        assert found == longer and self.rng.getstate() == after
        guessed.append(found)
        return found
    monkeypatch.setattr(AttackPlanning, "_fleet_guess", fleet_guess)
    for seed in (1, 2):
        _heuristic_game(seed, rounds=3)
    assert any(n is not None for n in guessed) and any(n is None or n > 1 for n in guessed)


def test_the_phases_battle_rules_are_made_once_and_shared_with_the_stalemates():
    game = make_game(BASE, agents={"Germans": "heuristic"})
    run_phases(game, "Germans", "combat_move")
    belligerents = Belligerents()
    rules = belligerents.rules(game)
    assert belligerents.rules(game) is rules
    zone = "5 Sea Zone"
    belligerents.enemies_at(game, zone, "Germans")
    assert belligerents.rules(game) is rules
    german = [u for u in game.state.units if u.owner == "Germans" and game.domain(u) == "air"]
    british = [u for u in game.state.units if u.owner == "British" and game.domain(u) == "sea"]
    assert german and british
    shared, own = Stalemates(game, rules), Stalemates(game)
    for unit in german[:2]:
        for enemy in british[:4]:
            assert shared.at_once(zone, "Germans", [unit], enemy) == own.at_once(zone, "Germans", [unit], enemy)


def test_an_assault_without_transports_asks_no_stranded_units_nor_support(monkeypatch):
    """In seeded house-rules games (no `landing_support` advice) the assaults are given no
    `supports`, and a `Shipping` with no transport asks no stranded units; a ruleset with the
    advice (g40/base@1) still hands it over."""
    kept_assaults, kept_stranded = Shipping.assaults, Shipping.stranded
    seen = {"supports": [], "bare": 0, "stranded": 0}
    where: list[bool] = []

    def assaults(self, used, wins, supports=None):
        seen["supports"].append(supports is not None)
        where.append(not self.transports())
        try:
            return kept_assaults(self, used, wins, supports)
        finally:
            seen["bare"] += where.pop()

    def stranded(self, used):
        if where and where[-1]:
            seen["stranded"] += 1
        return kept_stranded(self, used)
    monkeypatch.setattr(Shipping, "assaults", assaults)
    monkeypatch.setattr(Shipping, "stranded", stranded)
    _heuristic_game(1)
    assert seen["supports"] and not any(seen["supports"])
    assert seen["bare"] and seen["stranded"] == 0
    seen["supports"].clear()
    _heuristic_game(1, rounds=1, rulesets=("g40/base@1",))
    assert seen["supports"] and all(seen["supports"])
