"""Input validation: each check returns the value as the package uses it, or raises naming the argument.

Every ``ValueError`` / ``TypeError`` here starts with the argument's name.  Arrays are copied (never
modified) and the copies made read-only.  Problems, estimators and widgets all validate through these.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .backend import array_namespace, concat, is_numpy, to_device, to_numpy
from .rows import is_sparse, row_blocks


def is_dask(A) -> bool:
    """Whether ``A`` is a dask collection (told by its type's module: dask itself is never imported here)."""
    return type(A).__module__.split(".", 1)[0] == "dask"


def reject_dask(A, name):
    """A TypeError naming ``name`` for a dask array: ``np.asarray`` would gather it whole into this process."""
    if is_dask(A):
        raise TypeError(f"{name} is a dask array: svmteach never gathers one into this process; MulticlassSVC (every "
                        "linear loss) and BinarySVC (linear kernel) fit it where it lives (solver='cocoa', "
                        f"svmteach.solvers.cocoa); here, compute it first ({name}.compute()) if it fits in memory")


def _reject_sparse(A, name):
    reject_dask(A, name)
    if is_sparse(A):
        raise TypeError(f"{name} is a sparse matrix: sparse input is not supported here; pass a dense array ({name}.toarray())")


def check_sparse_X(X, name: str = "X", dtype=None, bias=None, copy: bool = True):
    """A SciPy sparse ``X`` as a read-only canonical ``csr_array`` (duplicates summed, indices sorted, explicit
    zeros removed), float32 kept, else float64 (or ``dtype``); raise naming ``name`` when it is empty, complex
    or not finite.  At most one copy (``copy=False``: only if needed), with the ``bias`` column written in it.
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
    # SciPy builds a CSR without looking at its column indices; the compiled loops index with them unchecked
    if arr.nnz and not (int(arr.indices.min()) >= 0 and int(arr.indices.max()) < d):
        raise ValueError(f"{name} has column indices outside [0, {d}): a sparse {name} whose indices do not fit its "
                         "shape")

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

    ``copy=False`` (prediction): a C-contiguous NumPy float X comes back as it is.  ``bias``: a last column
    of that constant (:func:`with_bias_column`), written in the one copy.  Other array-API libraries' arrays
    stay in their library; ``dtype=None`` keeps float32 and float64, else float64.  With
    ``accept_sparse``, a SciPy sparse matrix goes through :func:`check_sparse_X`; without, it is refused.
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
                at = _first_missing(arr)
                if at is not None:  # pandas' NA (an Int64 or boolean column) or None: not a dtype problem
                    where = f"row {at[0]}, column {at[1]}" if len(at) == 2 else f"index {at}"
                    raise ValueError(f"{name} has a missing value ({arr[at]!r}) at {where}: impute it or drop the "
                                     "sample first (e.g. sklearn.impute.SimpleImputer)") from None
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


def _first_missing(arr):
    """The index of the first missing value (None, or pandas' NA and NaT when pandas is loaded) of an object array,
    or None."""
    import sys

    pandas = sys.modules.get("pandas")  # pandas' NA can only be there if pandas was imported
    missing = [pandas.isna(v) if pandas is not None else v is None for v in arr.ravel()]
    hits = np.flatnonzero(np.array([m is True or (isinstance(m, np.bool_) and bool(m)) for m in missing], dtype=bool))
    return tuple(int(i) for i in np.unravel_index(int(hits[0]), arr.shape)) if hits.size else None


def placed(X, device, name: str = "X"):
    """``X`` on ``device`` (:func:`~svmteach.backend.to_device`); a sparse X stays on the host (NumPy and
    SciPy): ``device="gpu"`` refuses it naming ``name``, ``"auto"`` keeps it on the CPU."""
    reject_dask(X, name)
    if is_sparse(X):
        if device == "gpu":
            raise TypeError(f"{name} is sparse: sparse data is solved on the CPU; pass {name}.toarray() to use device='gpu'")
        return X
    return to_device(X, device)


def check_labels(y, n_samples: int, name: str = "y"):
    """Return ``(classes, codes)``: the sorted distinct labels and each sample's index into them.

    Labels may be integers, strings, booleans or integer-valued floats (fractional: refused, "continuous").
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


def part_labels(y, n_samples: int, classes, name: str = "y"):
    """``(classes, codes)`` of a part of a data set whose labels are ``classes`` (sorted, distinct): y checked
    as :func:`check_labels` checks it, each label's index into ``classes``; a label not among them is a
    ValueError naming ``name``."""
    found, codes = check_labels(y, n_samples, name)
    classes = np.asarray(classes)
    missing = found[~np.isin(found, classes)]
    if len(missing):
        raise ValueError(f"{name} holds labels that are not among the data set's classes {classes.tolist()}: "
                         f"{missing[:5].tolist()}")
    return classes, np.searchsorted(classes, found)[codes]


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


def check_sample_weight(sample_weight, n_samples: int, xp=np, name: str = "sample_weight", all_zero: bool = False):
    """Return ``sample_weight`` as a read-only (n,) float64 array of the problem's namespace, or None.

    Sample i's penalty is :math:`C_i = C w_i` (LIBSVM's per-instance C).  Weights must be finite and
    >= 0 (0 drops the sample: its box is {0}), with at least one positive (unless ``all_zero``: a part of a
    data set, whose whole is checked).
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
    if not all_zero and not np.any(w > 0):
        raise ValueError(f"{name} is zero for every sample: at least one weight must be positive")
    return readonly(xp.asarray(w))


def check_bias(bias, name: str = "bias"):
    """Return ``bias`` (the value of the constant feature appended to X, LIBLINEAR's ``-B``) as a
    positive finite float, or None for no constant feature."""
    return check_positive(bias, name, none_means="no constant feature")


def check_squared_norms(sqnorm, xp=np, name: str = "X"):
    """``sqnorm`` (the rows' :math:`\\|x_i\\|^2`), or a ValueError naming ``name`` when 4 times the largest is not
    finite: then every :math:`x_i^\\top x_j` and :math:`\\|x_i - x_j\\|^2` stays finite."""
    largest = float(xp.max(sqnorm))
    if not math.isfinite(4.0 * largest):
        raise ValueError(f"{name} overflows: its largest squared row norm |x|^2 = {largest:.3g} (4 |x|^2 must be below "
                         f"{np.finfo(np.float64).max:.3g} in float64); rescale {name}, e.g. with "
                         "sklearn.preprocessing.StandardScaler or by dividing it by a constant")
    return sqnorm


def with_bias_column(X, bias, dtype=None):
    """``X`` with a last column of constant ``bias`` (a read-only copy of ``dtype``, X's by default; CSR stays
    CSR), or ``X`` for ``bias=None``.  Its weight times ``bias`` is a penalised intercept (LIBLINEAR's ``-B``).
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
        return concat(xp, [X, xp.full((n, 1), bias, dtype=X.dtype)], axis=1)
    out = np.empty((n, X.shape[1] + 1), dtype=X.dtype)
    out[:, :-1] = X
    out[:, -1] = bias
    out.setflags(write=False)
    return out


def readonly_view(X):
    """``X`` behind read-only views (a NumPy array, or a CSR's three arrays), without a copy: the caller's arrays
    keep their flags.  Other libraries' arrays, which have no such flag, come back as they are."""
    if isinstance(X, np.ndarray):
        return readonly(X.view())
    if is_sparse(X):
        import scipy.sparse as sp

        out = sp.csr_array(X.shape, dtype=X.dtype)  # the arrays set on an empty CSR: the constructor may copy them
        out.data, out.indices, out.indptr = (readonly(a.view()) for a in (X.data, X.indices, X.indptr))
        return out
    return X


def readonly(a):
    """``a``, made read-only when it is a NumPy array (other libraries' arrays have no such flag)."""
    if isinstance(a, np.ndarray):
        a.setflags(write=False)
    return a
