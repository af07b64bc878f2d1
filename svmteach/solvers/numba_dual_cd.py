"""Compiled fast path of :class:`~svmteach.solvers.dual_cd.DualCoordinateAscent`.

The same visiting order, the same shrinking test and the same one-dimensional
maximisation as the step path (the helpers are compiled once and called by
both), many steps per call:

- any kernel: the cached gradient ``g`` is updated with a column of ``Q`` (O(n) a step);
- linear kernel: ``w = sum_i alpha_i y_i x_i`` is kept instead, so a step costs
  O(d): :math:`g_i = 1 - y_i w^\\top x_i`, :math:`Q_{ii} = \\|x_i\\|^2` and
  :math:`w \\leftarrow w + \\Delta y_i x_i` (Hsieh et al. 2008); the full gradient
  is rebuilt once at the end of the call.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..backend import is_numpy
from .dual_cd import DualCDState, maximize_parabola, next_epoch, projected_gradient

# layout of the small arrays passed to the loops
#   track: shrink_hi, shrink_lo, pg_max, pg_min
#   info:  i, a, b, alpha_unclipped, alpha_clipped, delta, shrunk


@njit(cache=True)
def _visit(i, g, Qii, C, alpha, active, track, info):
    """One coordinate: the shrinking test, then the exact maximisation. Returns the change."""
    a = -0.5 * Qii
    b = g + Qii * alpha[i]
    info[0] = i
    info[1] = a
    info[2] = b
    shrink, pg = projected_gradient(-g, alpha[i], C, track[0], track[1])
    if shrink:
        active[i] = False
        info[3] = np.nan
        info[4] = alpha[i]
        info[5] = 0.0
        info[6] = 1.0
        return 0.0
    track[2] = max(track[2], pg)
    track[3] = min(track[3], pg)
    unclipped, new = maximize_parabola(a, b, C, alpha[i])
    delta = new - alpha[i]
    alpha[i] = new
    info[3] = unclipped
    info[4] = new
    info[5] = delta
    info[6] = 0.0
    return delta


@njit(cache=True)
def _steps_gram(Q, C, alpha, grad, order, active, track, info):
    """Coordinate steps over ``order`` with the cached gradient."""
    n = alpha.shape[0]
    for i in order:
        delta = _visit(i, grad[i], Q[i, i], C, alpha, active, track, info)
        if delta != 0.0:
            for t in range(n):
                grad[t] = grad[t] - delta * Q[t, i]


@njit(cache=True)
def _steps_linear(X, y, sqnorm, C, alpha, w, order, active, track, info):
    """Coordinate steps over ``order`` keeping ``w`` (O(d) a step)."""
    d = X.shape[1]
    for i in order:
        wx = 0.0
        for k in range(d):
            wx += w[k] * X[i, k]
        delta = _visit(i, 1.0 - y[i] * wx, sqnorm[i], C, alpha, active, track, info)
        if delta != 0.0:
            s = delta * y[i]
            for k in range(d):
                w[k] += s * X[i, k]


def advance_dual_cd(solver, problem, state: DualCDState, n_steps: int) -> DualCDState:
    """Take ``n_steps`` coordinate steps from ``state``; returns a new state."""
    if not is_numpy(problem.xp):
        for _ in range(n_steps):
            state = solver.step(problem, state)
        return state
    C = float(problem.C)
    alpha = np.array(state.alpha, dtype=np.float64)
    active = state.active.copy()
    linear = problem.kernel.is_linear
    if linear:
        X, y = problem.X, problem.y
        w = X.T @ (alpha * y)
        sqnorm = np.einsum("ij,ij->i", X, X)
    else:
        grad = np.array(state.grad, dtype=np.float64)
        Q = problem.Q
    info = np.array([state.i, state.a, state.b, state.alpha_unclipped, state.alpha_clipped, state.delta,
                     float(state.shrunk)])
    track = np.array([state.shrink_hi, state.shrink_lo, state.pg_max, state.pg_min])
    remaining = int(n_steps)
    while remaining > 0:
        if state.pos == len(state.perm):
            state = state._replace(active=active, pg_max=track[2], pg_min=track[3])
            epoch, perm, active, hi, lo, full = next_epoch(state, solver.shrinking)
            active = active.copy()
            track[:] = (hi, lo, -math.inf, math.inf)
            state = state._replace(epoch=epoch, perm=perm, pos=0, full_spread=full)
        take = min(remaining, len(state.perm) - state.pos)
        order = np.ascontiguousarray(state.perm[state.pos : state.pos + take], dtype=np.int64)
        if linear:
            _steps_linear(X, y, sqnorm, C, alpha, w, order, active, track, info)
        else:
            _steps_gram(Q, C, alpha, grad, order, active, track, info)
        state = state._replace(pos=state.pos + take)
        remaining -= take
    if linear:
        grad = 1.0 - y * (X @ w)
    return solver.measure(problem, state._replace(alpha=alpha, grad=grad))._replace(
        n_iter=state.n_iter + int(n_steps), alpha=alpha, grad=grad, i=int(info[0]), a=float(info[1]),
        b=float(info[2]), alpha_unclipped=float(info[3]), alpha_clipped=float(info[4]), delta=float(info[5]),
        shrunk=bool(info[6]), active=active, shrink_hi=float(track[0]), shrink_lo=float(track[1]),
        pg_max=float(track[2]), pg_min=float(track[3]),
    )
