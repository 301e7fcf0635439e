"""What the kit keeps of one game between the phases of a turn, and what it says of units.

One `KitState` per game, made by the kit's table (`ruleslang.runtime.kit.table.KitTable`) and
reached as `game.kit`: the purchase leaves what was bought for placement, the combat move leaves
the battles and raids to fight and how the attackers came, the battle procedure fights them. The
game runtime keeps none of it and reads none of it; it asks the kit only what the kit says of
units (hit points, movement domain, cost) and what a turn collected, through this object.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ruleslang.runtime.config import procedure_config, runtime_procedures, setting_procedure
from ruleslang.runtime.kit.unit_census import UnitCensus


_NOT_ASKED = object()


class KitState:
    """The kit's state of one game (`game.kit`): what passes between the phases of a turn, and
    the settings of its procedures the kit reads of units."""

    def __init__(self, game):
        self.game = game
        self.purchased: dict[str, list[str]] = {}    # player -> unit types bought, to place
        self.builds: dict[str, list[str]] = {}       # player -> territories to build a factory in
        self.pending_battles: list[str] = []         # spaces the combat move contested
        self.pending_raids: list[str] = []           # spaces the combat move raids
        self.raid_units: dict[str, list[int]] = {}   # space -> the units raiding it
        self.amphibious: dict[str, bool] = {}        # space -> assaulted from the sea
        self.moved_from: dict[int, str] = {}         # attacking unit -> where it entered its space from
        self.landed_from: dict[str, list[str]] = {}  # territory -> the sea zones its landings came from
        self.supported: set[int] = set()             # ships that supported a landing (or fought) this turn
        self.commanded: set[int] = set()             # allies' units the mover commanded in its combat move
        # landings waiting for the sea battle in their zone: (transport, cargo, sea zone, territory)
        self.waiting_landings: list[tuple[int, list[int], str, str]] = []
        # unit -> its space when the combat move ended (the sea battles of units that came later)
        self.placed_at_contest: dict[int, str] = {}
        # while the battle procedure fights its queue: (the spaces left to fight, in order, the sea
        # zones landings wait for, the late sea battles); a copy of the game made between two
        # battles goes on from there (kit/battle.py `run`; runtime/agents/phase_starts.py)
        self.battles_left: tuple[list[str], set[str], list[str]] | None = None
        # while a battle is fought, at the points a copy could be made (kit/battle.py `_resume_point`):
        # (the battle, the step it is at, the units present before its start step)
        self.battle_at: tuple | None = None
        # set only while the game is told a runtime procedure has ended (kit/table.py): a copy of the
        # game made then runs the procedure again as having ended
        self.ended = False
        # where the board's units stood as the combat move ended (`note_contest`,
        # `GameState.placement_mark`); not kept in a copy of the game (a private name: see `stand_as_at_contest`)
        self._contest_board: tuple | None = None
        self._facts: UnitFacts | None = None
        self._census: UnitCensus | None = None
        self._battle_proc = None  # the composition's `runtime battle` procedure, once looked up (False: none)
        self._battle_phase = _NOT_ASKED  # (round, player, phase) of the last `battle_config` call

    def new_combat_move(self) -> None:
        """Forget the last combat move's battles, raids and assaults (a new one starts)."""
        self.pending_battles, self.pending_raids, self.raid_units = [], [], {}
        self.amphibious, self.moved_from, self.landed_from, self.supported = {}, {}, {}, set()
        self.waiting_landings = []
        self.commanded = set()
        self.placed_at_contest = {}
        self._contest_board = None

    def note_contest(self, state) -> None:
        """The combat move has ended: note where every unit of the board stands (`placed_at_contest`)."""
        self.placed_at_contest = {u.id: u.space for u in state.units}
        self._contest_board = state.placement_mark()

    def stand_as_at_contest(self, state) -> bool:
        """True when every unit of the board surely stands where `placed_at_contest` has it, no
        unit having moved, come or gone since the combat move ended (`GameState.stand_as`); False
        when that is not known (a copy of the game, whose board and versions were made again,
        does not keep the note)."""
        return state.stand_as(self._contest_board)

    def unit_census(self) -> UnitCensus:
        """The board's units by kind, kept across the game's movement engines (kit/unit_census.py);
        a copy of the game starts without the game's (a private name: see `fork`)."""
        if self._census is None:
            self._census = UnitCensus()
        return self._census

    def facts(self) -> UnitFacts:
        """The rule values the kit reads of units: movement domain, hit points, cost, transport room."""
        if self._facts is None:
            self._facts = UnitFacts(self.game)
        return self._facts

    def battle_config(self):
        """The settings of the composition's `runtime battle` procedure (None without one), read
        once per phase as every procedure's are (docs/runtime.md "Kit settings"): its answers on
        units (`casualties_by`, `fights`, ... cached per unit type and owner) are forgotten when
        the game is in another phase than at the last call, since a setting may read a counter
        or a technology a hook changed since (the battle procedure is asked outside its own
        phase too: the combat move's captures, the agents' battle odds)."""
        if self._battle_proc is None:
            self._battle_proc = next((proc for _, proc in runtime_procedures(self.game.compiled, "battle")
                                      if proc.config is not None), False)
        if not self._battle_proc:
            return None
        config = procedure_config(self.game.ctx, self._battle_proc)
        state = self.game.state
        phase = (state.round, state.current_player, state.phase) if state is not None else None
        if phase != self._battle_phase:
            if self._battle_phase is not _NOT_ASKED:
                config.new_phase()
            self._battle_phase = phase
        return config

    def battle_setting(self, name: str) -> Any:
        """A setting of the composition's `runtime battle` procedure (e.g. the capture step's name)."""
        config = self.battle_config()
        return config.value(name) if config is not None else None

    @staticmethod
    def gains(events: list[dict], player: str) -> dict[str | None, int]:
        """What a player's treasury gained in the turn whose events these are, by cause: the
        procedure that was running inside a turn phase when it gained (e.g. a battle's capture step
        taking money with a capital, on a battle or on the move), or None for what a turn phase
        gained itself (its income collection, with what house rules took or gave)."""
        out: dict[str | None, int] = {}
        running: list[str] = []  # the procedures the turn phase runs, innermost last
        for e in events:
            kind = e.get("kind")
            if kind == "phase":
                if "phase" in e:
                    running = []  # a new turn phase
                elif e.get("stage") == "start":
                    running.append(e.get("name"))
                elif e.get("stage") == "end" and running:
                    running.pop()
            elif kind == "treasury" and e.get("player") == player and e["amount"] > 0:
                cause = running[-1] if len(running) > 1 else None
                out[cause] = out.get(cause, 0) + e["amount"]
        return out

    @classmethod
    def collected(cls, events: list[dict], player: str) -> int:
        """What a player's treasury gained from its income collection in its turn (the round
        summary's `collected`): its income, less what house rules took (or plus what they gave).
        What a procedure inside a turn phase gives (a capture step's plunder) is not income."""
        return cls.gains(events, player).get(None, 0)

    @staticmethod
    def taken_on_move(events: list[dict]) -> set[str]:
        """The territories whose control changed on the move in the turn whose events these are
        (a blitz: taken right after a move, by the capture step or not, outside any battle)."""
        taken: set[str] = set()
        in_battle = moving = False
        depth = 0  # procedures running inside the turn phase
        for e in events:
            kind = e.get("kind")
            if kind == "phase":
                if "phase" in e:
                    in_battle = moving = False  # a new turn phase
                    depth = 0
                elif e.get("stage") == "start":
                    depth += 1
                elif e.get("stage") == "end":
                    depth = max(depth - 1, 0)
            elif kind in ("battle", "raid"):
                in_battle = True
            elif kind == "battle_end":
                in_battle = False
            elif kind == "move_units":
                moving = True
            elif kind == "decision" and depth <= 1:
                moving = False  # the move is over: the phase asks for the next one
            elif kind == "control":
                if moving and not in_battle:
                    taken.add(e["space"])
                else:
                    taken.discard(e["space"])
        return taken


class UnitFacts:
    """Hit points, movement domain, cost and transport room of units, read from the kit's
    procedures' settings."""

    def __init__(self, game):
        self.game = game
        self._hp = self._setting("battle", "hit_points", "unit")
        self._domain = self._setting("move", "domain", "unit")
        self._cost = self._setting("purchase", "cost", "type")
        self._lot = self._setting("purchase", "lot", "type")
        # the transport and carrier settings, made when first asked (`_room`): a battle chain, made
        # for every battle an agent asks about, makes unit facts of its own and asks none of them
        self._capacity = self._cargo_cost = self._deck = self._deck_cost = _NOT_ASKED
        # a setting the rules give is answered by its own function, without a method's call in
        # between (hit points and domains are asked for every unit a round or a plan looks at; the
        # room settings so once made: `_room`)
        for name, fn in (("hit_points", self._hp), ("domain", self._domain)):
            if fn is not None:
                setattr(self, name, fn)

    def _setting(self, procedure: str, name: str, of: str):
        proc = setting_procedure(self.game.compiled, procedure, name)
        if proc is None:
            return None
        config = procedure_config(self.game.ctx, proc)
        return config.unit_fn(name) if of == "unit" else config.type_fn(name)

    def hit_points(self, unit) -> int:
        return self._hp(unit) if self._hp is not None else 1

    def domain(self, unit) -> str:
        return self._domain(unit) if self._domain is not None else "land"

    def cost(self, type_name: str) -> int | Fraction:
        """What one unit of the type costs: the purchase's `cost` setting, the price of a lot, over
        the units its `lot` setting gives (2 for 7: 7/2 a unit)."""
        if self._cost is None:
            return 0
        price = self._cost(type_name)
        lot = self._lot(type_name) if self._lot is not None else 1
        return price if lot == 1 else Fraction(price, lot)

    def _room(self, name: str, unit) -> int:
        """`unit`'s answer to the `move` procedure's unit setting `name` (a transport or carrier
        setting; 0 without one). The setting is made on first use and kept in its own attribute,
        and then answers in place of this method (`name` set to its function)."""
        attribute = _ROOM_SETTINGS[name]
        fn = getattr(self, attribute)
        if fn is _NOT_ASKED:
            fn = self._setting("move", name, "unit")
            setattr(self, attribute, fn)
            if fn is not None:
                setattr(self, name, fn)  # (answered by the setting's own function from now on)
        return fn(unit) if fn is not None else 0

    def transport_capacity(self, unit) -> int:
        return self._room("transport_capacity", unit)

    def transport_cost(self, unit) -> int:
        return self._room("transport_cost", unit)

    def carrier_capacity(self, unit) -> int:
        return self._room("carrier_capacity", unit)

    def carrier_cost(self, unit) -> int:
        return self._room("carrier_cost", unit)


# the setting of each room function `UnitFacts` makes on first use -> the attribute it is kept in
_ROOM_SETTINGS = {"transport_capacity": "_capacity", "transport_cost": "_cargo_cost",
                  "carrier_capacity": "_deck", "carrier_cost": "_deck_cost"}
