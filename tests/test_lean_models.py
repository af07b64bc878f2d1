"""Lean fitted models: a fitted estimator keeps what ``predict`` needs, not the data.

Pickle sizes on digits are compared with scikit-learn's SVC (LIBSVM keeps the support vectors and their
coefficients) and LinearSVC (LIBLINEAR keeps W): BinarySVC within twice SVC's; MulticlassSVC within twice
SVC's, and above LinearSVC's by no more than its dual solution by support rows (``support_`` and
``dual_coef_``: n_SV (k + 1) numbers) and a few kB.  No fitted attribute may hold n d numbers (a copy of X).
What was thrown away can be rebuilt: ``problem_for(X, y)`` and ``alpha_`` recompute the reported primal and
dual, with the formulas written out here.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC, LinearSVC
from test_weights_multiclass import dual_and_weights, primal

from svmteach import BinarySVC, MulticlassSVC, OneVsOneSVC, OneVsRestSVC


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y


def pickled(model) -> int:
    return len(pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL))


def arrays_in(value, depth=0):
    """Every array (NumPy or SciPy sparse) reachable from ``value`` through attributes, tuples, lists and dicts."""
    if depth > 6 or value is None or isinstance(value, (str, bytes, int, float, bool, np.generic)):
        return
    if isinstance(value, np.ndarray) or sp.issparse(value):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from arrays_in(item, depth + 1)
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from arrays_in(item, depth + 1)
    elif hasattr(value, "__dict__"):
        yield from arrays_in(vars(value), depth + 1)


def assert_no_copy_of_X(model, n, d):
    """No array anywhere in the fitted model with n d entries or more."""
    for array in arrays_in(model):
        size = array.nnz if sp.issparse(array) else array.size
        assert size < n * d, f"{type(model).__name__} keeps an array of shape {array.shape} (n d = {n * d})"


@pytest.mark.parametrize("kernel", [{"kernel": "rbf", "gamma": 0.02}, {"kernel": "linear"}], ids=["rbf", "linear"])
def test_binary_pickle_is_within_twice_svcs(digits, kernel):
    X, y = digits
    yb = (y >= 5).astype(int)
    est = BinarySVC(**kernel).fit(X, yb)
    ref = SVC(**kernel).fit(X, yb)
    size, ref_size = pickled(est), pickled(ref)
    assert size <= 2 * ref_size, (size, ref_size)
    assert_no_copy_of_X(est, *X.shape)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.decision_function(X), est.decision_function(X))
    assert np.mean(est.predict(X) == ref.predict(X)) > 0.99


@pytest.mark.parametrize("loss", ["ww", "cs", "llw"])
def test_multiclass_pickle_is_linearsvcs_plus_its_support_rows(digits, loss):
    X, y = digits
    est = MulticlassSVC(loss=loss).fit(X, y)
    size = pickled(est)
    svc, linear = pickled(SVC(kernel="linear").fit(X, y)), pickled(LinearSVC().fit(X, y))
    k, n_sv = len(est.classes_), len(est.support_)
    # on digits: WW about 30 kB (274 support rows), LLW 164 kB (every sample: each is bound off its label),
    # against SVC's 273 kB and LinearSVC's 6 kB (W only)
    assert size <= 2 * svc, (size, svc)
    assert size <= linear + 16 * n_sv * (k + 1) + 4096, (size, linear, n_sv)
    assert est.dual_coef_.shape == (n_sv, k)
    assert_no_copy_of_X(est, *X.shape)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(X), est.predict(X))


def test_reductions_keep_no_copy_of_X(digits):
    X, y = digits
    X, y = X[:400], y[:400] % 3
    for est in (OneVsRestSVC().fit(X, y), OneVsOneSVC().fit(X, y)):
        for binary in est.estimators_:
            assert_no_copy_of_X(binary, *X.shape)


def test_warm_start_keeps_the_state_and_only_then(digits):
    X, y = digits
    X, y = X[:300], y[:300]
    lean, warm = MulticlassSVC().fit(X, y), MulticlassSVC(warm_start=True).fit(X, y)
    assert lean.result_.state is None and warm.result_.state is not None
    assert pickled(warm) > pickled(lean)


@pytest.mark.parametrize("solver, kernel", [("smo", "linear"), ("smo", "rbf"), ("dual_cd", "linear"), ("dual_cd", "rbf")])
def test_binary_alpha_and_problem_for_recompute_the_reported_objectives(solver, kernel):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4)) + 1.0
    y = np.where(X[:, 0] + 0.7 * rng.normal(size=60) > 1.0, "a", "b")
    weights = rng.uniform(0.5, 2.0, 60)
    est = BinarySVC(solver=solver, kernel=kernel, gamma=0.3, C=2.0, tol=1e-8,
                    fit_intercept=solver == "smo" or kernel == "linear")  # dual_cd + rbf: the no-bias problem
    est.fit(X, y, sample_weight=weights)
    problem = est.problem_for(X, y, sample_weight=weights)
    Xp, yp, C_i = np.asarray(problem.X), np.asarray(problem.y), np.asarray(problem.C_i)
    np.testing.assert_allclose(C_i, 2.0 * weights)
    assert Xp.shape[1] == 4 + (solver == "dual_cd" and kernel == "linear")  # dual_cd's constant feature
    K = rbf_kernel(Xp, gamma=0.3) if kernel == "rbf" else Xp @ Xp.T
    a = est.alpha_ * yp
    # D(alpha) = 1'alpha - 1/2 (alpha y)' K (alpha y);  P = 1/2 (alpha y)' K (alpha y) + sum_i C_i hinge_i
    quadratic = float(a @ K @ a)
    D = float(est.alpha_.sum()) - 0.5 * quadratic
    f = K @ a + (est.intercept_[0] if solver == "smo" else 0.0)  # dual_cd's intercept is inside K
    P = 0.5 * quadratic + float(np.sum(C_i * np.maximum(0.0, 1.0 - yp * f)))
    assert rel(est.result_.dual, D) < 1e-9 and rel(est.result_.primal, P) < 1e-9
    np.testing.assert_allclose(est.decision_function(X), f, rtol=1e-9, atol=1e-9)
    assert est.result_.gap == pytest.approx((P - D) / P, abs=1e-9)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("loss", ["ww", "cs", "llw"])
def test_multiclass_alpha_and_problem_for_recompute_the_reported_objectives(loss, fit_intercept):
    rng = np.random.default_rng(1)
    y = np.arange(45) % 3
    X = rng.normal(size=(3, 3))[y] * 2 + rng.normal(size=(45, 3))
    weights = rng.uniform(0.0, 2.0, 45)
    est = MulticlassSVC(loss=loss, fit_intercept=fit_intercept, intercept_scaling=2.0, tol=1e-8)
    est.fit(X, y, sample_weight=weights)
    problem = est.problem_for(X, y, sample_weight=weights)
    Xp, C_i = np.asarray(problem.X), np.asarray(problem.C_i)
    D, W = dual_and_weights(Xp, y, C_i, est.alpha_, loss)
    stacked = np.hstack([est.coef_, est.intercept_[:, None] / 2.0]) if fit_intercept else est.coef_
    np.testing.assert_allclose(W, stacked, atol=1e-9 * max(1.0, np.abs(W).max()))
    P = primal(Xp, y, C_i, W, loss)
    assert rel(est.result_.dual, D) < 1e-9 and rel(est.result_.primal, P) < 1e-9
    assert est.alpha_.shape == (45, 3)
    np.testing.assert_array_equal(est.alpha_[est.support_], est.dual_coef_)
    rest = np.setdiff1d(np.arange(45), est.support_)
    assert np.all(est.alpha_[rest] == 0.0)
