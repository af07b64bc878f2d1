"""scikit-learn compatible estimators built on the step-by-step solvers.

One estimator per module (:mod:`.binary`, :mod:`.multiclass`); :mod:`.parameters` validates
their parameters and :mod:`.prediction` checks what ``predict`` is given.
"""

from .binary import BinarySVC
from .multiclass import MulticlassSVC
from .prediction import check_fitted, check_predict_X, linear_scores

__all__ = ["BinarySVC", "MulticlassSVC", "check_fitted", "check_predict_X", "linear_scores"]
