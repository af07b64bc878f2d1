"""RLSClassifier: regularized least squares as a classifier, the leave-one-out choice of lambda included.

The mathematics (the dual solve, the path, the leave-one-out residuals) is :mod:`svmteach.rls`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin

from ..kernels import Kernel, check_kernel_finite, check_kernel_psd, make_kernel
from ..rls import check_lambda, check_lambdas, loo_errors, solve_dual
from ..validation import check_labels, check_X
from .base import KERNEL_CONSTRAINTS, POSITIVE
from .columns import record_features
from .prediction import check_fitted, check_predict_X


class RLSClassifier(ClassifierMixin, BaseEstimator):
    """Regularized least squares classifier: +-1 targets, one column per class (one column for two).

    Parameters
    ----------
    lam : float, default 1.0
        The regularization constant, when ``lams`` is None.
    lams : list of float or None
        Several constants: the one with the smallest mean squared leave-one-out residual is
        kept, and the whole curve is in ``loo_curve_``.
    kernel, gamma, degree, coef0 : see :func:`svmteach.kernels.make_kernel`.

    Attributes
    ----------
    classes_ : (k,);  dual_coef_ : (n, t) c;  X_fit_ : (n, d);  lam_ : float, the constant used;
    loo_curve_ : (len(lams),) mean squared leave-one-out residual, or None;
    loo_error_rate_ : (len(lams),) leave-one-out misclassification rate, or None;
    kernel_ : the resolved Kernel.
    """

    def __init__(self, lam: float = 1.0, lams: ArrayLike | None = None, kernel: str | Kernel = "linear",
                 gamma: float | str = "scale", degree: int = 3, coef0: float = 1.0) -> None:
        self.lam = lam
        self.lams = lams
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    _parameter_constraints = {"lam": [POSITIVE], "lams": [None, "array-like"], **KERNEL_CONSTRAINTS}

    def fit(self, X: ArrayLike, y: ArrayLike) -> RLSClassifier:
        self._validate_params()
        record_features(self, X)
        X = check_X(X, "X", dtype=np.float64)
        classes, codes = check_labels(y, X.shape[0], "y")
        if len(classes) < 2:
            raise ValueError(f"y has one class ({classes[0]!r}); a classifier needs at least two")
        kernel = make_kernel(self.kernel, self.gamma, self.degree, self.coef0, X)
        check_kernel_finite(X, kernel)  # an overflowing K named by X and the kernel, before it is computed
        K = kernel(X)
        check_kernel_psd(X, kernel)
        if len(classes) == 2:
            Y = np.where(codes == 1, 1.0, -1.0)[:, None]
        else:
            Y = np.where(codes[:, None] == np.arange(len(classes))[None, :], 1.0, -1.0)
        if self.lams is None:
            self.lam_ = check_lambda(self.lam)
            self.loo_curve_ = None
            self.loo_error_rate_ = None
        else:
            lams = check_lambdas(self.lams)
            R = loo_errors(K, Y, lams)  # (L, n, t)
            self.loo_curve_ = np.mean(R ** 2, axis=(1, 2))
            loo_scores = Y[None] - R  # f_{-i}(x_i)
            if Y.shape[1] == 1:
                wrong = np.sign(loo_scores[..., 0]) != Y[None, :, 0]
            else:
                wrong = np.argmax(loo_scores, axis=2) != codes[None, :]
            self.loo_error_rate_ = wrong.mean(axis=1)
            self.lam_ = float(lams[int(np.argmin(self.loo_curve_))])
        self.dual_coef_ = solve_dual(K, Y, self.lam_)
        self.X_fit_ = X
        self.kernel_ = kernel
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        check_fitted(self, "dual_coef_")
        X = check_predict_X(self, X)
        S = self.kernel_(X, self.X_fit_) @ self.dual_coef_
        return S[:, 0] if S.shape[1] == 1 else S

    def predict(self, X: ArrayLike) -> np.ndarray:
        S = self.decision_function(X)
        if S.ndim == 1:
            return self.classes_[(S > 0).astype(int)]
        return self.classes_[np.argmax(S, axis=1)]
