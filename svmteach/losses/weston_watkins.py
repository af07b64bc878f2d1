"""The Weston-Watkins loss: primal, dual, gradient, box, and its block solved exactly.

.. math::

    \\min_W \\tfrac12 \\|W\\|_F^2 + \\sum_i C_i \\sum_{j \\ne y_i} \\max(0, 1 - M (w_{y_i} - w_j)^\\top x_i)

(Weston and Watkins 1999; the dual as in the blog post "The Weston-Watkins SVM dual problem",
2020, derived in ``svmteach.derivations``), :math:`C_i` = ``problem.C_i``.  The dual variables are (n, k) with
:math:`0 \\le \\alpha_{ij} \\le C_i` for :math:`j \\ne y_i` and :math:`\\alpha_{iy_i} = -\\sum_{j \\ne y_i} \\alpha_{ij}`;
:math:`W = -M \\alpha^\\top X` and :math:`D(\\alpha) = \\sum_{j \\ne y_i} \\alpha_{ij} - \\tfrac12 \\|W\\|_F^2`.

**The block, solved exactly** (Wang and Scott, ICML 2021).  With the block
:math:`\\beta = (\\alpha_{ij})_{j \\ne y_i}` of sample i and everything else fixed, the dual (as a
minimisation) is, up to a constant,

.. math::

    \\tfrac{a}{2}\\bigl(\\|\\beta\\|^2 + (\\mathbf 1^\\top \\beta)^2\\bigr) - c^\\top \\beta, \\qquad
    a = M^2 \\|x_i\\|^2, \\quad c_j = 1 - M (s_{y_i} - s_j) + a (\\alpha_{ij} - \\alpha_{iy_i}),

with scores :math:`s = W x_i`, because :math:`\\alpha_{iy_i} = -\\mathbf 1^\\top\\beta` makes the
block's Hessian :math:`a (I + \\mathbf 1 \\mathbf 1^\\top)`.  Dividing by a, the block is
:func:`svmteach.projections.ww_block_solve` with :math:`u = c / a` and the box :math:`[0, C]`
(C for :math:`C_i`), solved exactly by a sweep over its sorted breakpoints (:func:`block_row`).  A zero row (a = 0), or one
whose quadratic term (at most :math:`\\tfrac a2 k^2 C^2`) is below rounding, :math:`a k C \\le \\epsilon
\\max_j |c_j|`, is linear: :math:`\\beta_j` goes to C where :math:`c_j > 0`, to 0 where :math:`c_j < 0`
(u, which could overflow, is never formed).  :math:`C_i = 0` holds the block at 0.
The weights follow: :math:`W \\leftarrow W - M\\, \\delta\\, x_i^\\top` for the change δ of :math:`\\alpha_i`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from numba import njit

from .base import Embedding, MulticlassLoss, column_C, off_label_box_violation, one_hot
from .row_kernels import (EPS, FASTMATH, RowKernels, at_rest, box_violation, draw_end, draw_start, linear_block,
                          off_label_free, sort_small)


class WWBlock(NamedTuple):
    """The picture of one exact Weston-Watkins block step (``None`` / NaN before the first step).

    Attributes
    ----------
    y : int, the sample's class;  grad : (k,) dual gradient ``M (s_y - s_j) - 1`` before the step (0 at y).
    u : (k-1,) the block problem's vector ``c / a`` (``c`` itself for a linear block);
    breakpoints : (2k-2,) sorted ``u - C_i`` and ``u``;  t : float, the root ``1' beta``;
    beta : (k-1,) the block's solution;  delta : (k,) the change of alpha_i.
    """

    y: int
    grad: object
    u: object
    breakpoints: object
    t: float
    beta: object
    delta: object


class WestonWatkins(MulticlassLoss):
    """The Weston-Watkins loss with margin scale ``problem.M`` (see the module docstring)."""

    name = "ww"
    title = "Weston-Watkins"
    Block = WWBlock
    #: Its compiled row kernels (:mod:`~svmteach.losses.row_kernels`), below.
    kernels = None  # set after the kernels are defined
    embedding = Embedding(off=1.0, label=-1.0, set="box")
    uses_M = True

    def weight_rows(self, problem, alpha):
        return -problem.M * alpha  # W = -M alpha' X

    def dual_linear(self, problem, alpha):
        xp = problem.xp
        return -xp.sum(xp.where(one_hot(problem), alpha, 0.0))  # sum_{j != y} alpha_ij = -sum_i alpha_{iy_i}

    def sample_losses(self, problem, S):
        xp = problem.xp
        Y = one_hot(problem)
        s_y = xp.sum(xp.where(Y, S, 0.0), axis=1)
        hinge = xp.maximum(1.0 - problem.M * (s_y[:, None] - S), 0.0)
        return xp.sum(xp.where(Y, 0.0, hinge), axis=1)

    def gradient(self, problem, S):
        """:math:`M (s_{iy_i} - s_{ij}) - 1` (0 in the y_i column, which is not free)."""
        xp = problem.xp
        Y = one_hot(problem)
        s_y = xp.sum(xp.where(Y, S, 0.0), axis=1)
        return xp.where(Y, 0.0, problem.M * (s_y[:, None] - S) - 1.0)

    def kkt_violation(self, problem, alpha, S):
        return off_label_box_violation(problem, alpha, self.gradient(problem, S))

    def bounds(self, problem):
        xp = problem.xp
        Y = one_hot(problem)
        inf = xp.full(Y.shape, math.inf, dtype=xp.float64)
        return xp.where(Y, -inf, 0.0), xp.where(Y, inf, column_C(problem))  # the label entry is free

    def feasible(self, problem, alpha):
        """The off-label entries clipped to [0, C_i]; the label entry minus their sum."""
        xp = problem.xp
        Y = one_hot(problem)
        off = xp.where(Y, 0.0, xp.minimum(xp.maximum(xp.astype(alpha, xp.float64), 0.0), column_C(problem)))
        return xp.where(Y, -xp.sum(off, axis=1, keepdims=True), off)

    def blank_block(self, problem):
        return WWBlock(y=-1, grad=None, u=None, breakpoints=None, t=math.nan, beta=None, delta=None)

    def block_picture(self, y, q, C, old, new, numbers, violation, moves):
        """The :class:`WWBlock` of a step from its kernel's numbers (the gradient, u, beta)."""
        k = len(old)
        u, beta = numbers[1, : k - 1].copy(), numbers[2, : k - 1].copy()
        return WWBlock(y=y, grad=numbers[0].copy(), u=u, breakpoints=np.sort(np.concatenate([u - C, u])),
                       t=float(beta.sum()), beta=beta, delta=new - old)

    def dual_weights(self, problem, alpha):
        xp = problem.xp
        return -xp.sum(xp.where(one_hot(problem), alpha, 0.0), axis=1)  # sum_{j != y_i} alpha_ij

    def dual_weight_bound(self, problem):
        return float(problem.xp.max(problem.C_i)) * (problem.k - 1)


# ---- the compiled row kernels (the contract: svmteach.losses.row_kernels) ----------------------------


@njit(cache=True, fastmath=FASTMATH, inline="always", _nrt=False)
def block(s, a, y, q, C, params, rest, look, scratch, picture):
    """The exact Weston-Watkins block over its free classes (:func:`~svmteach.losses.row_kernels.off_label_free`):
    with :math:`a_q = M^2 q` and :math:`c_j = 1 - M (s_y - s_j) + a_q (\\alpha_{ij} - \\alpha_{iy})`, the block is
    :func:`block_row` at :math:`u = c / a_q`, or linear (each entry at the bound its :math:`c_j` points to) when
    the curvature is below the rounding of c.  ``s`` is read where ``look`` (every class when a picture is asked
    for).  Picture: the gradient, u, beta."""
    M = params[0]
    margin, shrink, shrink_classes = rest
    work, iwork = scratch[0], scratch[1]
    k = s.shape[0]
    grad, c, u, beta = work[0, :k], work[1, : k - 1], work[2, : k - 1], work[3, : k - 1]
    free = iwork[2 * k : 3 * k]
    aq = M * M * q
    drawn = picture.shape[0] > 0
    for j in range(k):
        grad[j] = M * (s[y] - s[j]) - 1.0 if j != y and (look[j] or drawn) else 0.0  # d f / d alpha_ij
    violation, nf = off_label_free(a, y, C, grad, margin, shrink_classes, look, free)
    cmax = 0.0
    for t in range(nf):
        j = free[t]
        c[t] = -grad[j] + aq * (a[j] - a[y])
        cmax = max(cmax, abs(c[t]))
        beta[t] = a[j]
    curved = aq * k * C > EPS * cmax  # the quadratic term above the rounding of c
    for t in range(nf):
        u[t] = c[t] / aq if curved else c[t]
    if drawn:
        draw_start(picture, a, y, grad, aq, a[y], curved)
    resting = shrink and at_rest(grad, a, y, 1.0, margin, C, look, True)
    if resting or violation == 0.0:  # set aside, or every projected gradient 0 (the block at its optimum): no step
        return violation, -1 if resting else 0
    if curved:
        block_row(u[:nf], C, beta[:nf], work[4, :nf])
    else:
        linear_block(c[:nf], C, beta[:nf])
    for t in range(nf):
        a[free[t]] = beta[t]
    total = 0.0
    for j in range(k):
        if j != y:
            total += a[j]
    a[y] = -total  # alpha_{i y_i} = -1'beta
    if drawn:
        draw_end(picture, y, free, nf, beta)
    return violation, 1


@njit(cache=True, fastmath=FASTMATH, inline="always", _nrt=False)
def coef(new, old, params, out):
    """:math:`A(\\delta) = -M \\delta` (W = -M alpha' X)."""
    M = params[0]
    for m in range(new.shape[0]):
        out[m] = -(M * (new[m] - old[m]))


@njit(cache=True, _nrt=False)
def block_row(u, C, out, points):
    """Solve ``min 1/2|b|^2 + 1/2(1'b)^2 - u'b`` on ``[0, C]^m`` for one row (as
    :func:`~svmteach.projections.ww_block_solve`); returns t = 1'b.

    ``points`` (m floats) is work space.  The root t = 1'b is at least 0, where a coordinate with
    :math:`u_j \\le 0` is at 0: the sweep runs over the p coordinates with :math:`u_j > 0` (on digits about 2 of
    9), whose function equals :math:`\\psi` from t = 0 on.  The sweep: below every breakpoint all its coordinates
    sit at C; passing :math:`u_j - C` frees coordinate j, passing :math:`u_j` sends it to 0.  On each piece
    :math:`\\psi(t) = t - (n_C C + \\sum_{free} u_j - n_{free} t)`; the first breakpoint where psi is non-negative
    closes the piece that holds the root.  Both kinds of breakpoint come in the order of u: the p values sorted
    once, the two lists merged as the sweep goes.
    """
    m = u.shape[0]
    p = 0
    for j in range(m):
        if u[j] > 0.0:
            points[p] = u[j]
            p += 1
    sort_small(points[:p])
    n_C = p
    n_free = 0
    s_free = 0.0
    found = False
    a = 0  # the next coordinate to leave C, at points[a] - C
    r = 0  # the next to reach 0, at points[r] (a coordinate leaves C before it reaches 0)
    while r < p:
        leaving = a < p and points[a] - C <= points[r]
        b = points[a] - C if leaving else points[r]
        if b - (n_C * C + s_free - n_free * b) >= 0.0:
            found = True
            break
        if leaving:  # leaves C, becomes free
            n_C -= 1
            n_free += 1
            s_free += points[a]
            a += 1
        else:  # a free coordinate reaches 0
            n_free -= 1
            s_free -= points[r]
            r += 1
    # root of t = n_C C + s_free - n_free t on the piece found (or past every breakpoint: t = 0)
    t = (n_C * C + s_free) / (1.0 + n_free) if found else 0.0
    total = 0.0
    for j in range(m):
        out[j] = min(max(u[j] - t, 0.0), C)
        total += out[j]
    return total


@njit(cache=True, _nrt=False)
def terms(S, alpha, codes, C_i, M, out):
    """``out`` (n, 3): each sample's loss :math:`\\sum_{j \\ne y} \\max(1 - M (s_y - s_j), 0)`, dual term
    :math:`-\\alpha_{iy_i}` and the largest projected gradient of its off-label entries in [0, C_i]
    (:class:`WestonWatkins`'s NumPy methods, row by row)."""
    for i in range(S.shape[0]):
        s, a, y, C = S[i], alpha[i], codes[i], C_i[i]
        loss, violation = 0.0, 0.0
        for j in range(s.shape[0]):
            if j != y:
                loss += max(1.0 - M * (s[y] - s[j]), 0.0)
                violation = max(violation, box_violation(M * (s[y] - s[j]) - 1.0, a[j], C))
        out[i, 0] = loss
        out[i, 1] = -a[y]
        out[i, 2] = violation


WestonWatkins.kernels = RowKernels(block=block, coef=coef, terms=terms)
