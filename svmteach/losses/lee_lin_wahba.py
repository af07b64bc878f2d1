"""The Lee-Lin-Wahba loss: primal, dual, gradient, box, and its block solved exactly.

.. math::

    \\min_W \\tfrac12 \\sum_m \\|w_m\\|^2 + \\sum_i C_i \\sum_{m \\ne y_i} \\max(0, 1 + w_m^\\top x_i)
    \\quad \\text{s.t.} \\quad \\sum_m w_m = 0

(Lee, Lin and Wahba 2004, linear and without bias; one of the losses compared by Dogan,
Glasmachers and Igel 2016), with :math:`C_i = C` but for sample weights (``problem.C_i``).  Each wrong class's score is pushed below -1 on its own; the
sum-to-zero constraint keeps the scores from all sinking together.

**The dual** (derived and checked in ``svmteach.derivations``, model ``"llw"``).  With
multipliers :math:`\\alpha_{im} \\ge 0` for the hinges (:math:`m \\ne y_i`; :math:`\\alpha_{iy_i} = 0`)
and :math:`\\nu` for the constraint, stationarity gives :math:`w_m = -\\sum_i \\alpha_{im} x_i - \\nu`;
summing over m and using :math:`\\sum_m w_m = 0` eliminates :math:`\\nu`, leaving
the row-centred multipliers

.. math::

    w_m = -\\sum_i (\\alpha_{im} - \\bar\\alpha_i) x_i, \\quad \\bar\\alpha_i = \\tfrac1k \\sum_m \\alpha_{im},
    \\qquad D(\\alpha) = \\sum_{i, m \\ne y_i} \\alpha_{im} - \\tfrac12 \\|W\\|_F^2,
    \\quad 0 \\le \\alpha_{im} \\le C_i,

a box-constrained dual (no equality left).  Because :math:`\\sum_m w_m = 0`, the gradient of
:math:`f = -D` is simply :math:`\\partial f / \\partial \\alpha_{im} = -(1 + w_m^\\top x_i)`: the hinge's
argument, negated.

**The block, solved exactly.**  Moving sample i's off-label multipliers by δ moves
:math:`w_m` by :math:`-(\\delta_m - \\bar\\delta) x_i`, so with :math:`q = \\|x_i\\|^2` and scores
:math:`s = W x_i` the block problem in the new values :math:`\\beta` (k-1 entries) is, with C
standing for the sample's :math:`C_i`,

.. math::

    \\min_{0 \\le \\beta \\le C} \\tfrac q2 \\Bigl(\\|\\beta\\|^2 - \\tfrac1k (\\mathbf 1^\\top \\beta)^2\\Bigr) - c^\\top \\beta,
    \\qquad c_m = 1 + s_m + q \\bigl(\\alpha_{im} - \\tfrac1k \\mathbf 1^\\top \\alpha_i\\bigr).

Its Hessian :math:`q (I - \\mathbf 1 \\mathbf 1^\\top / k)` is positive definite (eigenvalues q and q/k),
and its KKT conditions read :math:`\\beta_m = \\operatorname{clip}(u_m + T / k, 0, C)` with :math:`u = c / q` and
:math:`T = \\mathbf 1^\\top \\beta`.  So T is the root of

.. math::

    \\varphi(T) = \\sum_m \\operatorname{clip}(u_m + T/k, 0, C) - T,

which is piecewise linear with slope between -1 and -1/k (so it has exactly one root), with
:math:`\\varphi(0) \\ge 0 \\ge \\varphi((k-1) C)`; its kinks are at :math:`T = -k u_m` and :math:`k (C - u_m)`.
Sorting them, the root lies on the first piece where :math:`\\varphi` turns non-positive, and
there :math:`\\varphi` is linear: one interpolation gives T exactly.  (Weston-Watkins' block has
:math:`+\\mathbf 1 \\mathbf 1^\\top` where this one has :math:`-\\mathbf 1 \\mathbf 1^\\top / k`: the same kind of root.)
A block of negligible curvature (:math:`q k C \\le \\epsilon \\max |c|`, a zero row) is linear and
solved at its bounds: :math:`\\beta_m = C` where :math:`c_m > 0`, 0 where :math:`c_m < 0`; so is every
block of a sample with :math:`C_i = 0`, whose box {0} holds it at 0.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..rows import compiled_rows, row_axpy, row_dot
from .base import (EPOCH_FASTMATH, EPS, Embedding, MulticlassLoss, at_rest, box_violation, column_C, no_shrinking,
                   off_label_box_violation, one_hot)


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
    embedding = Embedding(off=1.0, label=0.0, set="box")

    def weight_rows(self, problem, alpha):
        xp = problem.xp
        return -(alpha - xp.mean(alpha, axis=1, keepdims=True))  # w_m = -sum_i (alpha_im - abar_i) x_i

    def weights(self, problem, alpha):
        """:math:`W(\\alpha)`, its columns re-centred: the rows of A sum to 0, so every column of W does in exact
        arithmetic, and subtracting their rounding (up to 1e-7 of ||W||^2 on features near 1e3) keeps the
        constraint :math:`\\sum_m w_m = 0` and a gap that is never negative at an optimum."""
        W = super().weights(problem, alpha)
        return W - problem.xp.mean(W, axis=0, keepdims=True)

    def dual_linear(self, problem, alpha):
        xp = problem.xp
        return float(xp.sum(xp.where(one_hot(problem), 0.0, alpha)))

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

    def curvature_scale(self, problem):
        return 1.0

    def block_targets(self, problem, alpha, G):
        xp, k = problem.xp, problem.k
        Y = one_hot(problem)
        a = self.block_curvatures(problem)[:, None]
        # u = c / a = alpha_m - (1'alpha_i) / k - g_m / a  (c_m = -g_m + a (alpha_m - 1'alpha_i / k))
        U = alpha - xp.sum(alpha, axis=1, keepdims=True) / k - G / a
        return xp.where(Y, 0.0, solve_blocks(U, column_C(problem), k, exclude=Y))

    def blank_block(self, problem):
        return LLWBlock(y=-1, grad=None, u=None, t=math.nan, beta=None, delta=None)

    def block_step(self, problem, alpha_i, s, q, y, C=None, **options):
        self.check_block_options(options)
        xp, C, k = problem.xp, self.sample_C(problem, C), problem.k
        is_y = xp.arange(k) == y
        others = xp.asarray([m for m in range(k) if m != y])
        grad = xp.where(is_y, 0.0, -(1.0 + s))
        c = xp.take(1.0 + s + q * (alpha_i - xp.sum(alpha_i) / k), others)
        if q * k * C > EPS * float(xp.max(xp.abs(c))):
            u = c / q
            beta = solve_block(u, C, k)
        else:  # zero row, or a curvature below the rounding of c: a linear block, solved at the bounds
            u = c
            beta = xp.where(c > 0, C, xp.where(c < 0, 0.0, xp.take(alpha_i, others)))
        new = xp.concat([beta[:y], xp.zeros(1, dtype=xp.float64), beta[y:]])
        return new, LLWBlock(y=y, grad=grad, u=u, t=float(xp.sum(beta)), beta=beta, delta=new - alpha_i)

    def epoch(self, problem, alpha, W, order, active=None, margin=0.0, classes=None, **options):
        """See :meth:`MulticlassLoss.epoch`; a non-empty (n,) bool ``active`` has the samples at rest
        (alpha_i = 0 and every ``1 + s_m < -margin``, as :func:`~svmteach.losses.base.at_rest`) set
        aside (False) in it."""
        self.check_block_options(options)
        return _llw_epoch(compiled_rows(problem.X), problem.sqnorm, problem.codes, problem.C_i, alpha, W, order,
                          no_shrinking(active), float(margin))

    def dual_weights(self, problem, alpha):
        xp = problem.xp
        return xp.sum(xp.where(one_hot(problem), 0.0, alpha), axis=1)

    def dual_weight_bound(self, problem):
        return float(problem.xp.max(problem.C_i)) * (problem.k - 1)


def solve_block(u, C, k):
    """The block's solution ``clip(u + T / k, 0, C)`` at the root T of phi (module docstring); u (k-1,)."""
    return solve_blocks(u[None, :], C, k)[0, :]


def solve_blocks(U, C, k, exclude=None):
    """Every row of ``U`` solved as :func:`solve_block` (array API), entries marked in ``exclude`` left out.

    ``U`` is (n, p); ``C`` the box's bound, a number or one per row ((n, 1); a row's may be 0); the rows' entries where ``exclude`` (n, p) is True take no part (their value in the
    result is meaningless): the parallel solver passes (n, k) rows with the label column excluded.
    """
    from ..backend import array_namespace

    xp = array_namespace(U)
    n = U.shape[0]
    C = xp.zeros((n, 1), dtype=xp.float64) + C  # (n, 1): each row's bound
    top = (k - 1) * C
    use = xp.ones(U.shape, dtype=xp.bool) if exclude is None else ~exclude
    # the kinks of phi, -k u and k (C - u), kept inside [0, (k-1) C] with the two ends added
    kinks = xp.concat([-k * U, k * (C - U)], axis=1)
    kinks = xp.where(xp.concat([use, use], axis=1), xp.minimum(xp.maximum(kinks, 0.0), top), 0.0)
    ends = xp.concat([xp.zeros((n, 1), dtype=xp.float64), top], axis=1)
    points = xp.sort(xp.concat([kinks, ends], axis=1), axis=1)  # (n, P)
    terms = xp.minimum(xp.maximum(U[:, None, :] + points[:, :, None] / k, 0.0), C[:, :, None])  # (n, P, p)
    phi = xp.sum(xp.where(use[:, None, :], terms, 0.0), axis=2) - points  # decreasing along P
    # the first point where phi <= 0 (the last one, phi((k-1) C) <= 0, always qualifies)
    last = xp.arange(points.shape[1])[None, :] == points.shape[1] - 1  # phi((k-1) C) <= 0 even if rounding says not
    first = xp.argmax(xp.astype((phi <= 0.0) | last, xp.int8), axis=1)[:, None]
    before = xp.maximum(first - 1, 0)
    T1, T0 = xp.take_along_axis(points, first, axis=1), xp.take_along_axis(points, before, axis=1)
    f1, f0 = xp.take_along_axis(phi, first, axis=1), xp.take_along_axis(phi, before, axis=1)
    span = f0 - f1
    # phi is linear on [T0, T1]: interpolate its root (T = T1 when phi(T0) <= 0 too, i.e. first == 0); where
    # f0 (T1 - T0), two values of the size of C, overflows, the fraction f0 / span in [0, 1] is taken first
    span = xp.where(span > 0, span, 1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        product = f0 * (T1 - T0)
        root = xp.where(xp.isfinite(product), T0 + product / span, T0 + f0 / span * (T1 - T0))
    T = xp.where((first > 0) & (f0 - f1 > 0), root, T1)
    return xp.minimum(xp.maximum(U + T / k, 0.0), C)  # clip(u + T / k, 0, C)


@njit(cache=True)
def _llw_block_row(u, C, k, out, points):
    """:func:`solve_block` for one row, in place on ``out``; ``points`` is scratch of length 2 len(u) + 2."""
    p = u.shape[0]
    top = (k - 1) * C
    for m in range(p):
        points[2 * m] = min(max(-k * u[m], 0.0), top)
        points[2 * m + 1] = min(max(k * (C - u[m]), 0.0), top)
    points[2 * p] = 0.0
    points[2 * p + 1] = top
    points.sort()
    T0 = 0.0
    f0 = 0.0
    T = top
    for j in range(2 * p + 2):
        Tj = points[j]
        fj = -Tj  # phi(Tj)
        for m in range(p):
            fj += min(max(u[m] + Tj / k, 0.0), C)
        if fj <= 0.0:
            T = Tj
            if j > 0 and f0 - fj > 0.0:
                product = f0 * (Tj - T0)  # as solve_blocks: the fraction in [0, 1] first where this overflows
                T = T0 + product / (f0 - fj) if np.isfinite(product) else T0 + f0 / (f0 - fj) * (Tj - T0)
            break
        T0 = Tj
        f0 = fj
    for m in range(p):
        out[m] = min(max(u[m] + T / k, 0.0), C)


@njit(cache=True, fastmath=EPOCH_FASTMATH)
def _llw_epoch(X, sqnorm, codes, C_i, alpha, W, order, active, margin):
    """:meth:`LeeLinWahba.block_step` for every sample of ``order`` (sample i's box [0, ``C_i[i]``]), in place; returns the largest block
    KKT violation met (each block's before its step, as :meth:`LeeLinWahba.kkt_violation`).  When
    ``active`` is not empty, a sample at rest (alpha_i = 0 and every ``1 + s_m < -margin``, ``margin >= 0``)
    is set aside there (False) and not stepped on (its exact step is 0: every :math:`c_m = 1 + s_m < 0`)."""
    k = W.shape[0]
    grad = np.zeros(k)
    s = np.empty(k)
    c = np.empty(k - 1)
    u = np.empty(k - 1)
    beta = np.empty(k - 1)
    points = np.empty(2 * (k - 1) + 2)
    worst = 0.0
    for i in order:
        y = codes[i]
        C = C_i[i]
        for m in range(k):  # s = W x_i
            s[m] = row_dot(X, i, W[m])
        q = sqnorm[i]
        total = 0.0
        for m in range(k):
            total += alpha[i, m]
        p = 0
        cmax = 0.0
        for m in range(k):  # c_m = 1 + s_m + q (alpha_im - 1'alpha_i / k)
            if m != y:
                g = -(1.0 + s[m])  # d f / d alpha_im
                grad[m] = g
                worst = max(worst, box_violation(g, alpha[i, m], C))  # its projected gradient in [0, C_i]
                c[p] = 1.0 + s[m] + q * (alpha[i, m] - total / k)
                cmax = max(cmax, abs(c[p]))
                p += 1
        # at rest: alpha_i = 0 and every d f / d alpha_im = -(1 + s_m) > margin
        if active.shape[0] > 0 and at_rest(grad, alpha, i, y, 1.0, margin, C):
            active[i] = False
            continue
        if q * k * C > EPS * cmax:
            for p in range(k - 1):
                u[p] = c[p] / q
            _llw_block_row(u, C, k, beta, points)
        else:  # the linear block: each beta_m at the bound its c_m points to
            p = 0
            for m in range(k):
                if m != y:
                    beta[p] = C if c[p] > 0 else (0.0 if c[p] < 0 else alpha[i, m])
                    p += 1
        shift = 0.0  # W moves by -(delta - mean(delta)) x_i'
        p = 0
        for m in range(k):
            if m != y:
                shift += beta[p] - alpha[i, m]
                p += 1
        shift /= k
        p = 0
        for m in range(k):
            dlt = 0.0
            if m != y:
                dlt = beta[p] - alpha[i, m]
                alpha[i, m] = beta[p]
                p += 1
            f = dlt - shift
            if f != 0.0:
                row_axpy(X, i, -f, W[m])
    return worst
