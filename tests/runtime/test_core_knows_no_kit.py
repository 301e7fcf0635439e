"""The runtime's core (runtime/game.py) knows no kit: it keeps none of the kit's between-phase
state, reads no kit setting by name and does no kit accounting; all of that is the kit's state of
the game (`game.kit`, runtime/kit/turn_state.py), made by the kit's table."""

from __future__ import annotations

import ast
from pathlib import Path

import ruleslang.runtime.game as core
from ruleslang.runtime.kit.table import kit_table
from ruleslang.runtime.kit.turn_state import KitState

KIT_STATE = {"pending_battles", "pending_raids", "raid_units", "amphibious", "moved_from", "support",
             "purchased", "builds", "engine"}
KIT_WORDS = {"hit_points", "domain", "transport_capacity", "transport_cost", "cost", "battle", "raid",
             "battle_end", "move", "purchase", "capital"}


def _names_and_strings(path: Path) -> tuple[set[str], set[str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return names, strings


def test_the_core_names_no_kit_state_and_reads_no_kit_setting():
    names, strings = _names_and_strings(Path(core.__file__))
    assert not names & KIT_STATE
    assert not strings & KIT_WORDS


def test_the_kit_table_makes_the_kit_state_of_a_game():
    table = kit_table()
    assert set(table.procedures) == {"purchase", "move", "battle", "place", "bid"}
    assert isinstance(table.new_state(object()), KitState)


def test_collected_leaves_out_what_a_procedure_inside_a_phase_takes():
    def phase(name):
        return [{"kind": "phase", "phase": name}, {"kind": "phase", "name": name, "stage": "start"}]

    def run(name, *inside):
        return [{"kind": "phase", "name": name, "stage": "start"}, *inside,
                {"kind": "phase", "name": name, "stage": "end"}]

    plunder = {"kind": "treasury", "player": "A", "amount": 7}
    events = [*phase("collect"), {"kind": "treasury", "player": "A", "amount": 5},
              {"kind": "treasury", "player": "A", "amount": 3}, {"kind": "treasury", "player": "A", "amount": -4},
              {"kind": "treasury", "player": "B", "amount": 9},
              *phase("move"), {"kind": "move_units"},
              *run("capture", {"kind": "control", "space": "X"}, {"kind": "treasury", "player": "A", "amount": 2}),
              *phase("fight"), {"kind": "battle", "space": "Y"},
              *run("battle", *run("retreat"), *run("capture", {"kind": "control", "space": "Y"}, plunder)),
              {"kind": "battle_end"}]
    assert KitState.collected(events, "A") == 8
    assert KitState.gains(events, "A") == {None: 8, "capture": 9}
    assert KitState.taken_on_move(events) == {"X"}
