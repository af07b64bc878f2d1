"""The binary solvers on a SciPy sparse X: the same iterates as on the dense array, the optimum of an
independent QP solver and of LIBLINEAR, and no dense copy of X anywhere."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from oracles import binary_dual_optimum

from svmteach import SMO, BinaryProblem, DualCoordinateAscent, PrimalSubgradient, iterate, solve
from svmteach.solvers.numba_dual_cd import Sweep


def sparse_binary(n=40, d=30, density=0.2, seed=0):
    """A small random two-class problem with a sparse X (every row has an entry, a few duplicates
    summed by the problem), as a CSR array and as the same dense array."""
    rng = np.random.default_rng(seed)
    X = sp.random_array((n, d), density=density, rng=rng, format="csr")
    X = (X + sp.csr_array((np.ones(n), (np.arange(n), rng.integers(0, d, n))), shape=(n, d))).tocsr()
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.3 * rng.normal(size=n) > np.median(X @ w), 1.0, -1.0)
    return X, X.toarray(), y


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("C", [1.0, 10.0])
def test_dual_cd_sparse_and_dense_take_the_same_steps(shrinking, C):
    Xs, Xd, y = sparse_binary(seed=1)
    sparse, dense = BinaryProblem(Xs, y, C=C), BinaryProblem(Xd, y, C=C)
    assert sp.issparse(sparse.X) and not sp.issparse(dense.X)
    solver = DualCoordinateAscent(random_state=3, shrinking=shrinking)
    a, b = solver.init(sparse), solver.init(dense)
    set_aside = 0
    for _ in range(25):  # compiled calls, each up to two epochs or to LIBLINEAR's next decision
        a, b = solver.advance(sparse, a, 2 * len(y)), solver.advance(dense, b, 2 * len(y))
        assert a.n_iter == b.n_iter
        for name in Sweep._fields:  # the same epochs, the same shrinking decisions
            assert getattr(a, name) == pytest.approx(getattr(b, name), rel=1e-9, abs=1e-12), name
        np.testing.assert_array_equal(a.index, b.index)
        np.testing.assert_allclose(a.alpha, b.alpha, rtol=0, atol=1e-10 * C)
        np.testing.assert_allclose(a.w, b.w, rtol=0, atol=1e-10 * C)
        set_aside += a.n_active < len(y) or 0 < a.epoch_active < len(y)  # now, or in the last epoch
    assert (set_aside > 0) == shrinking  # shrinking took part (or never did)
    a, b = solver.measure(sparse, a), solver.measure(dense, b)
    assert a.gap == pytest.approx(b.gap, rel=1e-6, abs=1e-12)


def test_dual_cd_step_path_on_sparse_data_is_the_fast_path():
    """The step path's gradient column comes from a sparse product (the (n, n) Q is never made)."""
    Xs, Xd, y = sparse_binary(n=25, seed=2)
    p = BinaryProblem(Xs, y, C=1.0)
    solver = DualCoordinateAscent(random_state=0)
    slow = list(iterate(solver, p, max_iter=120))[-1]
    fast = solver.init(p)
    while fast.n_iter < slow.n_iter:
        fast = solver.advance(p, fast, slow.n_iter - fast.n_iter)
    fast = solver.measure(p, fast)
    assert (fast.epoch, fast.pos, fast.n_active) == (slow.epoch, slow.pos, slow.n_active)
    np.testing.assert_allclose(fast.alpha, slow.alpha, atol=1e-10)
    np.testing.assert_allclose(fast.grad, slow.grad, atol=1e-9)
    assert "Q" not in vars(p) and "gram" not in vars(p)


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_dual_cd_on_sparse_data_reaches_the_qp_optimum(C, seed):
    Xs, Xd, y = sparse_binary(seed=seed)
    best, _ = binary_dual_optimum(Xd @ Xd.T, y, C, bias=False)
    r = solve(DualCoordinateAscent(random_state=seed), BinaryProblem(Xs, y, C=C), tol=1e-10, max_iter=10**7)
    assert r.converged and rel(r.dual, best) < 1e-6
    # what it reports is what its alpha has: the objectives recomputed from alpha alone
    w = Xd.T @ (r.state.alpha * y)
    assert r.primal == pytest.approx(0.5 * w @ w + C * np.maximum(0, 1 - y * (Xd @ w)).sum(), rel=1e-9)
    assert r.dual == pytest.approx(r.state.alpha.sum() - 0.5 * w @ w, rel=1e-9)


def test_dual_cd_on_sparse_data_reaches_liblinear():
    """The same problem (hinge loss, no bias) on the same CSR: the optimum of a general QP solver (Clarabel), and
    LIBLINEAR -s 3 -B -1 at a tight eps.  LIBLINEAR is a one-sided yardstick: at eps 1e-8 it may stop at its
    iteration cap, where it is, depending on its C library's rand() state, up to 7e-4 above the optimum
    (seen in a run of the whole suite), so svmteach's primal must be no worse than its, and its dual below it."""
    liblinear = pytest.importorskip("liblinear.liblinearutil")
    Xs, Xd, y = sparse_binary(n=300, d=200, density=0.05, seed=4)
    C = 1.0
    model = liblinear.train(liblinear.problem(y.tolist(), sp.csr_matrix(Xs)),
                            liblinear.parameter(f"-s 3 -c {C} -B -1 -e 1e-8 -q"))
    w_ref = np.array(model.get_decfun()[0]) * (1 if model.label[0] == 1 else -1)
    r = solve(DualCoordinateAscent(random_state=0), BinaryProblem(Xs, y, C=C), tol=1e-10, max_iter=10**7)
    w = Xs.T @ (r.state.alpha * y)

    def primal(v):
        return 0.5 * v @ v + C * np.maximum(0, 1 - y * (Xs @ v)).sum()

    assert r.converged and primal(w) <= primal(w_ref) * (1 + 1e-9)
    assert r.state.dual <= primal(w_ref)  # weak duality across the two libraries
    _, alpha_qp = binary_dual_optimum(Xd @ Xd.T, y, C, bias=False)
    w_qp = Xd.T @ (alpha_qp * y)
    assert rel(primal(w), primal(w_qp)) < 1e-8
    np.testing.assert_allclose(w, w_qp, atol=1e-4 * np.abs(w_qp).max())


def test_primal_subgradient_sparse_and_dense_are_the_same_run():
    Xs, Xd, y = sparse_binary(seed=5)
    runs = [solve(PrimalSubgradient(), BinaryProblem(X, y, C=1.0), max_iter=60, record_history=True) for X in (Xs, Xd)]
    np.testing.assert_allclose(runs[0].state.alpha, runs[1].state.alpha, atol=1e-12)
    np.testing.assert_allclose(runs[0].history["gap"], runs[1].history["gap"], rtol=1e-9)
    assert runs[0].primal >= runs[0].dual  # a feasible dual point, a true gap


def test_smo_refuses_sparse_data_and_names_the_way_out():
    Xs, _, y = sparse_binary()
    with pytest.raises(TypeError, match=r"X is sparse.*'dual_cd'"):
        solve(SMO(), BinaryProblem(Xs, y, C=1.0))
    dense_state = SMO().init(BinaryProblem(Xs.toarray(), y))
    with pytest.raises(TypeError, match=r"X is sparse"):
        solve(SMO(), BinaryProblem(Xs, y, C=1.0), state=dense_state)


def test_a_million_columns_are_never_densified():
    """n = 5000 rows of d = 10^6 columns, about 20 nonzeros a row: a dense X would take n d 8 bytes = 40 GB.

    What a run needs beside the CSR data (100,000 entries, 1.2 MB) is a few vectors of length d, 8 MB
    each: w in the state, the copy the compiled loop writes, and the exact w = X'(alpha y) that each
    measure computes; and vectors of length n (40 kB).  The peak allowed, 12 vectors of length d
    (96 MB), is 400 times below one dense copy of X: any (n, d) array, or the (n, n) Gram matrix of
    n = 5000 points (200 MB), would break it.
    """
    n, d, per_row = 5000, 10**6, 20
    rng = np.random.default_rng(0)
    cols = rng.integers(0, d, n * per_row)
    X = sp.csr_array((rng.random(n * per_row) + 0.5, (np.repeat(np.arange(n), per_row), cols)), shape=(n, d))
    w_true = np.zeros(d)
    w_true[cols] = rng.normal(size=cols.size)  # every used column informative
    y = np.where(X @ w_true > 0, 1.0, -1.0)
    DualCoordinateAscent().advance(BinaryProblem(X[:5], y[:5]), DualCoordinateAscent().init(BinaryProblem(X[:5], y[:5])), 5)
    tracemalloc.start()
    try:
        r = solve(DualCoordinateAscent(random_state=0), BinaryProblem(X, y, C=1.0), tol=1e-3, max_iter=10**7)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert r.converged and r.gap <= 1e-3
    assert peak < 12 * 8 * d, f"peak {peak / 1e6:.0f} MB"


@pytest.mark.parametrize("bias", [None, 1.0])
@pytest.mark.parametrize("column", [-1, 30])
def test_a_csr_whose_column_indices_do_not_fit_its_shape_is_refused(column, bias):
    """SciPy builds such a CSR without a look at its indices; the compiled loops would read outside w."""
    Xs, _, y = sparse_binary()
    bad = sp.csr_array((Xs.data, Xs.indices.copy(), Xs.indptr), shape=Xs.shape)
    bad.indices[0] = column
    with pytest.raises(ValueError, match=r"X has column indices outside \[0, 30\)"):
        BinaryProblem(bad, y, bias=bias)


@pytest.mark.parametrize("column", [-1, 30])
def test_every_problem_and_prediction_refuses_such_a_csr(column):
    """The check stands in the one sparse validation (check_sparse_X): a multiclass problem and a fitted model's
    predict refuse the same X (the multiclass epochs index W with its column indices unchecked too)."""
    from svmteach import BinarySVC, MulticlassProblem

    Xs, _, y = sparse_binary()
    bad = sp.csr_array((Xs.data, Xs.indices.copy(), Xs.indptr), shape=Xs.shape)
    bad.indices[0] = column
    with pytest.raises(ValueError, match=r"X has column indices outside \[0, 30\)"):
        MulticlassProblem(bad, np.arange(len(y)) % 3, loss="cs")
    model = BinarySVC().fit(Xs, y)
    with pytest.raises(ValueError, match=r"column indices outside \[0, 30\)"):
        model.predict(bad)


def test_dual_cd_measures_the_start_at_zero_without_reading_x(monkeypatch):
    """At alpha = 0 the gradient is 1: the measure that solve takes of every start needs no pass over X, and
    its objectives are the exact ones (P = sum_i C_i, every hinge 1; D = 0)."""
    import svmteach.solvers.dual_cd as dual_cd

    Xs, _, y = sparse_binary()
    p = BinaryProblem(Xs, y, C=2.0)
    solver = DualCoordinateAscent(random_state=0)
    state = solver.init(p)
    monkeypatch.setattr(dual_cd, "exact_gradient", lambda *args: pytest.fail("a pass over X at alpha = 0"))
    measured = solver.measure(p, state)
    assert (measured.primal, measured.dual, measured.gap) == (2.0 * len(y), 0.0, 1.0)
    monkeypatch.undo()
    moved = solver.advance(p, state, 5)
    assert solver.measure(p, moved).gap == pytest.approx(dual_cd.stopping_measures(
        p, moved.alpha, 1.0 - y * (Xs @ (Xs.T @ (moved.alpha * y))))[2], rel=1e-12)
