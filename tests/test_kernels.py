"""Kernels against scikit-learn's pairwise kernels and direct formulas."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from svmteach import kernels
from svmteach.kernels import Kernel, check_kernel_psd, gram, kernel_diagonal, make_kernel, squared_distances


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


# ---- the kernel's parameters are checked where a Kernel is made ------------------------------

def test_aliases_are_the_kernels_they_name(XZ):
    X, Z = XZ
    assert Kernel("rbf") == Kernel("gaussian") and Kernel("poly") == Kernel("polynomial")
    np.testing.assert_allclose(gram(X, Z, Kernel("rbf", 0.7)), rbf_kernel(X, Z, gamma=0.7))
    np.testing.assert_allclose(gram(X, Z, Kernel("poly", 0.3, 4, 2.0)),
                               polynomial_kernel(X, Z, degree=4, gamma=0.3, coef0=2.0))
    assert kernel_diagonal(X, Kernel("rbf", 0.7)) == pytest.approx(np.ones(len(X)))


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(name="sigmoid"), ValueError, "^kernel must be one of"),
    (dict(name=3), TypeError, "^kernel must be a string"),
    (dict(gamma=-1.0), ValueError, "^gamma must be positive"),
    (dict(gamma=0.0), ValueError, "^gamma must be positive"),
    (dict(gamma=float("nan")), ValueError, "^gamma must be positive and finite"),
    (dict(gamma=float("inf")), ValueError, "^gamma must be positive and finite"),
    (dict(gamma="scale"), TypeError, "^gamma must be a positive number.*make_kernel"),
    (dict(gamma=True), TypeError, "^gamma must be a positive number"),
    (dict(gamma=[1.0]), TypeError, "^gamma must be a positive number"),
    (dict(degree=0), ValueError, "^degree must be an integer >= 1"),
    (dict(degree=-2), ValueError, "^degree must be an integer >= 1"),
    (dict(degree=2.5), ValueError, "^degree must be an integer >= 1"),
    (dict(degree=float("inf")), ValueError, "^degree must be an integer >= 1"),
    (dict(degree=True), TypeError, "^degree must be an integer"),
    (dict(degree="3"), TypeError, "^degree must be an integer"),
    (dict(coef0=float("nan")), ValueError, "^coef0 must be finite"),
    (dict(coef0="1"), TypeError, "^coef0 must be a finite number"),
    (dict(coef0=None), TypeError, "^coef0 must be a finite number"),
])
def test_kernel_parameters_are_checked(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        Kernel(**{"name": "polynomial", **kwargs})
    if "name" not in kwargs and kwargs.get("gamma") != "scale":  # the same checks behind make_kernel
        with pytest.raises(exc, match=match):
            make_kernel("polynomial", **{"gamma": 1.0, **kwargs})


def test_kernel_parameters_are_stored_in_their_types():
    k = Kernel("poly", np.float32(0.5), np.int64(2), 1)
    assert (k.name, k.gamma, k.degree, k.coef0) == ("polynomial", 0.5, 2, 1.0)
    assert type(k.gamma) is float and type(k.degree) is int and type(k.coef0) is float
    assert Kernel("poly", degree=3.0).degree == 3  # an integral float is an integer


def test_gram_refuses_a_name_it_does_not_know(XZ):
    X, Z = XZ
    k = Kernel("gaussian")
    object.__setattr__(k, "name", "sigmoid")  # past the checks: gram must not fall through to a branch
    with pytest.raises(ValueError, match="^kernel must be one of"):
        gram(X, Z, k)
    with pytest.raises(ValueError, match="^kernel must be one of"):
        kernel_diagonal(X, k)


def test_gamma_scale_is_checked_and_left_alone_for_the_linear_kernel():
    assert make_kernel("linear", "scale").gamma == 1.0  # nothing to resolve: no X needed
    with pytest.raises(ValueError, match="^gamma must be a positive number, 'scale' or 'auto'"):
        make_kernel("linear", "big")
    # Var(X) = 1e310 overflows float64: said, not turned into gamma = 0 or a subnormal
    with pytest.raises(ValueError, match="^gamma='scale' is 1 / \\(d Var\\(X\\)\\).*rescale X"):
        make_kernel("rbf", "scale", X=np.array([[1e155], [-1e155]]))
    # large but representable: Var(X) is computed without overflowing on the way
    assert make_kernel("rbf", "scale", X=np.array([[1e150], [-1e150]])).gamma == pytest.approx(1e-300)


# ---- squared distances: exact where the expansion cancels ----------------------------------

def explicit_squared_distances(X, Z):
    """The oracle: sum_k (x_ik - z_jk)^2 from explicit differences (no cancellation)."""
    return ((X[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2)


@pytest.mark.parametrize("scale", [1e-150, 1e-3, 1.0, 1e3, 1e140])
@pytest.mark.parametrize("offset", [0.0, 1e4])
def test_squared_distances_against_explicit_differences(scale, offset):
    rng = np.random.default_rng(1)
    X = (offset + rng.normal(size=(30, 4))) * scale
    X[10:15] = X[:5] * (1 + 1e-9)  # near-duplicates
    X[15:18] = X[:3]  # duplicates
    Z = np.vstack([X[::3], X[:4] + 1e-8 * scale])
    for A, B in ((X, None), (X, Z), (Z, X)):
        ours = squared_distances(A, B)
        oracle = explicit_squared_distances(A, A if B is None else B)
        np.testing.assert_allclose(ours, oracle, rtol=1e-11, atol=0)
    assert np.all(np.diag(squared_distances(X)) == 0.0)  # a point and itself: exactly 0
    assert np.all(squared_distances(X, X.copy())[np.arange(30), np.arange(30)] == 0.0)


@pytest.mark.parametrize("namespace", ["cupy's code path", "array_api_strict"])
def test_squared_distances_off_numpy_mend_the_same_entries(namespace, monkeypatch):
    """Off NumPy the cancelling entries are mended too: gathered and scattered where the arrays take index writes
    (CuPy's, here NumPy's through array-api-compat), whole row blocks elsewhere (the standard has no scatter)."""
    import array_api_strict as xps
    from conftest import cupy_code_path

    from svmteach.backend import array_namespace, is_numpy, to_numpy

    rng = np.random.default_rng(3)
    X = 1e4 + rng.normal(size=(30, 4))  # |x|^2 ~ 4e8: the expansion cancels for every pair
    X[10:15] = X[:5] * (1 + 1e-9)
    Z = np.vstack([X[::3], X[:4] + 1e-8])
    if namespace == "array_api_strict":
        A, B = xps.asarray(X), xps.asarray(Z)
    else:
        cupy_code_path(monkeypatch)
        A, B = X, Z
    assert not is_numpy(array_namespace(A))
    np.testing.assert_allclose(to_numpy(squared_distances(A, B)), explicit_squared_distances(X, Z), rtol=1e-11, atol=0)
    assert np.all(np.diag(to_numpy(squared_distances(A))) == 0.0)


@pytest.mark.parametrize("name", ["gaussian", "laplacian"])
def test_gram_diagonal_is_one_at_large_gamma(name):
    # |x|^2 ~ 100: the expansion leaves ~1e-14 on the diagonal, and exp(-1e6 * 1e-14) was not 1
    rng = np.random.default_rng(2)
    X = 10 * rng.normal(size=(40, 3))
    X[5] = X[4] + 1e-4  # a near-duplicate pair: K_45 = exp(-gamma * 3e-8) is far from 0 and 1
    k = Kernel(name, 1e6)
    K = gram(X, None, k)
    assert np.all(np.diag(K) == 1.0) and np.all(kernel_diagonal(X, k) == 1.0)
    D2 = explicit_squared_distances(X, X)
    oracle = np.exp(-1e6 * (D2 if name == "gaussian" else np.sqrt(D2)))
    np.testing.assert_allclose(K, oracle, rtol=1e-9, atol=1e-300)
    assert 0.01 < K[4, 5] < 0.99 or name == "laplacian"
