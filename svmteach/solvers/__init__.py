"""Step-by-step solvers: one file per algorithm, each ``init`` / ``step`` / ``converged`` on a frozen state."""

from .base import SolveResult, iterate, solve
from .cs_blondel import CSBlondel, CSBlondelState
from .dual_cd import DualCDState, DualCoordinateAscent
from .parallel_block import ParallelBlock, ParallelBlockState
from .primal_subgradient import PrimalSubgradient, SubgradientState
from .smo import SMO, SMOState
from .ww_exact import WWExact, WWExactState
from .ww_shark import WWShark, WWSharkState

BINARY_SOLVERS = {
    "smo": SMO,
    "dual_cd": DualCoordinateAscent,
    "primal_subgradient": PrimalSubgradient,
}

__all__ = [
    "SolveResult", "iterate", "solve",
    "SMO", "SMOState", "DualCoordinateAscent", "DualCDState", "PrimalSubgradient", "SubgradientState",
    "WWExact", "WWExactState", "WWShark", "WWSharkState", "CSBlondel", "CSBlondelState",
    "ParallelBlock", "ParallelBlockState",
    "BINARY_SOLVERS",
]
