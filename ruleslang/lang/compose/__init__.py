"""Finding ruleset files by reference and composing them: uses, revisions (override, remove) and their checks."""
