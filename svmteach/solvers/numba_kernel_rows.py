"""Rows of a binary problem's kernel matrix, computed when first asked for and kept in a bounded cache.

A leaf of compiled functions (it imports nothing from the package).  A kernel method's step needs
one or two rows of :math:`K_{it} = k(x_i, x_t)` and many rows are never asked for, so K is never
formed: a row is computed in O(nd) when first needed and kept while there is room, as LIBSVM's
``-m`` cache does, but in float64 (float32's rounding can move the optimum of raw features).

The cache
---------
A :class:`svmteach.solvers.kernel_scores.KernelRowCache`, NumPy arrays allocated in Python (so
``tracemalloc`` sees them), made by a run's ``init`` (:func:`~svmteach.solvers.kernel_scores.row_cache`)
and carried by its states; a warm start on the same X and kernel keeps it.  Its arrays:

``X`` : (n, d) float64, the problem's points (read only);
``sqnorm`` : (n,) float64, :math:`\\|x_i\\|^2` (for the distance kernels);
``params`` : (5,) float64, the kernel, :func:`svmteach.kernels.kernel_params`;
``buffer`` : (m, n) float64, slot s holds row ``owner[s]`` of K;
``slot`` : (n,) int64, the slot holding row i, -1 when row i is not in the cache;
``owner`` : (m,) int64, the row slot s holds, -1 when it is free;
``stamp`` : (m,) int64, when slot s was last asked for;  ``clock`` : (1,) int64, the count of requests.

``m`` is as many rows as ``cache_size`` MB hold, at least 2, at most n; when m = n slot i holds
row i, otherwise a new row replaces the least recently used one.

Compiled functions
------------------
:func:`get_row` ``(cache, i)``
    Row i of K, shape (n,): a view into ``buffer``, computed on a miss.  The views of the m
    rows asked for last stay valid (m >= 2: a step may hold rows i and j); copy a row that must
    outlive later requests.
:func:`scores` ``(cache, support, coef)``
    :math:`f = \\sum_{s \\in \\text{support}} c_s K_{s:}`, shape (n,), the decision values
    without bias, from the cached rows and the others computed once (the cache is left as it was).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def _squared_distances_to(X, sq, dots, i, cancellation, out):
    """Write :math:`\\|x_i - x_t\\|^2` for every t into ``out``, as :func:`svmteach.kernels.squared_distances`
    computes them: ``|x_i|^2 + |x_t|^2 - 2 x_i'x_t``, from explicit differences where that cancels, 0 for t = i.
    (Two passes: the first has no branch, so that it vectorises.)"""
    n = X.shape[0]
    for t in range(n):
        out[t] = max(sq[i] + sq[t] - 2.0 * dots[t], 0.0)
    for t in range(n):
        if out[t] < cancellation * (sq[i] + sq[t]):  # near-duplicates: the expansion lost its digits
            s = 0.0
            for k in range(X.shape[1]):
                diff = X[i, k] - X[t, k]
                s += diff * diff
            out[t] = s
    out[i] = 0.0


@njit(cache=True)
def _compute_row(X, sq, params, i, out):
    """Write :math:`k(x_i, x_t)` for every t into ``out``: one matrix-vector product, then the kernel's
    function; the formulas are those of :mod:`svmteach.kernels`, distances included."""
    kind = int(params[0])
    gamma, degree, coef0 = params[1], params[2], params[3]
    dots = X @ X[i]
    n = X.shape[0]
    if kind == 0:
        for t in range(n):
            out[t] = dots[t]
    elif kind == 1:
        for t in range(n):
            out[t] = (gamma * dots[t] + coef0) ** degree
    else:
        _squared_distances_to(X, sq, dots, i, params[4], out)
        if kind == 2:
            for t in range(n):
                out[t] = math.exp(-gamma * out[t])
        else:
            for t in range(n):
                out[t] = math.exp(-gamma * math.sqrt(out[t]))


# A hit refreshes the slot's stamp; a miss takes slot i when every row fits, else a free slot,
# else the least recently used one (its row leaves the cache), and computes the row there.
@njit(cache=True)
def get_row(cache, i):
    """Row i of the kernel matrix, shape (n,), a view into ``cache.buffer`` (computed and kept on a miss)."""
    clock = cache.clock[0] + 1
    cache.clock[0] = clock
    s = cache.slot[i]
    if s < 0:
        m, n = cache.buffer.shape
        if m == n:
            s = i
        else:
            s = 0
            for t in range(m):  # a free slot, else the oldest stamp
                if cache.owner[t] < 0:
                    s = t
                    break
                if cache.stamp[t] < cache.stamp[s]:
                    s = t
        old = cache.owner[s]
        if old >= 0:
            cache.slot[old] = -1
        _compute_row(cache.X, cache.sqnorm, cache.params, i, cache.buffer[s])
        cache.owner[s] = i
        cache.slot[i] = s
    cache.stamp[s] = clock
    return cache.buffer[s]


@njit(cache=True)
def scores(cache, support, coef):
    """:math:`f = \\sum_{s \\in \\text{support}} c_s K_{s:}`: the rows the cache holds are read as they are, the
    others computed into one scratch row and not kept, so that a sum over more support vectors than the cache
    holds neither evicts the run's working rows nor computes a row twice (an LRU fed rows in index order would)."""
    n = cache.X.shape[0]
    f = np.zeros(n)
    scratch = np.empty(n)
    for s in support:
        c = coef[s]
        k = cache.slot[s]
        if k >= 0:
            row = cache.buffer[k]
        else:
            _compute_row(cache.X, cache.sqnorm, cache.params, s, scratch)
            row = scratch
        for t in range(n):
            f[t] += c * row[t]
    return f
