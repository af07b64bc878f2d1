"""Shark's greedy coordinate moves on the Weston-Watkins block, compiled: a row kernel of the
:mod:`~svmteach.losses.row_kernels` contract that a solver (:class:`~svmteach.solvers.ww_shark.WWShark`), not a
loss, owns; the model moves as for the exact Weston-Watkins block (its ``coef``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..losses import weston_watkins
from ..losses.row_kernels import FASTMATH, RowKernels, at_rest, box_violation


@njit(cache=True, fastmath=FASTMATH, inline="always", _nrt=False)
def block(s, a, y, q, C, params, rest, look, scratch, picture):
    """Shark's moves on sample i's Weston-Watkins block, :func:`shark_inner` from the negative gradient
    :math:`1 - M (s_y - s_m)`, in at most ``max_inner`` moves to the inner tolerance (``params``).
    Picture: that gradient; ``scratch``'s record, when not empty, each move."""
    M, inner_tol, max_inner = params
    margin, shrink, _ = rest
    work, record = scratch[0], scratch[2]
    k = s.shape[0]
    g = work[0, :k]
    violation = 0.0
    for m in range(k):
        g[m] = 1.0 - M * (s[y] - s[m])  # the negative gradient -d f / d alpha_im
        if m != y:
            violation = max(violation, box_violation(-g[m], a[m], C))
    g[y] = 0.0
    if picture.shape[0] > 0:
        for m in range(k):
            picture[0, m] = g[m]
    if shrink and at_rest(g, a, y, -1.0, margin, C, look, True):
        return violation, -1
    moves = shark_inner(g, a, y, q, M, C, max_inner, inner_tol, record)
    total = 0.0
    for m in range(k):
        if m != y:
            total += a[m]
    a[y] = -total  # alpha_{i y_i} = -1'beta from the entries themselves, not the moves' running sum: a row
    # whose entries all came back to 0 is exactly 0 (at rest), whatever rounding the moves left
    return violation, moves


@njit(cache=True, _nrt=False)
def shark_inner(g, a_i, y, q, M, C, max_inner, inner_tol, record):
    """Shark's inner loop on one sample, in place on ``g`` (negative gradient) and ``a_i``, in the box
    [0, ``C``]: the coordinate of largest KKT violation is moved to its greedy step, clipped, until the
    largest violation is below ``inner_tol`` or ``max_inner`` moves were made.

    Returns the number of moves; when ``record`` is a (max_inner, k + 3) array each
    row holds the move's j, m unclipped, m, then the gradient after it.
    """
    k = g.shape[0]
    curv = 2.0 * M * M * q  # d^2 f / d m^2 along (e_j - e_y)
    for it in range(max_inner):
        idx = -1
        kkt = 0.0
        for c in range(k):
            if c == y:
                continue
            if g[c] > kkt and a_i[c] < C:
                kkt = g[c]
                idx = c
            elif -g[c] > kkt and a_i[c] > 0.0:
                kkt = -g[c]
                idx = c
        if idx < 0 or kkt < inner_tol:
            return it
        if curv > 0.0:
            m_unc = g[idx] / curv
        else:  # zero row: the dual is linear along the move, go to the bound
            m_unc = np.inf if g[idx] > 0 else -np.inf
        m = m_unc
        a_new = a_i[idx] + m
        if a_new <= 0.0:
            m = -a_i[idx]
            a_new = 0.0
        elif a_new >= C:
            m = C - a_i[idx]
            a_new = C
        a_i[idx] = a_new
        a_i[y] -= m
        dg = M * M * m * q
        for c in range(k):
            if c != y:
                g[c] -= dg
        g[idx] -= dg
        if record.shape[0] > 0:
            record[it, 0] = idx
            record[it, 1] = m_unc
            record[it, 2] = m
            for c in range(k):
                record[it, 3 + c] = g[c]
    return max_inner


#: Shark's row kernels: its moves, and the Weston-Watkins model change.
KERNELS = RowKernels(block=block, coef=weston_watkins.coef)
