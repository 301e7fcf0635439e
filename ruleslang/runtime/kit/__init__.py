"""The Axis & Allies-style kit of procedures: purchase, movement, battles and placement. Every rule they follow is a setting or hook of the ruleset; the defaults live in aar/base@1."""
