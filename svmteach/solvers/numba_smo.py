"""Compiled kernels of :class:`~svmteach.solvers.smo.SMO`: the pair update and the fast path's loop.

A leaf: this module imports nothing from the step path.  Numba's on-disk cache
(``cache=True``) checks only the file that holds a compiled function, so every compiled
function here calls compiled functions of this file only (``tests/test_architecture.py``
asserts it); editing any of them invalidates the cache of all of them.  The step path
(:mod:`svmteach.solvers.smo`) calls :func:`pair_update` from here, so both paths solve the
two-variable subproblem with the same code, and drives :func:`smo_loop`.

The loop runs the step path's working-set rules and pair update many steps per call.
Every ``CHECK_EVERY`` steps it evaluates the relative duality gap (with the KKT bias) and
stops once it is at most ``tol``.

Kernel rows are computed when a step first needs them, as LIBSVM does: a step touches
rows i and j only, and many points are never selected.  The rows live in the problem's
:class:`~svmteach.problems.KernelRowCache` (they depend on X and the kernel only, not on C),
so later calls reuse them.  They are exact kernel values in float64 (if the problem's full
Gram matrix already exists it is used, so that both paths compute the same numbers).
Float32 rows, LIBSVM's choice, were measured and dropped: they perturb K by about 1e-7
relative, which let the cached gradient report gaps the iterate did not have, and
certifying the answer then meant computing the support vectors' rows again, which
cost more than float64 rows saved (``benchmarks/binary.py``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..kernels import CANCELLATION

#: The second-order rule's curvature when ``K_ii + K_tt - 2 K_it`` is not positive (LIBSVM's tau).
TAU = 1e-12
#: A few units in the last place: a new alpha within ``ULPS`` times the size of the values its
#: step combined from a bound is that bound up to rounding, and is set on it.  (Relative to the
#: step, not to C: with C = 1e12 the hard margin's alphas are ~1e-12 C and must not be lost.)
ULPS = 4 * 2.220446049250313e-16
#: The loop evaluates its relative duality gap every ``CHECK_EVERY`` steps.
CHECK_EVERY = 10
KERNEL_CODES = {"linear": 0, "polynomial": 1, "gaussian": 2, "laplacian": 3}


class PairPicture(NamedTuple):
    """What one pair step did: the fields of :class:`~svmteach.solvers.smo.SMOState` that picture it.

    The compiled loop builds one (by keyword) for its last step and returns it, so the fast path
    hands its picture back by name, as the step path does.

    Attributes
    ----------
    i, j : int, the pair (-1, -1 when no pair violates the KKT conditions: a null step).
    E_i, E_j : float, their errors ``f + b - y`` before the step (b of the last check).
    eta : float, ``K_ii + K_jj - 2 K_ij``.
    L, H : float, the bounds of alpha_j on the constraint segment inside the box.
    alpha_i_old, alpha_j_old : float, the pair before the step.
    alpha_j_unclipped : float, the maximiser along the line (+-inf when eta <= 0).
    alpha_j_new, alpha_i_new : float, the pair after the step.
    """

    i: int
    j: int
    E_i: float
    E_j: float
    eta: float
    L: float
    H: float
    alpha_i_old: float
    alpha_j_old: float
    alpha_j_unclipped: float
    alpha_j_new: float
    alpha_i_new: float


#: The picture of no step (the start of a run, or a warm start): no pair, every number NaN.
NO_PAIR = PairPicture(i=-1, j=-1, E_i=math.nan, E_j=math.nan, eta=math.nan, L=math.nan, H=math.nan,
                      alpha_i_old=math.nan, alpha_j_old=math.nan, alpha_j_unclipped=math.nan,
                      alpha_j_new=math.nan, alpha_i_new=math.nan)


def kernel_params(kernel):
    """The kernel as the compiled loop reads it: ``[code, gamma, degree, coef0, cancellation]``."""
    return np.array([KERNEL_CODES[kernel.name], float(kernel.gamma), float(kernel.degree), float(kernel.coef0),
                     CANCELLATION])


# The two-variable subproblem (module docstring of svmteach.solvers.smo): along
# y_i a_i + y_j a_j = const the dual changes by psi(t) = t y_j (E_i - E_j) - eta t^2 / 2,
# eta = K_ii + K_jj - 2 K_ij, maximised at a_j + y_j (E_i - E_j) / eta, clipped to [L, H].
@njit(cache=True)
def pair_update(yi, yj, ai, aj, vi, vj, Kii, Kjj, Kij, C):
    """Solve the two-variable subproblem exactly; called by the step path and by :func:`smo_loop`.

    ``vi, vj`` are :math:`y_t g_t = y_t - f_t`, so :math:`E_i - E_j = v_j - v_i`.
    Returns ``(eta, L, H, aj_unclipped, aj_new, ai_new)``.
    """
    if yi != yj:
        L = max(0.0, aj - ai)
        H = min(C, C + aj - ai)
    else:
        L = max(0.0, ai + aj - C)
        H = min(C, ai + aj)
    eta = Kii + Kjj - 2.0 * Kij
    slope = yj * (vj - vi)  # y_j (E_i - E_j): derivative of the dual along the line
    if eta > 0.0:
        unclipped = aj + slope / eta
        new = min(max(unclipped, L), H)
    else:
        # psi(t) = slope t - eta t^2 / 2 is linear or convex: take the better end
        unclipped = math.copysign(math.inf, slope) if slope != 0.0 else aj
        tL, tH = L - aj, H - aj
        psiL = slope * tL - 0.5 * eta * tL * tL
        psiH = slope * tH - 0.5 * eta * tH * tH
        if psiH > 0.0 and psiH >= psiL:
            new = H
        elif psiL > 0.0:
            new = L
        else:
            new = aj
    if H - L <= ULPS * max(abs(L), abs(H)):
        new = aj  # the segment is a point (up to rounding): nothing can move
    ai_new = ai + yi * yj * (aj - new)
    # rounding leaves values a few ulps inside a bound (0.9999999999999999 for C = 1),
    # and such a point stays a "violator" that cannot move: snap to the bounds.  The
    # rounding of L, H and ai_new is a few ulps of the pair's old values (and of C near C).
    scale = max(ai, aj)
    return eta, L, H, unclipped, _snap(new, C, scale), _snap(ai_new, C, scale)


@njit(cache=True)
def _snap(a, C, scale):
    """``a`` set on the bound 0 or C it is within rounding of (a few ulps of ``scale``, or of C)."""
    if a <= ULPS * scale:
        return 0.0
    if a >= C - ULPS * C:
        return C
    return a



# |x_i - x_t|^2 = |x_i|^2 + |x_t|^2 - 2 x_i'x_t, recomputed from differences where it cancels.
@njit(cache=True)
def _squared_distances_to(X, sq, dots, i, cancellation):
    """:math:`\\|x_i - x_t\\|^2` for every t, as :func:`svmteach.kernels.squared_distances` computes
    them: ``|x_i|^2 + |x_t|^2 - 2 x_i'x_t``, from explicit differences where that cancels, 0 for t = i.
    (Two passes: the first has no branch, so that it vectorises.)"""
    n = X.shape[0]
    d2 = np.empty(n)
    for t in range(n):
        d2[t] = max(sq[i] + sq[t] - 2.0 * dots[t], 0.0)
    for t in range(n):
        if d2[t] < cancellation * (sq[i] + sq[t]):  # near-duplicates: the expansion lost its digits
            s = 0.0
            for k in range(X.shape[1]):
                diff = X[i, k] - X[t, k]
                s += diff * diff
            d2[t] = s
    d2[i] = 0.0
    return d2


# Row i of K: k(x_i, x_t) = x_i'x_t, (gamma x_i'x_t + coef0)^degree, exp(-gamma d^2) or exp(-gamma d).
@njit(cache=True)
def _kernel_row(X, sq, params, i, out):
    """Write :math:`k(x_i, x_t)` for every t into ``out``: one matrix-vector product, then the
    kernel's function; the formulas are those of :mod:`svmteach.kernels`, distances included
    (``params`` from :func:`kernel_params`)."""
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
        d2 = _squared_distances_to(X, sq, dots, i, params[4])
        if kind == 2:
            for t in range(n):
                out[t] = math.exp(-gamma * d2[t])
        else:
            for t in range(n):
                out[t] = math.exp(-gamma * math.sqrt(d2[t]))


# A row is computed once, the first time a step needs it (LIBSVM's on-demand rows).
@njit(cache=True)
def ensure_row(X, sq, params, K, have, i):
    """Fill row i of K unless it is there."""
    if not have[i]:
        _kernel_row(X, sq, params, i, K[i])
        have[i] = True


# b from the KKT conditions: y_t g_t = y_t - f_t equals b on free points, bounds it on the others.
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


# P = ||w||^2/2 + C sum_t max(0, 1 - y_t (f_t + b)),  D = 1'alpha - ||w||^2/2, both from g = 1 - Q alpha.
@njit(cache=True)
def relative_gap(y, C, alpha, grad):
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


# i = argmax over I_up of y_t g_t; j = argmin over I_low (max violating pair) or the largest
# guaranteed gain (y_i g_i - y_t g_t)^2 / (K_ii + K_tt - 2 K_it) (second order); random: a violator.
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
        ensure_row(X, sq, params, K, have, i)
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


# One SMO step: select (i, j), solve the pair exactly (pair_update), then
# g <- g - Q[:, i] (a_i' - a_i) - Q[:, j] (a_j' - a_j); every check_every steps, the gap.
@njit(cache=True)
def smo_loop(X, sq, params, K, have, diag, y, C, alpha, grad, n_steps, rule, uniforms, tol, check_every):
    """Run up to ``n_steps`` pair steps in place (``alpha``, ``grad``, the rows ``K``, ``have``).

    Returns ``(steps, picture)``: the number of steps taken and the :class:`PairPicture` of the last
    one (``i = j = -1`` when it found no violating pair, and the run stopped there).
    """
    n = y.shape[0]
    b = 0.0
    picture = NO_PAIR
    for step in range(n_steps):
        if rule == 0 or step == n_steps - 1 or step % check_every == check_every - 1:
            b = _intercept(y, C, alpha, grad)
        i, j = _select(X, sq, params, K, have, diag, y, C, alpha, grad, rule, b, uniforms[step, 0], uniforms[step, 1])
        if i < 0:  # the KKT conditions hold: a null step, pictured with no pair
            return step + 1, NO_PAIR
        ensure_row(X, sq, params, K, have, i)
        ensure_row(X, sq, params, K, have, j)
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
        # E_t = f_t + b - y_t = b - y_t g_t
        picture = PairPicture(i=i, j=j, E_i=b - vi, E_j=b - vj, eta=eta, L=L, H=H, alpha_i_old=ai,
                              alpha_j_old=aj, alpha_j_unclipped=unc, alpha_j_new=aj_new, alpha_i_new=ai_new)
        if tol >= 0 and step % check_every == check_every - 1:
            if relative_gap(y, C, alpha, grad) <= tol:
                return step + 1, picture
    return n_steps, picture


def exact_gradient_with_rows(problem, alpha):
    """:func:`~svmteach.solvers.smo.exact_gradient` from the problem's kernel-row cache (exact, float64 rows).

    :math:`f = \\sum_s \\alpha_s y_s K_{s:}` over the support vectors is a product with rows
    already there: a support vector was part of a step, so its row was computed then (a warm
    start's missing rows are filled first).
    """
    rows = problem._kernel_rows
    support = np.flatnonzero(alpha)
    params = kernel_params(problem.kernel)
    for s in support[~rows.have[support]]:
        ensure_row(problem.X, rows.sqnorm, params, rows.buffer, rows.have, int(s))
    return 1.0 - problem.y * rows_times(rows.buffer, support, alpha * problem.y)


# f = sum over support vectors of c_s K[s, :]: the exact scores from rows already computed.
@njit(cache=True)
def rows_times(K, support, coef):
    """:math:`f = \\sum_{s \\in \\text{support}} c_s K_{s:}`, reading the rows in place (no copy of them)."""
    f = np.zeros(K.shape[1])
    for s in support:
        c = coef[s]
        for t in range(K.shape[1]):
            f[t] += c * K[s, t]
    return f
