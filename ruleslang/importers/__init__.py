"""Other formats turned into ruleslang maps and rulesets (TripleA game files)."""
