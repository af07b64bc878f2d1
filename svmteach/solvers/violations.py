"""Each sample's KKT violation at a model: what :meth:`~svmteach.solvers.base.Solver.sample_violations` returns.

``state.kkt`` is one number, the largest violation; a sentence such as "4 samples still violate KKT" (the
explorers' narration, :mod:`svmteach.widgets.narration`) needs one per sample.  Both are computed when asked
(a pass over the data), never by a step.

Binary, from the dual gradient :math:`g_i = 1 - y_i (f_i + b)` (b = 0 without a bias): the size of the projected
gradient, :math:`\\max(g_i, 0)` at :math:`\\alpha_i = 0`, :math:`\\max(-g_i, 0)` at :math:`\\alpha_i = C_i`,
:math:`|g_i|` in between (0 when :math:`C_i = 0`).  Without a bias its largest entry is ``state.kkt``
(:func:`~svmteach.objectives.kkt_violation`); with SMO's bias it is judged at the state's b, Platt's test
(``state.kkt`` is then the pair gap m - M, which does not depend on b).

Multiclass: each block's violation as the loss's exact block kernel measures it before a step
(its ``kernels.block``, the row kernel the solvers run; its largest entry is ``state.kkt``,
the loss's ``kkt_violation``), from the training scores of the model.
"""

from __future__ import annotations


import numpy as np

from .. import multiclass_model
from ..backend import to_numpy
from ..losses.base import row_kernels
from ..losses.row_kernels import NOTHING_ASIDE, params, scratch
from .kernel_scores import exact_gradient


def box_violations(problem, alpha, b: float = 0.0, rows=None) -> np.ndarray:
    """(n,) float64: each sample's KKT violation in the binary dual's box at ``alpha`` and the bias ``b``, from the
    exact gradient (:func:`~svmteach.solvers.kernel_scores.exact_gradient`: the support vectors' kernel rows, from
    the run's row cache ``rows`` when given; never all of K)."""
    xp = problem.xp
    alpha = xp.asarray(alpha, dtype=xp.float64)
    g = exact_gradient(problem, alpha, rows) - problem.y * float(b)  # dD / d alpha_i = 1 - y_i (f_i + b)
    C = problem.C_i
    # alpha_i may grow (alpha_i < C_i): g_i > 0 violates; it may shrink (alpha_i > 0): g_i < 0 violates
    pg = xp.maximum(xp.where(alpha < C, g, 0.0), xp.where(alpha > 0.0, -g, 0.0))
    return np.asarray(to_numpy(pg), dtype=np.float64)


def block_violations(problem, alpha, W) -> np.ndarray:
    """(n,) float64: each sample's block KKT violation at ``alpha`` with its model ``W`` (weights, or a kernel
    problem's training scores), by the loss's exact block kernel run on a copy of each row (nothing is stepped)."""
    alpha = np.asarray(to_numpy(alpha), dtype=np.float64)
    S = np.asarray(to_numpy(multiclass_model.scores(problem, problem.xp.asarray(W), problem, slice(None))),
                   dtype=np.float64)
    block = row_kernels(problem.loss_object).block
    codes, sqnorm, C = (np.asarray(to_numpy(a)) for a in (problem.codes, problem.sqnorm, problem.C_i))
    n, k = alpha.shape
    look = np.ones(k, dtype=bool)
    buffers, kparams, no_picture = scratch(k), params(problem.M), np.zeros((0, k))
    out = np.empty(n)
    for i in range(n):
        # nothing set aside: the violation before the step
        out[i], _ = block(S[i].copy(), alpha[i].copy(), int(codes[i]), float(sqnorm[i]), float(C[i]), kparams,
                          NOTHING_ASIDE, look, buffers, no_picture)
    return out
