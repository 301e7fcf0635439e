"""The checked program: what the checker (checker.py) makes of a composed ruleset.

Apart from the checker and its stages, so that a command reading a kept program back
(workspace/kept_programs.py) loads the data it builds and not the stages that checked it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ruleslang.base.diagnostics import Diagnostic, has_errors
from ruleslang.lang.check.capabilities import Capabilities
from ruleslang.lang.check.state import TableInfo
from ruleslang.lang.check.typecheck import CheckInfo
from ruleslang.lang.compose.composition import Ruleset
from ruleslang.lang.scope import GlobalScope
from ruleslang.lang.syntax.statements import Choose


@dataclass
class Program:
    """A checked ruleset, ready to compile, with the host capabilities it was checked against."""

    ruleset: Ruleset
    scope: GlobalScope
    info: CheckInfo
    formula_types: dict[str, tuple]
    order: list[str]
    tables: dict[str, TableInfo]
    decision_ids: dict[str, Choose]
    capabilities: Capabilities
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the check reported no error."""
        return not has_errors(self.diagnostics)
