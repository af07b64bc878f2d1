"""The binary dual's gradient recomputed from alpha alone, and kernel rows as the compiled loops see them.

Below :mod:`~svmteach.solvers.base` (it imports no solver), so that the contract's rounding bound, SMO and
dual coordinate ascent share one definition.
"""

from __future__ import annotations

import numpy as np

from .. import objectives as obj
from ..backend import is_numpy, to_numpy
from ..kernels import gram
from ..problems import CACHE_SIZE
from .numba_kernel_rows import get_row
from .numba_kernel_rows import scores as row_scores

#: Off NumPy, the exact gradient evaluates kernel rows of at most this many support vectors at a time.
EXACT_BLOCK = 256


def exact_gradient(problem, alpha, cache_size=CACHE_SIZE):
    """The dual gradient :math:`g = \\mathbf 1 - Q\\alpha` recomputed from ``alpha`` alone, in float64.

    :math:`g_t = 1 - y_t f_t` with :math:`f_t = \\sum_s \\alpha_s y_s k(x_s, x_t)`, the sum over the
    support vectors (:math:`\\alpha_s \\ne 0`).  It drops whatever rounding a cached gradient has
    gathered (the rounding of many small updates).  The linear kernel needs no kernel row:
    :math:`f = X w` with :math:`w = X^\\top (\\alpha \\circ y)`, in O(nd).  Another kernel on NumPy reads
    the support vectors' rows from the problem's row cache of ``cache_size`` MB (computing those
    missing); elsewhere (CuPy) they are computed in blocks.  Never the whole (n, n) matrix.
    """
    xp = problem.xp
    if problem.kernel.is_linear:
        return 1.0 - problem.y * obj.scores(problem, alpha)
    coef = alpha * problem.y
    support = np.flatnonzero(to_numpy(alpha) != 0)
    if is_numpy(xp):
        return 1.0 - problem.y * row_scores(problem.kernel_rows(cache_size), support, coef)
    f = xp.zeros(problem.n_samples, dtype=xp.float64)
    for s in range(0, support.size, EXACT_BLOCK):
        rows = xp.asarray(support[s : s + EXACT_BLOCK])
        f = f + xp.take(coef, rows) @ gram(xp.take(problem.X, rows, axis=0), problem.X, problem.kernel)
    return 1.0 - problem.y * f


def kernel_row(problem, i, cache_size=CACHE_SIZE):
    """Row i of the kernel matrix, (n,): on NumPy a copy of the row in the problem's row cache of
    ``cache_size`` MB (the compiled loop's numbers), else :meth:`~svmteach.problems.BinaryProblem.kernel_row`."""
    if is_numpy(problem.xp):
        return np.array(get_row(problem.kernel_rows(cache_size), int(i)))
    return problem.kernel_row(i)

