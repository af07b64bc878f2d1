"""The two problems, binary and multiclass: the data and the model's constants, which solvers only read.

The constructor validates every argument (:mod:`svmteach.validation`, raising naming it) and sets each
attribute once; writing or deleting one afterwards raises ``AttributeError``.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .backend import array_namespace, is_numpy
from .kernels import (Kernel, canonical_kernel_name, check_kernel_finite, check_kernel_psd, gram, kernel_diagonal,
                      make_kernel)
from .losses import MulticlassLoss, get_loss
from .rows import DesignMatrix, is_sparse, row_squared_norms, stored
from .validation import (check_bias, check_C, check_labels, check_positive, check_sample_weight, check_squared_norms,
                         part_labels,
                         check_X, placed, readonly, readonly_view, with_bias_column)


#: Above this many samples, ``BinaryProblem.kernel_row`` computes rows one at a time, not the (n, n) matrix.
FULL_GRAM_UP_TO = 4096

class Problem:
    """What both problems share: attributes set once by :meth:`_build`, and the data's namespace and sizes.

    The arrays computed on first use (``gram``, ``Q``, ``diag``, :func:`functools.cached_property`) depend
    on the data alone, never on C, so :meth:`with_C` shares those already computed.
    """

    def _build(self, *, C: float, **fields):
        """Set the validated ``fields``, ``C`` and the per-sample bounds :math:`C_i = C w_i` (all C without weights)."""
        vars(self).update(fields, C=C)
        weight, xp = fields["sample_weight"], self.xp  # the namespace of the data just set (``design``)
        if weight is not None and not math.isfinite(C * float(xp.max(weight))):  # refused, not inf bounds
            raise ValueError(f"C={C:g} times sample_weight (up to {float(xp.max(weight)):.3g}; an estimator's "
                             "class_weight included) overflows: each sample's bound C_i = C w_i must be finite in "
                             "float64; use a smaller C or smaller weights")
        C_i = xp.full(self.n_samples, C, dtype=xp.float64) if weight is None else C * weight
        vars(self)["C_i"] = readonly(C_i)

    def __setattr__(self, name, value):
        raise AttributeError(f"{name} cannot be set: a {type(self).__name__} is immutable once built; "
                             "use with_C(C) for another C, or build a new problem")

    def __delattr__(self, name):
        raise AttributeError(f"{name} cannot be deleted: a {type(self).__name__} is immutable once built")

    def built_fields(self) -> dict:
        """The fields :meth:`_build` set, without the arrays computed on first use (which are of the whole data)."""
        computed = {name for cls in type(self).__mro__ for name, v in vars(cls).items() if isinstance(v, cached_property)}
        return {name: v for name, v in vars(self).items() if name not in computed}

    def with_C(self, C: float) -> Problem:
        """The same problem with another C (validated), sharing every array; the bounds ``C_i`` made again."""
        new = object.__new__(type(self))
        new._build(C=check_C(C), **{k: v for k, v in vars(self).items() if k not in ("C", "C_i")})
        return new

    @property
    def xp(self) -> Any:
        """The array namespace of X (NumPy for a sparse X)."""
        return np if is_sparse(self.design) else array_namespace(stored(self.design))

    @property
    def n_samples(self) -> int:
        return int(self.design.shape[0])

    @property
    def n_features(self) -> int:
        """The columns of X, its bias column included."""
        return int(self.design.shape[1])

    def __repr__(self):
        shown = [("loss", self.loss)] if "loss" in vars(self) else []
        if "loss" not in vars(self) or not self.kernel.is_linear:  # a binary problem's kernel, or a multiclass one's
            shown.append(("kernel", self.kernel))
        named = ", ".join(f"{name}={value!r}" for name, value in shown)
        return f"{type(self).__name__}(n_samples={self.n_samples}, n_features={self.n_features}, C={self.C:g}, {named})"


class BinaryProblem(Problem):
    """A binary soft-margin SVM problem, immutable (``with_C(C)``: the same problem with another C).

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
        Where the arrays, and so the solvers, live: None keeps X where it is (any array-API library);
        "gpu" copies it to CuPy, "cpu" to NumPy, "auto" picks the GPU when there is one.
    sample_weight : array of shape (n,) or None
        Non-negative weights: sample i's penalty (dual box bound) is :math:`C_i = C w_i`.  None: C.
    bias : float or None
        Linear kernel only: append a constant feature of this value to X (LIBLINEAR's ``-B``), an
        intercept penalised with w.  None: X as given.
    classes : array of shape (2,) or None
        The two labels of the whole data set when this problem is a part of it (a row chunk of a dask array,
        :mod:`svmteach.chunked_problem`): y's labels must be among them, a part may hold one of them only, and
        its weights may all be 0.  None: the labels found in y.

    Attributes
    ----------
    X : (n, d) float64, (n, d + 1) with a bias column;  y : (n,) float64 in {-1, +1};  classes : (2,) original labels;
    C_i : (n,) float64, each sample's box bound :math:`C w_i`;
    kernel : Kernel;  gram : (n, n) kernel matrix (computed on first use);
    Q : (n, n) ``y_i y_j K_ij`` (on first use);  diag : (n,) ``K_ii``;
    gamma, degree, coef0 : the kernel's.
    """


    def __init__(self, X: ArrayLike, y: ArrayLike, C: float = 1.0, kernel: str | Kernel = "linear",
                 gamma: float | str = "scale", degree: int = 3, coef0: float = 1.0, device: str | None = None,
                 sample_weight: ArrayLike | None = None, bias: float | None = None,
                 classes: ArrayLike | None = None) -> None:
        X = placed(X, device)
        sparse = is_sparse(X)
        bias = check_bias(bias)
        X = check_X(X, "X", dtype=np.float64 if sparse or is_numpy(array_namespace(X)) else None, accept_sparse=True,
                    bias=bias)
        part = classes is not None
        classes, codes = check_labels(y, X.shape[0], "y") if classes is None else part_labels(y, X.shape[0], classes)
        if len(classes) < 2:
            raise ValueError(f"y has one class ({classes[0]!r}); a binary SVM needs exactly two")
        if len(classes) > 2:
            raise ValueError(
                f"y has {len(classes)} classes. Only binary classification is supported. The type of the target "
                "is multiclass: use MulticlassProblem / MulticlassSVC for more than two classes"
            )
        xp = array_namespace(X)
        kernel_name = getattr(kernel, "name", None) or canonical_kernel_name(kernel)
        if sparse and kernel_name != "linear":
            raise TypeError(f"X is sparse, which the {kernel_name} kernel does not take: sparse "
                            "data is for the linear kernel (kernel='linear'); pass X.toarray() for another kernel")
        if bias is not None and kernel_name != "linear":
            raise ValueError(f"bias={bias:g} appends a constant feature to X, which is an intercept for the linear "
                             f"kernel only, not for kernel={kernel_name!r} (SMO's unpenalised bias b serves every kernel)")
        kernel = make_kernel(kernel, gamma, degree, coef0, X)
        cached = {}
        if sparse:  # the linear kernel: its diagonal is the squared norms, computed once here
            diag = row_squared_norms(X)
            if not math.isfinite(4.0 * float(np.max(diag))):
                raise ValueError("kernel='linear' overflows on X: its Gram matrix has infinite entries; rescale X")
            cached["diag"] = readonly(diag)  # the cached property, already known
        else:
            check_kernel_finite(X, kernel)
            check_kernel_psd(X, kernel)
        self._build(X=X, y=readonly(xp.asarray(np.where(codes == 1, 1.0, -1.0), dtype=X.dtype)), C=check_C(C),
                    sample_weight=check_sample_weight(sample_weight, X.shape[0], xp, all_zero=part), bias=bias,
                    kernel=kernel,
                    classes=classes, device=device, **cached)

    @property
    def design(self) -> Any:
        """The matrix the model multiplies, as :mod:`svmteach.rows` takes it: X itself (its bias column stored)."""
        return self.X

    @property
    def gamma(self) -> float:
        """The kernel's gamma (a number, ``'scale'`` resolved)."""
        return self.kernel.gamma

    @property
    def degree(self) -> int:
        """The polynomial kernel's degree."""
        return self.kernel.degree

    @property
    def coef0(self) -> float:
        """The polynomial kernel's constant."""
        return self.kernel.coef0

    @cached_property
    def gram(self) -> Any:
        """The (n, n) kernel matrix, computed once and made exactly symmetric."""
        K = gram(self.X, self.X, self.kernel)
        K = K.toarray() if is_sparse(K) else K
        return readonly(0.5 * (K + K.T))  # BLAS may round K_ij and K_ji differently

    @cached_property
    def Q(self) -> Any:
        """The (n, n) dual Hessian :math:`Q_{ij} = y_i y_j K_{ij}`, computed once."""
        return readonly(self.y[:, None] * self.gram * self.y[None, :])

    @cached_property
    def diag(self) -> Any:
        """The (n,) diagonal :math:`K_{ii}`."""
        return readonly(kernel_diagonal(self.X, self.kernel))  # a sparse X's is set by the constructor

    def kernel_row(self, i: int) -> Any:
        """Row i of the kernel matrix, shape (n,), on the problem's device.

        Read from the cached matrix when it exists or n is at most ``FULL_GRAM_UP_TO``;
        above that (a large problem on a GPU, say) it is computed alone, in O(nd).
        """
        if "gram" in vars(self) or self.n_samples <= FULL_GRAM_UP_TO:
            return self.gram[i, :]
        return gram(self.X[i : i + 1, :], self.X, self.kernel)[0, :]

    def kernel_with(self, Z: ArrayLike) -> Any:
        """Kernel matrix between the training points and new points ``Z``: shape (n, len(Z))."""
        return gram(self.X, Z, self.kernel)


class MulticlassProblem(Problem):
    r"""A multiclass SVM, linear or with a kernel, immutable: :math:`\min_W \tfrac12 \|W\|_F^2 + \sum_i C_i \ell_i(W)`
    with the loss :math:`\ell_i` of a module of :mod:`svmteach.losses` (its table lists them), the scores
    :math:`w_m^\top \phi(x_i)` in the kernel's feature space (no bias but the optional constant feature ``bias``).

    Parameters
    ----------
    X : array of shape (n, d)
        float32 stays float32 (half the memory traffic); anything else becomes float64.
    y : array of shape (n,)
        At least two distinct labels of any type.
    C : float
        Positive, finite penalty.
    loss : {"ww", "cs", "llw", "mmr"}
        The loss's name, a key of :data:`svmteach.losses.LOSSES`; ``loss_object`` is the loss itself.
    M : float
        The Weston-Watkins margin scale, > 0 (1: Keerthi et al.; 1/2: Shark's); the other losses ignore it.
    device : {None, "cpu", "gpu", "auto"}
        As for :class:`BinaryProblem`; on "gpu", keep X float32 for speed (the linear kernel's; another kernel's X
        is float64 everywhere, and on a GPU its kernel entries are made there: :class:`~svmteach.solvers.WorkingSet`).
    sample_weight : array of shape (n,) or None
        Non-negative weights: sample i's loss is multiplied by :math:`C_i = C w_i`.  None: C.
    bias : float or None
        An intercept per class, penalised with W, as a constant feature B (LIBLINEAR's ``-B``): appended to X
        for the linear kernel; for another kernel, :math:`\phi(x)` extended by B, which adds :math:`B^2` to
        every kernel value (``kernel_offset``).  None: the course's problem.
    kernel, gamma, degree, coef0 :
        See :func:`svmteach.kernels.make_kernel`.  With a kernel other than the linear one the weights live in
        the kernel's feature space, :math:`w_m = \sum_i A_{im} \phi(x_i)`, and the solvers keep the training
        scores :math:`S = K A(\alpha)` in their place (:mod:`svmteach.multiclass_model`); X must then be dense
        NumPy (float64).
    copy : bool
        True: the problem keeps a read-only copy of X.  False (the estimators' fits): X itself, behind a read-only
        view, when it needs no conversion (C-contiguous float32 or float64, a CSR in canonical form); the caller
        must then not change X while the problem is in use.
    classes : array of shape (k,) or None
        The labels of the whole data set when this problem is a part of it (a row chunk of a dask array,
        :mod:`svmteach.chunked_problem`): y's labels must be among them, a part may lack some classes, and its
        weights may all be 0.  None: the labels found in y.

    Attributes
    ----------
    design : :class:`~svmteach.rows.DesignMatrix`, X and the linear kernel's bias, the column never stored: what
    the solvers read (:mod:`svmteach.rows`);
    X : (n, d), (n, d + 1) with a linear kernel's bias column, made on first use (a copy: for small problems and
    figures);  codes : (n,) int64 class index of each sample;
    classes : (k,) labels;  C_i : (n,) float64, each sample's :math:`C w_i`;  k : int;
    kernel : Kernel;  kernel_offset : float, :math:`B^2` added to a nonlinear kernel (0 otherwise);
    sqnorm : (n,) float64, :math:`\|\phi(x_i)\|^2`: the squared norms of the rows (linear), :math:`K_{ii} + B^2`
    (another kernel), the curvature of sample i's block;  gram : (n, n) :math:`K + B^2` (on first use; small problems).
    """


    def __init__(self, X: ArrayLike, y: ArrayLike, C: float = 1.0, loss: str | MulticlassLoss = "ww", M: float = 1.0,
                 device: str | None = None, sample_weight: ArrayLike | None = None, bias: float | None = None,
                 kernel: str | Kernel = "linear", gamma: float | str = "scale", degree: int = 3,
                 coef0: float = 1.0, copy: bool = True, classes: ArrayLike | None = None) -> None:
        loss = get_loss(loss).name
        bias = check_bias(bias)
        kernel_name = getattr(kernel, "name", None) or canonical_kernel_name(kernel)
        X = placed(X, device)
        if kernel_name == "linear":
            X = readonly_view(check_X(X, "X", accept_sparse=True, copy=copy))  # the bias column is never stored
            kernel = make_kernel("linear")
        else:
            X = check_kernel_X(X, kernel_name)
            kernel = make_kernel(kernel, gamma, degree, coef0, X)
            check_kernel_finite(X, kernel)
            check_kernel_psd(X, kernel)
            if bias is not None and not math.isfinite(bias * bias):
                raise ValueError(f"bias={bias:g} adds bias**2 to every kernel value, which overflows; use a smaller "
                                 "intercept_scaling")
        part = classes is not None
        classes, codes = check_labels(y, X.shape[0], "y") if classes is None else part_labels(y, X.shape[0], classes)
        if len(classes) < 2:
            raise ValueError(f"y has one class ({classes[0]!r}); a classifier needs at least two")
        M = check_positive(M, "M")
        xp = np if is_sparse(X) else array_namespace(X)
        design = DesignMatrix(X, bias if kernel.is_linear else None)
        sqnorm = row_squared_norms(design, xp) if kernel.is_linear else kernel_diagonal(X, kernel) + kernel_offset(kernel, bias)
        sqnorm = check_squared_norms(sqnorm, xp)  # X's own overflow first, naming X
        if get_loss(loss).uses_M and not math.isfinite(2.0 * M * M * float(xp.max(sqnorm))):
            raise ValueError(f"M={M:g} overflows: the blocks' curvature M**2 |x_i|^2 (M**2 = {M * M:.3g}, the largest "
                             f"|x_i|^2 = {float(xp.max(sqnorm)):.3g}) is beyond float64's range; use a smaller M (the "
                             "problem with M and C is the one with M=1 and C M**2, W scaled by 1/M: the same classifier)")
        self._build(design=design, C=check_C(C), loss=loss, M=M, device=device,
                    sample_weight=check_sample_weight(sample_weight, X.shape[0], xp, all_zero=part), bias=bias,
                    classes=classes,
                    codes=readonly(xp.asarray(codes.astype(np.int64))), kernel=kernel,
                    sqnorm=readonly(sqnorm))

    @property
    def k(self) -> int:
        return len(self.classes)

    @cached_property
    def X(self) -> Any:
        """The (n, d + 1) matrix ``[X, B 1]`` of the linear kernel's bias column (X itself without one), made on first
        use: the interior-point method and figures read it; the solvers' steps, the measures and the parallel solver
        read ``design``, which stores no bias column."""
        return with_bias_column(self.design.data, self.design.bias)

    @property
    def loss_object(self) -> MulticlassLoss:
        """The :class:`~svmteach.losses.base.MulticlassLoss` called ``loss``."""
        return get_loss(self.loss)

    @property
    def kernel_offset(self) -> float:
        """:math:`B^2`, added to a nonlinear kernel by the intercept's constant feature (0 without one, and for the
        linear kernel, whose bias is a column of X)."""
        return kernel_offset(self.kernel, self.bias)

    @cached_property
    def gram(self) -> Any:
        """The (n, n) matrix :math:`K + B^2` (``kernel_offset``), computed once and made exactly symmetric: for
        the interior-point method and checks on small problems (the coordinate solvers read rows of it, never all)."""
        K = gram(self.X, self.X, self.kernel)
        K = K.toarray() if is_sparse(K) else K
        return readonly(0.5 * (K + K.T) + self.kernel_offset)

    def kernel_row(self, i: int) -> Any:
        """Row i of the kernel matrix K (without :math:`B^2`), shape (n,), on the problem's device: the epochs' step
        path off NumPy (where no compiled row cache runs) reads it so, in O(nd)."""
        return gram(self.X[i : i + 1, :], self.X, self.kernel)[0, :]

    def kernel_with(self, Z: ArrayLike) -> Any:
        """The (len(Z), n) matrix :math:`k(z, x_i) + B^2` between new points ``Z`` and the training points."""
        return gram(Z, self.X, self.kernel) + self.kernel_offset


def kernel_offset(kernel: Kernel, bias: float | None) -> float:
    """:math:`B^2` for a nonlinear kernel with the intercept's constant feature ``bias``, else 0."""
    return 0.0 if kernel.is_linear or bias is None else float(bias) * float(bias)


def check_kernel_X(X, kernel_name: str):
    """X for a nonlinear kernel: dense float64, in NumPy or on a device (CuPy: the working sets make the kernel
    entries there, :class:`~svmteach.solvers.WorkingSet`), or an error naming X and the kernel."""
    if is_sparse(X):
        raise TypeError(f"X is sparse, which the {kernel_name} kernel does not take: sparse data is for the linear "
                        "kernel (kernel='linear'); pass X.toarray() for another kernel")
    xp = array_namespace(X)
    return check_X(X, "X", dtype=np.float64 if is_numpy(xp) else xp.float64)
