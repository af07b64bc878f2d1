"""Compiled kernels of :class:`~svmteach.solvers.dual_cd.DualCoordinateAscent`: the coordinate step and its loops.

A leaf: this module imports nothing from the step path.  Numba's on-disk cache
(``cache=True``) checks only the file that holds a compiled function, so every compiled
function here calls compiled functions of this file only (``tests/test_architecture.py``
asserts it).  The step path (:mod:`svmteach.solvers.dual_cd`) calls
:func:`projected_gradient` and :func:`maximize_parabola` from here, so both paths take the
same shrinking decision and the same one-dimensional maximisation, and drives the loops:

- any kernel: the cached gradient ``g`` is updated with a column of ``Q`` (O(n) a step);
- linear kernel: ``w = sum_i alpha_i y_i x_i`` is kept instead, so a step costs
  O(d): :math:`g_i = 1 - y_i w^\\top x_i`, :math:`Q_{ii} = \\|x_i\\|^2` and
  :math:`w \\leftarrow w + \\Delta y_i x_i` (Hsieh et al. 2008); the full gradient
  is rebuilt once at the end of the call.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from numba import njit


# Shrinking (LIBLINEAR): with G = -g_i the minimisation gradient, a coordinate at 0 with
# G > hi (or at C with G < lo) is set aside; else PG, the projected gradient, is G clipped
# to the side the box allows.
@njit(cache=True)
def projected_gradient(G, alpha_i, C, hi, lo):
    """LIBLINEAR's test for one coordinate: ``(shrink, PG)`` with G the minimisation gradient."""
    if alpha_i == 0.0:
        if G > hi:
            return True, 0.0
        return False, min(G, 0.0)
    if alpha_i == C:
        if G < lo:
            return True, 0.0
        return False, max(G, 0.0)
    return False, G


# The coordinate step: D along coordinate i is a x^2 + b x + const, a = -Q_ii / 2,
# b = g_i + Q_ii alpha_i; its maximiser on [0, C] is the clipped vertex -b / (2a) when a < 0.
@njit(cache=True)
def maximize_parabola(a, b, C, current):
    """Maximise ``a x^2 + b x`` over ``[0, C]``; return ``(unclipped, clipped)``.

    ``a < 0``: the vertex ``-b / (2a)``, clipped.  ``a >= 0`` (no interior
    maximum): the better end; the "unclipped" value is then +-inf in the
    direction of ascent at ``current`` (or ``current`` when flat).
    Compiled; called by the step path and by :func:`visit`.
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
    a, b : float, the parabola ``a x^2 + b x`` maximised over [0, C].
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


# One coordinate: the shrinking test on G = -g_i, then the parabola's maximiser on [0, C].
@njit(cache=True)
def visit(i, g, Qii, C, alpha, active, hi, lo):
    """One coordinate with the shrinking thresholds ``hi, lo``: writes ``alpha[i]`` (or ``active[i]``).

    Returns ``(picture, pg)``: the :class:`CoordinatePicture` of the step and the projected gradient
    (NaN when the coordinate was set aside).
    """
    a = -0.5 * Qii
    b = g + Qii * alpha[i]
    old = alpha[i]
    shrink, pg = projected_gradient(-g, old, C, hi, lo)
    if shrink:
        active[i] = False
        return CoordinatePicture(i=i, a=a, b=b, alpha_unclipped=math.nan, alpha_clipped=old, delta=0.0,
                                 shrunk=True), math.nan
    unclipped, new = maximize_parabola(a, b, C, old)
    alpha[i] = new
    return CoordinatePicture(i=i, a=a, b=b, alpha_unclipped=unclipped, alpha_clipped=new, delta=new - old,
                             shrunk=False), pg


# Any kernel: after alpha_i += delta the cached gradient g = 1 - Q alpha moves by -delta Q[:, i].
@njit(cache=True)
def steps_gram(Q, C, alpha, grad, order, active, hi, lo, pg_max, pg_min):
    """Coordinate steps over ``order`` with the cached gradient, in place.

    Returns ``(picture, pg_max, pg_min)``: the last step's :class:`CoordinatePicture` and the
    largest and smallest projected gradient seen so far this epoch.
    """
    n = alpha.shape[0]
    picture = NO_COORDINATE
    for i in order:
        picture, pg = visit(i, grad[i], Q[i, i], C, alpha, active, hi, lo)
        if not picture.shrunk:
            pg_max = max(pg_max, pg)
            pg_min = min(pg_min, pg)
        if picture.delta != 0.0:
            for t in range(n):
                grad[t] = grad[t] - picture.delta * Q[t, i]
    return picture, pg_max, pg_min


# Linear kernel (Hsieh et al. 2008): g_i = 1 - y_i w'x_i from w = sum_t alpha_t y_t x_t, Q_ii = |x_i|^2,
# and after alpha_i += delta, w += delta y_i x_i: O(d) a step, no gradient kept.
@njit(cache=True)
def steps_linear(X, y, sqnorm, C, alpha, w, order, active, hi, lo, pg_max, pg_min):
    """Coordinate steps over ``order`` keeping ``w`` (O(d) a step), in place.

    Returns ``(picture, pg_max, pg_min)`` as :func:`steps_gram` does.
    """
    d = X.shape[1]
    picture = NO_COORDINATE
    for i in order:
        wx = 0.0
        for m in range(d):
            wx += w[m] * X[i, m]
        picture, pg = visit(i, 1.0 - y[i] * wx, sqnorm[i], C, alpha, active, hi, lo)
        if not picture.shrunk:
            pg_max = max(pg_max, pg)
            pg_min = min(pg_min, pg)
        if picture.delta != 0.0:
            s = picture.delta * y[i]
            for m in range(d):
                w[m] += s * X[i, m]
    return picture, pg_max, pg_min
