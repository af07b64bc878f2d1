"""SMO's tol is the certified relative duality gap, as for every solver; SMO stops at a float64 fixed
point instead of chasing rounding; it refuses a problem that is not binary.

Gaps are recomputed here from what a result returns (alpha, b) with an explicit Gram matrix; optima come
from LIBSVM (scikit-learn's SVC) or the independent QP solver of ``oracles``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from oracles import binary_dual_optimum
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from svmteach import SMO, BinaryProblem, BinarySVC, MulticlassProblem, solve
from svmteach.solvers.smo import pair_violates


def objectives(K, y, C_i, alpha, b):
    """(P, D, (P - D) / |P|) of ``alpha`` and ``b``, from the Gram matrix ``K``."""
    f = (alpha * y) @ K
    w2 = (alpha * y) @ f
    P = 0.5 * w2 + np.sum(C_i * np.maximum(0.0, 1.0 - y * (f + b)))
    D = alpha.sum() - 0.5 * w2
    return P, D, (P - D) / abs(P)


def gaussian_problem(n=1000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = np.where(X[:, 0] + X[:, 1] ** 2 - 1 + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def test_a_looser_tol_takes_fewer_steps_and_each_gap_is_certified():
    # every tol from 0.1 to 1e-4 gave the same model after one epoch of n pair steps (gap 4e-6 at n = 5,000)
    X, y = gaussian_problem()
    p = BinaryProblem(X, y, C=1.0, kernel="gaussian", gamma=0.2)
    K = rbf_kernel(X, gamma=0.2)
    steps = []
    for tol in (1e-1, 1e-2, 1e-4):
        r = solve(SMO(), p, tol=tol)
        alpha = np.asarray(r.state.alpha)
        P, D, gap = objectives(K, y, 1.0, alpha, r.state.b)
        assert r.converged and gap <= tol
        assert r.gap == pytest.approx(gap, rel=1e-6, abs=1e-12)  # it reports the gap of what it returns
        steps.append(r.n_iter)
    assert steps[0] < steps[1] < steps[2]
    ref = SVC(C=1.0, kernel="rbf", gamma=0.2, tol=1e-8).fit(X, y)  # LIBSVM's optimum
    a = np.zeros(len(y))
    a[ref.support_] = np.abs(ref.dual_coef_[0])
    best = a.sum() - 0.5 * (a * y) @ K @ (a * y)
    assert best - D <= 1e-4 * abs(P) + 1e-7 * abs(best)  # the tol = 1e-4 model is within tol of the optimum
    # the estimator passes tol through: the same ordering
    fitted = [BinarySVC(kernel="rbf", gamma=0.2, solver="smo", tol=tol).fit(X, y).result_.n_iter for tol in (1e-1, 1e-4)]
    assert fitted[0] < fitted[1]


def weighted_blobs():
    """The issue's reproducer: 24 points, class weights 1e6 and 1e-6 (per-sample C spanning 1e12)."""
    X, y = make_blobs(n_samples=24, centers=2, random_state=0)
    return X, np.where(y == 1, 1.0, -1.0)


@pytest.mark.parametrize("fast", [True, False])
def test_per_sample_C_spanning_1e12_stops_at_the_float64_fixed_point(fast):
    # SMO chased violations of one ulp for 1e6 pair steps (25 s) before the estimator's direct finish
    X, y = weighted_blobs()
    C_i = np.where(y < 0, 1e6, 1e-6)
    p = BinaryProblem(X, y, C=1.0, kernel="gaussian", gamma=1.0, sample_weight=C_i)
    r = solve(SMO(), p, tol=1e-6, fast=fast)
    assert r.n_iter < 500
    alpha = np.asarray(r.state.alpha)
    assert np.all(alpha >= 0) and np.all(alpha <= C_i) and abs(alpha @ y) <= 1e-12 * alpha.sum()
    assert not pair_violates(p, alpha, r.state.grad)  # nothing a pair step could still resolve
    K = rbf_kernel(X, gamma=1.0)
    P, D, gap = objectives(K, y, C_i, alpha, r.state.b)
    best, _ = binary_dual_optimum(K, y, C_i, bias=True)
    assert D == pytest.approx(best, rel=1e-6)
    assert not r.converged or gap <= 1e-6


def test_the_estimator_on_the_reproducer_takes_few_steps():
    X, y = weighted_blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the gap is below float64's resolution of the primal
        model = BinarySVC(kernel="rbf", gamma=1.0, tol=1e-6, class_weight={-1: 1e6, 1: 1e-6}, solver="smo").fit(X, y)
    assert model.result_.n_iter < 500
    K, C_i = rbf_kernel(X, gamma=1.0), np.where(y < 0, 1e6, 1e-6)
    best, _ = binary_dual_optimum(K, y, C_i, bias=True)
    assert objectives(K, y, C_i, model.alpha_, model.intercept_[0])[1] == pytest.approx(best, rel=1e-6)


def test_smo_refuses_a_multiclass_problem_naming_what_it_needs():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(12, 2)), np.arange(12) % 3
    multi = MulticlassProblem(X, y, C=1.0)
    with pytest.raises(TypeError, match="SMO needs a BinaryProblem.*MulticlassProblem"):
        solve(SMO(), multi)
    binary = BinaryProblem(X, np.where(y == 0, 1.0, -1.0), C=1.0)
    with pytest.raises(TypeError, match="SMO needs a BinaryProblem"):
        SMO().warm_start(multi, SMO().init(binary))
