"""Dual coordinate ascent for the binary SVM without bias.

After the slides "Optimizing SVM Multiclass Dual Solvers", Algorithm 2, and Hsieh et al. (2008).

The dual without bias is a box-constrained concave quadratic,

.. math::

    \\max_{0 \\le \\alpha_i \\le C_i} D(\\alpha) = \\mathbf 1^\\top \\alpha - \\tfrac12 \\alpha^\\top Q \\alpha,
    \\qquad g = \\nabla D = \\mathbf 1 - Q \\alpha ,

with each sample's bound :math:`C_i = C w_i` (``problem.C_i``: C itself without sample weights;
0 for a weight 0, whose coordinate then stays at 0).

Along coordinate :math:`i`, with everything else fixed,

.. math::

    D(\\alpha + (x - \\alpha_i) e_i) = a x^2 + b x + \\text{const}, \\quad
    a = -\\tfrac12 Q_{ii}, \\quad b = g_i + Q_{ii} \\alpha_i ,

maximised on :math:`[0, C_i]` at :math:`\\operatorname{clip}(\\alpha_i + g_i / Q_{ii}, 0, C_i)`
when :math:`Q_{ii} > 0`.  When :math:`Q_{ii} \\le 0` (a zero row with the linear
kernel, or a kernel that is not positive semidefinite) the parabola has no
interior maximum and the better end of the interval is taken.  After the step
:math:`\\Delta = x - \\alpha_i` the cached gradient is updated in O(n):
:math:`g \\leftarrow g - \\Delta\\, Q_{:, i}`.

Epochs, shrinking and reactivation are LIBLINEAR's (``solve_l2r_l1l2_svc``; Hsieh et al. 2008,
section 3.1), written once in :mod:`~svmteach.solvers.numba_dual_cd`: with :math:`G_i = -g_i` and
the previous epoch's largest and smallest projected gradients :math:`\\bar M, \\bar m`, a coordinate
with :math:`\\alpha_i = 0,\\ G_i > \\bar M` or :math:`\\alpha_i = C_i,\\ G_i < \\bar m` is set aside.
The epoch's violation, LIBLINEAR's stop, is only :func:`~svmteach.solvers.base.solve`'s cheap test;
the gap over all the data decides, so a wrong guess costs time, never accuracy.  The compiled linear
path keeps :math:`w` and no gradient; ``measure`` rebuilds the gradient from alpha when asked.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .. import objectives as obj
from ..problems import BinaryProblem
from ..backend import is_numpy, to_numpy
from ..rows import compiled_rows, is_sparse
from .base import (Solver, binary_gap_rounding, check_choice, check_flag, check_problem, check_random_state, check_state,
                   check_state_alpha, seed_from)
from .state import ThreePartState
from .stopping import StoppingRule
from .numba_dual_cd import (NO_COORDINATE, REACTIVATE_AT, CoordinatePicture, Sweep, add_row, after_visit,
                            linear_gradient, shuffle_prefix, steps_gram, steps_linear, visit)
from .kernel_scores import CACHE_SIZE, check_cache_size, exact_gradient, kernel_row, row_cache


class DualCDIterate(NamedTuple):
    """What dual coordinate ascent has computed after ``n_iter`` coordinate steps.

    Attributes
    ----------
    n_iter : int
    alpha : (n,) dual variables, alpha_i in [0, C_i].
    grad : (n,) gradient ``1 - Q alpha`` of the dual, or None after a compiled linear run (which
        keeps ``w``).
    w : (d,) ``sum_i alpha_i y_i x_i`` as the linear kernel's steps keep it (up to their rounding), or
        None (another kernel, or a start).
    primal, dual, gap, kkt : float, objectives, relative gap, KKT violation at the last measure.
    """

    n_iter: int
    alpha: object
    grad: object
    w: object
    primal: float
    dual: float
    gap: float
    kkt: float


class DualCDEngine(NamedTuple("DualCDEngine", [("index", np.ndarray), ("seed", int), *Sweep.__annotations__.items(),
                                               ("rows", object)])):
    """The bookkeeping of dual coordinate ascent, the same on the step path and the compiled loops (which
    carry its scalars, from ``epoch`` to ``epoch_active``, as a :class:`~svmteach.solvers.numba_dual_cd.Sweep`).

    Attributes
    ----------
    index : (n,) int, every coordinate once: the ``n_active`` active ones first, in this epoch's
        visiting order, then those set aside.
    seed : int, seed of the visiting orders (:func:`~svmteach.solvers.numba_dual_cd.shuffle_prefix`).
    epoch : int, current epoch;  pos : int, position of the next step in ``index``.
    n_active : int, the number of active coordinates (n without shrinking).
    shrink_hi, shrink_lo : float, this epoch's thresholds (the previous epoch's largest and
        smallest projected gradient, or +-inf).
    pg_max, pg_min : float, the largest and smallest projected gradient seen so far this epoch.
    reactivate_at : float, a shrunk epoch whose violation is at most this reactivates every coordinate.
    epoch_violation : float, the violation of the last completed epoch
        (:func:`~svmteach.solvers.numba_dual_cd.epoch_violation`; +inf before the first ends).
    epoch_active : int, the coordinates that epoch kept active (n: a full pass; 0 before the first).
    rows : the run's :class:`~svmteach.solvers.kernel_scores.KernelRowCache` (None off NumPy), shared
        by its states.
    """

    __slots__ = ()


class DualCDState(ThreePartState):
    """State of :class:`DualCoordinateAscent` after ``n_iter`` coordinate steps: ``iterate``
    (:class:`DualCDIterate`), ``picture`` (the last step's :class:`~svmteach.solvers.numba_dual_cd.CoordinatePicture`:
    i, a, b, alpha_unclipped, alpha_clipped, delta, shrunk; i = -1 at the start) and ``engine``
    (:class:`DualCDEngine`).  Every field is also read by its name: ``state.alpha``, ``state.epoch``."""

    __slots__ = ()
    Iterate, Picture, Engine = DualCDIterate, CoordinatePicture, DualCDEngine

    @property
    def active(self) -> np.ndarray:
        """(n,) bool, the coordinates not set aside (all True without shrinking)."""
        mask = np.zeros(len(self.index), dtype=bool)
        mask[self.index[: self.n_active]] = True
        return mask


def stopping_measures(problem, alpha, grad):
    """Primal, dual, relative gap and KKT violation from the gradient, in O(n)."""
    f = problem.y * (1.0 - grad)  # Q alpha = y * f  =>  f = y (1 - g)
    P = obj.primal(problem, alpha, 0.0, f)
    D = obj.dual(problem, alpha, f)
    return P, D, obj.relative_gap(P, D), obj.kkt_violation(problem, alpha, f, bias=False)


def _sweep(state) -> Sweep:
    """The scalars of ``state`` that the compiled loops carry."""
    return Sweep(**{name: getattr(state, name) for name in Sweep._fields})


def _start(problem, n_iter, epoch, alpha, grad, seed, rows) -> DualCDState:
    """A measured state at ``alpha`` at the start of ``epoch``: every coordinate active, no step to picture."""
    P, D, gap, kkt = stopping_measures(problem, alpha, grad)
    n, inf = problem.n_samples, math.inf
    index = np.arange(n, dtype=np.int64)
    shuffle_prefix(index, n, seed, epoch)
    sweep = Sweep(epoch=epoch, pos=0, n_active=n, shrink_hi=inf, shrink_lo=-inf, pg_max=-inf, pg_min=inf,
                  reactivate_at=REACTIVATE_AT, epoch_violation=inf, epoch_active=0)
    return DualCDState(iterate=DualCDIterate(n_iter=n_iter, alpha=alpha, grad=grad, w=None, primal=P, dual=D, gap=gap,
                                             kkt=kkt),
                       picture=NO_COORDINATE, engine=DualCDEngine(index=index, seed=seed, **sweep._asdict(), rows=rows))


def _linear_gradient(problem, w, i):
    """:math:`g_i = 1 - y_i w^\\top x_i` (NumPy: the compiled loop's own :func:`linear_gradient`)."""
    if is_numpy(problem.xp):
        return float(linear_gradient(compiled_rows(problem.X), problem.y, w, i))
    return 1.0 - float(problem.y[i]) * float(problem.xp.sum(problem.X[i, :] * w))


def _add_row(problem, w, i, a):
    """:math:`w + a x_i` in a new array (NumPy: the compiled loop's own :func:`add_row`)."""
    if is_numpy(problem.xp):
        w = np.array(w, dtype=np.float64)
        add_row(compiled_rows(problem.X), i, a, w)
        return w
    return w + a * problem.X[i, :]


def _column(problem, i: int, rows):
    """Column i of Q for the step path: :math:`Q_{:, i} = y_i\\, y \\circ K_{:, i}`.

    :math:`K_{:, i}` from the run's row cache (:func:`~svmteach.solvers.kernel_scores.kernel_row`), or,
    for the linear kernel, whose loop keeps w, :meth:`~svmteach.problems.BinaryProblem.kernel_row`
    (dense X) or :math:`X x_i` (sparse X).
    """
    if is_sparse(problem.X):
        K_i = np.asarray((problem.X @ problem.X[[i], :].T).todense()).ravel()
    elif problem.kernel.is_linear:  # the compiled loop keeps w and reads no row of K: the problem's row
        K_i = problem.kernel_row(i)
    else:
        K_i = kernel_row(problem, i, rows)
    return problem.y * (float(problem.y[i]) * K_i)


class DualCoordinateAscent(Solver):
    """Exact coordinate ascent on the no-bias dual, one coordinate per step.

    Parameters
    ----------
    init : {"zero", "uniform"}
        Start at alpha = 0 or at alpha_i ~ U(0, C_i) (the slides "Optimizing SVM Multiclass Dual Solvers", Algorithm 2, line 1).
    random_state : int, Generator or None
        Seed of the visiting orders (and of the uniform start).
    shrinking : bool
        Set aside coordinates stuck at a bound (see the module docstring).
    cache_size : float
        MB of kernel rows kept between steps (LIBSVM's ``-m``, least recently used evicted); it
        changes a run's time, never its steps.
    """

    binary = True
    name = "dual_cd"
    takes_sparse = True
    State = DualCDState

    def __init__(self, init: str = "zero", random_state: int | np.random.Generator | np.random.RandomState | None = None,
                 shrinking: bool = True, cache_size: float = CACHE_SIZE) -> None:
        self.init_rule = check_choice("init", init, ("zero", "uniform"))
        check_random_state(random_state)
        self.random_state = random_state
        self.shrinking = check_flag("shrinking", shrinking)
        self.cache_size = check_cache_size(cache_size)

    @property
    def still_is_fixed_point(self) -> bool:
        """Without shrinking an epoch visits every coordinate: if none moves, none ever will."""
        return not self.shrinking

    def _row_cache(self, problem, reuse=None):
        """The run's kernel-row cache; None for the linear kernel, whose loop keeps w and reads no row of K."""
        return None if problem.kernel.is_linear else row_cache(problem, self.cache_size, reuse)

    def init(self, problem: BinaryProblem) -> DualCDState:
        check_problem(self, problem)
        xp, n = problem.xp, problem.n_samples
        seed, rows = seed_from(self.random_state), self._row_cache(problem)
        if self.init_rule == "zero":
            alpha = xp.zeros(n, dtype=problem.X.dtype)
            grad = xp.ones(n, dtype=problem.X.dtype)  # g = 1 - Q 0
        else:
            C_i = to_numpy(problem.C_i)  # alpha_i ~ U(0, C_i): C_i times a U(0, 1) draw
            alpha = xp.asarray(np.random.default_rng([seed, 2**32 - 1]).uniform(0.0, C_i, n), dtype=problem.X.dtype)
            grad = exact_gradient(problem, alpha, rows)
        return _start(problem, 0, 0, alpha, grad, seed, rows)

    def warm_start(self, problem: BinaryProblem, state: DualCDState) -> DualCDState:
        """``state`` of another run (another C, say) made a feasible, measured state of ``problem``:
        alpha clipped into [0, C_i], the gradient recomputed exactly, a new epoch with every coordinate
        active."""
        check_state(self, state)
        check_problem(self, problem)
        xp = problem.xp
        alpha = check_state_alpha(problem, state.alpha, (problem.n_samples,))
        alpha = xp.clip(xp.asarray(alpha, dtype=problem.X.dtype), 0.0, xp.astype(problem.C_i, problem.X.dtype))
        rows = self._row_cache(problem, state.rows)  # kept when X and the kernel are the same
        return _start(problem, state.n_iter, state.epoch + 1, alpha, exact_gradient(problem, alpha, rows), state.seed,
                      rows)

    def step(self, problem: BinaryProblem, state: DualCDState) -> DualCDState:
        """One coordinate step by the compiled loops' own kernels: :func:`~svmteach.solvers.numba_dual_cd.visit`
        on the gradient as they read it, then :func:`~svmteach.solvers.numba_dual_cd.after_visit`."""
        grad = exact_gradient(problem, state.alpha, state.rows) if state.grad is None else state.grad
        linear = problem.kernel.is_linear
        w = (obj.linear_weights(problem, state.alpha) if state.w is None else state.w) if linear else None
        i = int(state.index[state.pos])
        g_i = _linear_gradient(problem, w, i) if linear else float(grad[i])
        alpha = np.array(to_numpy(state.alpha), dtype=np.float64)  # visit writes alpha_i into this copy
        picture, pg = visit(i, g_i, float(problem.diag[i]), float(problem.C_i[i]), alpha, state.shrink_hi,
                            state.shrink_lo)
        if picture.delta != 0.0:
            alpha = problem.xp.asarray(alpha)
            grad = grad - picture.delta * _column(problem, i, state.rows)  # g <- g - delta Q e_i
            if linear:
                w = _add_row(problem, w, i, picture.delta * float(problem.y[i]))  # w <- w + delta y_i x_i
        else:
            alpha = state.alpha
        index = state.index.copy()  # after_visit swaps and shuffles this copy
        sweep, _ = after_visit(index, state.seed, self.shrinking, _sweep(state), picture.shrunk, pg)
        P, D, gap, kkt = stopping_measures(problem, alpha, grad)
        return state._replace(n_iter=state.n_iter + 1, alpha=alpha, grad=grad, w=w, index=index,
                              **sweep._asdict(), picture=picture, primal=P, dual=D, gap=gap, kkt=kkt)

    def measure(self, problem: BinaryProblem, state: DualCDState) -> DualCDState:
        """The state with the objectives of its alpha, from the gradient rebuilt exactly
        (:func:`~svmteach.solvers.kernel_scores.exact_gradient`).

        A state without a gradient then carries that one; a cached gradient is kept, so that
        measuring never changes the iterates that follow.  At alpha = 0 the gradient is 1, read off.
        """
        xp = problem.xp
        if bool(xp.any(state.alpha != 0)):
            exact = exact_gradient(problem, state.alpha, state.rows)
        else:  # alpha = 0: g = 1 - Q 0 = 1 exactly, without a pass over X (solve measures every start)
            exact = xp.ones(problem.n_samples, dtype=xp.float64)
        P, D, gap, kkt = stopping_measures(problem, state.alpha, exact)
        grad = exact if state.grad is None else state.grad
        return state._replace(grad=grad, primal=P, dual=D, gap=gap, kkt=kkt)

    def violation(self, state: DualCDState) -> float:
        """LIBLINEAR's stopping measure of the last completed epoch, shrunk or full
        (:func:`~svmteach.solvers.numba_dual_cd.epoch_violation`); +inf before the first ends."""
        return float(state.epoch_violation)

    def advance(self, problem: BinaryProblem, state: DualCDState, n_steps: int,
                tol: float | None = None) -> DualCDState:
        """Up to ``n_steps`` steps by the compiled loops (NumPy) or by ``step`` (other backends).

        Without ``tol``: one loop call, unmeasured, returning early at an epoch where LIBLINEAR would
        decide (:func:`~svmteach.solvers.numba_dual_cd.close_epoch`), so ``solve`` reads
        :meth:`violation` there.  With ``tol``: measured at each such return and every
        ``steps_between_measures`` steps, stopping once the gap is at most ``tol``.
        """
        n_steps = int(n_steps)
        if not is_numpy(problem.xp):
            return super().advance(problem, state, n_steps, tol)
        C = np.asarray(problem.C_i, dtype=np.float64)  # (n,) each coordinate's bound C_i
        # the loops write alpha, index and w (or grad) in place: copies, never the input state's arrays
        alpha = np.array(state.alpha, dtype=np.float64)
        index = state.index.copy()
        linear = problem.kernel.is_linear
        if linear:  # w = sum_i alpha_i y_i x_i replaces the gradient: O(nonzeros of x_i) a step
            X, y = compiled_rows(problem.X), problem.y
            w = np.array(obj.linear_weights(problem, alpha) if state.w is None else state.w, dtype=np.float64)
            grad = None
        else:
            w = None
            grad = np.array(state.grad if state.grad is not None else exact_gradient(problem, alpha, state.rows),
                            dtype=np.float64)
            rows, y, diag = state.rows, problem.y, np.asarray(problem.diag, dtype=np.float64)
        sweep = _sweep(state)
        stopping = StoppingRule(self, problem, tol)
        every = self.steps_between_measures(problem) if stopping.watching else n_steps
        done = 0
        while done < n_steps:
            take = min(every, n_steps - done)
            if linear:
                picture, sweep, taken = steps_linear(X, y, problem.diag, C, alpha, w, index, state.seed,
                                                     self.shrinking, sweep, take)
            else:
                picture, sweep, taken = steps_gram(rows, y, diag, C, alpha, grad, index, state.seed, self.shrinking,
                                                   sweep, take)
            done += taken
            state = state._replace(n_iter=state.n_iter + taken, alpha=alpha, grad=grad, w=w, index=index,
                                   **sweep._asdict(), picture=picture)
            if not stopping.watching:
                break
            state, stop = stopping.measured(state)
            if stop:
                break
        return state

    def gap_rounding(self, problem: BinaryProblem, state: DualCDState, tight: bool = False) -> float:
        """The contract's bound from the state's gradient (:func:`~svmteach.solvers.base.binary_gap_rounding`): a
        measured state carries one (the exact one where the loop keeps w), so certifying costs no pass over X."""
        if state.grad is None:
            return super().gap_rounding(problem, state, tight)
        return binary_gap_rounding(problem, state.alpha, 0.0, state.grad, tight)

    def row_cache(self, state: DualCDState) -> Any:
        """The state's kernel-row cache (``rows``: None off NumPy, or for dual CD's linear kernel)."""
        return state.rows

    def coefficients(self, problem: BinaryProblem, state: DualCDState) -> tuple[np.ndarray, float]:
        """``(alpha, b)``: the dual variables, a NumPy array (n,), and the bias, 0.0 (this dual has none)."""
        return to_numpy(state.alpha), 0.0
