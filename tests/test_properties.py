"""Property-based: on random small problems every estimator returns something true.

For random problems (n 2-30, d 1-5, k 2-5 classes, C log-uniform in [1e-3, 1e3], duplicated and zero
rows, values on a grid and subnormal ones) and every solver: no exception, finite outputs, a feasible
alpha whose weights are the returned ``coef_``, and, whenever the fit says it converged, a relative
duality gap that the returned alpha and coef_ really have.  P and D are recomputed here from the
definitions in float64 (not with svmteach.objectives), so a solver cannot certify itself.
"""

import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from svmteach import BinarySVC, MulticlassSVC, OneVsRestSVC

TOL = 1e-3
#: rounding allowed on top of tol when the gap is recomputed from what the fit returned
SLACK = 1e-9

GRID = [0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -3.0, 5e-324, -1e-310, 2.2e-308, 1e-160]


@st.composite
def problems(draw, max_k=5):
    n = draw(st.integers(2, 30))
    d = draw(st.integers(1, 5))
    k = draw(st.integers(2, min(max_k, n)))
    scale = draw(st.sampled_from([1.0, 1e-3, 1e3]))
    X = np.array(draw(st.lists(st.lists(st.sampled_from(GRID), min_size=d, max_size=d), min_size=n, max_size=n)))
    X = X * scale
    if n > 3 and draw(st.booleans()):  # duplicated rows (maybe with other labels)
        X[n // 2 :] = X[: n - n // 2]
    if draw(st.booleans()):
        X[draw(st.integers(0, n - 1))] = 0.0  # a zero row
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    y[:k] = np.arange(k)  # every class present
    C = 10.0 ** draw(st.floats(-3, 3))
    return X, y, C


def relative_gap(P, D):
    return (P - D) / max(abs(P), 1e-300)


def check_multiclass(model, X, y, C, loss):
    alpha, W = model.alpha_, model.coef_
    assert np.all(np.isfinite(alpha)) and np.all(np.isfinite(W))
    codes = np.searchsorted(model.classes_, y)
    n, k = alpha.shape
    Y = np.zeros((n, k), dtype=bool)
    Y[np.arange(n), codes] = True
    scale = max(C, 1.0)
    if loss == "ww":
        off = alpha[~Y]
        assert off.min() >= -1e-12 * scale and off.max() <= C * (1 + 1e-12)
        np.testing.assert_allclose(alpha[Y], -np.where(Y, 0.0, alpha).sum(axis=1), rtol=1e-12, atol=1e-12 * scale)
        W_alpha = -model.M * alpha.T @ X
    else:
        assert np.all(alpha <= np.where(Y, C, 0.0) + 1e-12 * scale)
        np.testing.assert_allclose(alpha.sum(axis=1), 0.0, atol=1e-12 * scale)
        W_alpha = alpha.T @ X
    # coef_ is W(alpha_), recomputed here, up to the rounding of the sums (terms can cancel)
    rounding = 1e-13 * (np.abs(alpha).T @ np.abs(X)) * max(model.M, 1.0) + 1e-300  # subnormals
    assert np.all(np.abs(W - W_alpha) <= rounding), np.abs(W - W_alpha).max()
    if not model.result_.converged:
        return
    S = X @ W.T
    s_y = S[np.arange(n), codes]
    if loss == "ww":
        M = model.M
        losses = np.where(Y, 0.0, np.maximum(0.0, 1.0 - M * (s_y[:, None] - S))).sum(axis=1)
        linear = np.where(Y, 0.0, alpha).sum()
    else:
        losses = np.maximum(0.0, 1.0 + np.where(Y, -np.inf, S).max(axis=1) - s_y)
        linear = alpha[Y].sum()
    norm2 = float(np.sum(W * W))
    P = 0.5 * norm2 + C * losses.sum()
    D = linear - 0.5 * norm2
    assert relative_gap(P, D) <= TOL + SLACK, (P, D, model.result_.gap)
    assert relative_gap(P, D) >= -SLACK  # weak duality: a feasible pair


def check_binary(model, X, y_pm, C, bias, coef=None):
    """The model's alpha is feasible, its w is sum_i alpha_i y_i x_i (``coef``: the model's w, by default
    ``coef_``), and a converged fit's gap recomputed from alpha is within tol."""
    alpha = model.alpha_
    coef = model.coef_[0] if coef is None else coef
    assert np.all(np.isfinite(alpha)) and np.all(np.isfinite(coef)) and np.isfinite(model.intercept_[0])
    assert alpha.min() >= 0.0 and alpha.max() <= C * (1 + 1e-12)
    w = (alpha * y_pm) @ X
    assert np.all(np.abs(coef - w) <= 1e-13 * (alpha @ np.abs(X)) + 1e-300), np.abs(coef - w).max()
    if bias:
        assert abs(alpha @ y_pm) <= 1e-9 * max(C, 1.0) * len(alpha)
    if not model.result_.converged:
        return
    b = model.intercept_[0] if bias else 0.0
    f = X @ w
    norm2 = float(w @ w)
    P = 0.5 * norm2 + C * np.maximum(0.0, 1.0 - y_pm * (f + b)).sum()
    D = alpha.sum() - 0.5 * norm2
    assert relative_gap(P, D) <= TOL + SLACK, (P, D, model.result_.gap)
    assert relative_gap(P, D) >= -SLACK


def fit(model, X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y, **kwargs)


MULTICLASS = [("ww", "exact"), ("ww", "shark"), ("ww", "parallel"), ("cs", "blondel"), ("cs", "parallel")]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems(), which=st.sampled_from(MULTICLASS), M=st.sampled_from([1.0, 0.5]))
def test_multiclass_fits_are_true(problem, which, M):
    X, y, C = problem
    loss, solver = which
    model = fit(MulticlassSVC(fit_intercept=False, C=C, loss=loss, M=M, solver=solver, tol=TOL, max_iter=300, random_state=0), X, y)
    check_multiclass(model, X, y, C, loss)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems(max_k=2), solver=st.sampled_from(["smo", "dual_cd"]))
def test_binary_fits_are_true(problem, solver):
    X, y, C = problem
    model = fit(BinarySVC(C=C, solver=solver, fit_intercept=solver == "smo", tol=TOL, max_iter=700, random_state=0), X, y)
    check_binary(model, X, np.where(y == model.classes_[1], 1.0, -1.0), C, bias=solver == "smo")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems())
def test_one_vs_rest_fits_are_true(problem):
    X, y, C = problem
    model = fit(OneVsRestSVC(C=C, tol=TOL, max_iter=700, random_state=0), X, y)
    k = len(model.classes_)
    for c, est in enumerate(model.estimators_):
        target = y == model.classes_[1] if k == 2 else y == model.classes_[c]
        y_pm = np.where(target, 1.0, -1.0)
        if est.solver_ == "smo":  # SMO's unpenalised bias
            check_binary(est, X, y_pm, C, bias=True)
        else:  # the linear default (dual_cd, or its interior-point finish): the no-bias problem on [X, B]
            assert est.solver_ in ("dual_cd", "interior_point")  # (B = intercept_scaling), w_B B the intercept
            B = est.intercept_scaling
            Xb = np.hstack([X, np.full((len(X), 1), B)])
            w_B = float((est.alpha_ * y_pm) @ Xb[:, -1])
            assert abs(est.intercept_[0] - w_B * B) <= 1e-13 * (est.alpha_.sum() * B * B) + 1e-300
            check_binary(est, Xb, y_pm, C, bias=False, coef=np.append(est.coef_[0], w_B))
    assert np.all(np.isfinite(model.decision_function(X)))


# ---- issue 26: float32 X for the parallel solver, per-sample C spanning 1e12, warm starts across labels -----


def exact_binary_gap(X, y_pm, C_i, alpha, b):
    """(P - D) / |P| of (alpha, b) in rationals (w = sum_i alpha_i y_i x_i exactly), where float64 cannot."""
    from fractions import Fraction

    Xf = [[Fraction(float(v)) for v in row] for row in X]
    a = [Fraction(float(v)) for v in alpha]
    y = [Fraction(float(v)) for v in y_pm]
    d = len(Xf[0])
    w = [sum(a[i] * y[i] * Xf[i][j] for i in range(len(a)) if a[i]) for j in range(d)]
    norm2 = sum(v * v for v in w)
    P = norm2 / 2 + sum(Fraction(float(c)) * max(Fraction(0), 1 - y[i] * (sum(Xf[i][j] * w[j] for j in range(d))
                                                                            + Fraction(float(b))))
                        for i, c in enumerate(C_i))
    D = sum(a) - norm2 / 2
    return float((P - D) / abs(P)) if P else 0.0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems(max_k=2), solver=st.sampled_from(["smo", "dual_cd"]),
       exponents=st.lists(st.floats(-6, 6), min_size=30, max_size=30))
def test_binary_weights_spanning_1e12_converged_means_exact_gap(problem, solver, exponents):
    X, y, C = problem
    weights = 10.0 ** np.array(exponents[: len(y)])  # per-sample C_i = C w_i over twelve decades
    model = fit(BinarySVC(C=C, solver=solver, fit_intercept=solver == "smo", tol=TOL, max_iter=700,
                          random_state=0), X, y, sample_weight=weights)
    if model.result_.converged:
        y_pm = np.where(y == model.classes_[1], 1.0, -1.0)
        b = model.intercept_[0] if solver == "smo" else 0.0
        assert exact_binary_gap(X, y_pm, C * weights, model.alpha_, b) <= TOL


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems(), loss=st.sampled_from(["ww", "cs"]))
def test_parallel_on_float32_converged_means_true_gap(problem, loss):
    X, y, C = problem
    X32 = X.astype(np.float32)
    model = fit(MulticlassSVC(fit_intercept=False, C=C, loss=loss, solver="parallel", tol=TOL, max_iter=300,
                              random_state=0), X32, y)
    check_multiclass(model, X32.astype(np.float64), y, C, loss)  # the float32 values, recomputed in float64


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems(max_k=2), solver=st.sampled_from(["smo", "dual_cd"]), seed=st.integers(0, 2**16))
def test_binary_warm_start_across_a_label_change(problem, solver, seed):
    X, y, C = problem
    model = BinarySVC(C=C, solver=solver, fit_intercept=solver == "smo", tol=TOL, max_iter=700, random_state=0,
                      warm_start=True)
    fit(model, X, y)
    relabelled = np.random.default_rng(seed).permutation(y)  # other labels, same X: the warm state does not fit
    fit(model, X, relabelled)
    check_binary(model, X, np.where(relabelled == model.classes_[1], 1.0, -1.0), C, bias=solver == "smo")
