"""Compiled kernels of :class:`~svmteach.solvers.dual_cd.DualCoordinateAscent`: the coordinate step, the epochs and their loops.

A leaf: it imports nothing from the step path.  The step's kernels are inlined into the loops in numba's IR
(``inline="always"``): LLVM left them as calls, a fixed cost a visit; they are small, so the loops compile quickly
all the same.  The step path (:mod:`svmteach.solvers.dual_cd`)
takes each step with the loops' own kernels, :func:`visit`, :func:`after_visit` and, with the linear
kernel, :func:`linear_gradient` and :func:`add_row`, so both paths decide from the same numbers.
The loops:

- any kernel (:func:`steps_gram`): the cached gradient ``g`` is updated with row i of
  :math:`Q_{it} = y_i y_t K_{it}`, read from the run's bounded row cache; Q is never formed;
- linear kernel (:func:`steps_linear`): ``w = sum_i alpha_i y_i x_i`` is kept instead, O(nonzeros of
  x_i) a step: :math:`g_i = 1 - y_i w^\\top x_i`, :math:`Q_{ii} = \\|x_i\\|^2`,
  :math:`w \\leftarrow w + \\Delta y_i x_i` (Hsieh et al. 2008).

The epochs are LIBLINEAR's (``solve_l2r_l1l2_svc``; Hsieh et al. 2008, section 3.1): an index array
holds the active coordinates first; an epoch visits the first ``n_active`` in an order shuffled in
place at its start.  A coordinate set aside swaps places with the last active one and ``n_active``
shrinks by one, so the entry that took its place is visited next.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..rows import row_axpy, row_dot
from .numba_kernel_rows import get_row

# Shrinking (LIBLINEAR): with G = -g_i the minimisation gradient, a coordinate at 0 with
# G > hi (or at its bound C with G < lo) is set aside; else PG, the projected gradient, is G
# clipped to the side the box allows.  A box {0} (C = 0: a sample of weight 0) allows no side:
# PG = 0, and it is set aside by either test (it is at both ends).
@njit(cache=True, inline="always")
def projected_gradient(G, alpha_i, C, hi, lo):
    """LIBLINEAR's test for one coordinate in the box ``[0, C]``: ``(shrink, PG)`` with G the
    minimisation gradient."""
    if C == 0.0:
        return G > hi or G < lo, 0.0
    if alpha_i == 0.0:
        if G > hi:
            return True, 0.0
        return False, min(G, 0.0)
    if alpha_i == C:
        if G < lo:
            return True, 0.0
        return False, max(G, 0.0)
    return False, G


# The coordinate step, derived in the module docstring of svmteach.solvers.dual_cd.
@njit(cache=True, inline="always")
def maximize_parabola(a, b, C, current):
    """Maximise ``a x^2 + b x`` over ``[0, C]``; return ``(unclipped, clipped)``.

    ``a < 0``: the vertex ``-b / (2a)``, clipped.  ``a >= 0`` (no interior maximum): the better
    end; "unclipped" is then +-inf in the direction of ascent at ``current`` (``current`` when flat).
    """
    if a < 0:
        x = -b / (2.0 * a)
        return x, min(max(x, 0.0), C)
    slope = 2.0 * a * current + b
    unclipped = math.copysign(math.inf, slope) if slope != 0 else current
    value_at_C = a * C * C + b * C
    if value_at_C > 0.0:
        return unclipped, C
    if value_at_C < 0.0:
        return unclipped, 0.0
    if current == 0.0 or current == C:
        return unclipped, current
    return unclipped, 0.0


class CoordinatePicture(NamedTuple):
    """What one coordinate step did: the fields of :class:`~svmteach.solvers.dual_cd.DualCDState`
    that picture it, built by keyword by :func:`visit` and handed back by the loops.

    Attributes
    ----------
    i : int, the coordinate visited.
    a, b : float, the parabola ``a x^2 + b x`` maximised over [0, C_i].
    alpha_unclipped : float, its unconstrained maximiser (+-inf if it has none, NaN if shrunk).
    alpha_clipped : float, the new alpha_i;  delta : float, its change.
    shrunk : bool, the coordinate was set aside instead of updated.
    """

    i: int
    a: float
    b: float
    alpha_unclipped: float
    alpha_clipped: float
    delta: float
    shrunk: bool


#: The picture of no step (the start of a run): no coordinate, no parabola (a = b = 0), no change.
NO_COORDINATE = CoordinatePicture(i=-1, a=0.0, b=0.0, alpha_unclipped=math.nan, alpha_clipped=math.nan,
                                  delta=0.0, shrunk=False)


class Sweep(NamedTuple):
    """Where the epochs stand: the scalar fields of :class:`~svmteach.solvers.dual_cd.DualCDState`
    that the loops carry from one call to the next (documented there)."""

    epoch: int
    pos: int
    n_active: int
    shrink_hi: float
    shrink_lo: float
    pg_max: float
    pg_min: float
    reactivate_at: float
    epoch_violation: float
    epoch_active: int


@njit(cache=True, inline="always")
def visit(i, g, Qii, C_i, alpha, hi, lo):
    """One coordinate in its box ``[0, C_i]`` with the shrinking thresholds ``hi, lo``: writes
    ``alpha[i]`` unless it is set aside.

    Returns ``(picture, pg)``: the :class:`CoordinatePicture` of the step and the projected gradient
    (NaN when the coordinate was set aside: ``picture.shrunk``).
    """
    a = -0.5 * Qii
    b = g + Qii * alpha[i]
    old = alpha[i]
    shrink, pg = projected_gradient(-g, old, C_i, hi, lo)
    if shrink:
        return CoordinatePicture(i=i, a=a, b=b, alpha_unclipped=math.nan, alpha_clipped=old, delta=0.0,
                                 shrunk=True), math.nan
    unclipped, new = maximize_parabola(a, b, C_i, old)
    alpha[i] = new
    return CoordinatePicture(i=i, a=a, b=b, alpha_unclipped=unclipped, alpha_clipped=new, delta=new - old,
                             shrunk=False), pg


# The linear kernel's coordinate gradient from w = sum_s alpha_s y_s x_s, and w's update: O(nonzeros of x_i).
@njit(cache=True, inline="always")
def linear_gradient(X, y, w, i):
    """:math:`g_i = 1 - y_i w^\\top x_i` (X dense or the CSR of :func:`~svmteach.rows.compiled_rows`); called by
    the step path and by :func:`steps_linear`, so both take their decisions from the same number."""
    return 1.0 - y[i] * row_dot(X, i, w)


@njit(cache=True, inline="always")
def add_row(X, i, a, w):
    """:math:`w \\leftarrow w + a x_i` in place (the step path's and :func:`steps_linear`'s update of w)."""
    row_axpy(X, i, a, w)


# ---- the epochs: LIBLINEAR's violation, shrinking thresholds and reactivation ---------------------

#: LIBLINEAR's default eps: the first violation below which a shrunk epoch reactivates every coordinate.
REACTIVATE_AT = 0.1


@njit(cache=True)
def epoch_violation(pg_max, pg_min):
    """The violation of an epoch from its largest and smallest projected gradient.

    :math:`\\max(PG_{max} - PG_{min},\\ PG_{max},\\ -PG_{min})`: at most eps exactly when LIBLINEAR's
    three tests (the spread, :math:`|PG_{max}|`, :math:`|PG_{min}|`) are.  +inf for an epoch that
    visited no coordinate.
    """
    if pg_max < pg_min:  # nothing visited: pg_max = -inf, pg_min = +inf
        return math.inf
    return max(pg_max - pg_min, pg_max, -pg_min)


@njit(cache=True)
def close_epoch(n, n_active, pg_max, pg_min, reactivate_at, shrinking):
    """The end of an epoch: its violation, whether LIBLINEAR would decide something here, and the next
    epoch's active set and thresholds.

    Returns ``(n_active, shrink_hi, shrink_lo, reactivate_at, violation, decision)``; ``decision``:
    the violation is at most ``reactivate_at``, where LIBLINEAR stops (full epoch) or reactivates
    (shrunk one).  As LIBLINEAR:

    - a shrunk epoch at a decision, or one that set everything aside, reactivates every coordinate;
    - a full epoch at a decision: the gap decides the stop (``solve``), so the run goes on with
      ``reactivate_at`` halved below that violation;
    - otherwise the next thresholds are this epoch's largest and smallest projected gradient
      (+-inf when of the wrong sign, and always without shrinking).
    """
    inf = math.inf
    violation = epoch_violation(pg_max, pg_min)
    decision = violation <= reactivate_at
    if decision and n_active == n:  # a full pass at LIBLINEAR's stop: ask for less before the next decision
        reactivate_at = 0.5 * violation
    if not shrinking:
        return n, inf, -inf, reactivate_at, violation, decision
    if n_active == 0 or (n_active < n and decision):
        return n, inf, -inf, reactivate_at, violation, decision
    hi = pg_max if pg_max > 0.0 else inf
    lo = pg_min if pg_min < 0.0 else -inf
    return n_active, hi, lo, reactivate_at, violation, decision


# ---- the visiting order: a Fisher-Yates pass over the active prefix, from a counter-based stream ----

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # splitmix64's increment (2^64 / golden ratio)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def _mix(z):
    """splitmix64's finaliser: a bijection of 64-bit words whose outputs look independent."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _stream(seed, epoch):
    """The start of splitmix64's stream for ``(seed, epoch)``, which :func:`shuffle_prefix` and :func:`random_unit`
    step through."""
    return _mix(_mix(np.uint64(seed) + _GOLDEN) ^ np.uint64(epoch))


@njit(cache=True)
def shuffle_prefix(index, m, seed, epoch):
    """Shuffle ``index[:m]`` in place: epoch ``epoch``'s order of the active coordinates.

    The random numbers are splitmix64's stream started from ``(seed, epoch)``, so the order depends on
    the seed, the epoch and the prefix only: both paths draw the same one, and a run is replayable
    from its state.  Position k swaps with a uniform position of ``[k, m)`` (Fisher-Yates).
    """
    s = _stream(seed, epoch)
    for k in range(m - 1):
        s += _GOLDEN
        j = k + np.int64(_mix(s) % np.uint64(m - k))
        t = index[k]
        index[k] = index[j]
        index[j] = t


@njit(cache=True)
def random_unit(seed, epoch, index):
    """The ``index``-th number in [0, 1) of splitmix64's stream started from ``(seed, epoch)`` (53 bits), as
    :func:`shuffle_prefix` draws its swaps: counter-based, so any path that asks for the same index gets it."""
    s = _stream(seed, epoch) + np.uint64(index + 1) * _GOLDEN
    return float(_mix(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def next_epoch(index, n, epoch, n_active, pg_max, pg_min, reactivate_at, shrinking, seed):
    """Close ``epoch`` (:func:`close_epoch`) and shuffle the next one's active prefix in ``index``;
    returns what :func:`close_epoch` does."""
    n_active_new, hi, lo, reactivate_at, violation, decision = close_epoch(n, n_active, pg_max, pg_min,
                                                                           reactivate_at, shrinking)
    shuffle_prefix(index, n_active_new, seed, epoch + 1)
    return n_active_new, hi, lo, reactivate_at, violation, decision


@njit(cache=True, inline="always")  # inlined in numba IR: the loops' bookkeeping stays in registers
def after_visit(index, seed, shrinking, sweep, shrunk, pg):
    """Where the epochs stand after the visit of ``index[sweep.pos]``; returns ``(sweep, decision)``.

    A coordinate set aside (``shrunk``) swaps places in ``index`` with the last active entry and
    ``n_active`` drops (``pos`` stays: the entry now there is visited next); otherwise ``pos`` moves on
    and the projected gradient ``pg`` joins the epoch's extremes.  The visit that ends an epoch closes
    it and shuffles the next (:func:`next_epoch`); ``decision`` is its LIBLINEAR decision (False
    inside an epoch).  Called by both loops and by the step path, on ``index`` in place.
    """
    n_active, pos, pg_max, pg_min = sweep.n_active, sweep.pos, sweep.pg_max, sweep.pg_min
    if shrunk:
        n_active -= 1
        i = index[pos]
        index[pos] = index[n_active]
        index[n_active] = i
    else:
        pos += 1
        pg_max = max(pg_max, pg)
        pg_min = min(pg_min, pg)
    if pos < n_active:
        return Sweep(epoch=sweep.epoch, pos=pos, n_active=n_active, shrink_hi=sweep.shrink_hi,
                     shrink_lo=sweep.shrink_lo, pg_max=pg_max, pg_min=pg_min, reactivate_at=sweep.reactivate_at,
                     epoch_violation=sweep.epoch_violation, epoch_active=sweep.epoch_active), False
    n_next, hi, lo, reactivate_at, violation, decision = next_epoch(
        index, index.shape[0], sweep.epoch, n_active, pg_max, pg_min, sweep.reactivate_at, shrinking, seed)
    return Sweep(epoch=sweep.epoch + 1, pos=0, n_active=n_next, shrink_hi=hi, shrink_lo=lo, pg_max=-math.inf,
                 pg_min=math.inf, reactivate_at=reactivate_at, epoch_violation=violation,
                 epoch_active=n_active), decision


# ---- the loops ---------------------------------------------------------------------------------------
# Both run up to n_steps steps from ``sweep``, in place on alpha, index and grad (or w); C is (n,).
# The step that ends an epoch closes it and shuffles the next, so a state is always inside an epoch;
# at a LIBLINEAR decision (close_epoch) the loop returns, so ``solve`` reads the violation there.


@njit(cache=True)
def steps_gram(rows, y, diag, C, alpha, grad, index, seed, shrinking, sweep, n_steps):
    """Coordinate steps with the cached gradient (any kernel; ``C`` the (n,) bounds C_i, ``diag`` the (n,)
    :math:`K_{ii} = Q_{ii}`): after alpha_i += delta, :math:`g_t \\leftarrow g_t - \\Delta\\, y_i y_t K_{it}`
    (Q is symmetric), row i of K from ``rows``, a :class:`~svmteach.solvers.kernel_scores.KernelRowCache`.
    Returns ``(picture, sweep, steps taken)``.

    Inside the loop ``grad`` holds :math:`v = y \\circ g` (so :math:`v_t \\leftarrow v_t - \\Delta y_i K_{it}`,
    one product less per entry); as :math:`y_t = \\pm 1`, multiplying by it only flips signs, so every
    number is the one the update of g itself gives, bit for bit; g is restored on return.
    """
    n = alpha.shape[0]
    for t in range(n):
        grad[t] *= y[t]  # v = y o g (exact: y_t = +-1)
    picture = NO_COORDINATE
    taken = 0
    while taken < n_steps:
        taken += 1
        i = index[sweep.pos]
        picture, pg = visit(i, y[i] * grad[i], diag[i], C[i], alpha, sweep.shrink_hi, sweep.shrink_lo)  # g_i = y_i v_i
        if picture.delta != 0.0:
            K_i = get_row(rows, i)  # row i of K, computed on a miss
            step = picture.delta * y[i]
            for t in range(n):
                grad[t] -= step * K_i[t]  # v_t -= Delta y_i K_it, i.e. g_t -= Delta Q_it
        sweep, decision = after_visit(index, seed, shrinking, sweep, picture.shrunk, pg)
        if decision:
            break
    for t in range(n):
        grad[t] *= y[t]  # g = y o v
    return picture, sweep, taken


@njit(cache=True)
def steps_linear(X, y, sqnorm, C, alpha, w, index, seed, shrinking, sweep, n_steps):
    """Coordinate steps keeping ``w`` (linear kernel; X dense or the CSR of :func:`~svmteach.rows.compiled_rows`;
    ``C`` the (n,) bounds C_i):
    :math:`g_i = 1 - y_i w^\\top x_i`, then :math:`w \\leftarrow w + \\Delta y_i x_i`.
    Returns ``(picture, sweep, steps taken)``."""
    picture = NO_COORDINATE
    taken = 0
    while taken < n_steps:
        taken += 1
        i = index[sweep.pos]
        picture, pg = visit(i, linear_gradient(X, y, w, i), sqnorm[i], C[i], alpha, sweep.shrink_hi, sweep.shrink_lo)
        if picture.delta != 0.0:
            add_row(X, i, picture.delta * y[i], w)
        sweep, decision = after_visit(index, seed, shrinking, sweep, picture.shrunk, pg)
        if decision:
            break
    return picture, sweep, taken
