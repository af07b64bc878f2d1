"""What a kernel multiclass epoch asks of its row cache: a kernel column only for a visit that moved A(alpha)."""

from __future__ import annotations

import numpy as np

from svmteach import data
from svmteach.kernels import gram
from svmteach.losses import get_loss
from svmteach.problems import MulticlassProblem
from svmteach.solvers import make_multiclass_solver, solve
from svmteach.solvers import numba_multiclass as nm


def rings(n=45, seed=0):
    """Three noisy concentric rings (:func:`svmteach.data.rings`, radial noise 0.2)."""
    return data.rings(n, noise=0.2, seed=seed)


def test_a_visit_that_leaves_alpha_asks_no_kernel_row():
    """Near its optimum a Lee-Lin-Wahba block often solves to its own row; such a visit computes no S update, so it
    asks the cache for no column (it read one for every visit): the cache's request count is the visits that
    changed alpha, and S moved by exactly those columns (the same S as recomputed from alpha's change)."""
    X, y = rings()
    problem = MulticlassProblem(X, y, C=1.0, loss="llw", kernel="rbf", gamma=0.7)
    solver = make_multiclass_solver(None, get_loss("llw"), random_state=0, shrinking=False)
    state = solve(solver, problem, tol=1e-6, max_iter=10_000 * problem.n_samples).state
    alpha, S = state.alpha.copy(), np.array(state.W, order="C")
    rows = state.rows
    asked = int(rows.clock[0])
    order = np.arange(problem.n_samples, dtype=np.int64)
    model = nm.KernelModel(rows=rows, offset=float(problem.kernel_offset), S=S)
    samples = nm.Samples(sqnorm=problem.sqnorm, codes=problem.codes, C_i=problem.C_i)
    nm.epoch(nm.drivers(solver.block_kernels(problem)).code, model, samples,
             solver.kernel_params(problem), alpha, order, np.zeros(0, dtype=bool),
             np.inf, np.zeros((0, 0), dtype=bool), np.zeros((0, problem.k)), np.zeros((0, problem.k + 3)),
             np.zeros(0), np.zeros(5))  # no preferences: the epoch's order as given
    changed = int(np.any(alpha != state.alpha, axis=1).sum())
    assert changed < problem.n_samples  # some visits left their row as it was
    assert int(rows.clock[0]) - asked == changed
    A = problem.loss_object.weight_rows(problem, alpha) - problem.loss_object.weight_rows(problem, state.alpha)
    expected = state.W + (gram(X, X, problem.kernel) + problem.kernel_offset) @ A
    np.testing.assert_allclose(S, expected, atol=1e-10)
