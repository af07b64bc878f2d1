"""The parallel solver's block targets are the sequential solvers' row kernel, row for row, on the CPU and through
CuPy's code path (on a GPU the same kernel on numba's CUDA target: tests/test_cuda_targets.py), for every package
loss, on random feasible states with zero rows, samples of weight 0, an intercept column and a spread of C.

The oracle of the kernel itself is elsewhere (each block against Clarabel's: tests/test_derivation_kernel_multiclass.py
and the solvers' optimum tests); here the two forms of one step are held to each other."""

import numpy as np
import pytest

from svmteach import MulticlassProblem
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
    compiled = block_targets(problem, alpha, S)
    kernels = problem.loss_object.kernels
    k = problem.k
    for i in range(problem.n_samples):  # the kernel one row at a time, as a sequential visit calls it
        a = alpha[i].copy()
        kernels.block(S[i].copy(), a, int(problem.codes[i]), float(problem.sqnorm[i]), float(problem.C_i[i]),
                      params(problem.M), NOTHING_ASIDE, np.ones(k, dtype=bool), scratch(k), np.empty((0, k)))
        np.testing.assert_array_equal(compiled[i], a)
    assert np.abs(compiled - alpha).max() > 0  # the blocks moved


@pytest.mark.parametrize("loss", [loss.name for loss in PACKAGE_LOSSES])
def test_off_numpy_without_a_cuda_target_the_targets_are_the_cpus_through_the_host(loss, monkeypatch):
    """CuPy's namespace where numba's CUDA target cannot run (and any other namespace): S and alpha go to the host,
    the CPU kernel solves the blocks, the targets come back in the problem's namespace, the same numbers."""
    from conftest import cupy_code_path

    problem, alpha, S = random_state(loss, 1)
    expected = block_targets(problem, alpha, S)
    compat = cupy_code_path(monkeypatch)
    device, device_alpha, device_S = random_state(loss, 1)  # the same state, made through CuPy's code path
    assert device.xp is compat
    np.testing.assert_array_equal(device_alpha, alpha)
    np.testing.assert_array_equal(block_targets(device, device_alpha, device_S), expected)


def test_the_drivers_of_a_package_loss_are_the_cached_module_functions():
    for loss in PACKAGE_LOSSES:
        drivers = nm.drivers(loss.kernels)
        assert drivers.epochs is nm.epochs and drivers.targets is nm.targets
        assert nm.KERNELS[drivers.code] is loss.kernels
