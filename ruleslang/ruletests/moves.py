"""Moves in rule tests: `expect allowed move(...)`, `expect refused move(...)` and `do move(...)`
asked of the movement engine under the ruleset's move-phase settings.

The engine plays the ruleset's `runtime move` phase that the scenario's turn names
(`scenario aar/start with {turn: {phase: noncombat_move}}`), else its first phase of kind
"combat". `move(player, units, path)` becomes the engine's moves as a player would give them:

- land units in a territory, path (territory, sea zone): they load onto the player's first
  transport there (by id) that may take them, else an ally's (`loads_onto_allied`);
- land units aboard a transport, path (sea zone, territory): they unload from it (land units a
  scenario puts in a sea zone are aboard their owner's transports there, filled in id order,
  then its allies');
- land units in a territory, path (territory, sea zones..., territory): they load at the first
  sea zone, the transport sails along the sea zones, and they unload at the last territory;
- anything else: one move of the units along the path.

`bomb(player, units, path)` is one bombing raid of the units along the path, on its last space.

An expectation checks the moves on a copy of the board; `do` makes them on the test's board
(flags such as "unloaded" stay for the test's later lines). Settings are read with the mover as
`current_player()`; a blitz takes territories by control only (no capture step runs). The rules' constraints on `move` are
asked as well, with the move as written (the runner does that).
"""

from __future__ import annotations

from ruleslang.base.errors import EvalError
from ruleslang.lang.syntax.declarations import RuntimeProcedure
from ruleslang.runtime.config import ProcedureConfig, runtime_procedures
from ruleslang.runtime.kit.movement import Move, MovementEngine
from ruleslang.runtime.kit.movement_rules import move_board
from ruleslang.runtime.kit.moves import movement_rules_of


def move_refusals(ctx, args: list, span, bomb: bool = False) -> list[str]:
    """Why the movement engine refuses `move(player, units, path)` (with `bomb`: the bombing raid
    `bomb(player, units, path)`) in this test ([] = allowed); the board is left as it is."""
    return _moves(ctx, args, span, apply=False, bomb=bomb)


def do_action(ctx, action: str, args: list, span) -> None:
    """Make `do ACTION(args)` on the test's board, once the runner found it allowed: a move is
    made by the movement engine (its reasons, should it refuse, are an error)."""
    if action != "move":
        raise EvalError("E538", f"a test can do a move, not {action}(...): "
                                f"write `expect allowed {action}(...)` to ask its constraints", span)
    problems = _moves(ctx, args, span, apply=True)
    if problems:
        raise EvalError("E538", "the movement engine refuses the move: " + "; ".join(problems), span)


def _move_phase(ctx, span) -> tuple[RuntimeProcedure, str]:
    """The `runtime move` procedure the test's moves are played under, and its kind."""
    found = []
    for sym, proc in runtime_procedures(ctx.compiled, "move"):
        if sym.kind == "phase":
            found.append((sym.decl.name.text, proc))
    if not found:
        raise EvalError("E537", "a move in a rule test is asked of the movement engine, which needs a phase "
                                "`runtime move with {...}` in the rulesets", span,
                        hint="to ask only the constraints on move, write `constraints only` in the test")
    named = ctx.state.phase
    for name, proc in found:
        if name == named:
            return proc, _kind(ctx, proc, span)
    for name, proc in found:
        if _kind(ctx, proc, span) == "combat":
            return proc, "combat"
    raise EvalError("E537", "no move phase of kind \"combat\": name the phase in the scenario "
                            "(turn: {phase: ...})", span)


def _kind(ctx, proc, span) -> str:
    kind = ProcedureConfig(ctx, proc).text("kind", "combat")
    if kind not in ("combat", "noncombat"):
        raise EvalError("E524", f"a move phase is of kind \"combat\" or \"noncombat\", not {kind!r}", span)
    return kind


def _moves(ctx, args: list, span, apply: bool, bomb: bool = False) -> list[str]:
    if ctx.state is None:
        raise EvalError("E530", "a move needs a board: give a scenario", span)
    player_value, units_value, path_value = args
    player = player_value.name
    ids = [u.id for u in _items(units_value)]
    path = tuple(s.name for s in _items(path_value))
    proc, kind = _move_phase(ctx, span)
    saved = ctx.state.current_player
    ctx.state.current_player = player  # the settings are rules read with the mover as current_player()
    try:
        config = ProcedureConfig(ctx, proc)
        rules = movement_rules_of(ctx, config, proc.span, _allied(ctx))
        # a check plays the moves on a copy: a journey's unload is checked after its load
        state = ctx.state if apply else ctx.state.copy()
        _board_transports(state, rules)
        engine = MovementEngine(state, rules, player, kind)
        moves = [Move(tuple(ids), path, "bomb")] if bomb else _engine_moves(engine, state, player, ids, path)
        for move in moves:
            if isinstance(move, str):
                return [move]
            problems = engine.check(move)
            if problems:
                return problems
            if engine.waits_for_battle(move):
                engine.plan_landing(move)  # as in a game: the landing waits for the sea battle
            else:
                engine.apply(move)
        return []
    finally:
        ctx.state.current_player = saved


def _board_transports(state, rules) -> None:
    """Land units a scenario puts in a sea zone, outside any cargo, are aboard their owner's
    transports there: each unit (by id) in the first transport (by id) with room for it; when
    none has room, in the first of its allies' transports that has."""
    is_sea = move_board(state.map).is_sea
    carried = {cid for u in state.units for cid in u.cargo}
    loose = [u for u in sorted(state.units, key=lambda u: u.id)
             if is_sea[u.space] and u.id not in carried and rules.unit_rules(u.type, u.owner).domain == "land"]
    if not loose:
        return
    room: dict[int, int] = {}
    cargo: dict[int, list[int]] = {}
    for ship in sorted(state.units, key=lambda u: u.id):
        capacity = rules.unit_rules(ship.type, ship.owner).transport_capacity
        if capacity > 0 and is_sea[ship.space]:
            room[ship.id] = capacity - sum(rules.unit_rules(c.type, c.owner).transport_cost
                                           for c in state.units if c.id in ship.cargo)
            cargo[ship.id] = list(ship.cargo)
    by_id = {u.id: u for u in state.units}
    for unit in loose:
        cost = rules.unit_rules(unit.type, unit.owner).transport_cost
        fits = [s for s, left in room.items() if left >= cost > 0 and by_id[s].space == unit.space
                and rules.allied(by_id[s].owner, unit.owner)]
        ship = next((s for s in fits if by_id[s].owner == unit.owner), fits[0] if fits else None)
        if ship is not None:
            room[ship] -= cost
            cargo[ship].append(unit.id)
    for ship, ids in cargo.items():
        if ids != by_id[ship].cargo:
            state.update_units([ship], cargo=ids)


def _items(value) -> list:
    return list(value.items) if hasattr(value, "items") else list(value)


def _allied(ctx):
    side = ctx.compiled.side_of_player

    def allied(a: str, b: str) -> bool:
        return a == b or (side.get(a) is not None and side.get(a) == side.get(b))
    return allied


def _engine_moves(engine: MovementEngine, state, player: str, ids: list[int], path: tuple[str, ...]):
    """The engine moves `move(player, units, path)` stands for (a text: why none can be made),
    made one after the other: each is checked after the previous one is applied."""
    by_id = {u.id: u for u in state.units}
    units = [by_id.get(uid) for uid in ids]
    is_sea = engine.board.is_sea
    known = all(u is not None for u in units) and all(s in is_sea for s in path)
    land = known and units and all(engine.rules.unit_rules(u.type, u.owner).domain == "land" for u in units)
    if not land or len(path) < 2:
        yield Move(ids, path)
        return
    aboard = [is_sea[u.space] for u in units]
    if all(aboard) and len(path) == 2 and is_sea[path[0]] and not is_sea[path[1]]:
        carrier = next((t for t in state.units if t.cargo and ids[0] in t.cargo), None)
        yield Move(ids, path, "unload", carrier.id if carrier is not None else None)
        return
    sea = [is_sea[s] for s in path]
    if any(aboard) or sea[0] or not sea[1]:
        yield Move(ids, path)
        return
    if len(path) == 2:
        yield _load(engine, state, player, ids, path)
        return
    if sea[-1] or not all(sea[1:-1]):
        yield Move(ids, path)
        return
    load = _load(engine, state, player, ids, path[:2])
    yield load
    if len(path) > 3:
        yield Move((load.transport,), path[1:-1])
    yield Move(ids, path[-2:], "unload", load.transport)


def _load(engine: MovementEngine, state, player: str, ids: list[int], path: tuple[str, str]):
    """Loading onto the first transport in the sea zone that may take the units: the player's by
    id, then its allies' by id; the first one's reasons when none may; a text when neither the
    player nor an ally has a transport there."""
    transports = sorted((u for u in state.units if u.space == path[1] and engine.rules.allied(player, u.owner)
                         and engine.rules.unit_rules(u.type, u.owner).transport_capacity > 0),
                        key=lambda u: (u.owner != player, u.id))
    if not transports:
        return f"{player} has no transport in {path[1]} to load onto"
    moves = [Move(ids, path, "load", t.id) for t in transports]
    return next((m for m in moves if not engine.check(m)), moves[0])
