"""The language server (`ruleslang lsp`): diagnostics, hover, definitions, completion, test lenses."""
