"""Step-by-step solvers: one file per algorithm, each ``init`` / ``step`` / ``converged`` on a frozen state.

:data:`SOLVERS` is the registry: every solver class by its ``name``.  The binary ones solve a
:class:`~svmteach.problems.BinaryProblem`; each multiclass one says which losses it solves
(:meth:`solves`), so :func:`multiclass_solver_names` lists the choices for a loss.
"""

from .base import SolveResult, iterate, solve
from .dual_cd import DualCDState, DualCoordinateAscent
from .interior_point import InteriorPoint, InteriorPointState
from .exact_block import CSBlondel, CSBlondelState, ExactBlock, ExactBlockState, WWExact, WWExactState
from .multiclass_base import MulticlassState
from .parallel_block import ParallelBlock, ParallelBlockState
from .primal_subgradient import PrimalSubgradient, SubgradientState
from .smo import SMO, SMOState
from .ww_shark import SharkMoves, WWShark, WWSharkState

#: The binary solvers by name.
BINARY_SOLVERS = {cls.name: cls for cls in (SMO, DualCoordinateAscent, PrimalSubgradient, InteriorPoint)}
#: The multiclass solvers by name (WWExact is ExactBlock held to one loss: its name is "exact").
MULTICLASS_SOLVERS = {cls.name: cls for cls in (ExactBlock, WWShark, CSBlondel, ParallelBlock, InteriorPoint)}
#: Every solver by name.
SOLVERS = {**BINARY_SOLVERS, **MULTICLASS_SOLVERS}


def multiclass_solver_names(loss) -> tuple:
    """The names of the solvers of the loss object ``loss``, its default first."""
    names = [name for name, cls in MULTICLASS_SOLVERS.items() if cls.solves(loss)]
    # one name per algorithm: where the exact block solver has a name of its own for this loss
    # (Crammer-Singer's is Blondel's), the generic "exact" is not listed beside it
    if any(MULTICLASS_SOLVERS[name] is not ExactBlock and issubclass(MULTICLASS_SOLVERS[name], ExactBlock)
           for name in names):
        names.remove(ExactBlock.name)
    return tuple(sorted(names, key=lambda name: name != loss.default_solver))


def make_multiclass_solver(name, loss, random_state=None):
    """The solver ``name`` (None: the loss's default) for the loss object ``loss``, or a ValueError naming
    ``solver``."""
    from .base import check_choice

    names = multiclass_solver_names(loss)
    name = names[0] if name is None else name
    check_choice("solver", name, names)
    cls = MULTICLASS_SOLVERS[name]
    return cls() if cls is ParallelBlock else cls(random_state=random_state)


__all__ = [
    "SolveResult", "iterate", "solve",
    "SMO", "SMOState", "DualCoordinateAscent", "DualCDState", "PrimalSubgradient", "SubgradientState",
    "ExactBlock", "ExactBlockState", "WWExact", "WWExactState", "WWShark", "WWSharkState", "SharkMoves",
    "CSBlondel", "CSBlondelState", "MulticlassState", "ParallelBlock", "ParallelBlockState",
    "InteriorPoint", "InteriorPointState",
    "BINARY_SOLVERS", "MULTICLASS_SOLVERS", "SOLVERS", "multiclass_solver_names", "make_multiclass_solver",
]
