"""SMO's bounded kernel-row cache: its rows against scikit-learn's kernels, eviction that changes no
step, memory far below an (n, n) matrix at n = 50,000, and exact reported objectives on raw features."""

import tracemalloc

import numpy as np
import pytest
from conftest import random_binary
from oracles import binary_dual_optimum
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from svmteach import SMO, BinaryProblem, DualCoordinateAscent, solve
from svmteach.solvers.kernel_scores import KernelRowCache, row_cache
from svmteach.solvers.numba_kernel_rows import get_row, scores

MB = 2**20


def sklearn_kernel(name, X, gamma):
    """The kernel matrix by scikit-learn (the Laplacian with the Euclidean norm, the course's)."""
    if name == "linear":
        return linear_kernel(X)
    if name == "polynomial":
        return polynomial_kernel(X, gamma=gamma, degree=3, coef0=1.0)
    if name == "gaussian":
        return rbf_kernel(X, gamma=gamma)
    D = np.sqrt(np.maximum(((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2), 0.0))
    return np.exp(-gamma * D)


@pytest.mark.parametrize("name", ["linear", "polynomial", "gaussian", "laplacian"])
def test_rows_equal_sklearn_kernels_through_evictions(name):
    """Rows asked for in random order from a cache of 3 rows equal scikit-learn's; the cache holds the
    3 rows asked for last, and a row asked for again after its eviction is computed again, equal."""
    X, y = random_binary(n=200, d=4, seed=1)
    p = BinaryProblem(X, y, kernel=name, gamma=0.3, degree=3, coef0=1.0)
    K = sklearn_kernel(name, X, 0.3)
    size = 3 * 8 * 200 / MB  # three rows of n float64
    cache = row_cache(p, size)
    assert cache.buffer.shape == (3, 200) and cache.buffer.dtype == np.float64
    order = np.random.default_rng(0).integers(0, 200, size=60)
    for k, i in enumerate(order):
        np.testing.assert_allclose(get_row(cache, int(i)), K[i], rtol=1e-12, atol=1e-12)
        recent = list(dict.fromkeys(order[: k + 1][::-1]))[:3]  # the last 3 distinct rows asked for
        assert set(np.flatnonzero(cache.have)) == set(recent)
        assert np.all(cache.owner[cache.slot[recent]] == recent)
    assert cache.clock[0] == len(order)
    # the decision values from rows, the rows evicted and recomputed as they go
    support = np.arange(0, 200, 7)
    coef = np.random.default_rng(2).normal(size=200)
    np.testing.assert_allclose(scores(cache, support, coef), coef[support] @ K[support], rtol=1e-10, atol=1e-10)


def test_cache_size_sets_the_rows_and_is_checked():
    X, y = random_binary(n=1000, d=3, seed=0)
    p = BinaryProblem(X, y, kernel="gaussian", gamma=0.5)
    assert row_cache(p).buffer.shape == (1000, 1000)  # 200 MB hold every row: slot i is row i
    assert row_cache(p, 1.0).buffer.shape == (131, 1000)  # 1 MB / 8000 bytes a row
    assert row_cache(p, 1e-9).buffer.shape == (2, 1000)  # at least the two rows of a step
    for bad, err in [(0, ValueError), (-1.0, ValueError), (np.inf, ValueError), ("200", TypeError), (True, TypeError)]:
        with pytest.raises(err, match="cache_size"):
            SMO(cache_size=bad)
    assert isinstance(KernelRowCache.make(p.X, p.kernel, 1.0), tuple)


@pytest.mark.parametrize("make", [SMO, DualCoordinateAscent], ids=["smo", "dual_cd"])
def test_the_row_cache_belongs_to_the_run(make):
    """A run makes its cache in ``init`` and its states carry it (the steps, the compiled loop and the measure
    fill that one); a warm start on the same X and kernel keeps it, on other data or another size gets a new
    one; the problem holds none, and two runs on one problem have two."""
    X, y = random_binary(n=40, d=3, seed=2)
    p = BinaryProblem(X, y, C=1.0, kernel="gaussian", gamma=0.5)
    solver = make(random_state=0, cache_size=1e-9)
    start = solver.init(p)
    rows = start.rows
    assert isinstance(rows, KernelRowCache) and rows.X is p.X and rows.have.sum() == 0
    moved = solver.advance(p, solver.step(p, start), 30)
    assert solver.step(p, start).rows is rows and moved.rows is rows and solver.measure(p, moved).rows is rows
    assert rows.clock[0] > 0  # the run's reads went to its own cache
    assert solver.init(p).rows is not rows  # another run, another cache
    assert "_kernel_rows" not in vars(p) and not any(isinstance(v, KernelRowCache) for v in vars(p).values())
    assert solver.warm_start(p.with_C(3.0), moved).rows is rows  # same X and kernel: the rows are still good
    other = BinaryProblem(X + 1.0, y, C=1.0, kernel="gaussian", gamma=0.5)
    assert solver.warm_start(other, moved).rows is not rows
    assert make(random_state=0).warm_start(p, moved).rows.buffer.shape == (40, 40)  # 200 MB: every row


@pytest.mark.parametrize("kern", [{"kernel": "gaussian", "gamma": 0.5}, {"kernel": "linear"},
                                  {"kernel": "polynomial", "gamma": 0.5, "degree": 2, "coef0": 1.0}],
                         ids=lambda k: k["kernel"])
@pytest.mark.parametrize("selection", ["second_order", "max_violating_pair", "random"])
def test_a_tiny_cache_takes_the_same_steps_as_a_big_one(kern, selection):
    """Two rows of cache against every row: the compiled loop and the step path take the same steps
    (bit for bit), and the tiny cache did evict."""
    X, y = random_binary(n=120, d=3, seed=4)
    big, tiny = BinaryProblem(X, y, C=2.0, **kern), BinaryProblem(X, y, C=2.0, **kern)
    a = SMO(selection, random_state=1).advance(big, SMO(selection, random_state=1).init(big), 300)
    small = SMO(selection, random_state=1, cache_size=1e-9)
    b = small.advance(tiny, small.init(tiny), 300)
    assert np.array_equal(a.alpha, b.alpha) and a.b == b.b and a.dual == b.dual
    rows = b.rows
    assert rows.buffer.shape[0] == 2 and rows.have.sum() == 2 and rows.clock[0] > 300
    state = small.init(tiny)
    path = SMO(selection, random_state=1).init(big)
    for _ in range(40):
        state, path = small.step(tiny, state), SMO(selection, random_state=1).step(big, path)
        assert np.array_equal(state.alpha, path.alpha) and state.i == path.i and state.j == path.j


@pytest.mark.parametrize("kernel", ["gaussian", "linear"])
def test_memory_is_bounded_by_the_cache_at_n_50000(kernel):
    """At n = 50,000 an (n, n) float64 matrix is 20 GB; a run with a 10 MB cache, the exact measures
    at its end included, peaks (tracemalloc sees NumPy's allocations and numba's alike) under 64 MB."""
    n = 50_000
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, -1)
    p = BinaryProblem(X, y, C=1.0, kernel=kernel, gamma=0.5)
    solver = SMO(cache_size=10)
    solver.advance(p, solver.init(p), 5)  # compile outside the measurement
    q = p.with_C(0.5)
    tracemalloc.start()
    try:
        r = solve(solver, q, tol=1e-3, max_iter=2_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert r.n_iter == 2_000 and r.state.rows.buffer.shape == (26, n)  # 10 MB: 26 rows of 400 kB
    assert peak < 64 * MB, peak / MB  # against n^2 * 8 bytes = 20,000 MB
    alpha = np.asarray(r.state.alpha)
    assert np.all(alpha >= 0) and np.all(alpha <= 0.5) and abs(alpha @ q.y) < 1e-9 * alpha.sum()
    assert r.dual > 0 and r.primal > r.dual


def test_raw_breast_cancer_reports_objectives_of_its_alpha_never_above_the_optimum():
    """Raw breast-cancer features (up to 4,254), linear kernel, C = 1: the optimum is 48.8757 (Clarabel;
    LIBSVM's float32 kernel cache stops at 48.133, 1.5% below it).  After 10^5 compiled steps (10^4 on
    the step path) the reported primal and dual are those recomputed here from alpha and b, the
    dual below the optimum and the primal above."""
    from sklearn.datasets import load_breast_cancer

    X, labels = load_breast_cancer(return_X_y=True)
    y = np.where(labels == 1, 1.0, -1.0)
    best, _ = binary_dual_optimum(X @ X.T, y, 1.0, bias=True)
    assert best == pytest.approx(48.8757257, rel=1e-7)
    p = BinaryProblem(X, labels, C=1.0)
    for r in (solve(SMO(), p, tol=1e-8, max_iter=100_000), solve(SMO(), p, tol=1e-8, max_iter=10_000, fast=False)):
        alpha, b = np.asarray(r.state.alpha), r.state.b
        assert np.all(alpha >= 0) and np.all(alpha <= 1.0) and abs(alpha @ y) < 1e-12 * alpha.sum()
        w = X.T @ (alpha * y)  # w = sum_i alpha_i y_i x_i
        dual = alpha.sum() - 0.5 * w @ w
        primal = 0.5 * w @ w + np.maximum(0.0, 1.0 - y * (X @ w + b)).sum()
        assert r.dual == pytest.approx(dual, rel=1e-12) and r.primal == pytest.approx(primal, rel=1e-12)
        assert r.dual <= best * (1 + 1e-9) and r.primal >= best * (1 - 1e-9)
        assert r.gap == pytest.approx((primal - dual) / primal, rel=1e-9)


def test_the_exact_gradient_reads_the_cache_and_leaves_it_as_it_was():
    """Summing more support vectors than the cache holds: the gradient is 1 - Q alpha by scikit-learn's kernel,
    and the cache's rows, slots and clock are untouched (no working row evicted, no row asked for)."""
    from svmteach.solvers.kernel_scores import exact_gradient

    X, y = random_binary(n=300, d=4, seed=3)
    p = BinaryProblem(X, y, 10.0, kernel="gaussian", gamma=0.5)
    state = solve(SMO(cache_size=5 * 8 * 300 / MB), p, tol=1e-6).state  # five rows, far fewer than the SVs
    rows = state.rows
    assert int(np.sum(state.alpha > 0)) > 5
    before = [a.copy() for a in (rows.buffer, rows.slot, rows.owner, rows.stamp, rows.clock)]
    grad = exact_gradient(p, state.alpha, rows)
    Q = np.outer(y, y) * rbf_kernel(X, gamma=0.5)
    np.testing.assert_allclose(grad, 1.0 - Q @ state.alpha, rtol=0, atol=1e-12)
    for a, b in zip(before, (rows.buffer, rows.slot, rows.owner, rows.stamp, rows.clock)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("make", [lambda X, y: (SMO(), BinaryProblem(X, y, 1.0, kernel="gaussian", gamma=0.5)),
                                  lambda X, y: (DualCoordinateAscent(), BinaryProblem(X, y, 1.0))])
def test_certifying_a_measured_state_recomputes_no_gradient(monkeypatch, make):
    """solve's certificate reads the measured state's exact gradient; recomputing it costs a kernel row per
    support vector (SMO) or a pass over X (dual CD), as much as the measure itself (the bound is the contract's:
    the same as recomputed)."""
    from svmteach.solvers import kernel_scores
    from svmteach.solvers.base import Solver, certify

    X, y = random_binary(n=200, d=4, seed=4)
    smo, p = make(X, y)
    state = smo.measure(p, solve(smo, p, tol=1e-4).state)
    expected = Solver.gap_rounding(smo, p, state)

    def no_rows(*args, **kwargs):
        raise AssertionError("certify recomputed the gradient")

    monkeypatch.setattr(kernel_scores, "exact_gradient", no_rows)
    converged, rounding, _ = certify(smo, p, state, 1e-4)
    assert converged and rounding == pytest.approx(expected, rel=1e-6)


def test_the_rows_exponential_is_within_one_ulp_of_libm():
    """The vectorisable exp of the gaussian and Laplacian rows against NumPy's, over [-800, 0] (the subnormals
    and the underflow to 0 included), at the ends of its reduction, and NaN."""
    from svmteach.solvers.numba_kernel_rows import exp_in_place

    rng = np.random.default_rng(0)
    x = -np.concatenate([rng.uniform(0, 1, 10**5), rng.uniform(0, 50, 10**5), rng.uniform(700, 800, 10**5),
                         np.log(2) * (np.arange(-3, 1100) + 0.5), [0.0, 5e-324, 1e-300, 708.39, 745.13, 745.2, np.inf]])
    expected = np.exp(x)
    out = x.copy()
    exp_in_place(out, np.empty_like(x), np.empty_like(x))
    assert np.all(np.abs(out - expected) <= np.spacing(expected))
    nan = np.array([np.nan])
    exp_in_place(nan, np.empty(1), np.empty(1))
    assert np.isnan(nan[0])


def test_the_float32_rows_exponential_is_within_two_float32_ulps():
    """The working sets' float32 exp against float64 libm's (measured: at most 1.2 ulps), over [-100, 0] (the reduction's ends, the last
    normal numbers), 0 where exp is below 1.7e-38 (x < -87), -inf to 0, NaN kept."""
    from svmteach.solvers.numba_kernel_rows import exp32_in_place

    rng = np.random.default_rng(1)
    x = -np.concatenate([rng.uniform(0, 1, 10**5), rng.uniform(0, 100, 10**5), np.log(2) * (np.arange(-3, 130) + 0.5),
                         [0.0, 1e-30, 86.99, 87.0, 87.01, np.inf]]).astype(np.float32)
    expected = np.exp(x.astype(np.float64))
    out = x.copy()
    exp32_in_place(out, np.empty_like(x))
    assert out.dtype == np.float32
    kept = x >= -87
    assert np.all(np.abs(out[kept] - expected[kept]) <= 2 * np.spacing(expected[kept].astype(np.float32)))
    assert np.all(out[~kept] == 0) and np.all(expected[~kept] < 1.7e-38)
    nan = np.array([np.nan], dtype=np.float32)
    exp32_in_place(nan, np.empty_like(nan))
    assert np.isnan(nan[0])
