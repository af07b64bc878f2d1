"""The data matrix X, dense or sparse: the two products every solver needs, and row access for compiled loops.

A problem keeps X dense (NumPy, CuPy) or as a SciPy ``csr_array``; nothing else looks at which:

- :func:`times` and :func:`transpose_times`: :math:`X B` and :math:`X^\\top A` in float64 (the scores
  and the weights), a dense float32 X converted a block of rows at a time (:func:`block_bytes`: 4 MiB on the
  host, 256 MiB on a device, where a block costs a launch and no wait), never whole; a CSR X read where it lies,
  by a compiled loop (its float32 values converted one at a time).
- :func:`row_slice`: a block of rows without a copy of them (a CSR block shares X's values and indices).
- :func:`compiled_rows`: what a compiled loop receives, the dense array or a :class:`CSR` tuple; there
  :func:`row_dot` (:math:`x_i^\\top v`) and :func:`row_axpy` (:math:`v \\leftarrow v + a x_i`) visit the
  row's stored entries only.  Numba picks the dense or sparse body from the argument's type
  (:func:`numba.extending.overload`), so each epoch is written once.

Each also takes a :class:`DesignMatrix`: X with the intercept's constant column, which is never stored (a
multiclass problem's rows: LIBLINEAR's ``-B`` without a copy of X).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.extending import overload

from .backend import array_namespace, concat, is_numpy

#: The largest float64 block of a float32 X that :func:`times` / :func:`transpose_times` convert at once.
BLOCK_BYTES = 1 << 22  # 4 MiB: large enough for BLAS to run at full speed
#: The same on a device (CuPy): one block for most problems, so that a measure is whole-array reductions.
DEVICE_BLOCK_BYTES = 1 << 28


def block_bytes(xp) -> int:
    """The float64 block size for arrays of the namespace ``xp``: :data:`BLOCK_BYTES` on NumPy, else
    :data:`DEVICE_BLOCK_BYTES`."""
    return BLOCK_BYTES if is_numpy(xp) else DEVICE_BLOCK_BYTES


class CSR(NamedTuple):
    """A CSR matrix as a compiled loop takes it: row i's entries are ``data[indptr[i]:indptr[i + 1]]``
    in the columns ``indices[indptr[i]:indptr[i + 1]]`` (sorted, no duplicates)."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray


class DesignMatrix(NamedTuple):
    """The (n, d + 1) matrix :math:`[X, B \\mathbf 1]` of a linear model with an intercept (``bias`` B: a constant
    feature, penalised with the weights), of which only ``data`` (X, dense or CSR) is stored; ``bias`` None: X
    itself, (n, d).  The functions of this module take it where they take X."""

    data: object
    bias: float | None

    @property
    def shape(self) -> tuple[int, int]:
        n, d = self.data.shape
        return int(n), int(d) + (self.bias is not None)

    @property
    def dtype(self):
        return self.data.dtype


class CompiledDesign(NamedTuple):
    """A :class:`DesignMatrix` as a compiled loop takes it: ``rows`` as :func:`compiled_rows` gives X, and the
    constant ``bias`` in the column ``column`` of a weight vector (-1: no bias column).  A loop unpacks it once
    and adds the bias column's term beside :func:`row_dot` and :func:`row_axpy` in its own body: inside an inlined
    function that branch costs reference counts of the row's array every call (``benchmarks/RESULTS.md``)."""

    rows: object
    bias: float
    column: int


def is_sparse(X) -> bool:
    """True when ``X`` (or a :class:`DesignMatrix`'s data) is a SciPy sparse matrix or array."""
    X = X.data if isinstance(X, DesignMatrix) else X
    return type(X).__module__.startswith("scipy.sparse")


def compiled_rows(X):
    """What a compiled loop takes for ``X``: the dense NumPy array, or a :class:`CSR` of a CSR matrix; for a
    :class:`DesignMatrix`, a :class:`CompiledDesign` (with or without its bias: one type per type of X)."""
    if isinstance(X, DesignMatrix):
        column = -1 if X.bias is None else int(X.data.shape[1])
        return CompiledDesign(compiled_rows(X.data), 0.0 if X.bias is None else float(X.bias), column)
    if is_sparse(X):
        return CSR(X.data, X.indices, X.indptr)
    return X


def stored(X):
    """The matrix whose entries are stored: X, or a :class:`DesignMatrix`'s data (without its bias column)."""
    return X.data if isinstance(X, DesignMatrix) else X


def dense_row(X, i: int, xp=np):
    """Row i of X (or of a :class:`DesignMatrix`, its bias appended) as a dense float64 vector: O(d), one row only."""
    data = stored(X)
    row = data[[i], :].toarray()[0].astype(np.float64) if is_sparse(data) else xp.astype(data[i, :], xp.float64)
    if isinstance(X, DesignMatrix) and X.bias is not None:
        row = concat(xp, [row, xp.asarray([float(X.bias)], dtype=xp.float64)])
    return row


def row_blocks(X):
    """Row slices of X whose float64 copies fit in :func:`block_bytes` of X's library (dense, or the stored
    entries of a CSR)."""
    X = stored(X)
    n, d = X.shape
    per_row = (8 * X.nnz / max(n, 1)) if is_sparse(X) else 8 * d  # the float64 values of a row
    step = max(1, int(block_bytes(np if is_sparse(X) else array_namespace(X)) // max(per_row, 1)))
    return [slice(s, min(s + step, n)) for s in range(0, n, step)]


def row_slice(X, rows: slice, dtype=None):
    """The rows ``rows`` of X without a copy of them: a view of a dense X, or a CSR that shares X's values and
    column indices (its own ``indptr`` shifted to 0, b + 1 integers).  ``dtype``: the values converted, the block's
    one copy (a dense block's entries, a CSR block's stored values only)."""
    if isinstance(X, DesignMatrix):
        return DesignMatrix(row_slice(X.data, rows, dtype), X.bias)
    if not is_sparse(X):
        part = X[rows, :]
        return part if dtype is None or part.dtype == dtype else part.astype(dtype)
    import scipy.sparse as sp

    lo, hi = int(X.indptr[rows.start]), int(X.indptr[rows.stop])
    values = X.data[lo:hi]
    part = sp.csr_array((rows.stop - rows.start, X.shape[1]), dtype=values.dtype if dtype is None else dtype)
    # the arrays set on an empty CSR of the block's shape: SciPy's constructor copies a view of a much larger array
    part.data = values if dtype is None or values.dtype == dtype else values.astype(dtype)
    part.indices = X.indices[lo:hi]
    part.indptr = X.indptr[rows.start : rows.stop + 1] - lo
    return part


def _csr_blocks(X, power, visit):
    """Call ``visit(rows, values, indptr, indices)`` for each of :func:`row_blocks` of a CSR X: the stored
    values in float64 to the ``power`` (1 or 2), ``indptr`` from 0, ``indices`` views of X's."""
    for rows in row_blocks(X):
        part = row_slice(X, rows, np.float64)
        values = part.data
        if power == 2:
            with np.errstate(over="ignore"):  # an infinite square is for the caller to refuse
                values = np.square(values)
        visit(rows, values, part.indptr, part.indices)
        del values, part


def times(X, B, xp=np):
    """:math:`X B` in float64, ``B`` of shape (d, m): a float32 X in float64 arithmetic, without a
    float64 copy of the whole of X (a CSR X: without a copy of any of it)."""
    if isinstance(X, DesignMatrix):
        if X.bias is None:
            return times(X.data, B, xp)
        B = xp.astype(B, xp.float64, copy=False)
        out = times(X.data, B[:-1, :], xp)
        out += X.bias * B[-1, :]  # the bias column's term, last (as in a row of the stored [X, B 1])
        return out
    if is_sparse(X):
        X, out = X.tocsr(), np.zeros((X.shape[0], B.shape[1]))  # tocsr: X itself (every caller's X is CSR)
        _csr_times(*_read_only(X), np.ascontiguousarray(B, dtype=np.float64), out)
        return out
    B = xp.astype(B, xp.float64, copy=False)
    if X.dtype == xp.float64:
        return X @ B
    out = xp.empty((X.shape[0], B.shape[1]), dtype=xp.float64)
    for rows in row_blocks(X):
        out[rows, :] = xp.astype(X[rows, :], xp.float64) @ B
    return out


def transpose_times(X, A, xp=np):
    """:math:`X^\\top A` in float64, ``A`` of shape (n, m): as :func:`times`, no float64 copy of X, and A itself
    when it is float64 (no (n, m) copy).  The rows of X whose row of A is 0 add nothing: a CSR X skips them, and
    a dense X on the host, where at least half of A's rows are 0 (a dual's samples off the support), is read
    only in the other rows, :data:`BLOCK_BYTES` of them gathered at a time (MNIST's 5,000 x 784 with 29% of the
    rows: 3.0 -> 0.8 ms, ``benchmarks/RESULTS.md``; the product reads X from memory)."""
    if isinstance(X, DesignMatrix):
        if X.bias is None:
            return transpose_times(X.data, A, xp)
        A = xp.astype(A, xp.float64, copy=False)
        top = transpose_times(X.data, A, xp)
        return concat(xp, [top, X.bias * xp.sum(A, axis=0)[None, :]], axis=0)  # the bias row: B times A's column sums
    if is_sparse(X):
        X, out = X.tocsr(), np.zeros((X.shape[1], A.shape[1]))
        _csr_transpose_times(*_read_only(X), np.ascontiguousarray(A, dtype=np.float64), out)
        return out
    A = xp.astype(A, xp.float64, copy=False)
    support = np.flatnonzero(np.any(A != 0, axis=1)) if is_numpy(xp) else None
    if support is not None and 2 * support.size <= X.shape[0]:
        out = np.zeros((X.shape[1], A.shape[1]))
        step = max(1, BLOCK_BYTES // (8 * max(X.shape[1], 1)))
        for at in range(0, support.size, step):
            rows = support[at : at + step]
            out += X[rows].astype(np.float64, copy=False).T @ A[rows]
        return out
    if X.dtype == xp.float64:
        return X.T @ A
    out = xp.zeros((X.shape[1], A.shape[1]), dtype=xp.float64)
    for rows in row_blocks(X):
        out += xp.astype(X[rows, :], xp.float64).T @ A[rows, :]
    return out


def _read_only(X):
    """``(data, indices, indptr)`` of a CSR X as read-only views: one compiled product per dtype, whether the
    caller's arrays are writable or not (numba compiles a function again for each)."""
    views = [a.view() for a in (X.data, X.indices, X.indptr)]
    for v in views:
        v.setflags(write=False)
    return views


@njit(cache=True)
def _csr_times(data, indices, indptr, B, out):
    """``out`` (n, m) += X B for the CSR X (data, indices, indptr), in float64: each row's entries in their stored
    order, as SciPy's ``csr_matvecs`` sums them (the same bits)."""
    for i in range(len(indptr) - 1):
        o = out[i]
        for p in range(indptr[i], indptr[i + 1]):
            v = np.float64(data[p])
            b = B[np.uint64(indices[p])]  # unsigned: indices were checked to lie in [0, d) (check_sparse_X)
            for m in range(B.shape[1]):
                o[m] += v * b[m]


@njit(cache=True)
def _csr_transpose_times(data, indices, indptr, A, out):
    """``out`` (d, m) += X' A for the CSR X (data, indices, indptr), in float64: row after row, as SciPy's
    ``csc_matvecs`` sums X.T @ A (the same bits)."""
    for i in range(len(indptr) - 1):
        a = A[i]
        zero = True
        for m in range(A.shape[1]):
            zero = zero and a[m] == 0.0
        if zero:  # adds nothing (a sample off the support)
            continue
        for p in range(indptr[i], indptr[i + 1]):
            v = np.float64(data[p])
            o = out[np.uint64(indices[p])]
            for m in range(A.shape[1]):
                o[m] += v * a[m]


def row_squared_norms(X, xp=np):
    """(n,) float64 :math:`\\|x_i\\|^2`, without a copy of X: a block of rows at a time (NumPy, SciPy CSR)."""
    if isinstance(X, DesignMatrix):
        norms = row_squared_norms(X.data, xp)
        if X.bias is not None:
            with np.errstate(over="ignore"):  # as below: an infinite norm is for the caller to refuse
                norms = norms + float(X.bias) * float(X.bias)
        return norms
    if not is_sparse(X) and xp is not np:
        Xf = xp.astype(X, xp.float64)
        return xp.sum(Xf * Xf, axis=1)
    out = np.empty(X.shape[0])
    if not is_sparse(X):
        for rows in row_blocks(X):
            block = row_slice(X, rows, np.float64)  # float32 converted one block at a time
            with np.errstate(over="ignore"):  # an infinite norm is for the caller to refuse
                out[rows] = np.sum(block * block, axis=1)  # summed as NumPy sums (a sparse X's rows agree)
            del block
        return out

    def visit(rows, squares, indptr, indices):  # each row's sum of its squares (a row without entries: 0)
        filled = np.diff(indptr) > 0
        out[rows] = 0.0
        if len(squares):
            out[rows][filled] = np.add.reduceat(squares, indptr[:-1][filled])

    _csr_blocks(X, 2, visit)
    return out


def column_sums(X, power: int = 1):
    """(d,) float64 :math:`\\sum_i x_{it}` (``power=2``: :math:`\\sum_i x_{it}^2`), without a copy of X."""
    if isinstance(X, DesignMatrix):
        sums = column_sums(X.data, power)
        if X.bias is None:
            return sums
        with np.errstate(over="ignore"):  # a huge B's square: inf, as the stored column's would sum to
            return np.append(sums, X.shape[0] * np.float64(X.bias) ** power)
    out = np.zeros(X.shape[1])
    if not is_sparse(X):
        for rows in row_blocks(X):
            block = row_slice(X, rows, np.float64)
            with np.errstate(over="ignore"):
                out += np.einsum("ij,ij->j", block, block) if power == 2 else np.sum(block, axis=0)
            del block
        return out

    def visit(rows, values, indptr, indices):
        out[:] += np.bincount(indices, weights=values, minlength=X.shape[1])

    _csr_blocks(X, power, visit)
    return out


# ---- inside compiled loops ---------------------------------------------------------------------------


def row_dot(X, i, v):
    """:math:`x_i^\\top v` in float64, for the X of :func:`compiled_rows` (compiled code only)."""
    raise NotImplementedError("row_dot is called from compiled code only")


def row_axpy(X, i, a, v):
    """:math:`v \\leftarrow v + a\\, x_i` in place, for the X of :func:`compiled_rows` (compiled code only)."""
    raise NotImplementedError("row_axpy is called from compiled code only")


@overload(row_dot, inline="always")
def _row_dot(X, i, v):
    if isinstance(X, types.Array):
        def dense(X, i, v):
            acc = 0.0
            for t in range(X.shape[1]):
                acc += v[t] * X[i, t]
            return acc

        return dense

    def sparse(X, i, v):
        data, indices, indptr = X
        acc = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            acc += v[np.uint64(indices[p])] * data[p]  # unsigned: no test for a negative index (numba's wraparound)
        return acc

    return sparse


@overload(row_axpy, inline="always")
def _row_axpy(X, i, a, v):
    if isinstance(X, types.Array):
        def dense(X, i, a, v):
            for t in range(X.shape[1]):
                v[t] += a * X[i, t]

        return dense

    def sparse(X, i, a, v):
        data, indices, indptr = X
        for p in range(indptr[i], indptr[i + 1]):
            v[np.uint64(indices[p])] += a * data[p]  # as in row_dot: a CSR's column indices are never negative

    return sparse
