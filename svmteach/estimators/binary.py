"""BinarySVC: the binary soft-margin SVM, scikit-learn compatible, built on the step-by-step solvers."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..backend import to_numpy
from ..chunked_problem import ChunkedBinaryProblem
from ..kernels import Kernel, canonical_kernel_name, gram
from ..problems import BinaryProblem
from ..rows import is_sparse, transpose_times
from ..solvers import BINARY_SOLVERS, SolveResult, make_solver
from ..solvers.base import Solver
from ..solvers.registry import check_solver
from ..solvers.stopping import gap_reached
from ..solvers.smo import RULES
from sklearn.utils._param_validation import StrOptions

from .base import CONSTRAINTS, KERNEL_CONSTRAINTS, POSITIVE, DualSVC
from .prediction import check_fitted, check_predict_X, linear_scores
from ..validation import is_dask
from .weights import sample_weights


class BinarySVC(DualSVC):
    """Binary soft-margin SVM whose solver can be watched step by step.

    .. math::

        \\min_{w, b} \\tfrac12 \\|w\\|^2 + C \\sum_i \\max(0, 1 - y_i (w^\\top \\phi(x_i) + b))

    ``solver="smo"`` fits an unpenalised bias b (LIBSVM's ``SVC``); the others solve the no-bias
    problem, with a constant feature for the intercept (LIBLINEAR's ``-B``).  X is dense or, with the
    linear kernel, SciPy sparse (converted once to CSR, never made dense), or a dask array chunked by rows (linear
    kernel): solved where its chunks live by CoCoA+ (``solver="cocoa"``, :mod:`svmteach.solvers.cocoa`), never
    gathered.

    Parameters
    ----------
    C : float, default 1.0
    kernel : {"linear", "polynomial", "gaussian", "laplacian"} (or "poly", "rbf")
    gamma : float or {"scale", "auto"}, default "scale"
    degree : int, default 3
    coef0 : float, default 1.0
    solver : {None, "smo", "dual_cd", "primal_subgradient", "interior_point", "cocoa"}, default None
        Any name of :data:`svmteach.solvers.BINARY_SOLVERS`.  None: ``"cocoa"`` for a dask X; ``"dual_cd"`` for the linear
        kernel (O(d) steps with w kept; a penalised intercept, so ask for ``"smo"`` to get SVC's
        unpenalised bias); other kernels ``"smo"``, or ``"dual_cd"`` with ``fit_intercept=False``.
        Either is finished by ``"interior_point"`` (:class:`~svmteach.solvers.InteriorPoint`) when it
        stops short on a small dense problem (:mod:`svmteach.estimators.direct`).
    selection : {"second_order", "max_violating_pair", "random"}, default "second_order"
        SMO's working-set rule (ignored by the other solvers).
    tol : float, default 1e-3
        Stop at this relative duality gap ``(P - D) / P``.
    max_iter : int or None, default None
        Most epochs, as in LIBLINEAR: n steps of SMO or dual coordinate ascent, one step of the
        subgradient or interior-point methods.  None: ``default_max_iter``, 1000 epochs and at least
        100,000 sample visits (a full-batch step visits all n).
    random_state : int, Generator or None
    record_history : bool, default False
        Keep the primal / dual / gap / KKT curves in ``history_``.
    device : {"cpu", "gpu", "auto"}, default "cpu"
        Where the arrays live and the solver runs (the compiled fast paths are CPU only); the fitted
        attributes are NumPy arrays either way.
    fit_intercept : bool, default True
        Fit an intercept: SMO's own bias, or for the other solvers (linear kernel) a constant
        feature.  False: the no-bias problem (solver=None then picks ``"dual_cd"``; SMO refuses it).
    intercept_scaling : float, default 1.0
        The constant feature's value B: the intercept is B times its weight, penalised as
        :math:`(b / B)^2 / 2`.
    class_weight : dict, "balanced" or None
        Multiplies the C of every sample of a class (``{label: weight}``); "balanced" uses
        ``n / (2 n_c)``.  ``fit``'s ``sample_weight`` multiplies it: :math:`C_i = C\\, w_i`.
    warm_start : bool, default False
        Start the next ``fit`` from this fit's dual solution, scaled to the new C and weights (a grid
        of C); the model then keeps the solver's final state in ``result_.state``.
    cache_size : float, default 200
        Megabytes of kernel rows kept, least recently used evicted (LIBSVM's ``-m``).
    verbose : int, default 0
        Print a line per measured state (epoch, primal, dual, gap, seconds).  Ctrl-C keeps the model
        as it stands, with a warning.

    Attributes
    ----------
    alpha_ : (n,) dual variables;  dual_coef_ : (1, n_SV) ``alpha_i y_i`` of the support vectors;
    support_ : (n_SV,) their indices;  support_vectors_ : (n_SV, d), CSR when X was sparse;
    intercept_ : (1,);  coef_ : (1, d), linear kernel only;  classes_ : (2,);
    after a fit on a dask X, alpha_, support_ and dual_coef_ are dask arrays, where the chunks live (never gathered),
    and there is no support_vectors_ (the rows stay with X);
    solver_ : str, the solver that produced the model (``"interior_point"`` after :mod:`~svmteach.estimators.direct`);
    n_iter_ : int, epochs run;  history_ : dict or None;
    result_ : :class:`~svmteach.solvers.SolveResult` (``state`` only with ``warm_start``).
    """

    def __init__(self, C: float = 1.0, kernel: str | Kernel = "linear", gamma: float | str = "scale", degree: int = 3,
                 coef0: float = 1.0, solver: str | None = None, selection: str = "second_order", tol: float = 1e-3,
                 max_iter: int | None = None,
                 random_state: int | np.random.Generator | np.random.RandomState | None = None,
                 record_history: bool = False, device: str = "cpu", fit_intercept: bool = True,
                 intercept_scaling: float = 1.0, class_weight: dict | str | None = None, warm_start: bool = False,
                 verbose: int = 0, cache_size: float = 200) -> None:
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
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.verbose = verbose
        self.cache_size = cache_size

    _parameter_constraints = {**CONSTRAINTS, **KERNEL_CONSTRAINTS, "selection": [StrOptions(set(RULES))],
                              "cache_size": [POSITIVE]}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.pairwise = False
        try:
            linear = (getattr(self.kernel, "name", None) or canonical_kernel_name(self.kernel)) == "linear"
        except (TypeError, ValueError):  # a bad kernel is refused in fit, naming it
            linear = False
        named = BINARY_SOLVERS.get(self.solver) if isinstance(self.solver, str) else None
        tags.input_tags.sparse = linear and (self.solver is None or (named is not None and named.takes_sparse))
        return tags

    def check_params(self) -> None:
        """The constraints, then the solver (a registered binary solver), naming the parameter."""
        super().check_params()
        if self.solver is not None:
            check_solver(self.solver, "binary")

    def solver_name(self, sparse: bool, chunked: bool = False) -> str:
        """``solver``, or for None ``"cocoa"`` (a dask X: ``chunked``), ``"dual_cd"`` (linear kernel, sparse X or
        ``fit_intercept=False``) else ``"smo"``."""
        if self.solver is None:
            if chunked:
                return "cocoa"
            return "dual_cd" if self._kernel_name() == "linear" or sparse or not self.fit_intercept else "smo"
        return self.solver

    def _kernel_name(self) -> str:
        return getattr(self.kernel, "name", None) or canonical_kernel_name(self.kernel)

    def own_bias(self, solver_name: str) -> bool:
        """Whether the intercept is the solver's own unpenalised bias b (dual equality
        :math:`y^\\top\\alpha = 0`) rather than a constant feature."""
        return self.fit_intercept and True in BINARY_SOLVERS[solver_name].bias_options

    def bias_column(self, solver_name: str, sparse: bool = False) -> float | None:
        """The constant feature that carries the intercept (``intercept_scaling``), or None.

        None for a solver with its own bias (SMO).  The feature is an intercept for the linear kernel
        only: another kernel with ``fit_intercept=True`` is a ValueError naming it.
        """
        kernel_name = self._kernel_name()
        if not self.fit_intercept or self.own_bias(solver_name) or (sparse and kernel_name != "linear"):
            return None  # (the problem refuses a sparse X with another kernel, naming X)
        if kernel_name != "linear":
            raise ValueError(f"fit_intercept=True with solver={solver_name!r} appends a constant feature, which is an "
                             f"intercept for kernel='linear' only, not for kernel={kernel_name!r}: use solver='smo' "
                             "(an unpenalised bias for every kernel) or fit_intercept=False (no bias)")
        return self.intercept_scaling

    def problem_for(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> BinaryProblem:
        """The :class:`~svmteach.problems.BinaryProblem` that ``fit(X, y, sample_weight)`` solves (bias column
        and per-sample C included), rebuilt to draw it or recompute the fit's objectives."""
        self.check_params()
        if is_dask(X):  # solved where its row chunks live (svmteach.solvers.cocoa)
            if self.device == "gpu":
                raise ValueError("device='gpu' with a dask X: the row chunks are solved on their workers' CPUs; "
                                 "leave device='cpu'")
            self.make_solver(chunked=True)  # a kernel or a solver of data in memory is refused, naming it
            return ChunkedBinaryProblem(X, y, C=self.C, bias=self.bias_column(self.solver_name(False, True)),
                                        sample_weight=sample_weight, class_weight=self.class_weight)
        sparse = is_sparse(X)
        return BinaryProblem(X, y, C=self.C, kernel=self.kernel, gamma=self.gamma, degree=self.degree,
                             coef0=self.coef0, device=self.device, bias=self.bias_column(self.solver_name(sparse), sparse),
                             sample_weight=sample_weights(y, sample_weight, self.class_weight))

    def make_solver(self, sparse: bool = False, chunked: bool = False) -> Solver:
        """The solver :meth:`solver_name` names, built by :func:`~svmteach.solvers.make_solver`, which refuses
        one that does not take sparse X, the kernel, or ``fit_intercept=False``; with ``chunked`` (a dask X), solver=None
        is CoCoA+ and a solver of data in memory is refused naming ``solver``."""
        name = self.solver_name(sparse, chunked)
        return make_solver(name, "binary", sparse=sparse, kernel=self._kernel_name(), bias=self.own_bias(name),
                           chunked=chunked,
                           selection=self.selection, random_state=self.random_state, cache_size=self.cache_size,
                           defaults=self.solver_defaults())

    @staticmethod
    def _model(solver: Solver, problem: BinaryProblem, result: SolveResult):
        """``(alpha, support, rows, dual_coef, w, b)`` of the final state: the support vectors' indices and rows (the
        bias column included), ``alpha_i y_i`` on them (1, n_SV), and for the linear kernel
        :math:`w = \\sum_i \\alpha_i y_i x_i` over them (1, d [+ 1]), else None; b the solver's own bias."""
        alpha, b = solver.coefficients(problem, result.state)
        alpha = np.array(to_numpy(alpha), dtype=np.float64)
        support = np.flatnonzero(alpha > 0)
        rows = (problem.X if is_sparse(problem.X) else to_numpy(problem.X))[support]
        dual_coef = (alpha * to_numpy(problem.y))[support][None, :]
        # w = sum_i alpha_i y_i x_i over the support vectors: (SV^T dual_coef^T)^T
        w = transpose_times(rows, dual_coef.T).T if problem.kernel.is_linear else None
        return alpha, support, rows, dual_coef, w, float(b)

    def model_result(self, solver: Solver, problem: BinaryProblem, result: SolveResult) -> SolveResult:
        """``result`` with the primal of the model :meth:`store` keeps (linear kernel), where it is not the solver's.

        The solver measures the primal at the scores of alpha; the model is the w formed from alpha once,
        :math:`w = \\sum_i \\alpha_i y_i x_i`, which on features far from 0 (an offset of 1e10) rounds by more than
        the margins allow.  When the model's own primal (:func:`~svmteach.objectives.linear_model_primal`) differs from
        the solver's by more than its rounding, the result reports the model's and its gap to the dual; where that
        changes the verdict (or the gap by more than ``tol``), not converged, and ``reason`` says why (and whether
        float64 can evaluate that primal to ``tol``).
        """
        if getattr(problem, "chunked", False) or not problem.kernel.is_linear or not np.isfinite(result.primal):
            return result  # (a chunked run's primal is measured at its weights W themselves: the model's)
        from .. import objectives as obj

        _, _, _, _, w, b = self._model(solver, problem, result)
        P, err = obj.linear_model_primal(problem, w[0], b)
        reported = float(result.primal)
        if abs(P - reported) <= err:
            return result  # the same number, as far as float64 can tell
        gap = obj.relative_gap(P, result.dual)
        converged = result.converged and gap_reached(gap, self.tol) and err <= self.tol * abs(P)
        if converged or not (result.converged or abs(P - reported) > self.tol * abs(P)):
            return result._replace(primal=P, gap=gap, converged=converged)  # the model's digits; nothing changes
        rounds = (f"; float64 rounds this primal by up to {err:.3g}, so it cannot certify a gap of tol={self.tol:g}"
                  if err > self.tol * abs(P) else "")
        reason = (f"the solver's primal {reported:.6g} is not the model's: coef_ and intercept_ give the primal {P:.6g} "
                  f"on the training data (relative duality gap {gap:.3g}{rounds}), since forming the weights "
                  "w = sum_i alpha_i y_i x_i rounds by more than the margins allow (features far from 0 or of a huge "
                  "scale): centre and scale the features, e.g. make_pipeline(StandardScaler(), estimator)")
        return result._replace(primal=P, gap=gap, converged=False, reason=reason)

    def store(self, solver: Solver, problem: BinaryProblem, result: SolveResult) -> None:
        """alpha_, support_, support_vectors_, dual_coef_, intercept_ and (linear kernel) coef_."""
        bias = problem.bias
        if getattr(problem, "chunked", False):  # alpha stays where its chunks live: dask arrays, no support vectors
            import dask.array as da

            state = result.state
            self.__dict__.pop("support_vectors_", None)  # (an earlier fit's, in memory)
            self.alpha_ = state.alpha
            self.support_ = da.flatnonzero(self.alpha_ > 0)
            self.dual_coef_ = state.signed_alpha[self.support_][None, :]
            self._kernel = problem.kernel
            w = np.array(state.W, dtype=np.float64)
            self._linear_coef = np.ascontiguousarray((w if bias is None else w[:-1])[None, :])
            self.intercept_ = np.array([0.0 if bias is None else float(w[-1]) * bias])
            return
        alpha, self.support_, rows, self.dual_coef_, w, b = self._model(solver, problem, result)
        self.alpha_ = alpha
        # with a bias column, its weight times its value is the intercept: w'x + w_B B
        self.support_vectors_ = rows if bias is None else rows[:, : self.n_features_in_]
        self._kernel = problem.kernel
        if w is not None:
            if bias is not None:
                w, b = w[:, :-1], float(w[0, -1]) * bias
            self._linear_coef = np.ascontiguousarray(w)
        else:
            self._linear_coef = None
        self.intercept_ = np.array([float(b)])

    @property
    def coef_(self) -> np.ndarray:
        """(1, d) weight vector :math:`w = \\sum_i \\alpha_i y_i x_i` (linear kernel only)."""
        check_fitted(self, "alpha_")
        if self._linear_coef is None:
            raise AttributeError("coef_ is only available when kernel='linear'")
        return self._linear_coef

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """:math:`f(x) = \\sum_i \\alpha_i y_i k(x_i, x) + b`; positive means ``classes_[1]``."""
        check_fitted(self, "alpha_")
        if is_dask(X):  # each row chunk scored where it lives
            return X.map_blocks(self.decision_function, dtype=np.float64, drop_axis=1)
        if self._linear_coef is not None:  # w'x + b, X dense or sparse
            return linear_scores(self, X, self._linear_coef)[:, 0] + self.intercept_[0]
        X = to_numpy(check_predict_X(self, X))
        K = gram(self.support_vectors_, X, self._kernel)
        return self.dual_coef_[0] @ K + self.intercept_[0]

    def predict(self, X: ArrayLike) -> np.ndarray:
        check_fitted(self, "alpha_")
        if is_dask(X):  # a dask array of labels, each row chunk predicted where it lives
            return X.map_blocks(self.predict, dtype=self.classes_.dtype, drop_axis=1)
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]
