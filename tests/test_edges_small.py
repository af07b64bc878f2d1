"""Small edges of issue 26: one-vs-one with a pair of classes without weight, the RLS path below the
rounding of K, and the LIBSVM reader's indices and n_features."""

import numpy as np
import pytest

from svmteach import OneVsOneSVC, data, rls


def test_one_vs_one_names_the_pair_without_weight():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.repeat(["a", "b", "c"], 10)
    w = np.where(y == "c", 1.0, 0.0)  # classes a and b weigh nothing: their pair has nothing to learn
    with pytest.raises(ValueError, match=r"^sample_weight is zero for every sample of classes 'a' and 'b'.*"
                                         r"positive weight"):
        OneVsOneSVC().fit(X, y, sample_weight=w)
    w[0] = 1.0  # one sample of the pair weighs: every pair fits
    model = OneVsOneSVC().fit(X, y, sample_weight=w)
    assert len(model.estimators_) == 3


@pytest.mark.parametrize("lam", [1e-300, 1e-30])
def test_regularization_path_refuses_where_solve_dual_does(lam):
    K, y = np.ones((4, 4)), np.array([1.0, -1.0, 1.0, -1.0])
    with pytest.raises(ValueError, match="singular"):
        rls.solve_dual(K, y, lam)
    with pytest.raises(ValueError, match=rf"^lams: K \+ lam I is singular at lam = {lam:g}"):
        rls.regularization_path(K, y, [1.0, lam])
    with pytest.raises(ValueError, match="singular"):
        rls.loo_errors(K, y, [lam])


def test_regularization_path_keeps_small_lams_that_are_regular():
    # y is orthogonal to the all-ones K: c(lam) = y / lam exactly, for every lam above K's rounding
    K, y = np.ones((4, 4)), np.array([1.0, -1.0, 1.0, -1.0])
    path = rls.regularization_path(K, y, [1e-10, 1.0])
    np.testing.assert_allclose(path[:, :, 0] * np.array([[1e-10], [1.0]]), [y, y], rtol=1e-5)
    # a zero K or a tiny one (scaled by 1e-200) is regular at any lam: c = y / lam again (condition number
    # 4e10 for the tiny one, hence the tolerance)
    for scale, lam in ((0.0, 1e-300), (1e-200, 1e-210)):
        np.testing.assert_allclose(rls.regularization_path(scale * K, y, [lam])[0, :, 0] * lam, y, rtol=1e-4)


@pytest.mark.parametrize("n_features", [float("inf"), float("nan"), 1e300, 2**63, 2**70])
def test_load_libsvm_refuses_huge_n_features(tmp_path, n_features):
    path = tmp_path / "a.svm"
    path.write_text("1 1:1\n")
    with pytest.raises(ValueError, match="^n_features must be None or an integer >= 1"):
        data.load_libsvm(path, n_features=n_features)
    with pytest.raises(TypeError, match="^n_features must be None"):
        data.load_libsvm(path, n_features="5")


@pytest.mark.parametrize("text, why", [
    ("1 1_0:1\n", r"^line 1: '1_0:1' is not index:value with an integer index >= 1"),
    ("1 99999999999999999999999:1\n", r"^line 1: feature index 99999999999999999999999 is above"),
    ("1 2:1_0\n", r"^line 1: the value '1_0' of feature 2 is not a finite number"),
    ("1_0 2:1\n", r"^line 1: the label '1_0' is not a finite number"),
    ("1 -2:1\n", r"^line 1: '-2:1' is not index:value"),
])
def test_load_libsvm_names_the_line_of_a_bad_index(tmp_path, text, why):
    path = tmp_path / "a.svm"
    path.write_text("-1 1:1\n" + text.replace("line 1", "line 2"))
    with pytest.raises(ValueError, match=why.replace("line 1", "line 2")):
        data.load_libsvm(path)


def test_load_libsvm_takes_the_largest_int64_index_and_a_plus_sign(tmp_path):
    path = tmp_path / "a.svm"
    path.write_text("1 +2:1 9223372036854775807:3\n")
    X, y = data.load_libsvm(path)
    assert X.shape == (1, 2**63 - 1) and X.nnz == 2
    np.testing.assert_array_equal(X.indices, [1, 2**63 - 2])
