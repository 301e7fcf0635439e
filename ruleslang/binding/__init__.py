"""Joining scenarios and option settings to compiled programs (bind.py), and checking that a scenario
fits the rulesets it meets (scenario_check.py): one place used by every command, the rule tests and the runtime."""
