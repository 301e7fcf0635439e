"""Shell completion (bash, zsh, fish) through argcomplete: commands and options from the parser,
and the values a user would otherwise look up: ruleset references, map names, and the spaces of
the map the command's rulesets play on.

    eval "$(ruleslang completion bash)"        # in ~/.bashrc (zsh: the same with zsh)
    ruleslang completion fish | source         # in ~/.config/fish/config.fish
"""

from __future__ import annotations

import argparse
import os

from ruleslang.base.diagnostics import DiagnosticError
from ruleslang.board.mapdata import list_maps, load_map
from ruleslang.workspace.compositions import Workspace

SHELLS = ("bash", "zsh", "fish")

# the options and arguments whose values are ruleset references, map names, or spaces of the map
_REF_DESTS = {"ref", "refs", "old", "new"}
_SPACE_DESTS = {"at", "came_from", "amphibious_from"}


def _workspace(parsed_args) -> Workspace:
    return Workspace(getattr(parsed_args, "rulesets", None) or [])


def ruleset_refs(prefix: str, parsed_args, **_) -> list[str]:
    """Every `family/name@N` the command's roots hold."""
    return [ref for ref, _ in _workspace(parsed_args).loader.all_rulesets() if ref.startswith(prefix)]


def map_names(prefix: str, parsed_args, **_) -> list[str]:
    """The maps of the roots."""
    return [name for name, _, _ in list_maps(_workspace(parsed_args).roots) if name.startswith(prefix)]


def space_names(prefix: str, parsed_args, **_) -> list[str]:
    """The spaces of the map the command's rulesets name (the first that names one; default: the
    default game's), read from the ruleset headers without checking the rulesets."""
    ws = _workspace(parsed_args)
    paths = dict(ws.loader.all_rulesets())
    for ref in list(getattr(parsed_args, "refs", None) or []) or list(paths):
        try:
            path = paths.get(ref)
            header = ws.loader.load(path).module.header if path is not None else None
            if header is not None and header.map is not None:
                game_map = load_map(header.map.plain, ws.roots)
                return [name for name in game_map.space_names() if name.lower().startswith(prefix.lower())]
        except DiagnosticError:
            continue
    return []


def add_completers(parser: argparse.ArgumentParser) -> None:
    """Attach the value completers to every (sub)command's arguments, by destination."""
    for action in parser._actions:  # noqa: SLF001 - argparse offers no public walk of its actions
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for sub in action.choices.values():
                add_completers(sub)
        elif action.dest in _REF_DESTS:
            action.completer = ruleset_refs
        elif action.dest in _SPACE_DESTS:
            action.completer = space_names
        elif action.dest == "map":
            action.completer = map_names


def requested() -> bool:
    """Whether this run is a shell's completion request (which needs every command's parser)."""
    return "_ARGCOMPLETE" in os.environ  # the variable argcomplete's shell hook sets on a request


def complete(parser: argparse.ArgumentParser) -> None:
    """Answer the shell's completion request, if this run is one (argcomplete then exits)."""
    if not requested():
        return
    # start-up time: argcomplete loads only when the shell asks for completions
    import argcomplete

    add_completers(parser)
    argcomplete.autocomplete(parser)


def cmd_completion(args) -> int:
    """`ruleslang completion SHELL`: the script that makes SHELL complete ruleslang's command lines."""
    # start-up time: argcomplete loads only for this command and completion requests
    import argcomplete

    print(argcomplete.shellcode(["ruleslang"], shell=args.shell))
    return 0
