"""What the sequential multiclass solvers share: one step visits one sample.

Each solver (:mod:`exact_block`, :mod:`ww_shark`) updates the block :math:`\\alpha_i \\in \\mathbb R^k`
of one sample per step and keeps the weights :math:`W` (k, d) in step with it: O(kd) a step, plus the
block's own work.  Samples are visited in a fresh random permutation every epoch.  Steps leave
``primal``, ``dual``, ``gap`` and ``kkt`` as they were (they cost a pass over the data);
:meth:`MulticlassSolver.measure` evaluates them.  The loss's mathematics is asked of
``problem.loss_object``.

Both paths run the same compiled row kernels, the loss's (:mod:`~svmteach.losses.row_kernels`): the step
path one row per step with its picture, the fast path an epoch per call
(:mod:`~svmteach.solvers.numba_multiclass`), its last visit drawing the same picture into the step path's
buffers (from compiled scores: equal up to rounding).  X is dense or
CSR (:mod:`svmteach.rows`).
On a kernel problem the state's ``W`` holds the training scores :math:`S = K A(\\alpha)` (n, k) instead,
moved by a kernel column a step (O(nk)) read from the run's row cache ``rows``; the block step is the same
with :math:`q_i = K_{ii}` (:mod:`svmteach.multiclass_model` is the one place that tells the two apart).
Each compiled epoch returns for free the largest KKT violation of the blocks it visited, each before
its step: the state's ``violation``, by which :func:`~svmteach.solvers.solve` decides when to
measure the gap.

**Shrinking** (``shrinking=True``, the default, as LIBLINEAR's ``-s 4``; both paths alike).  A sample
whose block is at its optimum with room to spare is at rest: Weston-Watkins (exact and Shark's moves) and
Lee-Lin-Wahba when every off-label entry is at a bound and its gradient pushes it into that bound by more
than the slack :math:`\\mu` (at 0: :math:`M (s_{y_i} - s_m) > 1 + \\mu`, resp. :math:`1 + s_m < -\\mu`; at C,
Weston-Watkins only, the other way); Crammer-Singer with :math:`\\alpha_i = 0` and
:math:`s_{y_i} - s_m > 1 + \\mu` for every :math:`m \\ne y_i`, or, as LIBLINEAR, with its label at C, below
every free class, and one other class kept (the row's sum fixes it); so is any sample with
``problem.C_i`` 0.  The visit that meets a sample at rest sets it aside (``active``) and the following
epochs skip it.  The slack :math:`\\mu` (``rest_margin``) is the previous epoch's largest block
violation, as in LIBLINEAR's binary solver (Hsieh et al. 2008, section 3.1), and nothing is set aside
after an epoch with none measured: with :math:`\\mu = 0` the first epochs, while W still moves a lot,
set aside samples that soon violate again.  As LIBLINEAR does, an epoch whose largest violation is
below ``reactivate_at`` (1 at first) is followed by one over every sample, and ``reactivate_at`` is
halved (down to :data:`SHRINK_FLOOR`).  A shrunk epoch's ``violation`` is +inf (it says nothing of
the samples set aside); :func:`~svmteach.solvers.solve` certifies every result with the gap over
all samples.  With shrinking, a fast ``advance`` without ``tol`` returns at the end of an epoch over
all samples, so the state has its verdict.

**The order of a shrunk epoch** (``order``).  ``"adaptive"`` (the default but for Crammer-Singer's
:class:`~svmteach.solvers.exact_block.CSBlondel`, which gained on real data and lost on generated problems:
``benchmarks/RESULTS.md``, issue 47): a shrunk epoch makes as many visits as
it has active samples, each sample drawn in proportion to a preference that follows its block violations
(adaptive coordinate frequencies: Glasmachers and Dogan, "Accelerated coordinate descent with adaptive coordinate
frequencies", ACML 2013, as Shark's ``QpMcLinear``; :func:`~svmteach.solvers.numba_multiclass.prefer`), so that
samples still far from their optimum are visited more often than the nearly settled ones; ``"shuffled"``: each
active sample once, as LIBLINEAR.  An epoch over all samples (the first, and each after a reactivation) visits
every sample once either way, so its violation is the verdict it is with ``"shuffled"``; without shrinking every
epoch is one.

**Classes.**  In an active sample, a class (not its label) at its bound 0 may be set aside too
(``active_classes``): its scores are not computed and its entry stays 0 until the next epoch over all
samples, which starts with every class active again (so the gap :func:`~svmteach.solvers.solve` certifies is
measured over every class, and a class set aside wrongly comes back).  Crammer-Singer sets one aside, as
LIBLINEAR's ``-s 4``, when its gradient is below every free class's; Weston-Watkins (exact) and
Lee-Lin-Wahba when its gradient exceeds the slack :math:`\\mu`, what a sample at rest asks of every class
(the block is then solved exactly over the other classes).  The step
path takes the same decisions as the fast path (``tests/test_multiclass_twin.py``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import multiclass_model
from .. import objectives as obj
from ..problems import MulticlassProblem
from ..backend import is_numpy, to_numpy
from ..losses.row_kernels import params, scratch
from ..rows import compiled_rows, dense_row, is_sparse
from . import numba_multiclass as nm
from .base import Solver, check_flag, check_state_alpha, seed_from
from .state import ThreePartState
from .stopping import StoppingRule
from .kernel_scores import CACHE_SIZE, check_cache_size, kernel_row, row_cache

#: ``reactivate_at`` at the start: LIBLINEAR's (``max(10 eps, 1)`` at its eps = 0.1), in the block
#: violation's units (a margin of 1).
SHRINK_START = 1.0
#: ``reactivate_at`` is never halved below this: far above the gradients' rounding (about 1e-16 of
#: scores of order 1), else a wrong guess could never be undone, and low enough that shrunk epochs
#: still run near the end.  (LIBLINEAR's floor is its stopping eps; here the stop is the gap's.)
SHRINK_FLOOR = 1e-8
#: The orders of a shrunk epoch (the module docstring).
ORDERS = ("adaptive", "shuffled")


class MulticlassIterate(NamedTuple):
    """What a sequential multiclass solver has computed after ``n_iter`` sample visits.

    Attributes
    ----------
    n_iter : int, sample visits so far.
    alpha : (n, k) float64 dual variables (the convention of the problem's loss).
    W : the model, updated incrementally (recomputed from alpha by ``measure``): (k, d) float64 weights, or on
        a kernel problem the (n, k) training scores :math:`S = K A(\\alpha)` (:mod:`svmteach.multiclass_model`).
    primal, dual, gap, kkt : float, primal and dual objectives, relative duality gap and KKT
        violation, as of the last ``measure`` (NaN before it).
    violation : float, the largest block KKT violation (the loss's ``kkt_violation`` scale) the
        compiled epochs of the last ``advance`` met, each block's before its step (with shrinking, at the end
        of an epoch over all samples, that epoch's ``sweep_violation``, over calls); NaN after ``init``,
        ``warm_start`` and ``step``; +inf after a shrunk epoch.
    """

    n_iter: int
    alpha: object
    W: object
    primal: float
    dual: float
    gap: float
    kkt: float
    violation: float


class VisitPicture(NamedTuple):
    """The last visit.

    Attributes
    ----------
    i : int, the sample the last step visited (-1 before the first step).
    block : a NamedTuple documented by its solver (the loss's ``Block`` for the exact block solvers,
        :class:`~svmteach.solvers.ww_shark.SharkMoves` for Shark's).
    """

    i: int
    block: object


class MulticlassEngine(NamedTuple):
    """The engine's bookkeeping, the same on the step path and the compiled epochs.

    Attributes
    ----------
    epoch : int, passes begun;  pos : int, the position in this epoch's order;
    perm : (n,) int64 this epoch's visiting order;  seed : int, the seed the orders are drawn from.
    active : (n,) bool, the samples this epoch's order was drawn from (False: set aside).
    active_classes : (n, k) bool, the classes the visits still look at; (0, 0) without shrinking.
    reactivate_at : float, a shrunk epoch whose violation is below this is followed by a full one.
    sweep_violation : float, the largest block violation of the current epoch so far (NaN before any).
    rest_margin : float, the slack :math:`\\mu` for setting a sample aside in this epoch.
    preference : (n,) float64, each sample's preference for the shrunk epochs' orders (empty with ``order="shuffled"``
        or without shrinking);  mean_violation : float, the running mean of the visits' block violations it is
        relative to;  mean_visits : int, the visits summed into that mean since the preferences were set (up to n).
    rows : the kernel-row cache of the run (:class:`~svmteach.solvers.kernel_scores.KernelRowCache`) on a kernel
        problem, None on a linear one.
    """

    epoch: int
    pos: int
    perm: np.ndarray
    seed: int
    active: np.ndarray
    active_classes: np.ndarray
    reactivate_at: float
    sweep_violation: float
    rest_margin: float
    preference: np.ndarray
    mean_violation: float
    mean_visits: int
    rows: object = None


class MulticlassState(ThreePartState):
    """The state of a sequential multiclass solver after ``n_iter`` sample visits: ``iterate``
    (:class:`MulticlassIterate`), ``picture`` (:class:`VisitPicture`) and ``engine`` (:class:`MulticlassEngine`).
    Every field is also read by its name: ``state.alpha``, ``state.perm``."""

    __slots__ = ()
    Iterate, Picture, Engine = MulticlassIterate, VisitPicture, MulticlassEngine


class MulticlassSolver(Solver):
    """Base class: a subclass defines ``State``, ``blank_block``, ``block_kernels``, ``picture``, and where
    needed ``kernel_params`` and ``loss_class``.

    Parameters
    ----------
    random_state : int, Generator or None
        Seeds the visiting orders.
    shrinking : bool
        Set aside the samples at rest on the fast path (see the module docstring).
    order : {"adaptive", "shuffled"}
        How a shrunk epoch visits its active samples: by their preferences, or each once (the module docstring).
    """

    name = "multiclass"
    multiclass = True
    takes_sparse = True

    def __init__(self, random_state: int | np.random.Generator | np.random.RandomState | None = None, shrinking: bool = True,
                 cache_size: float = CACHE_SIZE, order: str = "adaptive") -> None:
        self.random_state = random_state
        self.shrinking = check_flag("shrinking", shrinking)
        self.cache_size = check_cache_size(cache_size)
        if order not in ORDERS:
            raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
        self.order = order

    @property
    def still_is_fixed_point(self) -> bool:
        """Only without shrinking: an epoch over every sample that moves no alpha proves every block
        solved (a shrunk epoch proves nothing of the samples set aside)."""
        return not self.shrinking

    def shrink_floor(self) -> float:
        """The least ``reactivate_at``: :data:`SHRINK_FLOOR` (a solver whose blocks stop short of their
        optimum by a tolerance raises it above that tolerance, or a shrunk epoch could never end)."""
        return SHRINK_FLOOR

    def _check_problem(self, problem):
        loss = getattr(problem, "loss_object", None)
        if loss is None:
            raise TypeError(f"problem must be a MulticlassProblem, got {type(problem).__name__}")
        if not self.solves(loss):
            if self.loss_class is not None and not isinstance(loss, self.loss_class):
                raise ValueError(f"solver {self.name!r} solves the {self.loss_class.name!r} loss, "
                                 f"but the problem's loss is {problem.loss!r}")
            raise ValueError(f"solver {self.name!r} runs a loss's own compiled row kernels, and the loss "
                             f"{problem.loss!r} ({type(loss).__name__}) has none of its own: its class must declare "
                             "kernels = RowKernels(block, coef) (svmteach.losses.row_kernels) where it defines its "
                             "mathematics, or use solver='parallel' or 'interior_point'")
        if problem.kernel.name not in self.kernels:
            raise ValueError(f"solver {self.name!r} does not take kernel={problem.kernel.name!r} (it takes "
                             f"{self.kernels}); the exact block solvers take every kernel")

    def _rows(self, problem, reuse=None):
        """The run's kernel-row cache on a kernel problem (``reuse``, a warm start's, when it fits), else None."""
        return row_cache(problem, self.cache_size, reuse) if multiclass_model.is_kernel(problem) else None

    def init(self, problem: MulticlassProblem) -> MulticlassState:
        self._check_problem(problem)
        xp, n, k = problem.xp, problem.n_samples, problem.k
        seed = seed_from(self.random_state)
        alpha = xp.zeros((n, k), dtype=xp.float64)
        W = multiclass_model.blank(problem)
        every = np.ones(n, dtype=bool)
        perm = np.empty(n, dtype=np.int64)
        perm = perm[: nm.draw_order(perm, every, seed, 0)]
        nan = math.nan
        state = self.State.of(n_iter=0, alpha=alpha, W=W, epoch=0, pos=0, perm=perm, seed=seed, i=-1,
                           primal=nan, dual=nan, gap=nan, kkt=nan, violation=nan, active=every,
                           active_classes=self._every_class(problem),
                           reactivate_at=SHRINK_START, sweep_violation=nan, rest_margin=self._rest_margin(nan),
                           preference=self._preference(problem), mean_violation=0.0, mean_visits=0,
                           block=self.blank_block(problem), rows=self._rows(problem))
        return self.measure(problem, state)

    def warm_start(self, problem: MulticlassProblem, state: MulticlassState) -> MulticlassState:
        """``state`` (of another C, say) made a feasible, measured state of ``problem``.

        Each row of alpha is projected by the loss's ``feasible``, W = W(alpha), the picture cleared,
        every sample active again; the step count and the epoch's position carry on.
        """
        self._check_problem(problem)
        alpha = check_state_alpha(problem, state.alpha, (problem.n_samples, problem.k))
        alpha = problem.loss_object.feasible(problem, alpha)
        if len(state.active) != problem.n_samples or (len(state.perm) and int(np.max(state.perm)) >= problem.n_samples):
            raise ValueError(f"state.perm visits samples up to {int(np.max(state.perm, initial=-1))} and state.active "
                             f"has {len(state.active)} entries, but the problem has {problem.n_samples} samples")
        state = state._replace(alpha=alpha, W=obj.multiclass_weights(problem, alpha), i=-1,
                               violation=math.nan, active=np.ones(problem.n_samples, dtype=bool),
                               active_classes=self._every_class(problem),
                               reactivate_at=SHRINK_START, sweep_violation=math.nan,
                               rest_margin=self._rest_margin(math.nan), preference=self._preference(problem),
                               mean_violation=0.0, mean_visits=0, block=self.blank_block(problem),
                               rows=self._rows(problem, getattr(state, "rows", None)))
        return self.measure(problem, state)

    def measure(self, problem: MulticlassProblem, state: MulticlassState) -> MulticlassState:
        """The state with W = W(alpha) recomputed and its objectives, gap and KKT violation (two passes).

        The steps' incremental W drifts by rounding; measuring on the exact pair certifies the gap
        for the alpha and W a fit returns.
        """
        W = obj.multiclass_weights(problem, state.alpha)
        P, D, kkt = obj.multiclass_measures(problem, state.alpha, W)  # a block of rows at a time
        return state._replace(W=W, primal=P, dual=D, gap=obj.relative_gap(P, D), kkt=kkt)

    def block_kernels(self, problem: MulticlassProblem):
        """The compiled row kernels this solver runs on ``problem`` (:mod:`svmteach.losses.row_kernels`)."""
        raise NotImplementedError

    def kernel_params(self, problem: MulticlassProblem) -> tuple[float, float, int]:
        """The row kernels' ``params``, ``(M, inner_tol, max_inner)``: the problem's M; an inner tolerance and most
        moves where a solver's block stops short of exact (Crammer-Singer's ``skip_tol``, Shark's inner loop)."""
        return params(problem.M)

    def _record(self, problem) -> np.ndarray:
        """The buffer a step gives the kernel for its inner moves (empty: none recorded)."""
        return np.zeros((0, problem.k + 3))

    def picture(self, problem: MulticlassProblem, y: int, q: float, C: float, old: np.ndarray, new: np.ndarray,
                numbers: np.ndarray, record: np.ndarray, violation: float, moves: int) -> NamedTuple:
        """The ``block`` of a step from the kernel's numbers (``moves`` -1: set aside, 0: no step)."""
        raise NotImplementedError

    def update(self, problem: MulticlassProblem, state: MulticlassState, i: int) -> MulticlassState:
        """The state after sample i's block step by the fast path's compiled kernel, W moved by
        :math:`A(\\delta)^\\top x_i`, the sample or its classes set aside as the fast path sets them (on new
        arrays: the input state is never written)."""
        return state._replace(**self._visit_changes(problem, state, i))

    def _visit_changes(self, problem, state, i) -> dict:
        """The fields :meth:`update` changes, by name."""
        xp, k = problem.xp, problem.k
        x, q, y, s = sample_arrays(problem, state, i)
        C = float(problem.C_i[i])
        old = np.array(to_numpy(state.alpha[i, :]), dtype=np.float64)
        new = old.copy()
        by_class = state.active_classes.shape[0] > 0
        look = state.active_classes[i].copy() if by_class else np.ones(k, dtype=bool)
        look |= old != 0.0  # a class set aside but off its bound is taken back
        kernels, kparams = self.block_kernels(problem), self.kernel_params(problem)
        numbers, record = np.zeros((3, k)), self._record(problem)
        work, iwork, _ = scratch(k)
        violation, moves = kernels.block(np.array(to_numpy(s), dtype=np.float64), new, y, q, C, kparams,
                                         (float(state.rest_margin), self.shrinking, by_class), look,
                                         (work, iwork, record), numbers)
        sweep = violation if math.isnan(state.sweep_violation) else max(state.sweep_violation, violation)
        changes = dict(sweep_violation=sweep,
                       block=self.picture(problem, y, q, C, old, new, numbers, record, violation, moves))
        if len(state.preference):  # the fast path's update, by the same compiled function
            preference = state.preference.copy()
            levels = np.array([0.0, 0.0, 0.0, state.mean_violation, state.mean_visits], dtype=np.float64)
            nm.prefer(preference, i, float(violation), levels)
            changes.update(preference=preference, mean_violation=float(levels[3]), mean_visits=int(levels[4]))
        if moves > 0:
            coef = np.empty(k)
            kernels.coef(new, old, kparams, coef)
            changes.update(alpha=replace_row(xp, state.alpha, i, xp.asarray(new)),
                           W=moved_model(problem, state, i, x, xp.asarray(coef)))
        if moves < 0:
            changes["active"] = replace_entry(state.active, i, False)
        if by_class and not np.array_equal(look, state.active_classes[i]):
            changes["active_classes"] = replace_entry(state.active_classes, i, look)
        return changes

    def _preference(self, problem) -> np.ndarray:
        """Every sample's preference at the start: (n,) ones with shrinking and ``order="adaptive"``, else empty."""
        adaptive = self.shrinking and self.order == "adaptive"
        return np.ones(problem.n_samples if adaptive else 0)

    def _every_class(self, problem) -> np.ndarray:
        """``active_classes`` with every class active: (n, k) True with shrinking, else (0, 0)."""
        shape = (problem.n_samples, problem.k) if self.shrinking else (0, 0)
        return np.ones(shape, dtype=bool)

    @staticmethod
    def _rest_margin(violation) -> float:
        """The slack a sample at rest must have in an epoch that follows one whose largest block
        violation was ``violation``: that violation (+inf after none measured: nothing is set aside)."""
        return math.inf if math.isnan(violation) else violation

    def _next_sample(self, problem, state):
        """``(state, i)``: the state moved to its next position (a new epoch if needed), and the sample."""
        if state.pos == len(state.perm):
            state = self._next_epoch(problem, state)
        return state, int(state.perm[state.pos])

    def _next_epoch(self, problem, state):
        """The next epoch (:func:`~svmteach.solvers.numba_multiclass.next_epoch`, the fast path's own rule):
        over the active samples, or over all of them with ``reactivate_at`` halved when the one that ended had
        its violation below ``reactivate_at``, none measured, or none active; on new arrays."""
        active = state.active.copy()
        classes = state.active_classes.copy()
        perm = np.empty(problem.n_samples, dtype=np.int64)
        plen, reactivate_at, rest_margin = nm.next_epoch(
            perm, active if self.shrinking else np.zeros(0, dtype=bool), classes, state.seed, state.epoch + 1,
            float(state.sweep_violation), float(state.reactivate_at), float(self.shrink_floor()), state.preference)
        return state._replace(epoch=state.epoch + 1, pos=0, perm=perm[:plen], active=active, active_classes=classes,
                              reactivate_at=reactivate_at, sweep_violation=math.nan, rest_margin=rest_margin)

    def step(self, problem: MulticlassProblem, state: MulticlassState) -> MulticlassState:
        """The next sample's visit (:meth:`update`)."""
        state, i = self._next_sample(problem, state)
        return state._replace(**self._visit_changes(problem, state, i), n_iter=state.n_iter + 1, pos=state.pos + 1,
                              i=i, violation=math.nan)

    def advance(self, problem: MulticlassProblem, state: MulticlassState, n_steps: int, tol: float | None = None) -> MulticlassState:
        """``n_steps`` sample visits, compiled on NumPy.  With ``tol`` the state is measured between
        epochs and the run stops once converged.  With shrinking, a call without ``tol`` returns at the
        end of an epoch over all samples, so its ``violation`` is that epoch's."""
        n_steps = int(n_steps)
        stopping = StoppingRule(self, problem, tol)
        every = self.steps_between_measures(problem)
        while n_steps > 0:
            start = state.n_iter
            state = self._visits(problem, state, min(n_steps, every))
            n_steps -= state.n_iter - start
            if not stopping.watching:
                if self._ended_full_epoch(problem, state):
                    break  # the caller reads the verdict of a full epoch (its violation) before the next
            elif n_steps > 0:
                state, stop = stopping.measured(state)
                if stop:
                    break
        return state

    def _ended_full_epoch(self, problem, state) -> bool:
        """Whether ``state`` (of the fast path, with shrinking) stands at the end of an epoch over all samples."""
        return (self.shrinking and is_numpy(problem.xp) and state.pos == len(state.perm)
                and len(state.perm) == problem.n_samples)

    def engine_order(self, problem, state) -> nm.Order:
        """The compiled epochs' :class:`~svmteach.solvers.numba_multiclass.Order` of ``state``: copies of its
        permutation (in an (n,) array), samples and classes set aside and preferences, which the epochs advance in
        place (the input state's are never written)."""
        perm = np.empty(problem.n_samples, dtype=np.int64)
        perm[: len(state.perm)] = state.perm
        return nm.Order(perm=perm, active=state.active.copy() if self.shrinking else np.zeros(0, dtype=bool),
                        classes=state.active_classes.copy(),
                        at=np.array([state.epoch, state.pos, len(state.perm)], dtype=np.int64),
                        levels=np.array([state.reactivate_at, state.sweep_violation, state.rest_margin,
                                         state.mean_violation, state.mean_visits], dtype=np.float64),
                        seed=int(state.seed), floor=float(self.shrink_floor()), preference=state.preference.copy())

    def engine_model(self, problem, state):
        """The compiled epochs' model of ``state`` (:class:`~svmteach.solvers.numba_multiclass.LinearModel` or
        ``KernelModel``), on a copy of its W (or S) in the layout the visits read: C order for a dense x_i (whole
        rows W[m]) and for S (whole rows S[t]), Fortran order for a sparse x_i (the k entries W[:, t] of each stored
        column adjacent).  A centred loss on a dense design moves its classes' shared value in a row of its own,
        ``common`` (a sparse row moves the k weights of a column together, whatever their values)."""
        W = np.array(state.W, dtype=np.float64, order="F" if is_sparse(problem.design) else "C")
        if state.rows is not None:
            return nm.KernelModel(rows=state.rows, offset=float(problem.kernel_offset), S=W)
        centred = problem.loss_object.sum_to_zero and not is_sparse(problem.design)
        return nm.LinearModel(design=compiled_rows(problem.design), W=W, common=np.zeros(W.shape[1] if centred else 0))

    def _visits(self, problem, state, n_steps: int):
        """``n_steps`` >= 1 sample visits (fewer when shrinking ends an epoch over all samples first):
        compiled epochs, whose last visit fills the step path's picture buffers (the state's ``i`` and
        ``block``); ``violation`` as the State says."""
        if not is_numpy(problem.xp):
            for _ in range(n_steps):
                state = self.step(problem, state)
            return state
        alpha = np.array(state.alpha, dtype=np.float64)
        n = problem.n_samples
        order = self.engine_order(problem, state)
        perm = order.perm
        model = self.engine_model(problem, state)
        drivers = nm.drivers(self.block_kernels(problem))
        numbers, record, old = np.zeros((3, problem.k)), self._record(problem), np.empty(problem.k)
        visits, violation, i, met, moves = drivers.epochs(
            drivers.code, model, nm.Samples(sqnorm=problem.sqnorm, codes=problem.codes, C_i=problem.C_i),
            self.kernel_params(problem), alpha, order, int(n_steps), numbers, record, old)
        if state.rows is not None:
            W = model.S
        else:  # a centred loss's weights are W - 1 common' (LinearModel)
            W = model.W - model.common if model.common.size else model.W
        epoch, pos, plen = (int(v) for v in order.at)
        reactivate_at, sweep, rest_margin, mean_violation, mean_visits = (float(v) for v in order.levels)
        if self.shrinking and pos == plen == n:
            violation = sweep  # the whole full epoch, over calls
        i = int(i)
        block = self.picture(problem, int(problem.codes[i]), float(problem.sqnorm[i]), float(problem.C_i[i]), old,
                             alpha[i].copy(), numbers, record, float(met), int(moves))
        return state._replace(alpha=alpha, W=W, n_iter=state.n_iter + visits, epoch=epoch, pos=pos, perm=perm[:plen],
                              active=state.active if not self.shrinking else order.active, active_classes=order.classes,
                              reactivate_at=reactivate_at, sweep_violation=sweep, rest_margin=rest_margin,
                              preference=order.preference, mean_violation=mean_violation,
                              mean_visits=int(mean_visits), i=i,
                              block=block, violation=violation)

    def violation(self, state: MulticlassState) -> float:
        """``state.violation`` (see the State)."""
        return state.violation

    def coefficients(self, problem: MulticlassProblem, state: MulticlassState) -> tuple[np.ndarray, np.ndarray]:
        """``(alpha, W)`` as NumPy arrays."""
        return to_numpy(state.alpha), to_numpy(state.W)


def sample_arrays(problem, state, i):
    """``(x, q, y, s)``: row i in float64 (a sparse row densified: O(d), one row only), its squared
    norm, its class index and its scores W x; on a kernel problem x is None and s the row S[i]."""
    xp = problem.xp
    if multiclass_model.is_kernel(problem):
        return None, float(problem.sqnorm[i]), int(problem.codes[i]), state.W[i, :]
    x = dense_row(problem.design, i, xp)
    return x, float(problem.sqnorm[i]), int(problem.codes[i]), state.W @ x


def moved_model(problem, state, i, x, coef):
    """The state's model after sample i's step changed A by ``coef`` (k,): :math:`W + c\\, x_i^\\top`, or on a kernel
    problem :math:`S + (K_{:i} + B^2)\\, c^\\top` with the column from the run's row cache; a new array."""
    if not multiclass_model.is_kernel(problem):
        change = coef[:, None] * x[None, :]
    else:
        change = (kernel_row(problem, i, state.rows) + problem.kernel_offset)[:, None] * coef[None, :]
    return state.W + change


def replace_entry(a, i, value):
    """A copy of the NumPy array ``a`` with entry (or row) i set to ``value``."""
    a = a.copy()
    a[i] = value
    return a


def replace_row(xp, A, i, row):
    """A copy of ``A`` with row i replaced (the input is never written)."""
    A = xp.asarray(A, copy=True)
    A[i, :] = row
    return A
