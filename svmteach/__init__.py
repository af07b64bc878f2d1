"""svmteach: exact, step-by-step SVM solvers for learning, teaching and running SVM duality.

The public API, flat: problems, solvers, the drivers ``iterate`` / ``solve``,
kernels and the scikit-learn compatible estimators.
"""

from .estimators import BinarySVC, MulticlassSVC
from .kernels import Kernel, gram, make_kernel
from .problems import BinaryProblem, MulticlassProblem
from .reductions import OneVsOneSVC, OneVsRestSVC
from .solvers import (
    SMO,
    CSBlondel,
    DualCoordinateAscent,
    InteriorPoint,
    ParallelBlock,
    PrimalSubgradient,
    SolveResult,
    WWExact,
    WWShark,
    iterate,
    solve,
)

__version__ = "0.1.0"

__all__ = [
    "BinarySVC", "MulticlassSVC", "OneVsRestSVC", "OneVsOneSVC",
    "BinaryProblem", "MulticlassProblem",
    "Kernel", "gram", "make_kernel",
    "SMO", "DualCoordinateAscent", "PrimalSubgradient", "WWExact", "WWShark", "CSBlondel", "ParallelBlock",
    "InteriorPoint",
    "SolveResult", "iterate", "solve",
]
