"""The package version, in one place (``layoutcheck --version``, report headers)."""

__version__ = "0.1.0"
