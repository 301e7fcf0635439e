"""ruleslang: house rules for Axis & Allies-style games as versioned, checked, runnable data."""

__version__ = "0.1.0"
