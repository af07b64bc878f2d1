"""BinarySVC: scikit-learn's estimator checks, the fitted attributes, warnings."""

import warnings

import numpy as np
import pytest
from conftest import agree_to_their_gap, random_binary
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmteach import (
    BinarySVC,
    CSBlondel,
    MulticlassProblem,
    MulticlassSVC,
    OneVsRestSVC,
    PrimalSubgradient,
    WWExact,
    iterate,
    solve,
)


# BinarySVC() takes sparse X (SMO on dense X, dual coordinate ascent on sparse X), so does "dual_cd";
# "smo" named and the RBF kernel refuse it, saying so: scikit-learn checks both against the sparse tag.
@parametrize_with_checks([BinarySVC(), BinarySVC(solver="dual_cd", random_state=0), BinarySVC(solver="smo"),
                          BinarySVC(kernel="rbf", gamma=0.5)], expected_failed_checks=agree_to_their_gap)
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
    ours = BinarySVC(fit_intercept=False, solver="dual_cd", tol=1e-9, random_state=0).fit(X, y)
    ref = LinearSVC(loss="hinge", fit_intercept=False, C=1.0, tol=1e-10, max_iter=10**6).fit(X, y)
    assert ours.intercept_[0] == 0.0
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-5)


def test_subgradient_has_zero_intercept_and_learns():
    X, y = random_binary(n=60, seed=2)
    with pytest.warns(ConvergenceWarning):
        m = BinarySVC(fit_intercept=False, solver="primal_subgradient", max_iter=500).fit(X, y)
    ref = BinarySVC(fit_intercept=False, solver="dual_cd", tol=1e-9, random_state=0).fit(X, y)
    assert m.intercept_[0] == 0.0
    assert (m.predict(X) == ref.predict(X)).mean() >= 0.95


def test_coef_only_for_the_linear_kernel():
    X, y = random_binary(n=20)
    m = BinarySVC(kernel="rbf").fit(X, y)
    with pytest.raises(AttributeError, match="linear"):
        m.coef_


def test_convergence_warning_and_history():
    X, y = random_binary(n=40, seed=3)
    with pytest.warns(ConvergenceWarning, match="max_iter=1 epochs"):  # a named solver stops where it is told
        m = BinarySVC(solver="smo", max_iter=1, tol=1e-8, record_history=True).fit(X, y)
    assert m.n_iter_ == 1 and m.result_.n_iter == len(y) and m.solver_ == "smo"
    with warnings.catch_warnings():  # solver=None: the small problem is finished by Newton steps instead
        warnings.simplefilter("error", ConvergenceWarning)
        direct = BinarySVC(max_iter=1, tol=1e-8).fit(X, y)
    assert direct.solver_ == "interior_point" and direct.result_.gap <= 1e-3
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


# ---- scalars reaching float() / int() raw: clear errors naming the argument -------------------------

def _multiclass_problem():
    rng = np.random.default_rng(0)
    return MulticlassProblem(rng.normal(size=(12, 2)), np.arange(12) % 3)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"max_iter": 1.5}, ValueError, "^max_iter must be a positive integer"),  # used to spin forever
    ({"max_iter": 0}, ValueError, "^max_iter must be a positive integer"),
    ({"max_iter": -3}, ValueError, "^max_iter must be a positive integer"),
    ({"max_iter": np.inf}, ValueError, "^max_iter must be a positive integer"),
    ({"max_iter": "10"}, TypeError, "^max_iter must be a positive integer"),
    ({"max_iter": True}, TypeError, "^max_iter must be a positive integer"),
    ({"tol": -1e-3}, ValueError, "^tol must be >= 0 and finite"),
    ({"tol": np.nan}, ValueError, "^tol must be >= 0 and finite"),
    ({"tol": "0.1"}, TypeError, "^tol must be a real number"),
    ({"tol": None}, TypeError, "^tol must be a real number"),
])
def test_solve_checks_its_scalars(kwargs, exc, match):
    p = _multiclass_problem()
    with pytest.raises(exc, match=match):
        solve(WWExact(random_state=0), p, **kwargs)
    if "tol" not in kwargs or kwargs["tol"] is not None:  # iterate takes tol=None: no stopping test
        with pytest.raises(exc, match=match):
            iterate(WWExact(random_state=0), p, **kwargs)  # at the call, not at the first next()


def test_solve_takes_numpy_integers_and_integral_floats():
    p = _multiclass_problem()
    assert solve(WWExact(random_state=0), p, max_iter=np.int64(5), tol=np.float32(0.0)).n_iter == 5
    assert len(list(iterate(WWExact(random_state=0), p, max_iter=4.0))) == 5


@pytest.mark.parametrize("make, exc, match", [
    (lambda: CSBlondel(skip_tol=-1.0), ValueError, "^skip_tol must be >= 0"),
    (lambda: CSBlondel(skip_tol="x"), TypeError, "^skip_tol must be a real number"),
    (lambda: PrimalSubgradient(learning_rate="1"), TypeError, "^learning_rate must be a real number"),
    (lambda: PrimalSubgradient(learning_rate=np.nan), ValueError, "^learning_rate must be positive and finite"),
    (lambda: PrimalSubgradient(learning_rate=1.5), ValueError, r"^learning_rate must be in \(0, 1\]"),
    (lambda: WWExact(random_state=-1).init(_multiclass_problem()), ValueError, "^random_state must be between 0"),
    (lambda: WWExact(random_state=2**40).init(_multiclass_problem()), ValueError, "^random_state must be between"),
    (lambda: WWExact(random_state=1.0).init(_multiclass_problem()), TypeError, "^random_state must be None, an int"),
    (lambda: WWExact(random_state=True).init(_multiclass_problem()), TypeError, "^random_state must be None"),
])
def test_solver_parameters_are_checked(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


@pytest.mark.parametrize("Estimator", [BinarySVC, MulticlassSVC, OneVsRestSVC])
@pytest.mark.parametrize("kwargs, exc, match", [
    ({"tol": 0.0}, ValueError, "^The 'tol' parameter"),
    ({"tol": "1e-3"}, TypeError, "^The 'tol' parameter"),
    ({"max_iter": 2.5}, ValueError, "^The 'max_iter' parameter"),
    ({"max_iter": "5"}, TypeError, "^The 'max_iter' parameter"),
    ({"random_state": -1}, ValueError, "^The 'random_state' parameter"),
    ({"random_state": 0.5}, TypeError, "^The 'random_state' parameter"),
])
def test_estimator_parameters_are_checked_at_fit(Estimator, kwargs, exc, match):
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(12, 2)), np.arange(12) % 3
    if Estimator is BinarySVC:
        y = y % 2
    est = Estimator(**kwargs)  # scikit-learn style: __init__ stores, fit checks
    with pytest.raises(exc, match=match):
        est.fit(X, y)


def test_record_history_must_be_a_bool():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(8, 2))
    with pytest.raises(TypeError, match="^The 'record_history' parameter of BinarySVC"):
        BinarySVC(record_history="yes").fit(X, np.arange(8) % 2)
    with pytest.raises(TypeError, match="^The 'record_history' parameter of MulticlassSVC"):
        MulticlassSVC(fit_intercept=False, record_history=1).fit(X, np.arange(8) % 2)
