"""Step-by-step solvers: one file per algorithm, each ``init`` / ``step`` / ``converged`` on a frozen state.

:mod:`.registry` holds every solver class by name (:data:`SOLVERS`) and builds one from its name
(:func:`make_solver`), refusing a solver that cannot do what is asked; each class declares what it can do
(:class:`~svmteach.solvers.base.Solver`'s capabilities).  Adding a solver is its module and one line
below.
"""

from .base import SolveResult, iterate, solve
from .cocoa import CoCoA, CoCoAState
from .dual_cd import DualCDState, DualCoordinateAscent
from .exact_block import CSBlondel, CSBlondelState, ExactBlock, ExactBlockState, WWExact, WWExactState
from .interior_point import InteriorPoint, InteriorPointState
from .multiclass_base import MulticlassState
from .parallel_block import ParallelBlock, ParallelBlockState
from .primal_subgradient import PrimalSubgradient, SubgradientState
from .registry import (BINARY_SOLVERS, MULTICLASS_SOLVERS, SOLVERS, make_solver, multiclass_solver_names,
                       register_solver)
from .smo import SMO, SMOState
from .working_set import WorkingSet, WorkingSetState
from .ww_shark import SharkMoves, WWShark, WWSharkState

# the registry, in the order the choices are listed (WWExact is ExactBlock held to one loss: its name is "exact")
for _cls in (SMO, DualCoordinateAscent, PrimalSubgradient, ExactBlock, WWShark, CSBlondel, ParallelBlock,
             InteriorPoint, CoCoA, WorkingSet):
    register_solver(_cls)


def make_multiclass_solver(name, loss, random_state=None, sparse: bool = False, kernel=None, chunked: bool = False,
                           **params):
    """The solver ``name`` (None: the loss's default, or for a dask X (``chunked``) the solver of chunked
    problems) for the loss object ``loss`` (:func:`make_solver`; ``kernel`` a name or None, ``params`` such as
    ``cache_size``), or a ValueError naming ``solver``."""
    if name is None:
        names = multiclass_solver_names(loss)
        name = next((n for n in names if SOLVERS[n].chunked), names[0]) if chunked else names[0]
    return make_solver(name, "multiclass", loss=loss, sparse=sparse, kernel=kernel, bias=False, chunked=chunked,
                       random_state=random_state, **params)


__all__ = [
    "SolveResult", "iterate", "solve",
    "SMO", "SMOState", "DualCoordinateAscent", "DualCDState", "PrimalSubgradient", "SubgradientState",
    "ExactBlock", "ExactBlockState", "WWExact", "WWExactState", "WWShark", "WWSharkState", "SharkMoves",
    "CSBlondel", "CSBlondelState", "MulticlassState", "ParallelBlock", "ParallelBlockState",
    "InteriorPoint", "InteriorPointState", "WorkingSet", "WorkingSetState", "CoCoA", "CoCoAState",
    "BINARY_SOLVERS", "MULTICLASS_SOLVERS", "SOLVERS", "register_solver", "make_solver",
    "multiclass_solver_names", "make_multiclass_solver",
]
