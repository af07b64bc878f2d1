"""scikit-learn compatible estimators built on the step-by-step solvers.

:mod:`.base` holds the one ``fit`` template and the parameters' constraints; one estimator per module
(:mod:`.binary`, :mod:`.multiclass`, :mod:`.rls`; the binary reductions in :mod:`.reductions`);
:mod:`.prediction` checks what ``predict`` is given.
"""

from .binary import BinarySVC
from .multiclass import MulticlassSVC
from .prediction import check_fitted, check_predict_X, linear_scores
from .reductions import OneVsOneSVC, OneVsRestSVC
from .rls import RLSClassifier

__all__ = ["BinarySVC", "MulticlassSVC", "OneVsRestSVC", "OneVsOneSVC", "RLSClassifier", "check_fitted",
           "check_predict_X", "linear_scores"]
