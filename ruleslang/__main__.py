"""`python -m ruleslang` is the `ruleslang` command."""

import sys

from ruleslang.cli.app import main

sys.exit(main())
