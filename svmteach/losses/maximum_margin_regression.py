"""The maximum-margin regression loss (MMR): primal, dual, gradient, box, and its block solved exactly.

.. math::

    \\min_W \\tfrac12 \\sum_m \\|w_m\\|^2 + \\sum_i C_i \\max(0, 1 - w_{y_i}^\\top x_i)
    \\quad \\text{s.t.} \\quad \\sum_m w_m = 0

(Szedmak, Shawe-Taylor and Parrado-Hernandez 2006, in the unified view of Dogan, Glasmachers and Igel 2016:
an absolute margin on the sample's own class only, with the sum-to-zero constraint; linear and without
bias), :math:`C_i` = ``problem.C_i``.  Only the label's score is pushed above 1; the constraint makes
that push pull the other classes' scores down.

**The dual** (derived and checked in ``svmteach.derivations``, model ``"mmr"``).  One multiplier
:math:`\\beta_i \\ge 0` per sample, stored as :math:`\\alpha_{iy_i}` (the other entries of row i are 0), and
:math:`\\nu` for the constraint: stationarity gives :math:`w_m = \\sum_{i: y_i = m} \\beta_i x_i - \\nu`, and
:math:`\\sum_m w_m = 0` gives :math:`\\nu = \\tfrac1k \\sum_i \\beta_i x_i`, so

.. math::

    w_m = \\sum_i (\\alpha_{im} - \\bar\\alpha_i) x_i, \\qquad D(\\alpha) = \\sum_i \\alpha_{iy_i} -
    \\tfrac12 \\|W\\|_F^2, \\quad 0 \\le \\alpha_{iy_i} \\le C_i,

the Lee-Lin-Wahba map with the opposite sign.  Because :math:`\\sum_m w_m = 0`, the gradient of
:math:`f = -D` is :math:`\\partial f / \\partial \\alpha_{iy_i} = s_{iy_i} - 1`.

**The block, solved exactly.**  Moving :math:`\\alpha_{iy_i}` by t moves :math:`w_m` by
:math:`t ([m = y_i] - 1/k) x_i`, whose squared norm is :math:`t^2 h` with :math:`h = \\|x_i\\|^2 (k-1)/k`: the
block is one variable on a parabola, :math:`\\alpha_{iy_i} \\leftarrow \\operatorname{clip}(\\alpha_{iy_i} -
(s_{iy_i} - 1) / h, 0, C_i)` (Shark's ``QpMcLinearMMR`` takes the same step).  A block of negligible
curvature (:math:`h C_i \\le \\epsilon |c|`, :math:`c = h \\alpha_{iy_i} - (s_{iy_i} - 1)`: a zero row) is
linear and solved at the bound c points to.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .base import Embedding, MulticlassLoss, box_violation_of, column_C, one_hot
from .row_kernels import EPS, FASTMATH, RowKernels, box_violation, centred_change


class MMRBlock(NamedTuple):
    """The picture of one exact maximum-margin regression block step (NaN before the first step): the dual
    along :math:`\\alpha_{iy_i}`, :math:`\\Delta D(x) = a (x^2 - \\text{old}^2) + b (x - \\text{old})` on [0, C_i]
    (what :class:`~svmteach.viz.parabola.ParabolaView` draws).

    Attributes
    ----------
    y : int, the sample's class;  grad : float, :math:`s_{iy_i} - 1` before the step;  curvature : float, h.
    a, b : the parabola's coefficients (:math:`a = -h/2`, :math:`b = h\\,\\text{old} - \\text{grad}`).
    alpha_unclipped : float, the vertex :math:`\\text{old} - \\text{grad} / h` (+-inf for a linear block);
    alpha_clipped : float, the new :math:`\\alpha_{iy_i}`;  delta : float, its change;  shrunk : bool, set
    aside by shrinking (nothing moved).
    """

    y: int
    grad: float
    curvature: float
    a: float
    b: float
    alpha_unclipped: float
    alpha_clipped: float
    delta: float
    shrunk: bool


class MaximumMarginRegression(MulticlassLoss):
    """The maximum-margin regression loss (see the module docstring)."""

    name = "mmr"
    title = "maximum-margin regression"
    Block = MMRBlock
    sum_to_zero = True
    #: Its compiled row kernels (:mod:`~svmteach.losses.row_kernels`), below.
    kernels = None  # set after the kernels are defined
    embedding = Embedding(off=0.0, label=1.0, set="box", entries="label")

    def weight_rows(self, problem, alpha):
        xp = problem.xp
        return alpha - xp.mean(alpha, axis=1, keepdims=True)  # w_m = sum_i (alpha_im - abar_i) x_i

    def dual_linear(self, problem, alpha):
        xp = problem.xp
        return xp.sum(xp.where(one_hot(problem), alpha, 0.0))

    def sample_losses(self, problem, S):
        xp = problem.xp
        return xp.maximum(1.0 - xp.sum(xp.where(one_hot(problem), S, 0.0), axis=1), 0.0)

    def gradient(self, problem, S):
        """:math:`s_{iy_i} - 1` at the label, 0 elsewhere (not variables)."""
        xp = problem.xp
        return xp.where(one_hot(problem), S - 1.0, 0.0)

    def kkt_violation(self, problem, alpha, S):
        return box_violation_of(problem, alpha, self.gradient(problem, S), one_hot(problem))

    def bounds(self, problem):
        xp = problem.xp
        Y = one_hot(problem)
        return xp.zeros(Y.shape, dtype=xp.float64), xp.where(Y, column_C(problem), 0.0)  # only alpha_{iy_i} moves

    def feasible(self, problem, alpha):
        """The label entry clipped to [0, C_i]; the others 0."""
        xp = problem.xp
        clipped = xp.minimum(xp.maximum(xp.astype(alpha, xp.float64), 0.0), column_C(problem))
        return xp.where(one_hot(problem), clipped, 0.0)

    def blank_block(self, problem):
        nan = math.nan
        return MMRBlock(y=-1, grad=nan, curvature=nan, a=nan, b=nan, alpha_unclipped=nan, alpha_clipped=nan,
                        delta=nan, shrunk=False)

    def block_picture(self, y, q, C, old, new, numbers, violation, moves):
        """The :class:`MMRBlock` of a step from its kernel's numbers (grad, h; the vertex)."""
        g, h, unclipped = float(numbers[0, 0]), float(numbers[0, 1]), float(numbers[1, 0])
        before, after = float(old[y]), float(new[y])
        return MMRBlock(y=y, grad=g, curvature=h, a=-0.5 * h, b=h * before - g, alpha_unclipped=unclipped,
                        alpha_clipped=after, delta=after - before, shrunk=moves < 0)

    def dual_weights(self, problem, alpha):
        xp = problem.xp
        return xp.sum(xp.where(one_hot(problem), alpha, 0.0), axis=1)

    def dual_weight_bound(self, problem):
        return float(problem.xp.max(problem.C_i))


# ---- the compiled row kernels (the contract: svmteach.losses.row_kernels) ----------------------------


@njit(cache=True, fastmath=FASTMATH, inline="always", _nrt=False)
def block(s, a, y, q, C, params, rest, look, scratch, picture):
    """The exact block: :math:`\\alpha_{iy_i} \\leftarrow \\operatorname{clip}(\\alpha_{iy_i} - (s_y - 1) / h, 0, C)`,
    :math:`h = q (k - 1) / k`, or the bound :math:`c = h \\alpha_{iy_i} - (s_y - 1)` points to when the curvature is
    below the rounding of c.  Reads ``s[y]`` only.  At rest (``rest``'s shrink): at 0 pushed into it by more than
    the slack, or at C pushed into it.  Picture: ``[0, 0]`` the gradient, ``[0, 1]`` h, ``[1, 0]`` the vertex."""
    margin, shrink, _ = rest
    k = s.shape[0]
    g = s[y] - 1.0  # d f / d alpha_{i y_i}
    old = a[y]
    violation = box_violation(g, old, C)
    h = q * (k - 1.0) / k
    c = h * old - g
    curved = h * C > EPS * abs(c)  # the quadratic term above the rounding of c
    if curved:
        vertex = old - g / h
    else:
        vertex = np.inf if c > 0.0 else (-np.inf if c < 0.0 else old)
    if picture.shape[0] > 0:
        picture[0, 0] = g
        picture[0, 1] = h
        picture[1, 0] = vertex
    if shrink and ((C <= 0.0 and old == 0.0) or (old == 0.0 and g > margin) or (old >= C and g < -margin)):
        return violation, -1
    if violation == 0.0:
        return violation, 0
    a[y] = min(max(vertex, 0.0), C)
    return violation, 1


@njit(cache=True, fastmath=FASTMATH, inline="always", _nrt=False)
def coef(new, old, params, out):
    """:math:`A(\\delta)_m = \\delta_m - \\bar\\delta` (w_m = sum_i (alpha_im - mean_m alpha_i) x_i)."""
    centred_change(new, old, 1.0, out)


@njit(cache=True, _nrt=False)
def terms(S, alpha, codes, C_i, M, out):
    """``out`` (n, 3): each sample's loss :math:`\\max(1 - s_y, 0)`, dual term :math:`\\alpha_{iy_i}` and the
    projected gradient of :math:`\\alpha_{iy_i}` in [0, C_i] (:class:`MaximumMarginRegression`'s NumPy methods, row
    by row)."""
    for i in range(S.shape[0]):
        y = codes[i]
        out[i, 0] = max(1.0 - S[i, y], 0.0)
        out[i, 1] = alpha[i, y]
        out[i, 2] = box_violation(S[i, y] - 1.0, alpha[i, y], C_i[i])


MaximumMarginRegression.kernels = RowKernels(block=block, coef=coef, terms=terms)
