"""Step-by-step solvers: one file per algorithm, each ``init`` / ``step`` / ``converged`` on a frozen state."""

from .base import SolveResult, iterate, solve
from .dual_cd import DualCDState, DualCoordinateAscent
from .primal_subgradient import PrimalSubgradient, SubgradientState
from .smo import SMO, SMOState

BINARY_SOLVERS = {
    "smo": SMO,
    "dual_cd": DualCoordinateAscent,
    "primal_subgradient": PrimalSubgradient,
}

__all__ = [
    "SolveResult", "iterate", "solve",
    "SMO", "SMOState", "DualCoordinateAscent", "DualCDState", "PrimalSubgradient", "SubgradientState",
    "BINARY_SOLVERS",
]
