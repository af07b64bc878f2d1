"""``warm_start=True`` in the estimators: a fit that starts from the previous fit's dual solution must reach
the optimum a cold fit reaches (the primal written out here from ``coef_`` / ``intercept_``, compared at tol
1e-9), along a grid of C in either direction and across a change of ``sample_weight``; it must count only its
own steps, and start cold when the data changed shape.  Without ``warm_start`` a model keeps no state.
"""

import numpy as np
import pytest
from conftest import random_binary
from test_multiclass import random_multiclass
from test_weights_multiclass import primal as multiclass_primal

from svmteach import BinarySVC, MulticlassSVC

GRID = [0.1, 1.0, 10.0]
TOL = 1e-9


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def binary_primal(est, X, y, C_i):
    """:math:`\\tfrac12 \\|w\\|^2 [+ \\tfrac12 (b/B)^2] + \\sum_i C_i \\max(0, 1 - y_i (w^\\top x_i + b))`: the intercept
    is penalised for dual_cd's constant feature (B = 1), not for SMO's bias."""
    f = est.decision_function(X)
    penalty = 0.5 * float(est.coef_[0] @ est.coef_[0])
    if est.solver_ == "dual_cd":
        penalty += 0.5 * float(est.intercept_[0]) ** 2
    return penalty + float(np.sum(C_i * np.maximum(0.0, 1.0 - y * f)))


def mc_primal(est, X, y, C_i):
    """The multiclass primal on [X, 1] (its intercepts a column of W), written out."""
    XB = np.hstack([X, np.ones((X.shape[0], 1))])
    return multiclass_primal(XB, y, C_i, np.hstack([est.coef_, est.intercept_[:, None]]), est.loss)


ESTIMATORS = {
    "smo": (lambda: BinarySVC(solver="smo", tol=TOL, random_state=0), "binary"),
    "dual_cd": (lambda: BinarySVC(solver="dual_cd", tol=TOL, max_iter=10**7, random_state=0), "binary"),
    "ww": (lambda: MulticlassSVC(loss="ww", solver="exact", tol=TOL, max_iter=10**5, random_state=0), "multi"),
    "cs": (lambda: MulticlassSVC(loss="cs", solver="blondel", tol=TOL, max_iter=10**5, random_state=0), "multi"),
    "llw": (lambda: MulticlassSVC(loss="llw", solver="exact", tol=TOL, max_iter=10**5, random_state=0), "multi"),
}


def data(kind, n=40, seed=0):
    if kind == "binary":
        X, y = random_binary(n=n, d=3, seed=seed, shift=0.8)
        return X + 1.0, y
    return random_multiclass(n=n, d=3, k=3, seed=seed)


def objective(est, X, y, C_i, kind):
    return (binary_primal if kind == "binary" else mc_primal)(est, X, y, C_i)


@pytest.mark.parametrize("direction", ["increasing", "decreasing"])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_warm_fits_along_a_grid_of_C_reach_the_cold_optimum(name, direction):
    make, kind = ESTIMATORS[name]
    X, y = data(kind)
    warm = make().set_params(warm_start=True)
    grid = GRID if direction == "increasing" else GRID[::-1]
    for i, C in enumerate(grid):
        before = warm.result_.n_iter if i else 0
        warm.set_params(C=C).fit(X, y)
        cold = make().set_params(C=C).fit(X, y)
        assert warm.solver_ == cold.solver_ == make().solver
        C_i = np.full(len(y), C)
        assert rel(objective(warm, X, y, C_i, kind), objective(cold, X, y, C_i, kind)) < 1e-6
        assert warm.result_.gap <= TOL
        # n_iter_ counts this fit's epochs (n steps each), not the previous fits'
        taken = warm.result_.n_iter - before
        assert warm.n_iter_ == -(-taken // len(y))


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_a_warm_refit_at_the_optimum_takes_almost_no_steps(name):
    make, kind = ESTIMATORS[name]
    X, y = data(kind)
    warm = make().set_params(warm_start=True, C=1.0).fit(X, y)
    first = warm.result_.n_iter
    warm.fit(X, y)
    assert warm.n_iter_ <= 1 and warm.result_.n_iter - first <= len(y) < first  # one epoch (n steps) confirms it
    assert warm.result_.gap <= TOL


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_a_change_of_sample_weight_warm_reaches_the_cold_optimum(name):
    make, kind = ESTIMATORS[name]
    X, y = data(kind)
    rng = np.random.default_rng(5)
    first, second = rng.uniform(0.0, 2.0, len(y)), rng.uniform(0.0, 2.0, len(y))
    first[:3], second[3:6] = 0.0, 0.0  # boxes that close and open
    warm = make().set_params(warm_start=True, C=2.0).fit(X, y, sample_weight=first)
    warm.fit(X, y, sample_weight=second)
    cold = make().set_params(C=2.0).fit(X, y, sample_weight=second)
    C_i = 2.0 * second
    assert rel(objective(warm, X, y, C_i, kind), objective(cold, X, y, C_i, kind)) < 1e-6
    alpha = warm.alpha_
    assert np.all(alpha[3:6] == 0.0)  # a box {0} holds its sample at 0


@pytest.mark.parametrize("change", ["fewer samples", "more features", "other classes"])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_a_refit_on_other_data_starts_cold(name, change):
    make, kind = ESTIMATORS[name]
    X, y = data(kind)
    if change == "fewer samples":
        X2, y2 = X[:30], y[:30]
    elif change == "more features":
        X2 = np.hstack([X, X[:, :1] ** 2])
        y2 = y
    else:  # the same shape, other labels
        X2, y2 = X, (np.where(y > 0, 7, 3) if kind == "binary" else y + 10)
    warm = make().set_params(warm_start=True).fit(X, y)
    warm.fit(X2, y2)
    cold = make().fit(X2, y2)
    # a cold start with the same random_state takes the same steps to the same model
    assert warm.n_iter_ == cold.n_iter_
    np.testing.assert_allclose(warm.coef_, cold.coef_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(warm.intercept_, cold.intercept_, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(warm.classes_, np.unique(y2))


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_without_warm_start_the_model_keeps_no_state(name):
    make, kind = ESTIMATORS[name]
    X, y = data(kind)
    est = make().fit(X, y)
    assert est.result_.state is None
    n_iter = est.n_iter_
    est.set_params(C=1.0).fit(X, y)  # the same fit again: from scratch, the same steps
    assert est.n_iter_ == n_iter and est.result_.state is None
    warm = make().set_params(warm_start=True).fit(X, y)
    assert warm.result_.state is not None
    warm.set_params(warm_start=False).fit(X, y)  # switched off: a cold fit, the state dropped
    assert warm.n_iter_ == n_iter and warm.result_.state is None
