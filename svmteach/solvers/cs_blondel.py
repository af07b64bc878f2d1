"""Crammer-Singer dual by Blondel, Fujino and Ueda (2014): one block per step, by a simplex projection.

The dual (seed 002, 'Dual Form'; derived in ``svmteach.derivations``) is

.. math::

    \\min_\\alpha f(\\alpha) = \\tfrac12 \\sum_m \\Bigl\\|\\sum_i \\alpha_i^m x_i\\Bigr\\|^2
        + \\sum_{i, m} \\Delta_i^m \\alpha_i^m
    \\quad \\text{s.t.} \\quad \\sum_m \\alpha_i^m = 0, \\; \\alpha_i^m \\le C_i^m,

with :math:`\\Delta_i^m = [m \\ne y_i]`, :math:`C_i^m = C [m = y_i]` and :math:`w_m = \\sum_i \\alpha_i^m x_i`.
Its partial gradient is :math:`g_i^m = w_m^\\top x_i + \\Delta_i^m`.  (Seed 002's
Algorithm 3, line 6, subtracts 2 from :math:`g_i[y_i]` after adding 1 everywhere; the
derivative gives :math:`g_i^{y_i} = w_{y_i}^\\top x_i`, so 1 is to be subtracted.)

The sample is skipped when its violation
:math:`v_i = \\max_m g_i^m - \\min_{m:\\, \\alpha_i^m < C_i^m} g_i^m` is at most ``skip_tol``.
Otherwise the exact block problem
:math:`\\min_\\delta \\tfrac q2 \\|\\delta\\|^2 + g_i^\\top \\delta` s.t.
:math:`\\mathbf 1^\\top \\delta = 0,\\ \\delta \\le C_i - \\alpha_i`, with :math:`q = \\|x_i\\|^2` (the dual is
quadratic, so this is exact; seed 002 drops the factor q), is solved with the new block
written as :math:`\\alpha_i = C_i - \\beta`: the feasible rows are exactly those with
:math:`\\beta \\ge 0,\\ \\mathbf 1^\\top \\beta = C`, and completing the square,
:math:`\\beta` is the projection of :math:`(C_i - \\alpha_i) + g_i / q` onto that simplex.
Multiplied by q, :math:`\\beta = \\operatorname{proj}(\\hat\\beta, z) / q` with

.. math::

    \\hat\\beta = q (C_i - \\alpha_i) + g_i, \\qquad z = C q

(Blondel's :math:`\\hat\\beta` and z times :math:`\\|x_i\\|`).  No term is divided by a small
:math:`\\|x_i\\|`: dividing by it (or by q) would turn the rounding of :math:`g_i`, about
:math:`\\epsilon |g_i|`, into errors of :math:`\\epsilon |g_i| / q` in alpha, and rows of tiny norm
stopped summing to zero (by 1e-5 at a norm of 1e-6, to NaN below).  The projection is
homogeneous, :math:`\\operatorname{proj}(\\hat\\beta, z) = z \\operatorname{proj}(\\hat\\beta / z, 1)`, and
with :math:`p = \\operatorname{proj}(\\hat\\beta / z, 1)` the block is :math:`\\alpha_i = C_i - C p / \\mathbf 1^\\top p`:
the division by q never happens, and the normalisation puts every row on its simplex to the
last bit (a subnormal z keeps its few bits out of the projection).

The linear case, q = 0 (a zero row) or q too small to matter, is the limit of the same block.
For every feasible δ the quadratic term is at most :math:`\\tfrac q2 \\|\\delta\\|^2 \\le 4 q C^2`,
against a linear term of size :math:`C \\max|\\hat\\beta|`; once :math:`z = qC \\le \\epsilon \\max|\\hat\\beta|`
(then :math:`\\hat\\beta / z` could overflow), the projection onto the mass z keeps only the entries
within rounding of the largest: C is shared equally by the largest entries of :math:`\\hat\\beta = g_i`
(a zero row: :math:`\\alpha_i^{y_i} = C` and :math:`-C` spread evenly over the other classes).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..projections import project_simplex_row, project_simplex_sort
from .base import check_tol
from .multiclass_base import EPOCH_FASTMATH, EPS, MulticlassSolver, replace_row, sample_arrays


class CSBlondelState(NamedTuple):
    """State of :class:`CSBlondel` after ``n_iter`` sample visits.

    Attributes
    ----------
    n_iter, epoch, pos, seed, i, alpha (n, k), W (k, d), perm, primal, dual, gap, kkt : as for WWExact.
    y : int;  grad : (k,) the partial gradient g_i;  violation : float, v_i;  skipped : bool.
    beta_hat, z, beta, theta : the picture in Blondel's scale (the course's):
    beta_hat (k,) the point projected, ``||x_i|| (C_i - alpha_i) + g_i / ||x_i||``;  z : float, the
    simplex's mass ``C ||x_i||``;  beta (k,) its projection;  theta : float, the threshold
    (beta = max(beta_hat - theta, 0)).  The step computes the same projection multiplied by
    ``||x_i||`` (see the module docstring); the projection is homogeneous, so dividing by ``||x_i||``
    gives these.  None / NaN for a zero row (a linear block: nothing is projected).
    delta : (k,) the change of alpha_i, ``C_i - beta / ||x_i|| - alpha_i``.
    """

    n_iter: int
    alpha: object
    W: object
    epoch: int
    pos: int
    perm: np.ndarray
    seed: int
    i: int
    primal: float
    dual: float
    gap: float
    kkt: float
    y: int
    grad: object
    violation: float
    skipped: bool
    beta_hat: object
    z: float
    beta: object
    theta: float
    delta: object


class CSBlondel(MulticlassSolver):
    """Blondel's block coordinate descent for the Crammer-Singer dual.

    Parameters
    ----------
    skip_tol : float
        Samples whose violation v_i is at most this are skipped (Algorithm 3, line 10).
        The default 0 skips only samples that are exactly optimal: any positive threshold
        caps the accuracy the run can reach (a gap of 1e-8 at C = 100 with 1e-10).
    random_state : int, Generator or None
    """

    State = CSBlondelState
    loss = "cs"
    name = "blondel"

    def __init__(self, skip_tol: float = 0.0, random_state=None):
        super().__init__(random_state)
        self.skip_tol = check_tol(skip_tol, "skip_tol")

    def blank_picture(self, problem):
        nan = math.nan
        return dict(y=-1, grad=None, violation=nan, skipped=False, beta_hat=None, z=nan, beta=None,
                    theta=nan, delta=None)

    def update(self, problem, state, i):
        xp, C, k = problem.xp, problem.C, problem.k
        x, q, yi, s = sample_arrays(problem, state, i)
        is_y = xp.arange(k) == yi
        g = xp.where(is_y, s, s + 1.0)  # g_i^m = w_m' x_i + Delta_i^m
        upper = xp.where(is_y, xp.full(k, C, dtype=xp.float64), 0.0)  # C_i
        alpha_i = state.alpha[i, :]
        v = float(xp.max(g) - xp.min(xp.where(alpha_i < upper, g, xp.inf)))
        if v <= self.skip_tol:
            return state._replace(y=yi, grad=g, violation=v, skipped=True, beta_hat=None, z=math.nan,
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
        new = upper - C * share  # alpha_i = C_i - beta, 1'beta = C
        # the label entry from the others, so that the row sums to 0 to the last bit (<= C up to rounding)
        new = xp.where(is_y, xp.minimum(-xp.sum(xp.where(is_y, 0.0, new)), C), new)
        delta = new - alpha_i
        W = state.W + delta[:, None] * x[None, :]
        # the picture in Blondel's scale: proj(beta_hat / r, z / r) = proj(beta_hat, z) / r, r = ||x_i||
        r = math.sqrt(q)
        picture = (dict(beta_hat=beta_hat / r, z=z / r, beta=beta / r, theta=theta / r) if r > 0 else
                   dict(beta_hat=None, z=0.0, beta=None, theta=math.nan))
        return state._replace(alpha=replace_row(xp, state.alpha, i, new), W=W, y=yi, grad=g, violation=v,
                              skipped=False, delta=delta, **picture)

    def _epoch(self, problem, alpha, W, order):
        _cs_epoch(problem.X, problem.sqnorm, problem.codes, float(problem.C), self.skip_tol, alpha, W, order)


@njit(cache=True, fastmath=EPOCH_FASTMATH)
def _cs_epoch(X, sqnorm, codes, C, skip_tol, alpha, W, order):
    """The step of :class:`CSBlondel` for every sample of ``order``, in place."""
    k, d = W.shape
    g = np.empty(k)
    beta_hat = np.empty(k)
    beta = np.empty(k)
    for i in order:
        y = codes[i]
        for m in range(k):
            acc = 0.0
            for t in range(d):
                acc += W[m, t] * X[i, t]
            g[m] = acc + (0.0 if m == y else 1.0)
        gmax = -np.inf
        gmin = np.inf
        for m in range(k):
            gmax = max(gmax, g[m])
            up = C if m == y else 0.0
            if alpha[i, m] < up:
                gmin = min(gmin, g[m])
        if gmax - gmin <= skip_tol:
            continue
        q = sqnorm[i]
        z = C * q
        hmax = 0.0
        for m in range(k):
            up = C if m == y else 0.0
            beta_hat[m] = q * (up - alpha[i, m]) + g[m]
            hmax = max(hmax, abs(beta_hat[m]))
        mass = 0.0
        if z > EPS * hmax:
            for m in range(k):
                beta_hat[m] = beta_hat[m] / z
            project_simplex_row(beta_hat, 1.0, beta)
        else:  # the linear block: C shared by the largest entries of beta_hat
            top = beta_hat.max()
            for m in range(k):
                beta[m] = 1.0 if beta_hat[m] == top else 0.0
        for m in range(k):
            mass += beta[m]
        rest = 0.0
        for m in range(k):
            if m != y:
                rest += C * (beta[m] / mass)
        for m in range(k):
            nv = min(rest, C) if m == y else -C * (beta[m] / mass)
            dlt = nv - alpha[i, m]
            if dlt != 0.0:
                alpha[i, m] = nv
                for t in range(d):
                    W[m, t] = W[m, t] + dlt * X[i, t]
