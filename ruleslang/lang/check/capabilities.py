"""What a host runtime provides to rulesets: the procedures and the actions the language itself does not know.

A phase or step written `runtime NAME with {...}` names a procedure of the host; `constraint x on
ACTION(...)` names an action of the host. The host hands its capabilities to `check_ruleset`, which
checks against them and keeps them in the checked Program, so that nothing in the language imports
the runtime above it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Mapping

from ruleslang.lang import types as T


@dataclass(frozen=True)
class Capabilities:
    """The procedures and actions of a host runtime, read-only.

    `procedures`: procedure name -> (what it does, its settings and their types); settings of a
    function type are written as conditions `x => ...`. `required`: procedure name -> the settings
    it cannot run without. `actions`: action name -> its parameters (name, type), in order.
    `examples`: procedure name -> a `runtime NAME with {...}` line giving its required settings.
    """

    procedures: Mapping[str, tuple[str, Mapping[str, T.Type]]]
    required: Mapping[str, tuple[str, ...]]
    actions: Mapping[str, tuple[tuple[str, T.Type], ...]]
    examples: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Shared by every check of a run: no caller may change what the host provides.
        for f in fields(self):
            object.__setattr__(self, f.name, MappingProxyType(dict(getattr(self, f.name))))

    @classmethod
    def none(cls) -> Capabilities:
        """No host runtime: rulesets checked on their own, with no runtime procedures and no actions."""
        return cls({}, {}, {})

    @property
    def hosted(self) -> bool:
        """Whether a host runtime provides anything (`Capabilities.none()` does not)."""
        return bool(self.procedures or self.actions)

    def describe(self, procedure: str) -> str:
        """What runtime procedure `procedure` does."""
        return self.procedures[procedure][0]
