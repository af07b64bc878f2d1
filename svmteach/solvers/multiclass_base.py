"""What the sequential multiclass solvers share: one step visits one sample.

Each solver (:mod:`exact_block`, :mod:`ww_shark`) updates the block
:math:`\\alpha_i \\in \\mathbb R^k` of one sample per step and keeps the
weights :math:`W` (k, d) in step with it, so a step costs O(kd) (plus the
block's own O(k log k) or inner loop).  Samples are visited in a fresh random
permutation every epoch, drawn as for dual coordinate ascent.  The objectives
cost a pass over the data, so steps leave ``primal``, ``dual``, ``gap`` and
``kkt`` as they were; :meth:`MulticlassSolver.measure` evaluates them.  The mathematics of
the loss (weights, objectives, box) is asked of ``problem.loss_object``.

The compiled fast path runs the same sample updates a whole epoch per call; its last step is
replayed by the step path, so the state it returns carries the same picture of that step.  X may be
dense or a SciPy CSR matrix: the compiled epochs visit a row's stored entries only
(:mod:`svmteach.rows`), and the step path densifies the one row it visits.  Each compiled epoch
also returns, for free, the largest KKT violation among the blocks it visited (each measured before
its step): the state's ``violation``, which :func:`~svmteach.solvers.solve` reads to decide when the
duality gap is worth computing.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import objectives as obj
from ..backend import is_numpy, to_numpy
from ..rows import is_sparse
from .base import Solver, check_state_alpha, seed_from
from .dual_cd import epoch_permutation


class MulticlassState(NamedTuple):
    """The state of a sequential multiclass solver after ``n_iter`` sample visits.

    Attributes
    ----------
    n_iter : int, sample visits so far.
    alpha : (n, k) float64 dual variables (the convention of the problem's loss).
    W : (k, d) float64 weights, updated incrementally (recomputed from alpha by ``measure``).
    epoch : int, passes begun;  pos : int, the position in this epoch's order;
    perm : (n,) int64 this epoch's visiting order;  seed : int, the seed the orders are drawn from.
    i : int, the sample the last step visited (-1 before the first step).
    primal, dual, gap, kkt : float, primal and dual objectives, relative duality gap and KKT
        violation, as of the last ``measure`` (NaN before it).
    violation : float, the largest block KKT violation (the scale of the loss's ``kkt_violation``,
        0 at the optimum) met by the compiled epochs of the last ``advance`` chunk, each block
        measured before its step: a free estimate of ``kkt`` without a pass over the data.  It
        covers the visits those epochs made (all but the chunk's last visit, which the step path
        replays); NaN after ``init``, ``warm_start``, ``step`` and a chunk with no compiled epoch.
    block : the picture of the last step, a NamedTuple documented by its solver (the loss's
        ``Block`` for the exact block solvers, :class:`~svmteach.solvers.ww_shark.SharkMoves` for Shark's).
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
    violation: float
    block: object


class MulticlassSolver(Solver):
    """Base class: a subclass defines ``State``, ``blank_block``, ``update(problem, state, i)`` and
    ``_epoch`` (compiled), and ``loss_class`` when it solves one loss only (None: any loss)."""

    name = "multiclass"
    loss_class = None
    #: An epoch visits every sample; one that moves no alpha leaves W as it was, so every
    #: block is already solved and no later epoch moves either (see :func:`~svmteach.solvers.solve`).
    still_is_fixed_point = True

    def __init__(self, random_state=None):
        self.random_state = random_state

    @classmethod
    def solves(cls, loss) -> bool:
        """Whether this solver solves the loss object ``loss``."""
        return cls.loss_class is None or isinstance(loss, cls.loss_class)

    def _check_problem(self, problem):
        loss = getattr(problem, "loss_object", None)
        if loss is None:
            raise TypeError(f"problem must be a MulticlassProblem, got {type(problem).__name__}")
        if not self.solves(loss):
            raise ValueError(f"solver {self.name!r} solves the {self.loss_class.name!r} loss, "
                             f"but the problem's loss is {problem.loss!r}")

    def init(self, problem):
        self._check_problem(problem)
        xp, n, k, d = problem.xp, problem.n_samples, problem.k, problem.n_features
        seed = seed_from(self.random_state)
        alpha = xp.zeros((n, k), dtype=xp.float64)
        W = xp.zeros((k, d), dtype=xp.float64)
        perm = epoch_permutation(seed, 0, np.ones(n, dtype=bool))
        nan = math.nan
        state = self.State(n_iter=0, alpha=alpha, W=W, epoch=0, pos=0, perm=perm, seed=seed, i=-1,
                           primal=nan, dual=nan, gap=nan, kkt=nan, violation=nan,
                           block=self.blank_block(problem))
        return self.measure(problem, state)

    def warm_start(self, problem, state):
        """``state`` (of another C, say) made a feasible, measured state of ``problem``.

        Each row of alpha is projected into this problem's set (the loss's ``feasible``),
        W is recomputed from it, W = W(alpha), and the picture of the last step is cleared;
        the position in the epoch and the step count carry on.
        """
        self._check_problem(problem)
        alpha = check_state_alpha(problem, state.alpha, (problem.n_samples, problem.k))
        alpha = problem.loss_object.feasible(problem, alpha)
        if len(state.perm) != problem.n_samples:
            raise ValueError(f"state.perm has {len(state.perm)} entries but the problem has {problem.n_samples} samples")
        state = state._replace(alpha=alpha, W=obj.multiclass_weights(problem, alpha), i=-1,
                               violation=math.nan, block=self.blank_block(problem))
        return self.measure(problem, state)

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
        return new._replace(n_iter=state.n_iter + 1, pos=state.pos + 1, i=i, violation=math.nan)

    def advance(self, problem, state, n_steps: int, tol=None):
        """``n_steps`` sample visits, one epoch's worth at a time by the compiled path on NumPy (the last
        visit replayed by ``step``, so the state carries its picture).  With ``tol``, the state is measured
        between two epochs and the run stops there once converged; the last state is returned unmeasured
        (the caller measures it), as the contract says."""
        n_steps = int(n_steps)
        every = self.steps_between_measures(problem)
        while n_steps > 0:
            take = min(n_steps, every)
            state = self._visits(problem, state, take)
            n_steps -= take
            if tol is not None and n_steps > 0:
                state = self.measure(problem, state)
                if self.converged(state, tol):
                    break
        return state

    def _visits(self, problem, state, n_steps: int):
        """``n_steps`` >= 1 sample visits: compiled epochs on NumPy, the last visit replayed by ``step``;
        the state's ``violation`` is the largest the compiled epochs returned."""
        if not is_numpy(problem.xp):
            for _ in range(n_steps):
                state = self.step(problem, state)
            return state
        alpha = np.array(state.alpha, dtype=np.float64)
        # the epochs' working copy of W (the state's own is never written), in the layout its
        # visits read: a dense x_i meets whole rows W[m], contiguous in C order (the dot products
        # vectorise); a sparse x_i meets the k entries W[:, t] of each of its columns t, adjacent
        # (one or two cache lines) in Fortran order, W stored as (d, k): measured 15-50% faster
        # epochs on a 20000 x 50000 text-like problem with 30 entries a row and 10 classes
        W = np.array(state.W, dtype=np.float64, order="F" if is_sparse(problem.X) else "C")
        remaining = n_steps - 1
        violation = math.nan
        while remaining > 0:
            state, _ = self._next_sample(problem, state)
            take = min(remaining, len(state.perm) - state.pos)
            order = np.ascontiguousarray(state.perm[state.pos : state.pos + take], dtype=np.int64)
            met = float(self._epoch(problem, alpha, W, order))
            violation = met if math.isnan(violation) else max(violation, met)
            state = state._replace(pos=state.pos + take)
            remaining -= take
        state = state._replace(alpha=alpha, W=W, n_iter=state.n_iter + n_steps - 1)
        return self.step(problem, state)._replace(violation=violation)

    def violation(self, state) -> float:
        """``state.violation``: the largest block KKT violation the compiled epochs of the last
        ``advance`` chunk met, computed for free (NaN when there was none)."""
        return state.violation

    def coefficients(self, problem, state):
        """``(alpha, W)`` as NumPy arrays."""
        return to_numpy(state.alpha), to_numpy(state.W)


def sample_arrays(problem, state, i):
    """``(x, q, y, s)``: row i in float64 (a sparse row densified: O(d), one row only), its squared
    norm, its class index and its scores W x."""
    xp = problem.xp
    if is_sparse(problem.X):
        x = problem.X[[i], :].toarray()[0].astype(np.float64)
    else:
        x = xp.astype(problem.X[i, :], xp.float64)
    return x, float(problem.sqnorm[i]), int(problem.codes[i]), state.W @ x


def replace_row(xp, A, i, row):
    """A copy of ``A`` with row i replaced (the input is never written)."""
    A = xp.asarray(A, copy=True)
    A[i, :] = row
    return A
