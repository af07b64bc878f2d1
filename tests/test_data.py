"""The teaching sets have the shapes and properties their docstrings promise."""

import numpy as np
import pytest

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
    np.testing.assert_array_equal(Xl, [[0.5, 0, 2], [0, 1, 0]])
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
    ("1 1:0.5 2:1\n-1 1:abc\n", r"^line 2: could not convert string to float.*'-1 1:abc'"),
    ("1 1:0.5\n\n-1 2:1 1:3\n", r"^line 3: .*sorted and unique.*'-1 2:1 1:3'"),
    ("# a comment\n1 1:0.5\nfoo bar\n", r"^line 3: .*'foo bar'"),
    ("", "holds no samples"),
    ("# only a comment\n\n", "holds no samples"),
])
def test_libsvm_reader_says_where_the_file_is_wrong(tmp_path, text, match):
    path = tmp_path / "bad.libsvm"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        data.load_libsvm(path)
