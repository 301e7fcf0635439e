"""Every built-in function of the language, by name: the one table the checker and the compilers read.

It joins the tables of `core` (numbers, collections, text, dice), `board` (board queries) and
`battle` (battle queries); a name is declared by one of them only.
"""

from __future__ import annotations

from ruleslang.lang.builtins import battle, board, core
from ruleslang.lang.builtins.spec import Builtin


def _assemble(*tables: dict[str, Builtin]) -> dict[str, Builtin]:
    registry: dict[str, Builtin] = {}
    for table in tables:
        clash = registry.keys() & table.keys()
        if clash:
            raise AssertionError(f"built-ins declared twice: {', '.join(sorted(clash))}")
        registry.update(table)
    return registry


REGISTRY: dict[str, Builtin] = _assemble(core.BUILTINS, board.BUILTINS, battle.BUILTINS)
