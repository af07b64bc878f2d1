"""Kernels against scikit-learn's pairwise kernels and direct formulas."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from svmteach import kernels
from svmteach.kernels import Kernel, check_kernel_psd, gram, kernel_diagonal, make_kernel


@pytest.fixture
def XZ():
    rng = np.random.default_rng(0)
    return rng.normal(size=(7, 3)), rng.normal(size=(5, 3))


def test_against_sklearn(XZ):
    X, Z = XZ
    np.testing.assert_allclose(gram(X, Z, Kernel("linear")), linear_kernel(X, Z))
    np.testing.assert_allclose(gram(X, Z, Kernel("polynomial", 0.3, 4, 2.0)),
                               polynomial_kernel(X, Z, degree=4, gamma=0.3, coef0=2.0))
    np.testing.assert_allclose(gram(X, Z, Kernel("gaussian", 0.7)), rbf_kernel(X, Z, gamma=0.7))


def test_laplacian_uses_the_euclidean_norm(XZ):
    X, Z = XZ
    expected = np.exp(-0.5 * np.linalg.norm(X[:, None, :] - Z[None, :, :], axis=2))
    np.testing.assert_allclose(gram(X, Z, Kernel("laplacian", 0.5)), expected, atol=1e-12)


@pytest.mark.parametrize("name", ["linear", "polynomial", "gaussian", "laplacian"])
def test_diagonal_and_symmetry(XZ, name):
    X, _ = XZ
    k = make_kernel(name, gamma=0.4, X=X)
    K = gram(X, None, k)
    np.testing.assert_allclose(K, K.T, atol=1e-12)
    np.testing.assert_allclose(np.diag(K), kernel_diagonal(X, k), atol=1e-12)
    assert np.linalg.eigvalsh(K).min() > -1e-9  # positive semidefinite


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["linear", "polynomial", "gaussian", "laplacian"]),
       st.floats(-3, 3), st.integers(1, 4), st.floats(0.05, 5))
def test_psd_by_construction_holds_on_data(seed, name, coef0, degree, gamma):
    X = np.random.default_rng(seed).normal(size=(12, 3))
    k = Kernel(name, gamma, degree, coef0)
    K = gram(X, None, k)
    if k.psd_by_construction:
        assert np.linalg.eigvalsh(K).min() >= -1e-9 * max(1.0, np.abs(K).max())


def test_gamma_scale_and_auto(XZ):
    X, _ = XZ
    assert make_kernel("rbf", "auto", X=X).gamma == pytest.approx(1 / 3)
    assert make_kernel("rbf", "scale", X=X).gamma == pytest.approx(1 / (3 * X.var()))
    assert make_kernel("rbf", "scale", X=np.ones((3, 2))).gamma == 1.0  # constant data: no division by 0
    assert make_kernel("poly", 1.0).name == "polynomial" and make_kernel("rbf", 1.0).name == "gaussian"
    with pytest.raises(ValueError, match="needs the data X"):
        make_kernel("rbf")


def test_kernel_psd_check_on_a_sample_of_large_data(monkeypatch):
    X = np.random.default_rng(6).normal(size=(kernels.PSD_CHECK_POINTS + 500, 2))
    checked, real_check = [], kernels.check_psd
    monkeypatch.setattr(kernels, "check_psd", lambda K: checked.append(K.shape) or real_check(K))
    assert check_kernel_psd(X, Kernel("gaussian", 1.0)) is None and checked == []  # PSD by construction
    with pytest.warns(RuntimeWarning, match="not positive semidefinite"):
        smallest = check_kernel_psd(X, Kernel("polynomial", 1.0, 3, -2.0))
    assert checked == [(kernels.PSD_CHECK_POINTS, kernels.PSD_CHECK_POINTS)]
    # interlacing: the whole matrix's smallest eigenvalue is at most the sample's
    assert np.linalg.eigvalsh(gram(X, None, Kernel("polynomial", 1.0, 3, -2.0))).min() <= smallest + 1e-6
