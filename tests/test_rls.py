"""RLS: path = direct solves, LOO = brute-force refits, primal = dual, KernelRidge agreement, bad input."""

import warnings

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmteach import data
from svmteach.kernels import Kernel, check_psd, gram
from svmteach.estimators import RLSClassifier
from svmteach.rls import (
    loo_errors,
    regularization_path,
    regularization_path_linear,
    solve_dual,
    solve_linear,
    solve_primal,
)

LAMS = np.logspace(-3, 2, 7)


@pytest.fixture
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    Y = np.column_stack([np.sign(X[:, 0] + 0.3 * rng.normal(size=40)), X[:, 1] ** 2])
    return X, Y


@pytest.mark.parametrize("kernel", [Kernel("linear"), Kernel("gaussian", 0.5), Kernel("polynomial", 0.5, 2, 1.0),
                                    Kernel("laplacian", 0.7)])
def test_path_equals_direct_solves(problem, kernel):
    X, Y = problem
    K = gram(X, None, kernel)
    path = regularization_path(K, Y, LAMS)
    assert path.shape == (len(LAMS), 40, 2)
    for lam, c in zip(LAMS, path):
        direct = np.linalg.solve(K + lam * np.eye(40), Y)
        np.testing.assert_allclose(c, direct, rtol=1e-8, atol=1e-8 * np.abs(direct).max())
        np.testing.assert_allclose(solve_dual(K, Y, lam), direct, rtol=1e-8, atol=1e-8 * np.abs(direct).max())


def test_linear_path_from_the_svd(problem):
    X, Y = problem
    np.testing.assert_allclose(regularization_path_linear(X, Y, LAMS), regularization_path(X @ X.T, Y, LAMS),
                               rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("kernel", [Kernel("linear"), Kernel("gaussian", 0.5)])
def test_loo_equals_brute_force_refits(problem, kernel):
    X, Y = problem
    K = gram(X, None, kernel)
    R = loo_errors(K, Y, LAMS)
    for lam, r in zip(LAMS, R):
        for i in range(0, 40, 7):
            keep = np.arange(40) != i
            c = np.linalg.solve(K[np.ix_(keep, keep)] + lam * np.eye(39), Y[keep])
            np.testing.assert_allclose(r[i], Y[i] - K[i, keep] @ c, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("shape", [(40, 3), (5, 12)])
def test_primal_equals_dual(shape):
    rng = np.random.default_rng(1)
    X = rng.normal(size=shape)
    Y = rng.normal(size=(shape[0], 2))
    w_dual = X.T @ solve_dual(X @ X.T, Y, 0.3)
    np.testing.assert_allclose(solve_primal(X, Y, 0.3), w_dual, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(solve_linear(X, Y, 0.3), w_dual, rtol=1e-9, atol=1e-12)  # either side


@pytest.mark.parametrize("kernel, kw", [("linear", {}), ("rbf", {"gamma": 0.5}), ("poly", {"gamma": 0.5, "degree": 2, "coef0": 1.0})])
def test_classifier_agrees_with_kernel_ridge(kernel, kw):
    X, y = data.moons(80, seed=2)
    ours = RLSClassifier(lam=0.7, kernel=kernel, **kw).fit(X, y)
    ref = KernelRidge(alpha=0.7, kernel={"poly": "polynomial"}.get(kernel, kernel), **kw).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), ref.predict(X), rtol=1e-8, atol=1e-10)
    Xm, ym = data.iris()
    m = RLSClassifier(lam=0.1, kernel="rbf", gamma=0.5).fit(Xm, ym)
    Y = np.where(ym[:, None] == np.arange(3)[None, :], 1.0, -1.0)
    ref = KernelRidge(alpha=0.1, kernel="rbf", gamma=0.5).fit(Xm, Y)
    np.testing.assert_allclose(m.decision_function(Xm), ref.predict(Xm), rtol=1e-8, atol=1e-10)


def test_classifier_picks_lambda_by_leave_one_out():
    X, y = data.moons(60, seed=3)
    m = RLSClassifier(lams=LAMS, kernel="rbf", gamma=1.0).fit(X, y)
    assert m.loo_curve_.shape == (len(LAMS),) and m.lam_ == LAMS[np.argmin(m.loo_curve_)]
    assert 0 <= m.loo_error_rate_.min() <= m.loo_error_rate_.max() <= 1
    assert (m.predict(X) == y).mean() > 0.9


def test_psd_check_runs_only_where_theory_does_not_settle_it(monkeypatch):
    X = np.random.default_rng(5).normal(size=(20, 2))
    y = X[:, 0] > 0
    calls = []
    monkeypatch.setattr("svmteach.kernels.check_psd", lambda K: calls.append(K.shape))
    for kernel, coef0 in [("linear", 1.0), ("rbf", 1.0), ("laplacian", 1.0), ("poly", 0.0), ("poly", 2.0)]:
        RLSClassifier(kernel=kernel, coef0=coef0).fit(X, y)
    assert calls == []
    RLSClassifier(kernel="poly", coef0=-0.5).fit(X, y)
    assert calls == [(20, 20)]


def test_psd_check_warns_for_a_broken_kernel():
    X = np.random.default_rng(4).normal(size=(15, 2))
    assert check_psd(gram(X, None, Kernel("gaussian", 1.0))) > -1e-10
    with pytest.warns(RuntimeWarning, match="not positive semidefinite"):
        check_psd(gram(X, None, Kernel("polynomial", 1.0, 3, -2.0)))
    with pytest.warns(RuntimeWarning, match="not positive semidefinite") as caught:
        RLSClassifier(kernel="poly", gamma=1.0, degree=3, coef0=-2.0).fit(X, X[:, 0] > 0)
    assert caught[0].filename == __file__  # it points at the user's line, not inside fit


@pytest.mark.parametrize("call, match", [
    (lambda K, Y: solve_dual(K, Y, 0.0), "^lam must be positive"),
    (lambda K, Y: solve_dual(K, Y, -1.0), "^lam must be positive"),
    (lambda K, Y: solve_dual(K, Y, np.inf), "^lam must be positive and finite"),
    (lambda K, Y: solve_dual(K[:, :3], Y, 1.0), "^K must be a non-empty square matrix"),
    (lambda K, Y: solve_dual(K, Y[:3], 1.0), "^Y must have 5 rows"),
    (lambda K, Y: solve_dual(K, Y * np.nan, 1.0), "^Y contains NaN"),
    (lambda K, Y: regularization_path(K, Y, []), "^lams must be a non-empty"),
    (lambda K, Y: loo_errors(K, Y, [1.0, -1.0]), "^lams must hold positive"),
    (lambda K, Y: solve_dual(np.ones((5, 5)), Y, 0.0, allow_zero=True), "^K \\+ lam I is singular"),
])
def test_bad_input(call, match):
    X = np.random.default_rng(5).normal(size=(5, 2))
    with pytest.raises(ValueError, match=match):
        call(X @ X.T + np.eye(5), np.ones(5))
    with pytest.raises(ValueError, match="^The 'lam' parameter of RLSClassifier"):
        RLSClassifier(lam=0).fit(X, [0, 1, 0, 1, 1])
    with pytest.raises(ValueError, match="^lams must be a non-empty"):
        RLSClassifier(lams=[]).fit(X, [0, 1, 0, 1, 1])


def test_zero_lambda_allowed_when_K_is_invertible():
    K = np.array([[2.0, 1.0], [1.0, 2.0]])
    np.testing.assert_allclose(solve_dual(K, [1.0, 0.0], 0.0, allow_zero=True)[:, 0], np.linalg.solve(K, [1.0, 0.0]))


@parametrize_with_checks([RLSClassifier(), RLSClassifier(kernel="rbf", lams=[0.1, 1.0])])
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(estimator)


def test_path_for_a_kernel_that_is_not_psd_and_for_one_point():
    X = np.random.default_rng(6).normal(size=(12, 2))
    K = gram(X, None, Kernel("polynomial", 1.0, 3, -2.0))  # indefinite
    Y = np.sign(X[:, :1])
    for lam, c in zip([0.5, 3.0], regularization_path(K, Y, [0.5, 3.0])):
        np.testing.assert_allclose(c, np.linalg.solve(K + lam * np.eye(12), Y), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(regularization_path([[2.0]], [[4.0]], [2.0])[0], [[1.0]])


def brute_force_loo(K, Y, lam):
    """Leave each point out, solve the smaller system, predict it: the definition, no identity."""
    n = K.shape[0]
    R = np.empty_like(Y)
    for i in range(n):
        keep = np.arange(n) != i
        c = np.linalg.solve(K[np.ix_(keep, keep)] + lam * np.eye(n - 1), Y[keep])
        R[i] = Y[i] - K[i, keep] @ c
    return R


def test_loo_for_a_kernel_that_is_not_psd():
    """An indefinite K gave NaN residuals with only a RuntimeWarning where the identity breaks down."""
    X = np.random.default_rng(7).normal(size=(10, 2))
    K = gram(X, None, Kernel("polynomial", 1.0, 3, -2.0))  # indefinite
    Y = np.sign(X[:, :1])
    lams = [0.3, 5.0]
    for lam, R in zip(lams, loo_errors(K, Y, lams)):  # away from the spectrum: the identity holds
        np.testing.assert_allclose(R, brute_force_loo(K, Y, lam), rtol=1e-6, atol=1e-8)
    lam = -np.linalg.eigvalsh(K).min()  # K + lam I singular
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="^K \\+ lam I is singular at lam"):
            loo_errors(K, Y, [1.0, lam])
        # K + lam I = [[0, 1], [1, 0]] is invertible, but leaving out a point leaves the singular [0]
        with pytest.raises(ValueError, match="^leaving a point out makes the system singular at lam = 1"):
            loo_errors(np.array([[-1.0, 1.0], [1.0, -1.0]]), [1.0, -1.0], [1.0])


def test_primal_falls_back_or_says_why():
    """solve_primal raised LAPACK's raw LinAlgError where solve_dual fell back to LU."""
    X = np.array([[1.0, 1.0], [1.0, 1.0], [2.0, 2.0]])  # X'X = 6 [[1, 1], [1, 1]], singular
    with pytest.raises(ValueError, match="^X'X \\+ lam I is singular \\(lam = 1e-300\\)"):
        solve_primal(X, [1.0, -1.0, 1.0], 1e-300)
    with pytest.raises(ValueError, match="^K \\+ lam I is singular \\(lam = 1e-300\\)"):
        solve_dual(X @ X.T, [1.0, -1.0, 1.0], 1e-300)
    # an indefinite but invertible X'X + lam I cannot happen; an ill-conditioned one is solved
    w = solve_primal(X, [1.0, -1.0, 1.0], 1e-3)
    np.testing.assert_allclose(w, X.T @ solve_dual(X @ X.T, [1.0, -1.0, 1.0], 1e-3), rtol=1e-8)


@pytest.mark.parametrize("lams, exc, match", [
    (["a"], TypeError, "^lams must be a list of numbers"),
    ([True, False], TypeError, "^lams must be a list of numbers"),
    ("0.1", TypeError, "^lams must be a list of numbers"),
    ([[0.1, 1.0]], ValueError, "^lams must be a non-empty 1-D list"),
    ([0.1, np.nan], ValueError, "^lams must hold positive, finite values"),
])
def test_bad_lams(lams, exc, match):
    X = np.random.default_rng(5).normal(size=(6, 2))
    with pytest.raises(exc, match=match):
        loo_errors(X @ X.T, np.ones(6), lams)
    with pytest.raises(exc, match=f"{match}|^The 'lams' parameter of RLSClassifier"):  # a str is no array
        RLSClassifier(lams=lams).fit(X, [0, 1, 0, 1, 1, 0])
