"""Hits made for every count shared across battle sites (runtime/odds/shared.py `SharedRounds.makings`,
makings.py `_every_count`; issue 15, session 21): a making that read nothing of the board outside
the battle and nothing of its site but the sides' players is kept for every site, so a chain of the
same battle fought in another territory takes it, and answers with the floats of a chain alone."""

from __future__ import annotations

from making_fixtures import NotingChain, chain_floats, house_rules_game
from ruleslang.runtime.odds.chain import BattleSpec, Chain
from ruleslang.runtime.odds.shared import BoardReads, MakingReads, SharedRounds
from ruleslang.runtime.odds.watch import SiteNotedView

SITES = ("Karelia S.S.R.", "West Russia", "Archangel")
ATTACK = {"infantry": 2, "armour": 1}
DEFENCE = {"infantry": 2, "armour": 1}


def _sequence(store, sites) -> tuple[list, list, list]:
    """(each chain's floats, the hits made for every count as `NotingChain` notes them, each chain's generation)."""
    game = house_rules_game()
    made: list = []
    answers, generations = [], []
    for place, space in enumerate(sites):
        chain = NotingChain(game, BattleSpec(space, "Germans", dict(ATTACK), dict(DEFENCE), "Russians"),
                            exact=False, board=game.state, store=store)
        chain.made, chain.place, chain.by_place = made, place, True
        answers.append(chain_floats(chain.solve()))
        generations.append(chain._gen)
        chain.close()
    return answers, made, generations


def test_chains_at_other_sites_take_the_hits_an_earlier_chain_made_with_the_samechain_floats():
    alone = [_sequence(None, [space])[0][0] for space in SITES]
    store = SharedRounds()
    shared, made, generations = _sequence(store, SITES)
    assert shared == alone
    assert len({id(gen) for gen in generations}) == len(SITES)  # a generation each: nothing else shared
    assert store.makings
    # the first chain made its hits for every count; the others made none on a side it had made them on
    first = {tuple(what) for place, *what in made if place == 0}
    assert first
    assert not [what for place, *what in made if place > 0 and tuple(what) in first]


class _Forgetting(SharedRounds):
    """A store that keeps no making for every site."""

    def keep_making(self, key: tuple, making: tuple) -> None:
        pass


def test_a_store_without_the_makings_kept_for_every_site_makes_them_at_each_site():
    # the same sequence with the makings for every site dropped as they are kept: each chain makes
    # the hits the first made again, to the same floats (the check above has something to see)
    store = _Forgetting()
    shared, made, _generations = _sequence(store, SITES)
    assert shared == [_sequence(None, [space])[0][0] for space in SITES]
    first = {tuple(what) for place, *what in made if place == 0}
    assert [what for place, *what in made if place > 0 and tuple(what) in first]


def test_a_site_noted_view_tells_a_read_of_the_site_from_one_of_the_sides_players():
    game = house_rules_game()
    chain = Chain(game, BattleSpec(SITES[0], "Germans", dict(ATTACK), dict(DEFENCE), "Russians"), exact=False,
                  board=game.state)
    try:
        view = SiteNotedView(chain.battle, set())
        assert (view.attacker, view.defender) == ("Germans", "Russians") and not view.site_read
        assert view.space == SITES[0] and view.site_read
    finally:
        chain.close()


def test_a_making_s_reads_are_noted_in_the_chain_s_and_told_apart():
    reads = BoardReads({}, {"tech": {"Germans": 1}})
    log = MakingReads(reads)
    assert not log.read
    log.call("query", "controller", lambda space: "Russians")("Karelia S.S.R.")
    assert log.read and reads.answers == {("query", "controller", ("Karelia S.S.R.",), ()): "Russians"}
    log = MakingReads(reads)
    log.note_counter("tech")
    assert log.read and reads.answers[("counter", "tech")] == {"Germans": 1}
