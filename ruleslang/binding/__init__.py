"""Joining a scenario and option settings to a compiled program: one place used by every command, the rule tests and the runtime."""
