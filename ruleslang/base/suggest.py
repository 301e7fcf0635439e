"""Did-you-mean: the known names close enough to a misspelt one to be worth offering, and the hint.

Every "did you mean" of ruleslang is found and worded here, by `did_you_mean`, so every hint has
one form: "did you mean 'x' or 'y'?" (tests/test_overrides_and_hints.py keeps other modules from
wording it themselves). Names with aliases (map spaces and players, enumeration members) are
given as spellings: each name and alias, to the name a hint offers.

difflib's ratio alone offers far-fetched names (a made-up place name of eight letters scores
0.67 against an unrelated seven-letter one that shares a few letters), so a candidate must be
clearly close, or moderately close and start with the same letter: typos rarely fall on the
first letter.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

LOOSE = 0.6  # at least this close to be considered at all (difflib's default cutoff)
CLOSE = 0.8  # this close is offered even when the first letters differ


def close_matches(word: str, possibilities: Iterable[str], n: int = 3) -> list[str]:
    """Up to `n` of `possibilities` plausibly meant by `word`, closest first (no duplicates)."""
    # start-up time: difflib is loaded when a name is misspelt, not by every command
    from difflib import get_close_matches

    pool = list(dict.fromkeys(possibilities))
    found = get_close_matches(word, pool, n=len(pool) or 1, cutoff=LOOSE)
    return [c for c in found if _plausible(word, c)][:n]


def did_you_mean(word: str, candidates: Iterable[str] | Mapping[str, str], n: int = 3) -> str | None:
    """The hint offering up to `n` of `candidates` plausibly meant by `word`, or None if none is.

    `candidates` are names, or spellings: a mapping from each name and alias to the name it
    spells, matched ignoring case (aliases are written in any case), each name offered once.
    """
    return _worded(_close_names(word, candidates, n))


def _close_names(word: str, candidates: Iterable[str] | Mapping[str, str], n: int) -> list[str]:
    """Up to `n` names of `candidates` (names, or spellings as for `did_you_mean`) plausibly meant by `word`."""
    if not isinstance(candidates, Mapping):
        return close_matches(word, candidates, n)
    folded: dict[str, str] = {}
    for spelling, name in candidates.items():
        folded.setdefault(spelling.casefold(), name)
    found: list[str] = []
    for spelling in close_matches(word.casefold(), folded, n=len(folded)):
        if folded[spelling] not in found:
            found.append(folded[spelling])
    return found[:n]


def _worded(names: Sequence[str]) -> str | None:
    if not names:
        return None
    return "did you mean " + " or ".join(f"'{name}'" for name in names) + "?"


def _plausible(word: str, candidate: str) -> bool:
    # start-up time: as above (close_matches has loaded it by now)
    from difflib import SequenceMatcher

    if SequenceMatcher(None, word, candidate).ratio() >= CLOSE:
        return True
    return word[:1].casefold() == candidate[:1].casefold()
