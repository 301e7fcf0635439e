"""`ruleslang odds`: the exact odds of a battle under a composition (docs/odds.md).

The command line names the battle (where, who attacks with what, against what); the runtime's
odds chain (runtime/odds/) computes it from the composition's own battle steps, or samples the
real battle with `--sample N`. Every bad input (an unknown unit, space or player, a malformed
unit list) is a diagnostic located in the text of the option that gave it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from fractions import Fraction

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.errors import EvalError
from ruleslang.base.source import Source, Span
from ruleslang.base.suggest import did_you_mean
from ruleslang.cli.game import play_defaults
from ruleslang.cli.inputs import open_workspace
from ruleslang.cli.output import EXIT_OK, check_output_file, write_output

ODDS_DESCRIPTION = """\
The odds of one battle, computed from the composition's own battle steps: every die of every
step is followed exactly, so a house rule that changes a step changes the odds. Prints the
chance of each end (the attacker wins, and takes the territory where it can; the defender
holds; both sides are destroyed; a stalemate where neither side can hit the other; the round
limit), the expected rounds, the expected survivors and the expected value (IPCs) lost by each
side, and the distribution of what is left.

The defenders are the scenario's units at --at (default: the map's start), or --defender-units.
Casualties: each side loses its cheapest unit first, a unit with hit points to spare taking a hit
first (--casualties changes the attacker's order). Decisions in the steps follow the rules'
advice; the attacker never retreats. A step the exact chain cannot follow (an effect outside the
battle, an unadvised decision) is reported (E546) with where it is: --sample N estimates by
fighting the real battle N times instead, with a 95% interval beside each figure.

-o REPORT.html also writes the odds as an HTML page with charts (the survivors, the losses), one
file that opens in a browser without a network.
"""

ODDS_EPILOG = """\
examples (PLAYER, SPACE and the unit types as the map and rulesets name them):
  ruleslang odds --at SPACE --attacker PLAYER "3 TYPE, 1 OTHER_TYPE"
  ruleslang odds --ruleset FAMILY/RULE@1 --at SPACE --attacker PLAYER "4 TYPE" \\
      --defender-units "2 TYPE, 1 OTHER_TYPE" --float --format json
  ruleslang odds --at SPACE --attacker PLAYER "3 TYPE" --float -o report.html
  ruleslang odds --at SPACE --attacker PLAYER "2 TYPE" --amphibious-from SEA_ZONE --attacker-ships "1 SHIP_TYPE"
"""

_ITEM = re.compile(r"^\s*(?:(\d+)\s+)?([^\d\s][^,]*?)\s*$")


def add_parser(sub, common, ref_help: str) -> None:
    """Register `odds` on the subcommand parser `sub`; `common` adds --rulesets and --format."""
    p = sub.add_parser("odds", help="the exact odds of a battle under the rulesets",
                       description=ODDS_DESCRIPTION, epilog=ODDS_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ruleset", dest="refs", metavar="REF", action="append", default=[],
                   help=ref_help + " (repeatable; default: the composition of `ruleslang play`)")
    p.add_argument("--scenario", metavar="FILE", help="the board (default: the start of the rulesets' map)")
    p.add_argument("--at", required=True, metavar="SPACE", help="where the battle is fought")
    p.add_argument("--attacker", required=True, nargs=2, metavar=("PLAYER", "UNITS"),
                   help='the attacking player and its units, as "3 TYPE, 1 OTHER_TYPE" (a count, then a unit type)')
    p.add_argument("--attacker-ships", metavar="UNITS", default="",
                   help="with --amphibious-from: the attacker's ships offshore (they may bombard)")
    p.add_argument("--defender-units", metavar="UNITS",
                   help="the defending units instead of the scenario's (owned by --defender, else by the "
                        "space's holder)")
    p.add_argument("--defender", metavar="PLAYER", help="who owns --defender-units (default: the space's holder)")
    p.add_argument("--from", dest="came_from", metavar="SPACE", action="append", default=[],
                   help="a space the attacking land or sea units moved in from (repeatable)")
    p.add_argument("--amphibious-from", metavar="SEA_ZONE",
                   help="an amphibious assault: the land units came ashore from this sea zone")
    p.add_argument("--round-limit", type=int, metavar="N", help="fight at most N rounds (default: until it ends)")
    p.add_argument("--round", dest="round_number", type=int, default=1, metavar="N",
                   help="a battle in progress: compute it from the start of round N with these units (no start "
                        "step, no first-round fire such as AA guns or bombardment; default 1: from its start)")
    p.add_argument("--casualties", default="cheapest", metavar="ORDER",
                   help="the attacker's order of loss: cheapest (default), keep-attackers (a unit that takes the "
                        "territory is lost last) or a list of unit types, first lost first")
    p.add_argument("--retreat-below", type=float, metavar="X",
                   help="the attacker retreats (where the rules let it: give --from) when its chance to win, "
                        "fighting on, falls below X (0 to 1); default: it never retreats")
    p.add_argument("--float", action="store_true", help="floating-point arithmetic (faster) instead of fractions")
    p.add_argument("--sample", type=int, metavar="N",
                   help="estimate by fighting the real battle N times (seeded) instead of computing it")
    p.add_argument("--seed", type=int, default=1, help="the seed of --sample (default 1)")
    p.add_argument("-o", "--output", metavar="REPORT.html",
                   help="also write an HTML report: the outcome table and chart, the survivors as charts, the "
                        "expected IPCs lost (one self-contained file; docs/reports.md)")
    common(p)


def _span(option: str, text: str, start: int = 0, end: int | None = None) -> Span:
    return Span(Source(f"<{option}>", text), start, len(text) if end is None else end)


def parse_units(text: str, option: str, unit_types: list[str]) -> dict[str, int]:
    """A unit list "3 TYPE, 1 OTHER_TYPE" as type -> count (U115 malformed, U116 unknown type)."""
    out: dict[str, int] = {}
    pos = 0
    if not text.strip():
        raise DiagnosticError(error("U115", f"{option} names no units", _span(option, text),
                                    hint='write them as "3 TYPE, 1 OTHER_TYPE"'))
    lower = {t.lower(): t for t in unit_types}
    for part in text.split(","):
        start, end = pos, pos + len(part)
        pos = end + 1
        m = _ITEM.match(part)
        if m is None:
            raise DiagnosticError(error("U115", f"'{part.strip()}' is not a count and a unit type",
                                        _span(option, text, start, end), hint='write units as "3 TYPE, 1 OTHER_TYPE"'))
        count = int(m.group(1)) if m.group(1) else 1
        name = m.group(2)
        utype = lower.get(name.lower()) or lower.get(name.lower().rstrip("s"))
        if utype is None:
            at = start + part.index(name)
            raise DiagnosticError(error("U116", f"'{name}' is not a unit type of these rulesets",
                                        _span(option, text, at, at + len(name)),
                                        hint=did_you_mean(name, unit_types) or "unit types: " + ", ".join(unit_types)))
        if count < 1:
            raise DiagnosticError(error("U115", f"a count of {count} {utype}", _span(option, text, start, end)))
        out[utype] = out.get(utype, 0) + count
    return out


def _space(name: str, option: str, game_map, kind: str | None = None) -> str:
    names = game_map.space_names()
    if name in names:
        found = name
    else:
        folded = {n.lower(): n for n in names}
        found = folded.get(name.lower())
    if found is None:
        raise DiagnosticError(error("U117", f"{option}: '{name}' is not a space of the map {game_map.name}",
                                    _span(option, name), hint=did_you_mean(name, names)))
    if kind is not None and game_map.space(found).kind != kind:
        raise DiagnosticError(error("U117", f"{option}: {found} is not a {'sea zone' if kind == 'sea' else 'territory'}",
                                    _span(option, name)))
    return found


def _player(name: str, option: str, game_map) -> str:
    names = game_map.player_names()
    found = name if name in names else {n.lower(): n for n in names}.get(name.lower())
    if found is None:
        raise DiagnosticError(error("U118", f"{option}: '{name}' is not a player of the map {game_map.name}",
                                    _span(option, name), hint=did_you_mean(name, names) or "players: " + ", ".join(names)))
    return found


def cmd_odds(args) -> int:
    """`ruleslang odds`: print the odds of the battle the options describe."""
    # start-up time: the runtime loads only for the commands that play
    from ruleslang.runtime import saves
    from ruleslang.runtime.odds.chain import BattleSpec, CasualtyPolicy, Chain
    from ruleslang.runtime.odds.sample import sample_battle

    if args.output:
        check_output_file(args.output)
    if args.round_limit is not None and args.round_limit < 1:
        raise DiagnosticError(error("U115", f"--round-limit is a positive number of rounds, not {args.round_limit}",
                                    _span("--round-limit", str(args.round_limit))))
    if args.round_number < 1:
        raise DiagnosticError(error("E565", f"--round is the round the battle is computed from, counted from 1, "
                                            f"not {args.round_number}", _span("--round", str(args.round_number)),
                                    hint="give --round 1 (the default) for a battle from its start"))
    if args.round_limit is not None and args.round_limit < args.round_number:
        raise DiagnosticError(error("E565", f"--round-limit {args.round_limit} is the battle's last round, before "
                                            f"--round {args.round_number}", _span("--round-limit", str(args.round_limit)),
                                    hint="the limit counts the battle's rounds from its first"))
    if args.sample and args.round_number > 1:
        raise DiagnosticError(error("E567", "--round with --sample is not yet supported: the sampled battle is "
                                            "fought from its start", _span("--round", str(args.round_number)),
                                    hint="compute it with the chain (leave out --sample)"))
    if args.retreat_below is not None and not 0 <= args.retreat_below <= 1:
        raise DiagnosticError(error("U115", f"--retreat-below is a chance from 0 to 1, not {args.retreat_below}",
                                    _span("--retreat-below", str(args.retreat_below))))
    if args.retreat_below is not None and args.sample:
        raise DiagnosticError(error("U115", "--retreat-below with --sample is not yet supported: the sampled "
                                            "attacker never retreats", _span("--retreat-below", str(args.retreat_below))))
    if args.sample is not None and args.sample < 1:
        raise DiagnosticError(error("U115", f"--sample is a positive number of battles, not {args.sample}",
                                    _span("--sample", str(args.sample))))
    ws = open_workspace(args)
    refs = args.refs or list(play_defaults(ws.roots).get("rulesets") or [])
    setup = saves.GameSetup(refs=refs, scenario=args.scenario, seed=args.seed, rounds=1, players={},
                            default_agent="heuristic", settings=[], orders=None)
    game = saves.build_game(ws, setup)
    game_map = game.state.map
    unit_types = sorted(game.compiled.unit_tags)
    space = _space(args.at, "--at", game_map)
    attacker = _player(args.attacker[0], "--attacker", game_map)
    attacking = parse_units(args.attacker[1], "--attacker", unit_types)
    zone = _space(args.amphibious_from, "--amphibious-from", game_map, "sea") if args.amphibious_from else None
    if args.attacker_ships:
        if zone is None:
            raise DiagnosticError(error("U115", "--attacker-ships are the ships offshore of an amphibious assault: "
                                                "give --amphibious-from SEA_ZONE", _span("--attacker-ships", args.attacker_ships)))
        for utype, n in parse_units(args.attacker_ships, "--attacker-ships", unit_types).items():
            attacking[utype] = attacking.get(utype, 0) + n
    defending = parse_units(args.defender_units, "--defender-units", unit_types) if args.defender_units else None
    defender = _player(args.defender, "--defender", game_map) if args.defender else None
    if defending is not None and defender is None:
        defender = game.state.control.get(space)
        if defender is None or game.allied(defender, attacker):
            raise DiagnosticError(error("U118", f"who owns --defender-units in {space}? Nobody holds it against "
                                                f"{attacker}: give --defender PLAYER", _span("--defender-units", args.defender_units)))
    holder = game.state.control.get(space)
    if defending is None and holder is not None and game.allied(holder, attacker):
        who = "already holds" if holder == attacker else f"holds it as {attacker}'s ally:"
        raise DiagnosticError(error("U118", f"--at: {holder} {who} {space}; there is nothing to attack",
                                    _span("--at", args.at),
                                    hint="attack a space the enemy holds, or name the defenders: --defender-units "
                                         "\"...\" --defender PLAYER"))
    came_from = [_space(s, "--from", game_map) for s in args.came_from]
    kind, types = _policy(args.casualties, unit_types)
    policy = CasualtyPolicy(kind, types)
    spec = BattleSpec(space, attacker, attacking, defending, defender, came_from, zone, round=args.round_number)
    try:
        if args.sample:
            result = sample_battle(game, spec, args.sample, seed=args.seed, policies={"attacker": policy})
        else:
            retreat = args.retreat_below
            if retreat is not None and not args.float:
                retreat = Fraction(str(retreat))
            result = Chain(game, spec, exact=not args.float, policies={"attacker": policy},
                           round_limit=args.round_limit, retreat_below=retreat).solve()
    except EvalError as e:
        if e.span is None and e.code == "E548":  # the defenders the command line named
            raise DiagnosticError(error(e.code, e.message, _span("--defender-units", args.defender_units),
                                        hint=e.hint))
        raise DiagnosticError(e.diagnostic())
    document = to_json(result)
    if args.format == "json":
        print(json.dumps(document, indent=2))
    else:
        print_text(result, sys.stdout)
    if args.output:
        # start-up time: plotly loads only when a report is asked for
        from ruleslang.reports.odds import render_odds

        write_output(args.output, render_odds(document))
        if args.format != "json":
            print(f"wrote {args.output}")
    return EXIT_OK


def _policy(text: str, unit_types: list[str]) -> tuple[str, tuple[str, ...]]:
    """--casualties: ("cheapest" | "keep-attackers", ()) or ("list", the unit types in order)."""
    if text in ("cheapest", "keep-attackers"):
        return text, ()
    return "list", tuple(parse_units(text, "--casualties", unit_types))


# ---------------------------------------------------------------------- output


def _figure(p) -> float:
    return float(p)


def _pct(p) -> str:
    return f"{100 * float(p):6.2f}%"


def _units_text(counts: dict) -> str:
    return ", ".join(f"{n} {name}" for name, n in counts.items()) or "-"


def _left(survivors, side: str, main: str | None) -> dict:
    out: dict = {}
    for (s, utype, owner, hits), n in survivors:
        if s != side:
            continue
        name = utype + (f" ({owner})" if owner != main else "") + (f" damaged {hits}" if hits else "")
        out[name] = out.get(name, 0) + n
    return out


def _interval(result, p) -> str:
    half = result.interval(p) if hasattr(result, "interval") else None
    return f" ± {100 * half:.2f}" if half is not None else ""


def print_text(result, out) -> None:
    """The odds as text: the ends, expected rounds, survivors and losses, the distribution."""
    # start-up time: the runtime loads only with the command
    from ruleslang.runtime.odds.chain import OUTCOMES

    spec = result.spec
    how = result.method
    side_main = {"attacker": result.attacker, "defender": result.defender}
    print(f"battle at {spec.space}: {result.attacker} attacks with "
          f"{_units_text({f'{t}' + ('' if o == result.attacker else f' ({o})'): n for (t, o), n in result.initial['attacker'].items()})}; "
          f"{result.defender or 'nobody'} defends with "
          f"{_units_text({t + ('' if o == result.defender else f' ({o})'): n for (t, o), n in result.initial['defender'].items()})}"
          f"{f' from round {spec.round}' if spec.round > 1 else ''} ({how})", file=out)
    for name in OUTCOMES:
        p = result.outcome(name)
        if p or name in OUTCOMES[:3]:
            extra = f"   (takes the territory: {_pct(result.taken).strip()})" if name == OUTCOMES[0] and result.taken else ""
            print(f"  {name:<18}{_pct(p)}{_interval(result, p)}{extra}", file=out)
    print(f"expected rounds: {float(result.rounds):.2f}", file=out)
    for side in ("attacker", "defender"):
        left = result.expected_survivors(side)
        text = ", ".join(f"{float(v):.2f} {t}" + ("" if o == side_main[side] else f" ({o})") for (t, o), v in left.items())
        print(f"  {side} survivors (expected): {text or '-'}; IPCs lost: {float(result.expected_loss(side)):.2f}",
              file=out)
    print("what is left:", file=out)
    rows = [(p, kind, _units_text(_left(survivors, "attacker", result.attacker)),
             _units_text(_left(survivors, "defender", result.defender)))
            for (kind, survivors), p in sorted(result.ends.items(), key=lambda kv: -float(kv[1]))]
    # the attacker's column as wide as its longest entry, so the defender's stays one column
    width = max([len("attacker left"), *(len(row[2]) for row in rows)])
    print(f"  {'chance':>8}  {'end':<16}  {'attacker left':<{width}}  defender left", file=out)
    for p, kind, attacker_left, defender_left in rows:
        print(f"  {_pct(p):>8}  {kind:<16}  {attacker_left:<{width}}  {defender_left}", file=out)


def _number(p) -> dict:
    out = {"float": float(p)}
    if isinstance(p, Fraction):
        out["fraction"] = f"{p.numerator}/{p.denominator}"
    elif isinstance(p, int):
        out["fraction"] = str(p)
    return out


def to_json(result) -> dict:
    """The odds as JSON: stable keys, each probability as a fraction (when exact) and a float."""
    # start-up time: the runtime loads only with the command
    from ruleslang.runtime.odds.chain import OUTCOMES

    spec = result.spec

    def units(side):
        return [{"type": t, "owner": o, "count": n} for (t, o), n in result.initial[side].items()]

    data = {
        "battle": {"space": spec.space, "attacker": result.attacker, "defender": result.defender,
                   "attacking": units("attacker"), "defending": units("defender"),
                   "amphibious_from": spec.amphibious_from, "round": spec.round, "method": result.method},
        "outcomes": {name: _number(result.outcome(name)) for name in OUTCOMES},
        "territory_taken": _number(result.taken),
        "expected_rounds": _number(result.rounds),
        "expected_survivors": {side: [{"type": t, "owner": o, **_number(v)}
                                      for (t, o), v in result.expected_survivors(side).items()]
                               for side in ("attacker", "defender")},
        "expected_ipc_lost": {side: _number(result.expected_loss(side)) for side in ("attacker", "defender")},
        "distribution": [{"end": kind,
                          "attacker": [{"type": t, "owner": o, "hits": h, "count": n}
                                       for (s, t, o, h), n in survivors if s == "attacker"],
                          "defender": [{"type": t, "owner": o, "hits": h, "count": n}
                                       for (s, t, o, h), n in survivors if s == "defender"],
                          "probability": _number(p)}
                         for (kind, survivors), p in result.ends.items()],
    }
    if hasattr(result, "interval"):
        data["battles_sampled"] = result.trials
        data["interval_95"] = {name: result.interval(result.outcome(name)) for name in OUTCOMES}
    return data
