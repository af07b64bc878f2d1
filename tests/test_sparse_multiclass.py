"""Every multiclass solver on a SciPy CSR X: the same iterates as on the dense X, the optimum of an
independent QP solver, and no densification (a problem with a million columns solved under a
memory bound that no (n, d) array could meet)."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from oracles import cs_dual_optimum, llw_primal_optimum, ww_dual_optimum
from test_multiclass import rel

from svmteach import MulticlassProblem, solve
from svmteach.solvers import CSBlondel, ExactBlock, ParallelBlock, WWExact, WWShark

#: (solver class, loss) for every multiclass solver and every loss it solves.
RUNS = [(ExactBlock, "ww"), (ExactBlock, "cs"), (ExactBlock, "llw"), (WWExact, "ww"), (CSBlondel, "cs"),
        (WWShark, "ww"), (ParallelBlock, "ww"), (ParallelBlock, "cs"), (ParallelBlock, "llw")]
IDS = [f"{S.__name__}-{loss}" for S, loss in RUNS]


def make(Solver):
    return Solver() if Solver is ParallelBlock else Solver(random_state=7)


def sparse_data(n=36, d=15, k=4, seed=0):
    """A sparse problem (about a third of the entries stored) with two empty rows and a duplicated point."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    X = (rng.normal(scale=2.0, size=(k, d))[y] + rng.normal(size=(n, d))) * (rng.random((n, d)) < 0.35)
    X[3] = 0.0
    X[10] = 0.0
    X[17] = X[5]  # a duplicate of a point of the same class (5 % 4 == 17 % 4)
    return X, y


def epochs(Solver, problem):
    """Steps in four epochs of the solver (one step of the parallel solver reads all of X)."""
    return 4 * (1 if Solver is ParallelBlock else problem.n_samples)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("Solver, loss", RUNS, ids=IDS)
def test_sparse_and_dense_runs_give_the_same_iterates(Solver, loss, dtype):
    X, y = sparse_data()
    X = X.astype(dtype)
    # The parallel solver multiplies a dense X in its own precision (float32 on a GPU is its point)
    # and a CSR X in float64: a float32 CSR X runs as the float64 dense X of the same values.
    Xd = X.astype(np.float64) if Solver is ParallelBlock else X
    dense = MulticlassProblem(Xd, y, C=1.0, loss=loss)
    csr = MulticlassProblem(sp.csr_array(X), y, C=1.0, loss=loss)
    assert sp.issparse(csr.X) and csr.X.dtype == dtype
    a = make(Solver).advance(dense, make(Solver).init(dense), epochs(Solver, dense))
    b = make(Solver).advance(csr, make(Solver).init(csr), epochs(Solver, csr))
    scale = np.abs(a.alpha).max()
    assert scale > 0.1  # the runs went somewhere
    np.testing.assert_allclose(b.alpha, a.alpha, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(b.W, a.W, rtol=0, atol=1e-12 * np.abs(a.W).max())
    if Solver is not ParallelBlock:  # the step path too: it densifies the one row it visits
        a, b = make(Solver).init(dense), make(Solver).init(csr)
        for _ in range(dense.n_samples + 5):
            a, b = make(Solver).step(dense, a), make(Solver).step(csr, b)
        assert b.i == a.i
        np.testing.assert_allclose(b.alpha, a.alpha, rtol=0, atol=1e-12 * np.abs(a.alpha).max())
        np.testing.assert_allclose(b.W, a.W, rtol=0, atol=1e-12 * np.abs(a.W).max())


def oracle_optimum(X, codes, C, loss):
    """The optimal objective value by Clarabel on the dense copy of the (small) X."""
    X = X.toarray().astype(np.float64)
    if loss == "ww":
        return ww_dual_optimum(X, codes, C, 1.0)
    if loss == "cs":
        return cs_dual_optimum(X, codes, C)
    return llw_primal_optimum(X, codes, C)[1]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("C", [0.1, 10.0])
@pytest.mark.parametrize("Solver, loss", RUNS, ids=IDS)
def test_sparse_runs_reach_the_qp_optimum(Solver, loss, C, dtype):
    X, y = sparse_data(n=24, d=10, k=3, seed=int(C * 10))
    p = MulticlassProblem(sp.csr_array(X.astype(dtype)), y, C=C, loss=loss)
    best = oracle_optimum(p.X, p.codes, C, loss)
    # the parallel solver's rounding floor is near a gap of 1e-8 (tests/test_parallel.py)
    r = solve(make(Solver), p, tol=1e-7 if Solver is ParallelBlock else 1e-9, max_iter=2_000_000)
    assert r.converged
    assert rel(r.primal, best) < 1e-6 and rel(r.dual, best) < 1e-6


def test_csc_and_coo_input_give_the_csr_run():
    X, y = sparse_data()
    runs = []
    for A in (sp.csr_array(X), sp.csc_array(X), sp.coo_matrix(X)):
        p = MulticlassProblem(A, y, loss="cs")
        runs.append(CSBlondel(random_state=1).advance(p, CSBlondel(random_state=1).init(p), 3 * p.n_samples))
    for r in runs[1:]:
        np.testing.assert_array_equal(r.alpha, runs[0].alpha)


def wide_problem(loss, n=2000, d=10**6, k=3, per_row=20, seed=0):
    """A CSR problem with a million columns, ``per_row`` entries a row, and k classes."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    cols = np.sort(rng.choice(d, size=(n, per_row)), axis=1)  # duplicates within a row are summed
    rows = np.repeat(np.arange(n), per_row)
    vals = rng.normal(size=n * per_row) + 0.3 * (cols.ravel() % k == y[rows])  # a class signal
    X = sp.csr_array((vals, (rows, cols.ravel())), shape=(n, d))
    return MulticlassProblem(X, y, C=1.0, loss=loss)


@pytest.mark.parametrize("Solver, loss", [(ExactBlock, "ww"), (CSBlondel, "cs"), (ExactBlock, "llw"),
                                          (WWShark, "ww"), (ParallelBlock, "ww")],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_a_million_columns_are_never_densified(Solver, loss):
    """A few epochs and their measures on n = 2000, d = 10**6, k = 3, under a memory bound.

    A dense X would take n d 8 bytes = 16 GB, and any (n, d) array at least 2 GB (one byte an entry).
    The solvers' own arrays are a few of W's size, k d 8 bytes = 24 MB: the state's W, the epochs'
    working copy, the step path's one densified row and its W + delta x', the product W = A'X of a
    measure, the parallel solver's previous step and search direction in W-space (measured peaks:
    3.3 to 4.3 W for the sequential solvers, 6 W for the parallel one).  The bound, 8 W's = 192 MB,
    is 1.2% of the dense X and a tenth of the smallest (n, d) array: a run that densifies X cannot
    meet it, nor one that allocates anything of X's shape.
    """
    p = wide_problem(loss)
    solver = make(Solver)
    w_bytes = p.k * p.n_features * 8
    bound = 8 * w_bytes
    assert p.n_samples * p.n_features > 6 * bound  # no (n, d) array, even of bytes, fits the bound
    # the same calls on a small problem of the same types first: numba compiles (on a fresh machine's empty
    # cache) or loads its machine code outside the traced region, whose peak is then the run's own
    small, warm = wide_problem(loss, n=30, d=100), make(Solver)
    warm.measure(small, warm.advance(small, warm.init(small), warm.steps_per_epoch(small)))
    tracemalloc.start()
    try:
        state = solver.init(p)
        for _ in range(3):
            state = solver.measure(p, solver.advance(p, state, solver.steps_per_epoch(p)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < bound, f"peak {peak / 1e6:.0f} MB, bound {bound / 1e6:.0f} MB"
    assert state.dual > 0 and state.gap < 1.0  # it solved something: a positive dual, a finite gap
