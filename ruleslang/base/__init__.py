"""The bottom layer: source text and spans, diagnostics, errors, limits, name suggestions, paths, and safe file, YAML and XML reading. Imports nothing else of ruleslang."""
