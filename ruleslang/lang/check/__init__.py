"""The checker, stage by stage: declarations, types, phases and tests; it turns a composed ruleset into a checked Program."""
