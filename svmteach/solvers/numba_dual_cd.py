"""Compiled fast path of :class:`~svmteach.solvers.dual_cd.DualCoordinateAscent`.

The same visiting order and the same one-dimensional maximisation as the step
path, many steps per call:

- any kernel: the cached gradient ``g`` is updated with a column of ``Q`` (O(n) a step);
- linear kernel: ``w = sum_i alpha_i y_i x_i`` is kept instead, so a step costs
  O(d): :math:`g_i = 1 - y_i w^\\top x_i`, :math:`Q_{ii} = \\|x_i\\|^2` and
  :math:`w \\leftarrow w + \\Delta y_i x_i` (Hsieh et al. 2008); the full gradient
  is rebuilt once at the end of the call.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..backend import is_numpy
from .dual_cd import DualCDState, epoch_permutation, maximize_parabola, stopping_measures


@njit(cache=True)
def _steps_gram(Q, C, alpha, grad, order, info):
    """Coordinate steps over ``order`` with the cached gradient; last step into ``info``."""
    n = alpha.shape[0]
    for i in order:
        Qii = Q[i, i]
        a = -0.5 * Qii
        b = grad[i] + Qii * alpha[i]
        unclipped, new = maximize_parabola(a, b, C, alpha[i])
        delta = new - alpha[i]
        if delta != 0.0:
            alpha[i] = new
            for t in range(n):
                grad[t] -= delta * Q[t, i]
        info[0] = i
        info[1] = a
        info[2] = b
        info[3] = unclipped
        info[4] = new
        info[5] = delta


@njit(cache=True)
def _steps_linear(X, y, sqnorm, C, alpha, w, order, info):
    """Coordinate steps over ``order`` keeping ``w`` (O(d) a step); last step into ``info``."""
    d = X.shape[1]
    for i in order:
        wx = 0.0
        for k in range(d):
            wx += w[k] * X[i, k]
        g = 1.0 - y[i] * wx
        Qii = sqnorm[i]
        a = -0.5 * Qii
        b = g + Qii * alpha[i]
        unclipped, new = maximize_parabola(a, b, C, alpha[i])
        delta = new - alpha[i]
        if delta != 0.0:
            alpha[i] = new
            s = delta * y[i]
            for k in range(d):
                w[k] += s * X[i, k]
        info[0] = i
        info[1] = a
        info[2] = b
        info[3] = unclipped
        info[4] = new
        info[5] = delta


def advance_dual_cd(problem, state: DualCDState, n_steps: int) -> DualCDState:
    """Take ``n_steps`` coordinate steps from ``state``; returns a new state."""
    if not is_numpy(problem.xp):
        from .dual_cd import DualCoordinateAscent

        solver = DualCoordinateAscent()
        for _ in range(n_steps):
            state = solver.step(problem, state)
        return state
    n, C = problem.n_samples, float(problem.C)
    alpha = np.array(state.alpha, dtype=np.float64)
    linear = problem.kernel.is_linear
    if linear:
        X, y = problem.X, problem.y
        w = X.T @ (alpha * y)
        sqnorm = np.einsum("ij,ij->i", X, X)
    else:
        grad = np.array(state.grad, dtype=np.float64)
        Q = problem.Q
    info = np.array([state.i, state.a, state.b, state.alpha_unclipped, state.alpha_clipped, state.delta])
    epoch, pos, perm = state.epoch, state.pos, state.perm
    remaining = int(n_steps)
    while remaining > 0:
        if pos == n:
            epoch, pos = epoch + 1, 0
            perm = epoch_permutation(state.seed, epoch, n)
        take = min(remaining, n - pos)
        order = np.ascontiguousarray(perm[pos : pos + take], dtype=np.int64)
        if linear:
            _steps_linear(X, y, sqnorm, C, alpha, w, order, info)
        else:
            _steps_gram(Q, C, alpha, grad, order, info)
        pos += take
        remaining -= take
    if linear:
        grad = 1.0 - y * (X @ w)
    P, D, gap, kkt = stopping_measures(problem, alpha, grad)
    return DualCDState(state.n_iter + int(n_steps), alpha, grad, epoch, pos, perm, state.seed,
                       int(info[0]), float(info[1]), float(info[2]), float(info[3]), float(info[4]),
                       float(info[5]), P, D, gap, kkt)
