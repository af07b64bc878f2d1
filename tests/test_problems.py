"""Bad input is refused in one place, naming the argument; awkward input is accepted."""

import numpy as np
import pytest
from conftest import random_binary

from svmteach import BinaryProblem, BinarySVC, MulticlassProblem


@pytest.mark.parametrize(
    "X, y, kwargs, exc, match",
    [
        (np.array([[np.nan, 1.0], [0.0, 1.0]]), [0, 1], {}, ValueError, "^X contains NaN"),
        (np.array([[np.inf, 1.0], [0.0, 1.0]]), [0, 1], {}, ValueError, "^X contains NaN or infinity"),
        (np.ones((2, 2)), [0.0, np.nan], {}, ValueError, "^y contains NaN"),
        (np.ones((2, 2)), [0.0, np.inf], {}, ValueError, "^y contains NaN"),
        (np.ones(4), [0, 1, 0, 1], {}, ValueError, "^X must be 2-D"),
        (np.ones((2, 2, 2)), [0, 1], {}, ValueError, "^X must be 2-D"),
        (np.ones((3, 2)), [0, 1], {}, ValueError, "^y has 2 labels but X has 3 samples"),
        (np.ones((3, 2)), [[0, 1, 1], [1, 0, 0]], {}, ValueError, "^y must be 1-D"),
        (np.ones((0, 2)), [], {}, ValueError, "^X is empty"),
        (np.ones((3, 0)), [0, 1, 1], {}, ValueError, "^X has 0 feature"),
        (np.ones((3, 2)), [1, 1, 1], {}, ValueError, "^y has one class"),
        (np.ones((3, 2)), [0, 1, 2], {}, ValueError, "^y has 3 classes"),
        (np.ones((2, 2)), [0, 1], {"C": 0}, ValueError, "^C must be positive"),
        (np.ones((2, 2)), [0, 1], {"C": -1.0}, ValueError, "^C must be positive"),
        (np.ones((2, 2)), [0, 1], {"C": np.inf}, ValueError, "^C must be positive and finite"),
        (np.ones((2, 2)), [0, 1], {"C": np.nan}, ValueError, "^C must be positive and finite"),
        (np.ones((2, 2)), [0, 1], {"C": "1"}, TypeError, "^C must be a positive number"),
        (np.ones((2, 2)), [0, 1], {"kernel": "sigmoid"}, ValueError, "^kernel must be one of"),
        (np.ones((2, 2)), [0, 1], {"kernel": "rbf", "gamma": -1.0}, ValueError, "^gamma must be positive"),
        (np.ones((2, 2)), [0, 1], {"kernel": "rbf", "gamma": "big"}, ValueError, "^gamma must be"),
        (np.ones((2, 2)), [0, 1], {"kernel": "poly", "degree": 0}, ValueError, "^degree must be"),
        (np.ones((2, 2)), [0, 1], {"kernel": "poly", "coef0": np.nan}, ValueError, "^coef0 must be finite"),
        (np.ones((2, 2)), [0.5, 1.5], {}, ValueError, "^y holds non-integer floats"),
        (np.ones((2, 2)) + 1j, [0, 1], {}, ValueError, "^X is complex"),
        (None, [0, 1], {}, ValueError, "^X is None"),
        (np.ones((2, 2)), None, {}, ValueError, "^y is None"),
    ],
)
def test_bad_input_names_the_argument(X, y, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        BinaryProblem(X, y, **kwargs)
    name = match[1:].split()[0]  # the estimator's parameters are refused by scikit-learn's constraints, naming them
    with pytest.raises((exc, ValueError), match=f"{match}|^The '{name}' parameter of BinarySVC must be"):
        BinarySVC(**kwargs).fit(X, y)


@pytest.mark.parametrize("kwargs, match", [
    ({"solver": "newton"}, "^solver must be one of"),
    ({"selection": "best"}, "^selection must be one of"),
    ({"tol": 0}, "^tol must be positive"),
    ({"max_iter": 0}, "^max_iter must be a positive integer"),
])
def test_bad_estimator_parameters(kwargs, match):
    X, y = random_binary()
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=f"{match}|^The '{name}' parameter of BinarySVC must be"):
        BinarySVC(**kwargs).fit(X, y)


def test_sparse_input_is_refused_clearly_where_it_has_no_meaning():
    from scipy import sparse

    with pytest.raises(TypeError, match="^X is sparse, which the gaussian kernel does not take"):
        BinaryProblem(sparse.csr_matrix(np.eye(3)), [0, 1, 1], kernel="rbf")
    with pytest.raises(TypeError, match="^y is a sparse matrix"):
        BinaryProblem(np.eye(3), sparse.csr_matrix(np.array([[0.0], [1.0], [1.0]])))
    with pytest.raises(TypeError, match="^X is sparse: sparse data is solved on the CPU"):
        MulticlassProblem(sparse.csr_matrix(np.eye(3)), [0, 1, 2], device="gpu")


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_sparse_X_becomes_a_readonly_csr_copy_with_the_dense_norms(fmt, dtype):
    from scipy import sparse

    rng = np.random.default_rng(3)
    dense = (rng.standard_normal((30, 8)) * 4).astype(dtype)
    dense[dense < 1] = 0
    dense[4] = 0  # an empty row
    given = sparse.coo_matrix(dense).asformat(fmt)
    before = given.toarray().copy()
    p = MulticlassProblem(given, rng.integers(0, 3, 30))
    assert sparse.issparse(p.X) and p.X.format == "csr" and p.X.has_sorted_indices
    assert p.X.dtype == (np.float32 if dtype == np.float32 else np.float64)
    np.testing.assert_array_equal(p.X.toarray(), dense.astype(p.X.dtype))
    exact = np.sum(dense.astype(np.float64) ** 2, axis=1)
    np.testing.assert_allclose(p.sqnorm, exact, rtol=1e-15)
    with pytest.raises(ValueError):
        p.X.data[0] = 1.0  # read-only
    np.testing.assert_array_equal(given.toarray(), before)  # the caller's matrix untouched
    b = BinaryProblem(given, np.arange(30) % 2)
    np.testing.assert_allclose(b.diag, exact, rtol=1e-15)
    np.testing.assert_allclose(b.gram, dense.astype(np.float64) @ dense.T.astype(np.float64), rtol=1e-14, atol=1e-12)


def test_sparse_X_duplicates_are_summed_and_bad_entries_refused():
    from scipy import sparse

    X = sparse.coo_matrix(([1.0, 2.0, 5.0], ([0, 0, 1], [1, 1, 0])), shape=(2, 3))  # (0, 1) twice
    p = MulticlassProblem(X, [0, 1])
    np.testing.assert_array_equal(p.X.toarray(), [[0.0, 3.0, 0.0], [5.0, 0.0, 0.0]])
    with pytest.raises(ValueError, match="^X contains NaN or infinity"):
        MulticlassProblem(sparse.csr_matrix(np.array([[np.inf, 0.0], [1.0, 0.0]])), [0, 1])
    with pytest.raises(ValueError, match="^X is empty"):
        MulticlassProblem(sparse.csr_matrix((0, 3)), [])


def test_problem_is_immutable_and_copies_the_callers_arrays():
    X, y = random_binary()
    X_orig, y_orig = X.copy(), y.copy()
    p = BinaryProblem(X, y, C=2.0)
    with pytest.raises(AttributeError, match="^C cannot be set"):
        p.C = 3.0
    with pytest.raises(ValueError):
        p.X[0, 0] = 1.0  # read-only
    with pytest.raises(ValueError):
        p.gram[0, 0] = 1.0
    X[0, 0] = 99.0  # the problem does not alias the caller's array
    assert p.X[0, 0] == X_orig[0, 0]
    BinarySVC().fit(X_orig, y_orig)
    np.testing.assert_array_equal(y, y_orig)


def test_labels_of_any_type_and_their_coding():
    X, y = random_binary(n=10)
    labels = np.where(y > 0, "spam", "ham")
    p = BinaryProblem(X, labels)
    assert list(p.classes) == ["ham", "spam"]
    np.testing.assert_array_equal(p.y, np.where(labels == "spam", 1.0, -1.0))
    assert BinaryProblem(X, y > 0).classes.dtype == bool


def test_float32_and_fortran_input_are_accepted():
    X, y = random_binary(n=20)
    p32 = BinaryProblem(X.astype(np.float32), y)
    pF = BinaryProblem(np.asfortranarray(X), y)
    assert p32.X.dtype == np.float64 and pF.X.flags.c_contiguous
    np.testing.assert_allclose(pF.X, X)


def test_with_C_shares_the_gram_matrix():
    X, y = random_binary(n=10)
    p = BinaryProblem(X, y, kernel="rbf", gamma=1.0)
    G = p.gram
    q = p.with_C(5.0)
    assert q.C == 5.0 and p.C == 1.0 and q.gram is G
    with pytest.raises(ValueError, match="^C must be positive"):
        p.with_C(-1)


def test_a_kernel_that_is_not_psd_warns_at_the_users_line():
    X, y = random_binary(40, 2, seed=3)
    with pytest.warns(RuntimeWarning, match="not positive semidefinite") as caught:
        BinaryProblem(X, y, kernel="poly", gamma=1.0, coef0=-2.0)
    assert caught[0].filename == __file__
    with pytest.warns(RuntimeWarning, match="not positive semidefinite") as caught:
        BinarySVC(kernel="poly", gamma=1.0, coef0=-2.0).fit(X, y)
    assert caught[0].filename == __file__


@pytest.mark.parametrize("bad", [np.float32("nan"), np.float16("nan"), float("nan"), np.float64("inf"),
                                 np.float32("-inf")])
def test_nan_of_any_float_type_in_an_object_y_is_refused(bad):
    # NaN != NaN: np.unique made each NaN a class of its own
    y = np.array([0, 1, 1, bad], dtype=object)
    with pytest.raises(ValueError, match="^y contains NaN or infinity"):
        BinaryProblem(np.eye(4), y)


def test_object_y_with_fractional_floats_is_a_regression_target():
    with pytest.raises(ValueError, match="^y holds non-integer floats"):
        BinaryProblem(np.eye(3), np.array([0, 1, np.float32(0.5)], dtype=object))
    p = BinaryProblem(np.eye(3), np.array([0, 1, np.float32(1.0)], dtype=object))  # integral floats are labels
    assert list(p.classes) == [0, 1]


@pytest.mark.parametrize("kwargs", [
    dict(kernel="poly", gamma=1e300),
    dict(kernel="poly", gamma=1.0, coef0=1e200),
    dict(kernel="poly", gamma=1.0, degree=400),
])
def test_kernel_parameters_that_overflow_the_gram_matrix_are_refused(kwargs):
    # these ran for minutes and ended in NaN; the message names the kernel's parameters
    X, y = random_binary(n=20)
    with pytest.raises(ValueError, match="^kernel='polynomial', gamma=.*, degree=.*, coef0=.* overflows on X"):
        BinaryProblem(X, y, **kwargs)
    with pytest.raises(ValueError, match="^kernel='polynomial'.* overflows on X"):
        BinarySVC(**kwargs).fit(X, y)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_features_whose_squares_overflow_are_refused(kernel):
    X, y = random_binary(n=20)
    X = X * 1e155  # |x|^2 ~ 1e310
    with pytest.raises(ValueError, match="^(kernel='linear' overflows on X|gamma='scale')"):
        BinaryProblem(X, y, kernel=kernel)
    with pytest.raises(ValueError, match="^kernel='gaussian', gamma=1 overflows on X"):
        BinaryProblem(X, y, kernel="rbf", gamma=1.0)  # |x - z|^2 would overflow to K = 0
    BinaryProblem(X * 1e-3, y, kernel=kernel)  # 1e152 is fine: squares of 1e304 are finite


def test_a_nan_gamma_never_reaches_a_solver():
    from svmteach.kernels import Kernel

    with pytest.raises(ValueError, match="^gamma must be positive and finite"):
        BinaryProblem(np.eye(3), [0, 1, 1], kernel=Kernel("rbf", float("nan")))


def test_a_bias_column_costs_one_copy_of_X():
    """The constant feature (``bias``) is written in the one copy the problem makes: the caller's float32 X
    is read once into the (n, d + 1) array, never copied first and then widened (two copies at the peak).
    The peak is compared with the problem without the column, which makes one copy."""
    import tracemalloc

    X = np.random.default_rng(0).standard_normal((50_000, 100)).astype(np.float32)
    y = np.arange(50_000) % 5

    def peak_of(bias):
        tracemalloc.start()
        try:
            p = MulticlassProblem(X, y, bias=bias)
            return p, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    plain, plain_peak = peak_of(None)
    del plain
    p, peak = peak_of(2.0)
    assert p.X.shape == (50_000, 101) and p.X.dtype == np.float32 and not p.X.flags.writeable
    np.testing.assert_array_equal(p.X[:, :100], X)
    assert np.all(p.X[:, 100] == 2.0)
    # one column more than the plain problem's copy, and nothing near a second copy (X.nbytes more)
    assert peak < plain_peak + 0.25 * X.nbytes, (peak, plain_peak, X.nbytes)
    assert X.flags.writeable  # the caller's array is left as it was


@pytest.mark.parametrize("kwargs", [{"kernel": "linear"}, {"kernel": "linear", "bias": 1.0}, {"kernel": "rbf"},
                                    {"kernel": "poly", "gamma": 0.01}, {"kernel": "laplacian", "gamma": 0.1}])
def test_a_dense_binary_problem_is_built_in_one_copy_of_X(monkeypatch, kwargs):
    """Building a dense BinaryProblem holds its one copy of X and little more: the finiteness check's squared norms
    (and the kernel diagonal, the largest rows' distances), and gamma='scale''s variance, a block of rows at a time
    (``X * X``, ``abs(X)`` or ``X / s`` whole were a copy each: 2 to 3 copies at the peak).  Small blocks, so that
    only whole copies of X show."""
    import tracemalloc

    import svmteach.rows as rows
    from svmteach.kernels import kernel_diagonal, make_kernel

    monkeypatch.setattr(rows, "BLOCK_BYTES", 1 << 16)
    X = np.random.default_rng(0).standard_normal((10_000, 200))
    y = np.where(np.arange(10_000) % 2, 1.0, -1.0)
    tracemalloc.start()
    try:
        p = BinaryProblem(X, y, **kwargs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert p.X.shape[0] == 10_000 and not np.shares_memory(p.X, X)
    assert peak < 1.1 * X.nbytes, peak / X.nbytes
    # the blocked norms and variance are what X * X and X.var() give
    np.testing.assert_array_equal(kernel_diagonal(X, make_kernel("linear")), np.sum(X * X, axis=1))
    if kwargs["kernel"] == "rbf":
        assert p.gamma == pytest.approx(1.0 / (200 * X.var()), rel=1e-12)
