"""What a fit says when it stops short of ``tol``: why it stopped, its gap, and, when the features'
scales are the likely cause, what to do.

Coordinate methods take steps of size about :math:`1 / \\|x_i\\|^2`: when features differ in scale by
orders of magnitude (the wine data as shipped spans 0.1 to 1,680), the dual is badly conditioned and
the steps crawl along the large features' directions.  Standardising the features
(scikit-learn's ``StandardScaler`` in a ``Pipeline``) removes the cause; the model then lives on the
scaled features, which is what a linear SVM should see.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..rows import column_sums, is_sparse

#: Why a run that did not converge stopped before max_iter (see :func:`svmteach.solvers.solve`).
STALLED = "because its steps no longer changed alpha (at the limit of rounding) or the gap was NaN"

#: The ratio of the largest to the median standard deviation above which the stopping message blames the
#: features' scales; and the distance of a mean from 0, in standard deviations, above which it blames the offsets.
SCALE_RATIO = 10.0


def feature_moments(X):
    """Each feature's mean and standard deviation, two arrays of shape (d,) (dense or sparse X)."""
    X = X if is_sparse(X) else np.asarray(X)
    mean, square = column_sums(X) / X.shape[0], column_sums(X, 2) / X.shape[0]  # no copy of X
    return mean, np.sqrt(np.maximum(square - mean * mean, 0.0))


def scale_advice(X) -> str:
    """A sentence saying how the features' scales or offsets make the problem hard and what to do, or ''.

    Two causes are named: a largest standard deviation more than :data:`SCALE_RATIO` times the median
    one (a few large features dominate every :math:`x_i^\\top x_j`; the wine data: 388, breast cancer:
    7,800; digits, whose near-empty pixels have tiny deviations, 1.5), and means more than
    :data:`SCALE_RATIO` standard deviations away from 0 (every :math:`x_i^\\top x_j` is then nearly the
    same number, so the kernel matrix is nearly of rank one).
    """
    mean, std = feature_moments(X)
    varying = std > 0
    causes = []
    if varying.sum() >= 2 and std[varying].max() > SCALE_RATIO * np.median(std[varying]):
        causes.append(f"their standard deviations range from {std[varying].min():.3g} to {std[varying].max():.3g}")
    offset = np.abs(mean[varying]) / std[varying]
    if offset.size and offset.max() > SCALE_RATIO:
        causes.append(f"their means lie up to {offset.max():.3g} standard deviations away from 0")
    if not causes:
        return ""
    return (". The features are badly scaled (" + " and ".join(causes) + "), which makes the dual badly "
            "conditioned for coordinate steps: standardise them, e.g. make_pipeline(StandardScaler(), estimator) "
            "with sklearn.pipeline.make_pipeline and sklearn.preprocessing.StandardScaler")


def warn_not_converged(est, label: str, result, tol: float, why: str, X):
    """A :class:`~sklearn.exceptions.ConvergenceWarning` for a run that did not reach ``tol``: ``label`` names
    the estimator's loss and solver, ``why`` says where it stopped ("stopped after max_iter=1000 epochs"),
    ``X`` is the data as fitted (for :func:`scale_advice`).  A run whose gap reached tol where float64 cannot
    certify it says that instead (``result.reason``, :func:`~svmteach.solvers.base.certify`)."""
    if result.reason:
        warnings.warn(f"{type(est).__name__} ({label}): {result.reason}", ConvergenceWarning, stacklevel=3)
        return
    warnings.warn(f"{type(est).__name__} ({label}) {why} with relative duality gap {result.gap:.3g} > tol={tol:g}"
                  + scale_advice(X), ConvergenceWarning, stacklevel=3)


def warn_interrupted(est, result):
    """A :class:`~sklearn.exceptions.ConvergenceWarning` saying that a KeyboardInterrupt (Ctrl-C) ended the fit and
    that the model is the solver's last state, measured (its gap is a true certificate of that model)."""
    warnings.warn(f"{type(est).__name__}: the fit was interrupted (KeyboardInterrupt) after {result.n_iter} steps; "
                  f"the model is the solver's state at that point, with relative duality gap {result.gap:.3g} "
                  "(not converged). Call fit again to start over, or with warm_start=True to continue from it",
                  ConvergenceWarning, stacklevel=3)
