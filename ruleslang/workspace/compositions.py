"""The pipeline in one place: references -> resolved ruleset -> map -> checked -> compiled.

Stops after the first stage that reported errors (warnings pass through), so later stages only
ever see well-formed input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ruleslang.base import reads
from ruleslang.lang.check.program import Program
from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, error, has_errors
from ruleslang.lang.compose.loader import Loader
from ruleslang.base.paths import default_roots
from ruleslang.lang.eval.program import CompiledProgram
from ruleslang.lang.compose.composition import Composer, Ruleset
from ruleslang.runtime.registry import CAPABILITIES
from ruleslang.board.mapdata import adopt_map, load_map
from ruleslang.workspace import kept_programs
from ruleslang.workspace.kept import Keeper


KEPT_PROGRAMS = 64  # checked compositions kept (half a megabyte or more each): the ones used last


@dataclass
class Loaded:
    """A composition of rulesets, as far as the pipeline got."""

    ruleset: Ruleset | None = None
    program: Program | None = None
    compiled: CompiledProgram | None = None
    game_map: object | None = None
    roots: list[Path] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.compiled is not None and not has_errors(self.diagnostics)


class Workspace:
    """Roots, a loader and a resolver shared by every composition loaded in one run."""

    def __init__(self, roots: Sequence[str | Path] = ()):
        self.roots = default_roots(roots)
        self.loader = Loader(self.roots)
        self.composer = Composer(self.loader)
        self._maps: dict[str, object] = {}

    def load(self, refs: Sequence[str], *, kept: bool = False) -> Loaded:
        """Resolve, check and compile the composition of `refs`. With `kept`, a composition an
        earlier run checked clean (warnings allowed), whose files and the package are unchanged,
        is read back from the cache instead of being resolved and checked again
        (workspace/kept_programs.py): what `call`, `eval` and `explain` load."""
        entry = Keeper(self.roots).entry("program", "\0".join(refs), keep=KEPT_PROGRAMS) if kept else None
        if entry is None or not entry.enabled:
            return self._load(refs)
        blob = entry.load_bytes()
        back = kept_programs.decode(blob, CAPABILITIES) if blob is not None else None
        if back is not None:
            ruleset, game_map, program, diagnostics = back
            if game_map is not None:
                self._maps[ruleset.map[0]] = adopt_map(game_map)
            return Loaded(ruleset, program, CompiledProgram(program), game_map, self.roots, diagnostics)
        with reads.recording() as files:
            out = self._load(refs)
        if out.ok:
            blob = kept_programs.encode(out, CAPABILITIES)
            if blob is not None:
                entry.save_bytes(files, blob)
        return out

    def _load(self, refs: Sequence[str]) -> Loaded:
        out = Loaded(roots=self.roots)
        try:
            out.ruleset = self.composer.compose(list(refs))
        except DiagnosticError as exc:
            out.diagnostics.extend(exc.diagnostics)
            return out
        if out.ruleset.map is not None:
            name, span = out.ruleset.map
            try:
                out.game_map = self.load_map(name, span)
            except DiagnosticError as exc:
                out.diagnostics.append(error("R231", f"map '{name}' cannot be used", span,
                                             hint="see the problems reported for the map file"))
                out.diagnostics.extend(exc.diagnostics)
                return out
        # start-up time: the checker's stages load only when a composition is checked (not read back kept)
        from ruleslang.lang.check.checker import check_ruleset

        out.program = check_ruleset(out.ruleset, out.game_map, CAPABILITIES, self.loader.defined_in)
        out.diagnostics.extend(out.program.diagnostics)
        if has_errors(out.diagnostics):
            return out
        out.compiled = CompiledProgram(out.program)
        return out

    def load_map(self, name: str, span=None):
        """The map a ruleset names (once per run); a path must lie inside the loader's roots."""
        if name not in self._maps:
            self._maps[name] = load_map(name, self.roots, span=span, allowed=self.loader.allowed)
        return self._maps[name]
