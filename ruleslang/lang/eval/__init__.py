"""Evaluation: expressions compiled to closures (sampled or exact), statements and procedures, the evaluation context and the host (seed, dice record, step budget, event log)."""
