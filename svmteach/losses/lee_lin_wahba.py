"""The Lee-Lin-Wahba loss: primal, dual, gradient, box, and its block solved exactly.

.. math::

    \\min_W \\tfrac12 \\sum_m \\|w_m\\|^2 + \\sum_i C_i \\sum_{m \\ne y_i} \\max(0, 1 + w_m^\\top x_i)
    \\quad \\text{s.t.} \\quad \\sum_m w_m = 0

(Lee, Lin and Wahba 2004, linear and without bias; Dogan, Glasmachers and Igel 2016),
:math:`C_i` = ``problem.C_i``.  Each wrong class's score is pushed below -1 on its own; the
sum-to-zero constraint keeps the scores from all sinking together.

**The dual** (derived and checked in ``svmteach.derivations``, model ``"llw"``).  With
multipliers :math:`\\alpha_{im} \\ge 0` for the hinges (:math:`m \\ne y_i`; :math:`\\alpha_{iy_i} = 0`)
and :math:`\\nu` for the constraint, stationarity gives :math:`w_m = -\\sum_i \\alpha_{im} x_i - \\nu`;
:math:`\\sum_m w_m = 0` eliminates :math:`\\nu`:

.. math::

    w_m = -\\sum_i (\\alpha_{im} - \\bar\\alpha_i) x_i, \\quad \\bar\\alpha_i = \\tfrac1k \\sum_m \\alpha_{im},
    \\qquad D(\\alpha) = \\sum_{i, m \\ne y_i} \\alpha_{im} - \\tfrac12 \\|W\\|_F^2,
    \\quad 0 \\le \\alpha_{im} \\le C_i,

a box-constrained dual.  Because :math:`\\sum_m w_m = 0`, the gradient of :math:`f = -D` is
:math:`\\partial f / \\partial \\alpha_{im} = -(1 + w_m^\\top x_i)`.

**The block, solved exactly.**  Moving sample i's off-label multipliers by δ moves
:math:`w_m` by :math:`-(\\delta_m - \\bar\\delta) x_i`, so with :math:`q = \\|x_i\\|^2`, :math:`s = W x_i`
and C for :math:`C_i`, the block problem in the new values :math:`\\beta` (k-1 entries) is

.. math::

    \\min_{0 \\le \\beta \\le C} \\tfrac q2 \\Bigl(\\|\\beta\\|^2 - \\tfrac1k (\\mathbf 1^\\top \\beta)^2\\Bigr) - c^\\top \\beta,
    \\qquad c_m = 1 + s_m + q \\bigl(\\alpha_{im} - \\tfrac1k \\mathbf 1^\\top \\alpha_i\\bigr).

Its Hessian :math:`q (I - \\mathbf 1 \\mathbf 1^\\top / k)` is positive definite (eigenvalues q and q/k),
and its KKT conditions read :math:`\\beta_m = \\operatorname{clip}(u_m + T / k, 0, C)` with :math:`u = c / q` and
:math:`T = \\mathbf 1^\\top \\beta`.  So T is the root of

.. math::

    \\varphi(T) = \\sum_m \\operatorname{clip}(u_m + T/k, 0, C) - T,

piecewise linear with slope between -1 and -1/k (one root), :math:`\\varphi(0) \\ge 0 \\ge \\varphi((k-1) C)`,
kinks at :math:`T = -k u_m` and :math:`k (C - u_m)`.  The root lies on the first piece (kinks sorted) where
:math:`\\varphi` turns non-positive: one interpolation gives T exactly.
A block of negligible curvature (:math:`q k C \\le \\epsilon \\max |c|`, a zero row) is linear and
solved at its bounds: :math:`\\beta_m = C` where :math:`c_m > 0`, 0 where :math:`c_m < 0`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from numba import njit

from .base import Embedding, MulticlassLoss, column_C, off_label_box_violation, one_hot
from .row_kernels import (EPS, FASTMATH, RowKernels, at_rest, box_violation, centred_change, draw_end, draw_start, linear_block,
                          off_label_free, sort_small)


class LLWBlock(NamedTuple):
    """The picture of one exact Lee-Lin-Wahba block step (``None`` / NaN before the first step).

    Attributes
    ----------
    y : int, the sample's class;  grad : (k,) the gradient ``-(1 + s_m)`` before the step (0 at y).
    u : (k-1,) ``c / q`` (``c`` itself for a linear block);  t : float, the root T = 1' beta;
    beta : (k-1,) the block's solution ``clip(u + T / k, 0, C_i)``;  delta : (k,) the change of alpha_i.
    """

    y: int
    grad: object
    u: object
    t: float
    beta: object
    delta: object


class LeeLinWahba(MulticlassLoss):
    """The Lee-Lin-Wahba loss (see the module docstring)."""

    name = "llw"
    title = "Lee-Lin-Wahba"
    Block = LLWBlock
    sum_to_zero = True
    #: Its compiled row kernels (:mod:`~svmteach.losses.row_kernels`), below.
    kernels = None  # set after the kernels are defined
    embedding = Embedding(off=1.0, label=0.0, set="box")

    def weight_rows(self, problem, alpha):
        xp = problem.xp
        return -(alpha - xp.mean(alpha, axis=1, keepdims=True))  # w_m = -sum_i (alpha_im - abar_i) x_i

    def dual_linear(self, problem, alpha):
        xp = problem.xp
        return xp.sum(xp.where(one_hot(problem), 0.0, alpha))

    def sample_losses(self, problem, S):
        xp = problem.xp
        return xp.sum(xp.where(one_hot(problem), 0.0, xp.maximum(1.0 + S, 0.0)), axis=1)

    def gradient(self, problem, S):
        """:math:`-(1 + s_{im})` off the label, 0 at it."""
        xp = problem.xp
        return xp.where(one_hot(problem), 0.0, -(1.0 + S))

    def kkt_violation(self, problem, alpha, S):
        return off_label_box_violation(problem, alpha, self.gradient(problem, S))

    def bounds(self, problem):
        xp = problem.xp
        Y = one_hot(problem)
        return xp.zeros(Y.shape, dtype=xp.float64), xp.where(Y, 0.0, column_C(problem))  # alpha_{iy_i} = 0

    def feasible(self, problem, alpha):
        """The off-label entries clipped to [0, C_i]; the label entry 0."""
        xp = problem.xp
        clipped = xp.minimum(xp.maximum(xp.astype(alpha, xp.float64), 0.0), column_C(problem))
        return xp.where(one_hot(problem), 0.0, clipped)

    def blank_block(self, problem):
        return LLWBlock(y=-1, grad=None, u=None, t=math.nan, beta=None, delta=None)

    def block_picture(self, y, q, C, old, new, numbers, violation, moves):
        """The :class:`LLWBlock` of a step from its kernel's numbers (the gradient, u, beta)."""
        k = len(old)
        beta = numbers[2, : k - 1].copy()
        return LLWBlock(y=y, grad=numbers[0].copy(), u=numbers[1, : k - 1].copy(), t=float(beta.sum()), beta=beta,
                        delta=new - old)

    def dual_weights(self, problem, alpha):
        xp = problem.xp
        return xp.sum(xp.where(one_hot(problem), 0.0, alpha), axis=1)

    def dual_weight_bound(self, problem):
        return float(problem.xp.max(problem.C_i)) * (problem.k - 1)


# ---- the compiled row kernels (the contract: svmteach.losses.row_kernels) ----------------------------


@njit(cache=True, fastmath=FASTMATH, inline="always", _nrt=False)
def block(s, a, y, q, C, params, rest, look, scratch, picture):
    """The exact Lee-Lin-Wahba block over its free classes (:func:`~svmteach.losses.row_kernels.off_label_free`):
    with :math:`c_m = 1 + s_m + q (\\alpha_{im} - \\mathbf 1^\\top \\alpha_i / k)`, :func:`block_row` at
    :math:`u = c / q`, or linear when the curvature is below the rounding of c (a class held at 0 adds nothing
    to :math:`\\mathbf 1^\\top \\alpha_i`: the free classes' block has the same form).  ``s`` is read where
    ``look`` (every class when a picture is asked for).  Picture: the gradient, u, beta."""
    margin, shrink, shrink_classes = rest
    work, iwork = scratch[0], scratch[1]
    k = s.shape[0]
    grad, c, u, beta = work[0, :k], work[1, : k - 1], work[2, : k - 1], work[3, : k - 1]
    free = iwork[2 * k : 3 * k]
    drawn = picture.shape[0] > 0
    total = 0.0
    for m in range(k):
        total += a[m]
        grad[m] = -(1.0 + s[m]) if m != y and (look[m] or drawn) else 0.0  # d f / d alpha_im
    violation, nf = off_label_free(a, y, C, grad, margin, shrink_classes, look, free)
    cmax = 0.0
    for t in range(nf):
        m = free[t]
        c[t] = -grad[m] + q * (a[m] - total / k)
        cmax = max(cmax, abs(c[t]))
        beta[t] = a[m]
    curved = q * k * C > EPS * cmax  # the quadratic term above the rounding of c
    for t in range(nf):
        u[t] = c[t] / q if curved else c[t]
    if drawn:
        draw_start(picture, a, y, grad, q, total / k, curved)
    if shrink and at_rest(grad, a, y, 1.0, margin, C, look, False):
        return violation, -1
    if curved:
        block_row(u[:nf], C, k, beta[:nf], work[4, : 2 * nf + 2])
    else:
        linear_block(c[:nf], C, beta[:nf])
    for t in range(nf):
        a[free[t]] = beta[t]
    if drawn:
        draw_end(picture, y, free, nf, beta)
    return violation, 1


@njit(cache=True, fastmath=FASTMATH, inline="always", _nrt=False)
def coef(new, old, params, out):
    """:math:`A(\\delta)_m = -(\\delta_m - \\bar\\delta)` (w_m = -sum_i (alpha_im - mean_m alpha_i) x_i)."""
    centred_change(new, old, -1.0, out)


@njit(cache=True, _nrt=False)
def block_row(u, C, k, out, points):
    """The Lee-Lin-Wahba block ``clip(u + T / k, 0, C)`` at the root T of
    :math:`\\varphi(T) = \\sum_m \\operatorname{clip}(u_m + T/k, 0, C) - T` (the module's docstring), in place on
    ``out``; ``points`` is scratch of length 2 len(u) + 2.  Solved in units of C (``u / C`` in the box [0, 1],
    T in [0, k - 1]): the interpolation's numbers are of the size of k at any scale of C (at C = 1e-300 its
    product underflowed to 0, at 1e300 it overflowed, and the caller's reassociation undid the guard), so the
    block moves."""
    p = u.shape[0]
    top = k - 1.0
    for m in range(p):
        v = u[m] / C
        points[2 * m] = min(max(-k * v, 0.0), top)
        points[2 * m + 1] = min(max(k * (1.0 - v), 0.0), top)
    points[2 * p] = 0.0
    points[2 * p + 1] = top
    sort_small(points)
    # phi falls (slope n_free / k - 1 < 0): bisect for the first breakpoint where it is <= 0
    lo, hi = 0, 2 * p + 1
    f_lo, f_hi = phi_over_C(u, C, k, points[lo]), phi_over_C(u, C, k, points[hi])
    if f_lo <= 0.0:
        T = points[lo]
    elif f_hi > 0.0:  # rounding above 0 at T = k - 1 (where phi <= p - (k - 1) <= 0)
        T = top
    else:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            f_mid = phi_over_C(u, C, k, points[mid])
            if f_mid <= 0.0:
                hi, f_hi = mid, f_mid
            else:
                lo, f_lo = mid, f_mid
        T = points[hi]
        if f_lo - f_hi > 0.0:
            T = points[lo] + f_lo * (points[hi] - points[lo]) / (f_lo - f_hi)  # phi is linear on [T_lo, T_hi]
    for m in range(p):
        out[m] = C * min(max(u[m] / C + T / k, 0.0), 1.0)


@njit(cache=True, inline="always", _nrt=False)
def phi_over_C(u, C, k, T):
    """:math:`\\varphi(T) / C` of :func:`block_row` in units of C."""
    f = -T
    for m in range(u.shape[0]):
        f += min(max(u[m] / C + T / k, 0.0), 1.0)
    return f


@njit(cache=True, _nrt=False)
def terms(S, alpha, codes, C_i, M, out):
    """``out`` (n, 3): each sample's loss :math:`\\sum_{m \\ne y} \\max(1 + s_m, 0)`, dual term
    :math:`\\sum_{m \\ne y} \\alpha_{im}` and the largest projected gradient of its off-label entries in [0, C_i]
    (:class:`LeeLinWahba`'s NumPy methods, row by row)."""
    for i in range(S.shape[0]):
        s, a, y, C = S[i], alpha[i], codes[i], C_i[i]
        loss, linear, violation = 0.0, 0.0, 0.0
        for m in range(s.shape[0]):
            if m != y:
                loss += max(1.0 + s[m], 0.0)
                linear += a[m]
                violation = max(violation, box_violation(-(1.0 + s[m]), a[m], C))
        out[i, 0] = loss
        out[i, 1] = linear
        out[i, 2] = violation


LeeLinWahba.kernels = RowKernels(block=block, coef=coef, terms=terms)
