"""A member of an enumeration exists once per program and is equal to itself alone, so a copy of a
value holding it (a kept answer of the chains' shared round store, a copied board's facts) holds
the member itself: a copy that made another member would be equal to nothing, and a check
comparing the copy with a later answer would never hold."""

from __future__ import annotations

import copy

from ruleslang.lang.values import EnumValue
from ruleslang.runtime.odds.shared import frozen


def test_a_copied_member_is_the_member():
    member = EnumValue("player", "Germany", 0)
    assert copy.copy(member) is member and copy.deepcopy(member) is member


def test_a_copied_value_holding_members_equals_the_value():
    germany, japan = EnumValue("player", "Germany", 0), EnumValue("player", "Japan", 1)
    value = {"holders": [germany, japan], "first": (germany,)}
    copied = copy.deepcopy(value)
    assert copied == value and copied["holders"][0] is germany
    assert copied is not value and copied["holders"] is not value["holders"]  # still a copy of the containers


def test_the_shared_store_keeps_an_answer_of_members_that_compares_equal_later():
    answer = [EnumValue("space", "Karelia S.S.R.", 3), EnumValue("space", "Archangel", 4)]
    kept = frozen(answer)
    assert kept == answer and kept is not answer
