"""The teaching sets have the shapes and properties their docstrings promise."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

from svmteach import BinarySVC, data


@pytest.mark.parametrize("name", sorted(data.TEACHING_SETS))
def test_teaching_sets(name):
    X, y = data.TEACHING_SETS[name](n=50, seed=1)
    assert X.shape == (50, 2) and set(np.unique(y)) == {-1.0, 1.0}
    X2, _ = data.TEACHING_SETS[name](n=50, seed=1)
    np.testing.assert_array_equal(X, X2)  # reproducible


def test_separable_blobs_have_the_promised_margin():
    X, y = data.separable_blobs(80, margin=0.8, seed=3)
    normal = np.array([1.0, -1.0]) / np.sqrt(2)
    assert np.all(y * (X @ normal) >= 0.8 - 1e-12)
    m = BinarySVC(C=1e6).fit(X, y)
    assert (m.predict(X) == y).all()


def test_linear_fails_on_xor_and_gaussian_succeeds():
    X, y = data.xor(120, seed=0)
    assert (BinarySVC().fit(X, y).predict(X) == y).mean() < 0.8
    assert (BinarySVC(kernel="rbf", gamma=1.0, C=10).fit(X, y).predict(X) == y).mean() > 0.95


def test_packaged_real_data_and_libsvm_reader(tmp_path):
    X, y = data.iris()
    assert X.shape == (150, 4) and len(np.unique(y)) == 3
    Xb, yb = data.iris(classes=(1, 2), features=(2, 3))
    assert Xb.shape == (100, 2) and set(yb) == {1, 2}
    Xd, yd = data.digits()
    assert Xd.shape == (1797, 64) and Xd.max() <= 1.0
    path = tmp_path / "toy.svm"
    path.write_text("1 1:0.5 3:2\n-1 2:1\n")
    Xl, yl = data.load_libsvm(path)
    assert isinstance(Xl, scipy.sparse.csr_array) and Xl.dtype == np.float64
    np.testing.assert_array_equal(Xl.toarray(), [[0.5, 0, 2], [0, 1, 0]])
    np.testing.assert_array_equal(yl, [1, -1])
    with pytest.raises(ValueError, match="^n must be"):
        data.moons(n=1)


def test_synthetic_multiclass():
    from svmteach.data import synthetic_multiclass

    X, y = synthetic_multiclass(500, d=30, k=4, seed=1)
    assert X.shape == (500, 30) and X.dtype == np.float32 and set(y) == {0, 1, 2, 3}
    np.testing.assert_array_equal(synthetic_multiclass(500, d=30, k=4, seed=1)[0], X)  # seeded
    assert 0.5 < np.linalg.norm(X, axis=1).mean() < 2.0  # rows near unit norm
    with pytest.raises(ValueError, match="^k must be an integer >= 2"):
        synthetic_multiclass(10, k=1)
    with pytest.raises(ValueError, match="^flip must be in"):
        synthetic_multiclass(10, flip=2.0)


@pytest.mark.parametrize("text, match", [
    ("1 1:0.5 2:1\n-1 1:abc\n", r"^line 2: the value 'abc' of feature 1 is not a finite number in '-1 1:abc'"),
    ("1 1:0.5\n\n-1 2:1 1:3\n", r"^line 3: feature index 1 comes after 2: .*sorted and unique in '-1 2:1 1:3'"),
    ("1 2:1 2:3\n", r"^line 1: feature index 2 comes after 2: .*sorted and unique"),
    ("# a comment\n1 1:0.5\nfoo bar\n", r"^line 3: the label 'foo' is not a finite number in 'foo bar'"),
    ("1 1:0.5\n-1 0:2\n", r"^line 2: '0:2' is not index:value with an integer index >= 1 \(LIBSVM indices start at 1\)"),
    ("1 1:0.5 3\n", r"^line 1: '3' is not index:value"),
    ("1 x:0.5\n", r"^line 1: 'x:0.5' is not index:value"),
    ("1 1:nan\n", r"^line 1: the value 'nan' of feature 1 is not a finite number"),
    ("1 1:inf\n", r"^line 1: the value 'inf' of feature 1 is not a finite number"),
    ("1,2 1:0.5\n", r"^line 1: the label '1,2' is not a finite number \(a multilabel file"),
    ("", "holds no samples"),
    ("# only a comment\n\n", "holds no samples"),
])
def test_libsvm_reader_says_where_the_file_is_wrong(tmp_path, text, match):
    path = tmp_path / "bad.libsvm"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        data.load_libsvm(path)


def random_csr(n, d, per_row, seed, empty_rows=()):
    """A CSR matrix with about ``per_row`` entries a row in random columns (values of mixed sign and
    scale, with some explicit zeros), the rows ``empty_rows`` empty; int32 indices (as the writer wants)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 2 * per_row + 1, n)
    counts[list(empty_rows)] = 0
    rows = np.repeat(np.arange(n), counts)
    cols = rng.integers(0, d, rows.size)
    vals = rng.standard_normal(rows.size) * 10.0 ** rng.integers(-5, 6, rows.size)
    vals[rng.random(rows.size) < 0.05] = 0.0
    X = scipy.sparse.csr_matrix((vals, (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


def assert_same_csr(ours, ref):
    """The same matrix entry for entry (the stored zeros included), as a float64 CSR array."""
    assert isinstance(ours, scipy.sparse.csr_array) and ours.dtype == np.float64
    assert ours.shape == ref.shape
    np.testing.assert_array_equal(ours.indptr, ref.indptr)
    np.testing.assert_array_equal(ours.indices, ref.indices)
    np.testing.assert_array_equal(ours.data, ref.data)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_libsvm_reader_matches_scikit_learn(tmp_path, seed):
    """Files written by scikit-learn's dump_svmlight_file (1-based) read back as its reader reads them:
    empty rows (first, inside, last), a last column that no row uses, float labels, a comment header."""
    n, d = 60, 40
    X = random_csr(n, d, 4, seed, empty_rows=(0, 17, n - 1))
    X = X[:, : d - 3]  # the file's largest index is below d: n_features=d pads with empty columns
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    y = np.random.default_rng(seed).integers(-2, 3, n) * 1.5
    path = tmp_path / "gen.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False, comment="made by the test")
    for n_features in (None, d, 10 * d):
        ours, y_ours = data.load_libsvm(path, n_features=n_features)
        ref, y_ref = load_svmlight_file(str(path), n_features=n_features, zero_based=False)
        assert_same_csr(ours, ref)
        np.testing.assert_array_equal(y_ours, y_ref)
    assert ours.shape == (n, 10 * d) and ours[[0, 17, n - 1]].nnz == 0
    widest = int(X.indices.max()) + 1  # the largest 1-based index in the file
    with pytest.raises(ValueError, match=rf"^n_features={widest - 1} is too small: line \d+ .*feature index {widest}"):
        data.load_libsvm(path, n_features=widest - 1)


def test_libsvm_reader_reads_what_the_format_allows(tmp_path):
    """Comments, qid, tabs, Windows line ends, blank lines, explicit zeros, exponents; unsorted indices
    are refused as scikit-learn (and LIBSVM) refuse them."""
    text = ("# header\r\n"
            "+1 qid:3 1:0.5\t4:-2e-3 # trailing\r\n"
            "\n"
            "-1\r\n"
            "2.5 2:0 3:1E+2\n")
    path = tmp_path / "format.svm"
    path.write_bytes(text.encode())
    X, y = data.load_libsvm(path)
    ref, y_ref = load_svmlight_file(str(path), zero_based=False)
    assert_same_csr(X, ref)
    np.testing.assert_array_equal(y, [1.0, -1.0, 2.5])
    np.testing.assert_array_equal(X.toarray(), [[0.5, 0, 0, -2e-3], [0, 0, 0, 0], [0, 0, 100.0, 0]])
    path.write_text("1 3:1 1:2\n")
    with pytest.raises(ValueError, match="sorted and unique"):
        load_svmlight_file(str(path), zero_based=False)
    with pytest.raises(ValueError, match="^line 1: feature index 1 comes after 3"):
        data.load_libsvm(path)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="^n_features must be None or an integer >= 1"):
            data.load_libsvm(path, n_features=bad)


def test_libsvm_reader_never_builds_dense_rows(tmp_path):
    """d = 10**6 columns, n = 5000 rows, about 20 entries a row: a dense X would be n d 8 bytes = 40 GB.

    The reader keeps the entries it has read (8 bytes of value and 8 of column index each, in
    growing arrays that over-allocate by at most an eighth, plus 8 bytes a row), then builds the
    CSR arrays, the int32 indices a second copy (4 bytes an entry); one line of text at a time.
    So its peak is about 22 bytes an entry plus 16 a row.  48 bytes an entry, 48 a row and 1 MiB
    of slack bound it with room to spare, and that bound is below the 8 MB of a single dense row
    (d 8 bytes): the reader cannot have made even one row dense, let alone X.
    """
    n, d, per_row = 5000, 10**6, 20
    X = random_csr(n, d, per_row, seed=5)
    y = np.arange(n) % 7
    path = tmp_path / "wide.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    tracemalloc.start()
    try:
        ours, y_ours = data.load_libsvm(path, n_features=d)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    bound = 48 * X.nnz + 48 * n + 2**20
    assert peak < bound < d * 8, (peak, bound, X.nnz)
    ref, _ = load_svmlight_file(str(path), n_features=d, zero_based=False)
    assert_same_csr(ours, ref)
    np.testing.assert_array_equal(y_ours, y)


@pytest.mark.parametrize("make", [data.rings, data.three_moons])
def test_the_three_class_shapes_of_notebook_9(make):
    X, y = make(n=60, seed=1)
    assert X.shape == (60, 2) and np.array_equal(np.bincount(y), [20, 20, 20])
    np.testing.assert_array_equal(X, make(n=60, seed=1)[0])  # reproducible
    with pytest.raises(ValueError, match="^n must be an integer"):
        make(n=1)
    if make is data.rings:  # class m lies near the circle of radius m + 1
        radius = np.hypot(X[:, 0], X[:, 1])
        assert np.all(np.abs(radius - (1.0 + y)) < 0.6)
