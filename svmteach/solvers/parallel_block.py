"""Every sample's block at once: a parallel solver for the dual of any multiclass loss.

The sequential solvers update W after each sample's block; a GPU wants thousands of samples at
once.  One step of :class:`ParallelBlock` does, for all n samples together:

1. **Block targets.**  With the scores :math:`S = X W^\\top` of the current W, every
   block problem is solved exactly as if it were alone, by the loss's compiled row kernel, the one
   the sequential solvers run (:func:`block_targets`: on the CPU's cores, or one GPU thread a sample).
   This gives a feasible point :math:`T`; :math:`D = T - \\alpha` is a descent
   direction (a block-diagonally scaled projected gradient step), but taking all of
   it at once overshoots, because the blocks are coupled through W.
2. **Exact search in a plane.**  The minimisation dual :math:`f` is quadratic, so along
   any direction P with weight change :math:`\\Delta W(P)` (linear in P)

   .. math::

       f(\\alpha + a D + b P) = f(\\alpha) + a g_1 + b g_2
           + \\tfrac12 \\begin{pmatrix} a & b \\end{pmatrix} H \\begin{pmatrix} a \\\\ b \\end{pmatrix},
       \\qquad g_1 = \\langle \\nabla f, D \\rangle,
       \\quad H_{12} = \\langle \\Delta W(D), \\Delta W(P) \\rangle.

   Two candidates are compared: the exact line search :math:`t = \\operatorname{clip}(-g_1 / H_{11}, 0, 1)`
   on D (feasible, since :math:`\\alpha` and T are), and the exact minimiser over the plane of D and
   the previous step P (a conjugate-gradient-like momentum), scaled back by a ratio test until
   feasible.  The lower f is taken, so **f never increases**; :math:`\\Delta W(P)` is kept from the
   previous step, so the plane costs only k x d work.
3. **New scores.**  :math:`W \\leftarrow W + \\Delta W` and :math:`S = X W^\\top`.

A step reads X twice (:math:`\\Delta W(D) = A(D)^\\top X`, :math:`\\Delta S = X \\Delta W^\\top`), as
matrix products (a CSR X is never densified), plus O(nk log k) elementwise work; the objectives
come free from S and W.  W and S are float64 and updated incrementally, so the products may run in
X's own precision (their rounding is relative to the step, not to W).  They drift from
:math:`W(\\alpha)` by rounding; :meth:`ParallelBlock.measure` recomputes both in float64, which
:func:`svmteach.solve` does every ``refresh`` steps and before stopping, so the reported gap is
certified on an exact pair; the step itself recomputes them every ``refresh`` steps, so a measure only observes.

Why this design: the plane needs fewer steps than the line search alone or FISTA on the dual, is
monotone and has no constant to estimate (``benchmarks/RESULTS.md``); sequential epochs need fewer
passes still, so it wins only on a GPU.  Past a gap of about 1e-5 rounding decides: slopes are sums
of gradient times direction (no cancellation of large terms), Crammer-Singer's rows sum to exactly 0,
and the plane is refused when its coefficients are huge (``MAX_PLANE_COEFFICIENT``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import objectives as obj
from ..problems import MulticlassProblem
from ..backend import concat, is_numpy, to_numpy
from ..losses.base import MulticlassLoss, row_kernels
from ..losses.row_kernels import params
from . import numba_multiclass as nm
from ..rows import is_sparse, times, transpose_times
from .base import DEFAULT_EPOCHS, DEFAULT_STEPS, Solver, check_flag, check_random_state, check_state_alpha
from .state import ThreePartState
from .stopping import StoppingRule


#: The plane's point is refused when a coefficient is larger than this: a huge multiple of a
#: tiny previous step would add its rounding (W is updated incrementally) to W a million-fold.
MAX_PLANE_COEFFICIENT = 100.0

#: The default budget grows at most this many times for an intercept column (:func:`intercept_factor`).
MAX_INTERCEPT_FACTOR = 10.0

#: The plane is refused when the previous step's change of W is below sqrt(PLANE_FLOOR) ||W||, the
#: size at which its incremental rounding is no longer negligible.
PLANE_FLOOR = 1e-16


class ParallelIterate(NamedTuple):
    """What the parallel solver has computed after ``n_iter`` steps.

    Attributes
    ----------
    n_iter : int.
    alpha : (n, k) float64 dual variables (the convention of the problem's loss).
    W : (k, d) float64 weights, updated incrementally, recomputed from alpha every ``refresh`` steps.
    S : (n, k) float64 scores ``X W'`` of this W.
    exact : bool, whether W and S were recomputed from alpha (by ``measure``).
    primal, dual, gap, kkt : float, at this state's W and alpha.
    """

    n_iter: int
    alpha: object
    W: object
    S: object
    exact: bool
    primal: float
    dual: float
    gap: float
    kkt: float


class ParallelPicture(NamedTuple):
    """The last step.

    Attributes
    ----------
    target : (n, k) or None, the block targets T of the last step (every block solved exactly alone).
    t : float, the line-search step on ``T - alpha`` (NaN before the first step).
    plane : (a, b) floats, the plane minimiser's coefficients of ``T - alpha`` and the
        previous step, after the ratio test (NaN when no plane was tried).
    used_plane : bool, whether the plane's point was taken instead of the line search's.
    """

    target: object
    t: float
    plane: tuple
    used_plane: bool


class ParallelEngine(NamedTuple):
    """What the next step's plane search reads.

    Attributes
    ----------
    step_alpha : (n, k) the last step taken (``alpha - previous alpha``); zeros at the start.
    step_W : (k, d) the change of W that step made.
    """

    step_alpha: object
    step_W: object


class ParallelBlockState(ThreePartState):
    """State of :class:`ParallelBlock` after ``n_iter`` steps: ``iterate`` (:class:`ParallelIterate`), ``picture``
    (:class:`ParallelPicture`), ``engine`` (:class:`ParallelEngine`).  Every field is also read by its name."""

    __slots__ = ()
    Iterate, Picture, Engine = ParallelIterate, ParallelPicture, ParallelEngine


class ParallelBlock(Solver):
    """Block-parallel exact subproblems with an exact plane search, for any multiclass loss (see the module).

    Parameters
    ----------
    refresh : int
        Every ``refresh``-th step recomputes W and S from alpha (their incremental drift ends there), and
        :func:`svmteach.solve` measures (the gap certified) every ``refresh`` steps, and when the running gap
        reaches ``tol``.
    momentum : bool
        Try the plane of the block direction and the previous step; False: the line search alone.
    random_state : None
        Accepted for the registries' uniform construction (the estimators' ``random_state``); the method draws
        nothing.
    """

    name = "parallel"
    multiclass = True
    takes_sparse = True
    kernels = ("linear",)
    prefers_gpu = True
    State = ParallelBlockState
    #: A step with t = 0 and no plane leaves alpha, W and S, and a zero previous step: the next
    #: step is the same, so a chunk that moves nothing is a fixed point (solve stops there).
    still_is_fixed_point = True

    def __init__(self, refresh: int = 10, momentum: bool = True,
                 random_state: int | np.random.Generator | np.random.RandomState | None = None) -> None:
        if isinstance(refresh, bool) or not isinstance(refresh, int) or refresh < 1:
            raise ValueError(f"refresh must be a positive integer, got {refresh!r}")
        self.refresh = refresh
        self.momentum = check_flag("momentum", momentum)  # bool("no") would be True
        check_random_state(random_state)
        self.random_state = random_state

    @classmethod
    def solves(cls, loss: MulticlassLoss) -> bool:
        """Whether it solves ``loss``: one with its own compiled row kernels (:func:`~svmteach.losses.base.row_kernels`),
        which solve its blocks."""
        return super().solves(loss) and row_kernels(loss) is not None

    def steps_per_epoch(self, problem: MulticlassProblem) -> int:
        """1: every step reads all of X (twice)."""
        return 1

    def steps_between_measures(self, problem: MulticlassProblem) -> int:
        """``refresh``: :func:`svmteach.solve` measures (certifies the gap) once every this many steps."""
        return self.refresh

    def default_max_iter(self, problem: MulticlassProblem) -> int:
        """:func:`svmteach.solve`'s budget: as many block updates as the sequential solvers get, in steps
        of n blocks, times :func:`intercept_factor` (the steps an intercept column costs).

        A bias column B couples every block: in the metric of the blocks (``||x_i||^2`` each), the dual's
        Hessian :math:`X X^\\top` gains :math:`B^2 1 1^\\top`, whose eigenvalue :math:`B^2 \\sum_i 1/\\|x_i\\|^2`
        stands above the features' by about the ratio r of the bias column's second moment to the mean
        feature's.  All blocks then overshoot together along the intercepts, the line search cuts every step
        (median t 0.05 instead of 0.5), and the momentum plane, a conjugate-gradient-like search, needs
        about sqrt(r) times the steps: 4-8x at r = 50 (``benchmarks/RESULTS.md``).  The cure would be a
        coarse step along the k intercepts beside the blocks' (not done); the budget pays for it instead, on the
        ``DEFAULT_EPOCHS`` epochs: the small problem's floor of ``DEFAULT_STEPS`` sample visits (4,167 steps on 24
        samples, each costing the step's fixed overhead more than its n blocks) is not multiplied.
        """
        return max(math.ceil(DEFAULT_EPOCHS * intercept_factor(problem)), -(-DEFAULT_STEPS // problem.n_samples))

    def init(self, problem: MulticlassProblem) -> ParallelBlockState:
        _check_problem(problem)
        xp, n, k = problem.xp, problem.n_samples, problem.k
        return self._start(problem, xp.zeros((n, k), dtype=xp.float64), 0)

    def warm_start(self, problem: MulticlassProblem, state: ParallelBlockState) -> ParallelBlockState:
        """``state`` (of another C, say) projected into this problem's set, W and S recomputed, measured;
        the previous step is forgotten."""
        _check_problem(problem)
        alpha = check_state_alpha(problem, state.alpha, (problem.n_samples, problem.k))
        return self._start(problem, problem.loss_object.feasible(problem, alpha), state.n_iter)

    def _start(self, problem, alpha, n_iter):
        """A measured state at a feasible ``alpha`` with exact W and S and no previous step."""
        xp = problem.xp
        W = exact_weights(problem, alpha)
        nan = math.nan
        state = ParallelBlockState.of(n_iter=n_iter, alpha=alpha, W=W, S=exact_scores(problem, W),
                                   step_alpha=xp.zeros_like(alpha), step_W=xp.zeros_like(W), target=None,
                                   t=nan, plane=(nan, nan), used_plane=False, exact=True,
                                   primal=nan, dual=nan, gap=nan, kkt=nan)
        return _with_measures(problem, state)

    def measure(self, problem: MulticlassProblem, state: ParallelBlockState) -> ParallelBlockState:
        """The objectives at W(alpha) and its scores recomputed in float64 (two passes over X; none when the state's
        are exact).  A measure observes the run and does not change it: the state keeps its own W and S (a step
        makes them exact every ``refresh`` steps), so the step path and the fast path are one run, step for step."""
        if state.exact:
            return _with_measures(problem, state)
        W = exact_weights(problem, state.alpha)
        measured = _with_measures(problem, state._replace(W=W, S=exact_scores(problem, W)))
        return state._replace(primal=measured.primal, dual=measured.dual, gap=measured.gap, kkt=measured.kkt)

    def step(self, problem: MulticlassProblem, state: ParallelBlockState) -> ParallelBlockState:
        xp = problem.xp
        alpha, W = state.alpha, state.W
        G = obj.multiclass_gradient(problem, state.S)  # the gradient of f, (n, k)
        T = block_targets(problem, alpha, state.S)
        D = T - alpha
        dW = weights(problem, D)  # first pass over X
        plane_ok = self.momentum and state.n_iter > 0
        P, dP = state.step_alpha, state.step_W
        # the plane's five numbers, read to the host together (then at most two more scalars: the
        # ratio test and the plane's change; and the measures).  Slopes are sums of G * D: each
        # block's share is negative, with no cancellation of large terms.
        sums = [xp.sum(G * D), xp.sum(dW * dW)]
        if plane_ok:
            sums += [xp.sum(G * P), xp.sum(dP * dP), xp.sum(dW * dP), xp.sum(W * W)]
        numbers = [float(v) for v in to_numpy(xp.stack(sums))]
        g1, h11 = numbers[:2]
        # exact line search on [0, 1]; a flat direction (h11 = 0) is taken whole when it descends
        t = min(max(-g1 / h11, 0.0), 1.0) if h11 > 0 else (1.0 if g1 < 0 else 0.0)
        step_alpha, step_W = t * D, t * dW
        change = 0.5 * t * t * h11 + t * g1  # f(alpha + t D) - f(alpha)
        plane, use_plane = (math.nan, math.nan), False
        if plane_ok:
            g2, h22, h12, w2 = numbers[2:]
            det = h11 * h22 - h12 * h12
            # dP, kept incrementally, is mostly rounding below sqrt(eps) ||W||, and a multiple of it (the
            # plane's pb) would put that rounding into W step after step
            if det > 1e-10 * h11 * h22 and h22 > PLANE_FLOOR * w2:  # D and P not (nearly) parallel in W-space
                pa = (-g1 * h22 + g2 * h12) / det
                pb = (-g2 * h11 + g1 * h12) / det
                cut = float(feasible_scale(problem, alpha, pa * D + pb * P))
                plane = (cut * pa, cut * pb)
        if max(abs(plane[0]), abs(plane[1])) <= MAX_PLANE_COEFFICIENT:  # False for NaN
            pa, pb = plane
            # the plane point's change of f, computed from the step itself rather than the 2 x 2 model
            cand_alpha, cand_W = pa * D + pb * P, pa * dW + pb * dP
            plane_change = float(xp.sum(G * cand_alpha) + 0.5 * xp.sum(cand_W * cand_W))
            if plane_change < min(change, 0.0):
                step_alpha, step_W, use_plane = cand_alpha, cand_W, True
        new_alpha = problem.loss_object.repair(problem, alpha + step_alpha)
        refresh = (state.n_iter + 1) % self.refresh == 0  # W and S recomputed from alpha: their drift ends here
        new_W = exact_weights(problem, new_alpha) if refresh else W + step_W
        new_S = exact_scores(problem, new_W) if refresh else next_scores(problem, state.S, new_W, step_W)  # 2nd pass
        new = ParallelBlockState.of(n_iter=state.n_iter + 1, alpha=new_alpha, W=new_W, S=new_S,
                                 step_alpha=new_alpha - alpha, step_W=step_W, target=T, t=t, plane=plane,
                                 used_plane=use_plane, exact=refresh,
                                 primal=state.primal, dual=state.dual, gap=state.gap, kkt=state.kkt)
        return _with_measures(problem, new)

    def advance(self, problem: MulticlassProblem, state: ParallelBlockState, n_steps: int, tol: float | None = None) -> ParallelBlockState:
        """Up to ``n_steps`` steps; with ``tol``, measured when the running gap asks for it
        (:meth:`~svmteach.solvers.stopping.StoppingRule.hints`), stopping at the first measured converged state.
        A measure does not change the run: this is the step path's run, state for state."""
        return StoppingRule(self, problem, tol).steps(lambda state: self.step(problem, state), state, n_steps, None)

    def coefficients(self, problem: MulticlassProblem, state: ParallelBlockState) -> tuple[np.ndarray, np.ndarray]:
        """``(alpha, W)`` as NumPy arrays, W recomputed from alpha in float64."""
        return to_numpy(state.alpha), to_numpy(exact_weights(problem, state.alpha))


# ---- the pieces, written for any array namespace -------------------------------------------------


def block_targets(problem, alpha, S):
    """(n, k): every block solved exactly as if alone at the scores ``S``, by the loss's compiled row kernel, the
    one the sequential solvers run.  On NumPy arrays on every core (:func:`~svmteach.solvers.numba_multiclass.targets`);
    on CuPy's where numba's CUDA target runs, one GPU thread a sample on the arrays in place
    (:func:`~svmteach.solvers.cuda_targets.launch`); elsewhere (another namespace, or CuPy without numba's CUDA
    target) on the CPU, S and alpha copied to the host and the targets back."""
    xp, kernels = problem.xp, row_kernels(problem.loss_object)
    if on_cuda(xp):
        from . import cuda_targets

        return cuda_targets.launch(kernels, S, alpha, problem.codes, problem.sqnorm, problem.C_i, params(problem.M),
                                   xp=xp)
    drivers = nm.drivers(kernels)
    host = [np.ascontiguousarray(to_numpy(a)) for a in (problem.codes, problem.sqnorm, problem.C_i)]
    out = np.empty(alpha.shape)
    drivers.targets(drivers.code, np.ascontiguousarray(to_numpy(S), dtype=np.float64),
                    np.ascontiguousarray(to_numpy(alpha), dtype=np.float64), *host, params(problem.M), out)
    return out if is_numpy(xp) else xp.asarray(out)


def on_cuda(xp) -> bool:
    """True where ``xp`` is CuPy's namespace and numba's CUDA target can compile and launch there (a CUDA driver and
    NVVM, the CUDA toolkit's compiler library)."""
    if xp.__name__ != "array_api_compat.cupy":
        return False
    try:
        from numba import cuda
        from numba.cuda.cudadrv import nvvm

        return bool(cuda.is_available()) and bool(nvvm.is_available())
    except Exception:  # a CUDA library that fails to load
        return False


def intercept_factor(problem) -> float:
    """How many times the default budget a bias column B asks for: :math:`\\sqrt{r}`, with
    :math:`r = B^2 d / \\overline{\\|x_i\\|^2}` the bias column's second moment over the mean of the d
    feature columns', within [1, ``MAX_INTERCEPT_FACTOR``] (1 without a bias, or a bias no larger than a
    typical feature: standardised data).  See :meth:`ParallelBlock.default_max_iter`."""
    if problem.bias is None or problem.n_features < 2:
        return 1.0
    B2 = float(problem.bias) ** 2
    features = float(problem.xp.sum(problem.sqnorm)) / problem.n_samples - B2  # mean ||x_i||^2 without the bias
    if not features > 0:  # every feature zero: the intercepts are all there is to fit
        return MAX_INTERCEPT_FACTOR
    r = B2 * (problem.n_features - 1) / features
    return min(max(math.sqrt(r), 1.0), MAX_INTERCEPT_FACTOR)


def _check_problem(problem):
    if getattr(problem, "loss_object", None) is None:
        raise TypeError(f"problem must be a MulticlassProblem, got {type(problem).__name__}")
    if row_kernels(problem.loss_object) is None:
        raise ValueError(f"solver 'parallel' does not solve the {problem.loss!r} loss: it solves every block with "
                         "the loss's compiled row kernels (svmteach.losses.row_kernels), and this loss has none")
    if not problem.kernel.is_linear:
        raise ValueError(f"solver 'parallel' does not take kernel={problem.kernel.name!r}: its step multiplies "
                         "every sample by one W (k x d), which a kernel's feature space has no room for; "
                         "use solver='exact' (or None), which keeps the training scores instead")


def weights(problem, alpha):
    """W(alpha) = A(alpha)' X as float64, a dense X multiplied in its own precision (the bias column's weights,
    B times A's column sums, in float64), a CSR X by :func:`~svmteach.rows.transpose_times`.  For a step's change of
    W; :func:`exact_weights` for W itself."""
    xp, design = problem.xp, problem.design
    A = problem.loss_object.weight_rows(problem, alpha)
    if is_sparse(design):
        return transpose_times(design, A, xp).T
    X = design.data
    W = xp.astype(xp.astype(A, X.dtype).T @ X, xp.float64)
    if design.bias is None:
        return W
    return concat(xp, [W, design.bias * xp.sum(xp.astype(A, xp.float64), axis=0)[:, None]], axis=1)


def scores(problem, W):
    """S = X W' as float64: a dense X multiplied in its own precision (the bias column's term in float64), a CSR X
    by :func:`~svmteach.rows.times`.  For a step's change of S; :func:`exact_scores` for S itself."""
    xp, design = problem.xp, problem.design
    if is_sparse(design):
        return times(design, W.T, xp)
    X = design.data
    S = xp.astype(X @ xp.astype(W[:, : X.shape[1]], X.dtype).T, xp.float64)
    return S if design.bias is None else S + design.bias * W[:, -1][None, :]


def next_scores(problem, S, W, step_W):
    """The scores after a step to W: X W' when X is float64 (no drift from W), and ``S + X dW'`` when the
    products run in a lower precision (their rounding is then relative to the step, not to W)."""
    xp = problem.xp
    if is_sparse(problem.design) or problem.design.dtype == xp.float64:
        return scores(problem, W)
    return S + scores(problem, step_W)


def exact_weights(problem, alpha):
    """W(alpha) in float64 arithmetic whatever X's precision (the loss's own: Lee-Lin-Wahba's columns summing to 0),
    C-ordered on NumPy as on every array library (a sum's rounding depends on the order it reads W in)."""
    W = problem.loss_object.weights(problem, alpha)
    return np.ascontiguousarray(W) if isinstance(W, np.ndarray) else W


def exact_scores(problem, W):
    """S = X W' in float64 arithmetic whatever X's precision (:func:`~svmteach.rows.times`)."""
    return times(problem.design, W.T, problem.xp)


def feasible_scale(problem, alpha, P):
    """The largest s in [0, 1] with ``alpha + s P`` inside the loss's bounds (a ratio test)."""
    xp = problem.xp
    lower, upper = problem.loss_object.bounds(problem)
    room = xp.where(P > 0, upper - alpha, xp.where(P < 0, lower - alpha, math.inf))
    ratio = xp.where(P != 0, room / xp.where(P != 0, P, 1.0), math.inf)
    return xp.clip(xp.min(ratio), 0.0, 1.0)


def _with_measures(problem, state):
    """The state with the objectives and the KKT violation at its own W and S, read to the host together."""
    S, W, alpha, loss = state.S, state.W, state.alpha, problem.loss_object
    P, D, kkt = obj.host_floats(problem.xp, [loss.primal(problem, W, S), loss.dual(problem, alpha, W),
                                             loss.kkt_violation(problem, alpha, S)])
    return state._replace(primal=P, dual=D, gap=obj.relative_gap(P, D), kkt=kkt)
