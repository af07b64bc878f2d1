"""What a multiclass solver keeps in step with alpha: the weights W on a linear problem, the training scores S
on a kernel problem.  The one place where the two differ (the data seam).

Every multiclass loss's dual needs alpha and the scores :math:`s_{im} = w_m^\\top \\phi(x_i)` only, with
:math:`w_m = \\sum_i A_{im} \\phi(x_i)` (the loss's ``weight_rows`` :math:`A(\\alpha)`, by the representer
argument).  So a solver may keep either of two *models* beside alpha:

- **linear** (``problem.kernel`` linear): :math:`W = A^\\top X`, (k, d).  A step on sample i reads
  :math:`s_i = W x_i` and moves :math:`W \\mathrel{+}= c\\, x_i^\\top` (O(kd));
- **kernel**: :math:`S = K A`, (n, k), K with the intercept's :math:`B^2` (``problem.kernel_offset``).  A step
  reads :math:`s_i = S_{i:}` and moves :math:`S \\mathrel{+}= K_{:i}\\, c^\\top` (O(nk), the kernel column from the
  run's row cache).  W itself lives in the kernel's feature space and is never formed.

Either way :math:`\\|W\\|_F^2 = \\langle A, S \\rangle` and the block problem of sample i is the same, with
:math:`q_i = \\|\\phi(x_i)\\|^2` (``problem.sqnorm``).  Functions here take the model of a state (its ``W``
field, which holds S on a kernel problem) and never ask which it is elsewhere.
"""

from __future__ import annotations

import numpy as np

from .backend import is_numpy, to_numpy
from .kernels import gram
from .losses.base import scores as linear_scores
from .rows import BLOCK_BYTES

__all__ = ["is_kernel", "blank", "model", "scores", "squared_norm", "class_norm_bounds", "kernel_scores", "point_scores"]


def is_kernel(problem) -> bool:
    """Whether ``problem`` keeps training scores S (a nonlinear kernel) rather than weights W."""
    return not problem.kernel.is_linear


def blank(problem):
    """The model of alpha = 0: W = 0 (k, d), or S = 0 (n, k)."""
    xp = problem.xp
    shape = (problem.n_samples, problem.k) if is_kernel(problem) else (problem.k, problem.n_features)
    return xp.zeros(shape, dtype=xp.float64)


def kernel_scores(kernel, offset: float, X_support, A_support, Z):
    """(len(Z), k) scores :math:`\\sum_s A_{sm} (k(z, x_s) + B^2)` of new points ``Z`` (NumPy) from the support
    vectors ``X_support`` and their rows ``A_support`` (n_SV, k) of A, a block of Z's rows at a time (never a
    (len(Z), n) matrix beside them).  Also what a fitted estimator's ``decision_function`` computes."""
    out = np.empty((Z.shape[0], A_support.shape[1]))
    # gram makes about eight arrays of a block's size (distances, their checks, the kernel): all in BLOCK_BYTES
    step = max(1, int(BLOCK_BYTES // (64 * max(X_support.shape[0], 1))))
    for a in range(0, Z.shape[0], step):
        rows = slice(a, min(a + step, Z.shape[0]))
        out[rows] = (gram(Z[rows], X_support, kernel) + offset) @ A_support
    return out


def model(problem, alpha):
    """The model of ``alpha`` recomputed from it (float64): :math:`W = A^\\top X`, or :math:`S = K A` (the
    training points' :func:`point_scores`, a block of rows at a time: no n x n matrix); alpha = 0 (a start) is
    the :func:`blank` model on the host, without a pass over the data (on a device the test would be a read)."""
    if is_numpy(problem.xp) and not alpha.any():
        return blank(problem)
    if not is_kernel(problem):
        return problem.loss_object.weights(problem, alpha)
    return point_scores(problem, alpha, None, np.asarray(problem.X))


def point_scores(problem, alpha, W, Z):
    """(len(Z), k) float64 scores of the points ``Z`` (NumPy, n_features columns) under ``alpha`` and its model
    ``W``: :math:`Z W^\\top` on a linear problem; on a kernel problem (``W`` unread)
    :math:`\\sum_i A_{im} (k(z, x_i) + B^2)` over the samples whose row of :math:`A(\\alpha)` is not 0, by
    :func:`kernel_scores` (the representer argument, as a fitted model predicts)."""
    Z = np.asarray(Z, dtype=np.float64)
    if not is_kernel(problem):
        return Z @ np.asarray(to_numpy(W), dtype=np.float64).T
    A = np.asarray(to_numpy(problem.loss_object.weight_rows(problem, np.asarray(to_numpy(alpha), dtype=np.float64))),
                   dtype=np.float64)
    support = np.flatnonzero(np.any(A != 0, axis=1))
    if support.size == 0:  # alpha = 0: every score 0
        return np.zeros((Z.shape[0], problem.k))
    return kernel_scores(problem.kernel, problem.kernel_offset, np.asarray(problem.X)[support], A[support], Z)


def scores(problem, W, part, rows):
    """(rows, k) scores of the samples ``rows`` (a slice; ``part`` those rows as a problem of their own,
    :func:`svmteach.objectives.multiclass_row_blocks`) under the model ``W``."""
    return W[rows, :] if is_kernel(problem) else linear_scores(part, W)


def squared_norm(problem, alpha, W):
    """:math:`\\|W\\|_F^2`: ``sum(W * W)``, or :math:`\\langle A(\\alpha), S \\rangle` on a kernel problem
    (clipped at 0: a PSD kernel's form is never negative but for rounding); a scalar of the namespace, not read
    to the host."""
    xp = problem.xp
    if not is_kernel(problem):
        return xp.sum(W * W)
    A = problem.loss_object.weight_rows(problem, alpha)
    norm2 = xp.sum(A * W)
    return xp.maximum(norm2, xp.zeros_like(norm2))


def class_norm_bounds(problem, alpha, W):
    """(k,) bounds on :math:`\\|w_m\\|` for the rounding analysis: the norms of W's rows, or on a kernel problem
    :math:`\\sum_i |A_{im}| \\|\\phi(x_i)\\|` (the triangle inequality), which also bounds each score's error."""
    xp = problem.xp
    if not is_kernel(problem):
        return xp.sqrt(xp.sum(W * W, axis=1))
    A = problem.loss_object.weight_rows(problem, alpha)
    return xp.sqrt(problem.sqnorm) @ xp.abs(A)
