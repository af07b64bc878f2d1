"""What a fit says when it stops short of ``tol``: why it stopped, its gap, and, when the features'
scales are the likely cause, what to do.

Coordinate methods take steps of size about :math:`1 / \\|x_i\\|^2`: features of very different scales
make the dual badly conditioned and the steps crawl.  Standardising them (``StandardScaler`` in a
``Pipeline``) removes the cause.
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
#: The ratio of the largest to the smallest standard deviation above which it blames the scales too (half the
#: features large and half small leave the median among the large ones).
SPREAD_RATIO = 1e3


def feature_moments(X):
    """Each feature's mean and standard deviation, two arrays of shape (d,) (dense or sparse X)."""
    X = X if is_sparse(X) else np.asarray(X)
    mean, square = column_sums(X) / X.shape[0], column_sums(X, 2) / X.shape[0]  # no copy of X
    return mean, np.sqrt(np.maximum(square - mean * mean, 0.0))


def scale_advice(X) -> str:
    """A sentence saying how the features' scales or offsets make the problem hard and what to do, or ''.

    Two causes: a largest standard deviation more than :data:`SCALE_RATIO` times the median one or
    :data:`SPREAD_RATIO` times the smallest (some features dominate every :math:`x_i^\\top x_j`), and means more
    than :data:`SCALE_RATIO` standard deviations from 0 (the kernel matrix is then nearly of rank one).
    """
    mean, std = feature_moments(X)
    varying = std > 0
    causes = []
    spread = std[varying]
    if spread.size >= 2 and (spread.max() > SCALE_RATIO * np.median(spread) or spread.max() > SPREAD_RATIO * spread.min()):
        causes.append(f"their standard deviations range from {spread.min():.3g} to {spread.max():.3g}")
    offset = np.abs(mean[varying]) / std[varying]
    if offset.size and offset.max() > SCALE_RATIO:
        causes.append(f"their means lie up to {offset.max():.3g} standard deviations away from 0")
    if not causes:
        return ""
    return (". The features are badly scaled (" + " and ".join(causes) + "), which makes the dual badly "
            "conditioned for coordinate steps: standardise them, e.g. make_pipeline(StandardScaler(), estimator) "
            "with sklearn.pipeline.make_pipeline and sklearn.preprocessing.StandardScaler")


def chunked_budget_advice(problem) -> str:
    """A sentence for a fit on row chunks (CoCoA+) that spent the default budget: rounds grow with the chunks."""
    return (f". CoCoA+'s rounds grow with the number of row chunks ({problem.n_parts} here; benchmarks/RESULTS.md, "
            "\"Past one machine\"): use fewer, larger chunks (X.rechunk), raise max_iter, or a smaller C")


def budget_advice(problem, label: str) -> str:
    """A sentence for a fit that spent the default budget short of ``tol`` on features :func:`scale_advice` finds
    well scaled (raw pixels of 0 .. 16, say, at C = 1000): what to do, the interior-point method included when it
    takes a problem of this size (:func:`~svmteach.estimators.direct.interior_point_takes`)."""
    from ..backend import to_numpy
    from .direct import interior_point_takes

    sq = getattr(problem, "sqnorm", None)
    sq = problem.diag if sq is None else sq
    Cq = float(np.max(to_numpy(problem.C_i))) * float(np.max(to_numpy(sq)))
    finish = (", or solver='interior_point', whose Newton steps finish a problem of this size whatever its scale"
              if interior_point_takes(problem) and "interior_point" not in label else "")
    return (f". The default budget was not enough at this C and scale of the features (C |x|^2 up to {Cq:.3g}, where "
            "coordinate steps crawl): scale the features (e.g. divide them by their range, or "
            f"make_pipeline(MinMaxScaler(), estimator)), use a smaller C, raise max_iter{finish}")


def warn_not_converged(est, label: str, result, tol: float, why: str, X, problem=None):
    """A :class:`~sklearn.exceptions.ConvergenceWarning` for a run short of ``tol``: ``label`` names the loss
    and solver, ``why`` where it stopped, ``X`` the data (for :func:`scale_advice`); a gap float64 cannot
    certify says so (``result.reason``, :func:`~svmteach.solvers.base.certify`).  A fit that spent the default
    budget (``max_iter=None``) on features the scale test passes is told what to do (:func:`budget_advice`,
    given its ``problem``)."""
    if result.reason:
        warnings.warn(f"{type(est).__name__} ({label}): {result.reason}", ConvergenceWarning, stacklevel=3)
        return
    chunked = getattr(problem, "chunked", False)
    advice = "" if X is None else scale_advice(X)
    if not advice and problem is not None and getattr(est, "max_iter", None) is None:
        advice = chunked_budget_advice(problem) if chunked else budget_advice(problem, label)
    warnings.warn(f"{type(est).__name__} ({label}) {why} with relative duality gap {result.gap:.3g} > tol={tol:g}"
                  + advice, ConvergenceWarning, stacklevel=3)


def warn_interrupted(est, result):
    """A :class:`~sklearn.exceptions.ConvergenceWarning`: Ctrl-C ended the fit; the model is the solver's last
    state, measured (its gap certifies that model)."""
    warnings.warn(f"{type(est).__name__}: the fit was interrupted (KeyboardInterrupt) after {result.n_iter} steps; "
                  f"the model is the solver's state at that point, with relative duality gap {result.gap:.3g} "
                  "(not converged). Call fit again to start over, or with warm_start=True to continue from it",
                  ConvergenceWarning, stacklevel=3)
