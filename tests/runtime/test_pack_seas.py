"""The placement planner `pack` looks up a territory's sea zones only for a sea unit tried there
(session 23, plan27): a plan of land units asks the board for no sea zone, and a plan with a sea
unit places it as before (the zone `pick_sea` picks, and nowhere without one)."""

from __future__ import annotations

from ruleslang.runtime.kit.placement import pack


class _Board:
    """Three territories: "Coast" borders two sea zones, "Inland" and "Hills" none; notes what is asked."""

    def __init__(self):
        self.asked: list = []

    def neighbours(self, territory, kind):
        self.asked.append((territory, kind))
        return ("SZ 1", "SZ 2") if territory == "Coast" and kind == "sea" else ()


def _accept_all(territory, types):
    return []


def test_a_plan_of_land_units_asks_for_no_sea_zone():
    board = _Board()
    plan = pack(board, ["Inland", "Coast"], ["tank", "tank"], _accept_all, lambda t: False, repeatable=True)
    assert plan == [("Inland", None, ["tank", "tank"])]
    assert board.asked == []


def test_a_sea_unit_goes_to_the_zone_picked_and_only_where_a_zone_borders():
    board = _Board()
    picked: list = []

    def pick(seas):
        picked.append(seas)
        return seas[-1]
    plan = pack(board, ["Inland", "Hills", "Coast"], ["ship", "tank"], _accept_all, lambda t: t == "ship",
                pick_sea=pick, repeatable=True)
    # the tank fits inland at once; the ship only at the coast, to the zone picked there
    assert plan == [("Inland", None, ["tank"]), ("Coast", "SZ 2", ["ship"])]
    assert picked == [("SZ 1", "SZ 2")]
    # each territory's zones looked up once, when the ship was tried there
    assert board.asked == [("Inland", "sea"), ("Hills", "sea"), ("Coast", "sea")]
