"""Hits made for every count shared between the chains of one generation (runtime/odds/shared.py
`Generation.makings`, makings.py `_every_count`; issue 15, session 20): the chains of one battle
asked with fewer attackers each time, as an agent asks them, answer with the same floats to the
last digit whether they share a store or each works alone, and a later chain makes no hit for
every count on a side whose records an earlier chain of the generation made it on."""

from __future__ import annotations

from making_fixtures import NotingChain, chain_floats, house_rules_game
from ruleslang.runtime.odds.chain import BattleSpec
from ruleslang.runtime.odds.makings import _holds_unit
from ruleslang.runtime.odds.shared import SharedRounds

LAND = "Karelia S.S.R."
DEFENCE = {"infantry": 2, "armour": 1}


def _sequence(store, attacks) -> tuple[list, list, list]:
    """(each chain's floats, the hits made for every count as `NotingChain` notes them, each chain's step runs)."""
    game = house_rules_game()
    made: list = []
    answers, runs = [], []
    for place, attacking in enumerate(attacks):
        chain = NotingChain(game, BattleSpec(LAND, "Germans", attacking, DEFENCE, "Russians"), exact=False,
                            board=game.state, store=store)
        chain.made, chain.place = made, place
        answers.append(chain_floats(chain.solve()))
        runs.append(chain.step_runs)
        chain.close()
    return answers, made, runs


def _made_again(made: list) -> list:
    """The makings a chain made on a side an earlier chain had made the same hit on."""
    first: dict = {}
    again = []
    for place, *what in made:
        what = tuple(what)
        if first.setdefault(what, place) < place:
            again.append(what)
    return again


def test_later_chains_take_the_hits_an_earlier_chain_made_with_the_samechain_floats():
    # three to one infantry with an armour: the defender's side is the same in every chain, so the
    # attacker's fire on it from the battle's first state is made by the first chain alone
    attacks = [{"infantry": n, "armour": 1} for n in (3, 2, 1)]
    alone = [_sequence(None, [attacking])[0][0] for attacking in attacks]
    shared, made, runs = _sequence(SharedRounds(), attacks)
    assert shared == alone
    assert all(runs)  # each chain ran its own steps (its first round is its own)
    assert not _made_again(made)


def test_a_chain_asking_more_hits_than_a_making_answers_makes_them_itself():
    # more attackers each time: a making of the first chain, for fewer hits than the defence can
    # take, cannot answer the later chain's larger counts; those it made for all the side could take can
    attacks = [{"infantry": n, "armour": 1} for n in (1, 2, 4)]
    alone = [_sequence(None, [attacking])[0][0] for attacking in attacks]
    shared, _made, _runs = _sequence(SharedRounds(), attacks)
    assert shared == alone



def test_a_hits_key_that_names_a_unit_is_told_apart():
    # a making whose hits' key holds a battle unit (by its id: `hit 1 of [u]`) is kept for no other
    # chain, where that id may name another unit (`_every_count`); a lazy let's key holds none
    unit = ("unit", 209, "infantry", "Russians", "Karelia S.S.R.", 0, 0, ())
    assert _holds_unit(((1, 1, False, ((unit,),)),))
    assert not _holds_unit(((1, False, (("lazy", 2, 0, ()),)),))
