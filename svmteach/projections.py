"""Projections and exact block solvers used by the multiclass duals, batched over rows.

- :func:`project_simplex_sort` and :func:`project_simplex_bisect`: the Euclidean
  projection of each row of ``V`` onto the simplex :math:`\\{\\beta \\ge 0, \\mathbf 1^\\top \\beta = z\\}`
  (Held et al. 1974; Duchi et al. 2008): sorting, exact in O(k log k), or bisection (for a GPU).
- :func:`ww_block_solve`: the exact Weston-Watkins block subproblem (Wang and Scott, 2021)

  .. math::

      \\min_{0 \\le \\beta \\le C} \\tfrac12 \\|\\beta\\|^2 + \\tfrac12 (\\mathbf 1^\\top \\beta)^2 - u^\\top \\beta .

  Its KKT conditions give :math:`\\beta_j = \\operatorname{clip}(u_j - t, 0, C)` with
  :math:`t = \\mathbf 1^\\top \\beta`, so t is the root of the increasing, piecewise linear
  :math:`\\psi(t) = t - \\sum_j \\operatorname{clip}(u_j - t, 0, C)`, whose breakpoints
  are :math:`u_j - C` and :math:`u_j`: one sorted sweep finds the root, O(k log k).

All take 2-D arrays of rows (any array-API namespace); the compiled one-row versions are in
:mod:`svmteach.losses.weston_watkins` and :mod:`svmteach.losses.crammer_singer` (their row kernels).
"""

from __future__ import annotations

import math

import numpy as np

from .backend import array_namespace, cumulative_sum


def _check_rows(V, name):
    """``V`` as a finite floating 2-D array of rows (a list becomes a NumPy array), or raise naming it."""
    if not hasattr(V, "shape"):
        try:
            V = np.asarray(V, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be a 2-D array of numbers, got {type(V).__name__}") from None
    xp = array_namespace(V)
    if V.ndim != 2:
        raise ValueError(f"{name} must be 2-D (one problem per row), got shape {V.shape}")
    if V.shape[1] < 1:
        raise ValueError(f"{name} must have at least one column, got shape {V.shape}")
    if V.dtype not in (xp.float32, xp.float64):
        V = xp.astype(V, xp.float64)
    if not bool(xp.all(xp.isfinite(V))):
        raise ValueError(f"{name} contains NaN or infinity")
    return V, xp


def _check_mass(xp, z, V, name="z"):
    """The simplex's mass: a positive finite scalar, or one per row as an (r, 1) array; else raise naming it."""
    if isinstance(z, bool):
        raise TypeError(f"{name} must be a positive number or one per row, got {z!r}")
    if isinstance(z, (int, float, np.integer, np.floating)):
        z = float(z)
        if not (math.isfinite(z) and z > 0):
            raise ValueError(f"{name} must be positive and finite, got {z!r}")
        return z
    z = xp.reshape(xp.asarray(z, dtype=V.dtype), (-1, 1))
    if z.shape[0] != V.shape[0]:
        raise ValueError(f"{name} must be a scalar or have one entry per row ({V.shape[0]}), got {z.shape[0]}")
    if not bool(xp.all(xp.isfinite(z) & (z > 0))):
        raise ValueError(f"{name} must be positive and finite in every row")
    return z


def project_simplex_sort(V, z, check: bool = True):
    """Project each row of ``V`` (shape (r, k)) onto the simplex of mass ``z`` (scalar or (r,)), by sorting.

    Each row is first shifted by its largest entry (which leaves the projection unchanged), so the
    largest entries are computed without cancellation.  ``V`` must be finite and 2-D with k >= 1, ``z``
    positive and finite; ``check=False`` skips those checks (for the solvers, on validated input).
    """
    if check:
        V, xp = _check_rows(V, "V")
        z = _check_mass(xp, z, V)
    else:
        xp = array_namespace(V)
    r, k = V.shape
    V = V - xp.max(V, axis=1, keepdims=True)  # max is now exactly 0
    U = -xp.sort(-V, axis=1)  # descending
    css = cumulative_sum(xp, U, axis=1) - z
    ind = xp.arange(1, k + 1, dtype=V.dtype)[None, :]
    cond = U - css / ind > 0  # j is in the support when u_j > (sum_{l <= j} u_l - z) / j
    # the largest entry is always in it (0 - (0 - z) = z > 0): at least 1 even where z underflows
    rho = xp.maximum(xp.sum(xp.astype(cond, xp.int64), axis=1), 1)
    idx = xp.reshape(rho - 1, (-1, 1))
    theta = xp.take_along_axis(css, idx, axis=1) / xp.reshape(xp.astype(rho, V.dtype), (-1, 1))
    return xp.maximum(V - theta, 0.0)


def project_simplex_bisect(V, z, n_iter: int = 60):
    """The same projection by bisection on the threshold, then exact steps on the support.

    ``theta`` solves :math:`\\sum_m \\max(v_m - \\theta, 0) = z`, in :math:`[\\max v - z, \\max v]`.  After
    ``n_iter`` halvings the lower end is at most theta; Michelot's step
    :math:`\\theta \\leftarrow (\\sum_S v - z) / |S|`, :math:`S = \\{v > \\theta\\}`, then rises to the exact
    theta in at most k steps.
    """
    V, xp = _check_rows(V, "V")
    z = _check_mass(xp, z, V)
    r, k = V.shape
    V = V - xp.max(V, axis=1, keepdims=True)
    lo = xp.zeros((r, 1), dtype=V.dtype) - z  # sum max(v - lo, 0) >= 0 - lo = z
    hi = xp.zeros((r, 1), dtype=V.dtype)
    for _ in range(n_iter):
        mid = 0.5 * (lo + hi)
        mass = xp.sum(xp.maximum(V - mid, 0.0), axis=1, keepdims=True)
        too_much = mass > z
        lo = xp.where(too_much, mid, lo)
        hi = xp.where(too_much, hi, mid)
    theta = lo
    for _ in range(k):  # Michelot: theta rises to the root; stops once the support is settled
        support = V > theta
        count = xp.sum(xp.astype(support, V.dtype), axis=1, keepdims=True)
        new = (xp.sum(xp.where(support, V, 0.0), axis=1, keepdims=True) - z) / count
        settled = bool(xp.all((V > new) == support))
        theta = new
        if settled:
            break
    return xp.maximum(V - theta, 0.0)


def ww_block_solve(U, C, check: bool = True):
    """Solve the Weston-Watkins block problem for every row of ``U`` (shape (r, m)); returns (r, m).

    ``C``: the box's bound, a number or one per row ((r,) or (r, 1); with ``check=False`` it may be 0).
    psi is evaluated at every sorted breakpoint by cumulative sums; the root lies where it first becomes
    non-negative.  ``check=False`` skips the input checks.
    """
    if check:
        U, xp = _check_rows(U, "U")
        C = _check_mass(xp, C, U, "C")
    else:
        xp = array_namespace(U)
    r, m = U.shape
    if getattr(C, "ndim", 0) == 1:
        C = xp.reshape(C, (-1, 1))  # one bound per row
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
    return xp.minimum(xp.maximum(U - t, 0.0), C)  # clip(u - t, 0, C)
