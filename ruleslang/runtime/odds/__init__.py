"""Exact battle odds under any composition (`ruleslang odds`): docs/odds.md."""
