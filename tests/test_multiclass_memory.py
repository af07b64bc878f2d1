"""Issue 26, PART MEM: a multiclass fit holds no copy of X beside the caller's (the intercept's column is never
stored; one copy where X must be converted), and MulticlassProblem refuses features whose squared norms overflow,
while every scale it accepts is solved."""

import gc
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs

import svmteach.rows as rows
from svmteach import MulticlassSVC
from svmteach.problems import MulticlassProblem
from svmteach.rows import column_sums, row_squared_norms

LOSSES = ("ww", "cs", "llw")
SOLVER = {"ww": "exact", "cs": "blondel", "llw": "exact"}  # the defaults, named: no direct finish


def stored_bytes(X):
    """The bytes of one copy of X as a problem stores it (a CSR's three arrays)."""
    return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes if sp.issparse(X) else X.nbytes


def traced_peak(make):
    tracemalloc.start()
    try:
        made = make()
        return made, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 64 KiB for the float64 conversions of rows.py: the bounded buffers then count for nothing
    beside X, and only whole copies of X show in the peaks."""
    monkeypatch.setattr(rows, "BLOCK_BYTES", 1 << 16)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.uint8])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_a_multiclass_fit_holds_no_copy_of_X(small_blocks, loss, dtype, sparse, fit_intercept):
    """A fit copies X only to convert it (uint8 to float64: the one copy), never for its intercept: the bias
    column is never stored (:class:`svmteach.rows.DesignMatrix`), and the fit's problem shares a float X
    (``copy=False``).  Beside that, the squared norms, the finiteness check, the float64 conversions of a float32
    X, the CSR's canonical form and the scale advice of the convergence warning (max_iter=2 stops short) copy no
    X.  (A fit held 2.9 copies of a dense float64 X at first, then one, with its bias column.)  uint8 stands for
    MNIST's pixels.  A MulticlassProblem built as a user builds it (``copy=True``) holds one copy, without the
    bias column.

    What the fit holds is the problem's three (n,) arrays and the solver's: at most 4.75 (n, k) float64 arrays
    (ten classes for a CSR X, as MNIST's, about 140 entries a row: an (n, k) float64 array is 3% of X): the
    solver's alpha in the state it was given and in the compiled epochs' copy, the shrinking flags and orders, the
    measures' blocks, and a measure's weights W = A(alpha)' X (the loss's A(alpha) beside alpha: Lee-Lin-Wahba's
    two arrays, 4.1 in all; 2.8-3.4 for the others)."""
    rng = np.random.default_rng(0)
    n, d, k = 2000, 400, 10 if sparse else 3  # n (k - 1) >= 4000 dual variables: above the direct finish's size
    codes = rng.integers(0, k, n)
    X = rng.normal(size=(k, d))[codes] + rng.normal(size=(n, d))
    X = np.abs(X) * 40 if dtype == np.uint8 else X
    X[np.abs(X) < (40 if dtype == np.uint8 else 1.0)] = 0
    X = X.astype(dtype)
    X = sp.csr_array(X) if sparse else X
    bias = 1.0 if fit_intercept else None

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # compiled (or loaded from numba's cache) outside the measure
        MulticlassSVC(loss=loss, fit_intercept=fit_intercept, max_iter=1).fit(X[:600], codes[:600])
    problem, problem_peak = traced_peak(lambda: MulticlassProblem(X, codes, loss=loss, bias=bias))
    copy = stored_bytes(problem.design.data)  # X as the solvers read it (float64 for uint8), no bias column
    assert problem.design.shape == (n, d + fit_intercept) and "X" not in vars(problem)
    del problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter=2: a ConvergenceWarning (with its scale advice)
        model, fit_peak = traced_peak(lambda: MulticlassSVC(loss=loss, fit_intercept=fit_intercept, max_iter=2,
                                                             tol=1e-8, random_state=0).fit(X, codes))
    assert model.coef_.shape == (k, d)
    assert problem_peak < 1.1 * copy, (problem_peak / copy)
    converted = copy if dtype == np.uint8 else 0  # the one copy: uint8 converted to float64
    assert fit_peak - converted < 0.3 * copy, (fit_peak / copy)  # 0.04-0.09 dense, 0.17-0.25 CSR
    if sparse:
        scores = n * k * 8  # the bytes of one (n, k) float64 array
        held = (fit_peak - converted - 3 * 8 * n) / scores  # the problem's sqnorm, C_i and codes aside
        assert held < 4.75, (held, fit_peak / copy)
    if sparse:
        assert X.data.flags.writeable and X.indices.flags.writeable  # the caller's arrays are left as they were
    else:
        assert X.flags.writeable


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_a_CSR_X_is_put_in_canonical_form_in_the_problem_s_copy_only(fit_intercept):
    """Duplicates summed, indices sorted, explicit zeros dropped, in the problem's copy; the caller's CSR (its
    arrays shared by the conversion) is neither changed nor made read-only."""
    data = np.array([1.0, 2.0, 0.0, 3.0, 4.0, 5.0])
    indices = np.array([2, 0, 1, 2, 1, 1], dtype=np.int32)  # row 0: unsorted; row 1: zero; row 2: duplicates
    indptr = np.array([0, 2, 4, 6], dtype=np.int32)
    X = sp.csr_array((data, indices, indptr), shape=(3, 3))
    before = [a.copy() for a in (X.data, X.indices, X.indptr)]
    y = [0, 1, 2]
    p = MulticlassProblem(X, y, bias=2.0 if fit_intercept else None)
    for a, b in zip((X.data, X.indices, X.indptr), before):
        np.testing.assert_array_equal(a, b)
        assert a.flags.writeable
    dense = np.array([[2.0, 0, 1.0], [0, 0, 3.0], [0, 9.0, 0]])
    expected = np.hstack([dense, np.full((3, 1), 2.0)]) if fit_intercept else dense
    np.testing.assert_array_equal(p.X.toarray(), expected)
    assert p.X.has_canonical_format and np.all(p.X.data != 0)
    assert not any(a.flags.writeable for a in (p.X.data, p.X.indices, p.X.indptr))
    stored = p.design.data  # what the solvers read: canonical, read-only, without the bias column
    np.testing.assert_array_equal(stored.toarray(), dense)
    assert stored.has_canonical_format and not any(a.flags.writeable for a in (stored.data, stored.indices))
    np.testing.assert_allclose(p.sqnorm, (expected**2).sum(axis=1), rtol=1e-15)


def test_squared_norms_and_column_sums_block_by_block(monkeypatch):
    """row_squared_norms and column_sums against the dense formulas, over many small blocks, with empty rows at
    the start, in the middle and at the end of X (a CSR row without entries sums to 0)."""
    monkeypatch.setattr(rows, "BLOCK_BYTES", 512)
    rng = np.random.default_rng(1)
    for dtype in (np.float64, np.float32):
        X = rng.normal(size=(300, 40)).astype(dtype)
        X[X < 1.0] = 0
        X[:3] = X[100:107] = X[-5:] = 0
        exact = X.astype(np.float64)
        for A in (X, sp.csr_array(X)):
            np.testing.assert_allclose(row_squared_norms(A), (exact**2).sum(axis=1), rtol=1e-14)
            np.testing.assert_allclose(column_sums(A), exact.sum(axis=0), rtol=1e-13)
            np.testing.assert_allclose(column_sums(A, 2), (exact**2).sum(axis=0), rtol=1e-14)
    assert np.all(row_squared_norms(sp.csr_array((4, 3))) == 0)


def blobs():
    X, y = make_blobs(60, n_features=3, centers=3, random_state=0, cluster_std=2.0)
    return X / np.sqrt((X**2).sum(axis=1).max()), y  # the largest row norm 1


#: The largest row norm a MulticlassProblem accepts: 4 |x|^2 below float64's largest number.
LIMIT = np.sqrt(np.finfo(np.float64).max / 4)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("bias", [None, 1.0])
def test_features_whose_squared_norms_overflow_are_refused_naming_X(loss, sparse, bias):
    """Features near 1e300 gave NaN coef_ (WW, LLW) or a ZeroDivisionError in the compiled Crammer-Singer epoch:
    the problem refuses them, naming X and saying to rescale it, as BinaryProblem does."""
    X, y = blobs()
    for scale in (1e300, 1e155, 1.01 * LIMIT):
        Xs = X * scale
        with pytest.raises(ValueError, match=r"^X overflows: its largest squared row norm .* rescale X"):
            MulticlassProblem(sp.csr_array(Xs) if sparse else Xs, y, loss=loss, bias=bias)
    with pytest.raises(ValueError, match="^X overflows"):
        MulticlassSVC(loss=loss).fit(X * 1e300, y)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("scale, C", [(1e150, 1e-300), (1e-150, 1e300), (1e-300, 1e300)])
def test_every_scale_the_problem_accepts_is_solved(loss, scale, C):
    """Squared norms near 1e300 and 1e-300 (and below the smallest normal number, 1e-600): no division by zero
    and no NaN, and the fit equals the scaled equivalent, the SVM at (C, s X) being the SVM at (C s^2, X) with
    W = V / s (substitute V = s W in the primal), solved on unit-sized features."""
    X, y = blobs()
    fit = dict(loss=loss, solver=SOLVER[loss], tol=1e-8, fit_intercept=False, random_state=0, max_iter=5000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow, no invalid value, converged
        model = MulticlassSVC(C=C, **fit).fit(X * scale, y)
        oracle = MulticlassSVC(C=C * scale * scale, **fit).fit(X, y)
    assert np.all(np.isfinite(model.coef_)) and np.all(np.isfinite(model.alpha_))
    np.testing.assert_allclose(model.coef_ * scale, oracle.coef_, rtol=1e-6, atol=1e-6 * np.abs(oracle.coef_).max())


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("C", [1.0, 1e-300])
def test_the_largest_accepted_norms_give_finite_models(loss, C):
    """At the largest row norm the problem accepts (4 |x|^2 just below float64's largest number), with and without
    a bias column: a finite model and finite objectives, never NaN nor a crash."""
    from svmteach.solvers import make_multiclass_solver, solve

    X, y = blobs()
    for bias in (None, 1.0):
        problem = MulticlassProblem(X * 0.99 * LIMIT, y, C=C, loss=loss, bias=bias)
        solver = make_multiclass_solver(SOLVER[loss], problem.loss_object, 0)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            result = solve(solver, problem, max_iter=100 * 60, tol=1e-6)
        alpha, W = solver.coefficients(problem, result.state)
        assert np.all(np.isfinite(W)) and np.all(np.isfinite(alpha))
        assert np.isfinite(result.primal) and np.isfinite(result.dual) and np.isfinite(result.gap)


@pytest.mark.parametrize("C", [1e-300, 1e-150, 1e150, 1e300])
def test_the_lee_lin_wahba_block_is_the_same_at_every_scale_of_C(C):
    """The block at (C u, C) is C times the block at (u, 1): its root's interpolation underflowed to no move at
    C = 1e-300 and overflowed at 1e300 (the compiled guard undone by the caller's reassociation), which stalled the
    1e150 / 1e-150 feature scales of the test above.  The unit blocks are checked against their KKT conditions."""
    from svmteach.losses.lee_lin_wahba import block_row as llw_block_row

    rng = np.random.default_rng(3)
    k = 4
    U = rng.normal(scale=1.5, size=(200, k - 1)) + rng.choice([0.0, 0.5, 1.0], size=(200, k - 1))
    unit, out, points = np.empty(k - 1), np.empty(k - 1), np.empty(2 * k)
    for u in U:
        llw_block_row(u, 1.0, k, unit, points)
        # beta = clip(u + T / k, 0, 1) with T = 1'beta: the block's KKT conditions at C = 1
        np.testing.assert_allclose(unit, np.clip(u + unit.sum() / k, 0.0, 1.0), rtol=0, atol=1e-12)
        llw_block_row(u * C, C, k, out, points)
        np.testing.assert_allclose(out / C, unit, rtol=1e-12, atol=1e-14)


def csr_data(dtype, n=3000, d=300, seed=4):
    """A CSR X of about 30% entries, with empty rows at the start, in the middle and at the end."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[X < 0.5] = 0
    X[:3] = X[n // 2 : n // 2 + 5] = X[-4:] = 0
    return sp.csr_array(X.astype(dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_row_slice_shares_the_values_and_indices_of_a_CSR(dtype):
    """A CSR block shares X's values and column indices (SciPy's constructor and X[rows] copy them); with a dtype
    only its values are converted.  A dense block is a view."""
    X = csr_data(dtype)
    for rows_ in (slice(0, 3), slice(100, 1700), slice(1498, 1507), slice(2990, 3000)):
        part = rows.row_slice(X, rows_)
        assert part.nnz == 0 or (np.shares_memory(part.data, X.data) and np.shares_memory(part.indices, X.indices))
        np.testing.assert_array_equal(part.toarray(), X[rows_].toarray())
        wide = rows.row_slice(X, rows_, np.float64)
        assert wide.dtype == np.float64 and (part.nnz == 0 or np.shares_memory(wide.indices, X.indices))
        np.testing.assert_array_equal(wide.toarray(), X[rows_].toarray().astype(np.float64))
    dense = X.toarray()
    assert np.shares_memory(rows.row_slice(dense, slice(5, 9)), dense)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_products_of_a_CSR_copy_none_of_it_and_give_scipys_bits(dtype):
    """X B and X' A of a CSR X are SciPy's products of X in float64, bit for bit (each row's entries summed in
    their stored order), and copy no part of X: a float32 X was converted a 4 MiB block at a time (its values and
    indices copied, then converted: 20 bytes an entry, the whole of a small X)."""
    X = csr_data(dtype)
    rng = np.random.default_rng(5)
    B, A = rng.normal(size=(X.shape[1], 7)), rng.normal(size=(X.shape[0], 7))
    wide = X.astype(np.float64)
    np.testing.assert_array_equal(rows.times(X, B), wide @ B)
    np.testing.assert_array_equal(rows.transpose_times(X, A), wide.T @ A)
    for product, out_bytes in ((lambda: rows.times(X, B), X.shape[0] * 7 * 8),
                               (lambda: rows.transpose_times(X, A), X.shape[1] * 7 * 8)):
        product()  # compiled (or loaded from numba's cache) outside the measure
        _, peak = traced_peak(product)
        assert peak < out_bytes + 0.02 * stored_bytes(X), (peak - out_bytes) / stored_bytes(X)


def test_transpose_times_takes_a_float64_A_as_it_is():
    """X' A for a float64 A (the weights of an (n, k) alpha) makes no (n, k) copy of A (it made one)."""
    rng = np.random.default_rng(6)
    X, A = rng.normal(size=(4000, 20)), rng.normal(size=(4000, 10))
    _, peak = traced_peak(lambda: rows.transpose_times(X, A))
    assert peak < 0.25 * A.nbytes, peak / A.nbytes
    np.testing.assert_array_equal(rows.transpose_times(X, A), X.T @ A)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sparse", [False, True])
def test_transpose_times_reads_only_the_rows_whose_row_of_A_is_not_zero(dtype, sparse):
    """X' A where most rows of A are 0 (a dual's samples off the support): the float64 product of the other rows
    (dense: gathered a 4 MiB block at a time, so a large X is never copied whole)."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(60000, 40)).astype(dtype)
    A = rng.normal(size=(60000, 6))
    A[rng.random(60000) < 0.7] = 0.0
    A[5] = [0.0, 0.0, 0.0, -1.5, 0.0, 0.0]  # one entry off 0: the row counts
    X = sp.csr_array(X) if sparse else X
    expected = (X.toarray() if sparse else X).astype(np.float64).T @ A
    got = rows.transpose_times(X, A)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * np.abs(expected).max())
    if not sparse:
        _, peak = traced_peak(lambda: rows.transpose_times(X, A))
        assert peak < 0.5 * X.astype(np.float64).nbytes, peak / X.nbytes
    zero = rows.transpose_times(X, np.zeros_like(A))
    assert zero.shape == (40, 6) and not zero.any()


def test_the_measures_blocks_of_a_CSR_share_its_arrays():
    """Each block of rows the measures and the rounding bound visit shares the problem's CSR values and indices
    (a block was a copy of its rows)."""
    from svmteach.objectives import multiclass_row_blocks

    X = csr_data(np.float32)
    problem = MulticlassProblem(X, np.arange(X.shape[0]) % 4, bias=1.0)
    seen = 0
    stored = problem.design.data
    for part, rows_ in multiclass_row_blocks(problem):
        block = part.design.data
        assert np.shares_memory(block.data, stored.data) and np.shares_memory(block.indices, stored.indices)
        assert part.design.bias == 1.0
        np.testing.assert_array_equal(part.X.toarray(), problem.X[rows_].toarray())  # both with the bias column
        seen += part.n_samples
    assert seen == problem.n_samples


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("bias", [None, 1.0, 2.5e-3, 1e150])
def test_a_design_matrix_computes_what_its_stored_matrix_computes(dtype, sparse, bias):
    """Every function of rows.py on DesignMatrix(X, B) (the bias column never stored) against the same function on
    the stored [X, B 1] (``with_bias_column``): products, squared norms, column sums, a row, a block of rows (B
    1e150: its square still finite, the products' terms far apart); the compiled loops get X itself."""
    from svmteach.validation import with_bias_column

    X = csr_data(dtype) if sparse else csr_data(dtype).toarray()
    # the oracle in float64: a stored float32 [X, B 1] rounds B to float32, which the design matrix does not
    design, full = rows.DesignMatrix(X, bias), with_bias_column(X.astype(np.float64), bias)
    assert design.shape == full.shape
    rng = np.random.default_rng(7)
    B, A = rng.normal(size=(full.shape[1], 5)), rng.normal(size=(full.shape[0], 5))
    close(rows.times(design, B), rows.times(full, B))
    close(rows.transpose_times(design, A), rows.transpose_times(full, A))
    close(rows.row_squared_norms(design), rows.row_squared_norms(full))
    for power in (1, 2):
        close(rows.column_sums(design, power), rows.column_sums(full, power))
    dense = full.toarray() if sparse else full
    for i in (0, 17, X.shape[0] - 1):
        np.testing.assert_array_equal(rows.dense_row(design, i), dense[i].astype(np.float64))
    block = rows.row_slice(design, slice(40, 90))
    assert block.shape == (50, full.shape[1]) and block.bias == bias
    close(rows.times(block, B), rows.times(full, B)[40:90])

    compiled = rows.compiled_rows(design)  # what the multiclass epochs unpack: X's rows, B and its column
    assert compiled.bias == (0.0 if bias is None else bias) and compiled.column == (-1 if bias is None else X.shape[1])
    stored = compiled.rows.data if sparse else compiled.rows
    assert np.shares_memory(stored, X.data if sparse else X)


def close(actual, expected):
    """Equal to rounding: 1e-12 of the largest entry (sums whose terms cancel lose their relative accuracy)."""
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())


# ---- the compiled epochs keep no reference to an array (their visits run without numba's runtime) ----------------


def _meminfos():
    """``(made, live)``: numba's array handles made so far, and those not freed."""
    from numba.core.runtime import rtsys
    stats = rtsys.get_allocation_stats()
    return stats.mi_alloc, stats.mi_alloc - stats.mi_free


@pytest.mark.parametrize("loss, kernel, solver, sparse", [
    ("cs", "linear", "blondel", False), ("ww", "linear", "exact", True), ("llw", "linear", "exact", False),
    ("ww", "linear", "shark", False), ("ww", "rbf", "exact", False), ("cs", "rbf", "working_set", False)])
def test_compiled_fits_leave_no_array_referenced(loss, kernel, solver, sparse):
    """Each of numba's array handles (a meminfo: one per array a compiled call creates or is given) that a fit makes
    is freed once the fit's objects are: the visits compiled without the runtime (``numba_multiclass.epoch_visits``,
    the row kernels) take a reference to nothing they do not give back (a view returned into them would be one),
    on the weights, a CSR, the training scores with their row cache and a working set's scores."""
    from numba.core.runtime import _nrt_python
    X, y = make_blobs(n_samples=120, centers=4, n_features=5, random_state=0)
    X = sp.csr_matrix(X) if sparse else X
    # a seed: with C = 1 Lee-Lin-Wahba needs about 1,000 epochs here, some seeds more than the budget
    make = lambda: MulticlassSVC(loss=loss, kernel=kernel, solver=solver, C=0.1, random_state=0).fit(X, y)  # noqa: E731
    make()  # compiled before counting
    was_on = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    try:
        gc.collect()
        made, before = _meminfos()
        fits = [make() for _ in range(3)]
        assert all(m.result_.converged for m in fits)
        assert _meminfos()[0] > made  # the count is on: the fits' compiled calls made handles
        del fits
        gc.collect()
        assert _meminfos()[1] == before
    finally:
        if not was_on:
            _nrt_python.memsys_disable_stats()
