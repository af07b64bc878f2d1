"""The dual SVM estimators' base class: one ``fit`` template, the parameters' constraints, epochs.

``fit`` validates, builds the problem, takes the warm state, solves, finishes a small problem
directly, warns when short of ``tol``, and stores; a subclass supplies :meth:`~DualSVC.make_solver`,
:meth:`~DualSVC.problem_for`, :meth:`~DualSVC.store` (and :meth:`~DualSVC.fit_label`).  Parameters are
checked by scikit-learn's ``_parameter_constraints`` and a few small checks beside.  ``max_iter``
counts epochs, as LIBLINEAR does; :func:`step_budget` turns it into the solver's steps.
"""

from __future__ import annotations

import inspect
import warnings
from abc import ABC, abstractmethod
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions

from ..backend import DEVICES, is_numpy, one_blas_thread
from ..compile_notice import compile_notice
from ..kernels import _ALIASES, KERNELS, Kernel
from ..rows import is_sparse, stored
from ..problems import Problem
from ..solvers import InteriorPoint, solve
from ..solvers.base import SolveResult, Solver
from ..validation import is_dask
from .columns import record_features
from .direct import finish_directly
from .progress import fit_progress
from .stopping import STALLED, warn_interrupted, warn_not_converged
from .warm_start import remember, warm_state
from .weights import check_class_weight

POSITIVE = Interval(Real, 0, None, closed="neither")  # (0, inf): NaN and inf refused too

#: The constraints of a kernel and its constants (BinarySVC, the reductions, RLSClassifier).
KERNEL_CONSTRAINTS = {
    "kernel": [StrOptions({*KERNELS, *_ALIASES}), Kernel],
    "gamma": [StrOptions({"scale", "auto"}), POSITIVE],
    "degree": [Interval(Integral, 1, None, closed="left")],
    "coef0": [Interval(Real, None, None, closed="neither")],  # finite
}

#: The constraints every dual SVM estimator shares.  ``solver`` is a name the registry checks against
#: the problem (:func:`~svmteach.solvers.make_solver`), naming it.
CONSTRAINTS = {
    "C": [POSITIVE],
    "solver": [None, str],
    "tol": [POSITIVE],
    "max_iter": [Interval(Integral, 1, None, closed="left"), None],
    "random_state": ["random_state", np.random.Generator],
    "record_history": ["boolean"],
    "device": [StrOptions(set(DEVICES))],
    "fit_intercept": ["boolean"],
    "intercept_scaling": [POSITIVE],
    "class_weight": [None, StrOptions({"balanced"}), dict],
    "warm_start": ["boolean"],
    "verbose": ["verbose"],
}


def step_budget(solver, problem, max_iter):
    """``max_iter`` epochs in the solver's steps (``steps_per_epoch`` each: n SMO pairs or coordinates,
    one parallel, subgradient or Newton step); None: the solver's default budget."""
    return solver.default_max_iter(problem) if max_iter is None else max_iter * solver.steps_per_epoch(problem)


def epochs(solver, problem, steps: int) -> int:
    """``steps`` of the solver in epochs, a partial one counted."""
    return -(-int(steps) // solver.steps_per_epoch(problem))


class DualSVC(ClassifierMixin, BaseEstimator, ABC):
    """A scikit-learn classifier fitted by a registered dual solver, through one ``fit`` template.

    ``max_iter`` and ``n_iter_`` (this fit's) are in epochs; ``result_.n_iter`` counts the solver's steps.
    """

    _parameter_constraints: dict = CONSTRAINTS

    def check_params(self) -> None:
        """Every parameter against ``_parameter_constraints`` (scikit-learn's InvalidParameterError, a
        ValueError and a TypeError naming it), then what constraints cannot say: a class weight's values."""
        self._validate_params()
        check_class_weight(self.class_weight)

    @abstractmethod
    def make_solver(self, sparse: bool = False, chunked: bool = False) -> Solver:
        """The solver of the parameters (for sparse X with ``sparse``, a dask X with ``chunked``), built by the
        registry."""

    @abstractmethod
    def problem_for(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Problem:
        """The problem ``fit(X, y, sample_weight)`` solves (rebuilt on demand: a model keeps no data)."""

    @abstractmethod
    def store(self, solver: Solver, problem: Problem, result: SolveResult) -> None:
        """Set the model's fitted attributes from the solver's final state."""

    def solver_defaults(self) -> dict:
        """The estimator's defaults, by parameter: :func:`~svmteach.solvers.make_solver`'s ``defaults``, so that a
        parameter offered to every solver (``selection``, ``cache_size``) is refused by one that does not take it only
        when it is set away from its default."""
        return {name: p.default for name, p in inspect.signature(type(self).__init__).parameters.items()
                if p.default is not inspect.Parameter.empty}

    def solver_for(self, solver: Solver, problem: Problem) -> Solver:
        """The solver that fits ``problem``: ``solver`` (:meth:`make_solver`'s) here; a subclass whose default
        depends on the problem's size chooses there."""
        return solver

    def model_result(self, solver: Solver, problem: Problem, result: SolveResult) -> SolveResult:
        """``result`` with the objectives of the model :meth:`store` keeps, where they differ from the solver's
        (a subclass that forms its model from alpha recomputes them); here ``result`` itself."""
        return result

    def fit_label(self, solver: Solver, problem: Problem) -> str:
        """What the not-converged warning calls the fit: the solver's name."""
        return solver.name

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> DualSVC:
        """Solve the dual on ``X`` (n, d) and labels ``y``.

        ``sample_weight`` (n,) and ``class_weight`` scale each sample's C (:mod:`.weights`); with
        ``warm_start`` the previous fit's solution is the starting point (:mod:`.warm_start`).
        """
        self.check_params()
        record_features(self, X)
        chunked = is_dask(X)  # solved where its row chunks live (svmteach.solvers.cocoa), never gathered
        solver = self.make_solver(sparse=is_sparse(X) and not chunked, chunked=chunked)
        with compile_notice(f"{type(self).__name__}'s {solver.name} solver"):  # a first use says it compiles
            problem = self.problem_for(X, y, sample_weight)
            solver = self.solver_for(solver, problem)
            if solver.prefers_gpu and is_numpy(problem.xp):
                warnings.warn(f"solver={solver.name!r} is meant for a GPU (device='gpu'): it updates every sample at once; "
                              "on the CPU the sequential default (solver=None) is faster", UserWarning, stacklevel=2)
            start = warm_state(self, solver, problem) if self.warm_start else None
            budget = step_budget(solver, problem, self.max_iter)
            # one BLAS thread (backend.one_blas_thread): a second one only spins while it waits
            with fit_progress(self, solver, problem, self.verbose) as progress, one_blas_thread():
                result = solve(solver, problem, max_iter=budget, tol=self.tol, record_history=self.record_history,
                               state=start, callback=progress)
            taken = result.n_iter - (start.n_iter if start is not None else 0)  # this fit's steps
            result = self.model_result(solver, problem, result)
            direct = None
            if self.solver is None and not result.interrupted and not chunked:  # a small problem the default could not finish
                direct = finish_directly(problem, result, self.tol, solver.bias, self.record_history)
                if direct is not None:
                    direct = self.model_result(InteriorPoint(bias=solver.bias), problem, direct)
            if progress is not None:
                progress.finish(result, direct)
            if direct is not None:
                solver, result, taken = InteriorPoint(bias=solver.bias), direct, direct.n_iter
            self.n_iter_ = epochs(solver, problem, taken)
            if result.interrupted:
                warn_interrupted(self, result)
            elif not result.converged:
                limit = f"max_iter={epochs(solver, problem, budget)} epochs" + (" (None: the solver's default)"
                                                                                 if self.max_iter is None else "")
                why = (f"stopped after {limit}" if taken >= budget else
                       f"stopped after {self.n_iter_} epochs, before {limit}, {STALLED}")
                warn_not_converged(self, self.fit_label(solver, problem), result, self.tol, why,
                                   None if chunked else stored(problem.design), problem)
            remember(self, problem, result, self.warm_start)
            self.solver_ = solver.name
            self.classes_ = problem.classes
            # a linear kernel's bias is a column of X (another kernel's is a constant added to it)
            self.n_features_in_ = problem.n_features - (problem.bias is not None and problem.kernel.is_linear)
            self.history_ = result.history
            self.store(solver, problem, result)
            return self
