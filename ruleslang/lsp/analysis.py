"""An editor's view of one ruleset file: its text (saved or not) through the whole pipeline.

The language server asks this module, never the pipeline directly: `analyse` takes the text of
the file being edited (and of the other files open in the editor, which stand in for what is on
disk) and gives back the parsed file, the composition it starts and every diagnostic, located.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from ruleslang.base.diagnostics import Diagnostic, DiagnosticError
from ruleslang.base.errors import EvalError
from ruleslang.lang.compose.composition import Ruleset, composition_rulesets_of
from ruleslang.lang.compose.loader import FILE_RE, RulesetFile
from ruleslang.lang.values import format_value
from ruleslang.workspace.compositions import Loaded, Workspace
from ruleslang.workspace.session import compile_expression, make_context


@dataclass
class Analysis:
    """What the pipeline made of one file: `file` is None when it does not parse."""

    path: Path
    workspace: Workspace
    file: RulesetFile | None
    loaded: Loaded | None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ruleset(self) -> Ruleset | None:
        """The file's ruleset with its revisions and uses applied (None when it could not be composed)."""
        return self.loaded.ruleset if self.loaded is not None else None

    def files(self) -> list[RulesetFile]:
        """Every file of the composition, this one first (only this one when it could not be composed)."""
        out = [self.file] if self.file is not None else []
        if self.ruleset is not None:
            for part in composition_rulesets_of(self.ruleset):
                if part.file is not None and part.file not in out:
                    out.append(part.file)
        return out


def root_of(path: Path) -> Path | None:
    """The ruleset root a file lies in when it is stored as `<root>/<family>/<name>@<N>.rules`."""
    return path.parent.parent if FILE_RE.match(path.name) else None


def analyse(path: str | Path, text: str, *, open_texts: Mapping[Path, str] = (),
            roots: Sequence[str | Path] = ()) -> Analysis:
    """Parse, compose, check and compile the ruleset at `path` whose text is `text`.

    `open_texts` are the texts of other files open in the editor (by resolved path): they stand in
    for the files on disk. The file's own root comes first, so its revisions and uses are found."""
    path = Path(path).resolve()
    own_root = root_of(path)
    workspace = Workspace([*([own_root] if own_root is not None else []), *roots])
    for other, other_text in dict(open_texts).items():
        if Path(other).resolve() != path:
            try:
                workspace.loader.use_text(Path(other), other_text)
            except DiagnosticError:
                pass  # a broken buffer elsewhere: its own analysis reports it; the disk copy is used here
    try:
        file = workspace.loader.use_text(path, text)
    except DiagnosticError as exc:
        return Analysis(path, workspace, None, None, list(exc.diagnostics))
    loaded = workspace.load([str(path)])
    return Analysis(path, workspace, file, loaded, list(loaded.diagnostics))


def constant_value(analysis: Analysis, name: str) -> str | None:
    """The value of a constant (or any definition without parameters) of the file's composition, as
    ruleslang prints values, on the start of its map; None when it cannot be worked out here."""
    loaded = analysis.loaded
    if loaded is None or not loaded.ok:
        return None
    try:
        node, size = compile_expression(loaded, name)
        ctx = make_context(loaded, analysis.workspace, scenario=None, seed=0, budget=None, settings=[])
        return format_value(loaded.compiled.expr_compiler.expr(node)([ctx] + [None] * (size - 1)))
    except (DiagnosticError, EvalError):
        return None
