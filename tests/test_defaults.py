"""The estimators' defaults and their traps (issue 26): the linear BinarySVC() answers at any n (dual coordinate
ascent with a penalised intercept column), a warm start on other labels starts cold instead of raising, the
verbose log ends with the verdict on the model the fit returns (after the interior-point finish), and
MulticlassSVC(solver="parallel") on a CPU warns that it is meant for a GPU.
"""

import warnings

import numpy as np
import pytest
from conftest import random_binary
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC
from test_multiclass import random_multiclass

from svmteach import BinarySVC, MulticlassSVC
from svmteach.backend import cupy_available


def hinge_primal(X, y, w, b, B):
    """:math:`\\tfrac12 (\\|w\\|^2 + (b/B)^2) + \\sum_i \\max(0, 1 - y_i (w^\\top x_i + b))` at C = 1: the
    problem with the intercept as a penalised feature of value B (LIBLINEAR's -B), written out."""
    return 0.5 * (w @ w + (b / B) ** 2) + np.maximum(0.0, 1.0 - y * (X @ w + b)).sum()


# ---- 2. a warm start on other labels --------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{"solver": "smo"}, {"kernel": "rbf"}, {}, {"solver": "dual_cd"}],
                         ids=["smo", "rbf-default", "linear-default", "dual_cd"])
def test_binary_warm_start_on_other_labels_starts_cold(kwargs):
    """SMO's warm state broke y'alpha = 0 for the new labels: "state.alpha has y'alpha = 2.08 != 0"."""
    X, y = random_binary(n=60, d=3, seed=6)
    other = np.where(X[:, 1] > 0, 1.0, -1.0)
    warm = BinarySVC(warm_start=True, tol=1e-8, random_state=0, **kwargs).fit(X, y)
    warm.fit(X, other)
    cold = BinarySVC(tol=1e-8, random_state=0, **kwargs).fit(X, other)
    assert warm.result_.converged and warm.solver_ == cold.solver_
    assert warm.result_.primal == pytest.approx(cold.result_.primal, rel=1e-6)
    np.testing.assert_array_equal(warm.predict(X), cold.predict(X))


@pytest.mark.parametrize("loss, solver", [("ww", None), ("cs", None), ("llw", None), ("ww", "shark")])
def test_multiclass_warm_start_on_other_labels(loss, solver):
    X, y = random_multiclass(n=60, d=3, k=3, seed=7)
    other = (y + 1) % 3
    warm = MulticlassSVC(loss=loss, solver=solver, warm_start=True, tol=1e-8, random_state=0).fit(X, y)
    warm.fit(X, other)
    cold = MulticlassSVC(loss=loss, solver=solver, tol=1e-8, random_state=0).fit(X, other)
    assert warm.result_.converged
    assert warm.result_.primal == pytest.approx(cold.result_.primal, rel=1e-6)


