"""The ruleslang grammar, shipped inside the package (read by ruleslang.lang.syntax.parser)."""
