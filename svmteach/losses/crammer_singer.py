"""The Crammer-Singer loss: primal, dual, gradient, box, and its block solved by a simplex projection.

.. math::

    \\min_W \\tfrac12 \\|W\\|_F^2 + \\sum_i C_i \\max(0, 1 + \\max_{m \\ne y_i} w_m^\\top x_i - w_{y_i}^\\top x_i)

(Crammer and Singer 2001), with :math:`C_i = C` but for sample weights (``problem.C_i``).  The dual
("Optimizing SVM Multiclass Dual Solvers", slides, 'Dual Form'; derived in ``svmteach.derivations``)
is

.. math::

    \\min_\\alpha f(\\alpha) = \\tfrac12 \\sum_m \\Bigl\\|\\sum_i \\alpha_i^m x_i\\Bigr\\|^2
        + \\sum_{i, m} \\Delta_i^m \\alpha_i^m
    \\quad \\text{s.t.} \\quad \\sum_m \\alpha_i^m = 0, \\; \\alpha_i^m \\le u_i^m,

with :math:`\\Delta_i^m = [m \\ne y_i]`, the upper bounds :math:`u_i^m = C_i [m = y_i]` and :math:`w_m = \\sum_i \\alpha_i^m x_i`;
as a maximisation :math:`D = -f = \\sum_i \\alpha_i^{y_i} - \\tfrac12 \\|W\\|_F^2`.
Its partial gradient is :math:`g_i^m = w_m^\\top x_i + \\Delta_i^m`.  (The slides' Algorithm 3,
line 6, subtracts 2 from :math:`g_i[y_i]` after adding 1 everywhere; the derivative gives
:math:`g_i^{y_i} = w_{y_i}^\\top x_i`, so 1 is to be subtracted.)

**The block** (Blondel, Fujino and Ueda 2014).  The sample is skipped when its violation
:math:`v_i = \\max_m g_i^m - \\min_{m:\\, \\alpha_i^m < u_i^m} g_i^m` is at most ``skip_tol``.
Otherwise the exact block problem
:math:`\\min_\\delta \\tfrac q2 \\|\\delta\\|^2 + g_i^\\top \\delta` s.t.
:math:`\\mathbf 1^\\top \\delta = 0,\\ \\delta \\le u_i - \\alpha_i`, with :math:`q = \\|x_i\\|^2` (the dual is
quadratic, so this is exact; the slides drop the factor q), is solved with the new block
written as :math:`\\alpha_i = u_i - \\beta`: the feasible rows are exactly those with
:math:`\\beta \\ge 0,\\ \\mathbf 1^\\top \\beta = C_i`, and completing the square,
:math:`\\beta` is the projection of :math:`(u_i - \\alpha_i) + g_i / q` onto that simplex.
Below, C stands for the sample's :math:`C_i`.
Multiplied by q, :math:`\\beta = \\operatorname{proj}(\\hat\\beta, z) / q` with

.. math::

    \\hat\\beta = q (u_i - \\alpha_i) + g_i, \\qquad z = C q

(Blondel's :math:`\\hat\\beta` and z times :math:`\\|x_i\\|`).  No term is divided by a small
:math:`\\|x_i\\|`: dividing by it (or by q) would turn the rounding of :math:`g_i`, about
:math:`\\epsilon |g_i|`, into errors of :math:`\\epsilon |g_i| / q` in alpha, and rows of tiny norm
stopped summing to zero (by 1e-5 at a norm of 1e-6, to NaN below).  The projection is
homogeneous, :math:`\\operatorname{proj}(\\hat\\beta, z) = z \\operatorname{proj}(\\hat\\beta / z, 1)`, and
with :math:`p = \\operatorname{proj}(\\hat\\beta / z, 1)` the block is :math:`\\alpha_i = u_i - C p / \\mathbf 1^\\top p`:
the division by q never happens, and the normalisation puts every row on its simplex to the
last bit (a subnormal z keeps its few bits out of the projection).

The linear case, q = 0 (a zero row) or q too small to matter, is the limit of the same block.
For every feasible δ the quadratic term is at most :math:`\\tfrac q2 \\|\\delta\\|^2 \\le 4 q C^2`,
against a linear term of size :math:`C \\max|\\hat\\beta|`; once :math:`z = qC \\le \\epsilon \\max|\\hat\\beta|`
(then :math:`\\hat\\beta / z` could overflow), the projection onto the mass z keeps only the entries
within rounding of the largest: C is shared equally by the largest entries of :math:`\\hat\\beta = g_i`
(a zero row: :math:`\\alpha_i^{y_i} = C` and :math:`-C` spread evenly over the other classes).  A sample
with :math:`C_i = 0` has z = 0 too: its block is the simplex of mass 0, :math:`\\alpha_i = 0`, and it has no
free class, so its violation is :math:`-\\infty` and it is never stepped on.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..projections import project_simplex_row, project_simplex_sort
from ..rows import compiled_rows, row_axpy, row_dot
from .base import EPOCH_FASTMATH, EPS, Embedding, MulticlassLoss, column_C, no_shrinking, one_hot


#: A label entry within this fraction of its bound C_i is at it (none is for C_i = 0: its block is {0}).
#: The entry is computed from the others (so that the row sums to 0 exactly) and can land an ulp or two
#: below C_i; counted as free, its gradient
#: made violations of 1-2 appear in blocks that were solved (on the issue's 20000 x 100 problem the
#: largest violation of an epoch never fell below 0.03), and the block was solved again for nothing.
AT_C = 4 * EPS


class CSBlock(NamedTuple):
    """The picture of one Crammer-Singer block step (``None`` / NaN before the first step).

    Attributes
    ----------
    y : int;  grad : (k,) the partial gradient g_i;  violation : float, v_i;  skipped : bool.
    beta_hat, z, beta, theta : the picture in Blondel's scale (the course's):
    beta_hat (k,) the point projected, ``||x_i|| (u_i - alpha_i) + g_i / ||x_i||`` (``u_i = C_i e_{y_i}``);
    z : float, the simplex's mass ``C_i ||x_i||``;  beta (k,) its projection;  theta : float, the threshold
    (beta = max(beta_hat - theta, 0)).  The step computes the same projection multiplied by
    ``||x_i||`` (see the module docstring); the projection is homogeneous, so dividing by ``||x_i||``
    gives these.  None / NaN for a zero row (a linear block: nothing is projected).
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
    """The Crammer-Singer loss (see the module docstring).  Block option: ``skip_tol``."""

    name = "cs"
    title = "Crammer-Singer"
    Block = CSBlock
    embedding = Embedding(off=-1.0, label=1.0, set="simplex")
    default_solver = "blondel"
    block_options = ("skip_tol",)

    def weight_rows(self, problem, alpha):
        return alpha  # W = alpha' X

    def dual_linear(self, problem, alpha):
        xp = problem.xp
        return float(xp.sum(xp.where(one_hot(problem), alpha, 0.0)))  # -sum_{m != y} alpha = sum_i alpha_i^{y_i}

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
        return float(xp.max(xp.max(G, axis=1) - low))

    def _upper(self, problem):
        """(n, k) ``C_i [m = y_i]``: the upper bounds."""
        xp = problem.xp
        return xp.where(one_hot(problem), column_C(problem), 0.0)

    def bounds(self, problem):
        xp = problem.xp
        return xp.full((problem.n_samples, problem.k), -math.inf, dtype=xp.float64), self._upper(problem)

    def repair(self, problem, alpha):
        """Each row summing to 0 to the last bit (the label entry from the others).

        Rounding (of the projection, and accumulated step after step) would otherwise tilt every
        slope the parallel solver computes from ``T - alpha``, and its line search would stall.  Where
        the label entry would pass C, it stops there and the excess goes to the most negative other
        entry (room to spare).
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
        """:math:`\\{a : a \\le u_i, \\mathbf 1^\\top a = 0\\}` with :math:`u_i = C_i e_{y_i}`; writing
        :math:`a = u_i - \\beta`, it is the simplex :math:`\\{\\beta \\ge 0, \\mathbf 1^\\top \\beta = C_i\\}`,
        so :math:`\\beta` is the simplex projection of :math:`u_i - a` (a feasible row stays as it is; the
        simplex of mass 0 is {0})."""
        xp, C = problem.xp, column_C(problem)
        Y = one_hot(problem)
        upper = self._upper(problem)
        # check=False: a C_i may be 0 (the solvers pass a checked, finite alpha)
        new = upper - project_simplex_sort(upper - xp.astype(alpha, xp.float64), C, check=False)
        # rows summing to 0 to the last bit: the label entry from the others (it stays <= C up to rounding)
        return xp.where(Y, xp.minimum(-xp.sum(xp.where(Y, 0.0, new), axis=1, keepdims=True), C), new)

    def curvature_scale(self, problem):
        return 1.0

    def block_targets(self, problem, alpha, G):
        """As :meth:`block_step` for every row: alpha_i = u_i - C_i p / 1'p, p = proj(beta_hat / z, 1)."""
        xp, C = problem.xp, column_C(problem)
        a = self.block_curvatures(problem)[:, None]
        upper = self._upper(problem)
        beta_hat = a * (upper - alpha) + G
        z = C * a
        curved = z > EPS * xp.max(xp.abs(beta_hat), axis=1, keepdims=True)  # else the linear block
        p = project_simplex_sort(xp.where(curved, beta_hat / xp.where(curved, z, 1.0), 0.0), 1.0, check=False)
        top = xp.astype(beta_hat == xp.max(beta_hat, axis=1, keepdims=True), xp.float64)
        share = xp.where(curved, p / xp.sum(p, axis=1, keepdims=True), top / xp.sum(top, axis=1, keepdims=True))
        return self.repair(problem, upper - C * share)

    def blank_block(self, problem):
        nan = math.nan
        return CSBlock(y=-1, grad=None, violation=nan, skipped=False, beta_hat=None, z=nan, beta=None,
                       theta=nan, delta=None)

    def block_step(self, problem, alpha_i, s, q, y, C=None, skip_tol=0.0):
        xp, C, k = problem.xp, self.sample_C(problem, C), problem.k
        is_y = xp.arange(k) == y
        g = xp.where(is_y, s, s + 1.0)  # g_i^m = w_m' x_i + Delta_i^m
        upper = xp.where(is_y, xp.full(k, C, dtype=xp.float64), 0.0)  # u_i = C_i e_{y_i}
        v = float(xp.max(g) - xp.min(xp.where(alpha_i < upper * (1.0 - AT_C), g, xp.inf)))
        if v <= skip_tol:
            return alpha_i, CSBlock(y=y, grad=g, violation=v, skipped=True, beta_hat=None, z=math.nan,
                                    beta=None, theta=math.nan, delta=xp.zeros(k, dtype=xp.float64))
        beta_hat = q * (upper - alpha_i) + g  # Blondel's beta_hat times ||x_i||: nothing divided by it
        z = C * q
        if z > EPS * float(xp.max(xp.abs(beta_hat))):
            # proj(beta_hat, z) = z proj(beta_hat / z, 1): the mass-1 problem keeps subnormal z's precision
            share = project_simplex_sort(beta_hat[None, :] / z, 1.0, check=False)[0, :]
            share = share / xp.sum(share)  # exactly on the unit simplex
        else:  # z = 0 (a zero row) or below the rounding of beta_hat: the linear block, C to the largest
            top = xp.astype(beta_hat == xp.max(beta_hat), xp.float64)
            share = top / xp.sum(top)
        beta = z * share  # the projection of beta_hat onto mass z
        support = share > 0
        theta = float((xp.sum(xp.where(support, beta_hat, 0.0)) - z) / xp.sum(xp.astype(support, xp.float64)))
        new = upper - C * share  # alpha_i = u_i - beta, 1'beta = C_i
        # the label entry from the others, so that the row sums to 0 to the last bit (<= C up to rounding)
        new = xp.where(is_y, xp.minimum(-xp.sum(xp.where(is_y, 0.0, new)), C), new)
        # the picture in Blondel's scale: proj(beta_hat / r, z / r) = proj(beta_hat, z) / r, r = ||x_i||
        r = math.sqrt(q)
        picture = (dict(beta_hat=beta_hat / r, z=z / r, beta=beta / r, theta=theta / r) if r > 0 else
                   dict(beta_hat=None, z=0.0, beta=None, theta=math.nan))
        return new, CSBlock(y=y, grad=g, violation=v, skipped=False, delta=new - alpha_i, **picture)

    def epoch(self, problem, alpha, W, order, active=None, margin=0.0, skip_tol=0.0, classes=None):
        """See :meth:`MulticlassLoss.epoch`; a non-empty (n,) bool ``active`` has the samples at rest
        (alpha_i = 0 and every ``s_y - s_m > 1 + margin``, ``margin >= 0``) set aside (False) in it, and a
        non-empty (n, k) bool ``classes`` the classes at rest within a block (see :func:`_cs_epoch`)."""
        classes = np.ones((0, 0), dtype=np.bool_) if classes is None else classes
        return _cs_epoch(compiled_rows(problem.X), problem.sqnorm, problem.codes, problem.C_i,
                         float(skip_tol), alpha, W, order, no_shrinking(active), float(margin), classes)

    def dual_weights(self, problem, alpha):
        xp = problem.xp
        return xp.sum(xp.where(one_hot(problem), alpha, 0.0), axis=1)  # alpha_i^{y_i} in [0, C_i]

    def dual_weight_bound(self, problem):
        return float(problem.xp.max(problem.C_i))


@njit(cache=True, fastmath=EPOCH_FASTMATH)
def _cs_epoch(X, sqnorm, codes, C_i, skip_tol, alpha, W, order, active, margin, classes):
    """:meth:`CrammerSinger.block_step` for every sample of ``order`` (sample i's bound ``C_i[i]``), in
    place; returns the largest
    violation :math:`v_i` met (each block's before its step, as :meth:`CrammerSinger.kkt_violation`).

    When ``active`` is not empty, a sample at rest is set aside there (False): :math:`\\alpha_i = 0` with
    :math:`g_i^{y_i} - g_i^m > \\mu \\ge 0` (``margin``) for every :math:`m \\ne y_i`, i.e.
    :math:`s_{y_i} - s_m > 1 + \\mu`.  At
    :math:`\\alpha_i = 0` every entry but the label's is at its bound 0 and may only fall, the label's only
    rise, so a step moves along :math:`e_{y_i} - e_m` at slope :math:`g_i^{y_i} - g_i^m > 0`: uphill; its
    :math:`v_i = 0` and the block is skipped anyway.

    When ``classes`` (n, k) is not empty, classes are set aside within a block too (LIBLINEAR's ``-s 4``
    rule, for every class but the label): a class at its bound 0 whose gradient is below that of every
    free class, :math:`g_i^m < \\min_{l:\\, \\alpha_i^l < u_i^l} g_i^l`, would leave its bound only once
    its gradient rose above theirs; it is taken as staying there.  A class set aside keeps
    :math:`\\alpha_i^m = 0`: its :math:`g_i^m` is not computed (one product with the row saved), the step
    is the exact block step over the classes kept (the simplex projection over them; the classes aside
    hold :math:`\\beta = 0`) and v_i is theirs.  A class aside but off its bound (moved by the step path's
    replay of a visit) is taken back.  The label is never set aside: its entry is computed from the
    others, so that the row sums to 0 to the last bit.  With ``margin`` = +inf (after an epoch with no
    violation measured) no class is set aside; the solver
    (:class:`~svmteach.solvers.multiclass_base.MulticlassSolver`) makes every class active again at the
    start of every epoch over all samples, so the guesses are checked there.  A sample is at rest by
    the rule above checked on the classes it computed (those aside were below its label's gradient when
    set aside), and a sample with :math:`C_i = 0` as soon as :math:`\\alpha_i = 0` (its block is {0})."""
    k = W.shape[0]
    shrink = classes.shape[0] > 0
    class_margin = 0.0 if margin < np.inf else np.inf
    g = np.empty(k)
    looked = np.empty(k, dtype=np.int64)  # the classes whose g_i^m is computed
    keep = np.empty(k, dtype=np.int64)  # those of them kept for the step
    beta_hat = np.empty(k)
    beta = np.empty(k)
    worst = 0.0
    for i in order:
        y = codes[i]
        C = C_i[i]
        na = 0
        for m in range(k):  # g_i^m = w_m' x_i + [m != y_i], for the classes looked at
            if not shrink or classes[i, m] or alpha[i, m] != 0.0:  # active, or moved off its bound
                if shrink:
                    classes[i, m] = True
                looked[na] = m
                na += 1
                g[m] = row_dot(X, i, W[m]) + (0.0 if m == y else 1.0)
        gmax = -np.inf
        gmin = np.inf
        for a in range(na):  # v_i = max_m g - min_{m: alpha < u_i} g
            m = looked[a]
            gmax = max(gmax, g[m])
            up = C * (1.0 - AT_C) if m == y else 0.0
            if alpha[i, m] < up:
                gmin = min(gmin, g[m])
        worst = max(worst, gmax - gmin)
        nb = 0
        for a in range(na):  # a class at its bound 0 below every free class: set aside (the label never is)
            m = looked[a]
            if shrink and m != y and alpha[i, m] == 0.0 and g[m] < gmin - class_margin:
                classes[i, m] = False
            else:
                keep[nb] = m
                nb += 1
        if gmax - gmin <= skip_tol or nb <= 1:  # nothing to move (one class kept: its entry is fixed)
            if active.shape[0] > 0:
                rest = True
                for m in range(k):
                    if alpha[i, m] != 0.0:
                        rest = False
                for a in range(na):  # (alpha_i = 0: the label is free, so looked at; C_i = 0: the block is {0})
                    m = looked[a]
                    if rest and C > 0.0 and m != y and not g[y] - g[m] > margin:
                        rest = False
                if rest:
                    active[i] = False
            continue
        q = sqnorm[i]
        z = C * q
        hmax = 0.0
        for a in range(nb):  # beta_hat = q (u_i - alpha_i) + g_i over the classes kept
            m = keep[a]
            up = C if m == y else 0.0
            beta_hat[a] = q * (up - alpha[i, m]) + g[m]
            hmax = max(hmax, abs(beta_hat[a]))
        if z > EPS * hmax:
            for a in range(nb):
                beta_hat[a] = beta_hat[a] / z
            project_simplex_row(beta_hat[:nb], 1.0, beta[:nb])
        else:  # the linear block: C shared by the largest entries of beta_hat
            top = beta_hat[:nb].max()
            for a in range(nb):
                beta[a] = 1.0 if beta_hat[a] == top else 0.0
        mass = 0.0
        for a in range(nb):
            mass += beta[a]
        # the classes aside hold beta = 0 (at their bound), so the kept ones share the mass C
        rest = 0.0
        for a in range(nb):
            if keep[a] != y:
                rest += C * (beta[a] / mass)
        for a in range(nb):  # alpha_i = u_i - C_i p / 1'p, the label entry from the others; W += delta x_i'
            m = keep[a]
            nv = min(rest, C) if m == y else -C * (beta[a] / mass)
            dlt = nv - alpha[i, m]
            if dlt != 0.0:
                alpha[i, m] = nv
                row_axpy(X, i, dlt, W[m])
    return worst
