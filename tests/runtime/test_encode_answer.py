"""`encode_answer` gives the parts of an answer that are JSON as they are (None, truth values,
whole numbers, texts) without asking them for a `to_json` (session 12): the same JSON as
`to_json` gives them, and the other parts as before."""

from __future__ import annotations

from fractions import Fraction

from ruleslang.lang.values import to_json
from ruleslang.runtime.game import encode_answer
from ruleslang.runtime.kit.movement import Move


def test_plain_parts_are_their_own_json():
    for value in (None, True, False, 0, 7, -3, "", "Western Europe"):
        assert encode_answer(value) == to_json(value) and type(encode_answer(value)) is type(to_json(value))


def test_other_parts_are_encoded_as_before():
    assert encode_answer(Fraction(1, 3)) == to_json(Fraction(1, 3)) == "1/3"
    move = Move((4,), ("Germany", "Poland"))
    assert encode_answer(move) == move.to_json()
    assert encode_answer({"units": {"infantry": 2}, "build": ["Egypt"]}) == {"units": {"infantry": 2}, "build": ["Egypt"]}
    assert encode_answer([("Egypt", None, ["infantry", True])]) == [["Egypt", None, ["infantry", True]]]
