"""Per-sample C (``sample_weight``: the box of sample i is [0, C w_i]) in the binary objectives, dual
coordinate ascent and the primal subgradient, against oracles: scikit-learn's LinearSVC (LIBLINEAR -s 3 with
instance weights), the Clarabel QP oracle with a per-sample box, and the same problem with rows duplicated.
Every objective and gap is recomputed here from the alpha a run returns."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_binary
from oracles import binary_dual_optimum
from sklearn.svm import LinearSVC

from svmteach import BinaryProblem, DualCoordinateAscent, PrimalSubgradient, solve
from svmteach import objectives as obj
from svmteach.kernels import gram


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def weighted_data(n=80, d=5, seed=3, zeros=5):
    """A noisy two-class problem, weights in [0, 3) with the first ``zeros`` samples' weight 0."""
    X, y = random_binary(n=n, d=d, seed=seed, shift=0.7)
    weights = np.random.default_rng(seed + 100).uniform(0.0, 3.0, n)
    weights[2 : 2 + zeros] = 0.0  # (samples 0 and 1 keep both classes weighted)
    return X, y, weights


def weighted_primal(X, y, C_i, w):
    """:math:`\\tfrac12 \\|w\\|^2 + \\sum_i C_i \\max(0, 1 - y_i w^\\top x_i)` in float64, written out."""
    hinge = np.maximum(0.0, 1.0 - y * np.asarray(X @ w).ravel())
    return 0.5 * float(w @ w) + float(np.sum(C_i * hinge))


def kernel_gap(K, y, C_i, alpha):
    """The relative duality gap of ``alpha`` (no bias) from the kernel matrix: P(w(alpha)) and D(alpha)."""
    f = K @ (alpha * y)  # decision values of w = sum_j alpha_j y_j phi(x_j)
    norm2 = float((alpha * y) @ f)
    P = 0.5 * norm2 + float(np.sum(C_i * np.maximum(0.0, 1.0 - y * f)))
    D = float(np.sum(alpha)) - 0.5 * norm2
    return P, D, (P - D) / abs(P)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("C", [0.05, 1.0, 20.0])
def test_dual_cd_with_weights_matches_linearsvc(sparse, C):
    X, y, weights = weighted_data()
    Xin = sp.csr_array(np.where(np.abs(X) < 0.5, 0.0, X)) if sparse else X  # a real sparsity pattern
    p = BinaryProblem(Xin, y, C=C, sample_weight=weights)
    r = solve(DualCoordinateAscent(random_state=0), p, tol=1e-11, max_iter=10**7)
    assert r.converged
    Xd = Xin.toarray() if sparse else X
    w = Xd.T @ (r.state.alpha * y)
    ref = LinearSVC(loss="hinge", dual=True, fit_intercept=False, tol=1e-10, max_iter=10**7, C=C)
    ref.fit(Xin, y, sample_weight=weights)
    w_ref = ref.coef_.ravel()
    C_i = C * weights
    P, P_ref = weighted_primal(Xd, y, C_i, w), weighted_primal(Xd, y, C_i, w_ref)
    assert rel(P, P_ref) < 1e-5
    np.testing.assert_allclose(w, w_ref, rtol=1e-3, atol=1e-3 * np.abs(w_ref).max())
    assert rel(r.primal, P) < 1e-9  # what the result reports is the weighted primal of its alpha


@pytest.mark.parametrize("kern", [dict(kernel="linear"), dict(kernel="gaussian", gamma=0.7)], ids=["linear", "gaussian"])
@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("fast", [True, False])
def test_dual_cd_with_weights_reaches_the_qp_optimum(kern, shrinking, fast):
    X, y, weights = weighted_data(n=40, d=3, seed=11, zeros=4)
    C = 2.0
    p = BinaryProblem(X, y, C=C, sample_weight=weights, **kern)
    K = gram(X, X, p.kernel)
    C_i = C * weights
    best, _ = binary_dual_optimum(K, y, C_i, bias=False)  # the box 0 <= alpha_i <= C_i
    r = solve(DualCoordinateAscent(random_state=1, shrinking=shrinking), p, tol=1e-10, max_iter=400_000, fast=fast)
    alpha = np.asarray(r.state.alpha)
    assert r.converged
    assert np.all(alpha >= 0.0) and np.all(alpha <= C_i)
    assert np.all(alpha[weights == 0] == 0.0)  # a box {0}
    P, D, gap = kernel_gap(K, y, C_i, alpha)
    assert gap <= 1e-9 and rel(D, best) < 1e-7 and rel(P, best) < 1e-7  # P* = D* (no duality gap)
    assert r.gap == pytest.approx(gap, abs=1e-12)  # the reported gap is that of the returned alpha


def test_weight_zero_keeps_alpha_zero_from_every_start():
    """A weight 0 gives the box {0}: the uniform start draws 0 there, a warm start from a state with
    alpha_i > 0 clips it to 0, and no step moves it, though these samples violate their margin."""
    X, y, weights = weighted_data(n=50, d=2, seed=5, zeros=10)
    y[2:12] = -np.sign(X[2:12, 0])  # the weight-0 samples on the wrong side: their hinge is positive
    p = BinaryProblem(X, y, C=1.0, sample_weight=weights)
    zero = weights == 0
    for init in ("zero", "uniform"):
        solver = DualCoordinateAscent(init=init, random_state=2)
        state = solver.init(p)
        assert np.all(state.alpha[zero] == 0.0)
        for _ in range(3 * p.n_samples):
            state = solver.step(p, state)
            assert state.alpha[state.i] <= p.C_i[state.i]
        assert np.all(state.alpha[zero] == 0.0)
        r = solve(solver, p, tol=1e-10, max_iter=10**6)
        assert r.converged and np.all(r.state.alpha[zero] == 0.0)
        # LIBLINEAR's epoch violation counts no projected gradient for a box {0}: these samples'
        # G = y_i f_i - 1 < 0 would otherwise keep it near 1 for ever
        assert r.state.epoch_violation < 1e-3
    unweighted = solve(DualCoordinateAscent(random_state=2), BinaryProblem(X, y, C=1.0), tol=1e-8)
    assert np.any(unweighted.state.alpha[zero] > 0)  # without the weights these samples are support vectors
    warm = DualCoordinateAscent().warm_start(p, unweighted.state)
    assert np.all(warm.alpha[zero] == 0.0) and np.all(warm.alpha <= p.C_i)
    sub = PrimalSubgradient()
    state = sub.init(BinaryProblem(X, y, C=1.0))
    for _ in range(5):
        state = sub.step(BinaryProblem(X, y, C=1.0), state)
    assert np.any(state.alpha[zero] > 0)
    warm = sub.warm_start(p, state)
    assert np.all(warm.alpha[zero] == 0.0) and np.all(warm.alpha <= p.C_i)
    for _ in range(5):
        warm = sub.step(p, warm)
        assert np.all(warm.alpha[zero] == 0.0) and np.all(warm.alpha <= p.C_i)


def test_integer_weights_equal_duplicated_rows():
    """Weight m on a sample is the sample written m times: the same primal, hence the same optimal w."""
    X, y = random_binary(n=30, d=3, seed=8, shift=0.8)
    counts = np.random.default_rng(0).integers(0, 4, size=30)
    counts[:2] = 1  # both classes present
    C = 0.8
    weighted = solve(DualCoordinateAscent(random_state=0), BinaryProblem(X, y, C=C, sample_weight=counts),
                     tol=1e-11, max_iter=10**7)
    Xr, yr = np.repeat(X, counts, axis=0), np.repeat(y, counts)
    repeated = solve(DualCoordinateAscent(random_state=0), BinaryProblem(Xr, yr, C=C), tol=1e-11, max_iter=10**7)
    assert weighted.converged and repeated.converged
    w1 = X.T @ (weighted.state.alpha * y)
    w2 = Xr.T @ (repeated.state.alpha * yr)
    np.testing.assert_allclose(w1, w2, atol=1e-6 * np.abs(w2).max())
    assert rel(weighted_primal(X, y, C * counts, w1), weighted_primal(Xr, yr, C * np.ones(len(yr)), w2)) < 1e-9


def test_primal_subgradient_reports_the_weighted_objective_and_gap():
    X, y, weights = weighted_data(n=60, d=4, seed=21, zeros=6)
    C = 0.5
    p = BinaryProblem(X, y, C=C, sample_weight=weights)
    C_i = C * weights
    K = X @ X.T
    solver = PrimalSubgradient()
    state = solver.init(p)
    state = solver.step(p, state)  # from w = 0 every margin is 0 < 1: alpha = (1 - 1) 0 + 1 * C_i
    np.testing.assert_array_equal(state.alpha, C_i)
    for _ in range(200):
        state = solver.step(p, state)
        alpha = np.asarray(state.alpha)
        assert np.all(alpha >= 0.0) and np.all(alpha <= C_i)
    P, D, gap = kernel_gap(K, y, C_i, alpha)
    assert state.primal == pytest.approx(weighted_primal(X, y, C_i, X.T @ (alpha * y)), rel=1e-12)
    assert state.primal == pytest.approx(P, rel=1e-12) and state.dual == pytest.approx(D, rel=1e-12)
    assert state.gap == pytest.approx(gap, rel=1e-9)
    best, _ = binary_dual_optimum(K, y, C_i, bias=False)
    assert D <= best * (1 + 1e-9) <= P * (1 + 1e-9)  # weak duality around the weighted optimum
    assert gap < 0.05  # and it is getting there


def test_kkt_measures_give_a_box_zero_no_condition():
    """At the weighted optimum (the QP oracle's alpha) the no-bias KKT violation is ~0 although the
    weight-0 samples have a positive gradient 1 - y_i f_i (they sit inside the margin); the categories
    put them at 0; with a bias, the oracle's alpha gives a pair gap ~0 and the intercept of
    ``optimal_intercept`` a primal equal to the dual optimum."""
    X, y, weights = weighted_data(n=40, d=2, seed=4, zeros=6)
    y[2:8] = -np.sign(X[2:8, 0])  # the weight-0 samples on the wrong side
    C = 1.5
    p = BinaryProblem(X, y, C=C, sample_weight=weights)
    K, C_i, zero = X @ X.T, C * weights, weights == 0
    for bias in (False, True):
        best, alpha = binary_dual_optimum(K, y, C_i, bias=bias)
        # exactly at the bounds the interior-point solver approaches to ~1e-10 (the box {0} included)
        alpha = np.where(alpha < 1e-8 * C, 0.0, np.where(alpha > C_i - 1e-8 * C, C_i, alpha))
        f = K @ (alpha * y)
        assert np.all((1.0 - y * f)[zero] > 0.1)  # they would violate in a box [0, C]
        assert obj.kkt_violation(p, alpha, f, bias=bias) < 1e-5
        cats = np.asarray(obj.kkt_categories(p, alpha, rtol=1e-6))
        assert np.all(cats[zero] == obj.AT_ZERO)
        assert np.all(cats[(alpha >= C_i * (1 - 1e-6)) & ~zero] == obj.AT_C)
        up, low = obj.up_low_sets(p, alpha)
        assert not np.any(up[zero]) and not np.any(low[zero])
        if bias:
            b, _ = obj.optimal_intercept(p, alpha, f)
            hinge = np.maximum(0.0, 1.0 - y * (f + b))
            P = 0.5 * float((alpha * y) @ f) + float(np.sum(C_i * hinge))
            assert rel(P, best) < 1e-6
            assert obj.primal(p, alpha, b, f) == pytest.approx(P, rel=1e-12)


def test_gaussian_dual_cd_at_n_50000_keeps_its_memory_bounded():
    """Dual coordinate ascent with a gaussian kernel reads rows of K from the bounded row cache: at
    n = 50,000 (an (n, n) float64 K would be 20 GB) a run of a few hundred steps, compiled and step by
    step, allocates a few times ``cache_size`` (20 MB), and what it reports is recomputed from alpha."""
    import tracemalloc

    rng = np.random.default_rng(0)
    n = 50_000
    X = rng.standard_normal((n, 2))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    weights = rng.uniform(0.5, 2.0, n)
    small = BinaryProblem(X[:50], y[:50], kernel="gaussian", gamma=1.0)
    solve(DualCoordinateAscent(cache_size=20), small, max_iter=100)  # compile outside the measurement
    tracemalloc.start()
    try:
        p = BinaryProblem(X, y, C=1.0, kernel="gaussian", gamma=1.0, sample_weight=weights)
        solver = DualCoordinateAscent(random_state=0, cache_size=20)
        r = solve(solver, p, max_iter=500)
        state = r.state
        for _ in range(20):
            state = solver.step(p, state)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 100e6  # n^2 * 8 bytes = 2e10
    assert r.n_iter == 500 and state.n_iter == 520
    # the reported objectives of the compiled run, recomputed from its alpha (kernel rows in blocks)
    alpha = np.asarray(r.state.alpha)
    support = np.flatnonzero(alpha)
    assert 0 < support.size <= 500 and np.all(alpha <= p.C_i)
    coef = alpha[support] * y[support]
    f = np.zeros(n)
    for s in range(0, support.size, 50):
        block = support[s : s + 50]
        f += coef[s : s + 50] @ gram(X[block], X, p.kernel)
    norm2 = float(coef @ f[support])
    P = 0.5 * norm2 + float(np.sum(p.C_i * np.maximum(0.0, 1.0 - y * f)))
    D = float(alpha.sum()) - 0.5 * norm2
    assert r.primal == pytest.approx(P, rel=1e-10) and r.dual == pytest.approx(D, rel=1e-10)
    assert r.gap == pytest.approx((P - D) / P, rel=1e-8)


@pytest.mark.parametrize("rows_kept", [2, 7])
def test_dual_cd_with_a_cache_of_a_few_rows_reaches_the_qp_optimum(rows_kept):
    """A cache that holds a few rows of K (most visits evict one) changes no step: the weighted gaussian
    problem is solved to the Clarabel optimum, on the compiled and the step path alike."""
    X, y, weights = weighted_data(n=60, d=2, seed=13, zeros=3)
    C = 3.0
    p = BinaryProblem(X, y, C=C, sample_weight=weights, kernel="gaussian", gamma=2.0)
    cache_size = rows_kept * p.n_samples * 8 / 1e6  # MB holding rows_kept rows of n float64 numbers
    assert DualCoordinateAscent(cache_size=cache_size).init(p).rows.buffer.shape[0] == rows_kept
    K = gram(X, X, p.kernel)
    best, _ = binary_dual_optimum(K, y, C * weights, bias=False)
    for fast in (True, False):
        r = solve(DualCoordinateAscent(random_state=3, cache_size=cache_size), p, tol=1e-10, max_iter=300_000,
                  fast=fast)
        _, D, gap = kernel_gap(K, y, C * weights, np.asarray(r.state.alpha))
        assert r.converged and gap <= 1e-9 and rel(D, best) < 1e-7


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-5.0, ValueError), (float("nan"), ValueError),
                                        ("200", TypeError), (True, TypeError)])
def test_dual_cd_refuses_a_bad_cache_size(bad, error):
    with pytest.raises(error, match="cache_size"):
        DualCoordinateAscent(cache_size=bad)
