"""The checker: a composed ruleset into a checked Program, in the named stages `checker.STAGES` lists."""
