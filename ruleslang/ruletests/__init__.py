"""The rule-test feature: running a ruleset's tests and checks, with scenarios, answers, battles and expectations."""
