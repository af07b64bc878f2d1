"""Multiclass block coordinate ascent, compiled: one epoch driver and every block kernel it runs.

The driver :func:`epoch` is written once for every multiclass loss (Shark's ``QpMcLinear`` skeleton) and
both models (the weights W, or a kernel problem's training scores S): for each sample i of an order it reads
the scores :math:`s = W x_i` (or :math:`S_{i:}`) of the classes it looks at,
asks the block kernel (:func:`visit`, dispatching on the loss's ``kernel`` code) for the new block
:math:`\\alpha_i`, its KKT violation before the step and whether the sample is at rest, and moves
:math:`W` by :math:`A(\\delta)^\\top x_i` (or S by a kernel column) (:func:`weight_change`) for the change δ of
:math:`\\alpha_i`.
Shrinking (samples at rest set aside in ``active``; classes set aside within a block in ``classes``,
taken back once off their bound) is decided here and in the kernels, and the step path
(:meth:`~svmteach.solvers.multiclass_base.MulticlassSolver.update`) calls the same :func:`visit` and
:func:`weight_change` on one row, with the picture buffers the driver fills only for a call's last visit
(the state's picture).

Every compiled function of the family lives in this one file.  The kernels are inlined into the
driver (``inline="always"``): called as functions they cost a fixed overhead a sample.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# EPS: a block whose curvature is below EPS times its linear term is solved as linear; AT_C: a
# Crammer-Singer label entry within that fraction of its bound is at it (svmteach.compiled_cache
# recompiles this file when those change)
from ..losses.base import EPS
from ..losses.crammer_singer import AT_C
from ..rows import row_axpy, row_dot
from .numba_dual_cd import shuffle_prefix
from .numba_kernel_rows import get_row

#: The block kernels (a loss's or a solver's ``kernel``).
WW, CS, LLW, SHARK = 0, 1, 2, 3
#: A loss's ``kernel`` name -> its code.
KERNELS = {"ww": WW, "cs": CS, "llw": LLW, "shark": SHARK}
#: The compiled loops may reassociate and fuse sums (NaN and infinity keep their meaning).
FASTMATH = {"reassoc", "contract"}


@njit(cache=True, fastmath=FASTMATH)
def epochs(code, X, rows, offset, sqnorm, codes, C_i, M, tol, max_inner, alpha, W, perm, active, classes, seed,
           floor, n_steps, epoch_no, pos, plen, reactivate_at, sweep, rest_margin, picture, record, old):
    """Up to ``n_steps`` >= 1 sample visits of the run's epochs, in place, the last with its picture: the step
    path's ``picture`` (3, k) and ``record`` buffers (:func:`visit`) receive its numbers and ``old`` (k,) its row
    before the step; every epoch boundary met is crossed here (:func:`next_epoch`), so a run of many short
    shrunk epochs costs one call.  ``perm`` (n,) holds the current epoch's order in its first ``plen``
    entries, ``pos`` the next position; ``active`` (n,) (empty: no shrinking) and ``classes`` are the run's
    working copies.  As the step path's epochs (:mod:`svmteach.solvers.multiclass_base`): with shrinking the
    call ends in an epoch over all samples, at the latest at its end.

    Returns ``(visits, violation, epoch_no, pos, plen, reactivate_at, sweep, rest_margin, i, last_violation,
    moves)``: ``violation`` the largest block violation of the call's visits (+inf once a shrunk epoch was run),
    ``sweep`` the current epoch's; ``i``, ``last_violation`` and ``moves`` the last visit's sample and
    :func:`visit`'s answer.
    """
    n, k = alpha.shape
    shrinking = active.shape[0] > 0
    visits = 0
    violation = np.nan
    no_picture, no_record = np.empty((0, k)), np.empty((0, record.shape[1]))
    while True:
        if pos == plen:  # a new epoch: LIBLINEAR's rule with shrinking
            epoch_no += 1
            plen, reactivate_at, rest_margin = next_epoch(perm, active, classes, seed, epoch_no, sweep,
                                                         reactivate_at, floor)
            sweep = np.nan
            pos = 0
        left = plen - pos
        full = plen == n
        last = n_steps - visits <= left or (shrinking and full)  # the call ends in this epoch
        take = min(n_steps - visits, left) - 1 if last else left
        if take > 0:
            met, _ = epoch(code, X, rows, offset, sqnorm, codes, C_i, M, tol, max_inner, alpha, W,
                           perm[pos : pos + take], active, rest_margin, classes, no_picture, no_record)
            violation = met if np.isnan(violation) else max(violation, met)
            sweep = met if np.isnan(sweep) else max(sweep, met)
            pos += take
            visits += take
        if not full:
            violation = np.inf  # a shrunk epoch says nothing of the samples it left aside
        if last:  # the last visit, drawn
            i = perm[pos]
            old[:] = alpha[i]
            met, moves = epoch(code, X, rows, offset, sqnorm, codes, C_i, M, tol, max_inner, alpha, W,
                               perm[pos : pos + 1], active, rest_margin, classes, picture, record)
            sweep = met if np.isnan(sweep) else max(sweep, met)
            violation = met if np.isnan(violation) else max(violation, met)
            return visits + 1, violation, epoch_no, pos + 1, plen, reactivate_at, sweep, rest_margin, i, met, moves


@njit(cache=True)
def next_epoch(perm, active, classes, seed, epoch_no, sweep, reactivate_at, floor):
    """Begin epoch ``epoch_no`` after one whose largest block violation was ``sweep`` (NaN: none measured),
    in place on ``perm`` (n,) (its order, in the first ``plen`` entries), ``active`` and ``classes``.
    Returns ``(plen, reactivate_at, rest_margin)``.

    With shrinking (``active`` (n,), else empty: every sample, always), the epoch is over the active samples,
    or over all of them with ``reactivate_at`` halved (not below ``floor``) when the last one's violation was
    below ``reactivate_at``, none was measured, or none is active; an epoch over all samples has every class
    active again.  The slack ``rest_margin`` is the last epoch's violation (+inf after none).
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
    return plen, reactivate_at, (np.inf if np.isnan(sweep) else sweep)


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
def epoch(code, design, rows, offset, sqnorm, codes, C_i, M, tol, max_inner, alpha, W, order, active, margin, classes,
          picture, record):
    """The block step of kernel ``code`` for every sample of ``order``, in place on ``alpha`` (n, k) and the model
    ``W``; returns ``(violation, moves)``: the largest block KKT violation met, each block's before its step (0.0
    for an empty order), and :func:`visit`'s ``moves`` of the last sample (0 for an empty order).  Non-empty
    ``picture`` and ``record`` (:func:`visit`) receive the visits' numbers (the fast path's last visit: one
    sample), its scores then computed over every class.

    The model (:mod:`svmteach.multiclass_model`): on a linear problem the weights W (k, d; only its rows are read),
    sample i's scores :math:`W x_i` from the row of ``design`` (X dense or CSR, and its bias column, never stored:
    :class:`~svmteach.rows.CompiledDesign`) and a step's move :math:`W \\mathrel{+}=
    A(\\delta)^\\top x_i`; on a kernel problem (``rows`` the run's KernelRowCache, not empty) the training scores
    S = K A (n, k), sample i's scores the row S[i] and a step's move :math:`S \\mathrel{+}= (K_{:i} + B^2)\\,
    A(\\delta)^\\top` (``offset`` :math:`B^2`; K symmetric, its column read as row i from the cache).
    Sample i's bound is ``C_i[i]``, its curvature ``sqnorm[i]`` (:math:`\\|x_i\\|^2`, or :math:`K_{ii} + B^2`);
    ``M`` the Weston-Watkins margin scale, ``tol`` the kernel's tolerance
    (Crammer-Singer's ``skip_tol``, Shark's ``inner_tol``), ``max_inner`` Shark's most moves a visit.
    A non-empty ``active`` (n,) has the samples found at rest (slack ``margin``) set aside (False); a
    non-empty ``classes`` (n, k) has the classes a kernel sets aside within a block set False there.
    """
    k = alpha.shape[1]
    kernel = rows.buffer.shape[0] > 0
    X, bias, bias_column = design  # a CompiledDesign's fields (rows.compiled_rows), unpacked once
    s = np.zeros(k)
    a = np.empty(k)
    coef = np.empty(k)
    every = np.ones(k, dtype=np.bool_)
    work, iwork = visit_scratch(k)
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
            if kernel:
                s[m] = W[i, m]
            elif look[m] or drawn:
                s[m] = row_dot(X, i, W[m])  # s = W x_i over the classes looked at (a picture shows every class)
                if bias_column >= 0:
                    s[m] += bias * W[m, bias_column]  # the bias column's term, last (as a stored [X, B 1] sums it)
        violation, moves = visit(code, s, a, codes[i], sqnorm[i], C_i[i], M, tol, max_inner, margin, shrink,
                                 look, shrink_classes, work, iwork, picture, record)
        worst = max(worst, violation)
        if moves < 0:
            active[i] = False
        if moves <= 0:
            continue
        weight_change(code, a, alpha[i], M, coef)
        still = True
        for m in range(k):
            alpha[i, m] = a[m]
            still = still and coef[m] == 0.0
        if still:
            continue  # A(alpha) did not change (a Lee-Lin-Wahba visit often solves to its own row): the model stays
        if kernel:
            column = get_row(rows, i)
            for t in range(W.shape[0]):
                kt = column[t] + offset
                for m in range(k):
                    W[t, m] += coef[m] * kt  # S += (K[:, i] + B^2) A(delta)'
        else:
            for m in range(k):
                if coef[m] != 0.0:
                    row_axpy(X, i, coef[m], W[m])  # W += A(delta)' x_i
                    if bias_column >= 0:
                        W[m, bias_column] += coef[m] * bias
    return worst, moves


@njit(cache=True)
def visit_scratch(k):
    """``(work, iwork)``: the (5, 2k) float64 and (3k,) int64 scratch that :func:`visit` takes for k classes
    (their sizes written once: every caller allocates them here)."""
    return np.empty((5, 2 * k)), np.empty(3 * k, dtype=np.int64)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def visit(code, s, a, y, q, C, M, tol, max_inner, margin, shrink, look, shrink_classes, work, iwork, picture,
          record):
    """One sample's block: ``a`` (k,) its row, replaced by the new one; ``s`` its scores (read where
    ``look``), ``y`` its class, ``q`` its squared norm, ``C`` its bound.  Returns ``(violation, moves)``:
    the block's KKT violation before the step and -1 (at rest: set aside when ``shrink``, row unchanged),
    0 (no step) or the number of moves made (1 for an exact block).  ``work`` (5, 2k) and ``iwork``
    (3k,) are scratch; a non-empty ``picture`` (3, k) receives the step's numbers (see each kernel),
    a non-empty ``record`` (max_inner, k + 3) Shark's moves."""
    if code == WW:
        return ww_block(s, a, y, q, C, M, margin, shrink, look, shrink_classes, work, iwork, picture)
    if code == CS:
        return cs_block(s, a, y, q, C, tol, margin, shrink, look, shrink_classes, work, iwork, picture)
    if code == LLW:
        return llw_block(s, a, y, q, C, margin, shrink, look, shrink_classes, work, iwork, picture)
    return shark_block(s, a, y, q, C, M, tol, max_inner, margin, shrink, look, work, picture, record)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def weight_change(code, new, old, M, coef):
    """``coef`` (k,) = :math:`A(\\delta)` for δ = new - old: W moves by ``coef x_i'``."""
    k = new.shape[0]
    shift = 0.0
    for m in range(k):
        shift += new[m] - old[m]
    shift /= k
    for m in range(k):
        d = new[m] - old[m]
        if code == CS:
            coef[m] = d  # W = alpha' X
        elif code == LLW:
            coef[m] = -(d - shift)  # w_m = -sum_i (alpha_im - mean_m alpha_i) x_i
        else:
            coef[m] = -(M * d)  # Weston-Watkins: W = -M alpha' X


@njit(cache=True, inline="always")
def box_violation(g, a, C):
    """The KKT violation of one variable ``a`` in [0, C] with gradient ``g`` of the minimised dual: its
    projected gradient's size, ``max(-g, 0)`` at 0, ``max(g, 0)`` at C, ``|g|`` inside, 0 in a box {0}."""
    if a <= 0.0:
        return max(-g, 0.0) if C > 0.0 else 0.0
    if a >= C:
        return max(g, 0.0)
    return abs(g)


@njit(cache=True, inline="always")
def at_rest(g, a, y, sign, margin, C, look, upper):
    """Whether a box-constrained off-label block (Weston-Watkins, Lee-Lin-Wahba, Shark's moves; ``sign``
    -1 when ``g`` is the negative gradient) is at rest: every entry :math:`\\alpha_{im}`, :math:`m \\ne y`, at
    a bound and pushed into it by more than the slack ``margin``, :math:`\\partial f / \\partial \\alpha_{im} =
    \\text{sign}\\, g_m > \\mu` at 0 (a class set aside, not ``look``, was found so when it was), :math:`< -\\mu`
    at C: the block's KKT conditions hold with room to spare, so no step can move it until the scores have
    moved by the slack (LIBSVM's and LIBLINEAR's shrinking rule, both bounds); with ``C`` = 0 as soon as
    :math:`\\alpha_i = 0` (its block is {0}).  ``upper`` False: at 0 only (Lee-Lin-Wahba, whose blocks the
    row's mean couples: resting at C cost it visits, ``benchmarks/RESULTS.md``)."""
    for m in range(g.shape[0]):
        if C <= 0.0:
            if a[m] != 0.0:
                return False
        elif m != y:
            if a[m] == 0.0:
                if look[m] and not sign * g[m] > margin:
                    return False
            elif not (upper and a[m] >= C and sign * g[m] < -margin):
                return False
    return True


# ---- the block kernels ------------------------------------------------------------------------------


@njit(cache=True, fastmath=FASTMATH, inline="always")
def off_label_free(a, y, C, grad, margin, shrink_classes, look, free):
    """What the Weston-Watkins and Lee-Lin-Wahba blocks share before they solve, given ``grad`` (the
    gradient :math:`\\partial f / \\partial \\alpha_{im}` of each off-label class looked at): the classes the
    block moves, into ``free``; returns ``(violation, nf)``, the largest KKT violation of the classes looked
    at and how many are free.

    **Class shrinking** (``shrink_classes``): an off-label class at its bound 0 whose gradient exceeds the
    slack ``margin`` (pushed into its bound with room to spare, what :func:`at_rest` asks of every class of a
    sample) is set aside in ``look`` and held at 0, the block solved exactly over the others; with
    ``margin`` = +inf none is.  An epoch over all samples looks at every class again."""
    violation = 0.0
    nf = 0
    for j in range(a.shape[0]):
        if j != y and look[j]:
            violation = max(violation, box_violation(grad[j], a[j], C))
            if shrink_classes and a[j] == 0.0 and grad[j] > margin:
                look[j] = False  # at its bound 0, pushed into it by more than the slack: set aside
            else:
                free[nf] = j
                nf += 1
    return violation, nf


@njit(cache=True, fastmath=FASTMATH, inline="always")
def draw_start(picture, a, y, grad, curvature, shift, curved):
    """The picture's rows of a Weston-Watkins or Lee-Lin-Wahba block before its step, over the off-label
    positions: the gradient, :math:`u = c / \\text{curvature}` (``c`` itself for a linear block) with
    :math:`c_j = -\\partial f / \\partial \\alpha_{ij} + \\text{curvature}\\,(\\alpha_{ij} - \\text{shift})`, and beta
    (the entries as they are; :func:`draw_end` writes the free classes' new ones)."""
    picture[0, :] = grad
    for j in range(a.shape[0]):
        if j != y:
            p = j if j < y else j - 1
            c = -grad[j] + curvature * (a[j] - shift)
            picture[1, p] = c / curvature if curved else c
            picture[2, p] = a[j]


@njit(cache=True, inline="always")
def draw_end(picture, y, free, nf, beta):
    """The new entries ``beta`` (nf,) of the ``free`` classes into the picture's beta row."""
    for t in range(nf):
        picture[2, free[t] if free[t] < y else free[t] - 1] = beta[t]


@njit(cache=True, fastmath=FASTMATH, inline="always")
def linear_block(c, C, beta):
    """A block whose curvature is lost in the rounding: each entry at the bound its :math:`c_j` points to."""
    for p in range(beta.shape[0]):
        beta[p] = C if c[p] > 0 else (0.0 if c[p] < 0 else beta[p])


@njit(cache=True, fastmath=FASTMATH, inline="always")
def ww_block(s, a, y, q, C, M, margin, shrink, look, shrink_classes, work, iwork, picture):
    """The exact Weston-Watkins block (:mod:`svmteach.losses.weston_watkins`) over its free classes
    (:func:`off_label_free`): with :math:`a_q = M^2 q` and :math:`c_j = 1 - M (s_y - s_j) + a_q (\\alpha_{ij} -
    \\alpha_{iy})`, the block is :func:`ww_block_row` at :math:`u = c / a_q`, or linear (each entry at the bound
    its :math:`c_j` points to) when the curvature is below the rounding of c.  ``s`` is read where ``look``
    (every class when a picture is asked for).  Picture: the gradient, u, beta."""
    k = s.shape[0]
    grad, c, u, beta = work[0, :k], work[1, : k - 1], work[2, : k - 1], work[3, : k - 1]
    free = iwork[2 * k : 3 * k]
    aq = M * M * q
    drawn = picture.shape[0] > 0
    for j in range(k):
        grad[j] = M * (s[y] - s[j]) - 1.0 if j != y and (look[j] or drawn) else 0.0  # d f / d alpha_ij
    violation, nf = off_label_free(a, y, C, grad, margin, shrink_classes, look, free)
    cmax = 0.0
    for t in range(nf):
        j = free[t]
        c[t] = -grad[j] + aq * (a[j] - a[y])
        cmax = max(cmax, abs(c[t]))
        beta[t] = a[j]
    curved = aq * k * C > EPS * cmax  # the quadratic term above the rounding of c
    for t in range(nf):
        u[t] = c[t] / aq if curved else c[t]
    if drawn:
        draw_start(picture, a, y, grad, aq, a[y], curved)
    rest = shrink and at_rest(grad, a, y, 1.0, margin, C, look, True)
    if rest or violation == 0.0:  # set aside, or every projected gradient 0 (the block at its optimum): no step
        return violation, -1 if rest else 0
    if curved:
        ww_block_row(u[:nf], C, beta[:nf], work[4, : 2 * nf], iwork[: 2 * nf])
    else:
        linear_block(c[:nf], C, beta[:nf])
    for t in range(nf):
        a[free[t]] = beta[t]
    total = 0.0
    for j in range(k):
        if j != y:
            total += a[j]
    a[y] = -total  # alpha_{i y_i} = -1'beta
    if drawn:
        draw_end(picture, y, free, nf, beta)
    return violation, 1


@njit(cache=True, fastmath=FASTMATH, inline="always")
def llw_block(s, a, y, q, C, margin, shrink, look, shrink_classes, work, iwork, picture):
    """The exact Lee-Lin-Wahba block (:mod:`svmteach.losses.lee_lin_wahba`) over its free classes
    (:func:`off_label_free`): with :math:`c_m = 1 + s_m + q (\\alpha_{im} - \\mathbf 1^\\top \\alpha_i / k)`,
    :func:`llw_block_row` at :math:`u = c / q`, or linear when the curvature is below the rounding of c
    (a class held at 0 adds nothing to :math:`\\mathbf 1^\\top \\alpha_i`: the free classes' block has the same
    form).  ``s`` is read where ``look`` (every class when a picture is asked for).  Picture: the gradient,
    u, beta."""
    k = s.shape[0]
    grad, c, u, beta = work[0, :k], work[1, : k - 1], work[2, : k - 1], work[3, : k - 1]
    free = iwork[2 * k : 3 * k]
    drawn = picture.shape[0] > 0
    total = 0.0
    for m in range(k):
        total += a[m]
        grad[m] = -(1.0 + s[m]) if m != y and (look[m] or drawn) else 0.0  # d f / d alpha_im
    violation, nf = off_label_free(a, y, C, grad, margin, shrink_classes, look, free)
    cmax = 0.0
    for t in range(nf):
        m = free[t]
        c[t] = -grad[m] + q * (a[m] - total / k)
        cmax = max(cmax, abs(c[t]))
        beta[t] = a[m]
    curved = q * k * C > EPS * cmax  # the quadratic term above the rounding of c
    for t in range(nf):
        u[t] = c[t] / q if curved else c[t]
    if drawn:
        draw_start(picture, a, y, grad, q, total / k, curved)
    if shrink and at_rest(grad, a, y, 1.0, margin, C, look, False):
        return violation, -1
    if curved:
        llw_block_row(u[:nf], C, k, beta[:nf], work[4, : 2 * nf + 2])
    else:
        linear_block(c[:nf], C, beta[:nf])
    for t in range(nf):
        a[free[t]] = beta[t]
    if drawn:
        draw_end(picture, y, free, nf, beta)
    return violation, 1


@njit(cache=True, fastmath=FASTMATH, inline="always")
def cs_block(s, a, y, q, C, skip_tol, margin, shrink, look, shrink_classes, work, iwork, picture):
    """Blondel's Crammer-Singer block (:mod:`svmteach.losses.crammer_singer`) over the classes looked at:
    skipped when :math:`v_i \\le` ``skip_tol``; else :math:`\\alpha_i = u_i - C p / \\mathbf 1^\\top p` with
    p the unit-simplex projection of :math:`\\hat\\beta / z`, :math:`\\hat\\beta = q (u_i - \\alpha_i) + g_i`,
    z = C q (C shared by the largest entries of :math:`\\hat\\beta` when z is below its rounding).

    With ``shrink_classes`` a class at its bound 0 whose gradient is below every free class's is set
    aside in ``look`` (never the label); with ``margin`` = +inf none is.  A skipped sample is at rest when
    :math:`\\alpha_i = 0` and every :math:`s_y - s_m > 1 + \\mu` over the classes looked at.
    Picture: g over every class, :math:`\\hat\\beta` and the share :math:`p / \\mathbf 1^\\top p` (0 off the
    classes kept)."""
    k = s.shape[0]
    g, beta_hat, beta, scaled = work[0, :k], work[1, :k], work[2, :k], work[3, :k]
    looked, keep = iwork[:k], iwork[k : 2 * k]
    class_margin = 0.0 if margin < np.inf else np.inf
    na = 0
    gmax = -np.inf
    gmin = np.inf
    for m in range(k):
        if look[m]:
            looked[na] = m
            na += 1
            g[m] = s[m] + (0.0 if m == y else 1.0)  # g_i^m = w_m' x_i + [m != y_i]
            gmax = max(gmax, g[m])
            if a[m] < (C * (1.0 - AT_C) if m == y else 0.0):
                gmin = min(gmin, g[m])  # over the free classes
    violation = gmax - gmin
    nb = 0
    for t in range(na):
        m = looked[t]
        if shrink_classes and m != y and a[m] == 0.0 and g[m] < gmin - class_margin:
            look[m] = False  # at its bound 0, below every free class: set aside
        else:
            keep[nb] = m
            nb += 1
    # the label at its bound C, below every free class, with one other class kept: the sum fixes that one too
    fixed = shrink and shrink_classes and nb == 2 and a[y] >= C * (1.0 - AT_C) and g[y] < gmin - class_margin
    moves = 0
    if fixed:
        moves = -1  # LIBLINEAR's rule: at most one class of the sample can move, so none can
    elif violation <= skip_tol or nb <= 1:  # nothing to move (one class kept: its entry is fixed)
        if shrink:
            rest = True
            for m in range(k):
                if a[m] != 0.0:
                    rest = False
            for t in range(na):
                m = looked[t]
                if rest and C > 0.0 and m != y and not g[y] - g[m] > margin:
                    rest = False
            if rest:
                moves = -1
    else:
        moves = 1
        z = C * q
        hmax = 0.0
        for t in range(nb):
            m = keep[t]
            beta_hat[t] = q * ((C if m == y else 0.0) - a[m]) + g[m]
            hmax = max(hmax, abs(beta_hat[t]))
        if z > EPS * hmax:  # proj(beta_hat, z) = z proj(beta_hat / z, 1), which keeps a subnormal z's bits
            for t in range(nb):
                scaled[t] = beta_hat[t] / z
            project_simplex_row(scaled[:nb], 1.0, beta[:nb])
        else:  # the linear block: C shared by the largest entries of beta_hat
            top = beta_hat[:nb].max()
            for t in range(nb):
                beta[t] = 1.0 if beta_hat[t] == top else 0.0
        mass = 0.0
        for t in range(nb):
            mass += beta[t]
        rest_sum = 0.0
        for t in range(nb):
            if keep[t] != y:
                rest_sum += C * (beta[t] / mass)
        for t in range(nb):  # alpha_i = u_i - C p / 1'p, the label entry from the others (the row sums to 0)
            m = keep[t]
            a[m] = min(rest_sum, C) if m == y else -C * (beta[t] / mass)
    if picture.shape[0] > 0:
        for m in range(k):
            picture[0, m] = s[m] + (0.0 if m == y else 1.0)
            picture[1, m] = q * ((C if m == y else 0.0) - a[m]) + picture[0, m]
            picture[2, m] = 0.0
        if moves > 0:
            for t in range(nb):
                picture[1, keep[t]] = beta_hat[t]
                picture[2, keep[t]] = beta[t] / mass
    return violation, moves


@njit(cache=True, fastmath=FASTMATH, inline="always")
def shark_block(s, a, y, q, C, M, inner_tol, max_inner, margin, shrink, look, work, picture, record):
    """Shark's greedy coordinate moves on the Weston-Watkins block (:mod:`svmteach.solvers.ww_shark`),
    :func:`shark_inner` from the negative gradient :math:`1 - M (s_y - s_m)`.  Picture: that gradient."""
    k = s.shape[0]
    g = work[0, :k]
    violation = 0.0
    for m in range(k):
        g[m] = 1.0 - M * (s[y] - s[m])  # the negative gradient -d f / d alpha_im
        if m != y:
            violation = max(violation, box_violation(-g[m], a[m], C))
    g[y] = 0.0
    if picture.shape[0] > 0:
        picture[0, :] = g
    if shrink and at_rest(g, a, y, -1.0, margin, C, look, True):
        return violation, -1
    moves = shark_inner(g, a, y, q, M, C, max_inner, inner_tol, record)
    total = 0.0
    for m in range(k):
        if m != y:
            total += a[m]
    a[y] = -total  # alpha_{i y_i} = -1'beta from the entries themselves, not the moves' running sum: a row
    # whose entries all came back to 0 is exactly 0 (at rest), whatever rounding the moves left
    return violation, moves


@njit(cache=True)
def shark_inner(g, a_i, y, q, M, C, max_inner, inner_tol, record):
    """Shark's inner loop on one sample, in place on ``g`` (negative gradient) and ``a_i``, in the box
    [0, ``C``]: the coordinate of largest KKT violation is moved to its greedy step, clipped, until the
    largest violation is below ``inner_tol`` or ``max_inner`` moves were made.

    Returns the number of moves; when ``record`` is a (max_inner, k + 3) array each
    row holds the move's j, m unclipped, m, then the gradient after it.
    """
    k = g.shape[0]
    curv = 2.0 * M * M * q  # d^2 f / d m^2 along (e_j - e_y)
    for it in range(max_inner):
        idx = -1
        kkt = 0.0
        for c in range(k):
            if c == y:
                continue
            if g[c] > kkt and a_i[c] < C:
                kkt = g[c]
                idx = c
            elif -g[c] > kkt and a_i[c] > 0.0:
                kkt = -g[c]
                idx = c
        if idx < 0 or kkt < inner_tol:
            return it
        if curv > 0.0:
            m_unc = g[idx] / curv
        else:  # zero row: the dual is linear along the move, go to the bound
            m_unc = np.inf if g[idx] > 0 else -np.inf
        m = m_unc
        a_new = a_i[idx] + m
        if a_new <= 0.0:
            m = -a_i[idx]
            a_new = 0.0
        elif a_new >= C:
            m = C - a_i[idx]
            a_new = C
        a_i[idx] = a_new
        a_i[y] -= m
        dg = M * M * m * q
        for c in range(k):
            if c != y:
                g[c] -= dg
        g[idx] -= dg
        if record.shape[0] > 0:
            record[it, 0] = idx
            record[it, 1] = m_unc
            record[it, 2] = m
            for c in range(k):
                record[it, 3 + c] = g[c]
    return max_inner


# ---- the exact row solutions ------------------------------------------------------------------------


@njit(cache=True)
def project_simplex_row(v, z, out):
    """One row of :func:`~svmteach.projections.project_simplex_sort`: writes the projection of ``v`` onto
    the simplex of mass ``z`` into ``out`` (no checks: finite rows, z > 0; shifted by the row's maximum)."""
    top = v.max()
    u = -np.sort(-(v - top))
    css = 0.0
    theta = -z  # the support's first entry, u_0 = 0: theta = (0 - z) / 1
    for j in range(u.shape[0]):
        css += u[j]
        t = (css - z) / (j + 1)
        if u[j] - t > 0:
            theta = t
    for j in range(v.shape[0]):
        out[j] = max((v[j] - top) - theta, 0.0)


@njit(cache=True)
def ww_block_row(u, C, out, points, order):
    """Solve ``min 1/2|b|^2 + 1/2(1'b)^2 - u'b`` on ``[0, C]^m`` for one row (as
    :func:`~svmteach.projections.ww_block_solve`); returns t = 1'b.

    ``points`` (2m floats) and ``order`` (2m ints) are work space.  The sweep: below every breakpoint all
    coordinates sit at C; passing :math:`u_j - C` frees coordinate j, passing :math:`u_j` sends it to 0.  On
    each piece :math:`\\psi(t) = t - (n_C C + \\sum_{free} u_j - n_{free} t)`; the first breakpoint where psi
    is non-negative closes the piece that holds the root.
    """
    m = u.shape[0]
    for j in range(m):
        points[j] = u[j] - C  # coordinate j leaves C
        points[m + j] = u[j]  # coordinate j reaches 0
    _argsort_small(points, order)
    n_C = m
    n_free = 0
    s_free = 0.0
    found = False
    for q in order:
        b = points[q]
        if b - (n_C * C + s_free - n_free * b) >= 0.0:
            found = True
            break
        j = q % m
        if q < m:  # leaves C, becomes free
            n_C -= 1
            n_free += 1
            s_free += u[j]
        else:  # free coordinate reaches 0
            n_free -= 1
            s_free -= u[j]
    # root of t = n_C C + s_free - n_free t on the piece found (or past every breakpoint: t = 0)
    t = (n_C * C + s_free) / (1.0 + n_free) if found else 0.0
    total = 0.0
    for j in range(m):
        out[j] = min(max(u[j] - t, 0.0), C)
        total += out[j]
    return total


@njit(cache=True)
def _argsort_small(values, order):
    """Stable argsort into ``order``: insertion sort for the few breakpoints of a block, else mergesort."""
    n = values.shape[0]
    if n > 64:
        order[:] = np.argsort(values, kind="mergesort")
        return
    for a in range(n):
        order[a] = a
    for a in range(1, n):
        key = order[a]
        v = values[key]
        b = a - 1
        while b >= 0 and values[order[b]] > v:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = key


@njit(cache=True)
def llw_block_row(u, C, k, out, points):
    """The Lee-Lin-Wahba block ``clip(u + T / k, 0, C)`` at the root T of
    :math:`\\varphi(T) = \\sum_m \\operatorname{clip}(u_m + T/k, 0, C) - T` (as
    :func:`~svmteach.losses.lee_lin_wahba.solve_blocks`), in place on ``out``; ``points`` is scratch of
    length 2 len(u) + 2.  Solved in units of C (``u / C`` in the box [0, 1], T in [0, k - 1]): the interpolation's
    numbers are of the size of k at any scale of C (at C = 1e-300 its product underflowed to 0, at 1e300 it
    overflowed, and the caller's reassociation undid the guard), so the block moves."""
    p = u.shape[0]
    top = k - 1.0
    for m in range(p):
        v = u[m] / C
        points[2 * m] = min(max(-k * v, 0.0), top)
        points[2 * m + 1] = min(max(k * (1.0 - v), 0.0), top)
    points[2 * p] = 0.0
    points[2 * p + 1] = top
    points.sort()
    T0 = 0.0
    f0 = 0.0
    T = top
    for j in range(2 * p + 2):
        Tj = points[j]
        fj = -Tj  # phi(Tj) / C
        for m in range(p):
            fj += min(max(u[m] / C + Tj / k, 0.0), 1.0)
        if fj <= 0.0:
            T = Tj
            if j > 0 and f0 - fj > 0.0:
                T = T0 + f0 * (Tj - T0) / (f0 - fj)  # phi is linear on [T0, Tj]
            break
        T0 = Tj
        f0 = fj
    for m in range(p):
        out[m] = C * min(max(u[m] / C + T / k, 0.0), 1.0)
