"""Column names of data frames: ``feature_names_in_`` and the check of predict's columns, held to scikit-learn's
own estimators (the same frames, the same errors, warnings and messages)."""

import re
import warnings

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402

from svmteach import BinarySVC, MulticlassSVC  # noqa: E402
from svmteach.estimators.columns import check_features, column_names, record_features  # noqa: E402

NAMES = [f"col_{i}" for i in range(8)]


class Fitted:
    """The least an estimator needs here: attributes set by fit."""


def frame(X, names=NAMES):
    return pd.DataFrame(X, columns=names)


def fitted_on(X):
    est = Fitted()
    record_features(est, X)
    return est


def outcome(call):
    """(exception type, message) or (warning category, message) or None: what ``call()`` did."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
        except (TypeError, ValueError) as error:
            return type(error), str(error)
    caught = [w for w in caught if issubclass(w.category, UserWarning)]
    assert len(caught) <= 1
    return (caught[0].category, str(caught[0].message)) if caught else None


X8 = np.random.default_rng(0).normal(size=(20, 8))

# (fit X, predict X) pairs: every rule scikit-learn has for names
CASES = {
    "same names": (frame(X8), frame(X8)),
    "reversed": (frame(X8), frame(X8[:, ::-1], NAMES[::-1])),
    "renamed": (frame(X8), frame(X8, [f"another_prefix_{i}" for i in range(8)])),  # lists cut at five
    "three missing five": (frame(X8), frame(X8[:, :3], NAMES[:3])),
    "one renamed": (frame(X8), frame(X8, NAMES[:7] + ["extra"])),
    "fit with names, predict without": (frame(X8), X8),
    "fit without names, predict with": (X8, frame(X8)),
    "integer names": (frame(X8, list(range(8))), frame(X8, list(range(8))[::-1])),
    "integer names, then string names": (frame(X8, list(range(8))), frame(X8)),
    "neither": (X8, X8),
}


@pytest.mark.parametrize("case", CASES)
def test_names_are_checked_as_scikit_learn_checks_them(case):
    fit_X, predict_X = CASES[case]
    ours = fitted_on(fit_X)
    theirs = StandardScaler().fit(fit_X)
    expected = outcome(lambda: theirs.transform(predict_X))
    got = outcome(lambda: check_features(ours, predict_X))
    if expected is not None:  # the estimator's own name in the warnings
        expected = (expected[0], expected[1].replace("StandardScaler", "Fitted"))
    if case == "three missing five":  # theirs goes on to refuse the number of features; ours leaves that to the caller
        assert expected[0] is ValueError and got[0] is ValueError
        assert got[1].startswith("The feature names should match those that were passed during fit.\n"
                                 "Feature names seen at fit time, yet now missing:\n- col_3\n")
        return
    assert got == expected
    if case in ("reversed", "renamed", "one renamed"):
        assert got[0] is ValueError  # never silently read by position


def test_feature_names_in_is_recorded_as_scikit_learn_records_it():
    est = fitted_on(frame(X8))
    theirs = StandardScaler().fit(frame(X8))
    assert isinstance(est.feature_names_in_, np.ndarray) and est.feature_names_in_.dtype == object
    np.testing.assert_array_equal(est.feature_names_in_, theirs.feature_names_in_)
    # a later fit without string names removes the stale names, as scikit-learn's does
    for X in (X8, frame(X8, list(range(8)))):
        record_features(est, X)
        theirs.fit(X)
        assert not hasattr(est, "feature_names_in_") and not hasattr(theirs, "feature_names_in_")


def test_mixed_name_types_are_refused_in_fit_as_scikit_learn_refuses_them():
    mixed = frame(X8, NAMES[:4] + list(range(4)))
    with pytest.raises(TypeError) as theirs:
        StandardScaler().fit(mixed)
    with pytest.raises(TypeError) as ours:
        record_features(Fitted(), mixed)
    assert str(ours.value) == str(theirs.value)


def test_arrays_and_sparse_matrices_have_no_names():
    import scipy.sparse as sp

    assert column_names(X8) is None and column_names(sp.csr_array(X8)) is None and column_names([[1.0]]) is None


# ---- the estimators (their fit calls record_features, their predict check_features) --------------------

ESTIMATORS = [BinarySVC(), BinarySVC(solver="dual_cd", random_state=0), BinarySVC(kernel="rbf", gamma=0.5),
              MulticlassSVC(random_state=0), MulticlassSVC(loss="cs", random_state=0)]


def binary_frame():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 8)) * np.arange(1, 9)  # columns on different scales: reordering them matters
    y = np.where(X @ rng.normal(size=8) > 0, 1, 0)
    return frame(X), y


@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_estimators_record_and_check_column_names(est):
    X, y = binary_frame()
    est = est.fit(X, y)
    np.testing.assert_array_equal(est.feature_names_in_, np.array(NAMES, dtype=object))
    # the frame and its values predict the same; reversed columns are refused, never read by position
    np.testing.assert_array_equal(est.predict(X), est.fit(X.to_numpy(), y).predict(X.to_numpy()))
    assert not hasattr(est, "feature_names_in_")  # the fit on an array removed the names
    est.fit(X, y)
    with pytest.raises(ValueError, match=re.escape("Feature names must be in the same order as they were in fit.")):
        est.predict(X[X.columns[::-1]])
    with pytest.raises(ValueError, match="Feature names unseen at fit time:\n- extra\n"):
        est.decision_function(X.rename(columns={"col_7": "extra"}))
    with pytest.warns(UserWarning, match="X does not have valid feature names, but .* was fitted with feature names"):
        est.predict(X.to_numpy())


@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_scikit_learns_own_column_name_check(est):
    # not among parametrize_with_checks' checks in every scikit-learn release: called here directly
    from sklearn.utils.estimator_checks import check_dataframe_column_names_consistency

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check_dataframe_column_names_consistency(type(est).__name__, est)


def test_reordered_columns_are_refused_where_linear_svc_refuses_them():
    X, y = binary_frame()
    reordered = X[X.columns[::-1]]
    with pytest.raises(ValueError) as theirs:
        LinearSVC().fit(X, y).predict(reordered)
    with pytest.raises(ValueError) as ours:
        BinarySVC().fit(X, y).predict(reordered)
    assert str(ours.value) == str(theirs.value)
