"""Safety limits: what a ruleset from a stranger may cost (see docs/safety.md)."""

MAX_SOURCE_CHARS = 1_000_000      # one ruleset file
MAX_TOKENS = 150_000              # tokens of one ruleset file or expression (the parser's memory)
MAX_NESTING = 100                 # brackets and expression depth
MAX_CALL_DEPTH = 64               # definitions calling each other in one chain
MAX_RULESETS = 200                # rulesets loaded for one composition
MAX_COLLECTION = 100_000          # elements of one list, set or range
MAX_UNITS = 100_000               # units on one board (maps, scenarios, saves, imports)
MAX_INT_BITS = 256                # magnitude of a whole number (and of a fraction's parts)
MAX_NUMBER_DIGITS = 100           # digits of a number written in rules, data or on the command line
MAX_TEXT = 100_000                # characters of one text value
DEFAULT_STEP_BUDGET = 5_000_000   # evaluation steps of one top-level evaluation
MAX_DIST_SUPPORT = 200_000        # distinct outcomes of one exact distribution
MAX_DICE = 1_000                  # dice in one dice literal
MAX_DIE_SIDES = 1_000             # sides of one die
MAX_KEPT_ROLLS = 100_000          # dice a host keeps in its record (`rolls()`), the latest
MAX_YAML_DEPTH = 32               # nesting of a YAML data document
MAX_DATA_CHARS = 20_000_000       # one YAML or JSON data file
