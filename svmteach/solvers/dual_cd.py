"""Dual coordinate ascent for the binary SVM without bias (the slides "Optimizing SVM Multiclass Dual Solvers", Algorithm 2; Hsieh et al. 2008).

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

Shrinking (Hsieh et al. 2008, section 3.1; LIBLINEAR).  Most coordinates of an
SVM end at 0 or C.  With the minimisation gradient :math:`G_i = -g_i` and the
largest and smallest projected gradients of the previous epoch,
:math:`\\bar M` and :math:`\\bar m`, a coordinate with :math:`\\alpha_i = 0,\\ G_i > \\bar M`
or :math:`\\alpha_i = C,\\ G_i < \\bar m` is set aside for the following epochs.
When the projected gradients of the coordinates still active have become 10
times closer together than in the last full pass, every coordinate is
reactivated for one full pass.  Stopping uses the duality gap over all the
data, so a wrong guess costs time, never accuracy.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import objectives as obj
from ..backend import is_numpy, to_numpy
from .base import Solver, check_choice, check_random_state, check_state, check_state_alpha, seed_from
from .numba_dual_cd import NO_COORDINATE, maximize_parabola, projected_gradient, steps_gram, steps_linear
from .smo import exact_gradient


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
    shrunk : bool, the last step set coordinate i aside instead of updating it.
        (i to shrunk are the fields of :class:`~svmteach.solvers.numba_dual_cd.CoordinatePicture`.)
    active : (n,) bool, the coordinates not set aside (all True without shrinking).
    shrink_hi, shrink_lo : float, this epoch's thresholds (the previous epoch's largest and
        smallest projected gradient, or +-inf).
    pg_max, pg_min : float, the largest and smallest projected gradient seen this epoch.
    full_spread : float, pg_max - pg_min of the last epoch over all coordinates.
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
    shrunk: bool
    active: np.ndarray
    shrink_hi: float
    shrink_lo: float
    pg_max: float
    pg_min: float
    full_spread: float
    primal: float
    dual: float
    gap: float
    kkt: float


def epoch_permutation(seed: int, epoch: int, active: np.ndarray) -> np.ndarray:
    """The visiting order of ``epoch``: the active coordinates, shuffled (the same on both paths)."""
    idx = np.flatnonzero(active)
    return idx[np.random.default_rng([seed, epoch]).permutation(idx.size)]


REACTIVATE = 0.1  # reactivate all once the active spread is this fraction of the last full one


def next_epoch(state, shrinking: bool):
    """Close the epoch of ``state``: new thresholds, maybe reactivation, the next permutation.

    Returns ``(epoch, perm, active, shrink_hi, shrink_lo, full_spread)``; shared by both paths.
    """
    inf = math.inf
    active, full_spread = state.active, state.full_spread
    spread = state.pg_max - state.pg_min
    n_active = int(active.sum())
    if n_active == active.size:
        full_spread = spread
    if not shrinking:
        hi, lo = inf, -inf
    elif n_active < active.size and (n_active == 0 or spread <= REACTIVATE * full_spread):
        active = np.ones_like(active)
        hi, lo = inf, -inf
    else:
        hi = state.pg_max if state.pg_max > 0 else inf
        lo = state.pg_min if state.pg_min < 0 else -inf
    epoch = state.epoch + 1
    return epoch, epoch_permutation(state.seed, epoch, active), active, hi, lo, full_spread


def stopping_measures(problem, alpha, grad):
    """Primal, dual, relative gap and KKT violation from the cached gradient, in O(n)."""
    f = problem.y * (1.0 - grad)  # Q alpha = y * f  =>  f = y (1 - g)
    P = obj.primal(problem, alpha, 0.0, f)
    D = obj.dual(problem, alpha, f)
    return P, D, obj.relative_gap(P, D), obj.kkt_violation(problem, alpha, f, bias=False)


def _start(problem, n_iter, epoch, alpha, grad, seed) -> DualCDState:
    """A measured state at ``alpha`` at the start of ``epoch``: every coordinate active, no step to picture."""
    P, D, gap, kkt = stopping_measures(problem, alpha, grad)
    active = np.ones(problem.n_samples, dtype=bool)
    inf = math.inf
    return DualCDState(n_iter=n_iter, alpha=alpha, grad=grad, epoch=epoch, pos=0,
                       perm=epoch_permutation(seed, epoch, active), seed=seed, **NO_COORDINATE._asdict(),
                       active=active, shrink_hi=inf, shrink_lo=-inf, pg_max=-inf, pg_min=inf, full_spread=inf,
                       primal=P, dual=D, gap=gap, kkt=kkt)


class DualCoordinateAscent(Solver):
    """Exact coordinate ascent on the no-bias dual, one coordinate per step.

    Parameters
    ----------
    init : {"zero", "uniform"}
        Start at alpha = 0 or at alpha ~ U(0, C) (the slides "Optimizing SVM Multiclass Dual Solvers", Algorithm 2, line 1).
    random_state : int, Generator or None
        Seed of the permutations (and of the uniform start).
    shrinking : bool
        Set aside coordinates stuck at a bound (see the module docstring).
    """

    bias = False
    name = "dual_cd"
    State = DualCDState

    def __init__(self, init: str = "zero", random_state=None, shrinking: bool = True):
        if not isinstance(init, str):
            raise TypeError(f"init must be 'zero' or 'uniform', got {type(init).__name__} {init!r}")
        self.init_rule = check_choice("init", init, ("zero", "uniform"))
        check_random_state(random_state)
        self.random_state = random_state
        if not isinstance(shrinking, (bool, np.bool_)):
            raise TypeError(f"shrinking must be True or False, got {type(shrinking).__name__} {shrinking!r}")
        self.shrinking = bool(shrinking)

    @property
    def still_is_fixed_point(self) -> bool:
        """Without shrinking an epoch visits every coordinate: if none moves, none ever will."""
        return not self.shrinking

    def init(self, problem) -> DualCDState:
        xp, n, C = problem.xp, problem.n_samples, problem.C
        seed = seed_from(self.random_state)
        if self.init_rule == "zero":
            alpha = xp.zeros(n, dtype=problem.X.dtype)
            grad = xp.ones(n, dtype=problem.X.dtype)
        else:
            alpha = xp.asarray(np.random.default_rng([seed, 2**32 - 1]).uniform(0.0, C, n), dtype=problem.X.dtype)
            grad = 1.0 - problem.Q @ alpha
        return _start(problem, 0, 0, alpha, grad, seed)

    def warm_start(self, problem, state: DualCDState) -> DualCDState:
        """``state`` of another run (another C, say) made a feasible, measured state of ``problem``.

        alpha is clipped into this problem's box [0, C] (the only constraint without a bias),
        the gradient recomputed from it exactly in float64, the picture of the last step and
        the shrinking cleared; a new epoch starts, with every coordinate active.
        """
        check_state(self, state)
        xp = problem.xp
        alpha = check_state_alpha(problem, state.alpha, (problem.n_samples,))
        alpha = xp.clip(xp.asarray(alpha, dtype=problem.X.dtype), 0.0, problem.C)
        return _start(problem, state.n_iter, state.epoch + 1, alpha, exact_gradient(problem, alpha), state.seed)

    def step(self, problem, state: DualCDState) -> DualCDState:
        C = float(problem.C)
        if state.pos == len(state.perm):  # the epoch is over
            epoch, perm, active, hi, lo, full = next_epoch(state, self.shrinking)
            state = state._replace(epoch=epoch, perm=perm, pos=0, active=active, shrink_hi=hi,
                                   shrink_lo=lo, pg_max=-math.inf, pg_min=math.inf, full_spread=full)
        i = int(state.perm[state.pos])
        Qii = float(problem.Q[i, i])
        alpha_i = float(state.alpha[i])
        g_i = float(state.grad[i])
        a = -0.5 * Qii  # coefficient of x^2
        b = g_i + Qii * alpha_i  # coefficient of x
        shrink, pg = projected_gradient(-g_i, alpha_i, C, state.shrink_hi, state.shrink_lo)
        if shrink:
            active = state.active.copy()
            active[i] = False
            return state._replace(n_iter=state.n_iter + 1, pos=state.pos + 1, i=i, a=a, b=b,
                                  alpha_unclipped=math.nan, alpha_clipped=alpha_i, delta=0.0,
                                  shrunk=True, active=active)
        unclipped, new = maximize_parabola(a, b, C, alpha_i)
        delta = new - alpha_i
        alpha = state.alpha
        grad = state.grad
        if delta != 0.0:
            alpha = problem.xp.asarray(alpha, copy=True)
            alpha[i] = new
            grad = grad - delta * problem.Q[:, i]  # g <- g - delta Q e_i
        P, D, gap, kkt = stopping_measures(problem, alpha, grad)
        return state._replace(n_iter=state.n_iter + 1, alpha=alpha, grad=grad, pos=state.pos + 1, i=i, a=a,
                              b=b, alpha_unclipped=unclipped, alpha_clipped=new, delta=delta, shrunk=False,
                              pg_max=max(state.pg_max, pg), pg_min=min(state.pg_min, pg),
                              primal=P, dual=D, gap=gap, kkt=kkt)

    def measure(self, problem, state: DualCDState) -> DualCDState:
        """The state with primal, dual, gap and KKT violation from its cached gradient (O(n))."""
        P, D, gap, kkt = stopping_measures(problem, state.alpha, state.grad)
        return state._replace(primal=P, dual=D, gap=gap, kkt=kkt)

    def advance(self, problem, state: DualCDState, n_steps: int, tol=None) -> DualCDState:
        """Up to ``n_steps`` steps by the compiled loops (NumPy) or by ``step`` (other backends).

        A loop runs at most to the end of the epoch's permutation.  With ``tol`` the state is
        measured there (on the linear path after rebuilding the gradient from ``w``, O(nd): no more
        than the epoch cost) and the run stops once its relative gap is at most ``tol``.
        """
        n_steps = int(n_steps)
        if not is_numpy(problem.xp):
            return super().advance(problem, state, n_steps, tol)
        C = float(problem.C)
        # the loops write alpha, active and grad (or w) in place: copies, never the input state's arrays
        alpha = np.array(state.alpha, dtype=np.float64)
        state = state._replace(alpha=alpha, active=state.active.copy())
        linear = problem.kernel.is_linear
        if linear:  # w = sum_i alpha_i y_i x_i replaces the cached gradient: O(d) a step
            X, y = problem.X, problem.y
            w = X.T @ (alpha * y)
            sqnorm = np.einsum("ij,ij->i", X, X)
        else:
            state = state._replace(grad=np.array(state.grad, dtype=np.float64))
        remaining = n_steps
        while remaining > 0:
            if state.pos == len(state.perm):  # the epoch is over
                epoch, perm, active, hi, lo, full = next_epoch(state, self.shrinking)
                state = state._replace(epoch=epoch, perm=perm, pos=0, active=active.copy(), shrink_hi=hi,
                                       shrink_lo=lo, pg_max=-math.inf, pg_min=math.inf, full_spread=full)
            take = min(remaining, len(state.perm) - state.pos)
            order = np.ascontiguousarray(state.perm[state.pos : state.pos + take], dtype=np.int64)
            bounds = (state.shrink_hi, state.shrink_lo, state.pg_max, state.pg_min)
            if linear:
                picture, pg_max, pg_min = steps_linear(X, y, sqnorm, C, alpha, w, order, state.active, *bounds)
            else:
                picture, pg_max, pg_min = steps_gram(problem.Q, C, alpha, state.grad, order, state.active, *bounds)
            state = state._replace(n_iter=state.n_iter + take, pos=state.pos + take, pg_max=pg_max,
                                   pg_min=pg_min, **picture._asdict())
            remaining -= take
            if linear and (tol is not None or remaining == 0):
                state = state._replace(grad=1.0 - y * (X @ w))  # g = 1 - Q alpha = 1 - y * (X w)
            if tol is not None and remaining > 0:
                state = self.measure(problem, state)
                if self.converged(state, tol):
                    break
        return self.measure(problem, state)

    def coefficients(self, problem, state):
        """``(alpha, b)``: the dual variables, a NumPy array (n,), and the bias, 0.0 (this dual has none)."""
        return to_numpy(state.alpha), 0.0
