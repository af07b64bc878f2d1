"""Small problems the coordinate methods cannot finish are finished by a direct method.

Coordinate steps crawl on an ill-conditioned dual: on raw data (the wine set's features span 0.1 to
1,680) a thousand epochs leave a relative gap near 1.  A Newton method does not mind the conditioning:
the interior-point solver (:class:`~svmteach.solvers.InteriorPoint`) reaches the optimum in some 15 to
40 steps, each a linear solve whose size is the number of dual variables.  So when the default solver
(``solver=None``) of a dense problem with at most :data:`DIRECT_UP_TO` dual variables stops short of
``tol``, the estimator solves it again directly and returns that optimum (``solver_`` says which solver
produced the model), when the method solves its loss.  A solver the user named is never replaced.
"""

from __future__ import annotations

import warnings

from sklearn.exceptions import ConvergenceWarning

from ..backend import one_blas_thread
from ..rows import is_sparse
from ..solvers import InteriorPoint, solve
from ..solvers.base import certify
from ..solvers.interior_point import MAX_DENSE, Float64RangeError

#: The most dual variables (n for a binary problem, n (k - 1) for a multiclass one) that a fit hands to the
#: interior-point method when its default solver stops short: a Newton step then costs well under a second
#: (and the method's own limit, ``MAX_DENSE``, is never reached).
DIRECT_UP_TO = 3000
assert DIRECT_UP_TO <= MAX_DENSE

#: Newton steps allowed (the method needs some 15 to 40).
DIRECT_STEPS = 200

#: The gap the direct finish aims at, whatever the fit's tol: the method puts the variables that belong on a
#: bound exactly there (its polish) only in its last steps, and before that every sample looks like a support
#: vector (raw breast cancer: 569 of them at a gap of 1e-8, 58 at 5e-11, one Newton step later).
DIRECT_TOL = 1e-10


def dual_size(problem) -> int:
    """The number of free dual variables: n (binary) or n (k - 1) (multiclass)."""
    k = getattr(problem, "k", 2)
    return problem.n_samples * (k - 1)


def finish_directly(problem, result, tol: float, bias: bool, record_history: bool):
    """The interior-point method's result on ``problem`` when the coordinate run ``result`` stopped short
    and the problem is small and dense (:data:`DIRECT_UP_TO`), else None.  ``bias``: the binary dual's
    equality :math:`y^\\top\\alpha = 0` (SMO's problem).  Where float64 cannot represent the optimum
    (:class:`~svmteach.solvers.interior_point.Float64RangeError`: C or the features so large that the margins
    drown in rounding), a :class:`~sklearn.exceptions.ConvergenceWarning` says so, naming C and X, and None.
    A multiclass loss the method does not solve (:meth:`InteriorPoint.solves`) is not finished: None."""
    if result.converged or is_sparse(problem.X) or dual_size(problem) > DIRECT_UP_TO:
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
