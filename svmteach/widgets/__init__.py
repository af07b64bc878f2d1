"""ipywidgets explorers built from svmteach.viz and the solvers (import needs ipywidgets)."""

from .binary import BinaryExplorer
from .multiclass import MulticlassExplorer
from .rls import RLSPathExplorer
from .simplex import SimplexProjectionExplorer

__all__ = ["BinaryExplorer", "MulticlassExplorer", "RLSPathExplorer", "SimplexProjectionExplorer"]
