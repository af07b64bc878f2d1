"""svmteach: exact, step-by-step SVM solvers for learning, teaching and running SVM duality.

The public API, flat: problems, solvers, the drivers ``iterate`` / ``solve``,
kernels and the scikit-learn compatible estimators.
"""

from .estimators import BinarySVC
from .kernels import Kernel, gram, make_kernel
from .problems import BinaryProblem
from .solvers import (
    SMO,
    DualCoordinateAscent,
    PrimalSubgradient,
    SolveResult,
    iterate,
    solve,
)

__version__ = "0.1.0"

__all__ = [
    "BinarySVC",
    "BinaryProblem",
    "Kernel", "gram", "make_kernel",
    "SMO", "DualCoordinateAscent", "PrimalSubgradient",
    "SolveResult", "iterate", "solve",
]
