"""SMO with per-sample bounds C_i = C w_i (sample weights, some 0) against LIBSVM (scikit-learn's SVC
with the same weights) and an independent QP solver with the same boxes."""

import numpy as np
import pytest
from conftest import random_binary
from oracles import binary_dual_optimum
from sklearn.svm import SVC

from svmteach import SMO, BinaryProblem, iterate, solve
from svmteach.solvers.base import warm_start

KERNELS = [{"kernel": "linear"}, {"kernel": "gaussian", "gamma": 0.7}]
SK = {"linear": {"kernel": "linear"}, "gaussian": {"kernel": "rbf", "gamma": 0.7}}


def weights(n, seed):
    """Weights from 0.1 to 3, a fifth of them 0."""
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.1, 3.0, size=n)
    w[rng.random(n) < 0.2] = 0.0
    w[:2] = 1.0  # (samples 0 and 1 carry both classes in random_binary)
    return w


@pytest.mark.parametrize("kern", KERNELS, ids=lambda k: k["kernel"])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("fast", [True, False])
def test_weighted_smo_matches_libsvm_and_the_qp_oracle(kern, C, fast):
    X, y = random_binary(n=60, d=3, seed=7)
    w = weights(60, seed=int(C * 10))
    p = BinaryProblem(X, y, C=C, sample_weight=w, **kern)
    r = solve(SMO(random_state=0), p, tol=1e-10, max_iter=200_000, fast=fast)
    alpha, b = np.asarray(r.state.alpha), r.state.b
    assert r.converged
    # feasible: 0 <= alpha_i <= C w_i (a weight 0 pins alpha_i at 0), y'alpha = 0
    assert np.all(alpha >= 0) and np.all(alpha <= C * w) and np.all(alpha[w == 0] == 0)
    assert abs(alpha @ y) < 1e-9 * max(1.0, alpha.sum())
    K = np.array(p.kernel_with(X))
    best, _ = binary_dual_optimum(K, y, C * w, bias=True)  # the boxes [0, C w_i]
    assert r.dual == pytest.approx(best, rel=1e-6) and r.dual <= best * (1 + 1e-9)
    # the reported objectives are those of alpha and b: sum_i C w_i xi_i for the weighted hinge
    f = (alpha * y) @ K
    dual = alpha.sum() - 0.5 * (alpha * y) @ f
    primal = 0.5 * (alpha * y) @ f + np.sum(C * w * np.maximum(0.0, 1.0 - y * (f + b)))
    assert r.dual == pytest.approx(dual, rel=1e-10) and r.primal == pytest.approx(primal, rel=1e-10)
    ref = SVC(C=C, tol=1e-10, **SK[kern["kernel"]]).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(f + b, ref.decision_function(X), atol=1e-5 * max(1.0, C))


@pytest.mark.parametrize("selection", ["second_order", "max_violating_pair", "random"])
def test_unit_weights_take_the_unweighted_steps_and_zero_weights_never_move(selection):
    """Weights all 1 take the unweighted run's steps bit for bit, on both paths; with zero weights
    the compiled loop and the step path still agree, and a zero-weight sample is never picked
    (its box is {0}) except as the random rule's partner, which cannot move it."""
    X, y = random_binary(n=50, d=3, seed=2)
    kern = {"kernel": "gaussian", "gamma": 0.5}
    plain, ones = BinaryProblem(X, y, C=2.0, **kern), BinaryProblem(X, y, C=2.0, sample_weight=np.ones(50), **kern)
    s = SMO(selection, random_state=3)
    a, b = s.advance(plain, s.init(plain), 200), s.advance(ones, s.init(ones), 200)
    assert np.array_equal(a.alpha, b.alpha) and a.b == b.b
    w = weights(50, seed=5)
    p = BinaryProblem(X, y, C=2.0, sample_weight=w, **kern)
    states = list(iterate(s, p, max_iter=150))
    fast = s.advance(p, s.init(p), 150)
    np.testing.assert_allclose(fast.alpha, states[-1].alpha, atol=1e-12)
    for st in states:
        assert np.all(st.alpha[w == 0] == 0) and np.all(st.alpha <= 2.0 * w)
        if selection != "random" and st.i >= 0:
            assert w[st.i] > 0 and w[st.j] > 0


def test_weights_scale_like_C():
    """Every weight c is C c: the same optimum."""
    X, y = random_binary(n=40, d=2, seed=9)
    a = solve(SMO(), BinaryProblem(X, y, C=0.5, sample_weight=np.full(40, 4.0), kernel="gaussian"), tol=1e-10)
    b = solve(SMO(), BinaryProblem(X, y, C=2.0, kernel="gaussian"), tol=1e-10)
    assert a.dual == pytest.approx(b.dual, rel=1e-9)
    np.testing.assert_allclose(a.state.alpha, b.state.alpha, atol=1e-8)


def test_warm_start_scales_into_every_samples_box():
    """An unweighted solution warm-starts a weighted problem: scaled into every [0, C w_i], y'alpha = 0
    kept, and the run goes on to the oracle's optimum."""
    X, y = random_binary(n=50, d=3, seed=11)
    w = weights(50, seed=1)
    w[w == 0] = 0.05  # (a weight 0 under a support vector would scale alpha to 0: a valid, cold start)
    plain = solve(SMO(), BinaryProblem(X, y, C=1.0), tol=1e-10)
    p = BinaryProblem(X, y, C=1.0, sample_weight=w)
    start = warm_start(SMO(), p, plain.state)
    alpha = np.asarray(start.alpha)
    assert np.all(alpha >= 0) and np.all(alpha <= w * (1 + 1e-15)) and abs(alpha @ y) < 1e-12
    assert np.any(alpha > 0)
    r = solve(SMO(), p, tol=1e-10, state=plain.state)
    best, _ = binary_dual_optimum(X @ X.T, y, w, bias=True)
    assert r.converged and r.dual == pytest.approx(best, rel=1e-6)
