"""Weston-Watkins dual by Shark's coordinate steps (the blog post "The Weston-Watkins SVM dual problem", 2020; Shark's ``QpMcLinearWW``).

For sample i, with scores :math:`s = W x_i`, the negative gradient of the dual
(a minimisation) in coordinate :math:`j \\ne y_i` is (the blog post, 'Derivatives')

.. math::

    -\\frac{\\partial f}{\\partial \\alpha_{ij}} = 1 - M (s_{y_i} - s_j).

Moving :math:`\\alpha_{ij}` by m and :math:`\\alpha_{iy_i}` by -m (to stay feasible),
the dual changes by a parabola with curvature :math:`2 M^2 \\|x_i\\|^2`, so the greedy
step is :math:`m = -\\partial f / \\partial \\alpha_{ij} \\,/\\, (2 M^2 \\|x_i\\|^2)`
(the blog post, 'Greedy step size'), clipped so that :math:`\\alpha_{ij} \\in [0, C_i]`, the sample's
own bound (``problem.C_i``; C but for sample weights; :math:`C_i = 0` leaves nothing to move).
The step moves :math:`w_j` by :math:`-M m x_i` and :math:`w_{y_i}` by :math:`+M m x_i`,
so the negative gradient drops by :math:`2 M^2 m \\|x_i\\|^2` at j and by
:math:`M^2 m \\|x_i\\|^2` at every other :math:`t \\ne y_i` ('Computing the step vector').

The selection rule and inner loop are Shark's: for the visited sample, the
coordinate with the largest KKT violation (a positive negative-gradient with
:math:`\\alpha < C`, or a negative one with :math:`\\alpha > 0`) is stepped on, again and
again, until the largest violation is below ``inner_tol`` or ``10 k`` steps were
taken (Shark's ``MAXITER_MULTIPLIER``).  One solver step is one sample visit;
its inner moves are all in the state.  Shark itself uses M = 1/2; any M > 0 works.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..backend import to_numpy
from ..losses import WestonWatkins
from ..losses.base import EPOCH_FASTMATH, at_rest, box_violation
from ..rows import compiled_rows, row_axpy, row_dot
from .multiclass_base import MulticlassSolver, MulticlassState, replace_row, sample_arrays

MAXITER_MULTIPLIER = 10


class SharkMoves(NamedTuple):
    """The picture of one visit of :class:`WWShark` to a sample (empty before the first step).

    Attributes
    ----------
    y : int, the sample's class.
    grads : (n_moves + 1, k) the negative gradient before the first move and after each move
        (0 in the y column).
    moves_j : (n_moves,) int, the coordinate chosen by each move.
    moves_m_unclipped, moves_m : (n_moves,) the greedy step before and after clipping.
    delta : (k,) the total change of alpha_i.
    """

    y: int
    grads: np.ndarray
    moves_j: np.ndarray
    moves_m_unclipped: np.ndarray
    moves_m: np.ndarray
    delta: object


class WWSharkState(MulticlassState):
    """State of :class:`WWShark`: the fields of :class:`~svmteach.solvers.multiclass_base.MulticlassState`
    (n_iter, alpha, W, epoch, pos, perm, seed, i, primal, dual, gap, kkt, violation, block), with ``block`` the
    :class:`SharkMoves` of the last visit."""

    __slots__ = ()


@njit(cache=True)
def shark_inner(g, a_i, y, q, M, C, max_inner, inner_tol, record):
    """Shark's inner loop on one sample, in place on ``g`` (negative gradient) and ``a_i``, in the box
    [0, ``C``] (the sample's :math:`C_i`).

    Returns the number of moves; when ``record`` is a (max_inner, k + 3) array each
    row holds the move's j, m unclipped, m, then the gradient after it.
    """
    k = g.shape[0]
    curv = 2.0 * M * M * q  # d^2 f / d m^2 along (e_j - e_y)
    dg = 0.0
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
            m_unc = math.inf if g[idx] > 0 else -math.inf
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


class WWShark(MulticlassSolver):
    """Shark's greedy coordinate steps on the Weston-Watkins dual.

    Parameters
    ----------
    inner_tol : float
        A sample's inner loop stops once its largest KKT violation is below this (Shark uses
        0.1 x its stopping accuracy; here the run stops on the duality gap, and a larger
        value caps the gap it can reach: 1e-10 stalled at a relative gap of 2e-8).
    max_inner : int or None
        Most moves per sample visit; None means Shark's ``10 k``.
    random_state : int, Generator or None
    shrinking : bool
        Set aside, on the fast path, the samples whose block is 0 with every margin
        :math:`M (s_{y_i} - s_j) > 1` (:mod:`~svmteach.solvers.multiclass_base`); False visits every
        sample every epoch.
    """

    State = WWSharkState
    loss_class = WestonWatkins
    name = "shark"

    def __init__(self, inner_tol: float = 1e-12, max_inner=None, random_state=None, shrinking: bool = True):
        super().__init__(random_state, shrinking)
        self.inner_tol = float(inner_tol)
        if max_inner is not None and (int(max_inner) != max_inner or max_inner < 1):
            raise ValueError(f"max_inner must be a positive integer or None, got {max_inner!r}")
        self.max_inner = max_inner

    def _max_inner(self, problem):
        return MAXITER_MULTIPLIER * problem.k if self.max_inner is None else int(self.max_inner)

    def blank_block(self, problem):
        empty = np.zeros(0)
        return SharkMoves(y=-1, grads=np.zeros((0, problem.k)), moves_j=np.zeros(0, dtype=np.int64),
                          moves_m_unclipped=empty, moves_m=empty, delta=None)

    def update(self, problem, state, i):
        xp, M, k = problem.xp, problem.M, problem.k
        C = float(problem.C_i[i])  # the sample's box [0, C_i]
        x, q, yi, s = sample_arrays(problem, state, i)
        s = to_numpy(s)
        g = 1.0 - M * (s[yi] - s)  # negative gradient
        g[yi] = 0.0
        old = to_numpy(state.alpha[i, :]).astype(np.float64)
        a_i = old.copy()
        max_inner = self._max_inner(problem)
        record = np.zeros((max_inner, k + 3))
        g0 = g.copy()
        n_moves = shark_inner(g, a_i, yi, q, M, C, max_inner, self.inner_tol, record)
        rec = record[:n_moves]
        delta = xp.asarray(a_i - old)
        W = state.W - M * delta[:, None] * x[None, :]
        moves = SharkMoves(y=yi, grads=np.vstack([g0[None, :], rec[:, 3:]]), moves_j=rec[:, 0].astype(np.int64),
                           moves_m_unclipped=rec[:, 1].copy(), moves_m=rec[:, 2].copy(), delta=delta)
        return state._replace(alpha=replace_row(xp, state.alpha, i, xp.asarray(a_i)), W=W, block=moves)

    def shrink_floor(self) -> float:
        """Above ``inner_tol``: a visit stops once its block's violation is below it."""
        return max(super().shrink_floor(), 2.0 * self.inner_tol)

    def _epoch(self, problem, alpha, W, order, active, margin, classes=None):
        return _ww_shark_epoch(compiled_rows(problem.X), problem.sqnorm, problem.codes, problem.C_i,
                               float(problem.M), self._max_inner(problem), self.inner_tol, alpha, W, order, active, margin)


@njit(cache=True, fastmath=EPOCH_FASTMATH)
def _ww_shark_epoch(X, sqnorm, codes, C_i, M, max_inner, inner_tol, alpha, W, order, active, margin):
    """The step of :class:`WWShark` for every sample of ``order`` (sample i's box [0, ``C_i[i]``]), in place; returns the largest block
    KKT violation met (each block's before its moves, on the scale of ``WestonWatkins.kkt_violation``).
    When ``active`` is not empty, a sample at rest (as :func:`~svmteach.losses.base.at_rest`:
    alpha_i = 0 and every ``M (s_y - s_m) > 1 + margin``) is set aside there (False) and not stepped on
    (its moves would be none)."""
    k = W.shape[0]
    g = np.empty(k)
    a_i = np.empty(k)
    no_record = np.zeros((0, k + 3))
    worst = 0.0
    for i in order:
        y = codes[i]
        C = C_i[i]
        for m in range(k):
            g[m] = row_dot(X, i, W[m])  # scores first
        sy = g[y]
        for m in range(k):
            g[m] = 1.0 - M * (sy - g[m])  # the negative gradient -d f / d alpha_im
            a_i[m] = alpha[i, m]
            if m != y:
                worst = max(worst, box_violation(-g[m], a_i[m], C))
        g[y] = 0.0
        # at rest: alpha_i = 0 and every d f / d alpha_im = -g_m > margin (g is the negative gradient)
        if active.shape[0] > 0 and at_rest(g, alpha, i, y, -1.0, margin, C):
            active[i] = False
            continue
        n_moves = shark_inner(g, a_i, y, sqnorm[i], M, C, max_inner, inner_tol, no_record)
        if n_moves == 0:
            continue
        for j in range(k):
            dlt = a_i[j] - alpha[i, j]
            if dlt != 0.0:  # W <- W - M delta x_i'
                alpha[i, j] = a_i[j]
                row_axpy(X, i, -(M * dlt), W[j])
    return worst
