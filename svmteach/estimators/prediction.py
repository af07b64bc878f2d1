"""What every fitted estimator needs to predict: the fitted check and X checked against ``fit``."""

from __future__ import annotations

from ..backend import to_numpy
from ..validation import check_X
from ..rows import is_sparse, times
from .columns import check_features


def check_fitted(est, attribute: str):
    from sklearn.exceptions import NotFittedError

    if attribute not in vars(est):
        raise NotFittedError(
            f"This {type(est).__name__} instance is not fitted yet. Call 'fit' with appropriate arguments first."
        )


def check_predict_X(est, X, accept_sparse: bool = False):
    """Validate ``X`` for prediction: 2-D, finite, with the number of features seen in ``fit``, and a data
    frame's column names checked against ``feature_names_in_`` first (:func:`~.columns.check_features`).

    With ``accept_sparse``, a SciPy sparse X (any format) comes back as a read-only CSR array
    (one conversion, never dense); without, it is refused naming ``X``.
    """
    check_features(est, X)  # names before shapes: a frame with a column missing is told which
    X = check_X(X, "X", accept_sparse=accept_sparse, copy=False)  # read only: no copy of a float array
    if X.shape[1] != est.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(est).__name__} is expecting "
            f"{est.n_features_in_} features as input"
        )
    return X


def linear_scores(est, X, W):
    """:math:`X W^\\top` in float64 for the rows of ``X`` (dense or sparse, checked against ``est``'s
    fit), ``W`` of shape (m, d): SciPy's sparse-dense product for a sparse X, which never makes X dense;
    a float32 dense X is promoted a block of rows at a time (:func:`svmteach.rows.times`)."""
    X = check_predict_X(est, X, accept_sparse=True)
    return times(X if is_sparse(X) else to_numpy(X), W.T)
