"""Weston-Watkins dual, one sample's block solved exactly per step (Wang and Scott, ICML 2021).

With the block :math:`\\beta = (\\alpha_{ij})_{j \\ne y_i}` of sample i and everything
else fixed, the dual (as a minimisation, seed 000) is, up to a constant,

.. math::

    \\tfrac{a}{2}\\bigl(\\|\\beta\\|^2 + (\\mathbf 1^\\top \\beta)^2\\bigr) - c^\\top \\beta, \\qquad
    a = M^2 \\|x_i\\|^2, \\quad c_j = 1 - M (s_{y_i} - s_j) + a (\\alpha_{ij} - \\alpha_{iy_i}),

with scores :math:`s = W x_i`, because :math:`\\alpha_{iy_i} = -\\mathbf 1^\\top\\beta` makes the
block's Hessian :math:`a (I + \\mathbf 1 \\mathbf 1^\\top)`.  Dividing by a, the block is
:func:`svmteach.projections.ww_block_solve` with :math:`u = c / a`, solved exactly by
sorting its 2(k-1) breakpoints.  A zero row (a = 0) leaves a linear problem: each
:math:`\\beta_j` goes to C where :math:`c_j > 0` and to 0 where :math:`c_j < 0`.  So does a row of
tiny norm whose quadratic term is negligible: for every feasible block,
:math:`\\tfrac a2 (\\|\\beta\\|^2 + (\\mathbf 1^\\top\\beta)^2) \\le \\tfrac a2 k^2 C^2`, and once
:math:`a k C \\le \\epsilon \\max_j |c_j|` that moves the root :math:`t` by less than the rounding of c,
so the linear rule is the exact block step to working precision (and :math:`u = c / a`, which
could overflow, is never formed).
The weights follow: :math:`W \\leftarrow W - M\\, \\delta\\, x_i^\\top` for the change δ of
:math:`\\alpha_i` (seed 000: :math:`W = -M \\sum_i \\alpha_i x_i^\\top`, here as (k, d)).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..projections import ww_block_row, ww_block_solve
from .multiclass_base import EPOCH_FASTMATH, EPS, MulticlassSolver, replace_row, sample_arrays


class WWExactState(NamedTuple):
    """State of :class:`WWExact` after ``n_iter`` sample visits.

    Attributes
    ----------
    n_iter, epoch, pos, seed : int;  perm : (n,) this epoch's order;  i : int, the last sample.
    alpha : (n, k) dual variables, ``alpha[i, y_i] = -sum of the others``;  W : (k, d) weights.
    y : int, the sample's class;  grad : (k,) dual gradient ``M (s_y - s_j) - 1`` before the step.
    u : (k-1,) the block problem's vector;  breakpoints : (2k-2,) sorted ``u - C`` and ``u``.
    t : float, the root ``1' beta``;  beta : (k-1,) the solution;  delta : (k,) the change of alpha_i.
    primal, dual, gap, kkt : float, as of the last measure.
    """

    n_iter: int
    alpha: object
    W: object
    epoch: int
    pos: int
    perm: np.ndarray
    seed: int
    i: int
    primal: float
    dual: float
    gap: float
    kkt: float
    y: int
    grad: object
    u: object
    breakpoints: object
    t: float
    beta: object
    delta: object


class WWExact(MulticlassSolver):
    """Exact block coordinate descent for the Weston-Watkins dual (any M > 0)."""

    State = WWExactState
    loss = "ww"
    name = "exact"

    def blank_picture(self, problem):
        return dict(y=-1, grad=None, u=None, breakpoints=None, t=math.nan, beta=None, delta=None)

    def update(self, problem, state, i):
        xp, M, C, k = problem.xp, problem.M, problem.C, problem.k
        x, q, yi, s = sample_arrays(problem, state, i)
        a = M * M * q
        others = xp.asarray([j for j in range(k) if j != yi])
        grad = M * (s[yi] - s) - 1.0  # d f / d alpha_ij (the y_i entry is 0)
        alpha_i = state.alpha[i, :]
        c = -xp.take(grad, others) + a * (xp.take(alpha_i, others) - alpha_i[yi])
        if a * k * C > EPS * float(xp.max(xp.abs(c))):
            u = c / a
            beta = ww_block_solve(u[None, :], C, check=False)[0, :]
        else:  # zero row, or a curvature below the rounding of c: a linear block, solved at the bounds
            u = c
            beta = xp.where(c > 0, C, xp.where(c < 0, 0.0, xp.take(alpha_i, others)))
        new = xp.concat([beta[:yi], xp.reshape(-xp.sum(beta), (1,)), beta[yi:]])  # alpha_{i y_i} = -1'beta
        delta = new - alpha_i
        W = state.W - M * delta[:, None] * x[None, :]
        return state._replace(alpha=replace_row(xp, state.alpha, i, new), W=W, y=yi,
                              grad=xp.where(xp.arange(k) == yi, 0.0, grad), u=u,
                              breakpoints=xp.sort(xp.concat([u - C, u])), t=float(xp.sum(beta)),
                              beta=beta, delta=delta)

    def _epoch(self, problem, alpha, W, order):
        _ww_exact_epoch(problem.X, problem.sqnorm, problem.codes, float(problem.C), float(problem.M),
                        alpha, W, order)


@njit(cache=True, fastmath=EPOCH_FASTMATH)
def _ww_exact_epoch(X, sqnorm, codes, C, M, alpha, W, order):
    """The step of :class:`WWExact` for every sample of ``order``, in place."""
    k, d = W.shape
    s = np.empty(k)
    c = np.empty(k - 1)
    u = np.empty(k - 1)
    beta = np.empty(k - 1)
    points = np.empty(2 * (k - 1))
    work = np.empty(2 * (k - 1), dtype=np.int64)
    for i in order:
        y = codes[i]
        for m in range(k):
            acc = 0.0
            for t in range(d):
                acc += W[m, t] * X[i, t]
            s[m] = acc
        a = M * M * sqnorm[i]
        p = 0
        for j in range(k):
            if j != y:
                c[p] = -(M * (s[y] - s[j]) - 1.0) + a * (alpha[i, j] - alpha[i, y])
                p += 1
        cmax = 0.0
        for p in range(k - 1):
            cmax = max(cmax, abs(c[p]))
        if a * k * C > EPS * cmax:
            for p in range(k - 1):
                u[p] = c[p] / a
            ww_block_row(u, C, beta, points, work)
        else:
            p = 0
            for j in range(k):
                if j != y:
                    beta[p] = C if c[p] > 0 else (0.0 if c[p] < 0 else alpha[i, j])
                    p += 1
        new_y = 0.0
        for p in range(k - 1):
            new_y -= beta[p]
        p = 0
        for j in range(k):
            if j == y:
                nv = new_y
            else:
                nv = beta[p]
                p += 1
            dlt = nv - alpha[i, j]
            if dlt != 0.0:
                alpha[i, j] = nv
                f = M * dlt
                for t in range(d):
                    W[j, t] = W[j, t] - f * X[i, t]
