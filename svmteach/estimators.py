"""scikit-learn compatible estimators built on the step-by-step solvers."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning

from .backend import to_numpy
from .kernels import canonical_kernel_name, gram
from .problems import BinaryProblem, check_X
from .rows import is_sparse, times, transpose_times
from .losses import get_loss
from .solvers import BINARY_SOLVERS, SMO, DualCoordinateAscent, PrimalSubgradient, make_multiclass_solver, solve
from .solvers import base
from .solvers.base import check_choice, check_random_state
from .solvers.smo import RULES


#: The binary solvers that take a sparse X (their class says so: ``takes_sparse``);
#: SMO's compiled loop reads dense kernel rows.
SPARSE_BINARY_SOLVERS = tuple(name for name, cls in BINARY_SOLVERS.items() if cls.takes_sparse)

#: Why a run that did not converge stopped before max_iter (see :func:`svmteach.solvers.solve`).
STALLED = "because its steps no longer changed alpha (at the limit of rounding) or the gap was NaN"


def check_fitted(est, attribute: str):
    from sklearn.exceptions import NotFittedError

    if attribute not in vars(est):
        raise NotFittedError(
            f"This {type(est).__name__} instance is not fitted yet. Call 'fit' with appropriate arguments first."
        )


def check_tol(tol) -> float:
    """The estimators' ``tol``: a positive finite number (a TypeError / ValueError naming it otherwise)."""
    return base.check_tol(tol, "tol", positive=True)


def check_max_iter(max_iter) -> int:
    """The estimators' ``max_iter``: a positive integer."""
    return base.check_max_iter(max_iter, "max_iter")


def check_flag(value, name: str) -> bool:
    """A bool (or NumPy bool) parameter, or a TypeError naming it."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_optional_max_iter(max_iter):
    """None (the solver's default) or a positive integer."""
    return None if max_iter is None else check_max_iter(max_iter)


def check_choice_of(options):
    """A validator of a parameter that must be one of ``options``."""
    return lambda value, name: check_choice(name, value, tuple(options))


def checked_by_problem(value, name):
    """A parameter the problem validates when it is built (C, the kernel and its constants, M, device)."""
    return value


class ValidatedParameters:
    """Estimators whose parameters are validated from one declarative table, ``PARAMETERS``.

    ``PARAMETERS`` maps each ``__init__`` parameter to a validator ``f(value, name) -> value`` that
    raises a TypeError / ValueError naming the parameter (in the spirit of scikit-learn's
    ``_parameter_constraints``); :meth:`checked_params` runs them all, in ``fit``, before any work.
    """

    PARAMETERS: dict = {}

    def checked_params(self) -> dict:
        """Every parameter, validated: ``{name: value}``."""
        params = self.get_params(deep=False)
        missing = set(params) - set(self.PARAMETERS)
        assert not missing, f"{type(self).__name__}.PARAMETERS has no validator for {sorted(missing)}"
        return {name: self.PARAMETERS[name](value, name) for name, value in params.items()}


def check_predict_X(est, X, accept_sparse: bool = False):
    """Validate ``X`` for prediction: 2-D, finite, with the number of features seen in ``fit``.

    With ``accept_sparse``, a SciPy sparse X (any format) comes back as a read-only CSR array
    (one conversion, never dense); without, it is refused naming ``X``.
    """
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
        from .problems import MulticlassProblem

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
