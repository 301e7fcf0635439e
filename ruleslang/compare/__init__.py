"""`ruleslang compare`: variants of a game played on the same seeds, stored game by game, summarised with intervals (docs/compare.md)."""
