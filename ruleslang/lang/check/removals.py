"""Definitions a revision removed while the composition still uses them: one error at the `remove`
that names every use, instead of an "is not defined" at each (R217)."""

from __future__ import annotations

from ruleslang.base.diagnostics import Related
from ruleslang.lang.check.state import CheckState


def still_used(state: CheckState) -> None:
    """R217 for each removed name the type checker met in use."""
    for name, uses in state.tc.removed_uses.items():
        removed = state.ruleset.definitions[name]
        where = ", ".join(f"{span.source.display_name}:{span.line}:{span.column}" for span in uses[:5])
        more = f" and {len(uses) - 5} more" if len(uses) > 5 else ""
        state.error("R217", f"{removed.origin} removes '{name}', which the composition still uses: {where}{more}",
                    removed.removed_at,
                    related=[Related(span, f"'{name}' is used here") for span in uses],
                    hint=f"override '{name}' instead of removing it, or change what uses it")
