"""The parallel solver's block targets are the sequential solvers' row kernel, and its array-API form (the one a
CuPy array runs) is the same step: row for row, for every package loss, on random feasible states with zero rows,
samples of weight 0, an intercept column and a spread of C.

The oracle of the kernel itself is elsewhere (each block against Clarabel's: tests/test_derivation_kernel_multiclass.py
and the solvers' optimum tests); here the two forms of one step are held to each other."""

import numpy as np
import pytest

from svmteach import MulticlassProblem
from svmteach import objectives as obj
from svmteach.losses import PACKAGE_LOSSES
from svmteach.losses.base import scores
from svmteach.losses.row_kernels import NOTHING_ASIDE, params, scratch
from svmteach.solvers import numba_multiclass as nm
from svmteach.solvers.parallel_block import block_targets


def random_state(loss, seed, n=60, d=4, k=5):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    X = rng.normal(scale=rng.choice([0.1, 1.0, 10.0]), size=(n, d))
    X[:3] = 0.0  # zero rows: linear blocks
    weights = rng.choice([0.0, 0.5, 1.0, 3.0], size=n)
    problem = MulticlassProblem(X, y, C=float(rng.choice([0.01, 1.0, 100.0])), loss=loss, sample_weight=weights,
                                M=1.7 if loss == "ww" else 1.0, bias=1.0 if seed % 2 else None)
    alpha = problem.loss_object.feasible(problem, rng.normal(scale=float(problem.C), size=(n, k)))
    # scores of weights near W(alpha): the blocks move, some to their bounds
    W = problem.loss_object.weights(problem, alpha)
    W = W + rng.normal(scale=0.1 * (1.0 + np.abs(W).max()), size=W.shape)
    return problem, alpha, scores(problem, W)


@pytest.mark.parametrize("loss", [loss.name for loss in PACKAGE_LOSSES])
@pytest.mark.parametrize("seed", range(6))
def test_the_parallel_targets_are_the_sequential_kernel_row_for_row(loss, seed):
    problem, alpha, S = random_state(loss, seed)
    G = obj.multiclass_gradient(problem, S)
    compiled = block_targets(problem, alpha, S, G)
    kernels = problem.loss_object.kernels
    k = problem.k
    for i in range(problem.n_samples):  # the kernel one row at a time, as a sequential visit calls it
        a = alpha[i].copy()
        kernels.block(S[i].copy(), a, int(problem.codes[i]), float(problem.sqnorm[i]), float(problem.C_i[i]),
                      params(problem.M), NOTHING_ASIDE, np.ones(k, dtype=bool), scratch(k), np.empty((0, k)))
        np.testing.assert_array_equal(compiled[i], a)
    # the batched array-API form (CuPy's) solves the same blocks: the same rows where the block is curved; on a zero
    # row (linear block) Crammer-Singer's mass may go to any of the tied top classes, so there both rows minimise
    # the block's linear objective G_i' t alike
    batched = problem.loss_object.block_targets(problem, alpha, G)
    scale = max(float(problem.C), 1.0)
    curved = np.asarray(problem.sqnorm) > 0
    np.testing.assert_allclose(compiled[curved], batched[curved], rtol=0, atol=1e-9 * scale)
    linear = ~curved
    np.testing.assert_allclose(np.sum(G[linear] * compiled[linear], axis=1), np.sum(G[linear] * batched[linear], axis=1),
                               rtol=1e-12, atol=1e-12 * scale)


def test_the_drivers_of_a_package_loss_are_the_cached_module_functions():
    for loss in PACKAGE_LOSSES:
        drivers = nm.drivers(loss.kernels)
        assert drivers.epochs is nm.epochs and drivers.targets is nm.targets
        assert nm.KERNELS[drivers.code] is loss.kernels
