"""Kernel functions and Gram matrices.

The kernels of the course (seed 003, 'Kernels'; seed 004, the kernel list):

.. math::

    k_{\\text{linear}}(x, z) = x^\\top z, \\qquad
    k_{\\text{poly}}(x, z) = (\\gamma\\, x^\\top z + c_0)^{p}, \\\\
    k_{\\text{gaussian}}(x, z) = \\exp(-\\gamma \\|x - z\\|^2), \\qquad
    k_{\\text{laplacian}}(x, z) = \\exp(-\\gamma \\|x - z\\|).

The seeds write the Gaussian with :math:`1/\\sigma^2` (seed 003) or
:math:`1/(2\\sigma^2)` (seed 004); here :math:`\\gamma` is that factor, as in
LIBSVM.  The Laplacian uses the Euclidean norm, as seed 004 writes it
(scikit-learn's ``laplacian_kernel`` uses the L1 norm instead).
"""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass

import numpy as np

from .backend import array_namespace, to_numpy

KERNELS = ("linear", "polynomial", "gaussian", "laplacian")
_ALIASES = {"poly": "polynomial", "rbf": "gaussian"}


@dataclass(frozen=True)
class Kernel:
    """A kernel with numeric parameters.

    Parameters
    ----------
    name : {"linear", "polynomial", "gaussian", "laplacian"}
        ``"poly"`` and ``"rbf"`` are accepted as aliases.
    gamma : float
        Scale of the inner product (polynomial) or of the distance (gaussian, laplacian).
    degree : int
        Degree of the polynomial kernel.
    coef0 : float
        Constant term of the polynomial kernel.
    """

    name: str = "linear"
    gamma: float = 1.0
    degree: int = 3
    coef0: float = 1.0

    def __call__(self, X, Z=None):
        return gram(X, Z, self)

    @property
    def is_linear(self) -> bool:
        return self.name == "linear"

    @property
    def psd_by_construction(self) -> bool:
        """True when theory guarantees a positive semidefinite Gram matrix on any data: the
        linear, gaussian and laplacian kernels, and the polynomial kernel with ``coef0 >= 0``
        (a sum of powers of an inner product with non-negative weights).  With ``coef0 < 0``
        it depends on the data, and only the eigenvalues can tell."""
        return not (self.name == "polynomial" and self.coef0 < 0)


def canonical_kernel_name(name) -> str:
    """Map aliases to the canonical kernel name, or raise naming ``kernel``."""
    if not isinstance(name, str):
        raise TypeError(f"kernel must be a string or a Kernel, got {type(name).__name__}")
    key = _ALIASES.get(name, name)
    if key not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS} (or 'poly', 'rbf'), got {name!r}")
    return key


def make_kernel(kernel="linear", gamma="scale", degree=3, coef0=1.0, X=None) -> Kernel:
    """Build a :class:`Kernel`, resolving ``gamma="scale" | "auto"`` on the data ``X``.

    ``"scale"`` is :math:`1 / (d \\operatorname{Var}(X))` and ``"auto"`` is
    :math:`1/d`, as in scikit-learn.  Bad parameters raise naming the argument.
    """
    if isinstance(kernel, Kernel):
        return kernel
    name = canonical_kernel_name(kernel)
    if isinstance(gamma, str):
        if gamma not in ("scale", "auto"):
            raise ValueError(f"gamma must be a positive number, 'scale' or 'auto', got {gamma!r}")
        if X is None:
            raise ValueError("gamma='scale' or 'auto' needs the data X")
        xp = array_namespace(X)
        d = X.shape[1]
        if gamma == "auto":
            gamma = 1.0 / d
        else:
            var = float(xp.var(X))
            gamma = 1.0 / (d * var) if var > 0 else 1.0
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) and not hasattr(gamma, "__float__"):
        raise TypeError(f"gamma must be a number, got {type(gamma).__name__}")
    gamma = float(gamma)
    if not (math.isfinite(gamma) and gamma > 0):
        raise ValueError(f"gamma must be positive and finite, got {gamma}")
    if isinstance(degree, bool) or int(degree) != degree or degree < 1:
        raise ValueError(f"degree must be a positive integer, got {degree!r}")
    coef0 = float(coef0)
    if not math.isfinite(coef0):
        raise ValueError(f"coef0 must be finite, got {coef0}")
    return Kernel(name=name, gamma=gamma, degree=int(degree), coef0=coef0)


def squared_distances(X, Z):
    """Matrix of :math:`\\|x_i - z_j\\|^2`, computed as ``|x|^2 + |z|^2 - 2 x'z`` and clipped at 0."""
    xp = array_namespace(X, Z)
    xx = xp.sum(X * X, axis=1)
    zz = xp.sum(Z * Z, axis=1)
    d2 = xx[:, None] + zz[None, :] - 2.0 * (X @ Z.T)
    return xp.clip(d2, 0.0, None) if hasattr(xp, "clip") else xp.where(d2 < 0, 0.0, d2)


def distances(X, Z):
    """Matrix of :math:`\\|x_i - z_j\\|` from explicit differences, in row blocks.

    The square root magnifies the rounding of the expanded form near 0
    (a point and itself would be ~1e-8 apart), so distances are not taken from it.
    """
    xp = array_namespace(X, Z)
    block = max(1, 2**22 // max(1, Z.shape[0] * Z.shape[1]))
    rows = [xp.sqrt(xp.sum((X[s : s + block, None, :] - Z[None, :, :]) ** 2, axis=2))
            for s in range(0, X.shape[0], block)]
    return xp.concat(rows, axis=0) if hasattr(xp, "concat") else xp.concatenate(rows, axis=0)


def gram(X, Z=None, kernel: Kernel | str = "linear"):
    """Gram matrix :math:`K_{ij} = k(x_i, z_j)` of shape ``(len(X), len(Z))``.

    ``Z=None`` means ``Z = X``.  ``kernel`` is a :class:`Kernel` or the name of a
    kernel with its default parameters.
    """
    if not isinstance(kernel, Kernel):
        kernel = make_kernel(kernel, gamma=1.0)
    if Z is None:
        Z = X
    xp = array_namespace(X, Z)
    if kernel.name == "linear":
        return X @ Z.T
    if kernel.name == "polynomial":
        return (kernel.gamma * (X @ Z.T) + kernel.coef0) ** kernel.degree
    if kernel.name == "gaussian":
        return xp.exp(-kernel.gamma * squared_distances(X, Z))
    return xp.exp(-kernel.gamma * distances(X, Z))  # laplacian


def kernel_diagonal(X, kernel: Kernel):
    """The diagonal :math:`k(x_i, x_i)` without forming the whole Gram matrix."""
    xp = array_namespace(X)
    sq = xp.sum(X * X, axis=1)
    if kernel.name == "linear":
        return sq
    if kernel.name == "polynomial":
        return (kernel.gamma * sq + kernel.coef0) ** kernel.degree
    return xp.ones_like(sq)


#: The PSD check of a kernel on data looks at this many points at most, chosen at random.
PSD_CHECK_POINTS = 1000


def check_kernel_matrix(K, name="K") -> np.ndarray:
    """``K`` as a float64 array, or a ValueError naming ``name``: not square, empty, NaN or inf."""
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError(f"{name} contains NaN or infinity")
    return K


def min_eigenvalue(K) -> float:
    """The smallest eigenvalue of the symmetric part of a square matrix ``K``."""
    from scipy import linalg

    K = np.asarray(K, dtype=np.float64)
    return float(linalg.eigvalsh(0.5 * (K + K.T), subset_by_index=[0, 0])[0])


def check_psd(K, rtol=1e-10, name="K") -> float:
    """Warn (RuntimeWarning) when the kernel matrix ``K`` is not positive semidefinite beyond
    rounding; returns its smallest eigenvalue."""
    K = check_kernel_matrix(K, name)
    smallest = min_eigenvalue(K)
    scale = max(1.0, float(np.abs(np.diag(K)).max()))
    if smallest < -rtol * scale * K.shape[0]:
        warnings.warn(
            f"{name} is not positive semidefinite (smallest eigenvalue {smallest:.3g}): the kernel's parameters "
            "do not give a valid kernel (e.g. a polynomial kernel with coef0 < 0), and SVM and RLS theory no "
            "longer apply",
            RuntimeWarning,
            stacklevel=_caller_outside_package(),
        )
    return smallest


def check_kernel_psd(X, kernel: Kernel):
    """:func:`check_psd` for ``kernel`` on the points ``X``, where theory does not settle it.

    Nothing is computed for a kernel that is PSD by construction (see
    :attr:`Kernel.psd_by_construction`).  Otherwise the check looks at at most
    ``PSD_CHECK_POINTS`` points: a principal submatrix's smallest eigenvalue is at least the whole
    matrix's (Cauchy interlacing), so a warning from the sample is never a false alarm.
    Returns the smallest eigenvalue found, or None when nothing was checked.
    """
    if kernel.psd_by_construction:
        return None
    X = to_numpy(X)
    if X.shape[0] > PSD_CHECK_POINTS:
        X = X[np.random.default_rng(0).choice(X.shape[0], PSD_CHECK_POINTS, replace=False)]
    return check_psd(gram(X, None, kernel))


def _caller_outside_package() -> int:
    """``warnings.warn``'s stacklevel for the innermost frame outside svmteach: the user's line."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "svmteach":
        frame, level = frame.f_back, level + 1
    return level
