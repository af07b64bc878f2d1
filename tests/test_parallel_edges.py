"""The parallel solver's budget and its float32 arithmetic (issue 26).

A parallel step updates every sample, so its default budget counts blocks as the sequential solvers'
does (not 100,000 steps of n blocks each), times what an intercept column costs it; on a float32 X its W,
scores and objectives are float64, so
a converged result's gap, recomputed in float64 from its alpha, is at most tol.
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning

from svmteach import MulticlassProblem, MulticlassSVC, ParallelBlock, solve
from svmteach.data import synthetic_multiclass
from svmteach.solvers.base import DEFAULT_EPOCHS, DEFAULT_STEPS
from svmteach.solvers.parallel_block import MAX_INTERCEPT_FACTOR, intercept_factor


def test_default_budget_counts_blocks_not_steps_of_one():
    """Lee-Lin-Wahba at C = 1000 with a bias column on 100 points: the parallel solver's dual climbs
    slowly (its gap is still near 1 after thousands of steps), so the default budget decides when it
    stops; it used to be 100,000 steps of 100 blocks each (minutes)."""
    X, y = make_blobs(100, 2, centers=3, random_state=0)
    p = MulticlassProblem(X, y, loss="llw", C=1e3, bias=1.0)
    solver = ParallelBlock()
    budget = solver.default_max_iter(p)
    assert budget == max(DEFAULT_EPOCHS, math.ceil(DEFAULT_STEPS / p.n_samples)) == 1000
    assert ParallelBlock().default_max_iter(MulticlassProblem(X[:24], y[:24], loss="llw")) == math.ceil(DEFAULT_STEPS / 24)
    seen = []

    def overran(state):  # stop a run that passes the budget (the old default would go on to 100,000)
        seen.append(int(state.n_iter))
        return state.n_iter > 2 * budget

    r = solve(solver, p, tol=1e-6, callback=overran)
    assert max(seen) <= budget and r.n_iter == budget and not r.converged


@pytest.mark.parametrize("loss", ["ww", "cs", "llw"])
def test_float32_results_are_certified_in_float64(loss):
    """float32 X: a converged run's gap, recomputed in float64 from its alpha (the loss's primal and dual
    on a float64 copy of X), is at most tol; Lee-Lin-Wahba's W columns sum to 0.  (The step products in
    float32 used to give an InfeasibleStateError for LLW, a WW run that never reached tol, and CS runs
    "converged" above tol.)"""
    tol = 1e-8
    X, y = make_blobs(24, 2, centers=3, random_state=0)
    X32 = X.astype(np.float32)
    p = MulticlassProblem(X32, y, loss=loss, bias=1.0)
    r = solve(ParallelBlock(), p, tol=tol, max_iter=5000)
    assert r.converged
    p64 = MulticlassProblem(X32.astype(np.float64), y, loss=loss, bias=1.0)
    alpha, W = ParallelBlock().coefficients(p, r.state)
    W64 = p64.loss_object.weights(p64, alpha)
    P, D = p64.loss_object.primal(p64, W64), p64.loss_object.dual(p64, alpha, W64)
    assert 0 <= (P - D) / P <= tol
    assert r.primal == pytest.approx(P, rel=1e-12) and r.dual == pytest.approx(D, rel=1e-12)
    np.testing.assert_allclose(W, W64, rtol=0, atol=1e-12 * np.abs(W64).max())
    if loss == "llw":
        assert np.abs(W.sum(axis=0)).max() <= 1e-12 * np.abs(W).max()


def test_float32_llw_estimator_columns_sum_to_zero():
    """MulticlassSVC(loss="llw", solver="parallel") on float32 X: every column of (coef_, intercept_) sums to 0
    (they were off by 5e-6 of W, the float32 rounding of A' X) and the fit's gap is certified in float64."""
    X, y = make_blobs(24, 2, centers=3, random_state=0)
    X32 = X.astype(np.float32)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*meant for a GPU")  # on the CPU: PART EST's warning
        m = MulticlassSVC(loss="llw", solver="parallel", tol=1e-8).fit(X32, y)
    assert m.result_.converged
    full = np.column_stack([m.coef_, m.intercept_])
    assert np.abs(full.sum(axis=0)).max() <= 1e-12 * np.abs(full).max()
    p64 = m.problem_for(X32.astype(np.float64), y)
    W64 = p64.loss_object.weights(p64, m.alpha_)
    P, D = p64.loss_object.primal(p64, W64), p64.loss_object.dual(p64, m.alpha_, W64)
    assert 0 <= (P - D) / P <= 1e-8


@pytest.mark.parametrize("loss", ["ww", "cs"])
def test_parallel_defaults_converge_with_an_intercept(loss):
    """MulticlassSVC(solver="parallel") with its defaults on 300 rows of norm about 1 in 20 dimensions with
    intercept_scaling=4: the intercepts couple every block and the solver needs 1,370 (WW) / 2,190 (CS) steps,
    more than the 1,000 it used to get (ConvergenceWarning); the budget now grows with the bias column's
    scale, and the fitted model's primal is within tol of the optimum that the sequential solver certifies
    at 1e-9 (recomputed from coef_ and intercept_)."""
    X, y = synthetic_multiclass(300, 20, 4, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*meant for a GPU")
        warnings.simplefilter("error", ConvergenceWarning)
        m = MulticlassSVC(loss=loss, solver="parallel", intercept_scaling=4.0).fit(X, y)
    assert m.result_.converged and m.n_iter_ > DEFAULT_EPOCHS
    ref = MulticlassSVC(loss=loss, intercept_scaling=4.0, tol=1e-9).fit(X, y)
    assert ref.result_.converged
    p = m.problem_for(X, y)
    W = np.column_stack([m.coef_, m.intercept_ / 4.0])
    P = p.loss_object.primal(p, W)
    W_ref = p.loss_object.weights(p, ref.alpha_)
    D_ref = p.loss_object.dual(p, ref.alpha_, W_ref)  # within 1e-9 of the optimum, below it
    assert 0 <= (P - D_ref) / P <= m.tol


def test_intercept_factor_is_the_root_of_the_bias_columns_scale():
    """sqrt(B^2 d / mean ||x_i||^2) recomputed from X, within [1, MAX_INTERCEPT_FACTOR]: 1 without a bias and
    on standardised data (a bias column like any feature), the cap for a large bias or all-zero features."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 20)) / np.sqrt(20)  # rows of norm about 1: a feature's second moment 1/20
    y = rng.integers(0, 3, 200)
    r = 1.0 ** 2 * 20 / np.mean(np.sum(X * X, axis=1))
    assert intercept_factor(MulticlassProblem(X, y, bias=1.0)) == pytest.approx(math.sqrt(r), rel=1e-12)
    assert intercept_factor(MulticlassProblem(X, y)) == 1.0
    Z = (X - X.mean(axis=0)) / X.std(axis=0)  # standardised: r = 1
    assert intercept_factor(MulticlassProblem(Z, y, bias=1.0)) == 1.0
    assert intercept_factor(MulticlassProblem(X, y, bias=100.0)) == MAX_INTERCEPT_FACTOR
    assert intercept_factor(MulticlassProblem(np.zeros_like(X), y, bias=1.0)) == MAX_INTERCEPT_FACTOR
    p = MulticlassProblem(X, y, bias=1.0)
    assert ParallelBlock().default_max_iter(p) == math.ceil(max(DEFAULT_EPOCHS, DEFAULT_STEPS / 200) * math.sqrt(r))
