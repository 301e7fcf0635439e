"""The variants of a comparison: what each plays (a composition of rulesets, a scenario) and its name.

A variant is written `REF`, `REF+REF+...` or a scenario file (`.yaml`) whose `rulesets:` give the
composition. `--with REF+...` names the rest of the game every variant is composed with: a
variant's ruleset takes the place of the ruleset of the same family and name inside it, so
`f/rule@1 --with f/all@1`, where `f/all@1` gathers `f/base@1` and `f/rule@2`, plays `f/base@1`
with `f/rule@1` (docs/compare.md "The rest of the game").
"""

from __future__ import annotations

from dataclasses import dataclass

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.lang.compose.composition import Composer, Ruleset
from ruleslang.lang.compose.loader import parse_ref

SCENARIO_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Variant:
    """One side of a comparison: its short name, what was typed, the composition played and the
    scenario it starts from (None: the map's start)."""

    name: str
    given: str
    refs: tuple[str, ...]
    scenario: str | None = None
    scenario_text: str | None = None

    @property
    def label(self) -> str:
        """What a person reads: the rulesets typed, then the rest of the composition in brackets."""
        typed = [r for r in self.refs if r in split_composition(self.given)]
        rest = [r for r in self.refs if r not in typed]
        head = "+".join(typed) if typed else self.given
        return head + (f" (+ {', '.join(rest)})" if rest else "")


def variant_name(index: int) -> str:
    """A, B, ... Z, then V27, V28, ... (the order of the command line)."""
    return chr(ord("A") + index) if index < 26 else f"V{index + 1}"


def is_scenario_file(text: str) -> bool:
    """Whether a variant is written as a scenario file (its `rulesets:` are the composition)."""
    return text.lower().endswith(SCENARIO_SUFFIXES)


def split_composition(text: str) -> list[str]:
    """`A+B+C` as its references; an empty part (`A++B`, `+A`) is U122."""
    parts = [p.strip() for p in text.split("+")]
    if not all(parts):
        raise DiagnosticError(error("U122", f"'{text}' is not a composition: a part between '+' is empty",
                                    hint="a variant is REF, REF+REF+... or a scenario file (.yaml)"))
    return parts


def _family_name(ref: str) -> tuple[str, str] | None:
    parsed = parse_ref(ref)
    return None if parsed is None else (parsed[0], parsed[1])


def swap_into(composer: Composer, rest: list[str], refs: list[str]) -> list[str]:
    """The composition `rest` with each of `refs` in the place of the ruleset of its family and
    name (found in `rest` or among what it uses); a ruleset of `rest` that uses one to be swapped
    and defines nothing of its own (a ruleset that only gathers others, with its tests) is opened
    into what it uses. The refs that replace nothing come last. One that defines rules of its own
    cannot be opened: U123."""
    wanted = {fn: ref for ref in refs if (fn := _family_name(ref)) is not None}
    out: list[str] = []

    def place(rs: Ruleset) -> None:
        fn = _family_name(rs.ref)
        if fn in wanted:
            out.append(wanted[fn])
            return
        inside = [m for m in rs.members if m != rs.ref and _family_name(m) in wanted]
        if not inside:
            out.append(rs.ref)
            return
        own = sorted({d.name for d in rs.definitions.values() if d.origin == rs.ref})
        if own or rs.revises is not None:
            what = f"defines {', '.join(own[:3])}" if own else f"revises {rs.revises.ref}"
            raise DiagnosticError(error(
                "U123", f"cannot put {wanted[_family_name(inside[0])]} in the place of {inside[0]} inside {rs.ref}: "
                        f"{rs.ref} {what} itself", hint=f"name the rulesets of {rs.ref} with '+' instead"))
        for used in rs.uses:
            place(used)

    for ref in rest:
        place(composer.resolve_ref(ref))
    out.extend(ref for ref in refs if ref not in out)
    return list(dict.fromkeys(out))
