"""ipywidgets explorers built from svmteach.viz and the solvers (import needs ipywidgets)."""

from .binary import BinaryExplorer

__all__ = ["BinaryExplorer"]
