"""``fit_intercept`` / ``intercept_scaling`` in the estimators, against oracles.

The linear estimators fit an intercept as LIBLINEAR's ``-B`` does (scikit-learn's ``LinearSVC``): a constant
feature B appended to every x, its weight penalised with W, the intercept B times that weight.  So the
fitted problem is the no-bias problem on the columns [X, B]: BinarySVC(solver="dual_cd") and
MulticlassSVC(loss="cs") must equal LinearSVC(fit_intercept=True, intercept_scaling=B) (hinge loss, the same
C, a tight tol), and Weston-Watkins and Lee-Lin-Wahba with a bias must reach the Clarabel optimum of their
primal on [X, B] (objectives recomputed here from ``coef_`` and ``intercept_`` with the formulas written out
in tests/test_weights_multiclass.py).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris
from sklearn.svm import LinearSVC
from test_multiclass import random_multiclass
from test_weights_multiclass import primal, weighted_primal_optimum

from svmteach import BinarySVC, MulticlassSVC, OneVsOneSVC, OneVsRestSVC

#: Offsets that make an intercept matter: without one every score passes through the origin.
SHIFT = np.array([3.0, -2.0, 1.5])


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def shifted_binary(n=80, seed=3):
    """A noisy two-class problem in 3-D whose classes are separated away from the origin."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.7 * rng.normal(size=n) > 0.4, 1, -1)
    return X + SHIFT, y


def shifted_multiclass(n=45, k=3, seed=2):
    X, y = random_multiclass(n=n, d=3, k=k, seed=seed)
    return X + SHIFT, y


def augmented(X, B):
    """[X, B]: the columns the biased problem is the no-bias problem on."""
    return np.hstack([np.asarray(X, dtype=np.float64), np.full((X.shape[0], 1), B)])


def binary_primal(model, X, y, B):
    """:math:`\\tfrac12 (\\|w\\|^2 + (b / B)^2) + C \\sum_i \\max(0, 1 - y_i (w^\\top x_i + b))` with C = 1."""
    hinge = np.maximum(0.0, 1.0 - y * (np.asarray(X @ model.coef_.T).ravel() + model.intercept_[0]))
    return 0.5 * float(np.sum(stacked_weights(model, B) ** 2)) + float(hinge.sum())


def stacked_weights(est, B):
    """(k, d + 1) ``[coef_, intercept_ / B]``: the weights of the no-bias problem on [X, B]."""
    return np.hstack([est.coef_, est.intercept_[:, None] / B])


@pytest.mark.parametrize("B", [1.0, 10.0])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_binary_dual_cd_equals_linearsvc_with_intercept(sparse, B):
    X, y = shifted_binary()
    Xin = sp.csr_array(np.where(np.abs(X) < 1.0, 0.0, X)) if sparse else X  # a real sparsity pattern
    est = BinarySVC(solver="dual_cd", C=1.0, intercept_scaling=B, tol=1e-11, max_iter=10**7).fit(Xin, y)
    ref = LinearSVC(loss="hinge", dual=True, C=1.0, intercept_scaling=B, tol=1e-11, max_iter=10**7).fit(Xin, y)
    assert est.solver_ == "dual_cd"
    assert est.coef_.shape == (1, 3) and est.intercept_.shape == (1,)
    scale = np.abs(ref.coef_).max()
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-5, atol=1e-5 * scale)
    np.testing.assert_allclose(est.intercept_, ref.intercept_, rtol=1e-5, atol=1e-5 * scale)
    np.testing.assert_allclose(est.decision_function(Xin), ref.decision_function(Xin), atol=1e-5 * scale)
    # the intercept is penalised as (b / B)^2 / 2 with w: the primal on [X, B], written out, is LinearSVC's
    assert rel(binary_primal(est, Xin, y, B), binary_primal(ref, Xin, y, B)) < 1e-8


def test_intercept_scaling_changes_the_penalty_of_the_intercept():
    """A larger B penalises the intercept less: the fitted |b| grows towards the unpenalised SMO's."""
    X, y = shifted_binary()
    b = [abs(BinarySVC(solver="dual_cd", intercept_scaling=B, tol=1e-10, max_iter=10**7).fit(X, y).intercept_[0])
         for B in (0.1, 1.0, 10.0)]
    free = abs(BinarySVC(solver="smo", tol=1e-10).fit(X, y).intercept_[0])  # LIBSVM's unpenalised b
    assert b[0] < b[1] < b[2] < free * (1 + 1e-6)
    assert rel(b[2], free) < 0.01 and rel(b[0], free) > 0.5


@pytest.mark.parametrize("B", [1.0, 10.0])
def test_crammer_singer_equals_linearsvc_with_intercept(B):
    X, y = shifted_multiclass()
    est = MulticlassSVC(loss="cs", solver="blondel", intercept_scaling=B, tol=1e-11, max_iter=10**5).fit(X, y)
    ref = LinearSVC(multi_class="crammer_singer", intercept_scaling=B, tol=1e-11, max_iter=10**7).fit(X, y)
    scale = np.abs(ref.coef_).max()
    np.testing.assert_allclose(est.coef_, ref.coef_, atol=1e-5 * scale)
    np.testing.assert_allclose(est.intercept_, ref.intercept_, atol=1e-5 * scale)
    np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X), atol=1e-5 * scale)


@pytest.mark.parametrize("loss", ["ww", "llw", "cs"])
@pytest.mark.parametrize("B", [1.0, 10.0])
def test_multiclass_with_bias_reaches_the_oracle_on_augmented_columns(loss, B):
    X, y = shifted_multiclass()
    C = 0.5
    est = MulticlassSVC(loss=loss, C=C, intercept_scaling=B, tol=1e-10, max_iter=10**5).fit(X, y)
    XB = augmented(X, B)
    C_i = np.full(len(y), C)
    W_star = weighted_primal_optimum(XB, y, 3, C_i, loss)  # Clarabel on the primal QP over [X, B]
    best = primal(XB, y, C_i, W_star, loss)
    P = primal(XB, y, C_i, stacked_weights(est, B), loss)  # the fitted model's primal, written out
    assert rel(P, best) < 1e-6
    assert rel(est.result_.primal, P) < 1e-9  # what the fit reports is its model's objective
    np.testing.assert_allclose(est.decision_function(X), X @ est.coef_.T + est.intercept_, rtol=1e-12, atol=1e-12)
    if loss == "llw":  # the sum-to-zero constraint holds for the intercepts too (a column of W)
        assert abs(est.intercept_.sum()) < 1e-8 * max(1.0, np.abs(est.intercept_).max())


def test_without_intercept_the_model_passes_through_the_origin():
    X, y = shifted_multiclass()
    est = MulticlassSVC(fit_intercept=False, tol=1e-8).fit(X, y)
    np.testing.assert_array_equal(est.intercept_, 0.0)
    C_i = np.ones(len(y))
    best = primal(X, y, C_i, weighted_primal_optimum(X, y, 3, C_i, "ww"), "ww")
    assert rel(primal(X, y, C_i, est.coef_, "ww"), best) < 1e-6
    binary = BinarySVC(fit_intercept=False, tol=1e-8).fit(*shifted_binary())
    assert binary.solver_ == "dual_cd" and binary.intercept_[0] == 0.0  # solver=None picks the no-bias solver


def test_iris_training_accuracy_with_intercept_matches_linearsvc():
    X, y = load_iris(return_X_y=True)
    ref = LinearSVC(multi_class="crammer_singer", tol=1e-8, max_iter=10**6).fit(X, y).score(X, y)
    with_bias = MulticlassSVC(loss="cs", tol=1e-8).fit(X, y).score(X, y)
    without = MulticlassSVC(loss="cs", tol=1e-8, fit_intercept=False).fit(X, y).score(X, y)
    assert with_bias == ref
    ww = MulticlassSVC(tol=1e-6).fit(X, y).score(X, y)
    ovr = LinearSVC(tol=1e-8, max_iter=10**6).fit(X, y).score(X, y)  # scikit-learn's default
    assert ww >= ovr - 0.02
    assert with_bias > without


def test_smo_without_intercept_is_refused_naming_fit_intercept():
    X, y = shifted_binary()
    with pytest.raises(ValueError, match="fit_intercept"):
        BinarySVC(solver="smo", fit_intercept=False).fit(X, y)


@pytest.mark.parametrize("kernel", ["rbf", "polynomial"])
def test_dual_cd_with_a_nonlinear_kernel_and_an_intercept_is_refused(kernel):
    X, y = shifted_binary()
    with pytest.raises(ValueError, match="fit_intercept"):
        BinarySVC(solver="dual_cd", kernel=kernel, gamma=0.5, fit_intercept=True).fit(X, y)
    # without the intercept it is the course's no-bias kernel problem, solved
    est = BinarySVC(solver="dual_cd", kernel=kernel, gamma=0.5, fit_intercept=False).fit(X, y)
    assert est.intercept_[0] == 0.0


@pytest.mark.parametrize("B", [1.0, 10.0])
def test_one_vs_rest_passes_the_intercept_on(B):
    """LinearSVC(loss="hinge") is one-vs-rest with LIBLINEAR's -B: the same k binary problems."""
    X, y = shifted_multiclass()
    est = OneVsRestSVC(solver="dual_cd", intercept_scaling=B, tol=1e-11, max_iter=10**7).fit(X, y)
    ref = LinearSVC(loss="hinge", intercept_scaling=B, tol=1e-11, max_iter=10**7).fit(X, y)
    assert all(e.fit_intercept and e.intercept_scaling == B for e in est.estimators_)
    scale = np.abs(ref.coef_).max()
    np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X), atol=1e-5 * scale)
    flat = OneVsRestSVC(solver="dual_cd", fit_intercept=False, tol=1e-8).fit(X, y)
    assert all(e.intercept_[0] == 0.0 for e in flat.estimators_)


@pytest.mark.parametrize("B", [1.0, 10.0])
def test_one_vs_one_passes_the_intercept_on(B):
    X, y = shifted_multiclass()
    est = OneVsOneSVC(solver="dual_cd", intercept_scaling=B, tol=1e-11, max_iter=10**7).fit(X, y)
    for (a, b), e in zip(est.pairs_, est.estimators_):
        keep = (y == a) | (y == b)
        ref = LinearSVC(loss="hinge", intercept_scaling=B, tol=1e-11, max_iter=10**7)
        ref.fit(X[keep], np.where(y[keep] == b, 1, -1))
        scale = np.abs(ref.coef_).max()
        np.testing.assert_allclose(e.coef_, ref.coef_, atol=1e-5 * scale)
        np.testing.assert_allclose(e.intercept_, ref.intercept_, atol=1e-5 * scale)
    flat = OneVsOneSVC(solver="dual_cd", fit_intercept=False, tol=1e-8).fit(X, y)
    assert all(e.intercept_[0] == 0.0 for e in flat.estimators_)
    with pytest.raises(ValueError, match="fit_intercept"):
        OneVsOneSVC(solver="smo", fit_intercept=False).fit(X, y)
