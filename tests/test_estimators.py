"""BinarySVC: scikit-learn's estimator checks, the fitted attributes, warnings."""

import warnings

import numpy as np
import pytest
from conftest import random_binary
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmteach import BinarySVC


@parametrize_with_checks([BinarySVC(), BinarySVC(solver="dual_cd", random_state=0),
                          BinarySVC(kernel="rbf", gamma=0.5)])
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def test_fitted_attributes_match_sklearn_svc():
    X, y = random_binary(n=50, d=3, seed=1)
    labels = np.where(y > 0, "yes", "no")
    ours = BinarySVC(C=0.5, tol=1e-8).fit(X, labels)
    ref = SVC(kernel="linear", C=0.5, tol=1e-10).fit(X, labels)
    assert list(ours.classes_) == ["no", "yes"]
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-4)
    np.testing.assert_array_equal(ours.support_, np.sort(ref.support_))
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    assert ours.alpha_.shape == (50,) and ours.dual_coef_.shape == (1, len(ours.support_))
    np.testing.assert_allclose(ours.decision_function(X), X @ ours.coef_[0] + ours.intercept_[0])


def test_dual_cd_matches_liblinear_without_bias():
    from sklearn.svm import LinearSVC

    X, y = random_binary(n=60, seed=2)
    ours = BinarySVC(solver="dual_cd", tol=1e-9, random_state=0).fit(X, y)
    ref = LinearSVC(loss="hinge", fit_intercept=False, C=1.0, tol=1e-10, max_iter=10**6).fit(X, y)
    assert ours.intercept_[0] == 0.0
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-5)


def test_subgradient_has_zero_intercept_and_learns():
    X, y = random_binary(n=60, seed=2)
    with pytest.warns(ConvergenceWarning):
        m = BinarySVC(solver="primal_subgradient", max_iter=500).fit(X, y)
    ref = BinarySVC(solver="dual_cd", tol=1e-9, random_state=0).fit(X, y)
    assert m.intercept_[0] == 0.0
    assert (m.predict(X) == ref.predict(X)).mean() >= 0.95


def test_coef_only_for_the_linear_kernel():
    X, y = random_binary(n=20)
    m = BinarySVC(kernel="rbf").fit(X, y)
    with pytest.raises(AttributeError, match="linear"):
        m.coef_


def test_convergence_warning_and_history():
    X, y = random_binary(n=40, seed=3)
    with pytest.warns(ConvergenceWarning, match="max_iter=5"):
        m = BinarySVC(max_iter=5, record_history=True).fit(X, y)
    assert m.n_iter_ == 5
    assert set(m.history_) >= {"n_iter", "time", "primal", "dual", "gap", "kkt"}
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        m = BinarySVC(record_history=True).fit(X, y)
    assert m.history_["gap"][-1] <= 1e-3 and m.history_["gap"][0] > m.history_["gap"][-1]
    assert m.history_ is not None and BinarySVC().fit(X, y).history_ is None


def test_awkward_input_is_solved():
    X, y = random_binary(n=30, d=3, seed=4)
    X[:, 2] = 5.0  # constant feature
    X[4] = 0.0  # zero row
    X = np.vstack([X, X[:3]])  # duplicates with flipped labels
    y = np.concatenate([y, -y[:3]])
    for kw in ({}, {"kernel": "rbf"}, {"C": 1e6, "max_iter": 50_000}, {"solver": "dual_cd"}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            m = BinarySVC(**kw).fit(np.asfortranarray(X.astype(np.float32)), y)
        assert np.all(np.isfinite(m.alpha_)) and np.all(np.isfinite(m.decision_function(X)))


def test_predict_checks_the_number_of_features():
    X, y = random_binary(n=20, d=3)
    m = BinarySVC().fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but BinarySVC is expecting 3"):
        m.predict(X[:, :2])
