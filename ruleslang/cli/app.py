"""The command line: the argument parser and `main(argv) -> int` (0 clean, 1 errors or failed tests, 2 usage).

The commands live by audience: cli/language.py (rule authors: list, check, test, eval, call,
explain, diff), cli/game.py (players: play, replay), cli/odds.py (odds), cli/compare.py
(compare), cli/board.py (map show, import-triplea).
Diagnostics become output and exit codes only in cli/output.py.
"""

from __future__ import annotations

import argparse
import errno
import gc
import os
import sys
from typing import Sequence

from ruleslang.base.cache import turned_off
from ruleslang.base.version import VERSION
from ruleslang.base.diagnostics import DiagnosticError, error, render_json
from ruleslang.cli.board import IMPORT_WARNINGS_SHOWN, cmd_import, cmd_map
from ruleslang.cli.completion import SHELLS, cmd_completion, complete, requested as completion_requested
from ruleslang.cli.editor import add_parser as add_lsp_parser, cmd_lsp
from ruleslang.cli.balance import add_parser as add_balance_parser, cmd_balance
from ruleslang.cli.compare import add_parser as add_compare_parser, cmd_compare
from ruleslang.cli.fmt import add_parser as add_fmt_parser, cmd_fmt
from ruleslang.cli.game import cmd_play, cmd_replay
from ruleslang.cli.odds import add_parser as add_odds_parser, cmd_odds
from ruleslang.cli.language import cmd_call, cmd_check, cmd_diff, cmd_eval, cmd_explain, cmd_list, cmd_test
from ruleslang.cli.output import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, report_diagnostics

DESCRIPTION = """\
ruleslang: house rules for Axis & Allies-style games as versioned, checked, runnable data.

A REF names a ruleset: family/name@N, family/name (the newest version), or a path to a .rules
file. Rulesets are looked up in --rulesets folders, ./rulesets, and the rulesets shipped with
ruleslang (run `ruleslang list` to see them).
"""

EPILOG = """\
examples (FAMILY/RULE stands for a ruleset that `ruleslang list` shows):
  ruleslang list
  ruleslang check FAMILY/RULE@1
  ruleslang test
  ruleslang call FAMILY/RULE@1 some_formula "United Kingdom" --format json
  ruleslang eval FAMILY/RULE@1 'some_formula("UK")' --scenario aar/start
  ruleslang diff FAMILY/RULE@1 FAMILY/RULE@2
"""


class _Parser(argparse.ArgumentParser):
    json_errors = False  # set by main: the command line asks for --format json

    def error(self, message):  # usage errors exit 2 with a short hint, never a traceback
        if _Parser.json_errors:  # a script reading JSON gets its usage errors as JSON too
            print(render_json([error("U100", message)]))
            raise SystemExit(EXIT_USAGE)
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def _wants_json(argv: Sequence[str]) -> bool:
    """True when the command line asks for `--format json` (checked before it is parsed)."""
    argv = list(argv)
    return "--format=json" in argv or any(a == "--format" and b == "json" for a, b in zip(argv, argv[1:]))


def _budget(text: str) -> int:
    """--budget: a positive whole number of evaluation steps."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"the budget is a positive whole number of steps, not '{text}'")
    return value


def _common(p: argparse.ArgumentParser, *, fmt: bool = True) -> None:
    """The options every command takes: --rulesets, and --format unless `fmt` is false."""
    p.add_argument("--rulesets", metavar="DIR", action="append", default=[],
                   help="a folder of rulesets to search first (repeatable)")
    p.add_argument("--no-cache", action="store_true",
                   help="read and write no cache: parse, check and run everything afresh")
    if fmt:
        p.add_argument("--format", choices=["text", "json"], default="text", help="output format (default text)")


REF_HELP = "a ruleset: family/name@N, family/name (the newest version) or a path to a .rules file"


REFS_HELP = REF_HELP + ", or a folder of rulesets (repeatable; with none, every ruleset found)"


def _composition_option(p: argparse.ArgumentParser) -> None:
    """--show-composition: print the rulesets a command runs, as resolved, before its output."""
    p.add_argument("--show-composition", action="store_true",
                   help="print the resolved composition first: every ruleset, what it uses and revises, and a "
                        "version marked to win (REF!) standing in for another")


def _eval_options(p: argparse.ArgumentParser) -> None:
    """The options of eval and call: a scenario, --set values, dice (--seed or --exact), a budget."""
    p.add_argument("--scenario", metavar="FILE", help="a scenario YAML file or a named scenario (family/name); "
                                                      "default: the start of the ruleset's map")
    p.add_argument("--set", metavar="NAME=VALUE", action="append", default=[], dest="settings",
                   help="set an option (repeatable); VALUE is JSON or a name")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--seed", type=int, help="sample dice with this seed (default 0)")
    mode.add_argument("--exact", action="store_true", help="give the exact distribution instead of one sample")
    p.add_argument("--budget", type=_budget, metavar="STEPS",
                   help="stop an evaluation after this many steps, a positive whole number (default 5,000,000)")
    _composition_option(p)


def _add_list(sub) -> None:
    """The parser of `list`."""
    p = sub.add_parser("list", help="rulesets, versions, titles",
                       description="List every ruleset found (--rulesets folders, ./rulesets, the shipped ones): "
                                   "its reference family/name@N and its title.")
    _common(p)


def _add_check(sub) -> None:
    """The parser of `check`."""
    p = sub.add_parser("check", help="check rulesets; silent when clean; exit 0 clean, 1 errors",
                       description="Parse, resolve, type-check and evaluate the invariants of rulesets. "
                                   "With no REF, every ruleset found. Prints nothing when all is clean.")
    p.add_argument("refs", nargs="*", metavar="REF", help=REFS_HELP)
    p.add_argument("--strict", action="store_true", help="exit 1 on warnings too (for CI)")
    _composition_option(p)
    _common(p)


def _add_test(sub) -> None:
    """The parser of `test`."""
    p = sub.add_parser("test", help="run the rule tests; the last line is 'N passed, N failed'",
                       description="Run the tests written in rulesets (with no REF, in every ruleset found).")
    p.add_argument("refs", nargs="*", metavar="REF", help=REFS_HELP)
    p.add_argument("-q", "--quiet", action="store_true", help="print only failures and the summary")
    p.add_argument("-k", dest="keyword", metavar="TEXT",
                   help="run only the tests whose title contains TEXT (any case)")
    p.add_argument("--coverage", action="store_true",
                   help="then list the formulas, modifier lists, hooks, phases, steps and table rows of the "
                        "tested rulesets that no test reached (before the summary line; JSON: 'coverage')")
    _composition_option(p)
    _common(p)


def _add_eval(sub) -> None:
    """The parser of `eval`."""
    p = sub.add_parser("eval", help="evaluate an expression under a ruleset",
                       description="Evaluate EXPR with the definitions of REF, e.g. 'raid_cap(\"UK\")'.")
    p.add_argument("ref", metavar="REF", help=REF_HELP)
    p.add_argument("expr", metavar="EXPR", help="an expression of the language, quoted for the shell")
    _eval_options(p)
    _common(p)


def _add_call(sub) -> None:
    """The parser of `call`."""
    p = sub.add_parser("call", help="call a definition with arguments",
                       description="Call definition NAME of REF. Each ARG is a JSON value or a name "
                                   "(a territory, a player, ...); a record parameter takes a JSON object.")
    p.add_argument("ref", metavar="REF", help=REF_HELP)
    p.add_argument("name", metavar="NAME", help="a formula, modifier list, table, constant, counter, option or fact")
    p.add_argument("args", nargs="*", metavar="ARG", help="its arguments in order, each a JSON value or a name")
    _eval_options(p)
    _common(p)


def _add_explain(sub) -> None:
    """The parser of `explain`."""
    p = sub.add_parser("explain", help="a modifier list or formula, term by term",
                       description="Evaluate EXPR, a call of a modifier list or formula, and show each term "
                                   "(its reason, whether it applied, its value) or each part, then the total.")
    p.add_argument("ref", metavar="REF", help=REF_HELP)
    p.add_argument("expr", metavar="EXPR",
                   help="a call of a modifier list or formula, such as 'some_list({...})', quoted for the shell")
    p.add_argument("--scenario", metavar="FILE", help="a scenario YAML file or a named scenario (family/name) "
                                                      "to evaluate on; default: the start of the ruleset's map")
    p.add_argument("--set", metavar="NAME=VALUE", action="append", default=[], dest="settings",
                   help="set an option (repeatable); VALUE is JSON or a name")
    _composition_option(p)
    _common(p)


def _add_diff(sub) -> None:
    """The parser of `diff`."""
    p = sub.add_parser("diff", help="semantic diff between two rulesets or revisions",
                       description="Compare two rulesets definition by definition: what was added, removed or "
                                   "changed (a constant with its old and new value, a formula's old and new text), "
                                   "not a line diff; an added or removed definition is shown whole. Two maps "
                                   "(names without '/' or .yaml files) are compared fact by fact: players, turn "
                                   "order, spaces, connections, canals and the starting position. Two TripleA game "
                                   "files (.xml) are imported and compared as rulesets (their game properties as a "
                                   "table's rows) and as maps. Exit 0 whether or not they differ.")
    p.add_argument("old", metavar="REF_A", help="the ruleset to compare from (family/name@N or a .rules file), "
                                               "or a map (a map name or a .yaml file)")
    p.add_argument("new", metavar="REF_B", help="the ruleset or map to compare to (often a later revision of REF_A)")
    _common(p)


def _add_play(sub) -> None:
    """The parser of `play`."""
    p = sub.add_parser("play", help="play a game (with no arguments: the default game of the rulesets)",
                       description="Play a game under a composition of rulesets. With no arguments: the game "
                                   "that `play:` of the rulesets' defaults.yaml describes (shipped: the embedded "
                                   "Revised map under its house rules, every player heuristic, 10 rounds).")
    p.add_argument("--ruleset", dest="refs", metavar="REF", action="append", default=[],
                   help="a ruleset of the composition (repeatable; default: the composition above); REF! makes "
                        "that version win over another version of its ruleset the composition brings in")
    p.add_argument("--scenario", metavar="FILE",
                   help="start from a scenario (default: the map's start); its `rulesets:` are the composition "
                        "when no --ruleset is given")
    p.add_argument("--players", metavar="P=AGENT,...", default="",
                   help="agents per player (random, heuristic, scripted or human), as PLAYER=AGENT,PLAYER=AGENT")
    p.add_argument("--agent", default=None, choices=["random", "heuristic", "scripted", "human"],
                   help="the agent of every player --players does not name (default heuristic)")
    p.add_argument("--orders", metavar="FILE", help="the YAML orders of scripted players")
    p.add_argument("--seed", type=int, default=None, help="the seed of the dice and the agents (default 1)")
    p.add_argument("--rounds", type=int, default=None, help="play at most this many rounds (default 10)")
    p.add_argument("--set", metavar="NAME=VALUE", action="append", default=[], dest="settings",
                   help="set an option (repeatable)")
    p.add_argument("--bid", metavar="SIDE=IPCS", action="append", default=[], dest="bids",
                   help="before round 1, a side (its powers in turn order share it) or a power buys extra units "
                        "with IPCS and places them under the rulesets' bid rule (repeatable)")
    p.add_argument("--save", metavar="FILE", help="save the game after every round (written atomically)")
    p.add_argument("--resume", metavar="SAVE",
                   help="go on with a saved game: its rulesets, scenario, options and seed; --players, --agent "
                        "and --orders may give new agents for what comes after the save, --rounds more rounds")
    p.add_argument("--log", metavar="FILE",
                   help="write the game as a log anyone can audit: a header, the starting state, then every "
                        "event and die, one JSON object a line (docs/log-format.md)")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    _composition_option(p)
    _common(p)


def _add_replay(sub) -> None:
    """The parser of `replay`."""
    p = sub.add_parser("replay", help="re-run a recorded game and confirm it matches",
                       description="Play a saved or logged game again from its record (the same rulesets, "
                                   "scenario, seed and answers) and compare every event with the recorded ones. "
                                   "Exit 0 when all match, 1 at the first difference (which is printed). Saves "
                                   "and logs of an older format version are refused (D663).")
    p.add_argument("record", metavar="SAVE_OR_LOG",
                   help="a save written by play --save (JSON) or a log written by play --log (.jsonl or .log)")
    p.add_argument("--html", metavar="OUT",
                   help="also write OUT, a self-contained page of the game: the board after each round (control, "
                        "units, factories) with the round's battles, raids and what each rule did, and a slider "
                        "over the rounds; written only when the record replays the same")
    _common(p)


def _add_import_triplea(sub) -> None:
    """The parser of `import-triplea`."""
    p = sub.add_parser(
        "import-triplea", help="a TripleA game file as a ruleslang map + base ruleset",
        description="Translate a TripleA game file (XML) into DIR/maps/MAP.yaml and DIR/MAP/base@1.rules, so "
                    "that DIR works as a ruleset folder (--rulesets DIR). What cannot be translated (conditions, "
                    "triggers, technology, Java-coded properties, ...) is reported as D645/D646 warnings: by "
                    f"default the first {IMPORT_WARNINGS_SHOWN} on standard error and the whole list, grouped, "
                    "in the report on standard output.")
    p.add_argument("xml", metavar="GAME.xml", help="the TripleA game file (read without entities or DTDs)")
    p.add_argument("-o", "--output", metavar="DIR", default=".",
                   help="the folder to write into, made if missing (default: here); existing files of the same "
                        "names are replaced")
    p.add_argument("--map-folder", metavar="DIR",
                   help="the game's TripleA map folder: its centers.txt, place.txt or pu_place.txt give each space its "
                        "position (a space none names: the mean of its neighbours'), so pictures "
                        "(map show, replay --html) follow the map's geography")
    noise = p.add_mutually_exclusive_group()
    noise.add_argument("-q", "--quiet", action="store_true",
                       help="print only the counts, the files written and the number of warnings")
    noise.add_argument("-v", "--verbose", action="store_true", help="print every warning, with its XML line")
    _common(p)


def _add_map(sub) -> None:
    """The parser of `map`."""
    p = sub.add_parser("map", help="maps: show a map or a scenario as a picture",
                       description="Work with maps. `ruleslang map show --help` tells more.")
    map_sub = p.add_subparsers(dest="map_command", metavar="SUBCOMMAND", parser_class=_Parser)
    show = map_sub.add_parser("show", help="draw the board as a graph (SVG or HTML)",
                              description="Draw a map (or a scenario on it) as a graph: land coloured by its "
                                          "controller, sea zones blue-grey, each space's units, a square for a "
                                          "factory.")
    show.add_argument("map", metavar="MAP", nargs="?",
                      help="a map name (aar, aa50-1942, g40) or a map YAML file (not with --save)")
    board = show.add_mutually_exclusive_group()
    board.add_argument("--scenario", metavar="FILE", help="colour by the control and units of a scenario")
    board.add_argument("--save", metavar="SAVE_OR_LOG",
                       help="draw the board at the end of a recorded game (a save or log, replayed from its record)")
    show.add_argument("-o", "--output", metavar="OUT",
                      help="write to OUT, an .svg picture or an .html page by its extension (default: SVG to stdout); "
                           "with --format json a .json file")
    _common(show, fmt=False)
    show.add_argument("--format", choices=["text", "json"], default="text",
                      help="text (default): a picture; json: the board as data, its players and spaces with "
                           "their controllers, units and factories (docs/json-output.md)")


def _add_completion(sub) -> None:
    """The parser of `completion`."""
    p = sub.add_parser("completion", help="shell completion: the script to load in bash, zsh or fish",
                       description="Print the script that makes a shell complete ruleslang's commands, options, "
                                   "ruleset references, maps and spaces. bash or zsh: add "
                                   "eval \"$(ruleslang completion bash)\" to ~/.bashrc (zsh: ~/.zshrc, with zsh); "
                                   "fish: ruleslang completion fish | source, in ~/.config/fish/config.fish.")
    p.add_argument("shell", choices=SHELLS, help="the shell: bash, zsh or fish")


# command -> the function that adds its parser to the subcommands, in the order `--help` lists them
_PARSERS = {
    "list": _add_list,
    "check": _add_check,
    "test": _add_test,
    "eval": _add_eval,
    "call": _add_call,
    "explain": _add_explain,
    "diff": _add_diff,
    "fmt": add_fmt_parser,
    "play": _add_play,
    "odds": lambda sub: add_odds_parser(sub, _common, REF_HELP),
    "compare": lambda sub: add_compare_parser(sub, _common),
    "balance": lambda sub: add_balance_parser(sub, _common),
    "replay": _add_replay,
    "import-triplea": _add_import_triplea,
    "map": _add_map,
    "completion": _add_completion,
    "lsp": lambda sub: add_lsp_parser(sub, _common),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of every command; with `only` (a command's name), of that command alone.

    A run names its command first, and building the other commands' parsers cost more than a warm
    `call` spends on its own work; `only` is for such a run (`main`), whose help and errors come from
    its command's parser, which is built as in the whole parser."""
    parser = _Parser(prog="ruleslang", description=DESCRIPTION, epilog=EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"ruleslang {VERSION}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, add in _PARSERS.items():
        if only is None or name == only:
            add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line `argv` (default: sys.argv[1:]); the exit code: 0 clean, 1 errors, 2 usage."""
    if argv is None:  # the process runs this one command (a caller running several passes its argv)
        # what the imports made lives as long as the process: the cycle collector need not walk it
        # again at each collection (a tenth of a warm `call`'s instructions went to those walks)
        gc.freeze()
    words = sys.argv[1:] if argv is None else list(argv)
    named = words[0] if words and words[0] in _COMMANDS and not completion_requested() else None
    parser = build_parser(only=named)
    complete(parser)  # answers a shell's completion request and exits; nothing otherwise
    _Parser.json_errors = _wants_json(words)
    args = parser.parse_args(words)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    try:
        if getattr(args, "no_cache", False):
            with turned_off():
                return _COMMANDS[args.command](args)
        return _COMMANDS[args.command](args)
    except DiagnosticError as exc:
        return report_diagnostics(exc.diagnostics, getattr(args, "format", "text"))
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        print("ruleslang: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        return _os_problem(exc)
    except RecursionError:
        # The checker's limits (P005, R221, R222) keep every known input from nesting this deep.
        return report_diagnostics([error("E513", "evaluation nested too deeply")], getattr(args, "format", "text"))
    except Exception as exc:  # a bug in ruleslang itself: say so, without a traceback
        if os.environ.get("RULESLANG_DEBUG"):
            raise
        print(f"ruleslang: internal error ({type(exc).__name__}: {exc}). This is a bug in ruleslang, not in "
              "your rules; please report it with the command you ran (RULESLANG_DEBUG=1 shows the details).",
              file=sys.stderr)
        return EXIT_ERRORS


def _os_problem(exc: OSError) -> int:
    """D613 for what the operating system refused (a path too long, a full disk or device, a file too
    large): the command's files are as they were, since every write is atomic."""
    where = f"{exc.filename}: " if exc.filename else "the output: " if exc.errno in _OUTPUT_ERRORS else ""
    diagnostic = error("D613", f"{where}{exc.strerror or exc}")
    try:
        return report_diagnostics([diagnostic], "text")  # on stderr: stdout may be what failed
    except OSError:
        return EXIT_ERRORS  # stderr is gone too: the exit code is all that can be said
    finally:
        # what stdout still buffers cannot be written either; drop it so the exit stays quiet
        sys.stdout = open(os.devnull, "w")


_OUTPUT_ERRORS = (errno.ENOSPC, errno.EPIPE, errno.EBADF, errno.EFBIG)


_COMMANDS = {
    "list": cmd_list,
    "check": cmd_check,
    "test": cmd_test,
    "eval": cmd_eval,
    "call": cmd_call,
    "explain": cmd_explain,
    "diff": cmd_diff,
    "fmt": cmd_fmt,
    "play": cmd_play,
    "replay": cmd_replay,
    "odds": cmd_odds,
    "compare": cmd_compare,
    "balance": cmd_balance,
    "import-triplea": cmd_import,
    "map": cmd_map,
    "completion": cmd_completion,
    "lsp": cmd_lsp,
}
