"""Raw, unscaled features: the estimators' defaults return the optimum, a named solver says why it stopped.

On the wine data as shipped (standard deviations from 0.12 to 314) coordinate steps crawl; ``solver=None``
hands a small dense problem the coordinate method left short of tol to the interior-point method, whose
optimum must be the Clarabel QP's (the primal recomputed here from ``coef_`` / ``intercept_``, with the
formulas written out in tests/test_weights_multiclass.py).  On raw breast-cancer features (areas near 2,500,
smoothness near 0.1) the binary fit's reported dual must never exceed a primal value (LIBLINEAR's model's):
the objectives are recomputed here from ``alpha_`` in float64.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from test_weights_multiclass import primal, weighted_primal_optimum

from svmteach import BinarySVC, MulticlassSVC


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


@pytest.fixture(scope="module")
def wine():
    return load_wine(return_X_y=True)


@pytest.fixture(scope="module")
def breast_cancer_dual():
    """Raw breast cancer, labels +-1, the linear kernel matrix of [X, 1] (the default's intercept column) and
    an upper bound of its dual (C = 1): the primal of LIBLINEAR's model of the same problem (Clarabel stops on
    this dual with InsufficientProgress)."""
    X, y = load_breast_cancer(return_X_y=True)
    ys = np.where(y == 1, 1.0, -1.0)
    K = X @ X.T + 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref = LinearSVC(loss="hinge", C=1.0, tol=1e-10, max_iter=100_000, random_state=0).fit(X, ys)
    w, b = ref.coef_[0], ref.intercept_[0]
    best = 0.5 * float(w @ w + b * b) + float(np.maximum(0.0, 1.0 - ys * (X @ w + b)).sum())
    return X, y, ys, K, best


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("loss", ["ww", "cs", "llw"])
def test_raw_wine_default_solver_returns_the_optimum(wine, loss, fit_intercept):
    X, y = wine
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # the optimum, not a warning
        est = MulticlassSVC(loss=loss, fit_intercept=fit_intercept).fit(X, y)
    assert est.solver_ == "interior_point"
    XB = np.hstack([X, np.ones((len(y), 1))]) if fit_intercept else X  # intercept_scaling = 1
    W = np.hstack([est.coef_, est.intercept_[:, None]]) if fit_intercept else est.coef_
    C_i = np.ones(len(y))
    best = primal(XB, y, C_i, weighted_primal_optimum(XB, y, 3, C_i, loss), loss)
    P = primal(XB, y, C_i, W, loss)
    assert rel(P, best) < 1e-6
    assert rel(est.result_.primal, P) < 1e-9
    assert est.result_.gap <= est.tol


def test_raw_breast_cancer_reports_a_possible_dual(breast_cancer_dual):
    X, y, ys, K, best = breast_cancer_dual
    est = BinarySVC().fit(X, y)  # linear kernel: the intercept a penalised constant feature 1
    alpha = est.alpha_
    assert np.all(alpha >= 0) and np.all(alpha <= 1.0)
    # D(alpha) = 1'alpha - 1/2 (alpha y)' K (alpha y), in float64 here
    D = float(alpha.sum() - 0.5 * (alpha * ys) @ K @ (alpha * ys))
    assert rel(est.result_.dual, D) < 1e-8
    assert est.result_.dual <= best * (1 + 1e-9)
    assert est.result_.gap <= est.tol
    # P(w, b) = 1/2 (|w|^2 + b^2) + sum_i max(0, 1 - y_i (w'x_i + b)) of the model that predicts
    f = est.decision_function(X)
    w, b = est.coef_[0], est.intercept_[0]
    P = 0.5 * float(w @ w + b * b) + float(np.maximum(0.0, 1.0 - ys * f).sum())
    assert rel(est.result_.primal, P) < 1e-8
    assert (P - D) / P <= est.tol


def test_named_solver_on_raw_wine_names_the_scales_and_standardscaler(wine):
    X, y = wine
    with pytest.warns(ConvergenceWarning) as record:
        est = MulticlassSVC(solver="exact").fit(X, y)
    assert est.solver_ == "exact"  # a solver the user named is never replaced
    message = " ".join(str(w.message) for w in record)
    std = X.std(axis=0)
    assert "standard deviations" in message
    assert f"{std.min():.3g}" in message and f"{std.max():.3g}" in message
    assert "StandardScaler" in message and "make_pipeline" in message


def test_half_the_features_large_are_named_too(wine):
    """Seven of wine's thirteen standardised features times 1e4: the median standard deviation is a large one, so
    the spread from the smallest to the largest names the scales."""
    X, y = wine
    Xs = StandardScaler().fit_transform(X)
    Xs[:, :7] *= 1e4
    with pytest.warns(ConvergenceWarning) as record:
        MulticlassSVC(solver="exact", max_iter=3).fit(Xs, y)
    message = " ".join(str(w.message) for w in record)
    assert "badly scaled" in message and "StandardScaler" in message
    std = Xs.std(axis=0)
    assert f"{std.min():.3g}" in message and f"{std.max():.3g}" in message


def test_named_solver_on_standardised_wine_gives_no_scale_advice(wine):
    X, y = wine
    Xs = StandardScaler().fit_transform(X)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        MulticlassSVC(solver="exact", max_iter=3).fit(Xs, y)  # stops short: warns, without advice
    messages = [str(w.message) for w in record if issubclass(w.category, ConvergenceWarning)]
    assert messages and not any("StandardScaler" in m or "badly scaled" in m for m in messages)


def test_named_binary_solver_on_raw_breast_cancer_names_the_scales(breast_cancer_dual):
    X, y, *_ = breast_cancer_dual
    with pytest.warns(ConvergenceWarning, match="StandardScaler"):
        BinarySVC(solver="dual_cd", max_iter=2000).fit(X, y)
