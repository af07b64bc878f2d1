"""Kernel multiclass by working sets: many samples' kernel rows at once, the sub-problem on them solved in memory.

The random-order epochs (:mod:`~svmteach.solvers.exact_block`) move the training scores S = K A by a kernel
column at every moving visit, O(nk), and ask for row i of K each time: beyond a few thousand samples the
row cache cannot hold K and almost every visit computes its row again.  A step of :class:`WorkingSet` instead

1. takes the next b samples (``working_set``) of the epoch's order, a random permutation of the active samples
   whose block violates its KKT conditions (judged from S at the epoch's start);
2. computes their b x b block of the kernel matrix, :math:`\\tilde K_{BB} = K_{BB} + B^2` (no cache);
3. solves the dual restricted to those b blocks, the others held fixed, by epochs of the loss's exact block
   steps (its row kernels, :mod:`~svmteach.losses.row_kernels`) in memory: a step moves the working set's
   scores by a column of :math:`\\tilde K_{BB}`, O(bk), until the sub-problem's largest violation is
   ``inner_fraction`` of its first, or after ``inner_epochs`` epochs;
4. moves every active score by one product, :math:`S_A \\mathrel{+}= \\tilde K_{BA}^\\top (A(\\alpha_B^{new}) -
   A(\\alpha_B^{old}))`, the b kernel rows over the m active samples made a tile of columns at a time (the
   inner products as one matrix product, BLAS-3, then the kernel's function in place) and each tile used as
   soon as it is made, while it is in the cache (:func:`add_kernel_products`: no b x m array is kept).

The kernel entries of steps 2 and 4 are float32 (``row_dtype``: a fit at n = 20,000 1.3-1.6x faster than
with float64 entries, RESULTS.md); the sub-problem's arithmetic and S stay float64.

Shrinking (``shrinking=True``, as LIBSVM and Shark do): at an epoch's start a sample whose block holds (no
violation) is set aside, at zero weight or not (a sample that is not chosen does not move, so its part of the
others' scores stays what it is); the steps neither compute its kernel column nor keep its scores.  Every score
is recomputed from alpha and every sample is active again at each measure and whenever the active samples are
solved, so nothing set aside is certified unseen.

So a kernel row is computed once per working set that holds its sample, not once per visit, and is used for
all the sub-problem's epochs: on the benchmark's problem a run computes about 10 rows per sample where the
random-order epochs computed about 31 at n = 20,000 (``benchmarks/RESULTS.md``).  Every step visits each
chosen block until the sub-problem is solved, so the dual never decreases.  Memory: S and alpha, O(nk), the
b x b block and a tile of b rows (2 MB in float32 at b = 256); the products take X in blocks of columns (no copy
of X).
The order is cyclic, not greedy: choosing the b largest violations computed about 30 times more rows
(measured, RESULTS.md), because a set solved against stale scores of the rest is soon chosen again.

S is kept incrementally and drifts by rounding (float32 rows: by float32's); :meth:`WorkingSet.measure`
recomputes it from alpha in float64 (the last recompute's scores plus the float64 rows of the samples that moved
since, b at a time, in tiles), so the gap :func:`~svmteach.solve` certifies is of alpha alone.  An epoch ends
with every active sample's block violation from S (:func:`~svmteach.solvers.numba_multiclass.violations`): the
state's ``violation``, by which ``solve`` decides when to measure.  A linear problem is the epochs' (its W is
k x d, and rows of X are cheap).

On a GPU (X, alpha and S CuPy arrays, ``device="gpu"``) the kernel entries, the score updates and the measures are
made on the device by array-API code (:func:`~svmteach.kernels.gram` on a tile: the inner products by one matrix
product, cuBLAS; the kernel's function on the tile, in float64 and then cast to ``row_dtype``); what is small or
sequential comes to the host: the b x b block, the working set's rows of alpha and S (its sub-problem is solved by
the same compiled row kernels as on the CPU) and, once an epoch, the active samples' scores for their violations.
So a step moves O(b^2 + bk) numbers between host and device beside its O(bmd) of products on the device.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import multiclass_model
from .. import objectives as obj
from ..backend import is_numpy, takes_index_writes, to_numpy
from ..kernels import gram, kernel_params
from ..losses.base import MulticlassLoss, row_kernels
from ..losses.row_kernels import params
from ..problems import MulticlassProblem
from ..rows import is_sparse
from . import numba_multiclass as nm
from .base import Solver, check_random_state, check_state_alpha, seed_from
from .kernel_scores import CACHE_SIZE, KernelRowCache, check_cache_size
from .multiclass_base import MulticlassIterate
from .numba_kernel_rows import rows_from_dots
from .state import ThreePartState

#: A block whose violation is at most this (in the margin's units) is not chosen: rounding, not a step to take.
POOL_FLOOR = 1e-12
#: The kernel rows' inner products take the columns' points in blocks of at most this many bytes of X.
COLUMN_BLOCK_BYTES = 4 * 2**20
#: :func:`kernel_tiles` makes the kernel entries in tiles of at most this many columns (a tile of
#: b = 256 rows in float32 is 2 MB: made and read while in the cache, about 1.3x faster than whole rows).
TILE_COLUMNS = 2048
#: The steps' kernel rows in either precision (``row_dtype``).
ROW_DTYPES = {"float32": np.float32, "float64": np.float64}


class WorkingSetPicture(NamedTuple):
    """The last step's working set.

    Attributes
    ----------
    chosen : (b,) int64, the samples it solved (empty before the first step).
    start, end : float, the sub-problem's largest block violation in its first and its last inner epoch (NaN
        before the first step).
    inner_epochs : int, the sub-problem's epochs;  visits : int, its block visits.
    """

    chosen: np.ndarray
    start: float
    end: float
    inner_epochs: int
    visits: int


class WorkingSetEngine(NamedTuple):
    """Where the run is.

    Attributes
    ----------
    epoch : int, epochs begun;  pos : int, the position in this epoch's ``perm``;
    perm : (p,) int64, this epoch's order: the active samples whose block violated at its start, shuffled;
    active : (m,) int64, sorted: the samples whose scores the steps keep (every sample but the shrunk ones);
    seed : int, the orders' seed;  rows_computed : int, kernel rows computed so far (b a step);
    kernel_values : int, kernel entries computed so far (b times the active samples a step, and the measures');
    exact_weights, exact_scores : (n, k) float64, A(alpha) and the scores (K + B^2) A(alpha) in float64 at the last
        recompute (the next one adds the products of the rows that moved since); (0, k) before the first.
    """

    epoch: int
    pos: int
    perm: np.ndarray
    active: np.ndarray
    seed: int
    rows_computed: int
    kernel_values: int
    exact_weights: np.ndarray
    exact_scores: np.ndarray


class WorkingSetState(ThreePartState):
    """State of :class:`WorkingSet`: ``iterate`` (:class:`~svmteach.solvers.multiclass_base.MulticlassIterate`, its
    ``W`` the training scores S, exact for the engine's ``active`` samples and for all at a measured state (a shrunk
    sample's are those it was set aside with), its ``violation`` the largest block violation at the start of the epoch under
    way), ``picture`` (:class:`WorkingSetPicture`), ``engine`` (:class:`WorkingSetEngine`)."""

    __slots__ = ()
    Iterate, Picture, Engine = MulticlassIterate, WorkingSetPicture, WorkingSetEngine


class WorkingSet(Solver):
    """Working sets of kernel multiclass blocks, their rows computed together (see the module), for any loss with
    its own row kernels.

    Parameters
    ----------
    working_set : int
        Samples a step solves together (fewer when ``cache_size`` MB cannot hold their n-long rows).
    inner_fraction : float in (0, 1]
        A sub-problem is solved until its largest block violation is this fraction of its first.
    inner_epochs : int
        At most this many epochs a sub-problem.
    cache_size : float
        b is at most what this many MB of n-long float64 rows hold (the rows are made in tiles and not kept,
        so a step's memory stays far below it).
    row_dtype : {"float32", "float64"}
        The steps' kernel rows: float32 makes their products and the kernel's exp cheaper (a fit at n = 20,000
        1.3-1.6x faster); the sub-problem's arithmetic, the scores S and the measures (the certificate: S
        recomputed from alpha) stay float64.
    shrinking : bool
        Set aside, at an epoch's start, the samples whose block holds (no violation): the steps compute kernel
        columns and keep scores of the other samples only, and every
        score is recomputed from alpha (every sample active again) at each measure and when the active samples
        are solved.
    random_state : int, Generator or None
        Seeds the epochs' orders.
    """

    name = "working_set"
    multiclass = True
    kernels = ("polynomial", "gaussian", "laplacian")
    explorable = True
    State = WorkingSetState

    def __init__(self, working_set: int = 256, inner_fraction: float = 0.01, inner_epochs: int = 20,
                 cache_size: float = CACHE_SIZE, row_dtype: str = "float32", shrinking: bool = True,
                 random_state: int | np.random.Generator | np.random.RandomState | None = None) -> None:
        self.working_set = _check_count(working_set, "working_set")
        self.inner_epochs = _check_count(inner_epochs, "inner_epochs")
        fraction = float(inner_fraction) if isinstance(inner_fraction, (int, float, np.floating)) else math.nan
        if isinstance(inner_fraction, bool) or not 0.0 < fraction <= 1.0:
            raise ValueError(f"inner_fraction must be a number in (0, 1], got {inner_fraction!r}")
        self.inner_fraction = fraction
        self.cache_size = check_cache_size(cache_size)
        if not isinstance(row_dtype, str) or row_dtype not in ROW_DTYPES:
            raise ValueError(f"row_dtype must be one of {tuple(ROW_DTYPES)}, got {row_dtype!r}")
        self.row_dtype = row_dtype
        if not isinstance(shrinking, (bool, np.bool_)):
            raise ValueError(f"shrinking must be True or False, got {shrinking!r}")
        self.shrinking = bool(shrinking)
        self.random_state = check_random_state(random_state)

    @classmethod
    def solves(cls, loss: MulticlassLoss) -> bool:
        """Every loss with its own compiled row kernels (:func:`~svmteach.losses.base.row_kernels`)."""
        return super().solves(loss) and row_kernels(loss) is not None

    def block_size(self, problem: MulticlassProblem) -> int:
        """b: ``working_set``, at most n, at most the rows ``cache_size`` MB hold."""
        return max(1, min(self.working_set, KernelRowCache.rows_for(problem.n_samples, self.cache_size)))

    def steps_per_epoch(self, problem: MulticlassProblem) -> int:
        """Working sets in an epoch over every sample: ceil(n / b) (fewer once most blocks are solved)."""
        return -(-problem.n_samples // self.block_size(problem))

    def init(self, problem: MulticlassProblem) -> WorkingSetState:
        _check_problem(self, problem)
        n, k, xp = problem.n_samples, problem.k, problem.xp
        alpha, S = xp.zeros((n, k), dtype=xp.float64), xp.zeros((n, k), dtype=xp.float64)
        nan = math.nan
        state = self.State.of(n_iter=0, alpha=alpha, W=S, primal=nan, dual=nan, gap=nan, kkt=nan, violation=nan,
                              chosen=np.zeros(0, dtype=np.int64), start=nan, end=nan, inner_epochs=0, visits=0,
                              epoch=0, pos=0, perm=np.zeros(0, dtype=np.int64), active=np.arange(n),
                              seed=seed_from(self.random_state), rows_computed=0, kernel_values=0,
                              exact_weights=xp.zeros((0, k), dtype=xp.float64),
                              exact_scores=xp.zeros((0, k), dtype=xp.float64))
        return self.measure(problem, self._next_epoch(problem, state))

    def warm_start(self, problem: MulticlassProblem, state: WorkingSetState) -> WorkingSetState:
        """``state`` made a feasible, measured state of ``problem`` (each row of alpha projected by the loss's
        ``feasible``, S recomputed, a new epoch)."""
        _check_problem(self, problem)
        alpha = check_state_alpha(problem, state.alpha, (problem.n_samples, problem.k))
        xp = problem.xp
        alpha = xp.asarray(problem.loss_object.feasible(problem, alpha), dtype=xp.float64, copy=True)
        none = xp.zeros((0, problem.k), dtype=xp.float64)  # the scores of another problem's X are not this one's
        state = state._replace(alpha=alpha, chosen=np.zeros(0, dtype=np.int64), start=math.nan, end=math.nan,
                               inner_epochs=0, visits=0, exact_weights=none, exact_scores=none)
        return self._next_epoch(problem, self.measure(problem, state))

    def measure(self, problem: MulticlassProblem, state: WorkingSetState) -> WorkingSetState:
        """The state with every score recomputed from alpha (every sample active again) and its objectives, gap
        and KKT violation."""
        state = self._unshrunk(problem, state)
        P, D, kkt = obj.multiclass_measures(problem, state.alpha, state.W)
        return state._replace(primal=P, dual=D, gap=obj.relative_gap(P, D), kkt=kkt)

    def _unshrunk(self, problem, state) -> WorkingSetState:
        """Every sample active, S = (K + B^2) A(alpha) recomputed from alpha alone in float64 (never from the
        steps' float32 updates): the last recompute's float64 scores plus the float64 kernel rows of the samples
        whose row of A(alpha) moved since, times that move, b rows at a time as a step computes them; or, where
        fewer samples are support vectors than moved (the first time: all), the support vectors' rows times A.
        (At n = 20,000 a third to a half of the support vectors move between measures.)  Each recompute adds its
        products' float64 rounding, about 1e-16 of sum |K| |change| an entry: far below any gap a fit reports."""
        xp = problem.xp
        A = xp.asarray(problem.loss_object.weight_rows(problem, state.alpha), dtype=xp.float64)
        n = problem.n_samples
        support = np.flatnonzero(to_numpy(xp.any(A != 0, axis=1)))
        coef, S = A, xp.zeros((n, problem.k), dtype=xp.float64)
        if state.exact_weights.shape[0] == n:
            change = A - state.exact_weights
            moved = np.flatnonzero(to_numpy(xp.any(change != 0, axis=1)))
            if moved.size < support.size:
                support, coef, S = moved, change, xp.asarray(state.exact_scores, copy=True)
        b = self.block_size(problem)
        for at in range(0, support.size, b):
            chosen = support[at : at + b]
            add_kernel_products(problem, chosen, _rows(problem, coef, chosen), S)
        return state._replace(W=S, active=np.arange(n), kernel_values=state.kernel_values + support.size * n,
                              exact_weights=A, exact_scores=S)

    def _next_epoch(self, problem, state) -> WorkingSetState:
        """A new epoch: the active samples' block violations from S (the state's ``violation``, their largest;
        every sample's, unshrunk, once the active ones are solved); with ``shrinking``, those that hold set
        aside; the violating ones shuffled into ``perm`` (every active one when none violates)."""
        v = _violations(problem, state, state.active)
        if state.active.size < problem.n_samples and not np.any(v > POOL_FLOOR):
            state = self._unshrunk(problem, state)
            v = _violations(problem, state, state.active)
        active = state.active
        if self.shrinking and np.any(v > POOL_FLOOR):  # (none violates even unshrunk: every sample stays)
            keep = v > POOL_FLOOR
            active, v = active[keep], v[keep]
        pool = np.zeros(problem.n_samples, dtype=bool)
        pool[active[v > POOL_FLOOR]] = True
        if not pool.any():
            pool[active] = True
        perm = np.empty(problem.n_samples, dtype=np.int64)
        m = nm.draw_order(perm, pool, state.seed, state.epoch + 1)
        return state._replace(violation=float(v.max(initial=0.0)), epoch=state.epoch + 1, pos=0, perm=perm[:m],
                              active=active)

    def step(self, problem: MulticlassProblem, state: WorkingSetState) -> WorkingSetState:
        """The next working set solved and every score moved (the module's steps 1-4); at the epoch's end, the
        next epoch begun.  On new arrays: the input state is never written."""
        xp = problem.xp
        chosen = np.sort(state.perm[state.pos : state.pos + self.block_size(problem)])
        active = state.active
        dtype = ROW_DTYPES[self.row_dtype]
        K_BB = np.asarray(to_numpy(kernel_rows(problem, chosen, chosen, dtype)), dtype=np.float64)
        alpha_B, S_B = _host_rows(problem, state.alpha, chosen), _host_rows(problem, state.W, chosen)
        change = np.empty_like(alpha_B)
        drivers = nm.drivers(row_kernels(problem.loss_object))
        codes, sqnorm, C_i = _host_block_data(problem, chosen)
        visits, epochs, start, end = drivers.subproblem(
            drivers.code, K_BB, S_B, alpha_B, nm.Samples(sqnorm=sqnorm, codes=codes, C_i=C_i), params(problem.M),
            self.inner_fraction, self.inner_epochs, bool(problem.loss_object.sum_to_zero), change)
        alpha = xp.asarray(state.alpha, copy=True)
        alpha[_index(problem, chosen)] = xp.asarray(alpha_B)
        S = xp.asarray(state.W, copy=True)
        made = add_kernel_products(problem, chosen, change, S, None if active.size == problem.n_samples else active,
                                   dtype)
        state = state._replace(n_iter=state.n_iter + 1, alpha=alpha, W=S, chosen=chosen, start=float(start),
                               end=float(end), inner_epochs=int(epochs), visits=int(visits), pos=state.pos + chosen.size,
                               rows_computed=state.rows_computed + chosen.size,
                               kernel_values=state.kernel_values + made + chosen.size**2)
        return self._next_epoch(problem, state) if state.pos >= state.perm.size else state

    def violation(self, state: WorkingSetState) -> float:
        """``state.violation``: the largest block violation when the epoch under way began."""
        return state.violation

    def coefficients(self, problem: MulticlassProblem, state: WorkingSetState) -> tuple[np.ndarray, np.ndarray]:
        """``(alpha, S)`` as NumPy arrays."""
        return to_numpy(state.alpha), to_numpy(state.W)


def kernel_rows(problem, chosen, columns=None, dtype=np.float64) -> np.ndarray:
    """(len(chosen), len(columns)) entries of the problem's kernel matrix plus :math:`B^2`, rows ``chosen`` and
    columns ``columns`` (sorted; None: every column), in ``dtype`` (float64 or float32), made by
    :func:`kernel_tiles` and kept, on the problem's device: a step takes its working set's b x b block so."""
    columns = np.arange(problem.n_samples) if columns is None else columns
    xp = problem.xp
    rows = xp.empty((chosen.size, columns.size), dtype=getattr(xp, np.dtype(dtype).name))
    for at, taken, tile in kernel_tiles(problem, chosen, columns, dtype):
        rows[:, at : at + taken.size] = tile
    return rows


def add_kernel_products(problem, chosen, coef, S, columns=None, dtype=np.float64) -> int:
    """``S[columns] += (K[columns, chosen] + B^2) @ coef`` (``coef`` (b, k), ``S`` (n, k) float64, ``columns``
    sorted, None: every sample), the kernel entries in ``dtype``: a step's score update (float32 rows) or a block of
    support vectors' part of S recomputed from alpha (float64).  Each tile of :func:`kernel_tiles` is used as it is
    made, so no (b, n) array is kept and the tile is still in the cache when its product reads it (the product in
    ``dtype``, added to S in float64).  Returns the kernel entries computed."""
    columns = np.arange(problem.n_samples) if columns is None else columns
    every = columns.size == problem.n_samples
    xp = problem.xp
    coef = xp.asarray(coef, dtype=getattr(xp, np.dtype(dtype).name))
    for at, taken, tile in kernel_tiles(problem, chosen, columns, dtype):
        if every:
            S[at : at + taken.size] += tile.T @ coef
        else:
            S[_index(problem, taken)] += tile.T @ coef
    return chosen.size * columns.size


def kernel_tiles(problem, chosen, columns, dtype):
    """Yields ``(at, taken, tile)``: the entries of the kernel matrix plus :math:`B^2` in rows ``chosen`` and columns
    ``taken = columns[at : at + w]`` (``columns`` sorted), a tile of at most :data:`TILE_COLUMNS` columns (and of
    :data:`COLUMN_BLOCK_BYTES` of X) at a time, in ``dtype`` (float64 or float32).  The inner products by one
    matrix product (BLAS-3; X taken a block of rows at a time, so no copy of X is made; in float32 the block is
    cast), then the kernel's function in place in ``dtype``'s arithmetic
    (:func:`~svmteach.solvers.numba_kernel_rows.rows_from_dots`; the squared norms summed in float64, the
    cancellation guard's explicit differences in float64).  One tile array is reused: the next overwrites it.
    Off NumPy (a GPU), each tile is :func:`~svmteach.kernels.gram` of the rows and the tile's points, in float64 on
    the device, cast to ``dtype``."""
    if not is_numpy(problem.xp):
        yield from _device_tiles(problem, chosen, columns, dtype)
        return
    X = np.asarray(problem.X, dtype=np.float64)
    every = columns.size == problem.n_samples
    XB = X[chosen].astype(dtype, copy=False)
    params, offset = kernel_params(problem.kernel), float(problem.kernel_offset)
    width = max(1, min(TILE_COLUMNS, COLUMN_BLOCK_BYTES // (8 * X.shape[1])))
    tile, scratch = np.empty((chosen.size, width), dtype=dtype), np.empty((2, width), dtype=dtype)
    for at in range(0, columns.size, width):
        taken = columns[at : at + width]
        block = X[at : at + width] if every else X[taken]
        if taken.size < width:  # the last, narrower tile: contiguous arrays of its width (the compiled code's)
            tile, scratch = np.empty((chosen.size, taken.size), dtype=dtype), np.empty((2, taken.size), dtype=dtype)
        np.matmul(XB, block.T.astype(dtype, copy=False), out=tile)
        rows_from_dots(X, np.einsum("ij,ij->i", block, block).astype(dtype), params, chosen, taken, offset, tile,
                       scratch)
        yield at, taken, tile


def _device_tiles(problem, chosen, columns, dtype):
    """:func:`kernel_tiles` off NumPy: each tile by :func:`~svmteach.kernels.gram` (array-API code) on the device."""
    xp, X = problem.xp, problem.X
    every = columns.size == problem.n_samples
    XB = xp.take(X, _index(problem, chosen), axis=0)
    width = max(1, min(TILE_COLUMNS, COLUMN_BLOCK_BYTES // (8 * X.shape[1])))
    for at in range(0, columns.size, width):
        taken = columns[at : at + width]
        block = X[at : at + taken.size, :] if every else xp.take(X, _index(problem, taken), axis=0)
        tile = gram(XB, block, problem.kernel) + problem.kernel_offset
        yield at, taken, xp.astype(tile, getattr(xp, np.dtype(dtype).name))


def _index(problem, samples):
    """``samples`` (NumPy int64) as an index of the problem's arrays (moved to the device off NumPy)."""
    return samples if is_numpy(problem.xp) else problem.xp.asarray(samples)


def _rows(problem, a, samples):
    """Rows ``samples`` of the problem's array ``a``, where ``a`` lives."""
    return a[samples] if is_numpy(problem.xp) else problem.xp.take(a, _index(problem, samples), axis=0)


def _host_rows(problem, a, samples) -> np.ndarray:
    """Rows ``samples`` of the problem's array ``a`` as a new NumPy array (the compiled code's input: a gather
    copies)."""
    return np.asarray(to_numpy(_rows(problem, a, samples)))


def _host_block_data(problem, samples) -> tuple:
    """The compiled block step's per-sample data of ``samples`` on the host: class codes, curvatures, C_i."""
    return tuple(_host_rows(problem, a, samples) for a in (problem.codes, problem.sqnorm, problem.C_i))


def _violations(problem, state, samples) -> np.ndarray:
    """The block violations of ``samples`` against the state's scores (the loss's compiled block step, on the
    host)."""
    drivers = nm.drivers(row_kernels(problem.loss_object))
    v = np.empty(samples.size)
    drivers.violations(drivers.code, _host_rows(problem, state.W, samples), _host_rows(problem, state.alpha, samples),
                       *_host_block_data(problem, samples), params(problem.M), v)
    return v


def _check_count(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _check_problem(solver, problem) -> None:
    if not isinstance(problem, MulticlassProblem):
        raise TypeError(f"problem must be a MulticlassProblem, got {type(problem).__name__}")
    if not solver.solves(problem.loss_object):
        raise ValueError(f"solver {solver.name!r} runs a loss's own compiled row kernels, and the loss "
                         f"{problem.loss!r} has none of its own: use solver='parallel' or 'interior_point'")
    if is_sparse(problem.design):
        raise TypeError("X is sparse, which solver 'working_set' does not take (it solves kernel problems, whose X is "
                        "dense): pass X.toarray(), or solver=None for the linear kernel")
    if not multiclass_model.is_kernel(problem):
        raise ValueError("solver 'working_set' solves kernel problems (kernel='rbf', 'poly', 'laplacian'); "
                         "a linear kernel is the epochs' (solver=None)")
    if not takes_index_writes(problem.xp):
        raise ValueError(f"solver 'working_set' runs on NumPy or CuPy arrays (it writes rows of alpha and S by an "
                         f"integer index), not on {problem.xp.__name__}'s")
