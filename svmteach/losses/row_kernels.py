"""The contract of a loss's compiled row kernels, and the compiled pieces the package's kernels share.

A multiclass loss owns two numba functions, written once and run by every driver (the compiled epochs of
:mod:`svmteach.solvers.numba_multiclass`, a step of the explorers, the violations of a model), and a third for
its measures, kept in its module beside its mathematics, as a :class:`RowKernels` (the loss's ``kernels``):

``block(s, a, y, q, C, params, rest, look, scratch, picture) -> (violation, moves)``
    Sample i's block step, in place on its row ``a`` (k,): ``s`` (k,) its scores, ``y`` its class, ``q``
    its curvature (:math:`\\|x_i\\|^2`, or :math:`K_{ii} + B^2`), ``C`` its bound :math:`C_i`; ``params``
    ``(M, inner_tol, max_inner)`` (Weston-Watkins' margin scale, the inner tolerance of a block that
    stops short of exact: Crammer-Singer's ``skip_tol``, Shark's ``inner_tol``; Shark's most moves);
    ``rest`` ``(margin, shrink, shrink_classes)`` (:func:`at_rest`'s slack, whether the sample and its
    classes may be set aside); ``look`` (k,) the classes looked at (the kernel may set one aside);
    ``scratch`` ``(work, iwork, record)`` from :func:`scratch`; ``picture`` (3, k) or empty, the step's
    numbers for the loss's ``block_picture``.  Returns the block's KKT violation before the step and
    ``moves``: -1 (at rest: row unchanged), 0 (no step) or the number of moves made (1: an exact block).
``coef(new, old, params, out)``
    ``out`` (k,) = :math:`A(\\delta)` for :math:`\\delta` = new - old, so that the model moves by
    :math:`A(\\delta)^\\top x_i` (W) or a kernel column times it (S).
``terms(S, alpha, codes, C_i, M, out)`` (optional: None, the loss's NumPy methods)
    ``out`` (n, 3) = each sample's loss :math:`\\ell_i` at its scores ``S`` (n, k), its term of the dual's linear
    part and its KKT violation (the loss's ``sample_losses``, ``dual_linear`` row by row and ``kkt_violation``
    before the maximum over the samples), for ``alpha`` (n, k), ``codes`` (n,) the classes, ``C_i`` (n,) the
    bounds and ``M`` Weston-Watkins' margin scale: a measure's per-sample arithmetic in one compiled pass, where
    NumPy makes a dozen (n, k) temporaries (on text, 6 of a measure's 14 ms).

``block`` and ``coef`` use only what numba's CPU and CUDA targets share: scratch comes in, nothing is allocated, nothing is
sorted by NumPy (:func:`sort_small`); :mod:`svmteach.solvers.cuda_targets` compiles the
same source for the CUDA target.  The package's kernels and their helpers are compiled for the CPU without
numba's runtime (``_nrt=False``): the compiler refuses an allocation in them (a slice assignment may copy: they
loop), and a call pays no reference counts on its arrays, which the drivers, calling a kernel as a function,
paid on every visit (about 90 ns of a 327 ns Crammer-Singer visit on digits; ``benchmarks/RESULTS.md``).
Adding a loss: its module with these
functions and ``kernels = RowKernels(block, coef, terms)``, and one entry in :data:`svmteach.losses.LOSSES`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

#: The compiled loops may reassociate and fuse sums (NaN and infinity keep their meaning).
FASTMATH = {"reassoc", "contract"}

#: A block whose quadratic term is below ``EPS`` times its linear term is solved as linear:
#: its curvature is lost in the rounding of the gradient.
EPS = 2.220446049250313e-16


class RowKernels(NamedTuple):
    """A loss's compiled row kernels (the module docstring): ``block`` its block step, ``coef`` its A(delta),
    ``terms`` its per-sample measures (None: a measure runs the loss's NumPy methods)."""

    block: object
    coef: object
    terms: object = None


def check_kernels(loss) -> None:
    """A TypeError naming ``loss.kernels`` unless it is None or a :class:`RowKernels` of numba-compiled functions
    (the drivers compile them into their loops: a Python function cannot be; ``terms`` may be None)."""
    kernels = loss.kernels
    if kernels is None:
        return
    if not isinstance(kernels, RowKernels):
        raise TypeError(f"loss.kernels of {loss!r} must be a RowKernels(block, coef[, terms]) or None, got {type(kernels).__name__}")
    for field in RowKernels._fields:
        if field == "terms" and kernels.terms is None:
            continue
        if not hasattr(getattr(kernels, field), "py_func"):
            raise TypeError(f"loss.kernels.{field} of {loss!r} must be a numba-compiled function (numba.njit), "
                            f"got {getattr(kernels, field)!r}")


#: ``rest`` for a call that sets nothing aside (a violation measured, a step drawn without shrinking).
NOTHING_ASIDE = (np.inf, False, False)


@njit(cache=True)
def scratch(k, record_rows=0):
    """``(work, iwork, record)``: the (5, 2k) float64 and (3k,) int64 scratch a block kernel takes for k
    classes, and a (record_rows, k + 3) buffer for an inner loop's moves (empty: none recorded)."""
    return np.empty((5, 2 * k)), np.empty(3 * k, dtype=np.int64), np.zeros((record_rows, k + 3))


def params(M: float = 1.0, inner_tol: float = 0.0, max_inner: int = 1):
    """``params`` of a block kernel: ``(M, inner_tol, max_inner)`` with the types the compiled drivers take."""
    return float(M), float(inner_tol), int(max_inner)


@njit(cache=True, inline="always", _nrt=False)
def box_violation(g, a, C):
    """The KKT violation of one variable ``a`` in [0, C] with gradient ``g`` of the minimised dual: its
    projected gradient's size, ``max(-g, 0)`` at 0, ``max(g, 0)`` at C, ``|g|`` inside, 0 in a box {0}."""
    if a <= 0.0:
        return max(-g, 0.0) if C > 0.0 else 0.0
    if a >= C:
        return max(g, 0.0)
    return abs(g)


@njit(cache=True, inline="always", _nrt=False)
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


@njit(cache=True, fastmath=FASTMATH, inline="always", _nrt=False)
def off_label_free(a, y, C, grad, margin, shrink_classes, look, free):
    """What the box-constrained off-label blocks (Weston-Watkins, Lee-Lin-Wahba) share before they solve,
    given ``grad`` (the gradient :math:`\\partial f / \\partial \\alpha_{im}` of each off-label class looked at):
    the classes the block moves, into ``free``; returns ``(violation, nf)``, the largest KKT violation of the
    classes looked at and how many are free.

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


@njit(cache=True, fastmath=FASTMATH, inline="always", _nrt=False)
def draw_start(picture, a, y, grad, curvature, shift, curved):
    """The picture's rows of an off-label block before its step, over the off-label positions: the gradient,
    :math:`u = c / \\text{curvature}` (``c`` itself for a linear block) with :math:`c_j = -\\partial f /
    \\partial \\alpha_{ij} + \\text{curvature}\\,(\\alpha_{ij} - \\text{shift})`, and beta (the entries as they
    are; :func:`draw_end` writes the free classes' new ones)."""
    for j in range(a.shape[0]):
        picture[0, j] = grad[j]  # a loop: a slice assignment may copy, which needs the runtime
        if j != y:
            p = j if j < y else j - 1
            c = -grad[j] + curvature * (a[j] - shift)
            picture[1, p] = c / curvature if curved else c
            picture[2, p] = a[j]


@njit(cache=True, inline="always", _nrt=False)
def draw_end(picture, y, free, nf, beta):
    """The new entries ``beta`` (nf,) of the ``free`` classes into the picture's beta row."""
    for t in range(nf):
        picture[2, free[t] if free[t] < y else free[t] - 1] = beta[t]


@njit(cache=True, fastmath=FASTMATH, inline="always", _nrt=False)
def centred_change(new, old, sign, out):
    """``out`` (k,) = :math:`\\text{sign}\\,(\\delta - \\bar\\delta)` for :math:`\\delta` = new - old: the A(delta) of the
    losses whose weights are a row-centred map of alpha (Lee-Lin-Wahba: sign -1; maximum-margin regression: +1)."""
    k = new.shape[0]
    shift = 0.0
    for m in range(k):
        shift += new[m] - old[m]
    shift /= k
    for m in range(k):
        out[m] = sign * ((new[m] - old[m]) - shift)


@njit(cache=True, fastmath=FASTMATH, inline="always", _nrt=False)
def linear_block(c, C, beta):
    """A block whose curvature is lost in the rounding: each entry at the bound its :math:`c_j` points to."""
    for p in range(beta.shape[0]):
        beta[p] = C if c[p] > 0 else (0.0 if c[p] < 0 else beta[p])


@njit(cache=True, _nrt=False)
def sort_small(values):
    """Sort ``values`` in place, ascending, nothing allocated (what numba's CPU and CUDA targets share, where
    ``ndarray.sort`` is the CPU's only): insertion sort for the few entries of a block, beyond 64 a heapsort."""
    n = values.shape[0]
    if n > 64:
        for root in range(n // 2 - 1, -1, -1):
            sift(values, root, n)
        for end in range(n - 1, 0, -1):
            values[0], values[end] = values[end], values[0]
            sift(values, 0, end)
        return
    for a in range(1, n):
        v = values[a]
        b = a - 1
        while b >= 0 and values[b] > v:
            values[b + 1] = values[b]
            b -= 1
        values[b + 1] = v


@njit(cache=True, inline="always", _nrt=False)
def sift(values, root, end):
    """Heapsort's sift-down on ``values[:end]``."""
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and values[child] < values[child + 1]:
            child += 1
        if values[root] < values[child]:
            values[root], values[child] = values[child], values[root]
            root = child
        else:
            return
