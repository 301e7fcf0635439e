"""The version of ruleslang (recorded in saves and logs, printed by --version; pyproject.toml reads it from here)."""

VERSION = "0.1.0"
