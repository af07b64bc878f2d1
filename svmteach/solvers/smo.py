"""Sequential minimal optimisation for the binary SVM with a bias (the CISC 371 notes; Platt 1998; Fan, Chen and Lin 2005).

The dual with a bias keeps the equality constraint :math:`y^\\top \\alpha = 0`,

.. math::

    \\max_\\alpha D(\\alpha) = \\mathbf 1^\\top \\alpha - \\tfrac12 \\alpha^\\top Q \\alpha
    \\quad \\text{s.t.} \\quad 0 \\le \\alpha \\le C, \\; y^\\top \\alpha = 0,

so no single coordinate can move alone: SMO moves a pair :math:`(i, j)` along
the line :math:`y_i \\alpha_i + y_j \\alpha_j = \\text{const}`.  With the errors
:math:`E_t = f(x_t) - y_t` (with :math:`f(x) = w^\\top x + b`) and :math:`\\eta = K_{ii} + K_{jj} - 2K_{ij}`, the
dual along the line changes by :math:`\\psi(t) = t\\, y_j (E_i - E_j) - \\tfrac12 \\eta t^2`
for :math:`\\alpha_j \\leftarrow \\alpha_j + t`, so its unconstrained maximiser is

.. math::

    \\alpha_j^{\\text{unc}} = \\alpha_j + \\frac{y_j (E_i - E_j)}{\\eta}, \\qquad
    \\alpha_j^{\\text{new}} = \\operatorname{clip}(\\alpha_j^{\\text{unc}}, L, H), \\qquad
    \\alpha_i^{\\text{new}} = \\alpha_i + y_i y_j (\\alpha_j - \\alpha_j^{\\text{new}}),

with :math:`L = \\max(0, \\alpha_j - \\alpha_i), H = \\min(C_j, C_i + \\alpha_j - \\alpha_i)`
for opposite labels and :math:`L = \\max(0, \\alpha_i + \\alpha_j - C_i), H = \\min(C_j, \\alpha_i + \\alpha_j)`
for equal labels, each variable in its own box :math:`[0, C_t]` (``problem.C_i``, LIBSVM's weighted C).
(Seed 001's eq. 30.13 prints :math:`\\alpha_j + s_{ij}(E_j - E_i)`: the factor :math:`y_j` is missing
and the sign is reversed; see ``svmteach.derivations``.)
When :math:`\\eta \\le 0` (duplicate points, a kernel that is not PSD) :math:`\\psi`
has no interior maximum and the better end, L or H, is taken: nothing is divided by η.

The cached gradient is :math:`g = \\mathbf 1 - Q\\alpha`; then :math:`y_t - f_t = y_t g_t`
and :math:`E_t = b - y_t g_t`, so the pair's step never depends on b.  After each
step b is set from the KKT conditions (the mean of :math:`y_t - f_t` over free
support vectors, LIBSVM's rule, else the midpoint of the bounds).

Working-set rules
-----------------
``"random"``
    The simplified SMO of the course: a point violating the KKT conditions for
    the current b, chosen at random, and a random partner.
``"max_violating_pair"``
    :math:`i = \\arg\\max_{I_{up}} y_t g_t`, :math:`j = \\arg\\min_{I_{low}} y_t g_t`
    (Keerthi et al. 2001).
``"second_order"``
    LIBSVM's rule (Fan, Chen and Lin 2005): i as above, and j maximising the
    guaranteed gain :math:`b_{it}^2 / a_{it}` with :math:`b_{it} = y_i g_i - y_t g_t > 0`,
    :math:`a_{it} = K_{ii} + K_{tt} - 2 K_{it}` (or :math:`\\tau = 10^{-12}` if not positive).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .. import objectives as obj
from ..backend import is_numpy, to_numpy
from ..problems import BinaryProblem
from ..rows import is_sparse
from .base import (KKT_PER_TOL, Solver, binary_gap_rounding, check_choice, check_flag, check_random_state, check_state,
                   check_state_alpha, seed_from)
from .state import ThreePartState
from .stopping import StoppingRule
from .kernel_scores import CACHE_SIZE, check_cache_size, exact_gradient, kernel_row, row_cache
from .numba_smo import (CHECK_EVERY, INTERCEPT_RULES, NO_PAIR, PairPicture, countdown, everything, first_index, intercept,
                        pair_step, partner, random_pair, shrink_period, smo_loop, working_sets)

RULES = ("random", "max_violating_pair", "second_order")


class SMOIterate(NamedTuple):
    """What SMO has computed after ``n_iter`` pair steps.

    Attributes
    ----------
    n_iter : int.
    alpha : (n,) dual variables, feasible (box and ``y' alpha = 0``).
    grad : (n,) cached gradient ``1 - Q alpha``.
    b : float, the bias now;  b_rule : str, the rule that set it.
    primal, dual, gap, kkt : float (kkt is the maximal violating pair gap m - M).
    """

    n_iter: int
    alpha: object
    grad: object
    b: float
    b_rule: str
    primal: float
    dual: float
    gap: float
    kkt: float


class SMOEngine(NamedTuple):
    """SMO's bookkeeping.

    Attributes
    ----------
    seed : int, seed of the ``"random"`` rule's draws.
    rows : the run's :class:`~svmteach.solvers.kernel_scores.KernelRowCache` (None off NumPy), shared by the
        states of one run, which fill it.
    active : (n_active,) int64, the samples the working-set rules look at, in index order (``arange(n)`` when
        none is set aside, as without shrinking).
    shrink_in : int, steps until the next shrink.
    """

    seed: int
    rows: object
    active: object
    shrink_in: int


class SMOState(ThreePartState):
    """State of :class:`SMO` after ``n_iter`` pair steps: ``iterate`` (:class:`SMOIterate`), ``picture``
    (the last step's :class:`~svmteach.solvers.numba_smo.PairPicture`: i, j, E_i, E_j, eta, L, H, alpha_i_old,
    alpha_j_old, alpha_j_unclipped, alpha_j_new, alpha_i_new; -1 and NaN at the start) and ``engine``
    (:class:`SMOEngine`).  Every field is also read by its name: ``state.alpha``."""

    __slots__ = ()
    Iterate, Picture, Engine = SMOIterate, PairPicture, SMOEngine


#: A compiled run that stops early on its cached gradient (its gap said tol, or it saw no violating pair)
#: while the exact gradient says otherwise goes on from the exact gradient at most this many times in one call.
RESTARTS = 3
#: :func:`~svmteach.solvers.base.solve` runs SMO this many chunks an epoch (n pair steps), so that a run
#: stops within a tenth of an epoch of the step at which its gap reached tol.
CHUNKS_PER_EPOCH = 10


def feasible_alpha(problem, alpha):
    """``alpha`` (non-negative, with :math:`y^\\top\\alpha = 0`) scaled into this problem's box.

    :math:`\\alpha \\leftarrow s\\,\\alpha`, :math:`s = \\min(1, \\min_{\\alpha_t > 0} C_t / \\alpha_t)`, keeps
    :math:`\\alpha \\ge 0` and :math:`y^\\top \\alpha = 0`.  A negative entry, or :math:`y^\\top\\alpha \\ne 0`
    beyond rounding, cannot come from a run on this data: ValueError.
    """
    xp, C = problem.xp, problem.C_i
    alpha = xp.asarray(alpha, dtype=problem.X.dtype)
    if bool(xp.any(alpha < 0)):
        raise ValueError("state.alpha has negative entries: it is not a state of SMO on this problem")
    total = float(xp.sum(alpha))
    imbalance = abs(float(xp.sum(alpha * problem.y)))
    if imbalance > 1e-8 * total:
        raise ValueError(
            f"state.alpha has y'alpha = {imbalance:.3g} != 0 (sum alpha = {total:.3g}): it is not a state of SMO "
            "on these labels"
        )
    positive = alpha > 0
    s = float(xp.min(xp.where(positive, C / xp.where(positive, alpha, 1.0), math.inf)))
    if s < 1:
        alpha = xp.minimum(alpha * s, C)  # the tightest lands on its C_t (minimum: up to an ulp)
    return alpha


def check_dense(problem):
    """Raise a TypeError unless ``problem`` is a :class:`~svmteach.problems.BinaryProblem` (SMO solves the binary
    dual with its bias) whose X is dense (SMO's kernel rows are computed from dense rows)."""
    if not isinstance(problem, BinaryProblem):
        raise TypeError(f"SMO needs a BinaryProblem (the binary SVM with a bias), got {type(problem).__name__}: "
                        "for a MulticlassProblem use a multiclass solver (WWExact, CSBlondel, ...) or "
                        "OneVsRestSVC / OneVsOneSVC")
    if is_sparse(problem.X):
        raise TypeError("X is sparse, which SMO does not take (its kernel rows are computed from dense rows): use "
                        "solver 'dual_cd' (DualCoordinateAscent, the linear SVM without bias, made for sparse data), "
                        "or pass X.toarray()")
    return problem


def _host(a):
    """``a`` as the compiled kernels take it: a float64 NumPy array (``a`` itself on NumPy)."""
    return np.asarray(to_numpy(a), dtype=np.float64)


def smo_measures(problem, alpha, grad):
    """``(b, b_rule, primal, dual, gap, kkt)`` from the gradient ``grad`` (cached or exact), in O(n); b is
    the fast path's (:func:`~svmteach.solvers.numba_smo.intercept`)."""
    b, rule = intercept(*working_sets(_host(problem.y), _host(problem.C_i), _host(alpha), _host(grad)))
    f = problem.y * (1.0 - problem.xp.asarray(grad))
    P = obj.primal(problem, alpha, b, f)
    D = obj.dual(problem, alpha, f)
    return b, INTERCEPT_RULES[rule], P, D, obj.relative_gap(P, D), obj.kkt_violation(problem, alpha, f, bias=True)


def pair_violates(problem, alpha, grad) -> bool:
    """Whether the maximal violating pair of ``grad`` violates the KKT conditions beyond rounding: whether a
    working-set rule can still find a pair (that rule's own test, :func:`~svmteach.solvers.numba_smo.partner`)."""
    v, up, low = working_sets(_host(problem.y), _host(problem.C_i), _host(alpha), _host(grad))
    n = problem.n_samples
    i = first_index(v, up, np.arange(n), n)
    return i >= 0 and partner(1, i, np.empty(0), _host(problem.diag), v, low, np.arange(n), n) >= 0


def _first_engine(problem, seed, rows) -> SMOEngine:
    """The engine of a run's first state: every sample active, the first shrink a period away."""
    n = problem.n_samples
    return SMOEngine(seed=seed, rows=rows, active=np.arange(n), shrink_in=int(shrink_period(n)))


def _measured(problem, n_iter, alpha, grad, picture: PairPicture, engine: SMOEngine) -> SMOState:
    """The state at ``alpha`` (with its cached ``grad``) after the step ``picture`` shows, measured in O(n)."""
    b, rule, P, D, gap, kkt = smo_measures(problem, alpha, grad)
    return SMOState(iterate=SMOIterate(n_iter=n_iter, alpha=alpha, grad=grad, b=b, b_rule=rule, primal=P, dual=D,
                                       gap=gap, kkt=kkt),
                    picture=picture, engine=engine)


class SMO(Solver):
    """SMO with a bias, one pair per step.

    Parameters
    ----------
    selection : {"second_order", "max_violating_pair", "random"}
        The working-set rule (see the module docstring).
    random_state : int, Generator or None
        Seed of the ``"random"`` rule; the draws of step ``t`` come from
        ``numpy.random.default_rng([seed, t])``, so a run is replayable.
    cache_size : float
        MB of kernel rows kept between steps (LIBSVM's ``-m``; least recently used evicted, at
        least two kept); it changes a run's time, never its steps.
    shrinking : bool
        LIBSVM's shrinking (``-h 1``, the default): every ``min(n, 1000)`` steps every sample is judged, and
        those at a bound that can be in no violating pair are set aside: the working-set rules look at the
        others only; when these hold no violating pair, every sample is looked at again.  The pair update
        keeps every sample's gradient (the kernel rows are whole), so no gradient is ever rebuilt and every
        stop is judged on all samples.  Both paths alike (the engine's ``active`` and ``shrink_in``).
        False: the run of a solver without it, bit for bit.
    """

    binary = True
    bias = True
    bias_options = (True,)
    name = "smo"
    #: a chunk that moves no alpha found no violating pair beyond rounding on the exact gradient (or, for
    #: the deterministic rules, a pair that cannot move): the next chunk finds the same, so solve() stops there
    still_is_fixed_point = True
    State = SMOState

    def __init__(self, selection: str = "second_order", random_state: int | np.random.Generator | np.random.RandomState | None = None,
                 cache_size: float = CACHE_SIZE, shrinking: bool = True) -> None:
        self.selection = check_choice("selection", selection, RULES)
        check_random_state(random_state)
        self.random_state = random_state
        self.cache_size = check_cache_size(cache_size)
        self.shrinking = check_flag("shrinking", shrinking)

    def init(self, problem: BinaryProblem) -> SMOState:
        xp, n = check_dense(problem).xp, problem.n_samples
        alpha = xp.zeros(n, dtype=problem.X.dtype)
        grad = xp.ones(n, dtype=problem.X.dtype)
        rows = row_cache(problem, self.cache_size)
        return _measured(problem, 0, alpha, grad, NO_PAIR, _first_engine(problem, seed_from(self.random_state), rows))

    def warm_start(self, problem: BinaryProblem, state: SMOState) -> SMOState:
        """``state`` of another run (another C, say) made a feasible, measured state of ``problem``:
        alpha scaled by :func:`feasible_alpha`, the gradient recomputed exactly, every sample active; the
        step count, the seed and (same X and kernel) the row cache carry on."""
        check_state(self, state)
        check_dense(problem)
        alpha = feasible_alpha(problem, check_state_alpha(problem, state.alpha, (problem.n_samples,)))
        rows = row_cache(problem, self.cache_size, reuse=state.rows)
        return _measured(problem, state.n_iter, alpha, exact_gradient(problem, alpha, rows), NO_PAIR,
                         _first_engine(problem, state.seed, rows))

    def select(self, problem: BinaryProblem, state: SMOState) -> tuple[int, int]:
        """The pair ``(i, j)`` of the next step, or ``(-1, -1)`` when no pair can improve."""
        return self._select(problem, state)[:2]

    def _select(self, problem, state):
        """``(i, j, K_i, sets)``: the pair of the next step as the fast path's loop
        (:func:`~svmteach.solvers.numba_smo.smo_loop`) picks it, row i of the kernel matrix when the rule read
        it (else None), and ``sets = (v, up, low, active, n_active, shrink_in)``: the state's
        :func:`working_sets` (new arrays) and its active samples, shrunk or brought back as the loop does."""
        rule = RULES.index(self.selection)
        v, up, low = working_sets(_host(problem.y), _host(problem.C_i), _host(state.alpha), _host(state.grad))
        n = problem.n_samples
        active = np.empty(n, dtype=np.int64)
        n_active = len(state.active)
        active[:n_active] = state.active
        shrink_in = int(state.shrink_in)
        if self.shrinking:
            n_active, shrink_in = (int(c) for c in countdown(v, up, low, active, n_active, shrink_in))
        if rule == 0:  # the draws of step t: default_rng([seed, t]), as advance draws them
            u = np.random.default_rng([state.seed, state.n_iter]).random(2)

        def pick():
            if rule == 0:
                return (*random_pair(v, up, low, state.b, u[0], u[1], active, n_active), None)
            i = first_index(v, up, active, n_active)
            if i < 0:
                return -1, -1, None
            Ki = _host(kernel_row(problem, i, state.rows)) if rule == 2 else None
            j = partner(rule, i, np.empty(0) if Ki is None else Ki, _host(problem.diag), v, low, active, n_active)
            return (i, j, Ki) if j >= 0 else (-1, -1, None)

        i, j, Ki = pick()
        if j < 0 and n_active < n:  # none among the active samples: look at every sample
            n_active = everything(active)
            i, j, Ki = pick()
            if j >= 0:
                shrink_in = 0  # shrink again at the next step
        return i, j, Ki, (v, up, low, active, n_active, shrink_in)

    def step(self, problem: BinaryProblem, state: SMOState) -> SMOState:
        """One pair step: the pair of :meth:`select`, then the fast path's
        :func:`~svmteach.solvers.numba_smo.pair_step` (the pair solved, alpha and the gradient updated)
        on copies of the state's arrays."""
        i, j, Ki, (v, up, low, active, n_active, shrink_in) = self._select(problem, state)
        if i < 0:  # KKT conditions hold: a null step
            return state._replace(n_iter=state.n_iter + 1, picture=NO_PAIR, active=active[:n_active].copy(),
                                  shrink_in=shrink_in)
        # two rows of the kernel matrix (from the row cache; off NumPy, computed on the problem's device)
        Ki = _host(kernel_row(problem, i, state.rows)) if Ki is None else Ki
        Kj = _host(kernel_row(problem, j, state.rows))
        y, C = _host(problem.y), _host(problem.C_i)
        alpha = np.array(_host(state.alpha))  # the step writes this copy and _select's new v, up, low
        picture = pair_step(y, C, alpha, v, up, low, i, j, Ki, Kj, state.b)
        still = picture.alpha_i_new == picture.alpha_i_old and picture.alpha_j_new == picture.alpha_j_old
        if still and self.selection != "random" and n_active < len(y):  # look at every sample first
            n_active = everything(active)
        grad = y * v  # g = y v exactly (y is +-1)
        xp = problem.xp
        engine = state.engine._replace(active=active[:n_active].copy(), shrink_in=shrink_in)
        return _measured(problem, state.n_iter + 1, xp.asarray(alpha), xp.asarray(grad), picture, engine)

    def measure(self, problem: BinaryProblem, state: SMOState) -> SMOState:
        """The state with its gradient recomputed from alpha (:func:`exact_gradient`) and b and the
        measures from it, free of the cached gradient's rounding (the steps' measures read that one)."""
        grad = exact_gradient(problem, state.alpha, state.rows)
        b, rule, P, D, gap, kkt = smo_measures(problem, state.alpha, grad)
        return state._replace(grad=grad, b=b, b_rule=rule, primal=P, dual=D, gap=gap, kkt=kkt)

    def steps_between_measures(self, problem: BinaryProblem) -> int:
        """A tenth of an epoch (``CHUNKS_PER_EPOCH``), at least ``CHECK_EVERY`` steps: SMO often reaches a
        loose tol within an epoch, and :func:`~svmteach.solvers.base.solve` stops only between chunks."""
        return max(CHECK_EVERY, -(-problem.n_samples // CHUNKS_PER_EPOCH))

    def violation(self, state: SMOState) -> float:
        """``KKT_PER_TOL`` times the gap the last ``advance`` computed in O(n) from its cached gradient:
        SMO's cheap measure is the gap itself, in the cheap stop's units."""
        return KKT_PER_TOL * float(state.gap)

    def advance(self, problem: BinaryProblem, state: SMOState, n_steps: int, tol: float | None = None) -> SMOState:
        """Up to ``n_steps`` steps by the compiled loop, stopping once the gap is at most ``tol``.

        The loop (:func:`~svmteach.solvers.numba_smo.smo_loop`) keeps a cached gradient that drifts
        from :math:`\\mathbf 1 - Q\\alpha` by rounding.  With ``tol`` the returned measures are
        recomputed from the exact gradient; without, every step is taken and the cached measures kept.
        When the loop stops early but the exact gradient disagrees, the run goes on from the exact
        gradient, at most ``RESTARTS`` times; when it shows no violation beyond rounding the state is
        a fixed point in float64 (``still_is_fixed_point``).
        """
        n_steps = int(n_steps)
        if not is_numpy(problem.xp):  # CuPy, array-API: the step path, then the same exact measures
            return self.measure(problem, super().advance(problem, state, n_steps, tol))
        stopping = StoppingRule(self, problem, tol)
        rule = RULES.index(self.selection)
        if rule == 0:  # the step path's draws: default_rng([seed, t]) for step t
            uniforms = np.array([np.random.default_rng([state.seed, state.n_iter + k]).random(2)
                                 for k in range(n_steps)])
        else:
            uniforms = np.zeros((n_steps, 2))
        uniforms = uniforms.reshape(n_steps, 2)
        alpha = np.array(state.alpha, dtype=np.float64)
        grad = np.array(state.grad, dtype=np.float64)
        rows = state.rows
        active = np.empty(problem.n_samples, dtype=np.int64)  # the loop's working copies of the engine's
        n_active = len(state.active)
        active[:n_active] = state.active
        shrink_in = int(state.shrink_in)
        done = 0
        for restart in range(RESTARTS + 1):
            taken, picture, n_active, shrink_in = smo_loop(
                rows, problem.diag, problem.y, problem.C_i, alpha, grad, int(n_steps - done), rule, uniforms[done:],
                float(tol) if stopping.watching else -1.0, CHECK_EVERY, self.shrinking, active, n_active, shrink_in)
            done += taken
            engine = state.engine._replace(active=active[:n_active].copy(), shrink_in=shrink_in)
            stuck = picture.i < 0 or (rule != 0 and picture.alpha_i_new == picture.alpha_i_old
                                      and picture.alpha_j_new == picture.alpha_j_old)
            if not stopping.watching and not stuck:  # every step taken: the cached measures, O(n)
                return _measured(problem, state.n_iter + done, alpha, grad, picture, engine)
            grad = exact_gradient(problem, alpha, rows)  # drop the loop's rounding
            out = _measured(problem, state.n_iter + done, alpha, grad, picture, engine)
            if done >= n_steps or stopping.reached(out):  # out is measured: the exact gradient's
                break
            if stuck and not pair_violates(problem, alpha, grad):
                break  # no violation beyond rounding on the exact gradient: a fixed point in float64
        return out

    def gap_rounding(self, problem: BinaryProblem, state: SMOState, tight: bool = False) -> float:
        """The contract's bound from the state's own gradient (:func:`~svmteach.solvers.base.binary_gap_rounding`):
        a measured state's is the exact one, and ``solve`` certifies measured states only."""
        return binary_gap_rounding(problem, state.alpha, state.b, state.grad, tight)

    def row_cache(self, state: SMOState) -> Any:
        """The state's kernel-row cache (``rows``: None off NumPy, or for dual CD's linear kernel)."""
        return state.rows

    def coefficients(self, problem: BinaryProblem, state: SMOState) -> tuple[np.ndarray, float]:
        """``(alpha, b)``: the dual variables, a NumPy array (n,), and the bias, a float."""
        return to_numpy(state.alpha), float(state.b)
