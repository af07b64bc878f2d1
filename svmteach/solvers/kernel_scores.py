"""The binary dual's gradient recomputed from alpha alone, and kernel rows as the compiled loops see them,
from the row cache a solver run owns (:class:`KernelRowCache`, made by :func:`row_cache`).

Below :mod:`~svmteach.solvers.base` (it imports no solver), so that the contract's rounding bound, SMO and
dual coordinate ascent share one definition.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import objectives as obj
from ..backend import is_numpy, to_numpy
from ..kernels import gram, kernel_params
from ..validation import check_positive
from .numba_kernel_rows import get_row
from .numba_kernel_rows import scores as row_scores

#: The default size of the kernel-row cache, in MB (LIBSVM's ``-m`` default).
CACHE_SIZE = 200.0


class KernelRowCache(NamedTuple):
    """Rows of a binary problem's kernel matrix, at most ``cache_size`` MB of them, kept for the compiled loops.

    Made by :func:`row_cache` for a solver run and carried in its states; filled and read by
    :mod:`svmteach.solvers.numba_kernel_rows`.  A row depends on X and the kernel only, so a warm start
    on the same X and kernel (another C) takes over the cache.

    Attributes
    ----------
    X : (n, d) float64, the problem's points;  sqnorm : (n,) float64, their squared norms;
    params : (5,) float64, :func:`~svmteach.kernels.kernel_params` of the kernel;
    buffer : (m, n) float64, slot s holds row ``owner[s]`` (slot i holds row i when m = n);
    slot : (n,) int64, the slot of row i or -1;  owner : (m,) int64, the row in slot s or -1;
    stamp : (m,) int64, the last use of slot s;  clock : (1,) int64, the number of rows asked for;
    scratch : (3, n) float64, where a row's computation works.
    """

    X: np.ndarray
    sqnorm: np.ndarray
    params: np.ndarray
    buffer: np.ndarray
    slot: np.ndarray
    owner: np.ndarray
    stamp: np.ndarray
    clock: np.ndarray
    scratch: np.ndarray

    @staticmethod
    def rows_for(n: int, cache_size: float) -> int:
        """How many rows of n float64 numbers ``cache_size`` MB hold: at least 2 (a step holds two), at most n."""
        return int(min(n, max(2, (cache_size * 2**20) // (8 * n))))

    @classmethod
    def make(cls, X, kernel, cache_size: float = CACHE_SIZE) -> KernelRowCache:
        """An empty cache of :meth:`rows_for` ``(n, cache_size)`` rows for the NumPy ``X`` and ``kernel``."""
        n = X.shape[0]
        m = cls.rows_for(n, cache_size)
        return cls(X=X, sqnorm=np.einsum("ij,ij->i", X, X), params=kernel_params(kernel),
                   buffer=np.empty((m, n), dtype=np.float64), slot=np.full(n, -1, dtype=np.int64),
                   owner=np.full(m, -1, dtype=np.int64), stamp=np.zeros(m, dtype=np.int64),
                   clock=np.zeros(1, dtype=np.int64), scratch=np.empty((3, n), dtype=np.float64))

    @property
    def have(self):
        """(n,) bool: which rows are in the cache now."""
        return self.slot >= 0

    @property
    def size_mb(self) -> float:
        """The rows' memory in MB."""
        return self.buffer.nbytes / 2**20


def check_cache_size(cache_size, name: str = "cache_size") -> float:
    """Return ``cache_size`` (MB of kernel rows) as a positive finite float, or raise naming ``name``."""
    return check_positive(cache_size, name)


def row_cache(problem, cache_size: float = CACHE_SIZE, reuse=None):
    """The kernel-row cache of a run on ``problem``: ``reuse`` (a warm start's) when it holds rows of the same X and
    kernel and as many of them, else an empty :class:`KernelRowCache` of ``cache_size`` MB; None off NumPy."""
    if not is_numpy(problem.xp):
        return None
    if (reuse is not None and reuse.X is problem.X and reuse.params.tolist() == kernel_params(problem.kernel).tolist()
            and reuse.buffer.shape[0] == KernelRowCache.rows_for(problem.n_samples, cache_size)):
        return reuse
    return KernelRowCache.make(problem.X, problem.kernel, cache_size)


#: Off NumPy, the exact gradient evaluates kernel rows of at most this many support vectors at a time.
EXACT_BLOCK = 256


def exact_gradient(problem, alpha, rows=None):
    """The dual gradient :math:`g = \\mathbf 1 - Q\\alpha` recomputed from ``alpha`` alone, in float64.

    :math:`g_t = 1 - y_t f_t` with :math:`f_t = \\sum_s \\alpha_s y_s k(x_s, x_t)` over the support
    vectors, free of a cached gradient's rounding.  Linear kernel: :math:`f = X w`,
    :math:`w = X^\\top (\\alpha \\circ y)`.  Another kernel reads the support vectors' rows from ``rows``
    (None: a new cache of :data:`CACHE_SIZE`), or off NumPy computes them in blocks; never all of K.
    """
    xp = problem.xp
    if problem.kernel.is_linear:
        return 1.0 - problem.y * obj.scores(problem, alpha)
    coef = alpha * problem.y
    support = np.flatnonzero(to_numpy(alpha) != 0)
    if is_numpy(xp):
        return 1.0 - problem.y * row_scores(row_cache(problem) if rows is None else rows, support, coef)
    f = xp.zeros(problem.n_samples, dtype=xp.float64)
    for s in range(0, support.size, EXACT_BLOCK):
        rows = xp.asarray(support[s : s + EXACT_BLOCK])
        f = f + xp.take(coef, rows) @ gram(xp.take(problem.X, rows, axis=0), problem.X, problem.kernel)
    return 1.0 - problem.y * f


def kernel_row(problem, i, rows):
    """Row i of the kernel matrix, (n,): a copy of the row in the run's row cache ``rows`` (the compiled loop's
    numbers), or :meth:`~svmteach.problems.BinaryProblem.kernel_row` without one (off NumPy)."""
    if rows is not None:
        return np.array(get_row(rows, int(i)))
    return problem.kernel_row(i)

