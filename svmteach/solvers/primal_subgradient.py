"""Full-batch primal subgradient descent for the binary SVM without bias (the slides "Optimizing SVM Multiclass Dual Solvers", Algorithm 1).

.. math::

    P(w) = \\tfrac12 \\|w\\|^2 + \\sum_i C_i \\max(0, 1 - y_i w^\\top \\phi(x_i)), \\qquad
    \\partial P(w) \\ni w - \\sum_{i:\\, m_i < 1} C_i y_i \\phi(x_i), \\quad m_i = y_i w^\\top \\phi(x_i),

with :math:`C_i` = ``problem.C_i``, and the step :math:`w \\leftarrow w - \\eta_t (w - \\sum_{m_i < 1} C_i y_i \\phi(x_i))`.
(The seed calls it "stochastic gradient descent", but every iteration uses the whole data set.)

The iterate is kept as :math:`w = \\sum_i \\beta_i \\phi(x_i)` so that any kernel works; with
:math:`\\alpha_i = y_i \\beta_i` the step reads
:math:`\\alpha_i \\leftarrow (1 - \\eta_t)\\alpha_i + \\eta_t C_i\\, \\mathbb 1[m_i < 1]`, a convex
combination of points of the box when :math:`\\eta_t \\le 1`: the iterates are feasible dual points,
and the duality gap certifies them.

Step sizes: ``"constant"`` :math:`\\eta_t = \\eta_0`, ``"1/t"``
:math:`\\eta_t = \\eta_0 / (t + 1)` (the objective is 1-strongly convex, as in
Pegasos), ``"1/sqrt(t)"`` :math:`\\eta_t = \\eta_0 / \\sqrt{t + 1}`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import objectives as obj
from ..problems import BinaryProblem
from ..backend import to_numpy
from .base import Solver, check_choice, check_problem, check_random_state, check_state_alpha, check_tol
from .state import ThreePartState

SCHEDULES = ("constant", "1/t", "1/sqrt(t)")


class SubgradientIterate(NamedTuple):
    """What the subgradient method has computed after ``n_iter`` iterations.

    Attributes
    ----------
    n_iter : int.
    alpha : (n,) ``y_i beta_i``, alpha_i in [0, C_i] (the dual point the iterate defines).
    w : (d,) weight vector (linear kernel) or None.
    margins : (n,) ``y_i f(x_i)`` at the current iterate.
    active : (n,) bool, points with margin < 1: they enter the next subgradient.
    primal, dual, gap, kkt : float.
    """

    n_iter: int
    alpha: object
    w: object
    margins: object
    active: object
    primal: float
    dual: float
    gap: float
    kkt: float


class SubgradientPicture(NamedTuple):
    """The last step.

    Attributes
    ----------
    step_size : float, the eta of the step that produced this state (NaN at the start).
    grad_norm : float, the norm of that subgradient (NaN at the start).
    """

    step_size: float
    grad_norm: float


class SubgradientState(ThreePartState):
    """State of :class:`PrimalSubgradient` after ``n_iter`` iterations: ``iterate`` (:class:`SubgradientIterate`),
    ``picture`` (:class:`SubgradientPicture`); no bookkeeping.  Every field is also read by its name."""

    __slots__ = ()
    Iterate, Picture = SubgradientIterate, SubgradientPicture


class PrimalSubgradient(Solver):
    """Full-batch subgradient descent on the primal.

    Parameters
    ----------
    step_size : {"1/t", "1/sqrt(t)", "constant"}
        The schedule of eta_t (see the module docstring).
    learning_rate : float in (0, 1]
        eta_0.  At most 1, so that each step is a convex combination.
    random_state : None
        Accepted for the registries' uniform construction (the estimators' ``random_state``); the method draws
        nothing.
    """

    binary = True
    name = "primal_subgradient"
    takes_sparse = True
    State = SubgradientState

    def __init__(self, step_size: str = "1/t", learning_rate: float = 1.0,
                 random_state: int | np.random.Generator | np.random.RandomState | None = None) -> None:
        check_random_state(random_state)
        self.random_state = random_state
        self.step_size = check_choice("step_size", step_size, SCHEDULES)
        lr = check_tol(learning_rate, "learning_rate", positive=True)
        if not lr <= 1.0:
            raise ValueError(f"learning_rate must be in (0, 1], got {learning_rate!r}")
        self.learning_rate = lr

    def steps_per_epoch(self, problem: BinaryProblem) -> int:
        """1: every step is a full pass over the data (a full-batch subgradient)."""
        return 1

    def eta(self, t: int) -> float:
        if self.step_size == "constant":
            return self.learning_rate
        if self.step_size == "1/t":
            return self.learning_rate / (t + 1)
        return self.learning_rate / math.sqrt(t + 1)

    def _state(self, problem, n_iter, alpha, eta, grad_norm):
        f = obj.scores(problem, alpha)
        margins = problem.y * f
        w = problem.X.T @ (alpha * problem.y) if problem.kernel.is_linear else None
        P = obj.primal(problem, alpha, 0.0, f)
        D = obj.dual(problem, alpha, f)
        return SubgradientState.of(n_iter=n_iter, alpha=alpha, w=w, margins=margins, active=margins < 1.0,
                                step_size=eta, grad_norm=grad_norm, primal=P, dual=D, gap=obj.relative_gap(P, D),
                                kkt=obj.kkt_violation(problem, alpha, f, bias=False))

    def init(self, problem: BinaryProblem) -> SubgradientState:
        check_problem(self, problem)
        alpha = problem.xp.zeros(problem.n_samples, dtype=problem.X.dtype)
        return self._state(problem, 0, alpha, math.nan, math.nan)

    def warm_start(self, problem: BinaryProblem, state: SubgradientState) -> SubgradientState:
        """``state`` (of another C, say) with alpha clipped into [0, C_i], re-measured; the step count,
        and so the step-size schedule, carries on."""
        check_problem(self, problem)
        alpha = check_state_alpha(problem, state.alpha, (problem.n_samples,))
        xp = problem.xp
        alpha = xp.clip(xp.astype(alpha, problem.X.dtype), 0.0, xp.astype(problem.C_i, problem.X.dtype))
        return self._state(problem, state.n_iter, alpha, state.step_size, state.grad_norm)

    def step(self, problem: BinaryProblem, state: SubgradientState) -> SubgradientState:
        xp = problem.xp
        eta = self.eta(state.n_iter)
        C_i = xp.astype(problem.C_i, problem.X.dtype)
        target = C_i * xp.astype(state.active, problem.X.dtype)  # C_i 1[m_i < 1]
        # subgradient in alpha-coordinates: alpha - C_i 1[m < 1]; its norm in w-space is sqrt(v'Qv)
        v = state.alpha - target
        fv = obj.scores(problem, v)
        grad_norm = math.sqrt(max(float(xp.sum(v * problem.y * fv)), 0.0))
        # (1 - eta) alpha + eta C_i 1[m < 1]; the minimum only guards against rounding above C_i
        alpha = xp.minimum((1.0 - eta) * state.alpha + eta * target, C_i)
        return self._state(problem, state.n_iter + 1, alpha, eta, grad_norm)

    # measure and advance are Solver's: states are measured when they are made (a step costs a pass
    # over the data anyway), and advance is the step loop that stops once the gap reaches tol.

    def coefficients(self, problem: BinaryProblem, state: SubgradientState) -> tuple[np.ndarray, float]:
        """``(alpha, b)``: the dual point of the iterate, a NumPy array (n,), and the bias, 0.0 (none)."""
        return to_numpy(state.alpha), 0.0
