"""The Crammer-Singer loss: primal, dual, gradient, box, and its block solved by a simplex projection.

.. math::

    \\min_W \\tfrac12 \\|W\\|_F^2 + \\sum_i C_i \\max(0, 1 + \\max_{m \\ne y_i} w_m^\\top x_i - w_{y_i}^\\top x_i)

(Crammer and Singer 2001), :math:`C_i` = ``problem.C_i``.  The dual ("Optimizing SVM Multiclass Dual
Solvers", slides, 'Dual Form'; derived in ``svmteach.derivations``) is

.. math::

    \\min_\\alpha f(\\alpha) = \\tfrac12 \\sum_m \\Bigl\\|\\sum_i \\alpha_i^m x_i\\Bigr\\|^2
        + \\sum_{i, m} \\Delta_i^m \\alpha_i^m
    \\quad \\text{s.t.} \\quad \\sum_m \\alpha_i^m = 0, \\; \\alpha_i^m \\le u_i^m,

with :math:`\\Delta_i^m = [m \\ne y_i]`, the upper bounds :math:`u_i^m = C_i [m = y_i]` and :math:`w_m = \\sum_i \\alpha_i^m x_i`;
as a maximisation :math:`D = -f = \\sum_i \\alpha_i^{y_i} - \\tfrac12 \\|W\\|_F^2`.
Its partial gradient is :math:`g_i^m = w_m^\\top x_i + \\Delta_i^m` (so :math:`g_i^{y_i} = w_{y_i}^\\top x_i`:
the slides' Algorithm 3, line 6, subtracts 2 where 1 is right).

**The block** (Blondel, Fujino and Ueda 2014).  The sample is skipped when its violation
:math:`v_i = \\max_m g_i^m - \\min_{m:\\, \\alpha_i^m < u_i^m} g_i^m` is at most ``skip_tol``.
Otherwise the exact block problem
:math:`\\min_\\delta \\tfrac q2 \\|\\delta\\|^2 + g_i^\\top \\delta` s.t.
:math:`\\mathbf 1^\\top \\delta = 0,\\ \\delta \\le u_i - \\alpha_i`, with :math:`q = \\|x_i\\|^2` (the dual is
quadratic, so this is exact; the slides drop the factor q), is solved with
:math:`\\alpha_i = u_i - \\beta`: the feasible rows are those with
:math:`\\beta \\ge 0,\\ \\mathbf 1^\\top \\beta = C_i` (C below), and completing the square,
:math:`\\beta` is the projection of :math:`(u_i - \\alpha_i) + g_i / q` onto that simplex.
Multiplied by q, :math:`\\beta = \\operatorname{proj}(\\hat\\beta, z) / q` with

.. math::

    \\hat\\beta = q (u_i - \\alpha_i) + g_i, \\qquad z = C q

(Blondel's :math:`\\hat\\beta` and z times :math:`\\|x_i\\|`).  Nothing is divided by a small q, which
would turn the rounding of :math:`g_i` into errors of :math:`\\epsilon |g_i| / q` in alpha: the projection
is homogeneous, so with :math:`p = \\operatorname{proj}(\\hat\\beta / z, 1)` the block is
:math:`\\alpha_i = u_i - C p / \\mathbf 1^\\top p`, and the normalisation puts every row on its simplex to
the last bit.

The linear case, q = 0 or too small to matter, is the limit of the same block: the quadratic term is
at most :math:`4 q C^2` against a linear term of size :math:`C \\max|\\hat\\beta|`, so once
:math:`z = qC \\le \\epsilon \\max|\\hat\\beta|` C is shared equally by the largest entries of
:math:`\\hat\\beta = g_i`.  A sample with :math:`C_i = 0` has the block :math:`\\alpha_i = 0` and no free
class: its violation is :math:`-\\infty`, and it is never stepped on.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from numba import njit

from ..projections import project_simplex_sort
from .base import EPS, Embedding, MulticlassLoss, column_C, one_hot
from .row_kernels import FASTMATH, RowKernels, sort_small


#: A label entry within this fraction of its bound C_i is at it.  The entry is computed from the others
#: (the row sums to 0 exactly) and can land an ulp below C_i; counted as free, it would make a solved
#: block look violated.
AT_C = 4 * EPS


class CSBlock(NamedTuple):
    """The picture of one Crammer-Singer block step (``None`` / NaN before the first step).

    Attributes
    ----------
    y : int;  grad : (k,) the partial gradient g_i;  violation : float, v_i;  skipped : bool.
    beta_hat, z, beta, theta : in Blondel's scale (the course's): beta_hat (k,) the point projected,
    ``||x_i|| (u_i - alpha_i) + g_i / ||x_i||`` (``u_i = C_i e_{y_i}``);  z : float, the mass ``C_i ||x_i||``;
    beta (k,) its projection;  theta : float, the threshold (beta = max(beta_hat - theta, 0)).
    None / NaN for a zero row (nothing is projected).
    delta : (k,) the change of alpha_i, ``u_i - beta / ||x_i|| - alpha_i``.
    """

    y: int
    grad: object
    violation: float
    skipped: bool
    beta_hat: object
    z: float
    beta: object
    theta: float
    delta: object


class CrammerSinger(MulticlassLoss):
    """The Crammer-Singer loss (see the module docstring)."""

    name = "cs"
    title = "Crammer-Singer"
    Block = CSBlock
    #: Its compiled row kernels (:mod:`~svmteach.losses.row_kernels`), below.
    kernels = None  # set after the kernels are defined
    embedding = Embedding(off=-1.0, label=1.0, set="simplex")
    default_solver = "blondel"

    def weight_rows(self, problem, alpha):
        return alpha  # W = alpha' X

    def dual_linear(self, problem, alpha):
        xp = problem.xp
        return xp.sum(xp.where(one_hot(problem), alpha, 0.0))  # -sum_{m != y} alpha = sum_i alpha_i^{y_i}

    def sample_losses(self, problem, S):
        xp = problem.xp
        Y = one_hot(problem)
        s_y = xp.sum(xp.where(Y, S, 0.0), axis=1)
        rival = xp.max(xp.where(Y, -xp.inf, S), axis=1)
        return xp.maximum(1.0 + rival - s_y, 0.0)

    def gradient(self, problem, S):
        """:math:`g_i^m = s_{im} + \\Delta_i^m` with :math:`\\Delta_i^m = [m \\ne y_i]`."""
        xp = problem.xp
        return xp.where(one_hot(problem), S, S + 1.0)

    def kkt_violation(self, problem, alpha, S):
        """Blondel's :math:`\\max_i v_i`."""
        xp = problem.xp
        G = self.gradient(problem, S)
        low = xp.min(xp.where(alpha < self._upper(problem) * (1.0 - AT_C), G, xp.inf), axis=1)
        return xp.max(xp.max(G, axis=1) - low)

    def _upper(self, problem):
        """(n, k) ``C_i [m = y_i]``: the upper bounds."""
        xp = problem.xp
        return xp.where(one_hot(problem), column_C(problem), 0.0)

    def bounds(self, problem):
        xp = problem.xp
        return xp.full((problem.n_samples, problem.k), -math.inf, dtype=xp.float64), self._upper(problem)

    def repair(self, problem, alpha):
        """Each row summing to 0 to the last bit (the label entry from the others).

        Accumulated rounding would tilt the parallel solver's slopes ``T - alpha`` and stall its line
        search.  A label entry past C stops there; the excess goes to the most negative other entry.
        """
        xp = problem.xp
        Y = one_hot(problem)
        A = xp.minimum(alpha, self._upper(problem))
        rest = -xp.sum(xp.where(Y, 0.0, A), axis=1, keepdims=True)
        A = xp.where(Y, xp.minimum(rest, column_C(problem)), A)
        excess = xp.sum(A, axis=1, keepdims=True)
        lowest = xp.argmin(xp.where(Y, math.inf, A), axis=1, keepdims=True)
        return A - xp.where(xp.arange(problem.k)[None, :] == lowest, excess, 0.0)

    def feasible(self, problem, alpha):
        """:math:`\\{a : a \\le u_i, \\mathbf 1^\\top a = 0\\}` with :math:`u_i = C_i e_{y_i}`: with
        :math:`a = u_i - \\beta`, :math:`\\beta` is the simplex projection of :math:`u_i - a` (mass :math:`C_i`)."""
        xp, C = problem.xp, column_C(problem)
        Y = one_hot(problem)
        upper = self._upper(problem)
        # check=False: a C_i may be 0 (the solvers pass a checked, finite alpha)
        new = upper - project_simplex_sort(upper - xp.astype(alpha, xp.float64), C, check=False)
        # rows summing to 0 to the last bit: the label entry from the others (it stays <= C up to rounding)
        return xp.where(Y, xp.minimum(-xp.sum(xp.where(Y, 0.0, new), axis=1, keepdims=True), C), new)

    def blank_block(self, problem):
        nan = math.nan
        return CSBlock(y=-1, grad=None, violation=nan, skipped=False, beta_hat=None, z=nan, beta=None,
                       theta=nan, delta=None)

    def block_picture(self, y, q, C, old, new, numbers, violation, moves):
        """The :class:`CSBlock` of a step from its kernel's numbers (g, beta_hat, the share p / 1'p), divided by
        r = ||x_i|| into Blondel's scale."""
        k = len(old)
        if moves <= 0:
            return CSBlock(y=y, grad=numbers[0].copy(), violation=violation, skipped=True, beta_hat=None, z=math.nan,
                           beta=None, theta=math.nan, delta=np.zeros(k))
        beta_hat, z = numbers[1].copy(), C * q
        beta = z * numbers[2]  # the projection of beta_hat onto mass z
        support = numbers[2] > 0
        theta = float((beta_hat[support].sum() - z) / support.sum())
        r = math.sqrt(q)
        picture = (dict(beta_hat=beta_hat / r, z=z / r, beta=beta / r, theta=theta / r) if r > 0 else
                   dict(beta_hat=None, z=0.0, beta=None, theta=math.nan))
        return CSBlock(y=y, grad=numbers[0].copy(), violation=violation, skipped=False, delta=new - old, **picture)

    def dual_weights(self, problem, alpha):
        xp = problem.xp
        return xp.sum(xp.where(one_hot(problem), alpha, 0.0), axis=1)  # alpha_i^{y_i} in [0, C_i]

    def dual_weight_bound(self, problem):
        return float(problem.xp.max(problem.C_i))


# ---- the compiled row kernels (the contract: svmteach.losses.row_kernels) ----------------------------


@njit(cache=True, fastmath=FASTMATH, inline="always", _nrt=False)
def block(s, a, y, q, C, params, rest, look, scratch, picture):
    """Blondel's Crammer-Singer block over the classes looked at: skipped when :math:`v_i \\le` ``skip_tol``
    (``params``' inner tolerance); else :math:`\\alpha_i = u_i - C p / \\mathbf 1^\\top p` with p the unit-simplex
    projection of :math:`\\hat\\beta / z`, :math:`\\hat\\beta = q (u_i - \\alpha_i) + g_i`, z = C q (C shared by
    the largest entries of :math:`\\hat\\beta` when z is below its rounding).

    With ``shrink_classes`` a class at its bound 0 whose gradient is below every free class's is set
    aside in ``look`` (never the label); with ``margin`` = +inf none is.  A skipped sample is at rest when
    :math:`\\alpha_i = 0` and every :math:`s_y - s_m > 1 + \\mu` over the classes looked at.
    Picture: g over every class, :math:`\\hat\\beta` and the share :math:`p / \\mathbf 1^\\top p` (0 off the
    classes kept)."""
    skip_tol = params[1]
    margin, shrink, shrink_classes = rest
    work, iwork = scratch[0], scratch[1]
    k = s.shape[0]
    g, beta_hat, beta, scaled = work[0, :k], work[1, :k], work[2, :k], work[3, :k]
    looked, keep = iwork[:k], iwork[k : 2 * k]
    class_margin = 0.0 if margin < np.inf else np.inf
    na = 0
    gmax = -np.inf
    gmin = np.inf
    for m in range(k):
        if look[m]:
            looked[na] = m
            na += 1
            g[m] = s[m] + (0.0 if m == y else 1.0)  # g_i^m = w_m' x_i + [m != y_i]
            gmax = max(gmax, g[m])
            if a[m] < (C * (1.0 - AT_C) if m == y else 0.0):
                gmin = min(gmin, g[m])  # over the free classes
    violation = gmax - gmin
    nb = 0
    for t in range(na):
        m = looked[t]
        if shrink_classes and m != y and a[m] == 0.0 and g[m] < gmin - class_margin:
            look[m] = False  # at its bound 0, below every free class: set aside
        else:
            keep[nb] = m
            nb += 1
    # the label at its bound C, below every free class, with one other class kept: the sum fixes that one too
    fixed = shrink and shrink_classes and nb == 2 and a[y] >= C * (1.0 - AT_C) and g[y] < gmin - class_margin
    moves = 0
    if fixed:
        moves = -1  # LIBLINEAR's rule: at most one class of the sample can move, so none can
    elif violation <= skip_tol or nb <= 1:  # nothing to move (one class kept: its entry is fixed)
        if shrink:
            resting = True
            for m in range(k):
                if a[m] != 0.0:
                    resting = False
            for t in range(na):
                m = looked[t]
                if resting and C > 0.0 and m != y and not g[y] - g[m] > margin:
                    resting = False
            if resting:
                moves = -1
    else:
        moves = 1
        z = C * q
        hmax = 0.0
        for t in range(nb):
            m = keep[t]
            beta_hat[t] = q * ((C if m == y else 0.0) - a[m]) + g[m]
            hmax = max(hmax, abs(beta_hat[t]))
        if z > EPS * hmax:  # proj(beta_hat, z) = z proj(beta_hat / z, 1), which keeps a subnormal z's bits
            for t in range(nb):
                scaled[t] = beta_hat[t] / z
            project_simplex_row(scaled[:nb], 1.0, beta[:nb], work[4, :nb])
        else:  # the linear block: C shared by the largest entries of beta_hat
            top = -np.inf
            for t in range(nb):
                top = max(top, beta_hat[t])
            for t in range(nb):
                beta[t] = 1.0 if beta_hat[t] == top else 0.0
        mass = 0.0
        for t in range(nb):
            mass += beta[t]
        rest_sum = 0.0
        for t in range(nb):
            if keep[t] != y:
                rest_sum += C * (beta[t] / mass)
        for t in range(nb):  # alpha_i = u_i - C p / 1'p, the label entry from the others (the row sums to 0)
            m = keep[t]
            a[m] = min(rest_sum, C) if m == y else -C * (beta[t] / mass)
    if picture.shape[0] > 0:
        for m in range(k):
            picture[0, m] = s[m] + (0.0 if m == y else 1.0)
            picture[1, m] = q * ((C if m == y else 0.0) - a[m]) + picture[0, m]
            picture[2, m] = 0.0
        if moves > 0:
            for t in range(nb):
                picture[1, keep[t]] = beta_hat[t]
                picture[2, keep[t]] = beta[t] / mass
    return violation, moves


@njit(cache=True, fastmath=FASTMATH, inline="always", _nrt=False)
def coef(new, old, params, out):
    """:math:`A(\\delta) = \\delta` (W = alpha' X)."""
    for m in range(new.shape[0]):
        out[m] = new[m] - old[m]


@njit(cache=True, _nrt=False)
def project_simplex_row(v, z, out, sorted_):
    """One row of :func:`~svmteach.projections.project_simplex_sort`: writes the projection of ``v`` onto
    the simplex of mass ``z`` into ``out`` (no checks: finite rows, z > 0; shifted by the row's maximum);
    ``sorted_`` (len(v),) is scratch."""
    top = -np.inf
    for j in range(v.shape[0]):
        top = max(top, v[j])
    for j in range(v.shape[0]):
        sorted_[j] = top - v[j]  # >= 0; sorted ascending, it is the row's entries minus the top, descending
    sort_small(sorted_)
    css = 0.0
    theta = -z  # the support's first entry, u_0 = 0: theta = (0 - z) / 1
    for j in range(v.shape[0]):
        u = -sorted_[j]
        css += u
        t = (css - z) / (j + 1)
        if u - t > 0:
            theta = t
    for j in range(v.shape[0]):
        out[j] = max((v[j] - top) - theta, 0.0)


@njit(cache=True, _nrt=False)
def terms(S, alpha, codes, C_i, M, out):
    """``out`` (n, 3): each sample's loss :math:`\\max(1 + \\max_{m \\ne y} s_m - s_y, 0)`, dual term
    :math:`\\alpha_{iy_i}` and Blondel's violation :math:`v_i` (:class:`CrammerSinger`'s NumPy methods, row by row)."""
    for i in range(S.shape[0]):
        s, a, y, C = S[i], alpha[i], codes[i], C_i[i]
        rival, top, low = -np.inf, -np.inf, np.inf
        for m in range(s.shape[0]):
            g = s[m] if m == y else s[m] + 1.0
            top = max(top, g)
            if a[m] < (C if m == y else 0.0) * (1.0 - AT_C):
                low = min(low, g)
            if m != y:
                rival = max(rival, s[m])
        out[i, 0] = max(1.0 + rival - s[y], 0.0)
        out[i, 1] = a[y]
        out[i, 2] = top - low


CrammerSinger.kernels = RowKernels(block=block, coef=coef, terms=terms)
