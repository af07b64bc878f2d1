"""Small problems the coordinate methods cannot finish are finished by a direct method.

Coordinate steps crawl on an ill-conditioned dual; a Newton method does not mind the conditioning.
So when the default solver (``solver=None``) of a dense problem with at most :data:`DIRECT_UP_TO` dual
variables stops short of ``tol``, the estimator solves it again with
:class:`~svmteach.solvers.InteriorPoint` (when that solves its loss) and returns that optimum
(``solver_`` says so).  A solver the user named is never replaced.
"""

from __future__ import annotations

import warnings

from sklearn.exceptions import ConvergenceWarning

from ..backend import one_blas_thread
from ..rows import is_sparse
from ..solvers import InteriorPoint, solve
from ..solvers.base import certify
from ..solvers.interior_point import MAX_DENSE, MAX_RANK, Float64RangeError

#: The most dual variables (n binary, n (k - 1) multiclass) a fit hands to the interior-point method: a
#: Newton step then costs well under a second, within the method's own limit ``MAX_DENSE``.
DIRECT_UP_TO = 3000
assert DIRECT_UP_TO <= MAX_DENSE

#: Newton steps allowed (the method needs some 15 to 40).
DIRECT_STEPS = 200

#: The gap the direct finish aims at, whatever the fit's tol: the method puts the variables that belong on a
#: bound exactly there (its polish) only in its last steps; before that every sample looks like a support vector.
DIRECT_TOL = 1e-10


def dual_size(problem) -> int:
    """The number of free dual variables: n (binary) or n (k - 1) (multiclass)."""
    k = getattr(problem, "k", 2)
    return problem.n_samples * (k - 1)


def interior_point_takes(problem) -> bool:
    """Whether :class:`~svmteach.solvers.InteriorPoint` solves ``problem``: dense, a loss it solves, and within its
    sizes (``MAX_DENSE`` dual variables, or for the linear kernel a low-rank system of k d at most ``MAX_RANK``)."""
    loss = getattr(problem, "loss_object", None)
    if is_sparse(problem.design) or (loss is not None and not InteriorPoint.solves(loss)):
        return False
    k = getattr(problem, "k", 1)
    return dual_size(problem) <= MAX_DENSE or (problem.kernel.is_linear and k * problem.n_features <= MAX_RANK)


def finish_directly(problem, result, tol: float, bias: bool, record_history: bool):
    """The interior-point method's result on ``problem`` when the coordinate run ``result`` stopped short
    and the problem is small and dense (:data:`DIRECT_UP_TO`), else None.  ``bias``: the binary dual's
    equality :math:`y^\\top\\alpha = 0`.  None too for a loss the method does not solve, and, with a
    ConvergenceWarning naming C and X, where float64 cannot represent the optimum
    (:class:`~svmteach.solvers.interior_point.Float64RangeError`)."""
    if result.converged or is_sparse(problem.design) or dual_size(problem) > DIRECT_UP_TO:
        return None
    loss = getattr(problem, "loss_object", None)
    if loss is not None and not InteriorPoint.solves(loss):
        return None
    solver = InteriorPoint(bias=bias)
    try:
        with one_blas_thread():  # small dense factorisations: a second BLAS thread only contends
            direct = solve(solver, problem, max_iter=DIRECT_STEPS, tol=min(tol, DIRECT_TOL),
                           record_history=record_history)
    except Float64RangeError as error:
        warnings.warn(f"the direct finish (interior point) gave up: {error}", ConvergenceWarning, stacklevel=3)
        return None
    # accepted at the fit's tol (it ran to a tighter one) by the one certificate: gap and its rounding
    converged, rounding, reason = certify(solver, problem, direct.state, tol)
    return direct._replace(converged=True, rounding=rounding, reason=reason) if converged else None
