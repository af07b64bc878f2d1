"""MulticlassSVC: the multiclass SVMs (Weston-Watkins, Crammer-Singer, Lee-Lin-Wahba), linear or with a kernel,
scikit-learn compatible."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..backend import is_numpy, to_numpy
from ..chunked_problem import ChunkedMulticlassProblem
from ..kernels import Kernel, canonical_kernel_name
from ..losses import MulticlassLoss, get_loss
from ..multiclass_model import kernel_scores
from ..problems import MulticlassProblem
from ..solvers import MULTICLASS_SOLVERS, SolveResult, WorkingSet, make_multiclass_solver
from ..solvers.base import Solver
from ..solvers.kernel_scores import KernelRowCache
from ..solvers.registry import check_solver
from .base import CONSTRAINTS, KERNEL_CONSTRAINTS, POSITIVE, DualSVC
from .prediction import check_fitted, check_predict_X, linear_scores
from ..validation import is_dask
from .weights import sample_weights


#: From this many samples a kernel fit's default is the working sets even where the cache holds K (measured: the
#: random-order epochs faster at n = 1,000, the working sets 1.3-1.7x at 2,000, 1.9-3x at 5,000 and on MNIST).
WORKING_SETS_FROM = 2000


class MulticlassSVC(DualSVC):
    """Multiclass SVM: Weston-Watkins, Crammer-Singer or Lee-Lin-Wahba, solved in the dual, linear or with a kernel.

    :math:`\\min_W \\tfrac12 \\|W\\|_F^2 + \\sum_i C_i \\ell_i(W)`, the losses :math:`\\ell_i` as in the table of
    :mod:`svmteach.losses`, the scores :math:`w_m^\\top \\phi(x)` in the kernel's feature space.

    X may be dense or SciPy sparse (converted once to CSR, and kept sparse); another kernel than the linear
    one takes dense X.  With a kernel the solvers keep the training scores :math:`S = K A` (n, k) and read
    kernel rows from a cache of ``cache_size`` MB: no n x n matrix.  A kernel fit is still slower than
    scikit-learn's one-vs-one SVC (on 10 classes, by the working sets, the default from 2,000 samples: the ratios
    are measured in ``benchmarks/RESULTS.md``).

    Parameters
    ----------
    C : float, default 1.0
    loss : {"ww", "cs", "llw", "mmr"}, default "ww"
        A key of :data:`svmteach.losses.LOSSES`.
    kernel : {"linear", "polynomial", "gaussian", "laplacian"} (or "poly", "rbf"), default "linear"
    gamma, degree, coef0 : default "scale", 3, 1.0
        The kernel's constants, as :class:`~svmteach.estimators.BinarySVC` (and scikit-learn's SVC) name them
        (:func:`svmteach.kernels.make_kernel`).
    M : float, default 1.0
        Weston-Watkins margin scale (1/2 is Shark's convention).
    solver : {None, "exact", "shark", "blondel", "parallel", "interior_point", "working_set"}
        None: the loss's default, "exact" (WW, LLW, MMR) or "blondel" (CS), one sample at a time, finished
        by "interior_point" when it stops short on a small problem (:mod:`svmteach.estimators.direct`); with a
        nonlinear kernel on 2,000 samples or more, or whose n x n matrix ``cache_size`` cannot hold, or on a GPU,
        "working_set" (b samples solved together, their kernel rows computed at once:
        :class:`~svmteach.solvers.WorkingSet`).
        "shark": WW only.  "parallel": every sample at once (:class:`~svmteach.solvers.ParallelBlock`),
        for a GPU (it warns on the CPU).  "interior_point": Newton steps
        (:class:`~svmteach.solvers.InteriorPoint`), small problems.
        :func:`svmteach.solvers.multiclass_solver_names` lists a loss's choices.
    tol : float, default 1e-3
        Stop at this relative duality gap, checked once per epoch.
    max_iter : int or None, default None
        Most epochs (passes over the data, as in LIBLINEAR; one step of "parallel", one Newton step of
        "interior_point").  None: ``default_max_iter``, 1000 epochs and at least 100,000 sample visits;
        "parallel" gets up to 10x more epochs with an intercept (``sqrt(r)`` times, r the ratio of the bias column's
        second moment, ``intercept_scaling**2``, to the mean feature's: 1x on standardised data, 6x on rows of
        norm 1 in 50 dimensions), since the intercepts couple all its blocks
        (:meth:`~svmteach.solvers.ParallelBlock.default_max_iter`).
    random_state : int, Generator or None
    record_history : bool
        Keep per-epoch curves (time, primal, dual, gap, KKT violation) in ``history_``.
    device : {"cpu", "gpu", "auto"}, default "cpu"
        Where the data and the solver live (see :class:`~svmteach.problems.MulticlassProblem`);
        the fitted attributes are NumPy arrays either way.
    fit_intercept : bool, default True
        Append a constant feature ``intercept_scaling`` to X (LIBLINEAR's ``-B``): its weights times
        that value are the intercepts, penalised with W.  With another kernel the constant feature extends
        :math:`\\phi(x)`, adding :math:`B^2` to the kernel.  False: the course's problem, no bias.
    intercept_scaling : float, default 1.0
        The constant feature's value B; a larger B penalises the intercepts less.
    class_weight : dict, "balanced" or None
        Multiplies the C of every sample of a class (``{label: weight}``); "balanced" uses
        ``n / (k n_c)``.  ``fit``'s ``sample_weight`` multiplies it: :math:`C_i = C\\, w_i`.
    warm_start : bool, default False
        Start the next ``fit`` from this fit's dual solution, scaled to the new C and weights (a grid
        of C); the model then keeps the solver's final state in ``result_.state``.
    verbose : int, default 0
        Print a line per measured state (epoch, primal, dual, gap, seconds).  Ctrl-C keeps the model
        as it stands, with a warning.
    cache_size : float, default 200
        Megabytes of kernel rows kept (another kernel than the linear one), least recently used evicted.

    Attributes
    ----------
    coef_ : (k, d) weights, linear kernel only (for two classes, as scikit-learn: decision_function is s_1 - s_0);
    support_vectors_ : (n_SV, d) the support vectors (dense), another kernel only;
    intercept_ : (k,) intercepts (zeros without ``fit_intercept``);  classes_ : (k,);
    support_ : (n_SV,) the samples whose dual variables are not all 0;  dual_coef_ : (n_SV, k) their rows;
    alpha_ : (n, k) dual variables (a property, built from the two);
    solver_ : str, the solver that produced the model (``"interior_point"`` after :mod:`~svmteach.estimators.direct`);
    n_iter_ : int, epochs run;  history_ : dict or None;  result_ : SolveResult (``state`` only with ``warm_start``).
    """

    def __init__(self, C: float = 1.0, loss: str | MulticlassLoss = "ww", M: float = 1.0, solver: str | None = None,
                 tol: float = 1e-3, max_iter: int | None = None,
                 random_state: int | np.random.Generator | np.random.RandomState | None = None,
                 record_history: bool = False, device: str = "cpu", fit_intercept: bool = True,
                 intercept_scaling: float = 1.0, class_weight: dict | str | None = None, warm_start: bool = False,
                 verbose: int = 0, kernel: str | Kernel = "linear", gamma: float | str = "scale", degree: int = 3,
                 coef0: float = 1.0, cache_size: float = 200) -> None:
        self.device = device
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.cache_size = cache_size
        self.C = C
        self.loss = loss
        self.M = M
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.record_history = record_history
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.verbose = verbose

    _parameter_constraints = {**CONSTRAINTS, **KERNEL_CONSTRAINTS, "loss": [str, MulticlassLoss], "M": [POSITIVE],
                              "cache_size": [POSITIVE]}

    def check_params(self) -> None:
        """The constraints, then the loss and the solver (registered, for that loss), each naming its parameter."""
        super().check_params()
        loss = get_loss(self.loss)
        if self.solver is not None:
            check_solver(self.solver, "multiclass", loss)

    def make_solver(self, sparse: bool = False, chunked: bool = False) -> Solver:
        """The solver the parameters name (:func:`~svmteach.solvers.make_multiclass_solver`, which refuses one
        that does not solve the loss or, with ``sparse``, take sparse X; with ``chunked``, a dask X, solver=None
        is CoCoA+ and a solver of data in memory is refused)."""
        return make_multiclass_solver(self.solver, get_loss(self.loss), self.random_state, sparse,
                                      kernel=self._kernel_name(), chunked=chunked, cache_size=self.cache_size,
                                      defaults=self.solver_defaults())

    def solver_for(self, solver: Solver, problem: MulticlassProblem) -> Solver:
        """With ``solver=None`` on a kernel problem of at least :data:`WORKING_SETS_FROM` samples, or whose kernel
        matrix ``cache_size`` MB cannot hold: the working sets (:class:`~svmteach.solvers.WorkingSet`), which
        compute a row once per working set where the random-order epochs compute it at almost every visit beyond
        the cache, and ask for it at every visit within it (``benchmarks/RESULTS.md``: 1.3-3x faster from n = 2,000
        with K cached, 5-13x at n = 20,000), and at every n on a GPU (where the epochs would run their step path, a
        kernel row at a time); else ``solver``."""
        n = problem.n_samples
        small = n < WORKING_SETS_FROM and KernelRowCache.rows_for(n, self.cache_size) >= n and is_numpy(problem.xp)
        if (self.solver is not None or problem.kernel.is_linear or getattr(problem, "chunked", False)
                or not WorkingSet.solves(problem.loss_object) or small):
            return solver
        return WorkingSet(cache_size=self.cache_size, random_state=self.random_state)

    def _kernel_name(self) -> str:
        return getattr(self.kernel, "name", None) or canonical_kernel_name(self.kernel)

    def problem_for(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> MulticlassProblem:
        """The :class:`~svmteach.problems.MulticlassProblem` that ``fit(X, y, sample_weight)`` solves (bias
        column and per-sample C included), rebuilt to draw it or recompute the fit's objectives.  It shares X
        (``copy=False``): do not change X while the problem is in use."""
        self.check_params()
        bias = self.intercept_scaling if self.fit_intercept else None
        if is_dask(X):  # solved where its row chunks live (svmteach.solvers.cocoa)
            if self.device == "gpu":
                raise ValueError("device='gpu' with a dask X: the row chunks are solved on their workers' CPUs; "
                                 "leave device='cpu'")
            return ChunkedMulticlassProblem(X, y, C=self.C, loss=self.loss, M=self.M, bias=bias,
                                            sample_weight=sample_weight, class_weight=self.class_weight)
        return MulticlassProblem(X, y, C=self.C, loss=self.loss, M=self.M, device=self.device, bias=bias,
                                 sample_weight=sample_weights(y, sample_weight, self.class_weight),
                                 kernel=self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0,
                                 copy=False)

    def fit_label(self, solver: Solver, problem: MulticlassProblem) -> str:
        """The loss and the solver: "ww, exact"."""
        return f"{problem.loss}, {solver.name}"

    def store(self, solver: Solver, problem: MulticlassProblem, result: SolveResult) -> None:
        """support_ and dual_coef_ (the nonzero rows of alpha) and intercept_; coef_ (linear kernel) or
        support_vectors_ and their rows of A (another kernel)."""
        bias = problem.bias
        alpha, W = solver.coefficients(problem, result.state)
        if getattr(problem, "chunked", False):  # alpha stays where its chunks live: a dask array
            import dask.array as da

            self._alpha = alpha
            self.support_ = da.flatnonzero(da.any(alpha != 0, axis=1))
            self.dual_coef_ = alpha[self.support_]
            self._n_samples, self._kernel = problem.n_samples, problem.kernel
            self._coef = np.ascontiguousarray(W if bias is None else W[:, :-1])
            self.intercept_ = np.zeros(problem.k) if bias is None else W[:, -1] * bias
            return
        self.__dict__.pop("_alpha", None)
        alpha, W = to_numpy(alpha), to_numpy(W)
        self.support_ = np.flatnonzero(np.any(alpha != 0, axis=1))
        self.dual_coef_ = np.ascontiguousarray(alpha[self.support_])
        self._n_samples = problem.n_samples
        self._kernel = problem.kernel
        if problem.kernel.is_linear:
            # w_m'x + w_mB B: the bias column's weights times its value are the intercepts
            self._coef = np.ascontiguousarray(W if bias is None else W[:, :-1])
            self.intercept_ = np.zeros(problem.k) if bias is None else W[:, -1] * bias
            return
        # w_m = sum_i A_im phi(x_i): a new point's scores are k(x, x_s) A_s over the support vectors, and the
        # constant feature B adds B^2 sum_i A_im, the intercepts
        A = np.asarray(to_numpy(problem.loss_object.weight_rows(problem, problem.xp.asarray(alpha))), dtype=np.float64)
        self.support_vectors_ = np.array(to_numpy(problem.X)[self.support_], dtype=np.float64)
        self._weight_rows = np.ascontiguousarray(A[self.support_])
        self.intercept_ = problem.kernel_offset * A.sum(axis=0)

    @property
    def coef_(self) -> np.ndarray:
        """(k, d) weights, row m is :math:`w_m` (linear kernel only: another kernel's weights live in its feature
        space)."""
        check_fitted(self, "dual_coef_")
        if not self._kernel.is_linear:
            raise AttributeError(f"coef_ is only available when kernel='linear', not {self._kernel.name!r}: the "
                                 "weights live in the kernel's feature space (see support_vectors_ and dual_coef_)")
        return self._coef

    @property
    def alpha_(self) -> np.ndarray:
        """(n, k) dual variables of the fit: ``dual_coef_`` in the rows ``support_``, zeros elsewhere (a dask array,
        where its chunks live, after a fit on a dask X)."""
        check_fitted(self, "dual_coef_")
        if "_alpha" in vars(self):
            return self._alpha
        alpha = np.zeros((self._n_samples, len(self.classes_)))
        alpha[self.support_] = self.dual_coef_
        return alpha

    def scores(self, X: ArrayLike) -> np.ndarray:
        """The (n, k) class scores :math:`w_m^\\top \\phi(x) + b_m`, X dense or sparse (linear kernel)."""
        check_fitted(self, "dual_coef_")
        if is_dask(X):  # each row chunk scored where it lives
            return X.map_blocks(self.scores, dtype=np.float64, chunks=(X.chunks[0], (len(self.classes_),)))
        if self._kernel.is_linear:
            return linear_scores(self, X, self._coef) + self.intercept_
        X = to_numpy(check_predict_X(self, X))
        return kernel_scores(self._kernel, 0.0, self.support_vectors_, self._weight_rows, X) + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        named = MULTICLASS_SOLVERS.get(self.solver) if isinstance(self.solver, str) else None
        # sparse data is solved on the CPU, by a solver that takes it
        linear = getattr(self.kernel, "name", self.kernel) == "linear"
        tags.input_tags.sparse = linear and self.device != "gpu" and (self.solver is None or (named is not None and named.takes_sparse))
        return tags

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """:meth:`scores` (``X @ coef_.T + intercept_`` for the linear kernel) of shape (n, k); for two classes the
        (n,) difference s_1 - s_0."""
        S = self.scores(X)
        return S[:, 1] - S[:, 0] if S.shape[1] == 2 else S

    def predict(self, X: ArrayLike) -> np.ndarray:
        check_fitted(self, "dual_coef_")
        if is_dask(X):  # a dask array of labels, each row chunk predicted where it lives
            return X.map_blocks(self.predict, dtype=self.classes_.dtype, drop_axis=1)
        return self.classes_[np.argmax(self.scores(X), axis=1)]
