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
``stamp`` : (m,) int64, when slot s was last asked for;  ``clock`` : (1,) int64, the count of requests;
``scratch`` : (3, n) float64, the work space of a row's computation.

``m`` is as many rows as ``cache_size`` MB hold, at least 2, at most n; when m = n slot i holds
row i, otherwise a new row replaces the least recently used one.

Compiled functions
------------------
:func:`get_row` ``(cache, i)``
    Row i of K, shape (n,): a view into ``buffer``, computed on a miss (:func:`row_slot`: its slot).  The views of the m
    rows asked for last stay valid (m >= 2: a step may hold rows i and j); copy a row that must
    outlive later requests.
:func:`scores` ``(cache, support, coef)``
    :math:`f = \\sum_{s \\in \\text{support}} c_s K_{s:}`, shape (n,), the decision values
    without bias, from the cached rows and the others computed once (the cache is left as it was).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.extending import overload


#: The compiled loops may fuse a product and a sum into one multiply-add where the CPU has one (one rounding for
#: two: the same or better; about 1.6x faster exps), but not reorder sums: the exps' reductions rely on their order.
CONTRACT = {"contract"}


# exp in float64, written so that the compiler can vectorise it: x = k ln 2 + r with |r| <= ln(2)/2 (Cody and
# Waite's two-part ln 2, so that k ln 2 is exact), e^r by its Taylor polynomial to r^13 (remainder below 1e-17
# relative), and 2^k built from its bits in two factors (2^k1 normal, 2^(k - k1) down into the subnormals).
# Within 1 ulp of libm's exp on [-746, 0] (tests/test_kernel_cache.py), about twice as fast on a row: libm's
# exp is a call per number that no loop vectorises, and the gaussian rows are most of a kernel fit's time.
LOG2E = 1.4426950408889634
LN2_HI = 0.6931471803691238  # ln 2 to 32 bits: k * LN2_HI is exact for |k| < 2^21
LN2_LO = 1.9082149292705877e-10  # ln 2 - LN2_HI
ROUND = 6755399441055744.0  # 1.5 2^52: (x + ROUND) - ROUND is x rounded to an integer, for |x| < 2^51
BIAS = 4503599627371519.0  # 2^52 + 1023: k + BIAS has the bits of 2^52 with k + 1023 in its low bits
BIAS_BITS = 0x4330000000000000  # the bits of 2^52


@njit(cache=True, fastmath=CONTRACT)
def exp_in_place(x, s1, s2):
    """``x[t] = exp(x[t])`` for ``x <= 0`` (below -745.5 the result is 0; NaN stays NaN); ``s1, s2`` scratch
    of x's length."""
    n = x.shape[0]
    for t in range(n):
        z = -745.5 if x[t] < -745.5 else x[t]
        k = (z * LOG2E + ROUND) - ROUND
        r = (z - k * LN2_HI) - k * LN2_LO
        p = 1.0 / 6227020800.0  # 1/13!, then Horner down to 1
        p = p * r + 1.0 / 479001600.0
        p = p * r + 1.0 / 39916800.0
        p = p * r + 1.0 / 3628800.0
        p = p * r + 1.0 / 362880.0
        p = p * r + 1.0 / 40320.0
        p = p * r + 1.0 / 5040.0
        p = p * r + 1.0 / 720.0
        p = p * r + 1.0 / 120.0
        p = p * r + 1.0 / 24.0
        p = p * r + 1.0 / 6.0
        p = p * r + 0.5
        p = p * r + 1.0
        p = p * r + 1.0
        x[t] = p
        k1 = k if k > -1022.0 else -1022.0
        s1[t] = k1 + BIAS
        s2[t] = (k - k1) + BIAS
    b1 = s1.view(np.int64)
    b2 = s2.view(np.int64)
    for t in range(n):  # the bits of 2^k1 and 2^(k - k1): exponent field k + 1023, mantissa 0
        b1[t] = (b1[t] - BIAS_BITS) << 52
        b2[t] = (b2[t] - BIAS_BITS) << 52
    for t in range(n):
        x[t] = (x[t] * s1[t]) * s2[t]


# exp in float32, for the working sets' float32 rows: the same reduction in float32 arithmetic (Cephes' two-part
# ln 2, exact for |k| < 2^8), e^r by its Taylor polynomial to r^7 (remainder below 6e-9 relative, under half an
# ulp), 2^k from its bits in one factor (k >= -126: normal); below -87 (where exp is under 1.7e-38) the result is
# 0.  Every constant is a float32, so that no step promotes to float64 and each pass runs eight lanes wide.
F32 = np.float32
LOG2E_32, LN2_HI_32, LN2_LO_32 = F32(1.4426950408889634), F32(0.693359375), F32(-2.12194440e-4)
ROUND_32 = F32(12582912.0)  # 1.5 2^23: (x + ROUND_32) - ROUND_32 is x rounded to an integer, for |x| < 2^22
BIAS_32 = F32(8388735.0)  # 2^23 + 127: k + BIAS_32 has the bits of 2^23 with k + 127 in its low bits
BIAS_BITS_32 = np.int32(0x4B000000)  # the bits of 2^23
LOW_32, ZERO_32 = F32(-87.0), F32(0.0)
TAYLOR_32 = tuple(F32(1.0 / math.factorial(j)) for j in range(8))  # 1/0!, ..., 1/7!


@njit(cache=True, fastmath=CONTRACT)
def exp32_in_place(x, s1):
    """``x[t] = exp(x[t])`` for float32 ``x <= 0`` (0 below -87; NaN stays NaN); ``s1`` float32 scratch of x's
    length.  Within a few float32 ulps of the exact value (tests/test_kernel_cache.py)."""
    n = x.shape[0]
    c0, c1, c2, c3, c4, c5, c6, c7 = TAYLOR_32
    for t in range(n):
        z = LOW_32 if x[t] < LOW_32 else x[t]
        k = (z * LOG2E_32 + ROUND_32) - ROUND_32
        r = (z - k * LN2_HI_32) - k * LN2_LO_32
        p = ((((((c7 * r + c6) * r + c5) * r + c4) * r + c3) * r + c2) * r + c1) * r + c0
        s1[t] = k + BIAS_32
        x[t] = ZERO_32 if x[t] < LOW_32 else p
    bits = s1.view(np.int32)
    for t in range(n):  # the bits of 2^k: exponent field k + 127, mantissa 0
        bits[t] = (bits[t] - BIAS_BITS_32) << 23
    for t in range(n):
        x[t] = x[t] * s1[t]


def exp_rows(x, s1, s2):
    """exp in place in ``x``'s precision: :func:`exp32_in_place` for float32, else :func:`exp_in_place` (chosen
    when compiled)."""


@overload(exp_rows)
def _exp_rows_typed(x, s1, s2):
    if x.dtype == types.float32:
        return lambda x, s1, s2: exp32_in_place(x, s1)
    return lambda x, s1, s2: exp_in_place(x, s1, s2)


#: ``columns`` of :func:`_kernel_of_dots` meaning every point, in order (a constant: no allocation a row).
EVERY = np.zeros(0, dtype=np.int64)


def in_row_precision(x, row):
    """The number ``x`` in ``row``'s precision (float32 or float64; chosen when compiled), so that a float32 row's
    arithmetic stays float32 and each pass runs eight lanes wide."""


@overload(in_row_precision)
def _in_row_precision_typed(x, row):
    if row.dtype == types.float32:
        return lambda x, row: np.float32(x)
    return lambda x, row: np.float64(x)


@njit(cache=True, fastmath=CONTRACT)
def _kernel_of_dots(X, i, sq_i, sq, columns, params, row, s1, s2):
    """``row`` holds :math:`x_i' x_{j_t}`, the points :math:`j_t` = ``columns[t]`` (every point in order when
    ``columns`` is :data:`EVERY`); written over with :math:`k(x_i, x_{j_t})`, the formulas of
    :mod:`svmteach.kernels`: distances as ``|x_i|^2 + |x_j|^2 - 2 x_i'x_j`` (``sq_i``, ``sq``: the squared norms
    of x_i and of the points ``columns``, ``sq`` in the row's dtype), from explicit differences in float64 where
    that cancels (near-duplicates), 0 from a point to itself; the arithmetic in the row's precision, exp by
    :func:`exp_rows` (``s1``, ``s2``: scratch of the row's length and dtype).  Each pass but the rare
    explicit differences is without a branch, so that it vectorises."""
    kind = int(params[0])
    gamma, degree, coef0 = in_row_precision(params[1], row), params[2], in_row_precision(params[3], row)
    m = row.shape[0]
    every = columns.shape[0] == 0
    if kind == 1:
        for t in range(m):
            row[t] = (gamma * row[t] + coef0) ** degree
    elif kind >= 2:
        s_i, cancellation = in_row_precision(sq_i, row), in_row_precision(params[4], row)
        two, zero = in_row_precision(2.0, row), in_row_precision(0.0, row)
        suspect = 0
        for t in range(m):
            d = max(s_i + sq[t] - two * row[t], zero)
            suspect += d < cancellation * (s_i + sq[t])  # the expansion lost its digits
            row[t] = d
        for t in range(m if suspect else 0):
            if row[t] < cancellation * (s_i + sq[t]):
                j = t if every else columns[t]
                d = 0.0
                for c in range(X.shape[1]):
                    diff = X[i, c] - X[j, c]
                    d += diff * diff
                row[t] = d
        if every:
            row[i] = zero
        if kind == 2:
            for t in range(m):
                row[t] = -gamma * row[t]
        else:
            for t in range(m):
                row[t] = -gamma * math.sqrt(row[t])
        exp_rows(row, s1, s2)


@njit(cache=True, fastmath=CONTRACT)
def _compute_row(X, sq, params, i, out, scratch):
    """Write :math:`k(x_i, x_t)` for every t into ``out``: one matrix-vector product, then the kernel's
    function (:func:`_kernel_of_dots`).  ``scratch``: (3, n) float64 work space."""
    np.dot(X, X[i], out)
    _kernel_of_dots(X, i, sq[i], sq, EVERY, params, out, scratch[1], scratch[2])


# A hit refreshes the slot's stamp; a miss takes slot i when every row fits, else a free slot,
# else the least recently used one (its row leaves the cache), and computes the row there.
@njit(cache=True, fastmath=CONTRACT, _nrt=True)
def row_slot(cache, i):
    """The slot of ``cache.buffer`` that holds row i of the kernel matrix, computed and kept there on a miss.  It
    returns no array, and keeps numba's runtime (its row's BLAS product needs it) even when called from a loop
    compiled without it, which would pass that on (``numba_multiclass.epoch_visits``)."""
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
        _compute_row(cache.X, cache.sqnorm, cache.params, i, cache.buffer[s], cache.scratch)
        cache.owner[s] = i
        cache.slot[i] = s
    cache.stamp[s] = clock
    return s


@njit(cache=True, inline="always")
def get_row(cache, i):
    """Row i of the kernel matrix, shape (n,), a view into ``cache.buffer`` (computed and kept on a miss)."""
    return cache.buffer[row_slot(cache, i)]


@njit(cache=True, fastmath=CONTRACT)
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
            _compute_row(cache.X, cache.sqnorm, cache.params, s, scratch, cache.scratch)
            row = scratch
        for t in range(n):
            f[t] += c * row[t]
    return f


@njit(cache=True, fastmath=CONTRACT)
def rows_from_dots(X, sq, params, chosen, columns, offset, out, scratch):
    """``out`` (b, m) holds the products :math:`x_{c_r}' x_{j_t}` of the points ``chosen`` (b,) and ``columns``
    (m,) of ``X`` (one matrix product, BLAS-3); written over with :math:`k(x_{c_r}, x_{j_t})` plus ``offset``
    (:math:`B^2`) by :func:`_kernel_of_dots` (``sq``: the squared norms of the points ``columns``, in their
    order, in ``out``'s dtype; ``X`` float64).  ``out`` float64 or float32 (the kernel's arithmetic in that
    precision); ``scratch``: (2, m) of ``out``'s dtype."""
    for r in range(out.shape[0]):
        i = chosen[r]
        sq_i = 0.0
        for c in range(X.shape[1]):
            sq_i += X[i, c] * X[i, c]
        row = out[r]
        _kernel_of_dots(X, i, sq_i, sq, columns, params, row, scratch[0], scratch[1])
        if offset != 0.0:
            shift = in_row_precision(offset, row)
            for t in range(row.shape[0]):
                row[t] += shift
