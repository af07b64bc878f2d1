"""What the three multiclass block solvers share: one step visits one sample.

Each solver (:mod:`ww_exact`, :mod:`ww_shark`, :mod:`cs_blondel`) updates the
block :math:`\\alpha_i \\in \\mathbb R^k` of one sample per step and keeps the
weights :math:`W` (k, d) in step with it, so a step costs O(kd) (plus the
block's own O(k log k) or inner loop).  Samples are visited in a fresh random
permutation every epoch, drawn as for dual coordinate ascent.  The objectives
cost a pass over the data, so steps leave ``primal``, ``dual``, ``gap`` and
``kkt`` as they were; :meth:`MulticlassSolver.measure` evaluates them.

The compiled fast path runs the same sample updates a whole epoch per call
(:mod:`numba_multiclass`); its last step is replayed by the step path, so the
state it returns carries the same picture of that step.
"""

from __future__ import annotations

import math

import numpy as np

from .. import objectives as obj
from ..backend import is_numpy, to_numpy
from ..projections import project_simplex_sort
from .base import check_state_alpha, gap_reached, seed_from
from .dual_cd import epoch_permutation

#: The compiled epochs may reassociate and fuse sums (so the dot products use SIMD);
#: NaN and infinity keep their meaning.  Results match the step path to rounding.
EPOCH_FASTMATH = {"reassoc", "contract"}

#: A block whose quadratic term is below ``EPS`` times its linear term is solved as linear: its
#: curvature is lost in the rounding of the gradient (see :mod:`ww_exact` and :mod:`cs_blondel`).
EPS = float(np.finfo(np.float64).eps)


class MulticlassSolver:
    """Base class: a subclass defines ``State``, ``update(problem, state, i)`` and ``_epoch`` (compiled)."""

    loss = "ww"
    name = "multiclass"
    #: An epoch visits every sample; one that moves no alpha leaves W as it was, so every
    #: block is already solved and no later epoch moves either (see :func:`~svmteach.solvers.solve`).
    still_is_fixed_point = True

    def __init__(self, random_state=None):
        self.random_state = random_state

    def _check_problem(self, problem):
        if problem.loss != self.loss:
            raise ValueError(
                f"solver {self.name!r} solves the {self.loss!r} loss, but the problem's loss is {problem.loss!r}"
            )

    def steps_per_epoch(self, problem) -> int:
        return problem.n_samples

    def init(self, problem):
        self._check_problem(problem)
        xp, n, k, d = problem.xp, problem.n_samples, problem.k, problem.n_features
        seed = seed_from(self.random_state)
        alpha = xp.zeros((n, k), dtype=xp.float64)
        W = xp.zeros((k, d), dtype=xp.float64)
        perm = epoch_permutation(seed, 0, np.ones(n, dtype=bool))
        nan = math.nan
        base = dict(n_iter=0, alpha=alpha, W=W, epoch=0, pos=0, perm=perm, seed=seed, i=-1,
                    primal=nan, dual=nan, gap=nan, kkt=nan)
        return self.measure(problem, self.State(**base, **self.blank_picture(problem)))

    def warm_start(self, problem, state):
        """``state`` (of another C, say) made a feasible, measured state of ``problem``.

        Each row of alpha is projected into this problem's set (:func:`feasible_alpha`),
        W is recomputed from it, W = W(alpha), and the picture of the last step is cleared;
        the position in the epoch and the step count carry on.
        """
        self._check_problem(problem)
        alpha = feasible_alpha(problem, check_state_alpha(problem, state.alpha, (problem.n_samples, problem.k)))
        if len(state.perm) != problem.n_samples:
            raise ValueError(f"state.perm has {len(state.perm)} entries but the problem has {problem.n_samples} samples")
        state = state._replace(alpha=alpha, W=obj.multiclass_weights(problem, alpha), i=-1,
                               **self.blank_picture(problem))
        return self.measure(problem, state)

    def converged(self, state, tol) -> bool:
        return gap_reached(state.gap, tol)

    def measure(self, problem, state):
        """The state with W recomputed from alpha, W = W(alpha), and the primal, dual, relative gap and
        KKT violation there (two passes over the data).

        The steps update W incrementally, so it drifts from W(alpha) by rounding; measuring on the
        exact pair certifies the gap for the alpha and W a fit returns, and restarts the drift.
        """
        state = state._replace(W=obj.multiclass_weights(problem, state.alpha))
        S = obj.multiclass_scores(problem, state.W)
        P = obj.multiclass_primal(problem, state.W, S)
        D = obj.multiclass_dual(problem, state.alpha, state.W)
        return state._replace(primal=P, dual=D, gap=obj.relative_gap(P, D),
                              kkt=obj.multiclass_kkt_violation(problem, state.alpha, S))

    def _next_sample(self, problem, state):
        """``(state, i)``: the state moved to its next position (a new epoch if needed), and the sample."""
        if state.pos == len(state.perm):
            epoch = state.epoch + 1
            state = state._replace(epoch=epoch, pos=0,
                                   perm=epoch_permutation(state.seed, epoch, np.ones(problem.n_samples, bool)))
        return state, int(state.perm[state.pos])

    def step(self, problem, state):
        state, i = self._next_sample(problem, state)
        new = self.update(problem, state, i)
        return new._replace(n_iter=state.n_iter + 1, pos=state.pos + 1, i=i)

    def advance(self, problem, state, n_steps: int, tol=None):
        """``n_steps`` sample visits: compiled epochs on NumPy, the last one replayed by ``step``."""
        n_steps = int(n_steps)
        if n_steps <= 0:
            return state
        if not is_numpy(problem.xp):
            for _ in range(n_steps):
                state = self.step(problem, state)
            return state
        alpha = np.array(state.alpha, dtype=np.float64)
        W = np.array(state.W, dtype=np.float64)
        remaining = n_steps - 1
        while remaining > 0:
            state, _ = self._next_sample(problem, state)
            take = min(remaining, len(state.perm) - state.pos)
            order = np.ascontiguousarray(state.perm[state.pos : state.pos + take], dtype=np.int64)
            self._epoch(problem, alpha, W, order)
            state = state._replace(pos=state.pos + take)
            remaining -= take
        state = state._replace(alpha=alpha, W=W, n_iter=state.n_iter + n_steps - 1)
        return self.step(problem, state)

    def coefficients(self, problem, state):
        """``(alpha, W)`` as NumPy arrays."""
        return to_numpy(state.alpha), to_numpy(state.W)


def feasible_alpha(problem, alpha):
    """The Euclidean projection of each row of ``alpha`` (n, k) onto the problem's dual set.

    Weston-Watkins: the free variables are the off-label entries, in the box [0, C], so
    they are clipped to it, and the label entry is minus their sum.  Crammer-Singer:
    :math:`\\{a : a \\le u_i, \\mathbf 1^\\top a = 0\\}` with :math:`u_i = C e_{y_i}`; writing
    :math:`a = u_i - \\beta`, it is the simplex :math:`\\{\\beta \\ge 0, \\mathbf 1^\\top \\beta = C\\}`,
    so :math:`\\beta` is the simplex projection of :math:`u_i - a` (a feasible row stays as it is).
    Used to continue a run on another problem (another C).
    """
    xp, C = problem.xp, problem.C
    Y = obj.one_hot(problem)
    alpha = xp.astype(alpha, xp.float64)
    if problem.loss == "ww":
        off = xp.where(Y, 0.0, xp.clip(alpha, 0.0, C))  # beta_ij in [0, C]
        return xp.where(Y, -xp.sum(off, axis=1, keepdims=True), off)  # alpha_{i y_i} = -1'beta_i
    upper = xp.where(Y, xp.full(Y.shape, C, dtype=xp.float64), 0.0)
    beta = project_simplex_sort(upper - alpha, C)
    new = upper - beta
    # rows summing to 0 to the last bit: the label entry from the others (it stays <= C up to rounding)
    return xp.where(Y, xp.minimum(-xp.sum(xp.where(Y, 0.0, new), axis=1, keepdims=True), C), new)


def sample_arrays(problem, state, i):
    """``(x, q, y, s)``: row i in float64, its squared norm, its class index and its scores W x."""
    xp = problem.xp
    x = xp.astype(problem.X[i, :], xp.float64)
    return x, float(problem.sqnorm[i]), int(problem.codes[i]), state.W @ x


def replace_row(xp, A, i, row):
    """A copy of ``A`` with row i replaced (the input is never written)."""
    A = xp.asarray(A, copy=True)
    A[i, :] = row
    return A
