"""Compiled fast path of :class:`~svmteach.solvers.smo.SMO`.

The same working-set rules and the same pair update (:func:`~svmteach.solvers.smo.pair_update`,
compiled once and called by both paths) as the step path, run in one loop.
Every ``CHECK_EVERY`` steps the loop evaluates the relative duality gap (with
the KKT bias) and stops once it is at most ``tol``.

Kernel rows are computed when a step first needs them, as LIBSVM does: a
step touches rows i and j only, and many points are never selected.  The
rows live in a buffer kept with the problem (:func:`kernel_rows`), so later
calls reuse them.  They are exact kernel values in float64 (if the problem's full
Gram matrix already exists it is used, so that both paths compute the same numbers).
Float32 rows, LIBSVM's choice, were measured and dropped: they perturb K by about 1e-7
relative, which let the cached gradient report gaps the iterate did not have, and
certifying the answer then meant computing the support vectors' rows again, which
cost more than float64 rows saved (``benchmarks/binary.py``).

The loop's cached gradient still gathers the rounding of many updates, so it never has
the last word: every call ends by recomputing the gradient from alpha
(:func:`exact_gradient_with_rows`, a product with rows already in the buffer), and what
the returned state reports (b, primal, dual, gap) is computed from that.  A loop that
stopped early on its cached gap, short of ``tol`` in truth, goes on.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..backend import is_numpy
from ..kernels import CANCELLATION
from .smo import RULES, TAU, SMOState, exact_gradient, pair_update, smo_measures

CHECK_EVERY = 10
KERNEL_CODES = {"linear": 0, "polynomial": 1, "gaussian": 2, "laplacian": 3}


class KernelRows:
    """An (n, n) buffer of kernel rows, filled on demand; ``have[i]`` says row i is there."""

    def __init__(self, problem):
        if "gram" in vars(problem):  # the full matrix exists already
            self.buffer = np.array(problem.gram)  # a writable copy: numba types read-only arrays apart
            self.have = np.ones(problem.n_samples, dtype=np.bool_)
        else:
            self.buffer = np.empty((problem.n_samples, problem.n_samples), dtype=np.float64)
            self.have = np.zeros(problem.n_samples, dtype=np.bool_)
        k = problem.kernel
        self.params = (KERNEL_CODES[k.name], float(k.gamma), float(k.degree), float(k.coef0))
        self.sqnorm = np.einsum("ij,ij->i", problem.X, problem.X)


def kernel_rows(problem) -> KernelRows:
    """The problem's float64 row buffer, created on first use."""
    rows = vars(problem).get("_kernel_rows")
    if rows is None:
        rows = KernelRows(problem)
        object.__setattr__(problem, "_kernel_rows", rows)
    return rows


@njit(cache=True)
def _squared_distances_to(X, sq, dots, i):
    """:math:`\\|x_i - x_t\\|^2` for every t, as :func:`svmteach.kernels.squared_distances` computes
    them: ``|x_i|^2 + |x_t|^2 - 2 x_i'x_t``, from explicit differences where that cancels, 0 for t = i.
    (Two passes: the first has no branch, so that it vectorises.)"""
    n = X.shape[0]
    d2 = np.empty(n)
    for t in range(n):
        d2[t] = max(sq[i] + sq[t] - 2.0 * dots[t], 0.0)
    for t in range(n):
        if d2[t] < CANCELLATION * (sq[i] + sq[t]):  # near-duplicates: the expansion lost its digits
            s = 0.0
            for k in range(X.shape[1]):
                diff = X[i, k] - X[t, k]
                s += diff * diff
            d2[t] = s
    d2[i] = 0.0
    return d2


@njit(cache=True)
def _kernel_row(X, sq, params, i, out):
    """Write :math:`k(x_i, x_t)` for every t into ``out``: one matrix-vector product, then the
    kernel's function; the formulas are those of :mod:`svmteach.kernels`, distances included."""
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
        d2 = _squared_distances_to(X, sq, dots, i)
        if kind == 2:
            for t in range(n):
                out[t] = math.exp(-gamma * d2[t])
        else:
            for t in range(n):
                out[t] = math.exp(-gamma * math.sqrt(d2[t]))


@njit(cache=True)
def _ensure_row(X, sq, params, K, have, i):
    """Fill row i of K unless it is there."""
    if not have[i]:
        _kernel_row(X, sq, params, i, K[i])
        have[i] = True


@njit(cache=True)
def _intercept(y, C, alpha, grad):
    """KKT bias: mean of y_t g_t over free points, else the midpoint of the bounds."""
    n = y.shape[0]
    s = 0.0
    n_free = 0
    lo = -np.inf
    hi = np.inf
    for t in range(n):
        v = y[t] * grad[t]
        if 0.0 < alpha[t] < C:
            s += v
            n_free += 1
        elif (alpha[t] <= 0.0 and y[t] > 0) or (alpha[t] >= C and y[t] < 0):
            lo = max(lo, v)
        else:
            hi = min(hi, v)
    if n_free > 0:
        return s / n_free
    if lo > -np.inf and hi < np.inf:
        return 0.5 * (lo + hi)
    if lo > -np.inf:
        return lo
    if hi < np.inf:
        return hi
    return 0.0


@njit(cache=True)
def _relative_gap(y, C, alpha, grad):
    """(P - D) / |P| from the cached gradient: f_t = y_t (1 - g_t), ||w||^2 = sum alpha_t (1 - g_t)."""
    b = _intercept(y, C, alpha, grad)
    norm2 = 0.0
    s_alpha = 0.0
    hinge = 0.0
    for t in range(y.shape[0]):
        norm2 += alpha[t] * (1.0 - grad[t])
        s_alpha += alpha[t]
        m = (1.0 - grad[t]) + y[t] * b  # y_t (f_t + b)
        if m < 1.0:
            hinge += 1.0 - m
    P = 0.5 * norm2 + C * hinge
    D = s_alpha - 0.5 * norm2
    if P == 0.0:  # P > 0 for two classes; 0 only by underflow, and then no relative gap is known
        return math.inf
    return (P - D) / abs(P)


@njit(cache=True)
def _select(X, sq, params, K, have, diag, y, C, alpha, grad, rule, b, u1, u2):
    """The working-set rules of the step path, as loops. Returns (i, j), (-1, -1) if none."""
    n = y.shape[0]
    if rule == 0:  # random: a KKT violator for b, and a random partner
        scale = 1e-12 * (1.0 + abs(b))
        count = 0
        for t in range(n):
            v = y[t] * grad[t]
            up = (y[t] > 0 and alpha[t] < C) or (y[t] < 0 and alpha[t] > 0)
            low = (y[t] > 0 and alpha[t] > 0) or (y[t] < 0 and alpha[t] < C)
            if (up and v > b + scale) or (low and v < b - scale):
                count += 1
        if count == 0:
            return -1, -1
        k = min(int(u1 * count), count - 1)
        i = -1
        for t in range(n):
            v = y[t] * grad[t]
            up = (y[t] > 0 and alpha[t] < C) or (y[t] < 0 and alpha[t] > 0)
            low = (y[t] > 0 and alpha[t] > 0) or (y[t] < 0 and alpha[t] < C)
            if (up and v > b + scale) or (low and v < b - scale):
                if k == 0:
                    i = t
                    break
                k -= 1
        j = min(int(u2 * (n - 1)), n - 2)
        if j >= i:
            j += 1
        return i, j
    i = -1
    vi = -np.inf
    for t in range(n):
        v = y[t] * grad[t]
        if ((y[t] > 0 and alpha[t] < C) or (y[t] < 0 and alpha[t] > 0)) and v > vi:
            vi = v
            i = t
    if i < 0:
        return -1, -1
    if rule == 2:
        _ensure_row(X, sq, params, K, have, i)
    j = -1
    best = np.inf
    for t in range(n):
        if not ((y[t] > 0 and alpha[t] > 0) or (y[t] < 0 and alpha[t] < C)):
            continue
        v = y[t] * grad[t]
        if rule == 1:
            if v < best:
                best = v
                j = t
        else:
            bt = vi - v
            if bt > 0:
                at = diag[i] + diag[t] - 2.0 * float(K[i, t])
                if at <= 0:
                    at = TAU
                score = -(bt * bt) / at
                if score < best:
                    best = score
                    j = t
    if j < 0 or (rule == 1 and not vi > best):
        return -1, -1
    return i, j


@njit(cache=True)
def _smo_loop(X, sq, params, K, have, diag, y, C, alpha, grad, n_steps, rule, uniforms, tol, check_every, info):
    """Run up to ``n_steps`` pair steps in place; returns the number of steps taken."""
    n = y.shape[0]
    b = 0.0
    for step in range(n_steps):
        if rule == 0 or step == n_steps - 1 or step % check_every == check_every - 1:
            b = _intercept(y, C, alpha, grad)
        i, j = _select(X, sq, params, K, have, diag, y, C, alpha, grad, rule, b, uniforms[step, 0], uniforms[step, 1])
        info[0] = i
        info[1] = j
        if i < 0:
            return step + 1
        _ensure_row(X, sq, params, K, have, i)
        _ensure_row(X, sq, params, K, have, j)
        vi = y[i] * grad[i]
        vj = y[j] * grad[j]
        ai = alpha[i]
        aj = alpha[j]
        eta, L, H, unc, aj_new, ai_new = pair_update(y[i], y[j], ai, aj, vi, vj, float(K[i, i]), float(K[j, j]),
                                                  float(K[i, j]), C)
        di = ai_new - ai
        dj = aj_new - aj
        if di != 0.0 or dj != 0.0:
            alpha[i] = ai_new
            alpha[j] = aj_new
            # g_t <- g_t - Q_ti di - Q_tj dj with Q_ts = (y_t K_ts) y_s, in the step path's order
            # of operations, so that both paths round alike and break ties alike
            for t in range(n):
                grad[t] = grad[t] - di * ((y[t] * float(K[i, t])) * y[i]) - dj * ((y[t] * float(K[j, t])) * y[j])
        info[2] = b - vi
        info[3] = b - vj
        info[4] = eta
        info[5] = L
        info[6] = H
        info[7] = ai
        info[8] = aj
        info[9] = unc
        info[10] = aj_new
        info[11] = ai_new
        if tol >= 0 and step % check_every == check_every - 1:
            if _relative_gap(y, C, alpha, grad) <= tol:
                return step + 1
    return n_steps


def exact_gradient_with_rows(problem, rows: KernelRows, alpha):
    """:func:`~svmteach.solvers.smo.exact_gradient` from the buffer's (exact, float64) rows.

    :math:`f = \\sum_s \\alpha_s y_s K_{s:}` over the support vectors is a product with rows
    already there: a support vector was part of a step, so its row was computed then (a warm
    start's missing rows are filled first).
    """
    support = np.flatnonzero(alpha)
    params = np.array(rows.params)
    for s in support[~rows.have[support]]:
        _ensure_row(problem.X, rows.sqnorm, params, rows.buffer, rows.have, int(s))
    return 1.0 - problem.y * _rows_times(rows.buffer, support, alpha * problem.y)


@njit(cache=True)
def _rows_times(K, support, coef):
    """:math:`f = \\sum_{s \\in \\text{support}} c_s K_{s:}`, reading the rows in place (no copy of them)."""
    f = np.zeros(K.shape[1])
    for s in support:
        c = coef[s]
        for t in range(K.shape[1]):
            f[t] += c * K[s, t]
    return f


#: A compiled run that stops early on its cached gradient, whose exact gap is above tol, goes on
#: from the exact gradient at most this many times in one call (then returns, not converged).
RESTARTS = 3


def advance_smo(solver, problem, state: SMOState, n_steps: int, tol=None) -> SMOState:
    """Up to ``n_steps`` SMO steps from ``state`` (early stop at relative gap <= tol).

    The loop's cached gradient drifts from :math:`\\mathbf 1 - Q\\alpha` (the rounding of many
    updates), so before returning it is recomputed from alpha (:func:`exact_gradient_with_rows`)
    and the measures from it: the returned primal, dual and gap are those of the returned alpha
    and b.  When the loop stopped early (its gap said tol, or it saw no violating pair) and the
    exact gap is above tol, the run goes on from the exact gradient, at most ``RESTARTS`` times.
    """
    if not is_numpy(problem.xp):  # CuPy, array-API: the step path, then the same exact measures
        for _ in range(n_steps):
            if tol is not None and state.gap <= tol:
                break
            state = solver.step(problem, state)
        grad = exact_gradient(problem, state.alpha)
        b, b_rule, P, D, gap, kkt = smo_measures(problem, state.alpha, grad)
        return state._replace(grad=grad, b=b, b_rule=b_rule, primal=P, dual=D, gap=gap, kkt=kkt)
    rule = RULES.index(solver.selection)
    if rule == 0:  # the step path's draws: default_rng([seed, t]) for step t
        uniforms = np.array([np.random.default_rng([state.seed, state.n_iter + k]).random(2) for k in range(n_steps)])
    else:
        uniforms = np.zeros((n_steps, 2))
    uniforms = uniforms.reshape(n_steps, 2)
    alpha = np.array(state.alpha, dtype=np.float64)
    grad = np.array(state.grad, dtype=np.float64)
    info = np.full(12, np.nan)
    rows = kernel_rows(problem)
    params = np.array(rows.params)
    done = 0
    for _ in range(RESTARTS + 1):
        done += _smo_loop(problem.X, rows.sqnorm, params, rows.buffer, rows.have, problem.diag,
                          problem.y, float(problem.C), alpha, grad, int(n_steps - done), rule, uniforms[done:],
                          -1.0 if tol is None else float(tol), CHECK_EVERY, info)
        grad = exact_gradient_with_rows(problem, rows, alpha)  # drop the loop's rounding
        b, b_rule, P, D, gap, kkt = smo_measures(problem, alpha, grad)
        if tol is None or gap <= tol or done >= n_steps:
            break  # else: stopped early on the cached gradient, short of tol in truth: go on
    if math.isnan(info[0]) or info[0] < 0:  # the last step found no violating pair
        return state._replace(n_iter=state.n_iter + int(done), alpha=alpha, grad=grad, i=-1, j=-1,
                              b=b, b_rule=b_rule, primal=P, dual=D, gap=gap, kkt=kkt)
    return SMOState(state.n_iter + int(done), alpha, grad, state.seed, int(info[0]), int(info[1]),
                    *(float(v) for v in info[2:12]), b, b_rule, P, D, gap, kkt)
