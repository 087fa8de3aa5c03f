"""``python -m layoutcheck``: the same as the ``layoutcheck`` command."""

import sys

from layoutcheck.cli import main

sys.exit(main())
