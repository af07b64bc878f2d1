"""Validated, immutable problem definitions: the one place that checks input.

A problem holds the data and the model's constants (C, the kernel, the loss);
solvers only read it.  Every check raises a ``ValueError`` or ``TypeError``
whose message starts with the name of the offending argument, so bad input
never reaches a solver.  The caller's arrays are copied, never modified, and
the copies are made read-only.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from .backend import array_namespace, is_numpy, to_device, to_numpy
from .kernels import (canonical_kernel_name, check_kernel_finite, check_kernel_psd, gram, kernel_diagonal, kernel_params,
                      make_kernel)
from .losses import get_loss
from .rows import is_sparse, row_blocks, row_squared_norms


def _reject_sparse(A, name):
    if is_sparse(A):
        raise TypeError(f"{name} is a sparse matrix: sparse input is not supported here; pass a dense array ({name}.toarray())")


def check_sparse_X(X, name: str = "X", dtype=None, bias=None, copy: bool = True):
    """Return a SciPy sparse ``X`` as a read-only ``scipy.sparse.csr_array``, float32 kept and anything else
    float64 (``dtype`` given: converted to it), its duplicate entries summed, its column indices sorted and
    its explicit zeros removed; raise naming ``name`` when it is empty, complex or not finite.

    At most one copy of X: CSC, COO and the other formats are converted once, and a CSR X is copied once
    (``copy=False``: only if it must be put in that form).  ``bias``: a last column of that constant is
    written into the copy (:func:`with_bias_column`), the only copy made then.
    """
    import scipy.sparse as sp

    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D of shape (n_samples, n_features), got shape {X.shape}")
    if X.dtype.kind == "c":
        raise ValueError(f"{name} is complex: Complex data not supported")
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{name} has dtype {X.dtype}: sparse data must be numbers")
    if dtype is None:
        dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
    n, d = X.shape
    if n == 0:
        raise ValueError(f"{name} is empty: found 0 sample(s) (shape=({n}, {d})) while a minimum of 1 is required.")
    if d == 0:
        raise ValueError(f"{name} has 0 feature(s) (shape=({n}, {d})) while a minimum of 1 is required.")
    arr = sp.csr_array(X)  # a CSR X: its own arrays; another format: new ones

    def shares(A):
        theirs = [getattr(X, part, None) for part in ("data", "indices", "indptr")]
        return any(isinstance(b, np.ndarray) and np.may_share_memory(a, b)
                   for a in (A.data, A.indices, A.indptr) for b in theirs)

    if not (arr.has_canonical_format and np.count_nonzero(arr.data) == arr.nnz):
        arr = arr.astype(dtype, copy=shares(arr))  # put in canonical form in a copy of the dtype asked for
        arr.sum_duplicates()  # also sorts the column indices of every row
        arr.eliminate_zeros()
    if arr.nnz and not (math.isfinite(arr.data.min()) and math.isfinite(arr.data.max())):
        raise ValueError(f"{name} contains NaN or infinity")
    if bias is not None:
        return with_bias_column(arr, bias, dtype)  # converted to dtype as it is written: the one copy
    if arr.dtype != dtype or (copy and shares(arr)):
        arr = arr.astype(dtype, copy=copy or arr.dtype == dtype)
    if not shares(arr):
        for part in (arr.data, arr.indices, arr.indptr):
            part.setflags(write=False)
    return arr


def check_X(X, name: str = "X", dtype=None, accept_sparse: bool = False, copy: bool = True, bias=None):
    """Return ``X`` as a 2-D, finite, C-contiguous, read-only floating array (a copy).

    ``copy=False`` (prediction, which only reads X): a NumPy X that is already a C-contiguous float
    array comes back as it is, neither copied nor made read-only.  ``bias`` (a float): X with a last
    column of that constant (:func:`with_bias_column`), written in the one copy made (any dtype or order).

    NumPy-compatible input (lists, Fortran-ordered arrays, integers) becomes a
    NumPy array; arrays of another array-API library (CuPy, array-api-strict)
    stay in their library.  ``dtype=None`` keeps float32 and float64 and turns
    everything else into float64.  With ``accept_sparse``, a SciPy sparse matrix becomes a
    read-only CSR array (:func:`check_sparse_X`); without, it is refused naming ``name``.
    """
    if X is None:
        raise ValueError(f"{name} is None; expected a 2-D array of shape (n_samples, n_features)")
    if accept_sparse and is_sparse(X):
        return check_sparse_X(X, name, dtype, bias=bias, copy=copy)
    _reject_sparse(X, name)
    xp = array_namespace(X)
    if is_numpy(xp):
        arr = np.asarray(X)
        if arr.dtype.kind == "c":
            raise ValueError(f"{name} is complex: Complex data not supported")
        if arr.dtype.kind in "OUSVMm":
            try:
                arr = arr.astype(np.float64)
            except (TypeError, ValueError):
                raise TypeError(
                    f"{name} has dtype {arr.dtype}: every argument must be a string or a number that converts to float"
                ) from None
        if dtype is None:
            dtype = arr.dtype if arr.dtype in (np.float32, np.float64) else np.float64
        if arr.ndim != 2:
            raise ValueError(
                f"{name} must be 2-D of shape (n_samples, n_features), got {arr.ndim}-D shape {arr.shape}. "
                "Reshape your data with X.reshape(-1, 1) for one feature or X.reshape(1, -1) for one sample"
            )
        if bias is None:
            arr = np.array(arr, dtype=dtype, order="C", copy=True if copy else None)
        else:  # X converted (dtype, order) as it is written into the (n, d + 1) array: one copy
            out = np.empty((arr.shape[0], arr.shape[1] + 1), dtype=dtype)
            out[:, :-1] = arr
            out[:, -1] = bias
            arr = out
    else:
        if X.ndim != 2:
            raise ValueError(
                f"{name} must be 2-D of shape (n_samples, n_features), got shape {X.shape}. Reshape your data"
            )
        if dtype is None:
            dtype = X.dtype if X.dtype in (xp.float32, xp.float64) else xp.float64
        arr = xp.asarray(X, dtype=dtype, copy=True if bias is None else None)
        if bias is not None:
            arr = with_bias_column(arr, bias)
    n, d = arr.shape[0], arr.shape[1] - (bias is not None)
    if n == 0:
        raise ValueError(f"{name} is empty: found 0 sample(s) (shape=({n}, {d})) while a minimum of 1 is required.")
    if d == 0:
        raise ValueError(f"{name} has 0 feature(s) (shape=({n}, {d})) while a minimum of 1 is required.")
    if is_numpy(xp):  # NaN and infinities show in the extremes: no (n, d) boolean array beside X
        finite = math.isfinite(arr.min()) and math.isfinite(arr.max())
    else:
        finite = bool(xp.all(xp.isfinite(arr)))
    if not finite:
        raise ValueError(f"{name} contains NaN or infinity")
    if is_numpy(xp) and (copy or bias is not None):
        arr.setflags(write=False)
    return arr


def placed(X, device, name: str = "X"):
    """``X`` on ``device`` (:func:`~svmteach.backend.to_device`); a sparse X stays on the host (NumPy and
    SciPy): ``device="gpu"`` refuses it naming ``name``, ``"auto"`` keeps it on the CPU."""
    if is_sparse(X):
        if device == "gpu":
            raise TypeError(f"{name} is sparse: sparse data is solved on the CPU; pass {name}.toarray() to use device='gpu'")
        return X
    return to_device(X, device)


def check_labels(y, n_samples: int, name: str = "y"):
    """Return ``(classes, codes)``: the sorted distinct labels and each sample's index into them.

    Labels may be integers, strings, booleans or integer-valued floats; floats
    with fractional parts are a regression target ("continuous") and are refused.
    """
    if y is None:
        raise ValueError(f"{name} is None: this estimator requires y to be passed, but the target y is None")
    _reject_sparse(y, name)
    arr = to_numpy(y) if hasattr(y, "__array_namespace__") else np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        import warnings

        from sklearn.exceptions import DataConversionWarning

        warnings.warn(f"A column-vector y was passed when a 1d array was expected ({name} has shape {arr.shape}); "
                      "it is used as a 1-D array", DataConversionWarning, stacklevel=3)
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one label per sample), got shape {arr.shape}")
    if arr.shape[0] != n_samples:
        raise ValueError(f"{name} has {arr.shape[0]} labels but X has {n_samples} samples")
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} is complex: complex labels are not supported")
    if arr.dtype.kind == "O":
        # non-integer reals of any type (float, np.float32, np.float16, ...): NaN != NaN would make
        # each NaN a class of its own, and a fractional value is a regression target
        reals = [float(v) for v in arr if isinstance(v, numbers.Real) and not isinstance(v, numbers.Integral)]
        if any(not math.isfinite(v) for v in reals):
            raise ValueError(f"{name} contains NaN or infinity")
        if any(v != round(v) for v in reals):
            raise ValueError(
                f"{name} holds non-integer floats (Unknown label type: continuous); a classifier needs class labels"
            )
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or infinity")
        if np.any(arr != np.round(arr)):
            raise ValueError(
                f"{name} holds non-integer floats (Unknown label type: continuous); a classifier needs class labels"
            )
    try:
        classes, codes = np.unique(arr, return_inverse=True)
    except TypeError:
        raise TypeError(f"{name} holds labels that cannot be compared with each other") from None
    return classes, codes.reshape(-1)


def check_positive(value, name: str, none_means: str | None = None):
    """Return ``value`` as a positive finite float, or raise a TypeError / ValueError naming ``name``.

    ``none_means``: None is allowed and returned, and the messages say what it means.
    """
    if value is None and none_means is not None:
        return None
    alternative = f" (or None for {none_means})" if none_means else ""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a positive number{alternative}, got {type(value).__name__}")
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be positive and finite{alternative}, got {value}")
    return value


def check_C(C) -> float:
    """Return ``C`` as a positive finite float, or raise naming ``C``."""
    return check_positive(C, "C")


def check_sample_weight(sample_weight, n_samples: int, xp=np, name: str = "sample_weight"):
    """Return ``sample_weight`` as a read-only (n,) float64 array of the problem's namespace, or None
    for None (every weight 1).

    Each weight scales its sample's penalty: sample i's dual variables live in the box of
    :math:`C_i = C w_i` (LIBLINEAR's and LIBSVM's per-instance C).  Weights must be finite and
    >= 0 (a weight 0 drops the sample: its box is {0}), with at least one positive.
    """
    if sample_weight is None:
        return None
    _reject_sparse(sample_weight, name)
    w = to_numpy(sample_weight) if hasattr(sample_weight, "__array_namespace__") else np.asarray(sample_weight)
    if w.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers, got dtype {w.dtype}")
    w = np.array(w, dtype=np.float64)
    if w.ndim != 1 or w.shape[0] != n_samples:
        raise ValueError(f"{name} must have shape ({n_samples},) (one weight per sample), got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name} contains NaN or infinity")
    if np.any(w < 0):
        raise ValueError(f"{name} has negative weights (the smallest is {w.min():g}); weights must be >= 0")
    if not np.any(w > 0):
        raise ValueError(f"{name} is zero for every sample: at least one weight must be positive")
    return _readonly(xp.asarray(w))


def per_sample_C(C: float, sample_weight, n_samples: int, xp=np):
    """The (n,) read-only float64 bounds :math:`C_i = C w_i` (all C without weights)."""
    if sample_weight is None:
        return _readonly(xp.full(n_samples, C, dtype=xp.float64))
    return _readonly(C * sample_weight)


def check_bias(bias, name: str = "bias"):
    """Return ``bias`` (the value of the constant feature appended to X, LIBLINEAR's ``-B``) as a
    positive finite float, or None for no constant feature."""
    return check_positive(bias, name, none_means="no constant feature")


def check_squared_norms(sqnorm, xp=np, name: str = "X"):
    """``sqnorm`` (the rows' :math:`\\|x_i\\|^2`), or a ValueError naming ``name`` when 4 times the largest is not
    finite in float64, as :class:`BinaryProblem` refuses a linear kernel that overflows: every product
    :math:`x_i^\\top x_j` (and :math:`\\|x_i - x_j\\|^2 \\le 4 \\max \\|x\\|^2`) then stays finite."""
    largest = float(xp.max(sqnorm))
    if not math.isfinite(4.0 * largest):
        raise ValueError(f"{name} overflows: its largest squared row norm |x|^2 = {largest:.3g} (4 |x|^2 must be below "
                         f"{np.finfo(np.float64).max:.3g} in float64); rescale {name}, e.g. with "
                         "sklearn.preprocessing.StandardScaler or by dividing it by a constant")
    return sqnorm


def with_bias_column(X, bias, dtype=None):
    """``X`` (as :func:`check_X` returned it) with a last column of constant ``bias`` appended (a read-only
    copy of ``dtype``, X's by default; CSR stays CSR), or ``X`` itself for ``bias=None``.  :func:`check_X` with
    ``bias`` writes it in its one copy.

    The weight of that column, times ``bias``, is the model's intercept: it is penalised with
    the other weights (LIBLINEAR's ``-B`` and scikit-learn's ``LinearSVC(intercept_scaling=bias)``).
    """
    if bias is None:
        return X
    n = X.shape[0]
    if is_sparse(X):  # row i's entries, then the constant (column d) at the end of the row
        import scipy.sparse as sp

        index = np.int64 if X.nnz + n > np.iinfo(np.int32).max else X.indices.dtype
        indptr = X.indptr.astype(index) + np.arange(n + 1, dtype=index)
        data, indices = np.empty(X.nnz + n, dtype=dtype or X.dtype), np.empty(X.nnz + n, dtype=index)
        for rows in row_blocks(X):  # np.insert's temporaries bounded by a block
            lo, hi, ends = X.indptr[rows.start], X.indptr[rows.stop], X.indptr[rows.start + 1 : rows.stop + 1]
            at = slice(indptr[rows.start], indptr[rows.stop])
            data[at] = np.insert(X.data[lo:hi].astype(data.dtype, copy=False), ends - lo, bias)
            indices[at] = np.insert(X.indices[lo:hi], ends - lo, X.shape[1])
        out = sp.csr_array((data, indices, indptr), shape=(n, X.shape[1] + 1))
        for part in (out.data, out.indices, out.indptr):
            part.setflags(write=False)
        return out
    xp = array_namespace(X)
    if not is_numpy(xp):  # CuPy or another array-API library
        join = xp.concat if hasattr(xp, "concat") else xp.concatenate
        return join([X, xp.full((n, 1), bias, dtype=X.dtype)], axis=1)
    out = np.empty((n, X.shape[1] + 1), dtype=X.dtype)
    out[:, :-1] = X
    out[:, -1] = bias
    out.setflags(write=False)
    return out


def _readonly(a):
    if isinstance(a, np.ndarray):
        a.setflags(write=False)
    return a


#: Above this many samples, ``BinaryProblem.kernel_row`` on a non-NumPy device computes kernel rows one
#: at a time instead of the whole (n, n) matrix (on NumPy, SMO reads its rows from the bounded cache).
FULL_GRAM_UP_TO = 4096

#: The default size of the kernel-row cache, in MB (LIBSVM's ``-m`` default).
CACHE_SIZE = 200.0


class KernelRowCache(NamedTuple):
    """Rows of a binary problem's kernel matrix, at most ``cache_size`` MB of them, kept for the compiled loops.

    Made by :meth:`BinaryProblem.kernel_rows`; filled and read by the compiled functions of
    :mod:`svmteach.solvers.numba_kernel_rows` (its docstring says how).  A row depends on X and the
    kernel only, never on C, y or a run, so every problem with the same X and kernel may share one
    cache: :meth:`BinaryProblem.with_C` does.  Every array is allocated here, by NumPy.

    Attributes
    ----------
    X : (n, d) float64, the problem's points;  sqnorm : (n,) float64, their squared norms;
    params : (5,) float64, :func:`~svmteach.kernels.kernel_params` of the kernel;
    buffer : (m, n) float64, slot s holds row ``owner[s]`` (slot i holds row i when m = n);
    slot : (n,) int64, the slot of row i or -1;  owner : (m,) int64, the row in slot s or -1;
    stamp : (m,) int64, the last use of slot s;  clock : (1,) int64, the number of rows asked for.
    """

    X: np.ndarray
    sqnorm: np.ndarray
    params: np.ndarray
    buffer: np.ndarray
    slot: np.ndarray
    owner: np.ndarray
    stamp: np.ndarray
    clock: np.ndarray

    @staticmethod
    def rows_for(n: int, cache_size: float) -> int:
        """How many rows of n float64 numbers ``cache_size`` MB hold: at least 2 (a step holds two), at most n."""
        return int(min(n, max(2, (cache_size * 2**20) // (8 * n))))

    @classmethod
    def make(cls, X, kernel, cache_size: float = CACHE_SIZE) -> KernelRowCache:
        """An empty cache of :meth:`rows_for` ``(n, cache_size)`` rows for the NumPy ``X`` and ``kernel``."""
        n = X.shape[0]
        m = cls.rows_for(n, cache_size)
        return cls(X=X, sqnorm=np.einsum("ij,ij->i", X, X), params=kernel_params(kernel),
                   buffer=np.empty((m, n), dtype=np.float64), slot=np.full(n, -1, dtype=np.int64),
                   owner=np.full(m, -1, dtype=np.int64), stamp=np.zeros(m, dtype=np.int64),
                   clock=np.zeros(1, dtype=np.int64))

    @property
    def have(self):
        """(n,) bool: which rows are in the cache now."""
        return self.slot >= 0

    @property
    def size_mb(self) -> float:
        """The rows' memory in MB."""
        return self.buffer.nbytes / 2**20


def check_cache_size(cache_size, name: str = "cache_size") -> float:
    """Return ``cache_size`` (MB of kernel rows) as a positive finite float, or raise naming ``name``."""
    return check_positive(cache_size, name)


class DataShape:
    """What every problem says of its data ``X``: the array namespace and the sizes."""

    @property
    def xp(self):
        return np if is_sparse(self.X) else array_namespace(self.X)

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])


@dataclass(frozen=True, eq=False)
class BinaryProblem(DataShape):
    """A binary soft-margin SVM problem.

    .. math::

        \\min_{w, b} \\; \\tfrac12 \\|w\\|^2 + C \\sum_i \\max(0, 1 - y_i (w^\\top \\phi(x_i) + b))

    Its dual (with a bias; drop the equality constraint without one) is

    .. math::

        \\max_\\alpha \\; \\mathbf 1^\\top \\alpha - \\tfrac12 \\alpha^\\top Q \\alpha,
        \\quad Q_{ij} = y_i y_j k(x_i, x_j), \\quad 0 \\le \\alpha_i \\le C,
        \\quad (y^\\top \\alpha = 0).

    Parameters
    ----------
    X : array of shape (n, d)
        Training points (copied, float64, read-only).
    y : array of shape (n,)
        Exactly two distinct labels of any type; ``classes[1]`` is coded +1.
    C : float
        Positive, finite penalty.
    kernel, gamma, degree, coef0 :
        See :func:`svmteach.kernels.make_kernel`.
    device : {None, "cpu", "gpu", "auto"}
        Where the arrays live: None keeps X where it is (NumPy, CuPy, or any array-API
        library); "gpu" copies it to CuPy, "cpu" to NumPy, "auto" picks the GPU when
        there is one.  The solvers run wherever the problem's arrays are.
    sample_weight : array of shape (n,) or None
        Non-negative weights: sample i's penalty is :math:`C_i = C w_i` (its dual box is
        :math:`[0, C_i]`; LIBSVM's and LIBLINEAR's weighted C).  None: every :math:`C_i = C`.
    bias : float or None
        Linear kernel only: append a constant feature of this value to X (LIBLINEAR's ``-B``), so
        that its weight times ``bias`` is an intercept penalised with w.  None: X as given.

    Attributes
    ----------
    X : (n, d) float64, (n, d + 1) with a bias column;  y : (n,) float64 in {-1, +1};  classes : (2,) original labels;
    C_i : (n,) float64, each sample's box bound :math:`C w_i`;
    kernel : Kernel;  gram : (n, n) kernel matrix (computed on first use);
    Q : (n, n) ``y_i y_j K_ij`` (on first use);  diag : (n,) ``K_ii``;
    _kernel_rows : the :class:`KernelRowCache` of the compiled loops (made by :meth:`kernel_rows`, NumPy only).
    Every cached attribute depends on X, y and the kernel only, never on C: :meth:`with_C` shares them.
    """

    X: object
    y: object
    C: float = 1.0
    kernel: object = "linear"
    gamma: object = "scale"
    degree: int = 3
    coef0: float = 1.0
    device: object = None
    sample_weight: object = None
    bias: object = None
    classes: np.ndarray = field(init=False)
    C_i: object = field(init=False)

    def __post_init__(self):
        X = placed(self.X, self.device)
        sparse = is_sparse(X)
        bias = check_bias(self.bias)
        # one copy of X, with its bias column (refused below for a kernel other than the linear one)
        X = check_X(X, "X", dtype=np.float64 if sparse or is_numpy(array_namespace(X)) else None, accept_sparse=True,
                    bias=bias)
        classes, codes = check_labels(self.y, X.shape[0], "y")
        if len(classes) < 2:
            raise ValueError(f"y has one class ({classes[0]!r}); a binary SVM needs exactly two")
        if len(classes) > 2:
            raise ValueError(
                f"y has {len(classes)} classes. Only binary classification is supported. The type of the target "
                "is multiclass: use MulticlassProblem / MulticlassSVC for more than two classes"
            )
        xp = array_namespace(X)
        y = xp.asarray(np.where(codes == 1, 1.0, -1.0), dtype=X.dtype)
        kernel_name = getattr(self.kernel, "name", None) or canonical_kernel_name(self.kernel)
        if sparse and kernel_name != "linear":
            raise TypeError(f"X is sparse, which the {kernel_name} kernel does not take: sparse "
                            "data is for the linear kernel (kernel='linear'); pass X.toarray() for another kernel")
        if bias is not None and kernel_name != "linear":
            raise ValueError(f"bias={bias:g} appends a constant feature to X, which is an intercept for the linear "
                             f"kernel only, not for kernel={kernel_name!r} (SMO's unpenalised bias b serves every kernel)")
        kernel = make_kernel(self.kernel, self.gamma, self.degree, self.coef0, X)
        if sparse:  # the linear kernel: its diagonal is the squared norms, computed once here
            diag = row_squared_norms(X)
            if not math.isfinite(4.0 * float(np.max(diag))):
                raise ValueError("kernel='linear' overflows on X: its Gram matrix has infinite entries; rescale X")
            object.__setattr__(self, "diag", _readonly(diag))  # fills the cached property
        else:
            check_kernel_finite(X, kernel)
            check_kernel_psd(X, kernel)
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", _readonly(y))
        object.__setattr__(self, "C", check_C(self.C))
        object.__setattr__(self, "sample_weight", check_sample_weight(self.sample_weight, X.shape[0], xp))
        object.__setattr__(self, "bias", bias)
        object.__setattr__(self, "C_i", per_sample_C(self.C, self.sample_weight, X.shape[0], xp))
        object.__setattr__(self, "kernel", kernel)
        object.__setattr__(self, "gamma", kernel.gamma)
        object.__setattr__(self, "degree", kernel.degree)
        object.__setattr__(self, "coef0", kernel.coef0)
        object.__setattr__(self, "classes", classes)

    @cached_property
    def gram(self):
        """The (n, n) kernel matrix, computed once and made exactly symmetric."""
        K = gram(self.X, self.X, self.kernel)
        K = K.toarray() if is_sparse(K) else K
        return _readonly(0.5 * (K + K.T))  # BLAS may round K_ij and K_ji differently

    @cached_property
    def Q(self):
        """The (n, n) dual Hessian :math:`Q_{ij} = y_i y_j K_{ij}`, computed once."""
        return _readonly(self.y[:, None] * self.gram * self.y[None, :])

    @cached_property
    def diag(self):
        """The (n,) diagonal :math:`K_{ii}`."""
        return _readonly(kernel_diagonal(self.X, self.kernel))  # a sparse X's was filled in by __post_init__

    def kernel_row(self, i: int):
        """Row i of the kernel matrix, shape (n,), on the problem's device.

        Read from the cached matrix when it exists or n is at most ``FULL_GRAM_UP_TO``;
        above that (a large problem on a GPU, say) it is computed alone, in O(nd).
        """
        if "gram" in self.__dict__ or self.n_samples <= FULL_GRAM_UP_TO:
            return self.gram[i, :]
        return gram(self.X[i : i + 1, :], self.X, self.kernel)[0, :]

    def kernel_rows(self, cache_size: float = CACHE_SIZE) -> KernelRowCache:
        """The problem's :class:`KernelRowCache` of ``cache_size`` MB (NumPy X only), kept for later calls.

        The same cache is handed back while ``cache_size`` stays the same (and to :meth:`with_C`
        copies made after it exists); a size that holds another number of rows replaces it with an empty one.
        """
        cache_size = check_cache_size(cache_size)
        rows = self.__dict__.get("_kernel_rows")
        if rows is None or rows.buffer.shape[0] != KernelRowCache.rows_for(self.n_samples, cache_size):
            rows = KernelRowCache.make(self.X, self.kernel, cache_size)
            object.__setattr__(self, "_kernel_rows", rows)
        return rows

    def kernel_with(self, Z):
        """Kernel matrix between the training points and new points ``Z``: shape (n, len(Z))."""
        return gram(self.X, Z, self.kernel)

    def with_C(self, C) -> "BinaryProblem":
        """The same data and kernel with another C.

        The cached attributes (``gram``, ``Q``, ``diag``, ``_kernel_rows``) are shared, not
        recomputed: each depends on X, y and the kernel only, never on C.
        """
        new = object.__new__(BinaryProblem)
        for k, v in self.__dict__.items():
            object.__setattr__(new, k, v)
        object.__setattr__(new, "C", check_C(C))
        object.__setattr__(new, "C_i", per_sample_C(new.C, new.sample_weight, new.n_samples, new.xp))
        return new




@dataclass(frozen=True, eq=False)
class MulticlassProblem(DataShape):
    r"""A linear multiclass SVM without bias: Weston-Watkins (``"ww"``), Crammer-Singer (``"cs"``) or
    Lee-Lin-Wahba (``"llw"``); each loss is a module of :mod:`svmteach.losses`.

    .. math::

        \text{WW:} \quad \tfrac12 \|W\|_F^2 + C \sum_i \sum_{j \ne y_i}
            \max(0, 1 - M (w_{y_i} - w_j)^\top x_i), \\
        \text{CS:} \quad \tfrac12 \|W\|_F^2 + C \sum_i
            \max(0, 1 + \max_{m \ne y_i} w_m^\top x_i - w_{y_i}^\top x_i), \\
        \text{LLW:} \quad \tfrac12 \|W\|_F^2 + C \sum_i \sum_{m \ne y_i} \max(0, 1 + w_m^\top x_i)
            \quad \text{s.t.} \; \textstyle\sum_m w_m = 0.

    Parameters
    ----------
    X : array of shape (n, d)
        float32 stays float32 (half the memory traffic); anything else becomes float64.
    y : array of shape (n,)
        At least two distinct labels of any type.
    C : float
        Positive, finite penalty.
    loss : {"ww", "cs", "llw"}
        The loss's name, a key of :data:`svmteach.losses.LOSSES`; ``loss_object`` is the loss itself.
    M : float
        The Weston-Watkins margin scale (1: Weston-Watkins / Keerthi et al.; 1/2: Shark's
        convention); any M > 0.  The other losses ignore it.
    device : {None, "cpu", "gpu", "auto"}
        As for :class:`BinaryProblem`; on "gpu", keep X float32 for speed.
    sample_weight : array of shape (n,) or None
        Non-negative weights: sample i's loss is multiplied by :math:`C_i = C w_i`, which bounds
        its dual variables in place of C.  None: every :math:`C_i = C`.
    bias : float or None
        Append a constant feature of this value to X (LIBLINEAR's ``-B``): the last column of W,
        times ``bias``, is then an intercept per class, penalised with W.  None: no bias, the
        course's problem.

    Attributes
    ----------
    X : (n, d), (n, d + 1) with a bias column;  codes : (n,) int64 class index of each sample;  classes : (k,) labels;
    C_i : (n,) float64, each sample's :math:`C w_i`;
    k : int;  sqnorm : (n,) float64 squared norms of the rows.
    """

    X: object
    y: object
    C: float = 1.0
    loss: str = "ww"
    M: float = 1.0
    device: object = None
    sample_weight: object = None
    bias: object = None
    classes: np.ndarray = field(init=False)
    C_i: object = field(init=False)
    codes: object = field(init=False)
    sqnorm: object = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "loss", get_loss(self.loss).name)
        bias = check_bias(self.bias)
        X = check_X(placed(self.X, self.device), "X", accept_sparse=True, bias=bias)  # one copy, with its bias column
        classes, codes = check_labels(self.y, X.shape[0], "y")
        if len(classes) < 2:
            raise ValueError(f"y has one class ({classes[0]!r}); a classifier needs at least two")
        M = check_positive(self.M, "M")
        xp = np if is_sparse(X) else array_namespace(X)
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "C", check_C(self.C))
        object.__setattr__(self, "sample_weight", check_sample_weight(self.sample_weight, X.shape[0], xp))
        object.__setattr__(self, "bias", check_bias(self.bias))
        object.__setattr__(self, "C_i", per_sample_C(self.C, self.sample_weight, X.shape[0], xp))
        object.__setattr__(self, "M", M)
        object.__setattr__(self, "classes", classes)
        object.__setattr__(self, "codes", _readonly(xp.asarray(codes.astype(np.int64))))
        object.__setattr__(self, "sqnorm", _readonly(check_squared_norms(row_squared_norms(X, xp), xp)))

    @property
    def k(self) -> int:
        return len(self.classes)

    @property
    def loss_object(self):
        """The :class:`~svmteach.losses.base.MulticlassLoss` called ``loss``."""
        return get_loss(self.loss)
