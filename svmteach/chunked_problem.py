"""A problem whose rows stay where a dask array keeps them: one part per row chunk, on its worker.

:class:`ChunkedMulticlassProblem` and :class:`ChunkedBinaryProblem` take a dask array X chunked by rows (NumPy or
SciPy sparse chunks) and its labels, and build, where each row chunk is computed, a
:class:`~svmteach.problems.MulticlassProblem` (or :class:`~svmteach.problems.BinaryProblem`, linear kernel) of
those rows (validated there, with the whole data set's classes and each sample's C).  Nothing of X comes to the
client: it keeps the parts' handles (``dask.distributed`` futures), their sizes and the classes.  The CoCoA+
solver (:mod:`svmteach.solvers.cocoa`) runs its rounds on these parts.

Each part holds its rows times :math:`\\sqrt{\\sigma'}`, :math:`\\sigma' = K` the number of parts (CoCoA+'s
safe choice for adding the parts' updates): the sequential solver's epochs on the scaled rows then solve
CoCoA+'s local subproblem (its quadratic term :math:`\\tfrac{\\sigma'}{2}\\|\\Delta W_k\\|^2`) unchanged,
against the scaled model :math:`W / \\sqrt{\\sigma'}`, with no second copy of the rows.  A part's weights are
those of its scaled rows divided by :math:`\\sqrt{\\sigma'}` (``scale``); its scores against the scaled model
are the true scores.

Without a ``dask.distributed`` client the parts are computed by dask's default scheduler into this process
(where that scheduler keeps data anyway) and solved here: the same rounds.
"""

from __future__ import annotations

import math

import numpy as np

from .losses import MulticlassLoss, get_loss
from .problems import BinaryProblem, MulticlassProblem
from .rows import is_sparse
from .validation import check_bias, check_C, check_labels, check_positive, is_dask, part_labels


class Here:
    """A part's work run at once in this process (no ``dask.distributed`` client): ``compute``, ``submit`` and
    ``gather`` as a client's, on plain values."""

    def compute(self, delayed):
        import dask

        return list(dask.compute(*delayed))

    def submit(self, fn, *args):
        return fn(*args)

    def gather(self, handles):
        return list(handles)

    def __repr__(self):
        return "Here()"


class OnCluster:
    """A ``dask.distributed`` client's ``compute``, ``submit`` (never pure: each round is new work) and ``gather``."""

    def __init__(self, client):
        self.client = client

    def compute(self, delayed):
        return self.client.compute(list(delayed))

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False)

    def gather(self, handles):
        return self.client.gather(list(handles))

    def __repr__(self):
        return f"OnCluster({self.client!r})"


def current_executor():
    """The current ``dask.distributed`` client's executor, or :class:`Here` when there is none."""
    try:
        from distributed import get_client
    except ImportError:
        return Here()
    try:
        return OnCluster(get_client())
    except ValueError:  # no client: dask's default scheduler
        return Here()


def row_blocks(X, name: str = "X"):
    """``(blocks, sizes)``: X's row chunks as dask delayed objects (X rechunked to one column chunk) and their
    numbers of rows; a ValueError naming ``name`` for a dask array that is not 2-D or of unknown chunk sizes."""
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D of shape (n_samples, n_features), got a {X.ndim}-D dask array")
    if any(math.isnan(c) for c in X.chunks[0]) or math.isnan(X.shape[1]):
        raise ValueError(f"{name} has unknown chunk sizes: call {name}.compute_chunk_sizes() first")
    if X.numblocks[1] > 1:
        X = X.rechunk({1: X.shape[1]})  # a row chunk holds whole rows
    return list(X.to_delayed()[:, 0]), tuple(int(c) for c in X.chunks[0])


def aligned(v, sizes, name: str):
    """``v`` (n,) (a dask array or anything NumPy takes) split by the row chunks ``sizes``: a list of dask delayed
    or NumPy pieces; a ValueError naming ``name`` when its length is not n."""
    n = sum(sizes)
    if is_dask(v):
        if v.ndim != 1 or v.shape[0] != n:
            raise ValueError(f"{name} must have shape ({n},) (one per sample), got a dask array of shape {v.shape}")
        return list(v.rechunk((sizes,)).to_delayed())
    v = np.asarray(v)
    if v.ndim != 1 or v.shape[0] != n:
        raise ValueError(f"{name} must have shape ({n},) (one per sample), got shape {v.shape}")
    return np.split(v, np.cumsum(sizes)[:-1])


def labels_and_counts(y, n: int):
    """The sorted classes of ``y`` and each one's count (computed where y lives: only k numbers travel)."""
    if is_dask(y):
        import dask
        import dask.array as da

        if y.ndim != 1 or y.shape[0] != n:
            raise ValueError(f"y must have shape ({n},) (one label per sample), got a dask array of shape {y.shape}")
        classes, counts = dask.compute(*da.unique(y, return_counts=True))
        classes, _ = check_labels(classes, len(classes), "y")
        return classes, np.asarray(counts, dtype=np.int64)
    classes, codes = check_labels(y, n, "y")
    return classes, np.bincount(codes, minlength=len(classes))


def class_multipliers(class_weight, classes, counts):
    """(k,) each class's weight, or None: scikit-learn's "balanced" ``n / (k n_c)`` or the dict's (a label not
    among the classes: a ValueError naming ``class_weight``)."""
    if class_weight is None:
        return None
    if isinstance(class_weight, str):
        return counts.sum() / (len(classes) * counts.astype(np.float64))
    known = set(classes.tolist())
    unknown = [label for label in class_weight if label not in known]
    if unknown:
        raise ValueError(f"class_weight: the classes {unknown} are not in y (its classes are {classes.tolist()})")
    return np.array([float(class_weight.get(c, 1.0)) for c in classes.tolist()])


def make_part(X, y, sample_weight, multipliers, classes, C, bias, scale, binary, loss, M):
    """The problem of one row chunk (run where the chunk is): a :class:`~svmteach.problems.BinaryProblem` (linear
    kernel) with ``binary``, else a :class:`~svmteach.problems.MulticlassProblem` of ``loss`` and ``M``; its rows
    times ``scale`` (a sparse chunk kept sparse, CSR), the whole data set's ``classes``, :math:`C_i = C w_i`."""
    if is_sparse(X):
        import scipy.sparse as sp

        X = sp.csr_array(X)
    else:
        X = np.asarray(X)
    if scale != 1.0:
        X = X * (X.dtype.type(scale) if not is_sparse(X) else scale)
    weights = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if multipliers is not None:
        _, codes = part_labels(y, len(y), classes)
        weights = multipliers[codes] if weights is None else weights * multipliers[codes]
    bias = None if bias is None else bias * scale
    if binary:
        return BinaryProblem(X, y, C=C, sample_weight=weights, bias=bias, classes=classes)
    return MulticlassProblem(X, y, C=C, loss=loss, M=M, sample_weight=weights, bias=bias, copy=False, classes=classes)


def part_summary(part):
    """``(n, positive)``: a part's number of samples and whether one has a positive bound (checked by the client)."""
    return part.n_samples, bool(np.any(part.C_i > 0))


class ChunkedProblem:
    """What :class:`ChunkedMulticlassProblem` and :class:`ChunkedBinaryProblem` share: the parts, each a row chunk's
    problem where the chunk lives (module docstring), built once from X.  Immutable.

    Attributes
    ----------
    parts : K handles (futures on a cluster) of the parts' problems;  recipes : the K dask delayed that build
    them from X (built again after a lost worker);  sizes : (K,) samples per part;  scale : :math:`\\sqrt{K}`;
    classes, n_samples, n_features (d + 1 with a bias), C, bias, kernel (linear): the in-memory problem's;
    binary : bool, whether the parts are binary problems;  executor : where the parts live.
    """

    chunked = True
    binary = False
    xp = np

    def _build(self, X, y, C, sample_weight, bias, class_weight, executor, **fields) -> None:
        """Validate the arguments and build the parts where X's row chunks live (``fields``: the subclass's own
        attributes, a multiclass part's ``loss`` and ``M`` among them, passed to :func:`make_part`)."""
        loss, M = fields.get("loss"), fields.get("M")
        if not is_dask(X):
            raise TypeError(f"X must be a dask array for a {type(self).__name__}, got {type(X).__name__} (use "
                            f"{type(self).__name__.replace('Chunked', '')} for data in memory)")
        import dask

        from .kernels import make_kernel

        blocks, sizes = row_blocks(X)
        C, bias = check_C(C), check_bias(bias)
        classes, counts = labels_and_counts(y, sum(sizes))
        if len(classes) < 2:
            raise ValueError(f"y has one class ({classes[0]!r}); a classifier needs at least two")
        if self.binary and len(classes) > 2:
            raise ValueError(f"y has {len(classes)} classes; a binary SVM needs exactly two: use "
                             "ChunkedMulticlassProblem / MulticlassSVC for more")
        multipliers = class_multipliers(class_weight, classes, counts)
        ys = aligned(y, sizes, "y")
        weights = [None] * len(sizes) if sample_weight is None else aligned(sample_weight, sizes, "sample_weight")
        executor = current_executor() if executor is None else executor
        scale = math.sqrt(sum(n > 0 for n in sizes))
        recipes = [dask.delayed(make_part, pure=True)(b, yk, wk, multipliers, classes, C, bias, scale, self.binary,
                                                      loss, M)
                   for b, yk, wk, n in zip(blocks, ys, weights, sizes) if n > 0]  # an empty chunk is no part
        parts = tuple(executor.compute(recipes))
        summaries = executor.gather([executor.submit(part_summary, part) for part in parts])
        if not any(positive for _, positive in summaries):
            raise ValueError("sample_weight is zero for every sample: at least one weight must be positive")
        object.__setattr__(self, "_fields", dict(
            parts=parts, recipes=tuple(recipes), sizes=np.array([n for n, _ in summaries], dtype=np.int64),
            scale=scale, classes=classes, C=C, bias=bias, n_features=int(X.shape[1]) + (bias is not None),
            kernel=make_kernel("linear"), executor=executor, **fields))

    def __getattr__(self, name):
        fields = self.__dict__.get("_fields", {})
        if name in fields:
            return fields[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable: build a new one")

    @property
    def n_samples(self) -> int:
        return int(self.sizes.sum())

    @property
    def n_parts(self) -> int:
        return len(self.parts)

    def rebuilt(self, lost):
        """The handles of the parts whose indices are in ``lost``, built again from X (a worker that held them was
        lost: dask computes their rows again from X's graph)."""
        return self.executor.compute([self.recipes[k] for k in lost])

    def gather(self, handles):
        """The values of ``handles`` (futures on a cluster), brought to this process."""
        return self.executor.gather(handles)


class ChunkedMulticlassProblem(ChunkedProblem):
    """A linear multiclass SVM (every loss of :mod:`svmteach.losses`) on a dask array X chunked by rows, each row
    chunk a :class:`~svmteach.problems.MulticlassProblem` where it lives (module docstring): the problem
    ``MulticlassProblem(X.compute(), ...)`` is, never gathered.  Immutable.

    Parameters
    ----------
    X : dask array (n, d), NumPy or SciPy sparse chunks;  y : (n,) dask array or array;
    C, loss, M, bias : as for :class:`~svmteach.problems.MulticlassProblem`;
    sample_weight : (n,) dask array, array or None;  class_weight : None, "balanced" or {label: weight}, as the
    estimators take it;  executor : where the parts live (None: :func:`current_executor`, the current
    ``dask.distributed`` client, else this process).

    Attributes
    ----------
    :class:`ChunkedProblem`'s, and k, loss, M: a MulticlassProblem's.
    """

    def __init__(self, X, y, C: float = 1.0, loss: str | MulticlassLoss = "ww", M: float = 1.0,
                 sample_weight=None, bias: float | None = None, class_weight=None, executor=None) -> None:
        M = check_positive(M, "M")
        loss = get_loss(loss).name
        self._build(X, y, C, sample_weight, bias, class_weight, executor, loss=loss, M=M)

    @property
    def k(self) -> int:
        return len(self.classes)

    @property
    def loss_object(self) -> MulticlassLoss:
        return get_loss(self.loss)

    def __repr__(self):
        return (f"ChunkedMulticlassProblem(n_samples={self.n_samples}, n_features={self.n_features}, k={self.k}, "
                f"parts={self.n_parts}, loss={self.loss!r}, C={self.C:g})")


class ChunkedBinaryProblem(ChunkedProblem):
    """A linear binary SVM (no unpenalised bias: the intercept, if any, is the constant feature ``bias``) on a
    dask array X chunked by rows, each row chunk a :class:`~svmteach.problems.BinaryProblem` where it lives
    (module docstring): the problem ``BinaryProblem(X.compute(), ...)`` is, never gathered.  Immutable.

    Parameters
    ----------
    X : dask array (n, d), NumPy or SciPy sparse chunks;  y : (n,) dask array or array of exactly two labels
    (``classes[1]`` coded +1);  C, bias : as for :class:`~svmteach.problems.BinaryProblem`;
    sample_weight, class_weight, executor : as for :class:`ChunkedMulticlassProblem`.

    Attributes
    ----------
    :class:`ChunkedProblem`'s.
    """

    binary = True

    def __init__(self, X, y, C: float = 1.0, sample_weight=None, bias: float | None = None, class_weight=None,
                 executor=None) -> None:
        self._build(X, y, C, sample_weight, bias, class_weight, executor)

    def __repr__(self):
        return (f"ChunkedBinaryProblem(n_samples={self.n_samples}, n_features={self.n_features}, "
                f"parts={self.n_parts}, C={self.C:g})")
