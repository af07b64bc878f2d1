"""Primal and dual objectives, duality gap, margins and KKT conditions of the binary SVM.

All functions take the problem, ``alpha`` (n,) and optionally the scores ``f = K (alpha * y)`` (n,),
so that a solver with a cached gradient evaluates everything in O(n).

.. math::

    P(w, b) = \\tfrac12 \\|w\\|^2 + \\sum_i C_i \\max(0, 1 - y_i (f_i + b)), \\qquad
    D(\\alpha) = \\sum_i \\alpha_i - \\tfrac12 \\alpha^\\top Q \\alpha, \\quad 0 \\le \\alpha_i \\le C_i,

with :math:`w = \\sum_i \\alpha_i y_i \\phi(x_i)`, so :math:`\\|w\\|^2 = \\sum_i \\alpha_i y_i f_i`.  The bound
:math:`C_i = C w_i` (``problem.C_i``) may be 0: that sample's box is {0} and it has no KKT condition.
"""

from __future__ import annotations

import math

import numpy as np

from . import multiclass_model
from .backend import array_namespace, is_numpy, to_numpy
from .losses.base import EPS  # noqa: F401  (objectives.EPS, as the solvers and tests read it)
from .losses.base import one_hot, scores as multiclass_scores  # noqa: F401  (the course's names for them)
from .losses.base import row_kernels

#: KKT categories of a point (Rosasco's MIT 9.520 notes, 'Optimality conditions'), C being C_i:
#: alpha = 0 (outside or on the margin), 0 < alpha < C (on the margin), alpha = C (inside or wrong side).
AT_ZERO, FREE, AT_C = 0, 1, 2
CATEGORY_NAMES = ("alpha = 0", "0 < alpha < C", "alpha = C")


def scores(problem, alpha):
    """Decision values without bias, :math:`f_i = \\sum_j \\alpha_j y_j k(x_j, x_i)`; shape (n,)."""
    coef = alpha * problem.y
    if problem.kernel.is_linear:
        return problem.X @ (problem.X.T @ coef)  # O(nd) instead of O(n^2)
    return problem.gram @ coef


def primal(problem, alpha, b=0.0, f=None):
    """Primal objective at :math:`w = \\sum \\alpha_i y_i \\phi(x_i)` and bias ``b``."""
    xp = array_namespace(alpha)
    f = scores(problem, alpha) if f is None else f
    norm2 = xp.sum(alpha * problem.y * f)
    hinge = xp.maximum(1.0 - problem.y * (f + b), 0.0)
    return float(0.5 * norm2 + xp.sum(problem.C_i * hinge))  # 1/2 ||w||^2 + sum_i C_i xi_i


def dual(problem, alpha, f=None):
    """Dual objective :math:`\\sum \\alpha_i - \\frac12 \\alpha^\\top Q \\alpha`."""
    xp = array_namespace(alpha)
    f = scores(problem, alpha) if f is None else f
    return float(xp.sum(alpha) - 0.5 * xp.sum(alpha * problem.y * f))


def relative_gap(primal_value: float, dual_value: float) -> float:
    """Relative duality gap :math:`(P - D) / |P|` (P > 0 for any two-class problem).

    Divided by :math:`|P|` however small (no floor); P = 0 gives 0 when D = 0 too, else an infinite gap
    of the sign of P - D.
    """
    diff = float(primal_value) - float(dual_value)
    if primal_value != 0:
        return diff / abs(float(primal_value))
    return 0.0 if diff == 0 else math.copysign(math.inf, diff)


# EPS (losses.base): the spacing of float64 at 1, the relative rounding of one operation


def gap_rounding(problem, alpha, f, b=0.0, magnitudes=None) -> float:
    """A bound on the rounding error of ``primal(problem, alpha, b, f) - dual(problem, alpha, f)`` in float64.

    What float64 cannot resolve, a gap cannot certify: each term is known to about ``EPS`` times the
    magnitudes summed to make it (first order; the samples' errors add as a root sum of squares).  A score
    :math:`f_i` sums terms of magnitude ``magnitudes[i]`` (:func:`score_magnitudes`); left out, the O(n)
    Cauchy-Schwarz bound :math:`\\sqrt{K_{ii}} \\sum_k \\alpha_k \\sqrt{K_{kk}}`.  A sample whose hinge may
    be positive within its margin's error adds :math:`C_i` times that error to P.  Compare the result
    with ``tol * |P|``.
    """
    xp = array_namespace(alpha)
    y, C_i = problem.y, problem.C_i
    if magnitudes is None:
        root = xp.sqrt(xp.maximum(xp.asarray(problem.diag, dtype=xp.float64), 0.0))  # sqrt(K_ii)
        magnitudes = root * float(xp.sum(alpha * root))
    m = y * (f + b)  # margins
    err_m = EPS * (magnitudes + xp.abs(f) + abs(float(b)) + 1.0)  # each margin's error, 1 - m_i included
    hinge = xp.maximum(1.0 - m, 0.0)
    kink = (1.0 - m) > -err_m  # its hinge may be positive: the margin's error counts in P
    norm2 = float(xp.sum(alpha * xp.abs(f)))  # the magnitudes summed into ||w||^2
    # the samples' errors, independent roundings, add up as a root sum of squares
    P_err = math.sqrt(float(xp.sum(xp.where(kink, C_i * err_m, 0.0) ** 2))) + EPS * (norm2 + float(xp.sum(C_i * hinge)))
    D_err = math.sqrt(float(xp.sum((alpha * err_m) ** 2))) + EPS * (float(xp.sum(alpha)) + norm2)
    return P_err + D_err


def linear_model_primal(problem, w, b=0.0) -> tuple[float, float]:
    """``(P, err)``: the primal of the linear model ``(w, b)`` itself, on ``problem``'s data, and a bound on its
    rounding in float64.

    .. math::

        P(w, b) = \\tfrac12 \\|w\\|^2 + \\sum_i C_i \\max(0, 1 - y_i (x_i^\\top w + b))

    ``w`` (d,) over the columns of ``problem.X`` (its bias column included), ``b`` an unpenalised bias.  Unlike
    :func:`primal`, which takes the scores of alpha, this is the number the model's own predictions
    :math:`x^\\top w + b` give: where forming w from alpha rounds (features far from 0), the two differ.  Each
    margin is known to ``EPS`` times the magnitudes summed in it, at most :math:`\\|x_i\\| \\|w\\| + |b| + 1`
    (Cauchy-Schwarz: no copy of X); a sample whose hinge may be positive within that adds :math:`C_i` times it
    (as :func:`gap_rounding`).
    """
    xp = problem.xp
    w = xp.asarray(w, dtype=xp.float64)
    f = problem.X @ w
    magnitudes = xp.sqrt(xp.maximum(xp.asarray(problem.diag, dtype=xp.float64), 0.0)) * math.sqrt(float(xp.sum(w * w)))
    margin = problem.y * (f + b)
    err_m = EPS * (magnitudes + abs(float(b)) + 1.0)
    hinge = xp.maximum(1.0 - margin, 0.0)
    kink = (1.0 - margin) > -err_m  # its hinge may be positive: the margin's error counts in P
    norm2, loss = float(xp.sum(w * w)), float(xp.sum(problem.C_i * hinge))
    e = xp.where(kink, problem.C_i * err_m, 0.0)
    top = float(xp.max(e))  # the root sum of squares, scaled by its largest term: no overflow at C = 1e300
    if not math.isfinite(top):
        return 0.5 * norm2 + loss, math.inf
    err = (top * math.sqrt(float(xp.sum((e / top) ** 2))) if top > 0 else 0.0) + EPS * (norm2 + loss)
    return 0.5 * norm2 + loss, err


def linear_weights(problem, alpha):
    """:math:`w = X^\\top (\\alpha \\circ y)` (d,) in float64, the linear kernel's weights (its bias column's
    included); alpha = 0 gives w = 0 without a pass over X."""
    from .rows import transpose_times

    xp = problem.xp
    if not bool(xp.any(alpha != 0)):
        return xp.zeros(problem.n_features, dtype=xp.float64)
    return transpose_times(problem.X, (alpha * problem.y)[:, None], xp)[:, 0]


def linear_sample_terms(problem, alpha, w):
    """``(penalty, linear, kkt)`` of a linear binary problem at the weights ``w``: :math:`\\sum_i C_i
    \\max(0, 1 - y_i x_i^\\top w)`, the dual's linear term :math:`\\sum_i \\alpha_i` and the largest KKT
    violation (no bias), what the primal and the dual add to :math:`\\pm\\tfrac12\\|w\\|^2`: separable over the
    samples, so a data set in parts sums them (:mod:`svmteach.solvers.cocoa`), as
    :func:`multiclass_sample_terms`."""
    xp = problem.xp
    f = problem.X @ xp.asarray(w, dtype=xp.float64)
    hinge = xp.maximum(1.0 - problem.y * f, 0.0)
    return (float(xp.sum(problem.C_i * hinge)), float(xp.sum(alpha)),
            kkt_violation(problem, alpha, f, bias=False) if problem.n_samples else -math.inf)


def linear_part_rounding(problem, alpha, w) -> float:
    """A bound on the rounding of this part's share of :math:`P - D` at ``w``, the weights of the whole data set
    summed over its parts, in float64 (:func:`gap_rounding` at the scores :math:`X w`, each known to
    :math:`\\mathrm{EPS}\\, \\|x_i\\| \\|w\\|`), and of the part's share of w as formed from alpha: its
    error :math:`\\|\\delta\\| \\le 2\\,\\mathrm{EPS} \\sum_i \\alpha_i \\|x_i\\|` moves :math:`\\|w\\|^2` by up to
    :math:`2 \\|w\\| \\|\\delta\\| + \\|\\delta\\|^2` (as :func:`multiclass_gap_rounding`)."""
    xp = problem.xp
    w = xp.asarray(w, dtype=xp.float64)
    alpha = xp.asarray(alpha, dtype=xp.float64)
    xn = xp.sqrt(xp.maximum(xp.asarray(problem.diag, dtype=xp.float64), 0.0))  # ||x_i||
    wn = math.sqrt(float(xp.sum(w * w)))
    delta = 2.0 * EPS * float(xp.sum(alpha * xn))
    return gap_rounding(problem, alpha, problem.X @ w, 0.0, xn * wn) + 2.0 * wn * delta + delta * delta


#: Entries of a block of kernel rows (or of |X|) that :func:`score_magnitudes` holds at once (32 MB).
MAGNITUDE_BLOCK = 2**22


def score_magnitudes(problem, alpha):
    """(n,) the magnitudes summed into each score, :math:`\\sum_k \\alpha_k |K_{ik}|` over the support vectors.

    Linear kernel: :math:`|x_i|^\\top \\sum_k \\alpha_k |x_k|` in O(nnz); else the support vectors' kernel
    rows.  At most ``MAGNITUDE_BLOCK`` entries at a time, never a copy of X or the (n, n) matrix.
    """
    from .kernels import gram
    from .rows import is_sparse

    xp = array_namespace(alpha)
    X, n = problem.X, problem.n_samples

    def absolute(A):  # |A| in float64, a sparse block kept sparse
        if is_sparse(A):
            return abs(A).astype(np.float64)
        return xp.abs(xp.astype(A, xp.float64))

    if problem.kernel.is_linear:
        nnz = X.nnz if is_sparse(X) else n * problem.n_features
        step = max(1, MAGNITUDE_BLOCK * n // max(nnz, 1))
        v = xp.zeros(problem.n_features, dtype=xp.float64)
        for a in range(0, n, step):
            v = v + absolute(X[a : a + step]).T @ alpha[a : a + step]  # sum_k alpha_k |x_k|
        mag = xp.zeros(n, dtype=xp.float64)
        for a in range(0, n, step):
            mag[a : a + step] = absolute(X[a : a + step]) @ v  # |x_i|' v
        return mag
    support = np.flatnonzero(to_numpy(alpha))
    step = max(1, MAGNITUDE_BLOCK // n)
    mag = xp.zeros(n, dtype=xp.float64)
    for s in range(0, support.size, step):
        idx = xp.asarray(support[s : s + step])
        block = gram(xp.take(X, idx, axis=0), X, problem.kernel)  # (b, n) rows of K (X is dense for a kernel)
        mag = mag + xp.take(alpha, idx) @ xp.abs(block)
    return mag


def margins(problem, f, b=0.0):
    """Functional margins :math:`y_i (f_i + b)`; shape (n,)."""
    return problem.y * (f + b)


def slacks(problem, f, b=0.0):
    """Slacks :math:`\\xi_i = \\max(0, 1 - y_i (f_i + b))` (the slides "Optimizing SVM Multiclass Dual Solvers", 'Slack interpretation')."""
    xp = array_namespace(f)
    return xp.maximum(1.0 - margins(problem, f, b), 0.0)


def kkt_categories(problem, alpha, rtol=1e-10):
    """Category of each point: ``AT_ZERO``, ``FREE`` or ``AT_C`` (:math:`\\alpha_i = C_i`, the sample's
    own bound), within ``rtol`` of that bound; int array of shape (n,)."""
    xp = array_namespace(alpha)
    C_i = problem.C_i
    atol = rtol * C_i
    cat = xp.where(alpha <= atol, AT_ZERO, xp.where(alpha >= C_i - atol, AT_C, FREE))
    return xp.astype(cat, xp.int64) if hasattr(xp, "astype") else cat.astype("int64")


def kkt_violation(problem, alpha, f, bias: bool):
    """Largest violation of the KKT conditions.

    Without a bias, the largest projected-gradient entry, :math:`g_i = 1 - y_i f_i = \\partial D / \\partial
    \\alpha_i`: :math:`\\max(g_i, 0)` at 0, :math:`\\max(-g_i, 0)` at :math:`C_i`, :math:`|g_i|` when free.
    With a bias (SMO's equality-constrained dual), the maximal violating pair gap of Keerthi et al. (2001),
    independent of b: :math:`m - M`, :math:`m = \\max_{I_{up}} (y_t - f_t)`, :math:`M = \\min_{I_{low}} (y_t - f_t)`.
    """
    xp = array_namespace(alpha)
    y, C_i = problem.y, problem.C_i
    if not bias:
        g = 1.0 - y * f
        # alpha_i may grow (alpha_i < C_i): g_i > 0 violates; it may shrink (alpha_i > 0): g_i < 0 violates
        pg = xp.maximum(xp.where(alpha < C_i, g, 0.0), xp.where(alpha > 0.0, -g, 0.0))
        return float(xp.max(pg))
    m, M = violating_pair_bounds(problem, alpha, f)
    return max(m - M, 0.0)


def up_low_sets(problem, alpha):
    """Boolean masks of :math:`I_{up}` and :math:`I_{low}` (where y_t alpha_t may grow / shrink in
    :math:`[0, C_t]`; a sample with :math:`C_t = 0` is in neither)."""
    y, C = problem.y, problem.C_i
    up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
    low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
    return up, low


def violating_pair_bounds(problem, alpha, f):
    """:math:`(m, M)`: the largest :math:`y_t - f_t` over I_up and the smallest over I_low."""
    xp = array_namespace(alpha)
    up, low = up_low_sets(problem, alpha)
    v = problem.y - f
    inf = float("inf")
    m = float(xp.max(xp.where(up, v, -inf)))
    M = float(xp.min(xp.where(low, v, inf)))
    return m, M


def optimal_intercept(problem, alpha, f):
    """The bias the KKT conditions give for ``alpha``, and the rule that set it.

    Every point bounds b by :math:`y_t - f_t`: a free point fixes it, a point at 0 with y = +1 or at
    :math:`C_t` with y = -1 bounds it from below, the others from above (:math:`C_t = 0`: nothing).
    Returns ``(b, rule)``, rule ``"mean over free SVs"`` (LIBSVM's), ``"midpoint of bounds"`` or
    ``"one-sided bound"``.
    """
    xp = array_namespace(alpha)
    y, C = problem.y, problem.C_i
    v = y - f
    free = (alpha > 0) & (alpha < C)
    n_free = int(xp.sum(xp.astype(free, xp.int64) if hasattr(xp, "astype") else free))
    if n_free > 0:
        return float(xp.sum(xp.where(free, v, 0.0)) / n_free), "mean over free SVs"
    bounds = C > 0  # a box {0} gives no condition on b
    lower = bounds & (((alpha <= 0) & (y > 0)) | ((alpha >= C) & (y < 0)))
    upper = bounds & ~lower
    inf = float("inf")
    lo = float(xp.max(xp.where(lower, v, -inf)))
    hi = float(xp.min(xp.where(upper, v, inf)))
    if lo > -inf and hi < inf:
        return 0.5 * (lo + hi), "midpoint of bounds"
    if lo > -inf:
        return lo, "one-sided bound"
    if hi < inf:
        return hi, "one-sided bound"
    return 0.0, "one-sided bound"


# ---- multiclass (linear, no bias): the course's names for what each loss (svmteach.losses) owns ----


def multiclass_weights(problem, alpha):
    """The model the dual variables define (float64): the (k, d) weights W, or on a kernel problem the (n, k)
    training scores S = K A(alpha) (:mod:`svmteach.multiclass_model`)."""
    return multiclass_model.model(problem, alpha)


def multiclass_primal(problem, W, S=None):
    """:math:`\\tfrac12\\|W\\|_F^2 + C \\sum_i \\ell_i` at the weights W (linear kernel).  A kernel problem's
    weights live in its feature space, where :math:`\\|W\\|^2 = \\langle A(\\alpha), S \\rangle` needs alpha:
    :func:`multiclass_measures` computes its primal."""
    if multiclass_model.is_kernel(problem):
        raise ValueError(f"multiclass_primal takes the weights W of a linear problem; this problem's kernel is "
                         f"{problem.kernel.name!r}, whose ||W||^2 needs alpha: use multiclass_measures(problem, alpha, "
                         "multiclass_weights(problem, alpha))")
    return float(problem.loss_object.primal(problem, W, S))


def multiclass_dual(problem, alpha, W):
    """The dual objective (to be maximised) at ``alpha`` with its model ``W`` (:func:`multiclass_weights`: the
    weights, or a kernel problem's training scores)."""
    return float(problem.loss_object.dual_linear(problem, alpha) - 0.5 * multiclass_model.squared_norm(problem, alpha, W))


def multiclass_row_blocks(problem):
    """The problem a block of rows at a time: ``(part, rows)`` pairs, ``rows`` a slice and ``part`` those rows as a
    problem of their own that shares the arrays (X's rows a view, a CSR's sharing its values and indices:
    :func:`svmteach.rows.row_slice`), for what a loss computes per sample.

    A dozen (rows, k) float64 arrays (what the losses make from the scores) and a dense float32 block's float64
    copy fit in :func:`svmteach.rows.block_bytes` (4 MiB on the host, so that no (n, k) array is made beside X;
    on a device, one block for most problems: whole-array reductions)."""
    from . import rows

    X, n, k = problem.design, problem.n_samples, problem.k
    per_row = 8 * 12 * k + (0 if rows.is_sparse(X) else 8 * problem.n_features)
    step = max(1, int(rows.block_bytes(problem.xp) // per_row))
    weight = problem.sample_weight
    def part_of(sl):
        part = object.__new__(type(problem))  # immutable: its attributes set as Problem._build sets them
        vars(part).update(problem.built_fields(), design=rows.row_slice(X, sl), codes=problem.codes[sl],
                          sqnorm=problem.sqnorm[sl], C_i=problem.C_i[sl], sample_weight=None if weight is None else weight[sl])
        return part

    for a in range(0, n, step):
        sl = slice(a, min(a + step, n))
        # the generator keeps no reference to the part, so that a caller that deletes it at the end of its loop
        # holds one block
        yield part_of(sl), sl


def multiclass_measures(problem, alpha, W):
    """``(P, D, kkt)``: :func:`multiclass_primal` at ``W``, :func:`multiclass_dual` at ``alpha`` with its weights
    ``W`` and :func:`multiclass_kkt_violation` (a loss's largest violation over the samples), the scores made a block
    of rows at a time (:func:`multiclass_row_blocks`): the same numbers to rounding, in O(d k) beside X."""
    penalty, linear, kkt = _sample_terms(problem, alpha, W)
    norm2 = multiclass_model.squared_norm(problem, alpha, W)
    return tuple(host_floats(problem.xp, [0.5 * norm2 + penalty, linear - 0.5 * norm2, kkt]))  # one read


def multiclass_sample_terms(problem, alpha, W):
    """``(penalty, linear, kkt)``: the sums over the samples in the objectives, :math:`\\sum_i C_i \\ell_i(W)` of the
    primal and the dual's linear term :math:`\\ell(\\alpha)`, and the largest KKT violation (what the primal and
    the dual add to :math:`\\pm\\tfrac12 \\|W\\|_F^2`): separable over the samples, so a data set in parts sums them
    (:mod:`svmteach.solvers.cocoa`)."""
    return tuple(host_floats(problem.xp, _sample_terms(problem, alpha, W)))


def _sample_terms(problem, alpha, W):
    """:func:`multiclass_sample_terms` as scalars of the problem's namespace, not read to the host: summed block
    by block on the device (the same additions as in float on the host, in the same order)."""
    xp = problem.xp
    loss = problem.loss_object
    compiled = _compiled_terms(problem)
    penalty, linear, kkt = _scalar(xp, 0.0), _scalar(xp, 0.0), _scalar(xp, -math.inf)
    # W = 0 (a start): every score is 0, without a product with X (on the host: on a device the test is a read)
    blank = is_numpy(xp) and not W.any()
    for part, rows in multiclass_row_blocks(problem):
        S = xp.zeros((part.n_samples, problem.k), dtype=xp.float64) if blank else multiclass_model.scores(problem, W, part, rows)
        if compiled is not None:
            out = _terms(compiled, problem, part, S, alpha[rows, :])
            losses, block_linear, block_kkt = out[:, 0], xp.sum(out[:, 1]), xp.max(out[:, 2])
        else:
            losses = loss.sample_losses(part, S)
            block_linear, block_kkt = loss.dual_linear(part, alpha[rows, :]), loss.kkt_violation(part, alpha[rows, :], S)
        # without weights, C times the sum (as the loss's primal): the rounding of the unweighted primal
        penalty = penalty + (xp.sum(losses) if problem.sample_weight is None else xp.sum(part.C_i * losses))
        linear = linear + _scalar(xp, block_linear)
        kkt = xp.maximum(kkt, _scalar(xp, block_kkt))
        del part, S  # one block at a time (multiclass_row_blocks)
    if problem.sample_weight is None:
        penalty = penalty * problem.C
    return penalty, linear, kkt


def _compiled_terms(problem):
    """The loss's compiled per-sample terms (:mod:`svmteach.losses.row_kernels`' ``terms``) on the host, or None: its
    NumPy methods (a device, or a loss without them)."""
    kernels = row_kernels(problem.loss_object)
    return kernels.terms if kernels is not None and is_numpy(problem.xp) else None


def _terms(compiled, problem, part, S, alpha_rows):
    """(rows, 3) each sample's loss, dual term and KKT violation at the scores ``S`` of the block ``part``: one
    compiled pass, where the NumPy methods make a dozen (rows, k) arrays."""
    out = np.empty((part.n_samples, 3))
    compiled(S, alpha_rows, part.codes, part.C_i, float(problem.M), out)
    return out


def _scalar(xp, value):
    """``value`` (a number, or a 0-d array of ``xp``) as a float64 0-d array of ``xp`` (no copy of an array)."""
    return xp.asarray(value, dtype=xp.float64)


def host_floats(xp, values) -> list[float]:
    """The scalars ``values`` (0-d arrays of ``xp``, or numbers) as floats, read to the host together: on a device
    one transfer, where a ``float()`` of each would wait for the device once each."""
    if is_numpy(xp):
        return [float(v) for v in values]
    return [float(v) for v in to_numpy(xp.stack([_scalar(xp, v) for v in values]))]


def multiclass_gap_rounding(problem, alpha, W) -> float:
    """A bound on the rounding error of ``multiclass_primal(problem, W) - multiclass_dual(problem, alpha, W)``
    in float64, for ``W`` computed from ``alpha`` (``multiclass_weights``), in O(nk) beside one pass for the scores,
    a block of rows at a time (:func:`multiclass_row_blocks`: no (n, k) array beside X).

    First order, as :func:`gap_rounding`: :math:`s_{im}` is known to :math:`\\mathrm{EPS} \\|x_i\\| \\|w_m\\|`;
    each loss rises with the scores off the label and falls with the one at it, so a sample's loss lies
    between its values at the scores moved by twice those errors either way.  W is :math:`A^\\top X` to
    :math:`\\|\\delta_m\\| \\le 2\\,\\mathrm{EPS} \\sum_i |A_{im}| \\|x_i\\|`, moving :math:`\\|W\\|_F^2` by up to
    :math:`2 \\sum_m \\|w_m\\| \\|\\delta_m\\| + \\|\\delta\\|^2`.
    """
    xp = problem.xp
    loss = problem.loss_object
    compiled = _compiled_terms(problem)
    wn = multiclass_model.class_norm_bounds(problem, alpha, W)  # ||w_m|| (or a bound on it)
    spread, high_sum, kinks, alpha_sum = (_scalar(xp, 0.0) for _ in range(4))  # on the device, read once at the end
    delta = xp.zeros(problem.k, dtype=xp.float64)
    for part, rows in multiclass_row_blocks(problem):
        S = multiclass_model.scores(problem, W, part, rows)
        xn = xp.sqrt(xp.asarray(part.sqnorm, dtype=xp.float64))  # ||x_i||
        E = 2.0 * EPS * (xn[:, None] * wn[None, :] + 1.0)  # twice each score's error (and the 1 of its hinge)
        Y = one_hot(part)
        high, low = xp.where(Y, S - E, S + E), xp.where(Y, S + E, S - E)  # the scores' errors against the model
        if compiled is not None:
            high, low = (_terms(compiled, problem, part, Z, alpha[rows, :])[:, 0] for Z in (high, low))
        else:
            high, low = loss.sample_losses(part, high), loss.sample_losses(part, low)
        C_i = xp.asarray(part.C_i, dtype=xp.float64)
        spread = spread + xp.sum(C_i * (high - low))
        high_sum = high_sum + xp.sum(C_i * high)
        kinks = kinks + xp.sum(xp.where(high > 0, C_i, 0.0))
        delta = delta + xn @ xp.abs(loss.weight_rows(part, alpha[rows, :]))  # sum_i |A_im| ||x_i||
        alpha_sum = alpha_sum + xp.sum(xp.abs(alpha[rows, :]))
        del part, S  # one block at a time (multiclass_row_blocks)
    norm2 = multiclass_model.squared_norm(problem, alpha, W)
    P_err = spread + EPS * (high_sum + problem.k * kinks + norm2)  # the sums' and the hinges' own roundings
    delta = 2.0 * EPS * delta  # (k,) bounds on ||w_m - w_m(alpha)||
    D_err = 2.0 * xp.sum(wn * delta) + xp.sum(delta * delta) + EPS * (alpha_sum + norm2)
    return host_floats(xp, [P_err + D_err])[0]


def multiclass_gradient(problem, S):
    """(n, k) gradient of the minimisation dual, :math:`-\\partial D / \\partial \\alpha`, at scores ``S``."""
    return problem.loss_object.gradient(problem, S)


def multiclass_kkt_violation(problem, alpha, S):
    """The loss's largest KKT violation (0 exactly at the optimum)."""
    return float(problem.loss_object.kkt_violation(problem, alpha, S))
