"""BinarySVC: the binary soft-margin SVM, scikit-learn compatible, built on the step-by-step solvers."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning

from ..backend import to_numpy
from ..kernels import canonical_kernel_name, gram
from ..problems import BinaryProblem
from ..rows import is_sparse, transpose_times
from ..solvers import BINARY_SOLVERS, SMO, DualCoordinateAscent, PrimalSubgradient, solve
from ..solvers.base import check_choice, check_random_state
from ..solvers.smo import RULES
from .parameters import (STALLED, ValidatedParameters, check_choice_of, check_flag, check_optional_max_iter,
                         check_tol, checked_by_problem)
from .prediction import check_fitted, check_predict_X, linear_scores

#: The binary solvers that take a sparse X (their class says so: ``takes_sparse``);
#: SMO's compiled loop reads dense kernel rows.
SPARSE_BINARY_SOLVERS = tuple(name for name, cls in BINARY_SOLVERS.items() if cls.takes_sparse)


class BinarySVC(ValidatedParameters, ClassifierMixin, BaseEstimator):
    """Binary soft-margin SVM whose solver can be watched step by step.

    .. math::

        \\min_{w, b} \\tfrac12 \\|w\\|^2 + C \\sum_i \\max(0, 1 - y_i (w^\\top \\phi(x_i) + b))

    ``solver="smo"`` solves it with a bias; ``"dual_cd"`` and
    ``"primal_subgradient"`` solve the course's no-bias problem (``intercept_`` is 0).
    ``fit``, ``predict`` and ``decision_function`` take X dense or, with the linear kernel,
    SciPy sparse (any format; converted once to CSR, never made dense).

    Parameters
    ----------
    C : float, default 1.0
    kernel : {"linear", "polynomial", "gaussian", "laplacian"} (or "poly", "rbf")
    gamma : float or {"scale", "auto"}, default "scale"
    degree : int, default 3
    coef0 : float, default 1.0
    solver : {None, "smo", "dual_cd", "primal_subgradient"}, default None
        None: ``"smo"`` for dense X and ``"dual_cd"`` for sparse X (SciPy sparse, linear
        kernel only), which SMO does not take (:data:`SPARSE_BINARY_SOLVERS`).
    selection : {"second_order", "max_violating_pair", "random"}, default "second_order"
        SMO's working-set rule (ignored by the other solvers).
    tol : float, default 1e-3
        Stop at this relative duality gap ``(P - D) / P``.
    max_iter : int or None
        Most steps (SMO pairs, coordinate steps, subgradient iterations); None means
        ``max(10**6, 1000 n)`` for the dual methods and 10000 for the subgradient method.
    random_state : int, Generator or None
    record_history : bool, default False
        Keep the primal / dual / gap / KKT curves in ``history_``.
    device : {"cpu", "gpu", "auto"}, default "cpu"
        Where the problem's arrays live and the solver runs.  On "gpu" SMO takes its
        steps on CuPy arrays, with kernel rows computed on the GPU (the compiled fast
        paths are CPU only); the fitted attributes are NumPy arrays either way.

    Attributes
    ----------
    alpha_ : (n,) dual variables;  dual_coef_ : (1, n_SV) ``alpha_i y_i`` of the support vectors;
    support_ : (n_SV,) their indices;  support_vectors_ : (n_SV, d), CSR when X was sparse;
    intercept_ : (1,);  coef_ : (1, d), linear kernel only;  classes_ : (2,);
    n_iter_ : int;  history_ : dict or None;  result_ : :class:`~svmteach.solvers.SolveResult`.
    """

    def __init__(self, C=1.0, kernel="linear", gamma="scale", degree=3, coef0=1.0, solver=None,
                 selection="second_order", tol=1e-3, max_iter=None, random_state=None, record_history=False,
                 device="cpu"):
        self.device = device
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.selection = selection
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.record_history = record_history

    PARAMETERS = {
        "C": checked_by_problem, "kernel": checked_by_problem, "gamma": checked_by_problem,
        "degree": checked_by_problem, "coef0": checked_by_problem, "device": checked_by_problem,
        "solver": lambda value, name: None if value is None else check_choice(name, value, tuple(BINARY_SOLVERS)),
        "selection": check_choice_of(RULES),
        "tol": lambda value, name: check_tol(value), "max_iter": lambda value, name: check_optional_max_iter(value),
        "random_state": lambda value, name: check_random_state(value), "record_history": check_flag,
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.pairwise = False
        try:
            linear = (getattr(self.kernel, "name", None) or canonical_kernel_name(self.kernel)) == "linear"
        except (TypeError, ValueError):  # a bad kernel is refused in fit, naming it
            linear = False
        tags.input_tags.sparse = linear and (self.solver is None or self.solver in SPARSE_BINARY_SOLVERS)
        return tags

    def solver_name(self, params, sparse: bool) -> str:
        """The solver's name: ``params["solver"]``, or for None ``"dual_cd"`` on sparse X and ``"smo"``
        otherwise; a TypeError naming ``solver`` when a named solver does not take sparse X."""
        name = params["solver"]
        if name is None:
            return "dual_cd" if sparse else "smo"
        if sparse and name not in SPARSE_BINARY_SOLVERS:
            raise TypeError(f"solver={name!r} does not take sparse X; the solvers that do are "
                            f"{SPARSE_BINARY_SOLVERS} (solver=None picks 'dual_cd'), or pass X.toarray()")
        return name

    def make_problem(self, X, y) -> BinaryProblem:
        return BinaryProblem(X, y, C=self.C, kernel=self.kernel, gamma=self.gamma, degree=self.degree,
                             coef0=self.coef0, device=self.device)

    def make_solver(self, params=None, sparse: bool = False):
        """The solver the parameters name (``params``: those :meth:`checked_params` returned, if at hand)
        for dense X, or for sparse X with ``sparse`` (:meth:`solver_name`)."""
        params = self.checked_params() if params is None else params
        name = self.solver_name(params, sparse)
        if name == "smo":
            return SMO(selection=params["selection"], random_state=params["random_state"])
        if name == "dual_cd":
            return DualCoordinateAscent(random_state=params["random_state"])
        return PrimalSubgradient()

    def fit(self, X, y):
        params = self.checked_params()
        solver = self.make_solver(params, sparse=is_sparse(X))
        tol = params["tol"]
        problem = self.make_problem(X, y)
        n = problem.n_samples
        max_iter = params["max_iter"]
        if max_iter is None:
            max_iter = 10_000 if solver.name == "primal_subgradient" else max(10**6, 1000 * n)
        result = solve(solver, problem, max_iter=int(max_iter), tol=tol, record_history=self.record_history)
        if not result.converged:
            why = (f"stopped at max_iter={max_iter}" if result.n_iter >= max_iter else
                   f"stopped after {result.n_iter} steps, before max_iter={max_iter}, {STALLED}")
            warnings.warn(f"{type(self).__name__} ({solver.name}) {why} with relative duality gap "
                          f"{result.gap:.3g} > tol={tol:g}", ConvergenceWarning)
        alpha, b = solver.coefficients(problem, result.state)
        alpha = np.array(to_numpy(alpha), dtype=np.float64)
        yv = to_numpy(problem.y)
        self.problem_ = problem
        self.result_ = result
        self.classes_ = problem.classes
        self.n_features_in_ = problem.n_features
        self.alpha_ = alpha
        self.support_ = np.flatnonzero(alpha > 0)
        # rows of X (CSR rows of a sparse X, never made dense)
        self.support_vectors_ = (problem.X if is_sparse(problem.X) else to_numpy(problem.X))[self.support_]
        self.dual_coef_ = (alpha * yv)[self.support_][None, :]
        self.intercept_ = np.array([float(b)])
        self.n_iter_ = result.n_iter
        self.history_ = result.history
        # w = sum_i alpha_i y_i x_i over the support vectors: (SV^T dual_coef^T)^T, shape (1, d)
        self._linear_coef = (
            transpose_times(self.support_vectors_, self.dual_coef_.T).T if problem.kernel.is_linear else None
        )
        return self

    @property
    def coef_(self):
        """(1, d) weight vector :math:`w = \\sum_i \\alpha_i y_i x_i` (linear kernel only)."""
        check_fitted(self, "alpha_")
        if self._linear_coef is None:
            raise AttributeError("coef_ is only available when kernel='linear'")
        return self._linear_coef

    def decision_function(self, X):
        """:math:`f(x) = \\sum_i \\alpha_i y_i k(x_i, x) + b`; positive means ``classes_[1]``."""
        check_fitted(self, "alpha_")
        if self._linear_coef is not None:  # w'x + b, X dense or sparse
            return linear_scores(self, X, self._linear_coef)[:, 0] + self.intercept_[0]
        X = to_numpy(check_predict_X(self, X))
        K = gram(self.support_vectors_, X, self.problem_.kernel)
        return self.dual_coef_[0] @ K + self.intercept_[0]

    def predict(self, X):
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]
