"""``python -m layoutcheck``: the same as the ``layoutcheck`` command."""

import sys

from .cli import main

sys.exit(main())
