"""Kernel functions and Gram matrices.

The kernels of the course (Rosasco's MIT 9.520 notes, 'Kernels'; the ECE 532 duality notes, the kernel list):

.. math::

    k_{\\text{linear}}(x, z) = x^\\top z, \\qquad
    k_{\\text{poly}}(x, z) = (\\gamma\\, x^\\top z + c_0)^{p}, \\\\
    k_{\\text{gaussian}}(x, z) = \\exp(-\\gamma \\|x - z\\|^2), \\qquad
    k_{\\text{laplacian}}(x, z) = \\exp(-\\gamma \\|x - z\\|).

:math:`\\gamma` is the course's :math:`1/\\sigma^2` (Rosasco) or :math:`1/(2\\sigma^2)` (ECE 532), as in LIBSVM.
The Laplacian uses the Euclidean norm, as ECE 532 writes it (scikit-learn's uses L1).
"""

from __future__ import annotations

import math
import numbers
import sys
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .backend import array_namespace, concat, is_numpy, takes_index_writes, to_numpy
from .rows import row_blocks

KERNELS = ("linear", "polynomial", "gaussian", "laplacian")
_ALIASES = {"poly": "polynomial", "rbf": "gaussian"}


@dataclass(frozen=True)
class Kernel:
    """A kernel with numeric parameters, checked when it is made.

    Parameters
    ----------
    name : {"linear", "polynomial", "gaussian", "laplacian"}
        ``"poly"`` and ``"rbf"`` are aliases, stored by their canonical name.
    gamma : float
        Positive, finite scale of the inner product or the distance (``"scale"`` and ``"auto"``
        are resolved by :func:`make_kernel`).
    degree : int
        Degree of the polynomial kernel, an integer >= 1.
    coef0 : float
        Finite constant term of the polynomial kernel.

    Raises
    ------
    TypeError, ValueError
        Naming the argument that is out of its range.
    """

    name: str = "linear"
    gamma: float = 1.0
    degree: int = 3
    coef0: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "name", canonical_kernel_name(self.name))
        if isinstance(self.gamma, str):
            raise TypeError(f"gamma must be a positive number, got {self.gamma!r}: 'scale' and 'auto' depend on the "
                            "data, so make_kernel(name, gamma, X=X) resolves them")
        gamma = _real(self.gamma, "gamma", "a positive number")
        if not (math.isfinite(gamma) and gamma > 0):
            raise ValueError(f"gamma must be positive and finite, got {gamma}")
        if isinstance(self.degree, bool) or not isinstance(self.degree, numbers.Real):
            raise TypeError(f"degree must be an integer >= 1, got {type(self.degree).__name__}")
        if not (math.isfinite(self.degree) and self.degree == int(self.degree) and self.degree >= 1):
            raise ValueError(f"degree must be an integer >= 1, got {self.degree!r}")
        coef0 = _real(self.coef0, "coef0", "a finite number")
        if not math.isfinite(coef0):
            raise ValueError(f"coef0 must be finite, got {coef0}")
        object.__setattr__(self, "gamma", gamma)
        object.__setattr__(self, "degree", int(self.degree))
        object.__setattr__(self, "coef0", coef0)

    def __call__(self, X, Z=None):
        return gram(X, Z, self)

    @property
    def is_linear(self) -> bool:
        return self.name == "linear"

    @property
    def psd_by_construction(self) -> bool:
        """True when theory guarantees a PSD Gram matrix on any data: every kernel but the polynomial
        one with ``coef0 < 0``, where only the eigenvalues can tell."""
        return not (self.name == "polynomial" and self.coef0 < 0)


def _real(value, name: str, what: str) -> float:
    """``value`` as a float, or a TypeError naming ``name`` (bools and strings are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__} {value!r}")
    return float(value)


def canonical_kernel_name(name) -> str:
    """Map aliases to the canonical kernel name, or raise naming ``kernel``."""
    if not isinstance(name, str):
        raise TypeError(f"kernel must be a string or a Kernel, got {type(name).__name__}")
    key = _ALIASES.get(name, name)
    if key not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS} (or 'poly', 'rbf'), got {name!r}")
    return key


def make_kernel(kernel: str | Kernel = "linear", gamma: float | str = "scale", degree: int = 3, coef0: float = 1.0,
                X: ArrayLike | None = None) -> Kernel:
    """Build a :class:`Kernel`, resolving ``gamma="scale" | "auto"`` on the data ``X``.

    ``"scale"`` is :math:`1 / (d \\operatorname{Var}(X))`, ``"auto"`` :math:`1/d`, as in scikit-learn (the
    linear kernel has no gamma: checked, not resolved).  Bad parameters raise naming the argument.
    """
    if isinstance(kernel, Kernel):
        return kernel
    name = canonical_kernel_name(kernel)
    if isinstance(gamma, str):
        if gamma not in ("scale", "auto"):
            raise ValueError(f"gamma must be a positive number, 'scale' or 'auto', got {gamma!r}")
        gamma = 1.0 if name == "linear" else _gamma_from_data(gamma, X)
    return Kernel(name=name, gamma=gamma, degree=degree, coef0=coef0)


def _gamma_from_data(rule: str, X) -> float:
    """``"auto"``: 1 / d;  ``"scale"``: 1 / (d Var(X)), 1 for constant data; a ValueError naming
    gamma when that is no positive finite float64 (features of size ~1e155 or ~1e-155)."""
    if X is None:
        raise ValueError("gamma='scale' or 'auto' needs the data X")
    xp = array_namespace(X)
    d = X.shape[1]
    if rule == "auto":
        return 1.0 / d
    s = max(float(xp.max(X)), -float(xp.min(X)))  # max |x| without the copy xp.abs(X)
    if s == 0:
        return 1.0
    var = _scaled_variance(X, s, xp) * s * s  # Var(X) = s^2 Var(X / s); Var(X / s) <= 1 cannot overflow
    if var == 0:
        return 1.0  # constant data: no division by 0
    gamma = 1.0 / (d * var)
    if not (math.isfinite(var) and math.isfinite(gamma) and gamma > 0):
        raise ValueError(
            f"gamma='scale' is 1 / (d Var(X)) = 1 / ({d} * {var:.3g}), which float64 cannot hold: rescale X "
            "(e.g. with StandardScaler) or pass gamma as a number"
        )
    return gamma


def _scaled_variance(X, s, xp) -> float:
    """Var(X / s) over all entries, two passes a block of rows at a time (``X / s`` whole would be a copy of X)."""
    blocks = row_blocks(X)  # of rows.block_bytes (one block on a device, most often)
    if len(blocks) <= 1:  # (none for an X of no rows)
        return float(xp.var(X / s))
    size = X.shape[0] * X.shape[1]
    mean = math.fsum(float(xp.sum(X[rows, :] / s)) for rows in blocks) / size
    return math.fsum(float(xp.sum((X[rows, :] / s - mean) ** 2)) for rows in blocks) / size


#: A squared distance below this fraction of ``|x|^2 + |z|^2`` lost most of its digits to cancellation
#: in ``|x|^2 + |z|^2 - 2 x'z``; it is recomputed from explicit differences (relative error below ~1e-12).
CANCELLATION = 1e-4


def squared_norms(X):
    """(n,) :math:`\\|x_i\\|^2` in X's precision, a block of rows at a time (no copy of X)."""
    xp = array_namespace(X)
    blocks = row_blocks(X)  # of rows.block_bytes (one block on a device, most often)
    if len(blocks) <= 1:  # (none for an X of no rows)
        return xp.sum(X * X, axis=1)
    parts = [xp.sum(X[rows, :] * X[rows, :], axis=1) for rows in blocks]
    return concat(xp, parts)


def squared_distances(X, Z=None):
    """Matrix of :math:`\\|x_i - z_j\\|^2`; ``Z=None`` means ``Z = X``.

    ``|x|^2 + |z|^2 - 2 x'z`` (one matrix product), with the entries where it cancels recomputed from
    explicit differences.  With ``Z = X`` the diagonal is exactly 0.
    """
    same = Z is None or Z is X
    Z = X if Z is None else Z
    xp = array_namespace(X, Z)
    xx = squared_norms(X)
    zz = xx if same else squared_norms(Z)
    scale = xx[:, None] + zz[None, :]
    d2 = xp.maximum(scale - 2.0 * (X @ Z.T), 0.0)
    suspect = d2 < CANCELLATION * scale  # d2 = |x - z|^2 has lost digits to cancellation
    if same:
        diagonal = xp.eye(X.shape[0], dtype=xp.bool)
        d2 = xp.where(diagonal, 0.0, d2)  # |x - x|^2 = 0 exactly
        suspect = suspect & ~diagonal
    if not bool(xp.any(suspect)):
        return d2
    return _explicit_where(d2, suspect, X, Z, xp)


#: Explicit differences are formed this many numbers at a time (32 MiB of float64).
_EXPLICIT_CHUNK = 2**22


def _explicit_where(d2, suspect, X, Z, xp):
    """``d2`` with its ``suspect`` entries replaced by :math:`\\sum_k (x_{ik} - z_{jk})^2`."""
    d = X.shape[1]
    if takes_index_writes(xp):  # only the suspect pairs, gathered and scattered (NumPy, CuPy: one sync)
        d2 = xp.asarray(d2, copy=True)
        rows, cols = xp.nonzero(suspect)
        step = max(1, _EXPLICIT_CHUNK // d)
        for s in range(0, rows.shape[0], step):
            r, c = rows[s : s + step], cols[s : s + step]
            diff = X[r] - Z[c]
            d2[r, c] = np.einsum("ij,ij->i", diff, diff) if is_numpy(xp) else xp.sum(diff * diff, axis=1)
        return d2
    # any array-API library (no scatter in the standard): whole row blocks where needed
    block = max(1, _EXPLICIT_CHUNK // max(1, Z.shape[0] * d))
    parts = []
    for s in range(0, X.shape[0], block):
        e = min(s + block, X.shape[0])  # the standard leaves out-of-bounds slices unspecified
        part = d2[s:e, :]
        if bool(xp.any(suspect[s:e, :])):
            explicit = xp.sum((X[s:e, None, :] - Z[None, :, :]) ** 2, axis=2)
            part = xp.where(suspect[s:e, :], explicit, part)
        parts.append(part)
    return concat(xp, parts)


def gram(X: ArrayLike, Z: ArrayLike | None = None, kernel: Kernel | str = "linear") -> Any:
    """Gram matrix :math:`K_{ij} = k(x_i, z_j)` of shape ``(len(X), len(Z))``.

    ``Z=None`` means ``Z = X``; ``kernel`` a :class:`Kernel` or a name (gamma = 1).
    """
    if not isinstance(kernel, Kernel):
        kernel = make_kernel(kernel, gamma=1.0)
    xp = array_namespace(X) if Z is None else array_namespace(X, Z)
    if kernel.name == "linear":
        return X @ (X if Z is None else Z).T
    if kernel.name == "polynomial":
        return (kernel.gamma * (X @ (X if Z is None else Z).T) + kernel.coef0) ** kernel.degree
    if kernel.name == "gaussian":
        return xp.exp(-kernel.gamma * squared_distances(X, Z))
    if kernel.name == "laplacian":
        return xp.exp(-kernel.gamma * xp.sqrt(squared_distances(X, Z)))
    raise ValueError(f"kernel must be one of {KERNELS}, got {kernel.name!r}")


def kernel_params(kernel: Kernel):
    """The kernel as compiled code reads it: the float64 array ``[code, gamma, degree, coef0, cancellation]``,
    ``code`` its index in :data:`KERNELS` (0 linear, 1 polynomial, 2 gaussian, 3 laplacian) and
    ``cancellation`` :data:`CANCELLATION` (see :mod:`svmteach.solvers.numba_kernel_rows`)."""
    return np.array([KERNELS.index(kernel.name), float(kernel.gamma), float(kernel.degree), float(kernel.coef0),
                     CANCELLATION])


def kernel_diagonal(X, kernel: Kernel):
    """The diagonal :math:`k(x_i, x_i)` without forming the whole Gram matrix."""
    xp = array_namespace(X)
    sq = squared_norms(X)
    if kernel.name == "linear":
        return sq
    if kernel.name == "polynomial":
        return (kernel.gamma * sq + kernel.coef0) ** kernel.degree
    if kernel.name in ("gaussian", "laplacian"):
        return xp.ones_like(sq)  # exp(-gamma * 0)
    raise ValueError(f"kernel must be one of {KERNELS}, got {kernel.name!r}")


#: The finiteness check computes the kernel rows of this many points: the first, and those of largest norm.
FINITE_CHECK_ROWS = 4


def check_kernel_finite(X, kernel: Kernel):
    """Raise a ValueError naming the kernel's parameters when its Gram matrix on ``X`` overflows.

    Infinite entries would make a solver run for ever and end in NaN; features so large that
    :math:`\\|x - z\\|^2` may overflow are refused too.  O(n d) per row checked: the diagonal, the first
    point's row and those of largest norm (where :math:`|k(x, z)| \\le (\\gamma \\|x\\| \\|z\\| + |c_0|)^p`
    peaks; the other kernels are bounded by 1 or the diagonal).
    """
    xp = array_namespace(X)
    with np.errstate(over="ignore", invalid="ignore"):  # the overflow is what is looked for
        sq = squared_norms(X)
        diag = sq if kernel.name == "linear" else kernel_diagonal(X, kernel)
        top = np.argsort(-to_numpy(sq), kind="stable")[: FINITE_CHECK_ROWS - 1]
        rows = [X[:1, :]] + [X[int(t) : int(t) + 1, :] for t in top]
        # 4 max |x|^2 bounds every |x - z|^2: finite, no distance overflows (to a kernel value of 0)
        finite = math.isfinite(4.0 * float(xp.max(sq))) and bool(xp.all(xp.isfinite(diag)))
        finite = finite and all(bool(xp.all(xp.isfinite(gram(r, X, kernel)))) for r in rows)
    if not finite:
        params = {"linear": "", "polynomial": f", gamma={kernel.gamma:g}, degree={kernel.degree}, "
                  f"coef0={kernel.coef0:g}"}.get(kernel.name, f", gamma={kernel.gamma:g}")
        raise ValueError(
            f"kernel='{kernel.name}'{params} overflows on X: its Gram matrix has infinite or NaN entries (largest "
            f"|x|^2 = {float(xp.max(sq)):.3g}); choose smaller kernel parameters or rescale X"
        )


#: The PSD check of a kernel on data looks at this many points at most, chosen at random.
PSD_CHECK_POINTS = 1000


#: A kernel matrix may differ from its transpose by this much relative to its largest entry (BLAS rounds
#: :math:`x_i^\top x_j` and :math:`x_j^\top x_i` differently); more is not a kernel matrix.
SYMMETRY_RTOL = 1e-10


def check_kernel_matrix(K, name="K") -> np.ndarray:
    """``K`` as a float64 array, or a ValueError naming ``name``: not square, empty, NaN or inf, or not symmetric
    beyond rounding (:data:`SYMMETRY_RTOL`)."""
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError(f"{name} contains NaN or infinity")
    asymmetry, scale = float(np.max(np.abs(K - K.T))), float(np.max(np.abs(K)))
    if asymmetry > SYMMETRY_RTOL * scale:
        i, j = np.unravel_index(int(np.argmax(np.abs(K - K.T))), K.shape)
        raise ValueError(f"{name} is not symmetric: {name}[{i}, {j}] = {K[i, j]:.6g} but {name}[{j}, {i}] = "
                         f"{K[j, i]:.6g}; a kernel matrix is k(x_i, x_j), the same both ways (pass 0.5 * ({name} + "
                         f"{name}.T) if the difference is rounding)")
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

    Nothing for a kernel PSD by construction (:attr:`Kernel.psd_by_construction`); otherwise at most
    ``PSD_CHECK_POINTS`` points: by Cauchy interlacing, a warning from the sample is never a false alarm.
    Returns the smallest eigenvalue found, or None.
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
