"""The rulesets, maps and scenarios shipped with ruleslang (found through ruleslang.base.paths)."""
