"""The two alternative paths of benchmarks/rls_alternatives.py compute what they claim, so the
timings recorded in RESULTS.md are of correct computations (oracle: direct Cholesky solves)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from svmteach.kernels import Kernel, gram
from svmteach.rls import solve_dual

SCRIPT = Path(__file__).parent.parent / "benchmarks" / "rls_alternatives.py"


@pytest.fixture(scope="module")
def alternatives():
    spec = importlib.util.spec_from_file_location("rls_alternatives", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def problem():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(61, 4))
    Y = np.column_stack([np.sign(X[:, 0]), X[:, 1]])
    return gram(X, None, Kernel("gaussian", 0.3)), Y, np.logspace(-3, 2, 9)


@pytest.mark.parametrize("b", [1, 4, 7, 59, 60, 80])  # one panel short of n, the whole matrix a band
def test_band_reduction_is_an_orthogonal_similarity(alternatives, problem, b):
    K = problem[0]
    n = K.shape[0]
    band, blocks = alternatives.band_reduce(K, b)
    kd = band.shape[0] - 1
    B = np.zeros((n, n))
    for r in range(kd + 1):
        B += np.diag(band[r, : n - r], -r) + (np.diag(band[r, : n - r], r) if r else 0)
    Q = alternatives._apply_blocks(blocks, np.eye(n), transpose=False)
    assert kd == min(b, n - 1)
    np.testing.assert_allclose(Q.T @ Q, np.eye(n), atol=1e-12)
    np.testing.assert_allclose(Q @ B @ Q.T, K, atol=1e-12)


def test_band_and_mixed_paths_equal_direct_solves(alternatives, problem):
    K, Y, lams = problem
    band = alternatives.band_path(K, Y, lams, b=8)
    mixed, rounds = alternatives.mixed_path(K, Y, lams)
    assert rounds.max() <= 30
    for path in band, mixed:
        for c, lam in zip(path, lams):
            exact = solve_dual(K, Y, lam)
            assert np.linalg.norm(c - exact) <= 1e-9 * np.linalg.norm(exact)


def test_mixed_path_reports_lambdas_it_cannot_refine(alternatives):
    # K + lam I so ill-conditioned that float32 cannot even start the refinement
    rng = np.random.default_rng(2)
    U = np.linalg.qr(rng.normal(size=(30, 30)))[0]
    K = U @ np.diag(np.logspace(-14, 2, 30)) @ U.T
    _, rounds = alternatives.mixed_path(K, np.ones((30, 1)), np.array([1e-12, 1.0]), max_rounds=5)
    assert rounds[0] == 6 and rounds[1] <= 5
