"""MulticlassSVC: the linear multiclass SVMs (Weston-Watkins, Crammer-Singer, Lee-Lin-Wahba), scikit-learn compatible."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning

from ..backend import to_numpy
from ..losses import get_loss
from ..problems import MulticlassProblem
from ..solvers import make_multiclass_solver, solve
from ..solvers.base import check_random_state
from .parameters import STALLED, ValidatedParameters, check_flag, check_max_iter, check_tol, checked_by_problem
from .prediction import check_fitted, linear_scores


class MulticlassSVC(ValidatedParameters, ClassifierMixin, BaseEstimator):
    """Linear multiclass SVM without bias: Weston-Watkins, Crammer-Singer or Lee-Lin-Wahba, solved in the dual.

    .. math::

        \\text{WW:} \\; \\tfrac12 \\|W\\|_F^2 + C \\sum_i \\sum_{j \\ne y_i} \\max(0, 1 - M (w_{y_i} - w_j)^\\top x_i),
        \\qquad
        \\text{CS:} \\; \\tfrac12 \\|W\\|_F^2 + C \\sum_i \\max(0, 1 + \\max_{m \\ne y_i} w_m^\\top x_i - w_{y_i}^\\top x_i)
        \\qquad
        \\text{LLW:} \\; \\tfrac12 \\|W\\|_F^2 + C \\sum_i \\sum_{m \\ne y_i} \\max(0, 1 + w_m^\\top x_i), \\ \\textstyle\\sum_m w_m = 0

    X may be dense or SciPy sparse (any format, converted once to CSR; the data stay sparse in
    ``fit``, ``predict`` and ``decision_function``).

    Parameters
    ----------
    C : float, default 1.0
    loss : {"ww", "cs", "llw"}, default "ww"
        A key of :data:`svmteach.losses.LOSSES`.
    M : float, default 1.0
        Weston-Watkins margin scale (1/2 is Shark's convention).
    solver : {None, "exact", "shark", "blondel", "parallel"}
        None picks the loss's default: "exact" (WW, LLW) or "blondel" (CS), one sample at
        a time; "shark" solves WW only; "parallel" (any loss) updates every sample at once
        (:class:`~svmteach.solvers.ParallelBlock`), the solver for a GPU.
        :func:`svmteach.solvers.multiclass_solver_names` lists a loss's choices.
    tol : float, default 1e-3
        Stop at this relative duality gap, checked once per epoch.
    max_iter : int, default 1000
        Most epochs (passes over the data), as in LIBLINEAR; for "parallel", most steps
        (each reads the data twice).
    random_state : int, Generator or None
    record_history : bool
        Keep per-epoch curves (time with the clock paused for the objectives, primal,
        dual, gap, KKT violation) in ``history_``.
    device : {"cpu", "gpu", "auto"}, default "cpu"
        Where the data and the solver live (see :class:`~svmteach.problems.MulticlassProblem`);
        the fitted attributes are NumPy arrays either way.

    Attributes
    ----------
    coef_ : (k, d) weights (for two classes, as scikit-learn: decision_function is s_1 - s_0);
    intercept_ : (k,) zeros (no bias);  alpha_ : (n, k) dual variables;  classes_ : (k,);
    n_iter_ : int, epochs run;  history_ : dict or None;  result_ : SolveResult.
    """

    def __init__(self, C=1.0, loss="ww", M=1.0, solver=None, tol=1e-3, max_iter=1000, random_state=None,
                 record_history=False, device="cpu"):
        self.device = device
        self.C = C
        self.loss = loss
        self.M = M
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.record_history = record_history

    PARAMETERS = {
        "C": checked_by_problem, "M": checked_by_problem, "device": checked_by_problem,
        "loss": lambda value, name: get_loss(value).name, "solver": checked_by_problem,  # by the registry, below
        "tol": lambda value, name: check_tol(value), "max_iter": lambda value, name: check_max_iter(value),
        "random_state": lambda value, name: check_random_state(value), "record_history": check_flag,
    }

    def make_solver(self, params=None):
        """The solver the parameters name (``params``: those :meth:`checked_params` returned, if at hand)."""
        params = self.checked_params() if params is None else params
        return make_multiclass_solver(params["solver"], get_loss(params["loss"]), params["random_state"])

    def fit(self, X, y):
        params = self.checked_params()
        solver = self.make_solver(params)
        tol = params["tol"]
        max_epochs = params["max_iter"]
        problem = MulticlassProblem(X, y, C=self.C, loss=self.loss, M=self.M, device=self.device)
        n = solver.steps_per_epoch(problem)
        result = solve(solver, problem, max_iter=max_epochs * n, tol=tol,
                       record_history=self.record_history)
        if not result.converged:
            why = (f"stopped after max_iter={self.max_iter} epochs" if result.n_iter >= max_epochs * n else
                   f"stopped after {-(-result.n_iter // n)} epochs, before max_iter={self.max_iter}, {STALLED}")
            warnings.warn(f"{type(self).__name__} ({self.loss}, {solver.name}) {why} with relative duality gap "
                          f"{result.gap:.3g} > tol={tol:g}", ConvergenceWarning)
        alpha, W = solver.coefficients(problem, result.state)
        self.problem_ = problem
        self.result_ = result
        self.classes_ = problem.classes
        self.n_features_in_ = problem.n_features
        self.alpha_ = to_numpy(alpha)
        self.coef_ = to_numpy(W)
        self.intercept_ = np.zeros(problem.k)
        self.n_iter_ = -(-result.n_iter // n)  # epochs, counting a partial one
        self.history_ = result.history
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.device != "gpu"  # sparse data is solved on the CPU
        return tags

    def decision_function(self, X):
        """Scores ``X @ coef_.T`` of shape (n, k), X dense or sparse; for two classes the (n,) difference s_1 - s_0."""
        check_fitted(self, "coef_")
        S = linear_scores(self, X, self.coef_)
        return S[:, 1] - S[:, 0] if S.shape[1] == 2 else S

    def predict(self, X):
        check_fitted(self, "coef_")
        return self.classes_[np.argmax(linear_scores(self, X, self.coef_), axis=1)]
