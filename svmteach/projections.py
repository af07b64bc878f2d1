"""Projections and exact block solvers used by the multiclass duals, batched over rows.

- :func:`project_simplex_sort` and :func:`project_simplex_bisect`: the Euclidean
  projection of each row of ``V`` onto the simplex :math:`\\{\\beta \\ge 0, \\mathbf 1^\\top \\beta = z\\}`
  (Held et al. 1974; Duchi et al. 2008).  Sorting is exact in O(k log k); bisection
  uses only comparisons and sums, which suits a GPU.
- :func:`ww_block_solve`: the exact Weston-Watkins block subproblem (Wang and Scott, 2021)

  .. math::

      \\min_{0 \\le \\beta \\le C} \\tfrac12 \\|\\beta\\|^2 + \\tfrac12 (\\mathbf 1^\\top \\beta)^2 - u^\\top \\beta .

  Its KKT conditions give :math:`\\beta_j = \\operatorname{clip}(u_j - t, 0, C)` with
  :math:`t = \\mathbf 1^\\top \\beta`, so t is the root of the increasing, piecewise linear
  :math:`\\psi(t) = t - \\sum_j \\operatorname{clip}(u_j - t, 0, C)`, whose breakpoints
  are :math:`u_j - C` and :math:`u_j`.  Sorting them and sweeping once finds the
  piece that holds the root: O(k log k).

All functions take 2-D arrays of rows (any array-API namespace) and return new arrays;
the ``*_row`` functions are the compiled one-row versions the CPU fast paths call.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .backend import array_namespace, cumulative_sum


def _check_rows(V, name):
    if V.ndim != 2:
        raise ValueError(f"{name} must be 2-D (one problem per row), got shape {V.shape}")


def project_simplex_sort(V, z):
    """Project each row of ``V`` (shape (r, k)) onto the simplex of mass ``z`` (scalar or (r,)), by sorting."""
    xp = array_namespace(V)
    _check_rows(V, "V")
    r, k = V.shape
    z = xp.reshape(xp.asarray(z, dtype=V.dtype), (-1, 1)) if not isinstance(z, (int, float)) else z
    U = -xp.sort(-V, axis=1)  # descending
    css = cumulative_sum(xp, U, axis=1) - z
    ind = xp.arange(1, k + 1, dtype=V.dtype)[None, :]
    cond = U - css / ind > 0
    rho = xp.sum(xp.astype(cond, xp.int64), axis=1)  # the support size (at least 1 for z > 0)
    idx = xp.reshape(rho - 1, (-1, 1))
    theta = xp.take_along_axis(css, idx, axis=1) / xp.reshape(xp.astype(rho, V.dtype), (-1, 1))
    return xp.maximum(V - theta, 0.0)


def project_simplex_bisect(V, z, n_iter: int = 60):
    """The same projection by bisection on the threshold, then an exact final step.

    ``theta`` solves :math:`\\sum_m \\max(v_m - \\theta, 0) = z` and lies in
    :math:`[\\min v - z/k, \\max v]`; after ``n_iter`` halvings the support
    :math:`\\{v_m > \\theta\\}` is known and theta is recomputed from it exactly.
    """
    xp = array_namespace(V)
    _check_rows(V, "V")
    r, k = V.shape
    z = xp.reshape(xp.asarray(z, dtype=V.dtype), (-1, 1)) if not isinstance(z, (int, float)) else z
    lo = xp.min(V, axis=1, keepdims=True) - z / k
    hi = xp.max(V, axis=1, keepdims=True)
    for _ in range(n_iter):
        mid = 0.5 * (lo + hi)
        mass = xp.sum(xp.maximum(V - mid, 0.0), axis=1, keepdims=True)
        too_much = mass > z
        lo = xp.where(too_much, mid, lo)
        hi = xp.where(too_much, hi, mid)
    support = V > lo  # theta lies in [lo, hi]: these entries stay positive
    count = xp.sum(xp.astype(support, V.dtype), axis=1, keepdims=True)
    theta = (xp.sum(xp.where(support, V, 0.0), axis=1, keepdims=True) - z) / count
    return xp.maximum(V - theta, 0.0)


@njit(cache=True)
def project_simplex_row(v, z, out):
    """One row of :func:`project_simplex_sort`, compiled: writes the projection of ``v`` into ``out``."""
    u = -np.sort(-v)
    css = 0.0
    theta = 0.0
    for j in range(u.shape[0]):
        css += u[j]
        t = (css - z) / (j + 1)
        if u[j] - t > 0:
            theta = t
    for j in range(v.shape[0]):
        out[j] = max(v[j] - theta, 0.0)


@njit(cache=True)
def ww_block_row(u, C, out, points, order):
    """Solve ``min 1/2|b|^2 + 1/2(1'b)^2 - u'b`` on ``[0, C]^m`` for one row; returns t = 1'b.

    ``points`` (2m floats) and ``order`` (2m ints) are work space, so that a loop over
    many rows allocates nothing.  The sweep: below every breakpoint all coordinates
    sit at C.  Passing :math:`u_j - C` frees coordinate j, passing :math:`u_j` sends it
    to 0.  On each piece :math:`\\psi(t) = t - (n_C C + \\sum_{free} u_j - n_{free} t)`;
    the first breakpoint where psi is non-negative closes the piece that holds the root.
    """
    m = u.shape[0]
    for j in range(m):
        points[j] = u[j] - C  # coordinate j leaves C
        points[m + j] = u[j]  # coordinate j reaches 0
    _argsort_small(points, order)
    n_C = m
    n_free = 0
    s_free = 0.0
    found = False
    for q in order:
        b = points[q]
        if b - (n_C * C + s_free - n_free * b) >= 0.0:
            found = True
            break
        j = q % m
        if q < m:  # leaves C, becomes free
            n_C -= 1
            n_free += 1
            s_free += u[j]
        else:  # free coordinate reaches 0
            n_free -= 1
            s_free -= u[j]
    # root of t = n_C C + s_free - n_free t on the piece found (or past every breakpoint: t = 0)
    t = (n_C * C + s_free) / (1.0 + n_free) if found else 0.0
    total = 0.0
    for j in range(m):
        out[j] = min(max(u[j] - t, 0.0), C)
        total += out[j]
    return total


@njit(cache=True)
def _argsort_small(values, order):
    """Stable argsort into ``order``: insertion sort for the few breakpoints of a block, else mergesort."""
    n = values.shape[0]
    if n > 64:
        order[:] = np.argsort(values, kind="mergesort")
        return
    for a in range(n):
        order[a] = a
    for a in range(1, n):
        key = order[a]
        v = values[key]
        b = a - 1
        while b >= 0 and values[order[b]] > v:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = key


def ww_block_solve(U, C):
    """Solve the Weston-Watkins block problem for every row of ``U`` (shape (r, m)); returns (r, m).

    Vectorised over rows: the breakpoints of each row are sorted, psi is evaluated
    at every breakpoint with cumulative sums, and the piece holding the root is
    read off where psi first becomes non-negative.
    """
    xp = array_namespace(U)
    _check_rows(U, "U")
    r, m = U.shape
    points = xp.concat([U - C, U], axis=1)  # (r, 2m)
    order = xp.argsort(points, axis=1)
    pts = xp.take_along_axis(points, order, axis=1)
    leaves_C = order < m  # event: a coordinate leaves C (else: one reaches 0)
    uval = xp.take_along_axis(xp.concat([U, U], axis=1), order, axis=1)
    one = xp.ones_like(pts)
    # state *after* each event, as cumulative sums
    d_nC = xp.where(leaves_C, -one, 0.0)
    d_free = xp.where(leaves_C, one, -one)
    d_s = xp.where(leaves_C, uval, -uval)
    nC_after = m + cumulative_sum(xp, d_nC, axis=1)
    free_after = cumulative_sum(xp, d_free, axis=1)
    s_after = cumulative_sum(xp, d_s, axis=1)
    # state *before* each event: shift right, starting from (all at C, none free)
    zeros = xp.zeros((r, 1), dtype=U.dtype)
    nC_before = xp.concat([zeros + m, nC_after[:, :-1]], axis=1)
    free_before = xp.concat([zeros, free_after[:, :-1]], axis=1)
    s_before = xp.concat([zeros, s_after[:, :-1]], axis=1)
    psi = pts - (nC_before * C + s_before - free_before * pts)
    nonneg = psi >= 0.0
    has_root = xp.any(nonneg, axis=1, keepdims=True)
    first = xp.argmax(xp.astype(nonneg, xp.int32), axis=1, keepdims=True)
    nC = xp.take_along_axis(nC_before, first, axis=1)
    nf = xp.take_along_axis(free_before, first, axis=1)
    sf = xp.take_along_axis(s_before, first, axis=1)
    t = xp.where(has_root, (nC * C + sf) / (1.0 + nf), 0.0)
    return xp.clip(U - t, 0.0, C)
