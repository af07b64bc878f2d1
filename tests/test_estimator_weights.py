"""``class_weight`` and ``fit(X, y, sample_weight)`` in the estimators, against oracles.

A weight scales the sample's C (:math:`C_i = C\\, w_{\\text{class}(i)}\\, s_i`), as LIBLINEAR and LIBSVM do, so the
fits must give the decision values of scikit-learn's LinearSVC (LIBLINEAR) and SVC (LIBSVM) with the same
weights; the multiclass losses without a LIBLINEAR counterpart are checked against the Clarabel optimum of
their weighted primal (tests/test_weights_multiclass.py's oracle and written-out primal).  scikit-learn's own
sample-weight equivalence checks (a weight of 2 is a repeated sample, a weight of 0 a removed one) pass on
tight-tol instances; at the default tol they are expected failures (tests/conftest.py's agree_to_their_gap).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import SVC, LinearSVC
from sklearn.utils.estimator_checks import (
    check_sample_weight_equivalence_on_dense_data,
    check_sample_weight_equivalence_on_sparse_data,
)
from test_multiclass import random_multiclass
from test_weights_multiclass import primal, weighted_primal_optimum

from svmteach import BinarySVC, MulticlassSVC, OneVsOneSVC, OneVsRestSVC

TIGHT = {"tol": 1e-11, "max_iter": 10**7}


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def labelled_binary(n=60, seed=4):
    """A noisy two-class problem with string labels, unbalanced (about 2:1), and sample weights in [0, 3)
    with five of them 0."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) + np.array([1.0, -0.5, 0.0])
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=n) > 0.5, "spam", "ham")
    weights = rng.uniform(0.0, 3.0, n)
    weights[3:8] = 0.0
    return X, y, weights


def close(f, f_ref, rtol):
    """Decision values equal to ``rtol`` of their scale."""
    np.testing.assert_allclose(f, f_ref, atol=rtol * max(1.0, np.abs(f_ref).max()))


WEIGHTINGS = [
    {"class_weight": {"spam": 3.0, "ham": 0.5}},
    {"class_weight": "balanced"},
    {"sample_weight": True},
    {"class_weight": {"spam": 2.0, "ham": 1.0}, "sample_weight": True},
]
IDS = ["class-dict", "balanced", "sample", "class-and-sample"]


def split(weighting, weights):
    """``(estimator keywords, fit keywords)`` of a weighting."""
    init = {k: v for k, v in weighting.items() if k == "class_weight"}
    fit = {"sample_weight": weights} if weighting.get("sample_weight") else {}
    return init, fit


@pytest.mark.parametrize("weighting", WEIGHTINGS, ids=IDS)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_dual_cd_weights_equal_linearsvc(weighting, sparse):
    X, y, weights = labelled_binary()
    Xin = sp.csr_array(np.where(np.abs(X) < 0.4, 0.0, X)) if sparse else X
    init, fit = split(weighting, weights)
    est = BinarySVC(solver="dual_cd", C=0.7, **init, **TIGHT).fit(Xin, y, **fit)
    ref = LinearSVC(loss="hinge", C=0.7, **init, **TIGHT).fit(Xin, y, **fit)
    close(est.decision_function(Xin), ref.decision_function(Xin), 1e-5)
    np.testing.assert_array_equal(est.classes_, ref.classes_)


KERNELS = {"linear": {"kernel": "linear"}, "rbf": {"kernel": "rbf", "gamma": 0.5}}


@pytest.mark.parametrize("kernel, weighting", [
    pytest.param(k, w, id=f"{k}-{i}")
    for k in KERNELS for w, i in zip(WEIGHTINGS, IDS)])
def test_smo_weights_equal_svc(kernel, weighting):
    X, y, weights = labelled_binary()
    init, fit = split(weighting, weights)
    est = BinarySVC(solver="smo", C=0.5, **KERNELS[kernel], **init, tol=1e-11, max_iter=10**5).fit(X, y, **fit)
    # LIBSVM stops at a KKT violation of tol (its kernel cache is float32: 1e-7 is not always reached)
    ref = SVC(C=0.5, **KERNELS[kernel], **init, tol=1e-6).fit(X, y, **fit)
    close(est.decision_function(X), ref.decision_function(X), 1e-5)


def test_smo_converges_on_a_weighted_problem():
    """60 samples, linear kernel, C = 0.5, weights in [0, 3) (five of them 0).  SMO's second-order rule used to
    repeat a null step here for ever (gap 0.687): alpha_8 ended two ulps below its bound C_8, too far for a
    snap measured in ulps of C_8 although the rounding came from its partner's larger value, so it stayed in
    I_up.  The snap to C now allows for the pair's scale."""
    X, y, weights = labelled_binary()
    est = BinarySVC(solver="smo", C=0.5, tol=1e-3, max_iter=10**4).fit(X, y, sample_weight=weights)
    assert est.result_.gap <= 1e-3


def test_weights_zero_make_no_support_vectors_and_equal_removal():
    X, y, weights = labelled_binary()
    est = BinarySVC(solver="smo", tol=1e-11).fit(X, y, sample_weight=weights)
    assert not np.isin(np.flatnonzero(weights == 0), est.support_).any()
    kept = BinarySVC(solver="smo", tol=1e-11).fit(X[weights > 0], y[weights > 0], sample_weight=weights[weights > 0])
    close(est.decision_function(X), kept.decision_function(X), 1e-7)


def test_a_class_weighted_zero_is_solved():
    """All weight on one class is degenerate but valid: w = 0 and every prediction is that class (LIBSVM
    refuses it)."""
    X, y, _ = labelled_binary()
    for solver in ("smo", "dual_cd"):
        est = BinarySVC(solver=solver, tol=1e-8).fit(X, y, sample_weight=(y == "ham").astype(float))
        assert np.all(est.predict(X) == "ham")
        assert np.abs(est.coef_).max() < 1e-3


@pytest.mark.parametrize("weighting", [{"class_weight": {0: 2.0, 1: 0.5, 2: 1.0}}, {"class_weight": "balanced"},
                                       {"sample_weight": True}], ids=["class-dict", "balanced", "sample"])
def test_crammer_singer_weights_equal_linearsvc(weighting):
    X, y = random_multiclass(n=40, d=3, k=3, seed=5)
    y = np.where(np.arange(40) < 6, 0, y)  # unbalanced
    weights = np.random.default_rng(1).uniform(0.0, 2.0, len(y))
    weights[[1, 4, 9]] = 0.0
    init = {k: v for k, v in weighting.items() if k == "class_weight"}
    fit = {"sample_weight": weights} if "sample_weight" in weighting else {}
    est = MulticlassSVC(loss="cs", solver="blondel", **init, tol=1e-11, max_iter=10**5).fit(X, y, **fit)
    ref = LinearSVC(multi_class="crammer_singer", **init, **TIGHT).fit(X, y, **fit)
    close(est.decision_function(X), ref.decision_function(X), 1e-5)


@pytest.mark.parametrize("loss", ["ww", "llw", "cs"])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_multiclass_weights_reach_the_weighted_qp_optimum(loss, fit_intercept):
    X, y = random_multiclass(n=36, d=3, k=3, seed=6)
    y = np.where(np.arange(36) < 20, y, 0)  # class 0 the largest
    weights = np.random.default_rng(2).uniform(0.0, 2.0, len(y))
    weights[[0, 5]] = 0.0
    est = MulticlassSVC(loss=loss, C=0.8, class_weight="balanced", fit_intercept=fit_intercept, tol=1e-10,
                        max_iter=10**5).fit(X, y, sample_weight=weights)
    counts = np.bincount(y)
    C_i = 0.8 * weights * (len(y) / (3 * counts))[y]  # C times the sample's weight times n / (k n_c)
    XB = np.hstack([X, np.ones((len(y), 1))]) if fit_intercept else X
    W = np.hstack([est.coef_, est.intercept_[:, None]]) if fit_intercept else est.coef_
    best = primal(XB, y, C_i, weighted_primal_optimum(XB, y, 3, C_i, loss), loss)
    assert rel(primal(XB, y, C_i, W, loss), best) < 1e-6


def test_one_vs_rest_passes_sample_weight_on():
    X, y = random_multiclass(n=45, d=3, k=3, seed=7)
    weights = np.random.default_rng(3).uniform(0.0, 3.0, len(y))
    weights[:4] = 0.0
    est = OneVsRestSVC(solver="dual_cd", C=0.5, **TIGHT).fit(X, y, sample_weight=weights)
    ref = LinearSVC(loss="hinge", C=0.5, **TIGHT).fit(X, y, sample_weight=weights)  # one-vs-rest, LIBLINEAR's
    close(est.decision_function(X), ref.decision_function(X), 1e-5)


@pytest.mark.parametrize("kernel", [{"kernel": "linear"}, {"kernel": "rbf", "gamma": 0.5}], ids=["linear", "rbf"])
def test_one_vs_one_passes_each_pair_its_weights(kernel):
    X, y = random_multiclass(n=45, d=3, k=3, seed=7)
    weights = np.random.default_rng(3).uniform(0.0, 3.0, len(y))
    weights[:4] = 0.0
    est = OneVsOneSVC(C=1.5, **kernel, solver="smo", tol=1e-11).fit(X, y, sample_weight=weights)  # SVC's bias
    for (a, b), e in zip(est.pairs_, est.estimators_):
        keep = (y == a) | (y == b)
        ref = SVC(C=1.5, **kernel, tol=1e-7, max_iter=10**6).fit(X[keep], np.where(y[keep] == b, 1, -1), sample_weight=weights[keep])
        close(e.decision_function(X), ref.decision_function(X), 1e-5)


# ---- bad weights are refused, naming the argument --------------------------------------------------------


@pytest.mark.parametrize("Estimator", [BinarySVC, MulticlassSVC])
@pytest.mark.parametrize("class_weight, exc, match", [
    ("bal", TypeError, "class_weight"), ([1.0, 2.0], TypeError, "class_weight"),
    ({0: -1.0, 1: 1.0}, ValueError, r"class_weight\[0\]"), ({0: np.nan, 1: 1.0}, ValueError, r"class_weight\[0\]"),
    ({0: "heavy", 1: 1.0}, TypeError, r"class_weight\[0\]"), ({7: 1.0}, ValueError, "class_weight"),
])
def test_bad_class_weight_is_refused_naming_it(Estimator, class_weight, exc, match):
    X, y = random_multiclass(n=20, d=3, k=2, seed=8)
    with pytest.raises(exc, match=match):
        Estimator(class_weight=class_weight).fit(X, y)


@pytest.mark.parametrize("Estimator", [BinarySVC, MulticlassSVC, OneVsRestSVC, OneVsOneSVC])
@pytest.mark.parametrize("sample_weight, exc", [
    (np.ones(5), ValueError), (-np.ones(20), ValueError), (np.r_[np.nan, np.ones(19)], ValueError),
    (np.r_[np.inf, np.ones(19)], ValueError), (np.zeros(20), ValueError), (np.ones((20, 1)), ValueError),
    (["a"] * 20, TypeError),
])
def test_bad_sample_weight_is_refused_naming_it(Estimator, sample_weight, exc):
    X, y = random_multiclass(n=20, d=3, k=2, seed=8)
    with pytest.raises(exc, match="sample_weight"):
        Estimator().fit(X, y, sample_weight=sample_weight)


def test_bad_sample_weight_is_refused_beside_class_weight():
    X, y = random_multiclass(n=20, d=3, k=2, seed=8)
    with pytest.raises(ValueError, match="sample_weight"):
        BinarySVC(class_weight="balanced").fit(X, y, sample_weight=np.ones(5))


# ---- scikit-learn's sample-weight equivalence checks, at a tight tol ------------------------------------

TIGHT_ESTIMATORS = {
    "binary-smo": BinarySVC(solver="smo", tol=1e-10, max_iter=10**7),
    "binary-dual_cd": BinarySVC(solver="dual_cd", tol=1e-10, max_iter=10**7),
    "binary-rbf": BinarySVC(kernel="rbf", gamma=0.5, tol=1e-10, max_iter=10**7),
    "ww": MulticlassSVC(loss="ww", tol=1e-10, max_iter=10**5),
    "cs": MulticlassSVC(loss="cs", tol=1e-10, max_iter=10**5),
    "llw": MulticlassSVC(loss="llw", tol=1e-10, max_iter=10**5),
    "shark": MulticlassSVC(loss="ww", solver="shark", tol=1e-10, max_iter=10**5),
    "ovr": OneVsRestSVC(tol=1e-10, max_iter=10**7),
    "ovo": OneVsOneSVC(tol=1e-10, max_iter=10**7),
}
DENSE_ONLY = ("binary-smo", "binary-rbf")  # SMO takes dense X only


@pytest.mark.parametrize("name", list(TIGHT_ESTIMATORS))
def test_sample_weight_equivalence_on_dense_data_at_tight_tol(name):
    check_sample_weight_equivalence_on_dense_data(name, TIGHT_ESTIMATORS[name])


@pytest.mark.parametrize("name", [name for name in TIGHT_ESTIMATORS if name not in DENSE_ONLY])
def test_sample_weight_equivalence_on_sparse_data_at_tight_tol(name):
    check_sample_weight_equivalence_on_sparse_data(name, TIGHT_ESTIMATORS[name])
