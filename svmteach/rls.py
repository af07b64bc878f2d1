"""Regularized least squares (kernel ridge): dual and primal solutions, the regularization path,
leave-one-out residuals (the classifier built on them: :class:`svmteach.estimators.RLSClassifier`).

The course's RLS (Rosasco's MIT 9.520 notes, 'RLS'; the ECE 532 duality notes, 'dual RLS'):

.. math::

    \\min_c \\tfrac12 \\|Y - Kc\\|^2 + \\tfrac{\\lambda}{2} c^\\top K c
    \\quad\\Longrightarrow\\quad (K + \\lambda I) c = Y, \\qquad f(x_*) = K_{x_*} c,

solved by Cholesky (:math:`K + \\lambda I` is SPD for :math:`\\lambda > 0`); in the linear case
:math:`w = X^\\top c = (X^\\top X + \\lambda I)^{-1} X^\\top Y` (push-through), O(n d^2) when d < n.

After one O(n^3) decomposition of K every further lambda costs O(n^2) (Rosasco, 'Is there a more
efficient method...?'): the path uses :math:`K = Q T Q^\\top`, T tridiagonal, and leave-one-out the
eigendecomposition :math:`K = Q \\Lambda Q^\\top` (Rifkin and Lippert, 2007):

.. math::

    y_i - f_{-i}(x_i) = \\frac{c_i(\\lambda)}{[(K + \\lambda I)^{-1}]_{ii}}, \\qquad
    [(K + \\lambda I)^{-1}]_{ii} = \\sum_k \\frac{Q_{ik}^2}{\\Lambda_k + \\lambda}.

Y may have several columns (one per class, coded +1 / -1 for classification).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import linalg

from .kernels import check_kernel_matrix
from .validation import check_X


def _targets(Y, n, name="Y"):
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2 or Y.shape[0] != n:
        raise ValueError(f"{name} must have {n} rows (one per sample), got shape {Y.shape}")
    if not np.all(np.isfinite(Y)):
        raise ValueError(f"{name} contains NaN or infinity")
    return Y


def check_lambda(lam, name="lam", allow_zero=False) -> float:
    """A positive, finite regularization constant (or 0 when ``allow_zero``)."""
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(lam).__name__}")
    lam = float(lam)
    if not math.isfinite(lam) or lam < 0 or (lam == 0 and not allow_zero):
        raise ValueError(f"{name} must be positive and finite, got {lam}")
    return lam


def check_lambdas(lams, name="lams") -> np.ndarray:
    """A non-empty 1-D array of positive, finite regularization constants, or raise naming ``name``."""
    try:
        arr = np.atleast_1d(np.asarray(lams))
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a list of numbers, got {type(lams).__name__}") from None
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a list of numbers, got {arr.dtype} values")
    lams = arr.astype(np.float64)
    if lams.ndim != 1 or lams.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D list of regularization constants")
    if not np.all(np.isfinite(lams)) or np.any(lams <= 0):
        raise ValueError(f"{name} must hold positive, finite values, got {lams}")
    return lams


def _solve_regularized(G, B, lam, what="K + lam I"):
    """``G^{-1} B`` for ``G = A + lam I`` with A symmetric: Cholesky, else LU, else a ValueError.

    Cholesky fails when G is not numerically positive definite (a kernel not PSD, a lam below A's
    rounding), where LU may still solve it; a singular G is refused with a message, not NaN.
    """
    try:
        c = linalg.cho_solve(linalg.cho_factor(G, lower=True, check_finite=False), B, check_finite=False)
    except linalg.LinAlgError:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", linalg.LinAlgWarning)
                c = linalg.solve(G, B, check_finite=False)
        except (linalg.LinAlgError, linalg.LinAlgWarning):
            raise ValueError(
                f"{what} is singular (lam = {lam:g}): {what.split(' +')[0]} is singular or not positive "
                "semidefinite, and lam is too small to make up for it; use a larger lam or check the kernel's parameters"
            ) from None
    if not np.all(np.isfinite(c)):
        raise ValueError(f"{what} is numerically singular (lam = {lam:g})")
    return c


def solve_dual(K, Y, lam, allow_zero=False):
    """:math:`c = (K + \\lambda I)^{-1} Y` by Cholesky; shape (n, t).

    ``lam = 0`` (interpolation) with ``allow_zero=True``; a singular K then raises a ValueError.
    LU where K + lam I is not positive definite.
    """
    K = check_kernel_matrix(K)
    Y = _targets(Y, K.shape[0])
    lam = check_lambda(lam, allow_zero=allow_zero)
    return _solve_regularized(K + lam * np.eye(K.shape[0]), Y, lam)


def solve_primal(X, Y, lam):
    """:math:`w = (X^\\top X + \\lambda I)^{-1} X^\\top Y` by Cholesky (LU where rounding breaks it); shape (d, t)."""
    X = check_X(X, "X", dtype=np.float64)
    Y = _targets(Y, X.shape[0])
    lam = check_lambda(lam)
    return _solve_regularized(X.T @ X + lam * np.eye(X.shape[1]), X.T @ Y, lam, "X'X + lam I")


def solve_linear(X, Y, lam):
    """The linear RLS weights ``w`` (d, t), from the cheaper side: the primal when d <= n, else the dual."""
    X = check_X(X, "X", dtype=np.float64)
    if X.shape[1] <= X.shape[0]:
        return solve_primal(X, Y, lam)
    return X.T @ solve_dual(X @ X.T, Y, lam)


class Eigen:
    """The eigendecomposition ``K = Q diag(evals) Q'`` shared by the path and leave-one-out."""

    def __init__(self, K):
        K = check_kernel_matrix(K)
        evals, Q = linalg.eigh(0.5 * (K + K.T))
        self.evals, self.Q = evals, Q

    def coefficients(self, QtY, lam):
        """c(lam) = Q (Lambda + lam I)^{-1} Q'Y, O(n^2 t)."""
        return self.Q @ (QtY / (self.evals + lam)[:, None])

    def inverse_diagonal(self, lam):
        """diag((K + lam I)^{-1}) = sum_k Q_ik^2 / (Lambda_k + lam), O(n^2)."""
        return (self.Q ** 2) @ (1.0 / (self.evals + lam))


class Tridiagonal:
    """The Householder tridiagonalisation ``K = Q T Q'`` (LAPACK ``dsytrd``), the first half of an
    eigendecomposition.  Its reflectors are stored as a QR of ``K[1:, :n-1]`` would, so ``dormqr`` applies Q.
    """

    def __init__(self, K):
        from scipy.linalg import lapack

        K = check_kernel_matrix(K)
        n = K.shape[0]
        lwork = int(lapack.dsytrd_lwork(n, lower=1)[0])
        A, self.diag, self.off, self.tau, info = lapack.dsytrd(0.5 * (K + K.T), lower=1, lwork=max(lwork, 1))
        if info != 0:
            raise ValueError(f"K could not be tridiagonalised (LAPACK info {info})")
        self.reflectors = A[1:, : n - 1]
        self.n = n
        self.evals = None

    def apply(self, Z, transpose=False):
        """``Q Z`` (or ``Q' Z``) for a (n, m) block."""
        from scipy.linalg import lapack

        Z = np.array(Z, dtype=np.float64, order="F")
        if self.n == 1:
            return Z
        trans = "T" if transpose else "N"
        lwork = int(lapack.dormqr("L", trans, self.reflectors, self.tau, Z[1:], -1)[1][0])
        sub, _, info = lapack.dormqr("L", trans, self.reflectors, self.tau, Z[1:], max(lwork, 1))
        if info != 0:
            raise ValueError(f"applying Q failed (LAPACK info {info})")
        Z[1:] = sub
        return Z

    def check_regular(self, lam, name="lam"):
        """Raise a ValueError naming ``name`` when ``K + lam I`` is singular to rounding (an eigenvalue of
        ``T + lam I`` within the rounding of K's largest)."""
        if self.evals is None:  # T's eigenvalues, once: O(n^2) beside the O(n^3) tridiagonalisation
            self.evals = linalg.eigvalsh_tridiagonal(self.diag, self.off) if self.n > 1 else self.diag.copy()
        scale = max(float(np.max(np.abs(self.evals))), lam)
        if np.min(np.abs(self.evals + lam)) <= 4 * self.n * np.finfo(float).eps * scale:
            raise ValueError(
                f"{name}: K + lam I is singular at lam = {lam:g} (lam is below the rounding of K, which is "
                "singular or not positive semidefinite); use a larger lam or check the kernel's parameters"
            )

    def solve(self, B, lam):
        """``(T + lam I)^{-1} B``: positive definite tridiagonal solve, else tridiagonal LU."""
        from scipy.linalg import lapack

        if self.n == 1:  # T is 1 x 1
            if self.diag[0] + lam == 0:
                raise ValueError(f"K + lam I is singular (lam = {lam:g})")
            return B / (self.diag[0] + lam)
        _, _, x, info = lapack.dptsv(self.diag + lam, self.off.copy(), B.copy())
        if info != 0:  # T + lam I is not positive definite (a kernel that is not PSD)
            _, _, _, x, info = lapack.dgtsv(self.off.copy(), self.diag + lam, self.off.copy(), B.copy())
            if info != 0:
                raise ValueError(f"K + lam I is singular (lam = {lam:g})")
        return x


def regularization_path(K, Y, lams):
    """``c(lambda)`` for every lambda from one decomposition of K; shape (len(lams), n, t).

    With ``K = Q T Q'`` (:class:`Tridiagonal`) each lambda is one O(n) solve of
    :math:`(T + \\lambda I) z = Q^\\top Y`, and one blocked product applies Q to all:
    :math:`c(\\lambda) = Q (T + \\lambda I)^{-1} Q^\\top Y` (the eigenvectors left implicit).
    """
    Y = _targets(Y, np.asarray(K).shape[0])
    lams = check_lambdas(lams)
    tri = Tridiagonal(K)
    for lam in lams:
        tri.check_regular(lam, "lams")
    QtY = tri.apply(Y, transpose=True)
    n, t = Y.shape
    Z = np.empty((n, len(lams) * t), order="F")
    for j, lam in enumerate(lams):
        Z[:, j * t : (j + 1) * t] = tri.solve(QtY, lam)
    C = tri.apply(Z)
    return np.ascontiguousarray(C.reshape(n, len(lams), t).transpose(1, 0, 2))


def regularization_path_linear(X, Y, lams):
    """The same path in the linear case from one economy SVD ``X = U S V'`` (O(n d^2)).

    :math:`c(\\lambda) = (XX^\\top + \\lambda I)^{-1} Y = U \\operatorname{diag}(1 / (s^2 + \\lambda)) U^\\top Y
    + (Y - U U^\\top Y) / \\lambda`; shape (len(lams), n, t).
    """
    X = check_X(X, "X", dtype=np.float64)
    Y = _targets(Y, X.shape[0])
    lams = check_lambdas(lams)
    U, s, _ = linalg.svd(X, full_matrices=False)
    UtY = U.T @ Y
    rest = Y - U @ UtY  # the part of Y orthogonal to the column space of X
    return np.stack([U @ (UtY / (s ** 2 + lam)[:, None]) + rest / lam for lam in lams])


def loo_errors(K, Y, lams):
    """Leave-one-out residuals ``y_i - f_{-i}(x_i)`` for every lambda, without refitting; (len(lams), n, t).

    Holds for any symmetric K while K + lam I is invertible and :math:`[(K + \\lambda I)^{-1}]_{ii} \\ne 0`;
    where either fails a ValueError names that lam.
    """
    Y = _targets(Y, np.asarray(K).shape[0])
    lams = check_lambdas(lams)
    eig = Eigen(K)
    QtY = eig.Q.T @ Y
    n = len(eig.evals)
    scale = max(float(np.max(np.abs(eig.evals))), 1.0) if n else 1.0
    out = []
    for lam in lams:
        shifted = eig.evals + lam
        if np.any(np.abs(shifted) <= 4 * n * np.finfo(float).eps * scale):
            raise ValueError(
                f"K + lam I is singular at lam = {lam:g} (K has the eigenvalue {-lam:g}: it is not positive "
                "semidefinite); leave-one-out residuals are undefined there: choose other lams or check the kernel"
            )
        diag = eig.inverse_diagonal(lam)
        with np.errstate(divide="ignore", invalid="ignore"):
            R = eig.coefficients(QtY, lam) / diag[:, None]
        if not np.all(np.isfinite(R)):
            raise ValueError(
                f"leaving a point out makes the system singular at lam = {lam:g} (K is not positive "
                "semidefinite); leave-one-out residuals are undefined there: choose other lams or check the kernel"
            )
        out.append(R)
    return np.stack(out)
