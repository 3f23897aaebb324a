"""hyblint: find and fix MXNet Gluon code that breaks under hybridize()."""

__version__ = "0.1.0"
