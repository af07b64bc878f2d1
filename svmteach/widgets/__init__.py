"""ipywidgets explorers built from svmteach.viz and the solvers (import needs ipywidgets)."""

from .binary import BinaryExplorer
from .simplex import SimplexProjectionExplorer

__all__ = ["BinaryExplorer", "SimplexProjectionExplorer"]
