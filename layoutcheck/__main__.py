"""``python -m layoutcheck``: the same as the ``layoutcheck`` command."""

from layoutcheck.cli import entry

entry()
