"""What a command line names: the --rulesets folders, the workspace they make, and REFs."""

from __future__ import annotations

from pathlib import Path

from ruleslang.api import workspace_for
from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, error
from ruleslang.lang.compose.loader import parse_ref
from ruleslang.workspace.compositions import Loaded, Workspace


def open_workspace(args) -> Workspace:
    """The workspace of the command's --rulesets folders (then ./rulesets and the shipped ones)."""
    return Workspace(ruleset_folders(args))


def ruleset_folders(args) -> list[str]:
    """The --rulesets folders; one that is not a folder is a usage error (the roots would skip it)."""
    for folder in args.rulesets:
        if not Path(folder).is_dir():
            why = "it is a file, not a folder" if Path(folder).exists() else "there is no such folder"
            raise DiagnosticError(error("U109", f"--rulesets {folder}: {why}", file=folder,
                                        hint="--rulesets takes a folder of rulesets laid out as family/name@N.rules"))
    return args.rulesets


def workspace_and_refs(args) -> tuple[Workspace, list[str]]:
    """check and test: the workspace and the REFs to run. A folder given as a REF stands for the
    rulesets in it, and is searched first (as with --rulesets): a root laid out as family/name@N.rules,
    or one family's folder. With no REF, every ruleset found."""
    return workspace_for(args.refs, rulesets=ruleset_folders(args))


def folder_ref(ref: str) -> Diagnostic | None:
    """The diagnostic for a REF that names a folder (else None): a REF is a name or a .rules file."""
    if parse_ref(ref) is not None or not Path(ref).is_dir():
        return None
    return error("S002", f"'{ref}' is a folder, not a .rules file", file=ref,
                 hint="a REF is family/name@N, family/name or a .rules file; --rulesets DIR searches a folder")


def refuse_folders(refs) -> None:
    """Stop with S002 for every REF that names a folder."""
    folders = [d for d in map(folder_ref, refs) if d is not None]
    if folders:
        raise DiagnosticError(folders)


def load_composition(ws: Workspace, refs, *, kept: bool = False) -> Loaded:
    """The composition of `refs`, loaded and checked; stop with its diagnostics if it does not check.
    With `kept`, a composition checked by an earlier run and unchanged since is read from the cache."""
    refuse_folders(refs)
    loaded = ws.load(refs, kept=kept)
    if not loaded.ok:
        raise DiagnosticError(loaded.diagnostics)
    return loaded
