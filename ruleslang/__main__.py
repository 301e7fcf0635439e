"""`python -m ruleslang` is the `ruleslang` command."""

import sys

from .cli import main

sys.exit(main())
