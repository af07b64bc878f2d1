"""Compiled kernels of :class:`~svmteach.solvers.smo.SMO`: the pair update and the fast path's loop.

A leaf: it imports nothing from the step path.  One source: the step path
(:mod:`svmteach.solvers.smo`) takes each step with the kernels :func:`smo_loop` runs: the
working-set rules (:func:`random_pair`, :func:`first_index`, :func:`partner`), :func:`pair_step`,
:func:`intercept` and LIBSVM's shrinking (:func:`countdown`, :func:`everything`).  The loop checks the
relative duality gap every ``CHECK_EVERY`` steps.

Kernel rows come from the run's bounded row cache (:mod:`svmteach.solvers.numba_kernel_rows`), computed
when a step first needs one, as LIBSVM does, but in float64 (LIBSVM's float32 rows perturb K by more
than the gaps a cached gradient must report).  Each sample has its own box :math:`[0, C_t]`
(``problem.C_i``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .numba_kernel_rows import get_row

#: The second-order rule's curvature when ``K_ii + K_tt - 2 K_it`` is not positive (LIBSVM's tau).
TAU = 1e-12
#: A few units in the last place: a new alpha within ``ULPS`` times the size of the values its
#: step combined from a bound is that bound up to rounding, and is set on it.  (Relative to the
#: step, not to C: with C = 1e12 the hard margin's alphas are ~1e-12 C and must not be lost.)
ULPS = 4 * 2.220446049250313e-16
#: The loop evaluates its relative duality gap every ``CHECK_EVERY`` steps.
CHECK_EVERY = 10


class PairPicture(NamedTuple):
    """What one pair step did: the fields of :class:`~svmteach.solvers.smo.SMOState` that picture it
    (the compiled loop returns its last step's, by name).

    Attributes
    ----------
    i, j : int, the pair (-1, -1 when no pair violates the KKT conditions: a null step).
    E_i, E_j : float, their errors ``f(x) - y`` before the step (f with the b of the last check).
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


# The two-variable subproblem, derived in the module docstring of svmteach.solvers.smo.
@njit(cache=True)
def pair_update(yi, yj, ai, aj, vi, vj, Kii, Kjj, Kij, Ci, Cj):
    """Solve the two-variable subproblem exactly; called by the step path and by :func:`smo_loop`.

    ``vi, vj`` are :math:`y_t g_t = y_t - f_t`, so :math:`E_i - E_j = v_j - v_i`; ``Ci, Cj`` the
    pair's own bounds.  Returns ``(eta, L, H, aj_unclipped, aj_new, ai_new)``.
    """
    if yi != yj:  # a_i - a_j is fixed: a_i' = a_i + a_j' - a_j in [0, C_i]
        L = max(0.0, aj - ai)
        H = min(Cj, Ci + aj - ai)
    else:  # a_i + a_j is fixed: a_i' = a_i + a_j - a_j' in [0, C_i]
        L = max(0.0, ai + aj - Ci)
        H = min(Cj, ai + aj)
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
    return eta, L, H, unclipped, _snap(new, Cj, scale), _snap(ai_new, Ci, scale)


@njit(cache=True)
def _snap(a, C, scale):
    """``a`` set on the bound 0 or C it is within rounding of (a few ulps of ``scale`` or of C, whichever is
    larger: with per-sample bounds the pair's other variable may be far larger than this one's C)."""
    if a <= ULPS * scale:
        return 0.0
    if a >= C - ULPS * max(C, scale):
        return C
    return a


# m - M of the maximal violating pair, against the rounding of the y_t g_t it compares.
@njit(cache=True)
def violates_beyond_rounding(m, M):
    """Whether the violation ``m - M`` (m the largest :math:`y_t g_t` over :math:`I_{up}`, M the smallest over
    :math:`I_{low}`) exceeds their rounding, machine epsilon times ``2 + |m| + |M|``.  A smaller one is
    noise, which every working-set rule treats as none: the KKT conditions hold in float64."""
    return m - M > np.finfo(np.float64).eps * (2.0 + abs(m) + abs(M))


#: The names of the rules :func:`intercept` reports, by its code.
INTERCEPT_RULES = ("mean over free SVs", "midpoint of bounds", "one-sided bound")


# ---- the sets the rules read ------------------------------------------------------------------------
# Every rule reads v_t = y_t g_t (so E_t = b - v_t) and the two sets I_up (where y_t alpha_t may grow in
# [0, C_t]) and I_low (where it may shrink).  The loop keeps v and the sets' flags beside alpha and updates
# them with each step (a step changes two memberships), so that a rule's pass over n reads two arrays and
# takes no branch that the data decides: three times faster than testing y, alpha and C per sample.

@njit(cache=True)
def place(y, C, alpha, up, low, t):
    """Set ``up[t]`` and ``low[t]``: whether :math:`y_t \\alpha_t` may grow / shrink in its box :math:`[0, C_t]`."""
    up[t] = (y[t] > 0 and alpha[t] < C[t]) or (y[t] < 0 and alpha[t] > 0)
    low[t] = (y[t] > 0 and alpha[t] > 0) or (y[t] < 0 and alpha[t] < C[t])


@njit(cache=True)
def working_sets(y, C, alpha, grad):
    """``(v, up, low)``: :math:`v = y \\circ g` and the flags of :math:`I_{up}`, :math:`I_{low}` (:func:`place`)."""
    n = y.shape[0]
    v = np.empty(n)
    up = np.empty(n, dtype=np.bool_)
    low = np.empty(n, dtype=np.bool_)
    for t in range(n):
        v[t] = y[t] * grad[t]
        place(y, C, alpha, up, low, t)
    return v, up, low


# b from the KKT conditions: y_t g_t = y_t - f_t equals b on free points, bounds it on the others.
@njit(cache=True)
def intercept(v, up, low):
    """``(b, rule)``: the KKT bias, the mean of :math:`v_t = y_t g_t` over free points (in both sets; rule 0,
    LIBSVM's choice), else the midpoint of the bounds the others give (rule 1: a point only in :math:`I_{up}`
    bounds b from below, one only in :math:`I_{low}` from above), else the one bound there is (rule 2).
    A point in neither set (its box is {0}) bounds nothing.  Names: :data:`INTERCEPT_RULES`."""
    s = 0.0
    n_free = 0
    lo = -np.inf
    hi = np.inf
    for t in range(v.shape[0]):
        if up[t] and low[t]:
            s += v[t]
            n_free += 1
        elif up[t]:
            lo = max(lo, v[t])
        elif low[t]:
            hi = min(hi, v[t])
    if n_free > 0:
        return s / n_free, 0
    if lo > -np.inf and hi < np.inf:
        return 0.5 * (lo + hi), 1
    if lo > -np.inf:
        return lo, 2
    if hi < np.inf:
        return hi, 2
    return 0.0, 2


# P = ||w||^2/2 + sum_t C_t max(0, 1 - y_t (f_t + b)),  D = 1'alpha - ||w||^2/2, both from g = 1 - Q alpha.
@njit(cache=True)
def relative_gap(y, C, alpha, v, up, low):
    """(P - D) / |P| from the cached gradient :math:`g = y \\circ v`: f_t = y_t (1 - g_t), ||w||^2 = sum alpha_t (1 - g_t)."""
    b = intercept(v, up, low)[0]
    norm2 = 0.0
    s_alpha = 0.0
    hinge = 0.0
    for t in range(y.shape[0]):
        g = y[t] * v[t]
        norm2 += alpha[t] * (1.0 - g)
        s_alpha += alpha[t]
        m = (1.0 - g) + y[t] * b  # y_t (f_t + b)
        if m < 1.0:
            hinge += C[t] * (1.0 - m)
    P = 0.5 * norm2 + hinge
    D = s_alpha - 0.5 * norm2
    if P == 0.0:  # P > 0 for two classes; 0 only by underflow, and then no relative gap is known
        return math.inf
    return (P - D) / abs(P)


# ---- the working-set rules -------------------------------------------------------------------------

@njit(cache=True)
def random_pair(v, up, low, b, u1, u2, active, n_active):
    """The course's simplified rule over the samples ``active[:n_active]`` (every sample: ``arange(n)``, n): the
    ``floor(u1 * count)``-th KKT violator for the bias ``b`` (in index order: in :math:`I_{up}` with
    :math:`v_t > b`, or in :math:`I_{low}` with :math:`v_t < b`) and a partner ``floor(u2 * (n_active - 1))``
    among the others, from two uniforms in [0, 1).
    Returns ``(i, j)``, ``(-1, -1)`` when nothing violates by more than ``1e-12 (1 + |b|)`` or no partner is
    left (one active sample)."""
    if n_active < 2:
        return -1, -1
    scale = 1e-12 * (1.0 + abs(b))
    count = 0
    for k in range(n_active):
        t = active[k]
        if (up[t] and v[t] > b + scale) or (low[t] and v[t] < b - scale):
            count += 1
    if count == 0:
        return -1, -1
    left = min(int(u1 * count), count - 1)
    at = -1
    for k in range(n_active):
        t = active[k]
        if (up[t] and v[t] > b + scale) or (low[t] and v[t] < b - scale):
            if left == 0:
                at = k
                break
            left -= 1
    k = min(int(u2 * (n_active - 1)), n_active - 2)
    if k >= at:
        k += 1
    return active[at], active[k]


@njit(cache=True)
def first_index(v, up, active, n_active):
    """i of the deterministic rules: :math:`\\arg\\max_{t \\in I_{up}} v_t` over ``active[:n_active]`` (the first
    on a tie), -1 if none is in :math:`I_{up}`."""
    i = -1
    vi = -np.inf
    whole = n_active == v.shape[0]  # then active is arange(n), and reading k spares the pass its gathers
    for k in range(n_active):
        t = k if whole else active[k]
        w = v[t] if up[t] else -np.inf  # a select, not a branch
        if w > vi:
            vi = w
            i = t
    return i


@njit(cache=True)
def partner(rule, i, Ki, diag, v, low, active, n_active):
    """j for the first index ``i``, or -1 when the maximal violating pair violates by no more than rounding
    (:func:`violates_beyond_rounding`).  Rule 1: :math:`\\arg\\min_{t \\in I_{low}} v_t`; rule 2 (LIBSVM's
    second order): the t of :math:`I_{low}` with :math:`b_{it} = v_i - v_t > 0` of largest gain
    :math:`b_{it}^2 / a_{it}`, :math:`a_{it} = K_{ii} + K_{tt} - 2 K_{it}` (``TAU`` if not positive), ``Ki``
    row i of K (unread by rule 1).  Over ``active[:n_active]``; ties go to the first."""
    vi = v[i]
    j = -1
    lowest = np.inf  # M, the smallest v_t over I_low
    whole = n_active == v.shape[0]  # then active is arange(n), and reading k spares the pass its gathers
    if rule == 1:
        for k in range(n_active):
            t = k if whole else active[k]
            w = v[t] if low[t] else np.inf
            if w < lowest:
                lowest = w
                j = t
    else:
        best = np.inf
        di = diag[i]
        for k in range(n_active):
            t = k if whole else active[k]
            w = v[t] if low[t] else np.inf  # outside I_low: b_it = -inf, no candidate
            lowest = min(lowest, w)
            bt = vi - w
            at = di + diag[t] - 2.0 * Ki[t]
            at = at if at > 0 else TAU
            score = -(bt * bt) / at if bt > 0 else np.inf
            if score < best:
                best = score
                j = t
    if j < 0 or not violates_beyond_rounding(vi, lowest):
        return -1
    return j


# ---- shrinking: LIBSVM's do_shrinking -----------------------------------------------------------------
# A sample at a bound that can be in no violating pair is set aside: one only in I_up with v_t < M (M the
# smallest v over I_low; an i needs v_i > M), one only in I_low with v_t > m (m the largest v over I_up; a j
# needs v_j < m), one in neither set (its box is {0}).  The working-set rules then look at the others only,
# active[:n_active] in index order (so that ties go as they would over every sample).  The pair update still
# writes every sample's v: the kernel rows are whole (the row cache is shared with the multiclass solvers),
# and the update is one vectorised pass over two rows, so every sample's gradient stays current and none
# needs LIBSVM's reconstruct_gradient; a set-aside sample that becomes a violator is judged again at the
# next shrink, and every sample is looked at before a run ends.

#: Shrink every ``min(n, SHRINK_EVERY)`` steps (LIBSVM's counter).
SHRINK_EVERY = 1000


@njit(cache=True)
def shrink_period(n):
    """Steps between two shrinks on n samples: ``min(n, SHRINK_EVERY)``."""
    return min(n, SHRINK_EVERY)


@njit(cache=True)
def shrink(v, up, low, active):
    """Judge every sample (the comment above, with m and M over every sample) and write those that stay, in
    index order, at the front of ``active``; returns their number.  (LIBSVM judges the active samples only;
    judging all brings back, every period, a sample that became a violator while set aside.)"""
    m = -np.inf
    M = np.inf
    n = v.shape[0]
    for t in range(n):
        w = v[t]
        m = max(m, w) if up[t] else m
        M = min(M, w) if low[t] else M
    kept = 0
    for t in range(n):
        if (up[t] and (low[t] or v[t] >= M)) or (low[t] and (up[t] or v[t] <= m)):
            active[kept] = t
            kept += 1
    return kept


@njit(cache=True)
def countdown(v, up, low, active, n_active, shrink_in):
    """LIBSVM's shrinking counter, before a step (both paths): at 0 :func:`shrink` sets samples aside and a new
    period begins.  Returns ``(n_active, shrink_in)`` after the step's tick."""
    if shrink_in == 0:
        n_active = shrink(v, up, low, active)
        shrink_in = shrink_period(v.shape[0])
    return n_active, shrink_in - 1


@njit(cache=True)
def everything(active):
    """Every sample active again (``active = arange(n)``); returns n."""
    for t in range(active.shape[0]):
        active[t] = t
    return active.shape[0]


# ---- the pair step and the loop ----------------------------------------------------------------------

@njit(cache=True)
def pair_step(y, C, alpha, v, up, low, i, j, Ki, Kj, b):
    """Step on the pair ``(i, j)`` in place: solve it (:func:`pair_update`), write ``alpha[i], alpha[j]`` and their
    set flags, and :math:`v_t \\leftarrow v_t - y_i K_{ti} \\Delta_i - y_j K_{tj} \\Delta_j` (that is
    :math:`g_t \\leftarrow g_t - Q_{ti} \\Delta_i - Q_{tj} \\Delta_j`, :math:`Q_{ts} = y_t y_s K_{ts}`; ``Ki, Kj`` rows i
    and j of K) for every t, set aside or not.  Returns the step's :class:`PairPicture` (errors
    ``E_t = b - v_t`` for the bias ``b``)."""
    vi = v[i]
    vj = v[j]
    ai = alpha[i]
    aj = alpha[j]
    eta, L, H, unc, aj_new, ai_new = pair_update(y[i], y[j], ai, aj, vi, vj, Ki[i], Kj[j], Ki[j], C[i], C[j])
    di = ai_new - ai
    dj = aj_new - aj
    if di != 0.0 or dj != 0.0:
        alpha[i] = ai_new
        alpha[j] = aj_new
        place(y, C, alpha, up, low, i)
        place(y, C, alpha, up, low, j)
        ci = di * y[i]
        cj = dj * y[j]
        for t in range(v.shape[0]):
            v[t] = v[t] - ci * Ki[t] - cj * Kj[t]
    return PairPicture(i=i, j=j, E_i=b - vi, E_j=b - vj, eta=eta, L=L, H=H, alpha_i_old=ai, alpha_j_old=aj,
                       alpha_j_unclipped=unc, alpha_j_new=aj_new, alpha_i_new=ai_new)


@njit(cache=True)
def pick(rows, rule, v, up, low, diag, b, u1, u2, active, n_active, no_row):
    """The loop's pair by ``rule`` (0 random, 1 max violating pair, 2 second order) over ``active[:n_active]``:
    ``(i, j)``, or ``(-1, -1)`` when none violates beyond rounding (``no_row``: an empty array, the row rule 1
    does not read).  (The step path makes the same calls.)"""
    if rule == 0:
        return random_pair(v, up, low, b, u1, u2, active, n_active)
    i = first_index(v, up, active, n_active)
    if i < 0:
        return -1, -1
    j = partner(rule, i, get_row(rows, i) if rule == 2 else no_row, diag, v, low, active, n_active)
    return (i, j) if j >= 0 else (-1, -1)


@njit(cache=True)
def smo_loop(rows, diag, y, C, alpha, grad, n_steps, rule, uniforms, tol, check_every, shrinking, active, n_active,
             shrink_in):
    """Run up to ``n_steps`` pair steps in place (``alpha``, ``grad``, the row cache ``rows``, ``active``).

    ``C``: the (n,) bounds; ``rule``: random, max violating pair or second order (0, 1, 2).  With ``shrinking``,
    every :func:`shrink_period` steps (``shrink_in`` counts down to the next) :func:`shrink` sets samples aside
    and the rules look at ``active[:n_active]`` only.  Returns ``(steps, picture, n_active, shrink_in)``, picture
    the last step's :class:`PairPicture`.  Stops early when no pair violates beyond rounding, or a deterministic
    rule's pair did not move (it would be picked again), each only with every sample active: found among the
    active samples, every sample is looked at again (and with a pair found, LIBSVM shrinks at the next step);
    or, with ``tol >= 0``, at a check whose cached gap (over every sample) is at most ``tol``.  The bias is
    :func:`intercept`'s, every step for the random rule, else every ``check_every`` steps and at the last.
    The steps keep :func:`working_sets`' ``v`` and flags; ``grad`` is written back from v at the end
    (exactly: y is +-1).
    """
    n = y.shape[0]
    v, up, low = working_sets(y, C, alpha, grad)
    no_row = np.empty(0)
    b = 0.0
    picture = NO_PAIR
    taken = n_steps
    for step in range(n_steps):
        if shrinking:
            n_active, shrink_in = countdown(v, up, low, active, n_active, shrink_in)
        if rule == 0 or step == n_steps - 1 or step % check_every == check_every - 1:
            b = intercept(v, up, low)[0]
        i, j = pick(rows, rule, v, up, low, diag, b, uniforms[step, 0], uniforms[step, 1], active, n_active, no_row)
        if j < 0 and n_active < n:  # none among the active samples: look at every sample
            n_active = everything(active)
            i, j = pick(rows, rule, v, up, low, diag, b, uniforms[step, 0], uniforms[step, 1], active, n_active, no_row)
            if j >= 0:
                shrink_in = 0  # shrink again at the next step
        if j < 0:  # the KKT conditions hold: a null step, pictured with no pair
            taken = step + 1
            picture = NO_PAIR
            break
        Ki = get_row(rows, i)
        Kj = get_row(rows, j)  # the cache holds at least two rows: Ki stays valid
        picture = pair_step(y, C, alpha, v, up, low, i, j, Ki, Kj, b)
        if picture.alpha_i_new == picture.alpha_i_old and picture.alpha_j_new == picture.alpha_j_old and rule != 0:
            if n_active == n:
                taken = step + 1  # nothing moved: a deterministic rule would pick it again
                break
            n_active = everything(active)  # look at every sample first
        if tol >= 0 and step % check_every == check_every - 1:
            if relative_gap(y, C, alpha, v, up, low) <= tol:
                taken = step + 1
                break
    for t in range(n):
        grad[t] = y[t] * v[t]
    return taken, picture, n_active, shrink_in
