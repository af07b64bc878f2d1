"""Dual coordinate ascent for the binary SVM without bias (seed 002, Algorithm 2; Hsieh et al. 2008).

The dual without bias is a box-constrained concave quadratic,

.. math::

    \\max_{0 \\le \\alpha \\le C} D(\\alpha) = \\mathbf 1^\\top \\alpha - \\tfrac12 \\alpha^\\top Q \\alpha,
    \\qquad g = \\nabla D = \\mathbf 1 - Q \\alpha .

Along coordinate :math:`i`, with everything else fixed,

.. math::

    D(\\alpha + (x - \\alpha_i) e_i) = a x^2 + b x + \\text{const}, \\quad
    a = -\\tfrac12 Q_{ii}, \\quad b = g_i + Q_{ii} \\alpha_i ,

maximised on :math:`[0, C]` at :math:`\\operatorname{clip}(\\alpha_i + g_i / Q_{ii}, 0, C)`
when :math:`Q_{ii} > 0`.  When :math:`Q_{ii} \\le 0` (a zero row with the linear
kernel, or a kernel that is not positive semidefinite) the parabola has no
interior maximum and the better end of the interval is taken.  After the step
:math:`\\Delta = x - \\alpha_i` the cached gradient is updated in O(n):
:math:`g \\leftarrow g - \\Delta\\, Q_{:, i}`.

Coordinates are visited in a fresh random permutation every epoch; the
permutation of epoch ``e`` is drawn from ``numpy.random.default_rng([seed, e])``,
so a run is replayable from its state.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .. import objectives as obj
from .base import check_choice, seed_from


class DualCDState(NamedTuple):
    """State of :class:`DualCoordinateAscent` after ``n_iter`` coordinate steps.

    Attributes
    ----------
    n_iter : int
    alpha : (n,) dual variables in [0, C].
    grad : (n,) cached gradient ``1 - Q alpha`` of the dual.
    epoch : int, current epoch;  pos : int, position of the next step in ``perm``.
    perm : (n,) int, this epoch's visiting order;  seed : int.
    i : int, coordinate updated by the last step (-1 at the start).
    a, b : float, the parabola ``a x^2 + b x`` maximised over [0, C] in that step.
    alpha_unclipped : float, its unconstrained maximiser (+-inf if it has none).
    alpha_clipped : float, the new alpha_i;  delta : float, its change.
    primal, dual, gap, kkt : float, objectives, relative gap, KKT violation now.
    """

    n_iter: int
    alpha: object
    grad: object
    epoch: int
    pos: int
    perm: np.ndarray
    seed: int
    i: int
    a: float
    b: float
    alpha_unclipped: float
    alpha_clipped: float
    delta: float
    primal: float
    dual: float
    gap: float
    kkt: float


def epoch_permutation(seed: int, epoch: int, n: int) -> np.ndarray:
    """The visiting order of ``epoch`` (the same on the step path and the fast path)."""
    return np.random.default_rng([seed, epoch]).permutation(n)


@njit(cache=True)
def maximize_parabola(a, b, C, current):
    """Maximise ``a x^2 + b x`` over ``[0, C]``; return ``(unclipped, clipped)``.

    ``a < 0``: the vertex ``-b / (2a)``, clipped.  ``a >= 0`` (no interior
    maximum): the better end; the "unclipped" value is then +-inf in the
    direction of ascent at ``current`` (or ``current`` when flat).
    Compiled, and shared by the step path and the fast path.
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


def stopping_measures(problem, alpha, grad):
    """Primal, dual, relative gap and KKT violation from the cached gradient, in O(n)."""
    f = problem.y * (1.0 - grad)  # Q alpha = y * f  =>  f = y (1 - g)
    P = obj.primal(problem, alpha, 0.0, f)
    D = obj.dual(problem, alpha, f)
    return P, D, obj.relative_gap(P, D), obj.kkt_violation(problem, alpha, f, bias=False)


class DualCoordinateAscent:
    """Exact coordinate ascent on the no-bias dual, one coordinate per step.

    Parameters
    ----------
    init : {"zero", "uniform"}
        Start at alpha = 0 or at alpha ~ U(0, C) (seed 002, Algorithm 2, line 1).
    random_state : int, Generator or None
        Seed of the permutations (and of the uniform start).
    """

    bias = False
    name = "dual_cd"

    def __init__(self, init: str = "zero", random_state=None):
        self.init_rule = check_choice("init", init, ("zero", "uniform"))
        self.random_state = random_state

    def steps_per_epoch(self, problem) -> int:
        return problem.n_samples

    def init(self, problem) -> DualCDState:
        xp, n, C = problem.xp, problem.n_samples, problem.C
        seed = seed_from(self.random_state)
        if self.init_rule == "zero":
            alpha = xp.zeros(n, dtype=problem.X.dtype)
            grad = xp.ones(n, dtype=problem.X.dtype)
        else:
            alpha = xp.asarray(np.random.default_rng([seed, 2**32 - 1]).uniform(0.0, C, n), dtype=problem.X.dtype)
            grad = 1.0 - problem.Q @ alpha
        P, D, gap, kkt = stopping_measures(problem, alpha, grad)
        return DualCDState(0, alpha, grad, 0, 0, epoch_permutation(seed, 0, n), seed,
                           -1, 0.0, 0.0, math.nan, math.nan, 0.0, P, D, gap, kkt)

    def converged(self, state, tol) -> bool:
        return state.gap <= tol

    def step(self, problem, state: DualCDState) -> DualCDState:
        n, C = problem.n_samples, problem.C
        epoch, pos, perm = state.epoch, state.pos, state.perm
        if pos == n:  # a new epoch: a new permutation
            epoch, pos = epoch + 1, 0
            perm = epoch_permutation(state.seed, epoch, n)
        i = int(perm[pos])
        Qii = float(problem.Q[i, i])
        alpha_i = float(state.alpha[i])
        a = -0.5 * Qii  # coefficient of x^2
        b = float(state.grad[i]) + Qii * alpha_i  # coefficient of x
        unclipped, new = maximize_parabola(a, b, float(C), alpha_i)
        delta = new - alpha_i
        alpha = state.alpha
        grad = state.grad
        if delta != 0.0:
            alpha = problem.xp.asarray(alpha, copy=True)
            alpha[i] = new
            grad = grad - delta * problem.Q[:, i]  # g <- g - delta Q e_i
        P, D, gap, kkt = stopping_measures(problem, alpha, grad)
        return DualCDState(state.n_iter + 1, alpha, grad, epoch, pos + 1, perm, state.seed,
                           i, a, b, unclipped, new, delta, P, D, gap, kkt)

    def advance(self, problem, state: DualCDState, n_steps: int, tol=None) -> DualCDState:
        """``n_steps`` steps by the compiled loop (NumPy) or by ``step`` (other backends)."""
        from .numba_dual_cd import advance_dual_cd

        return advance_dual_cd(problem, state, int(n_steps))

    def coefficients(self, problem, state):
        """``(alpha, b)``: the dual variables and the bias (0: this dual has none)."""
        return state.alpha, 0.0
