"""Multiclass by reduction to binary SVMs: one-vs-rest and one-vs-one, built from BinarySVC.

Their parameters are BinarySVC's, validated by its constraints before any fit (``solver=None``: dual
coordinate ascent for the linear kernel, its intercept a penalised constant feature, and SMO for the other
kernels; ``max_iter``: most epochs of each binary fit, None its solver's default), and ``fit`` takes ``sample_weight``,
handed to each binary fit (its subset's weights for one-vs-one).

The course compares these with the single-machine losses of Weston-Watkins and
Crammer-Singer (the slides "Optimizing SVM Multiclass Dual Solvers", 'Binary reduction vs. single loss function'):
one-vs-rest trains k classifiers, one-vs-one trains k(k-1)/2.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from ..kernels import Kernel
from ..validation import check_labels, check_sample_weight, check_X
from .binary import BinarySVC
from .columns import record_features
from .prediction import check_fitted, check_predict_X


class _Reduction(ClassifierMixin, BaseEstimator):
    def __init__(self, C: float = 1.0, kernel: str | Kernel = "linear", gamma: float | str = "scale", degree: int = 3,
                 coef0: float = 1.0, solver: str | None = None, tol: float = 1e-3, max_iter: int | None = None,
                 random_state: int | np.random.Generator | np.random.RandomState | None = None,
                 fit_intercept: bool = True, intercept_scaling: float = 1.0, cache_size: float = 200) -> None:
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.cache_size = cache_size

    _parameter_constraints = {name: BinarySVC._parameter_constraints[name] for name in
                              ("C", "kernel", "gamma", "degree", "coef0", "solver", "tol", "max_iter", "random_state",
                               "fit_intercept", "intercept_scaling", "cache_size")}

    def _binary(self):
        return BinarySVC(C=self.C, kernel=self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0,
                         solver=self.solver, tol=self.tol, max_iter=self.max_iter, random_state=self.random_state,
                         fit_intercept=self.fit_intercept, intercept_scaling=self.intercept_scaling,
                         cache_size=self.cache_size)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._binary().__sklearn_tags__().input_tags.sparse
        return tags

    def _prepare(self, X, y, sample_weight):
        self._validate_params()  # before any work, naming this estimator
        record_features(self, X)
        X = check_X(X, "X", accept_sparse=True)  # a sparse X goes to BinarySVC's sparse solvers
        classes, codes = check_labels(y, X.shape[0], "y")
        if len(classes) < 2:
            raise ValueError(f"y has one class ({classes[0]!r}); a classifier needs at least two")
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        if sample_weight is not None:  # checked here once (the binary problems check each subset again)
            sample_weight = check_sample_weight(sample_weight, X.shape[0])
        return X, codes, sample_weight

    def predict(self, X: ArrayLike) -> np.ndarray:
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]


class OneVsRestSVC(_Reduction):
    """k binary SVMs, class c against all others; predicts the class with the largest score.

    Attributes: ``estimators_`` (one BinarySVC per class), ``classes_``, ``n_iter_`` (epochs of each).
    """

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> OneVsRestSVC:
        X, codes, w = self._prepare(X, y, sample_weight)
        k = len(self.classes_)
        if k == 2:
            self.estimators_ = [clone(self._binary()).fit(X, codes, sample_weight=w)]
        else:
            self.estimators_ = [clone(self._binary()).fit(X, np.where(codes == c, 1, -1), sample_weight=w)
                                for c in range(k)]
        self.n_iter_ = np.array([e.n_iter_ for e in self.estimators_])
        return self

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        check_fitted(self, "estimators_")
        X = check_predict_X(self, X, accept_sparse=True)
        if len(self.estimators_) == 1:
            return self.estimators_[0].decision_function(X)
        return np.column_stack([e.decision_function(X) for e in self.estimators_])


class OneVsOneSVC(_Reduction):
    """k(k-1)/2 binary SVMs, one per pair of classes; each votes, ties go to the larger total confidence.

    Attributes: ``estimators_`` (one BinarySVC per pair), ``pairs_`` (the class indices of each),
    ``n_iter_`` (epochs of each).
    """

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> OneVsOneSVC:
        X, codes, w = self._prepare(X, y, sample_weight)
        self.pairs_ = list(combinations(range(len(self.classes_)), 2))
        self.estimators_ = []
        for a, b in self.pairs_:
            keep = (codes == a) | (codes == b)
            if w is not None and not np.any(w[keep] > 0):
                ca, cb = self.classes_[a].item(), self.classes_[b].item()  # Python values: quoted as the user wrote them
                raise ValueError(
                    f"sample_weight is zero for every sample of classes {ca!r} and {cb!r}: the one-vs-one "
                    f"classifier of that pair has nothing to learn from; give some of their samples a positive "
                    f"weight, or leave those classes out of X and y"
                )
            self.estimators_.append(clone(self._binary()).fit(X[keep], np.where(codes[keep] == b, 1, -1),
                                                              sample_weight=None if w is None else w[keep]))
        self.n_iter_ = np.array([e.n_iter_ for e in self.estimators_])
        return self

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Votes plus a confidence in (-1/3, 1/3) that breaks ties, as scikit-learn's ``ovr`` shape (n, k)."""
        check_fitted(self, "estimators_")
        X = check_predict_X(self, X, accept_sparse=True)
        k = len(self.classes_)
        votes = np.zeros((X.shape[0], k))
        confidence = np.zeros((X.shape[0], k))
        for (a, b), est in zip(self.pairs_, self.estimators_):
            f = est.decision_function(X)
            votes[:, b] += f > 0
            votes[:, a] += f <= 0
            confidence[:, b] += f
            confidence[:, a] -= f
        scaled = confidence / (3 * (np.abs(confidence) + 1))
        scores = votes + scaled
        return scores[:, 1] - scores[:, 0] if k == 2 else scores
