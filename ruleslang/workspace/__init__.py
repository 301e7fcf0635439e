"""The front door: roots, compositions loaded through the whole pipeline with the runtime's capabilities, and command-line text compiled against them."""
