"""Multiclass block coordinate ascent, compiled: one epoch driver for every loss's row kernels.

The driver :func:`epoch` is written once for every multiclass loss (Shark's ``QpMcLinear`` skeleton) and
every model (the weights W, a kernel problem's training scores S, a working set's): for each sample i of an order
it reads the scores :math:`s = W x_i` (or :math:`S_{i:}`) of the classes it looks at, asks the loss's block kernel
(:func:`visit`) for the new block :math:`\\alpha_i`, its KKT violation before the step and whether the sample
is at rest, and moves :math:`W` by :math:`A(\\delta)^\\top x_i` (or S by a kernel column) for the change δ of
:math:`\\alpha_i` (:func:`weight_change`, the loss's ``coef``).
Shrinking (samples at rest set aside in ``active``; classes set aside within a block in ``classes``,
taken back once off their bound) is decided here and in the kernels.  The epochs take three NamedTuples: the
visiting order they advance in place (:class:`Order`: the permutation, the samples and classes set aside, the
epoch's counters), the model they read and move and the samples' numbers (:class:`Samples`).  The model is an
operator picked by its type at compile time (:func:`read_scores`, :func:`move_model`): the weights W
(:class:`LinearModel`), the training scores S (:class:`KernelModel`) or a working set's scores
(:class:`BlockModel`, whose epochs are the working-set solver's sub-problem, :func:`subproblem`): one epoch body
for every model and every loss.

The row kernels are the losses' own (:mod:`svmteach.losses.row_kernels`, each in its loss's module): the
driver dispatches over the tuple :data:`KERNELS` of the package's losses' kernels and Shark's (a kernel's
code is its index), unrolled and inlined at compile time (``literal_unroll``: called as functions the kernels
cost a fixed overhead a sample; a tuple read at compile time is what numba's cache keeps across processes).
A loss registered from outside the package gets drivers of its own, compiled for its kernels in the
process that registers it (:func:`drivers`).
"""

from __future__ import annotations

import types
import warnings
from typing import NamedTuple

import numpy as np
from numba import literal_unroll, njit
from numba.core import types as types_nb
from numba.extending import overload
from numba.core.errors import NumbaExperimentalFeatureWarning

from ..losses import PACKAGE_LOSSES
from ..losses.row_kernels import FASTMATH, scratch
from ..rows import row_axpy, row_dot
from . import numba_shark
from .numba_dual_cd import random_unit, shuffle_prefix
from .numba_kernel_rows import get_row

#: The row kernels the compiled drivers dispatch over, a kernel's code its index: the package's losses', then
#: Shark's moves (a solver's).
KERNELS = tuple(loss.kernels for loss in PACKAGE_LOSSES) + (numba_shark.KERNELS,)
BLOCKS = tuple(kernels.block for kernels in KERNELS)
COEFS = tuple(kernels.coef for kernels in KERNELS)

#: Adaptive coordinate frequencies' constants (Glasmachers and Dogan 2013, as in Shark's ``QpMcLinear``): a visit
#: multiplies its sample's preference by ``exp(PREFERENCE_RATE (v / mean v - 1))``, kept within
#: [PREFERENCE_MIN, PREFERENCE_MAX].
PREFERENCE_RATE, PREFERENCE_MIN, PREFERENCE_MAX = 0.2, 0.05, 20.0

# numba types a tuple of compiled functions as first-class functions and says so once a compile; unrolled, each
# call is inlined as a direct one (measured: the same time a visit as the former if-chain)
warnings.filterwarnings("ignore", message=".*First-class function type feature is experimental",
                        category=NumbaExperimentalFeatureWarning)


class Order(NamedTuple):
    """The visiting order the compiled epochs follow and advance in place (LIBLINEAR's shuffled epochs with
    shrinking: :func:`next_epoch`), the engine of a :class:`~svmteach.solvers.multiclass_base.MulticlassState`.

    perm : (n,) int64, the current epoch's order in its first ``at[2]`` entries;  active : (n,) bool, the samples not
    set aside (empty: no shrinking);  classes : (n, k) bool, the classes not set aside within each block ((0, 0):
    none);  at : (3,) int64, the epoch's number, the next position, the epoch's length;  levels : (5,) float64,
    ``reactivate_at``, the epoch's largest block violation so far (NaN: none), the slack of rest, the running mean
    of the visits' violations and the visits summed into it (up to n, :func:`prefer`);  seed : int, the orders'
    seed;  floor : float, the least ``reactivate_at``;  preference : (n,) float64, each sample's share of a shrunk
    epoch's visits (:func:`prefer`; empty: each active sample once)."""

    perm: np.ndarray
    active: np.ndarray
    classes: np.ndarray
    at: np.ndarray
    levels: np.ndarray
    seed: int
    floor: float
    preference: np.ndarray


class LinearModel(NamedTuple):
    """The linear model (:mod:`svmteach.multiclass_model`): the weights ``W`` (k, d) on the ``design`` (a
    :class:`~svmteach.rows.CompiledDesign`), less ``common`` (d,) from every row where it is not empty (a dense
    design's: a CSR's visits leave it empty and unread).  A visit
    to sample i reads :math:`s = W x_i` and moves :math:`W \\mathrel{+}= A(\\delta)^\\top x_i`.

    A centred loss (Lee-Lin-Wahba, maximum-margin regression: :math:`A(\\delta) = \\pm(\\delta - \\bar\\delta)`)
    moves every class at each step, the classes that did not change by one shared value :math:`c_0`: with
    ``common`` v, the weights :math:`W - \\mathbf 1 v^\\top` move by :math:`(A(\\delta) - c_0)^\\top x_i` in
    the classes that changed and :math:`v \\mathrel{-}= c_0 x_i`: a pass for each class that changed and one for v,
    not k (on MNIST a Lee-Lin-Wahba step changes 5-8 of 10 classes in the first epochs, about 2 later)."""

    design: object
    W: np.ndarray
    common: np.ndarray


class KernelModel(NamedTuple):
    """The kernel model: the training scores ``S`` = K A (n, k), the run's KernelRowCache ``rows`` and the
    intercept's ``offset`` :math:`B^2`.  A visit reads :math:`s = S_{i:}` and moves :math:`S \\mathrel{+}= (K_{:i} +
    B^2) A(\\delta)^\\top` (K symmetric: its column read as row i from the cache)."""

    rows: object
    offset: float
    S: np.ndarray


class BlockModel(NamedTuple):
    """A working set's model: its kernel matrix ``K`` (b, b), :math:`B^2` included, and its scores class by class
    ``ST`` (k, b), less ``common`` (b,) for a centred loss (empty for the others): the scores are
    :math:`ST - \\mathbf 1\\, \\mathrm{common}^\\top`.  A visit to its sample t reads :math:`s = ST_{:t}` (less
    common_t) and adds :math:`A(\\delta)_m K_{t:}` to the row of each class m whose entry moved: one contiguous pass
    of b each (a Crammer-Singer or Weston-Watkins step moves a few classes; the (b, k) layout took b short passes of
    k).  A centred loss (Lee-Lin-Wahba) moves every class, most by one shared value (:func:`shared_value`): that
    value's move is one pass on ``common``, as :class:`LinearModel`'s."""

    K: np.ndarray
    ST: np.ndarray
    common: np.ndarray


class Samples(NamedTuple):
    """Each sample's curvature ``sqnorm`` (:math:`\\|x_i\\|^2`, or :math:`K_{ii} + B^2`), class index ``codes`` and
    bound ``C_i``."""

    sqnorm: np.ndarray
    codes: np.ndarray
    C_i: np.ndarray


@njit(cache=True, fastmath=FASTMATH)
def epochs(code, model, samples, params, alpha, order, n_steps, picture, record, old):
    """Up to ``n_steps`` >= 1 sample visits of the run's epochs, in place on ``alpha``, the ``model`` and the
    ``order`` (:class:`Order`), the last visit with its picture: the step path's ``picture`` (3, k) and ``record``
    buffers (a row kernel's) receive its numbers and ``old`` (k,) its row before the step; every epoch boundary met
    is crossed here (:func:`next_epoch`), so a run of many short shrunk epochs costs one call.  As the step path's
    epochs (:mod:`svmteach.solvers.multiclass_base`): with shrinking the call ends in an epoch over all samples, at
    the latest at its end.

    Returns ``(visits, violation, i, last_violation, moves)``: ``violation`` the largest block violation of the
    call's visits (+inf once a shrunk epoch was run); ``i``, ``last_violation`` and ``moves`` the last visit's
    sample and :func:`visit`'s answer.  The epoch's own largest violation is ``order.levels[1]``.
    """
    n, k = alpha.shape
    perm, active = order.perm, order.active
    shrinking = active.shape[0] > 0
    epoch_no, pos, plen = order.at[0], order.at[1], order.at[2]
    reactivate_at, sweep, rest_margin = order.levels[0], order.levels[1], order.levels[2]
    visits = 0
    violation = np.nan
    no_picture, no_record = np.empty((0, k)), np.empty((0, record.shape[1]))
    while True:
        if pos == plen:  # a new epoch: LIBLINEAR's rule with shrinking
            epoch_no += 1
            plen, reactivate_at, rest_margin = next_epoch(perm, active, order.classes, order.seed, epoch_no, sweep,
                                                         reactivate_at, order.floor, order.preference)
            sweep = np.nan
            pos = 0
        left = plen - pos
        full = plen == n
        last = n_steps - visits <= left or (shrinking and full)  # the call ends in this epoch
        take = min(n_steps - visits, left) - 1 if last else left
        if take > 0:
            met, _ = epoch(code, model, samples, params, alpha, perm[pos : pos + take], active, rest_margin,
                           order.classes, no_picture, no_record, order.preference, order.levels)
            violation = met if np.isnan(violation) else max(violation, met)
            sweep = met if np.isnan(sweep) else max(sweep, met)
            pos += take
            visits += take
        if not full:
            violation = np.inf  # a shrunk epoch says nothing of the samples it left aside
        if last:  # the last visit, drawn
            i = perm[pos]
            old[:] = alpha[i]
            met, moves = epoch(code, model, samples, params, alpha, perm[pos : pos + 1], active, rest_margin,
                               order.classes, picture, record, order.preference, order.levels)
            sweep = met if np.isnan(sweep) else max(sweep, met)
            violation = met if np.isnan(violation) else max(violation, met)
            order.at[0], order.at[1], order.at[2] = epoch_no, pos + 1, plen
            order.levels[0], order.levels[1], order.levels[2] = reactivate_at, sweep, rest_margin
            return visits + 1, violation, i, met, moves


@njit(cache=True)
def next_epoch(perm, active, classes, seed, epoch_no, sweep, reactivate_at, floor, preference):
    """Begin epoch ``epoch_no`` after one whose largest block violation was ``sweep`` (NaN: none measured),
    in place on ``perm`` (n,) (its order, in the first ``plen`` entries), ``active`` and ``classes``.
    Returns ``(plen, reactivate_at, rest_margin)``.

    With shrinking (``active`` (n,), else empty: every sample, always), the epoch is over the active samples,
    or over all of them with ``reactivate_at`` halved (not below ``floor``) when the last one's violation was
    below ``reactivate_at``, none was measured, or none is active; an epoch over all samples has every class
    active again.  The slack ``rest_margin`` is the last epoch's violation (+inf after none).  A shrunk epoch
    with a ``preference`` (n,) (else empty) visits its active samples by their preferences (:func:`weighted_order`);
    an epoch over all samples visits each once, whatever the preferences.
    """
    if active.shape[0] > 0:
        any_active = False
        for i in range(active.shape[0]):
            if active[i]:
                any_active = True
                break
        if not (sweep >= reactivate_at) or not any_active:
            active[:] = True
            reactivate_at = max(reactivate_at / 2, floor)
    plen = draw_order(perm, active, seed, epoch_no)
    if plen == perm.shape[0] and classes.shape[0] > 0:
        classes[:, :] = True
    if plen < perm.shape[0] and preference.shape[0] > 0:
        weighted_order(perm, plen, preference, seed, epoch_no)
    return plen, reactivate_at, (np.inf if np.isnan(sweep) else sweep)


@njit(cache=True)
def weighted_order(perm, plen, preference, seed, epoch_no):
    """Redraw ``perm[:plen]`` (the active samples, each once) as ``plen`` visits in which sample i comes about
    :math:`plen\\, p_i / \\sum p` times (the active samples' preferences; stochastic rounding, a shortfall made up
    by uniform draws), shuffled: the visiting order of adaptive coordinate frequencies (Glasmachers and Dogan,
    ACML 2013; Shark's ``QpMcLinear``) within a shrunk epoch.  Deterministic in (seed, epoch, the active samples,
    their preferences), as :func:`draw_order`."""
    chosen = perm[:plen].copy()
    left = 0.0
    for i in chosen:
        left += preference[i]
    key = seed ^ 0x5DEECE66D  # another stream than the shuffle's
    draw = 0
    pos = 0
    for i in chosen:
        share = min(float(plen - pos), (plen - pos) * preference[i] / left) if left > 0 else 0.0
        times = int(np.floor(share))
        if random_unit(key, epoch_no, draw) < share - times:
            times += 1
        draw += 1
        for _ in range(min(times, plen - pos)):
            perm[pos] = i
            pos += 1
        left -= preference[i]
    while pos < plen:  # the roundings' shortfall (none when the sums are exact)
        perm[pos] = chosen[int(random_unit(key, epoch_no, draw) * plen) % plen]
        draw += 1
        pos += 1
    shuffle_prefix(perm, plen, seed, epoch_no)


@njit(cache=True)
def prefer(preference, i, violation, levels):
    """Adaptive coordinate frequencies' update after a visit to sample i whose block violation was ``violation``,
    in place on ``preference`` (n,) and the running mean of the violations ``levels[3]``: over the first n visits
    since the preferences were set (``levels[4]`` counts them: a run's first epoch, or the first after a warm start)
    the mean is summed; after them, sample i's preference is multiplied by
    :math:`\\exp(r (v / \\bar v - 1))` (within [PREFERENCE_MIN, PREFERENCE_MAX]) and the mean moves by 1/n towards v.
    Glasmachers and Dogan drive it by the visit's gain in the dual; the violation, which every row kernel returns,
    gave fewer visits (``benchmarks/visit_orders.py``).  Not inlined and without fast-math, so that the step path's
    call gives the fast path's numbers bit for bit."""
    n = preference.shape[0]
    if n == 0 or not np.isfinite(violation):
        return
    mean = levels[3]
    if levels[4] < n:
        levels[3] = mean + violation / n
        levels[4] += 1.0
        return
    change = PREFERENCE_RATE * (violation / mean - 1.0) if mean > 0 else 0.0
    preference[i] = min(PREFERENCE_MAX, max(PREFERENCE_MIN, preference[i] * np.exp(change)))
    levels[3] = (1.0 - 1.0 / n) * mean + violation / n


@njit(cache=True)
def draw_order(perm, active, seed, epoch_no):
    """Epoch ``epoch_no``'s visiting order of the active samples (every sample when ``active`` is empty) into
    the first entries of ``perm`` (n,); returns how many.  A deterministic function of (seed, epoch, active),
    splitmix64's Fisher-Yates shuffle (:func:`~svmteach.solvers.numba_dual_cd.shuffle_prefix`): the one
    place both paths draw their orders from, so a run is replayable from its state."""
    plen = 0
    for i in range(perm.shape[0]):
        if active.shape[0] == 0 or active[i]:
            perm[plen] = i
            plen += 1
    shuffle_prefix(perm, plen, seed, epoch_no)
    return plen


@njit(cache=True, fastmath=FASTMATH)
def epoch(code, model, samples, params, alpha, order, active, margin, classes, picture, record, preference, levels):
    """The block step of kernel ``code`` for every sample of ``order`` (an array of sample indices), in place on
    ``alpha`` (n, k) and the ``model``; returns ``(violation, moves)``: the largest block KKT
    violation met, each block's before its step (0.0 for an empty order), and :func:`visit`'s ``moves`` of the last
    sample (0 for an empty order).  Non-empty ``picture`` and ``record`` (:func:`visit`) receive the visits' numbers
    (the fast path's last visit: one sample), its scores then computed over every class.

    The model is the operator a visit reads its scores from and moves (:func:`read_scores`, :func:`move_model`),
    chosen by its type at compile time: :class:`LinearModel` (W on the rows of X), :class:`KernelModel` (S from the
    row cache's kernel columns) or :class:`BlockModel` (a working set's scores from its b x b kernel matrix).
    Sample i's bound, curvature and class are the ``samples``' (:class:`Samples`); ``params`` the row kernel's
    ``(M, inner_tol, max_inner)`` (:mod:`svmteach.losses.row_kernels`).
    A non-empty ``active`` (n,) has the samples found at rest (slack ``margin``) set aside (False); a
    non-empty ``classes`` (n, k) has the classes a kernel sets aside within a block set False there; a non-empty
    ``preference`` (n,) follows each visit's violation (:func:`prefer`, with the mean in ``levels[3:5]``).
    """
    k = alpha.shape[1]
    s = np.zeros(k)
    a = np.empty(k)
    coef = np.empty(k)
    every = np.ones(k, dtype=np.bool_)
    work, iwork, _ = scratch(k, 0)
    buffers = (work, iwork, record)
    return epoch_visits(code, model, samples, params, alpha, order, active, margin, classes, picture, preference,
                        levels, (s, a, coef, every), buffers)


@njit(cache=True, fastmath=FASTMATH, _nrt=False)
def epoch_visits(code, model, samples, params, alpha, order, active, margin, classes, picture, preference, levels, rows,
                 buffers):
    """The loop of :func:`epoch` over its ``order``, on its buffers: ``rows`` ``(s, a, coef, every)``, (k,) each, and
    ``buffers`` the row kernel's scratch.  Compiled without numba's runtime, as the row kernels are
    (:mod:`svmteach.losses.row_kernels`): it pays no reference counts on the views a visit takes (a sample's row of
    alpha and of ``classes``, a row of W), about 40 of a 230 ns Crammer-Singer visit on digits
    (``benchmarks/RESULTS.md``).  What it calls is compiled without the runtime too (numba passes the flag on)
    unless it says otherwise: a kernel row's computation (:func:`~svmteach.solvers.numba_kernel_rows.row_slot`)
    keeps it and returns the row's slot, not a view (a reference this loop would never give back); the view is
    taken here (:func:`~svmteach.solvers.numba_kernel_rows.get_row`, inlined)."""
    k = alpha.shape[1]
    s, a, coef, every = rows
    sqnorm, codes, C_i = samples
    drawn = picture.shape[0] > 0
    shrink = active.shape[0] > 0
    shrink_classes = classes.shape[0] > 0
    worst = 0.0
    moves = 0
    for i in order:
        look = classes[i] if shrink_classes else every
        for m in range(k):
            a[m] = alpha[i, m]
            if a[m] != 0.0:
                look[m] = True  # a class set aside but off its bound is taken back
        read_scores(model, i, s, look, drawn)
        violation, moves = visit(code, s, a, codes[i], sqnorm[i], C_i[i], params, (margin, shrink, shrink_classes),
                                 look, buffers, picture)
        worst = max(worst, violation)
        if preference.shape[0] > 0:
            prefer(preference, i, violation, levels)
        if moves < 0:
            active[i] = False
        if moves <= 0:
            continue
        weight_change(code, a, alpha[i], params, coef)
        still = True
        for m in range(k):
            alpha[i, m] = a[m]
            still = still and coef[m] == 0.0
        if not still:  # A(alpha) changed (a Lee-Lin-Wahba visit often solves to its own row: the model stays)
            move_model(model, i, coef)
    return worst, moves


def read_scores(model, i, s, look, drawn):
    """``s`` (k,) = sample i's scores in ``model`` (a :class:`LinearModel`, :class:`KernelModel` or
    :class:`BlockModel`), over the classes ``look`` looks at, or every class where ``drawn`` (a picture shows
    them all; a sparse design's scores are every class's, in one pass over the row); the model's type picks the
    body at compile time."""
    raise NotImplementedError("compiled only (numba.extending.overload)")


def move_model(model, i, coef):
    """``model`` moved by sample i's :math:`A(\\delta)` = ``coef`` (k,); the model's type picks the body."""
    raise NotImplementedError("compiled only (numba.extending.overload)")


@njit(cache=True, inline="always")
def shared_value(coef):
    """The first value of ``coef`` that two classes share (0.0 when none does): a centred loss's move of the
    classes that did not change (:class:`LinearModel`)."""
    k = coef.shape[0]
    for m in range(k):
        for other in range(m + 1, k):
            if coef[other] == coef[m]:
                return coef[m]
    return 0.0


def _sparse_design(model) -> bool:
    """Whether a :class:`LinearModel`'s numba type holds a sparse design (its rows a CSR, not an array); the
    fields read by name, so that a reordered NamedTuple cannot pick the dense body for a CSR."""
    design = model.types[model.fields.index("design")]
    return not isinstance(design.types[design.fields.index("rows")], types_nb.Array)


@overload(read_scores, inline="always")
def _read_scores(model, i, s, look, drawn):
    kind = model.instance_class
    if kind is LinearModel and _sparse_design(model):
        def sparse(model, i, s, look, drawn):
            (data, indices, indptr), bias, bias_column = model.design
            W = model.W  # Fortran order: a stored column's k weights W[:, j] adjacent
            for m in range(s.shape[0]):
                s[m] = 0.0
            # every class in one pass over the row's entries (LIBLINEAR's loop order), contiguous k at a time: a
            # pass a class over the looked-at ones read each entry k times (text: 1.6x the time; benchmarks/RESULTS.md)
            for p in range(indptr[i], indptr[i + 1]):
                j, v = np.uint64(indices[p]), data[p]  # unsigned: no test for a negative index
                for m in range(s.shape[0]):
                    s[m] += v * W[m, j]
            if bias_column >= 0:
                for m in range(s.shape[0]):
                    s[m] += bias * W[m, bias_column]

        return sparse
    if kind is LinearModel:
        def linear(model, i, s, look, drawn):
            X, bias, bias_column = model.design  # a CompiledDesign's fields (rows.compiled_rows)
            W, common = model.W, model.common
            shared = 0.0
            if common.shape[0] > 0:  # a dense row (LinearModel): a loop, where a second inlined row_dot made numba
                for t in range(X.shape[1]):  # warn of a variable out of scope
                    shared += common[t] * X[i, t]
                if bias_column >= 0:
                    shared += bias * common[bias_column]
            for m in range(s.shape[0]):
                if look[m] or drawn:
                    s[m] = row_dot(X, i, W[m])  # s = W x_i
                    if bias_column >= 0:
                        s[m] += bias * W[m, bias_column]  # the bias column's term, last (as a stored [X, B 1] sums it)
                    s[m] -= shared

        return linear
    if kind is KernelModel:
        def kernel(model, i, s, look, drawn):
            S = model.S
            for m in range(s.shape[0]):
                s[m] = S[i, m]

        return kernel
    if kind is BlockModel:
        def block(model, i, s, look, drawn):
            ST, common = model.ST, model.common
            shared = common[i] if common.shape[0] > 0 else 0.0
            for m in range(s.shape[0]):
                s[m] = ST[m, i] - shared

        return block
    return None


@overload(move_model, inline="always")
def _move_model(model, i, coef):
    kind = model.instance_class
    if kind is LinearModel and _sparse_design(model):
        def sparse(model, i, coef):
            (data, indices, indptr), bias, bias_column = model.design
            W = model.W
            for p in range(indptr[i], indptr[i + 1]):
                j, v = np.uint64(indices[p]), data[p]
                for m in range(coef.shape[0]):
                    W[m, j] += coef[m] * v  # a class that did not move adds 0
            if bias_column >= 0:
                for m in range(coef.shape[0]):
                    W[m, bias_column] += coef[m] * bias

        return sparse
    if kind is LinearModel:
        def linear(model, i, coef):
            X, bias, bias_column = model.design
            W, common = model.W, model.common
            c0 = shared_value(coef) if common.shape[0] > 0 else 0.0
            for m in range(coef.shape[0]):
                c = coef[m] - c0
                if c != 0.0:
                    row_axpy(X, i, c, W[m])  # W += A(delta)' x_i
                    if bias_column >= 0:
                        W[m, bias_column] += c * bias
            if c0 != 0.0:  # the classes' shared move, by v -= c0 x_i (a dense row, as in the reads)
                for t in range(X.shape[1]):
                    common[t] -= c0 * X[i, t]
                if bias_column >= 0:
                    common[bias_column] -= c0 * bias

        return linear
    if kind is KernelModel:
        def kernel(model, i, coef):
            S, offset = model.S, model.offset
            column = get_row(model.rows, i)  # inlined: the view is this loop's, row_slot's call returns an int
            for t in range(S.shape[0]):
                kt = column[t] + offset
                for m in range(coef.shape[0]):
                    S[t, m] += coef[m] * kt  # S += (K[:, i] + B^2) A(delta)'

        return kernel
    if kind is BlockModel:
        def block(model, i, coef):
            K, ST, common = model.K, model.ST, model.common
            row = K[i]  # K symmetric: row i is column i
            c0 = shared_value(coef) if common.shape[0] > 0 else 0.0
            for m in range(coef.shape[0]):
                c = coef[m] - c0
                if c != 0.0:
                    scores = ST[m]
                    for u in range(row.shape[0]):
                        scores[u] += row[u] * c
            if c0 != 0.0:  # the classes' shared move: common -= c0 K[i]
                for u in range(row.shape[0]):
                    common[u] -= c0 * row[u]

        return block
    return None


@njit(cache=True, fastmath=FASTMATH, inline="always")
def visit(code, s, a, y, q, C, params, rest, look, buffers, picture):
    """The block kernel of code ``code`` (its index in :data:`KERNELS`) on one sample: the row kernels'
    ``block`` (:mod:`svmteach.losses.row_kernels`), returning ``(violation, moves)``."""
    violation, moves = np.nan, 0
    c = 0
    for block in literal_unroll(BLOCKS):
        if c == code:
            violation, moves = block(s, a, y, q, C, params, rest, look, buffers, picture)
        c += 1
    return violation, moves


@njit(cache=True, fastmath=FASTMATH, inline="always")
def weight_change(code, new, old, params, out):
    """``out`` (k,) = :math:`A(\\delta)` for δ = new - old by the row kernels of code ``code``: W moves by
    ``out x_i'``."""
    c = 0
    for coef in literal_unroll(COEFS):
        if c == code:
            coef(new, old, params, out)
        c += 1


@njit(cache=True, fastmath=FASTMATH)
def targets(code, S, alpha, codes, sqnorm, C_i, params, out):
    """Every sample's block solved exactly as if alone against the scores ``S`` (n, k) of one model, in ``out``
    (n, k) from ``alpha``: the parallel solver's targets, by the same row kernel a sequential visit runs (nothing
    set aside).  One core (numba's ``parallel=True`` compiled these inlined kernels for 143 s and then ran them
    serially: their several returns leave a prange loop serial)."""
    n, k = alpha.shape
    buffers = scratch(k, 0)
    look = np.empty(k, dtype=np.bool_)
    s = np.empty(k)
    no_picture = np.empty((0, k))
    for i in range(n):
        look[:] = True
        s[:] = S[i]
        out[i] = alpha[i]
        visit(code, s, out[i], codes[i], sqnorm[i], C_i[i], params, (np.inf, False, False), look, buffers,
              no_picture)


@njit(cache=True, fastmath=FASTMATH)
def violations(code, S, alpha, codes, sqnorm, C_i, params, out):
    """``out`` (n,) = every sample's block KKT violation against the scores ``S`` (n, k), as the block step of
    kernel ``code`` measures it before stepping (on a copy of each row: nothing is stepped or set aside)."""
    n, k = alpha.shape
    buffers = scratch(k, 0)
    look = np.empty(k, dtype=np.bool_)
    s = np.empty(k)
    a = np.empty(k)
    no_picture = np.empty((0, k))
    for i in range(n):
        look[:] = True
        s[:] = S[i]
        a[:] = alpha[i]
        out[i], _ = visit(code, s, a, codes[i], sqnorm[i], C_i[i], params, (np.inf, False, False), look, buffers,
                          no_picture)


@njit(cache=True, fastmath=FASTMATH)
def subproblem(code, K, S, alpha, samples, params, fraction, max_epochs, centred, change):
    """The dual restricted to a working set of b samples: :func:`epoch` over them in index order on their
    :class:`BlockModel` (``K`` (b, b) their kernel matrix with :math:`B^2`, ``S`` (b, k) their scores), in place on
    ``alpha`` (b, k) and ``S``, until an epoch's largest block violation is at most ``fraction`` times the first's,
    or after ``max_epochs``.  ``samples`` (:class:`Samples`) are the set's; ``centred``: the loss's
    :math:`A(\\alpha)` rows sum to 0 (the model keeps a ``common`` row, :class:`BlockModel`); ``change`` (b, k) receives
    :math:`A(\\alpha_{new}) - A(\\alpha_{old})`, by which the caller moves every other score.
    Returns ``(visits, epochs, start, end)``: the block visits, the epochs, the first and the last epoch's largest
    violation (each block's before its step)."""
    b, k = alpha.shape
    old = alpha.copy()
    model = BlockModel(K=K, ST=np.ascontiguousarray(S.T), common=np.zeros(b if centred else 0))
    order = np.arange(b)
    no_active, no_classes = np.zeros(0, dtype=np.bool_), np.zeros((0, 0), dtype=np.bool_)
    no_picture, no_record = np.empty((0, k)), np.empty((0, k + 3))
    no_preference, no_levels = np.empty(0), np.empty(5)
    start = end = 0.0
    epochs = 0
    while epochs < max_epochs:
        worst, _ = epoch(code, model, samples, params, alpha, order, no_active, np.inf, no_classes, no_picture,
                         no_record, no_preference, no_levels)
        if epochs == 0:
            start = worst
        end = worst
        epochs += 1
        if worst <= fraction * start:
            break
    S[:] = model.ST.T
    if centred:
        for t in range(b):
            for m in range(k):
                S[t, m] -= model.common[t]
    coef = np.empty(k)
    for t in range(b):
        weight_change(code, alpha[t], old[t], params, coef)
        change[t] = coef
    return b * epochs, epochs, start, end


class Drivers(NamedTuple):
    """The compiled drivers for one loss's row kernels: ``code`` the kernels' code there, ``epochs`` the fast
    path's epochs (:func:`epochs`), ``targets`` the parallel solver's (:func:`targets`), ``violations`` every
    sample's block violation (:func:`violations`), ``subproblem`` the working-set solver's (:func:`subproblem`),
    ``kernels`` the row kernels themselves (a step calls them directly)."""

    code: int
    epochs: object
    targets: object
    violations: object
    subproblem: object
    kernels: object


#: This module's compiled functions that reach the row kernels (:data:`BLOCKS`, :data:`COEFS`), each after the ones it
#: calls: what :func:`drivers` copies for a loss from outside the package (tests/test_outside_row_kernels.py derives
#: the set from the functions' code).
REACH_KERNELS = ("visit", "weight_change", "epoch_visits", "epoch", "epochs", "targets", "violations", "subproblem")

#: The drivers compiled for kernels from outside the package (:func:`drivers`), by their kernels.
_OUTSIDE: dict = {}


def drivers(kernels) -> Drivers:
    """The compiled drivers that run ``kernels`` (a :class:`~svmteach.losses.row_kernels.RowKernels`): this module's
    (cached on disk) for the package's, or, for a loss from outside the package, copies of :func:`epochs` and
    :func:`targets` compiled in this process for its kernels alone (the on-disk cache keys a function by its file, which a run-time
    registry is not part of; compiled once a process)."""
    if kernels in KERNELS:
        return Drivers(code=KERNELS.index(kernels), epochs=epochs, targets=targets, violations=violations,
                       subproblem=subproblem, kernels=kernels)
    if kernels not in _OUTSIDE:
        namespace = dict(globals(), BLOCKS=(kernels.block,), COEFS=(kernels.coef,))
        for name in REACH_KERNELS:
            dispatcher = globals()[name]
            py = dispatcher.py_func
            copy = types.FunctionType(py.__code__, namespace, name, py.__defaults__, py.__closure__)
            # with numba's runtime: an outside loss's kernels may use it (a slice assignment), where the package's do not
            namespace[name] = njit(**{**dispatcher.targetoptions, "_nrt": True})(copy)
        compiled = {name: namespace[name] for name in ("epochs", "targets", "violations", "subproblem")}
        _OUTSIDE[kernels] = Drivers(code=0, kernels=kernels, **compiled)
    return _OUTSIDE[kernels]
