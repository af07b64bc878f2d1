"""The estimators on SciPy sparse X: the same fit as on the same data dense, LIBLINEAR's answers where
it solves the same problem, fitted attributes that recompute the reported objectives, and no dense X
anywhere (memory measured with tracemalloc)."""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from svmteach import BinarySVC, MulticlassProblem, MulticlassSVC
from svmteach import objectives as obj
from svmteach.losses import get_loss
from svmteach.solvers import MULTICLASS_SOLVERS, multiclass_solver_names

#: SciPy's containers an estimator takes: every format, matrices and arrays.
FORMATS = [
    pytest.param(lambda X: sp.csr_array(X), id="csr_array"),
    pytest.param(lambda X: sp.csr_matrix(X), id="csr_matrix"),
    pytest.param(lambda X: sp.csc_array(X), id="csc_array"),
    pytest.param(lambda X: sp.coo_matrix(X), id="coo_matrix"),
    pytest.param(lambda X: sp.lil_array(X), id="lil_array"),
]


def sparse_multiclass(n=90, d=60, k=4, density=0.08, seed=0):
    """A text-like problem: nonnegative entries in random columns, some rows empty, one row repeated,
    labels from a random linear rule with 10 % flipped (so that some slacks are positive)."""
    rng = np.random.default_rng(seed)
    X = sp.random_array((n, d), density=density, random_state=rng, format="csr",
                        data_sampler=lambda size: rng.exponential(size=size)).toarray()
    X[[3, 40]] = 0.0  # empty rows
    X[7] = X[8]  # a duplicate
    y = np.argmax(X @ rng.standard_normal((d, k)), axis=1)
    flip = rng.random(n) < 0.1
    y[flip] = rng.integers(0, k, int(flip.sum()))
    return X, y


def pairs(loss):
    """(loss, solver) for every solver of ``loss`` that takes a sparse X in memory (CoCoA's sparse chunks of a dask
    array: tests/test_cocoa.py)."""
    return [(loss, name) for name in multiclass_solver_names(get_loss(loss))
            if MULTICLASS_SOLVERS[name].takes_sparse and not MULTICLASS_SOLVERS[name].chunked]


SEQUENTIAL = [p for loss in ("ww", "cs", "llw") for p in pairs(loss) if p[1] != "parallel"]


@pytest.mark.parametrize("loss, solver", SEQUENTIAL)
@pytest.mark.parametrize("fmt", FORMATS)
def test_multiclass_sparse_fit_is_the_dense_fit(loss, solver, fmt):
    """A step reads the row's nonzeros only and does the same arithmetic (the solvers' same-iterates tests
    are in tests/test_sparse_multiclass.py); a dense dot product sums in another order (vectorised), so a
    shrinking decision may flip on a last bit and the two fits stop at different certified points: the
    same model to the certified gap, and the sparse model predicts sparse input as the dense one does."""
    X, y = sparse_multiclass(seed=1)
    tol = 1e-8
    kwargs = dict(C=2.0, loss=loss, solver=solver, tol=tol, max_iter=100_000, random_state=3)
    dense = MulticlassSVC(fit_intercept=False, **kwargs).fit(X, y)
    sparse = MulticlassSVC(fit_intercept=False, **kwargs).fit(fmt(X), y)
    assert sparse.result_.converged and dense.result_.converged
    assert sparse.result_.primal == pytest.approx(dense.result_.primal, rel=2 * tol)
    # ||W - W*||^2 / 2 <= P(W) - D(alpha) (the primal is 1-strongly convex): both within the gap of W*
    assert np.linalg.norm(sparse.coef_ - dense.coef_) <= 2 * np.sqrt(2 * tol * abs(dense.result_.primal))
    for Z in (X, fmt(X), sp.csr_array(X[::-1])):
        Zd = Z if not sp.issparse(Z) else Z.toarray()
        np.testing.assert_allclose(sparse.decision_function(Z), sparse.decision_function(Zd), rtol=0, atol=1e-10)
        np.testing.assert_array_equal(sparse.predict(Z), sparse.predict(Zd))


@pytest.mark.parametrize("loss", ["ww", "cs", "llw"])
def test_parallel_sparse_fit_reaches_the_dense_optimum(loss):
    """The parallel solver steps every sample at once; dense and sparse products round apart in the last
    bits, so their paths may part, but both reach the optimum.  The primal is 1-strongly convex in W:
    1/2 ||W - W*||^2 <= P(W) - P* <= P(W) - D(alpha), so each fit lies within sqrt(2 (P - D)) of W*."""
    X, y = sparse_multiclass(seed=2)
    kwargs = dict(C=1.0, loss=loss, solver="parallel", tol=1e-8, max_iter=100_000)
    dense = MulticlassSVC(fit_intercept=False, **kwargs).fit(X, y)
    sparse = MulticlassSVC(fit_intercept=False, **kwargs).fit(sp.csr_array(X), y)
    assert dense.result_.converged and sparse.result_.converged
    radius = sum(np.sqrt(2 * max(m.result_.primal - m.result_.dual, 0.0)) for m in (dense, sparse))
    assert np.linalg.norm(sparse.coef_ - dense.coef_) <= radius + 1e-12
    assert radius < 1e-3 * np.linalg.norm(dense.coef_)


@pytest.mark.parametrize("solver", ["dual_cd", "primal_subgradient"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_binary_sparse_fit_is_the_dense_fit(solver, fmt):
    X, y = sparse_multiclass(seed=4)
    labels = np.where(y % 2 == 0, "even", "odd")
    kwargs = dict(C=0.7, solver=solver, fit_intercept=False, tol=1e-6, random_state=5,
                  max_iter=None if solver == "dual_cd" else 300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the subgradient method at 300 steps
        dense = BinarySVC(**kwargs).fit(X, labels)
        sparse = BinarySVC(**kwargs).fit(fmt(X), labels)
    assert sparse.n_iter_ == dense.n_iter_
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(sparse.alpha_, dense.alpha_, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(sparse.support_, dense.support_)
    assert sp.issparse(sparse.support_vectors_)
    np.testing.assert_array_equal(sparse.support_vectors_.toarray(), dense.support_vectors_)
    assert sparse.intercept_[0] == 0.0
    np.testing.assert_allclose(sparse.decision_function(fmt(X)), dense.decision_function(X), rtol=0, atol=1e-10)
    np.testing.assert_array_equal(sparse.predict(fmt(X)), dense.predict(X))


def test_binary_default_solver_takes_sparse_X_and_a_named_one_that_cannot_says_so():
    X, y = sparse_multiclass(seed=6)
    y = np.where(y == 0, 1, -1)
    Xs = sp.csr_array(X)
    default = BinarySVC(tol=1e-6, random_state=0).fit(Xs, y)  # solver=None: dual coordinate ascent on sparse X
    named = BinarySVC(solver="dual_cd", tol=1e-6, random_state=0).fit(X, y)  # with the constant feature, both
    np.testing.assert_allclose(default.coef_, named.coef_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(default.intercept_, named.intercept_, rtol=0, atol=1e-10)
    assert BinarySVC().fit(X, y).intercept_[0] != 0.0  # on dense X the default is still SMO, with a bias
    with pytest.raises(TypeError, match=r"^solver='smo' does not take sparse X.*'dual_cd'.*X\.toarray\(\)"):
        BinarySVC(solver="smo").fit(Xs, y)
    with pytest.raises(TypeError, match="^X is sparse, which the gaussian kernel does not take"):
        BinarySVC(kernel="rbf").fit(Xs, y)
    rbf = BinarySVC(kernel="rbf").fit(X, y)
    with pytest.raises(TypeError, match="^X is a sparse matrix"):
        rbf.predict(Xs)
    with pytest.raises(ValueError, match="^X has 59 features, but BinarySVC is expecting 60"):
        default.predict(Xs[:, :59])
    with pytest.raises(ValueError, match="^solver must be one of"):
        BinarySVC(solver="newton").fit(Xs, y)


def test_a_dense_fit_predicts_sparse_X_and_the_other_way_round():
    X, y = sparse_multiclass(seed=7)
    for fitted in (MulticlassSVC(fit_intercept=False, loss="cs", random_state=0).fit(X, y),
                   MulticlassSVC(fit_intercept=False, loss="cs", random_state=0).fit(sp.csc_array(X), y)):
        np.testing.assert_allclose(fitted.decision_function(sp.coo_array(X)), X @ fitted.coef_.T, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(fitted.predict(sp.csr_matrix(X)), fitted.predict(X))
    # float32 sparse X is scored in float64, as dense float32 X is
    m = MulticlassSVC(fit_intercept=False, random_state=0).fit(X, y)
    X32 = X.astype(np.float32)
    np.testing.assert_allclose(m.decision_function(sp.csr_array(X32)), X32.astype(np.float64) @ m.coef_.T,
                               rtol=0, atol=1e-12)


def test_sparse_binary_matches_liblinear():
    """LIBLINEAR -s 3 without bias (LinearSVC(loss='hinge', fit_intercept=False)) solves the same problem as
    dual coordinate ascent; given sparse X, scikit-learn hands LIBLINEAR the sparse rows."""
    X, y = sparse_multiclass(n=120, d=80, seed=8)
    y = np.where(y < 2, 1, -1)
    Xs = sp.csr_array(X)
    ours = BinarySVC(C=0.5, fit_intercept=False, tol=1e-10, random_state=0).fit(Xs, y)
    ref = LinearSVC(loss="hinge", fit_intercept=False, C=0.5, tol=1e-10, max_iter=10**6).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-5 * max(1.0, np.abs(ref.coef_).max()))
    f = ref.decision_function(sp.csr_matrix(X))
    clear = np.abs(f) > 1e-4  # points on the hyperplane may fall either way
    np.testing.assert_array_equal(ours.predict(Xs)[clear], ref.predict(sp.csr_matrix(X))[clear])


def test_sparse_crammer_singer_matches_liblinear():
    """LIBLINEAR -s 4 without bias is Crammer-Singer's problem; ours on sparse X reaches its primal value."""
    X, y = sparse_multiclass(n=120, d=80, seed=9)
    Xs = sp.csr_array(X)
    ours = MulticlassSVC(fit_intercept=False, C=1.0, loss="cs", tol=1e-10, max_iter=100_000, random_state=0).fit(Xs, y)
    ref = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=1.0, tol=1e-12,
                    max_iter=10**6).fit(sp.csr_matrix(X), y)
    p = MulticlassProblem(X, y, C=1.0, loss="cs")
    assert obj.multiclass_primal(p, ours.coef_) == pytest.approx(obj.multiclass_primal(p, ref.coef_), rel=1e-7)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-4 * max(1.0, np.abs(ref.coef_).max()))
    S = ref.decision_function(sp.csr_matrix(X))
    top2 = np.sort(S, axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 1e-4  # no near tie between the two best classes
    np.testing.assert_array_equal(ours.predict(Xs)[clear], ref.predict(sp.csr_matrix(X))[clear])


def hand_primal(loss, X, y, W, C, M=1.0):
    """The course's primal objectives, written out in NumPy on dense X (independent of svmteach)."""
    n, k = X.shape[0], W.shape[0]
    S = X @ W.T
    rows = np.arange(n)
    s_y = S[rows, y]
    other = np.ones((n, k), dtype=bool)
    other[rows, y] = False
    if loss == "ww":  # sum_{j != y_i} max(0, 1 - M (s_{y_i} - s_j))
        losses = np.where(other, np.maximum(0.0, 1.0 - M * (s_y[:, None] - S)), 0.0).sum(axis=1)
    elif loss == "cs":  # max(0, 1 + max_{m != y_i} s_m - s_{y_i})
        losses = np.maximum(0.0, 1.0 + np.where(other, S, -np.inf).max(axis=1) - s_y)
    else:  # llw: sum_{m != y_i} max(0, 1 + s_m)
        losses = np.where(other, np.maximum(0.0, 1.0 + S), 0.0).sum(axis=1)
    return 0.5 * np.sum(W * W) + C * losses.sum()


@pytest.mark.parametrize("loss, solver, M", [(loss, solver, 1.0) for loss, solver in SEQUENTIAL]
                         + [("ww", "exact", 0.5), ("cs", "parallel", 1.0)])
def test_sparse_fit_reports_what_its_attributes_recompute(loss, solver, M):
    """coef_ is W(alpha_) and the reported primal, dual and gap are those of (coef_, alpha_), recomputed on
    the dense data: the primal by hand, W and the dual by the loss's formulas on a dense problem."""
    X, y = sparse_multiclass(seed=10)
    m = MulticlassSVC(fit_intercept=False, C=3.0, loss=loss, M=M, solver=solver, tol=1e-4, max_iter=10_000, random_state=1)
    m.fit(sp.csr_array(X), y)
    p = MulticlassProblem(X, y, C=3.0, loss=loss, M=M)
    np.testing.assert_allclose(m.coef_, obj.multiclass_weights(p, m.alpha_), rtol=0, atol=1e-10)
    P = hand_primal(loss, X, y, m.coef_, 3.0, M)
    D = obj.multiclass_dual(p, m.alpha_, m.coef_)
    r = m.result_
    assert r.primal == pytest.approx(P, rel=1e-10) and r.dual == pytest.approx(D, rel=1e-10)
    assert r.gap == pytest.approx((P - D) / abs(P), rel=1e-6, abs=1e-12)
    assert r.converged and 0.0 <= r.gap <= 1e-4
    if loss == "llw":
        np.testing.assert_allclose(m.coef_.sum(axis=0), 0.0, atol=1e-12)  # sum_m w_m = 0


def test_sparse_binary_fit_reports_what_its_attributes_recompute():
    X, y = sparse_multiclass(seed=11)
    y = np.where(y == 1, 1.0, -1.0)
    B = 3.0  # the intercept is carried by a constant feature B: b = B w_B, penalised as w_B^2 / 2
    m = BinarySVC(C=2.0, tol=1e-5, random_state=0, intercept_scaling=B).fit(sp.csr_array(X), y)
    alpha = m.alpha_
    assert np.all((alpha >= 0) & (alpha <= 2.0))
    w = (alpha * y) @ X  # w = sum_i alpha_i y_i x_i
    w_B = (alpha * y).sum() * B  # the constant feature's weight
    np.testing.assert_allclose(m.coef_[0], w, rtol=0, atol=1e-10)
    assert m.intercept_[0] == pytest.approx(B * w_B, rel=1e-10)
    norm2 = w @ w + w_B**2
    P = 0.5 * norm2 + 2.0 * np.maximum(0.0, 1.0 - y * (X @ w + B * w_B)).sum()
    D = alpha.sum() - 0.5 * norm2
    r = m.result_
    assert r.primal == pytest.approx(P, rel=1e-10) and r.dual == pytest.approx(D, rel=1e-10)
    assert r.gap == pytest.approx((P - D) / abs(P), rel=1e-6, abs=1e-12)
    assert r.converged and 0.0 <= r.gap <= 1e-5


def wide_sparse(n, d, per_row, k, seed):
    """n rows over d columns with ``per_row`` nonzeros each (CSR, built without a dense array)."""
    rng = np.random.default_rng(seed)
    indptr = np.arange(n + 1) * per_row
    indices = np.sort(rng.choice(d, size=(n, per_row), replace=True), axis=1).ravel()
    X = sp.csr_array((rng.random(n * per_row), indices, indptr), shape=(n, d))
    X.sum_duplicates()
    W = rng.standard_normal((k, d))
    return X, np.argmax(np.asarray(X @ W.T), axis=1)


@pytest.mark.parametrize("make", [
    pytest.param(lambda: MulticlassSVC(fit_intercept=False, loss="cs", tol=1e-2, random_state=0), id="cs"),
    pytest.param(lambda: MulticlassSVC(fit_intercept=False, loss="ww", tol=1e-2, random_state=0), id="ww"),
    pytest.param(lambda: BinarySVC(tol=1e-2, random_state=0), id="binary"),
])
def test_fit_and_predict_never_make_X_dense(make):
    """d = 10**6 columns, n = 2000 rows, 20 nonzeros a row: X dense would be n d 8 = 16 GB, one dense row 8 MB.

    What a fit may hold besides X's 40 000 entries (12 bytes each in CSR, a few copies): the weights
    (k, d) float64 = 8 k d bytes, which the solver, the objectives and the fitted model each keep or
    rebuild, and (n, k) arrays of dual variables and scores.  So its peak is bounded by 5 copies of W,
    200 bytes an entry and 200 bytes per (sample, class), plus 4 MiB of slack: 0.13 GB for k = 3,
    a hundred times less than X dense.  Prediction holds the scores and at most one copy of W."""
    n, d, k, per_row = 2000, 10**6, 3, 20
    X, y = wide_sparse(n, d, per_row, k, seed=12)
    estimator = make()
    if isinstance(estimator, BinarySVC):
        y, k = np.where(y == 0, 1, -1), 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        # a fit and a prediction on a small problem of the same types first: numba compiles (on a fresh
        # machine's empty cache) or loads its machine code outside the traced region
        small_X, small_y = wide_sparse(60, 200, 5, 3, seed=12)
        if isinstance(estimator, BinarySVC):
            small_y = np.where(small_y == 0, 1, -1)
        make().fit(small_X, small_y).predict(small_X)
        tracemalloc.start()
        try:
            estimator.fit(X, y)
            fit_peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
            predicted = estimator.predict(X)
            predict_peak = tracemalloc.get_traced_memory()[1] - before
        finally:
            tracemalloc.stop()
    W_bytes = 8 * k * d
    fit_bound = 5 * W_bytes + 200 * X.nnz + 200 * n * k + 2**22
    assert fit_peak < fit_bound < n * d * 8 / 100, (fit_peak, fit_bound)
    assert predict_peak < W_bytes + 200 * n * k + 2**22, predict_peak
    assert (predicted == y).mean() > 0.5  # it learned something


@pytest.mark.parametrize("name", ["OneVsRestSVC", "OneVsOneSVC"])
def test_the_reductions_take_sparse_X_through_dual_coordinate_ascent(name):
    import svmteach
    from scipy import sparse

    rng = np.random.default_rng(4)
    X = rng.standard_normal((90, 6))
    X[np.abs(X) < 0.7] = 0.0
    y = np.arange(90) % 3
    Estimator = getattr(svmteach, name)
    ours = Estimator(tol=1e-8, random_state=0).fit(sparse.csr_matrix(X), y)  # solver=None: dual_cd on sparse X
    dense = Estimator(tol=1e-8, solver="dual_cd", random_state=0).fit(X, y)
    # both certified to a gap of 1e-8 on every pair's problem; the dense dot products sum in another order
    # (vectorised), so a shrinking decision may flip on a last bit and the runs stop at different points
    np.testing.assert_allclose(ours.decision_function(sparse.csc_matrix(X)), dense.decision_function(X),
                               rtol=1e-5, atol=1e-5)
    assert (ours.predict(sparse.csr_matrix(X)) == dense.predict(X)).all()
    assert Estimator().__sklearn_tags__().input_tags.sparse
    assert not Estimator(kernel="rbf").__sklearn_tags__().input_tags.sparse
