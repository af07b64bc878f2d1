"""The contract of a multiclass loss: what a solver, the objectives and an explorer may ask it.

Every multiclass SVM of the course has no bias (but a constant feature) and a dual over an (n, k)
matrix :math:`\\alpha` whose weights are a fixed linear map of it (written here for the linear kernel; with
another, X is the feature map and :math:`XX^\\top` the kernel matrix: :mod:`svmteach.multiclass_model`),

.. math::

    W(\\alpha) = A(\\alpha)^\\top X \\quad (k \\times d), \\qquad
    D(\\alpha) = \\ell(\\alpha) - \\tfrac12 \\|W(\\alpha)\\|_F^2 \\quad \\text{(maximised)},

with a linear term :math:`\\ell` and one constraint block per sample, bounded by :math:`C_i`
(``problem.C_i``, C times the sample's weight; 0 fixes the block at 0), the penalty of its loss.
A loss says what :math:`A`, :math:`\\ell`, the blocks and the primal are (:meth:`weight_rows`,
:meth:`dual_linear`, :meth:`bounds`, :meth:`sample_losses`); the rest is written once from those.
A solver asks ``problem.loss_object``, never the loss's name.  Its numbers (:meth:`dual_linear`,
:meth:`kkt_violation`, :meth:`primal`, :meth:`dual`) are scalars of the problem's namespace, not read to the host
(a float on NumPy; on a GPU a 0-d array, which a caller reads with others in one transfer:
:func:`svmteach.objectives.host_floats`).

The exact one-sample block step is the loss's compiled row kernel (``kernels``, a
:class:`~svmteach.losses.row_kernels.RowKernels` defined in the loss's own module; its numbers drawn by
:meth:`block_picture`), which every driver runs: the sequential solvers' compiled epochs, a step of the
explorers, the violations of a model, every block at once in the parallel solver (on the CPU or a GPU).

Adding a loss is one module defining a subclass with its row kernels and one line in
:data:`svmteach.losses.LOSSES`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import NamedTuple


from ..rows import times, transpose_times

from .row_kernels import EPS  # noqa: F401 - the one rule for a linear block, the array-API code reads it here


class Embedding(NamedTuple):
    """How a loss's dual is the interior-point method's programme over the free entries :math:`\\beta_i` of
    sample i.  ``entries = "off"``: :math:`\\beta_i \\in \\mathbb R^{k-1}` in the order of its off-label classes,
    :math:`\\alpha_{ij} = \\text{off}\\, \\beta_{ij}` (:math:`j \\ne y_i`), :math:`\\alpha_{iy_i} = \\text{label}\\;
    \\mathbf 1^\\top \\beta_i`; ``entries = "label"``: :math:`\\beta_i \\in \\mathbb R` the label entry alone,
    :math:`\\alpha_{iy_i} = \\text{label}\\, \\beta_i`, the others 0 (``off`` is 0).  :math:`\\beta_i` lies in the box
    :math:`[0, C_i]^{k'}` (``set = "box"``) or the simplex :math:`\\beta_i \\ge 0, \\mathbf 1^\\top \\beta_i \\le C_i`
    (``set = "simplex"``)."""

    off: float
    label: float
    set: str
    entries: str = "off"


class MulticlassLoss(ABC):
    """Base class of the multiclass losses (the contract: the module docstring).

    A subclass defines every abstract method and sets ``name`` (its registry key, the estimators'
    ``loss=``), ``title`` (for people), ``Block`` (the NamedTuple picture of one block step, with at least ``y``
    the sample's class and ``delta`` the change of its row: what the narration says of any block),
    ``default_solver``, ``kernels`` (its compiled row kernels, :mod:`~svmteach.losses.row_kernels`; None:
    the block solvers refuse it by name), ``uses_M``.
    """

    name = ""
    title = ""
    Block = None
    #: Whether the loss has the margin scale ``problem.M`` (Weston-Watkins; the others ignore it).
    uses_M = False
    default_solver = "exact"
    kernels = None
    #: The loss's dual as the interior-point programme (an :class:`Embedding`); None: the interior-point
    #: solver does not solve it.
    embedding = None
    #: Whether the primal has the constraint :math:`\\sum_m w_m = 0` (:meth:`weights` then re-centres W).
    sum_to_zero = False

    def __repr__(self):
        return f"{type(self).__name__}()"

    # ---- what a subclass defines -------------------------------------------------------------
    @abstractmethod
    def weight_rows(self, problem, alpha):
        """The (n, k) matrix :math:`A(\\alpha)` with :math:`W = A^\\top X` (linear in alpha)."""

    @abstractmethod
    def dual_linear(self, problem, alpha):
        """The linear term :math:`\\ell(\\alpha)` of the (maximised) dual (a scalar of the namespace)."""

    @abstractmethod
    def sample_losses(self, problem, S):
        """(n,) each sample's loss at scores ``S`` (n, k)."""

    @abstractmethod
    def gradient(self, problem, S):
        """(n, k) gradient of the minimisation dual :math:`f = -D` at scores :math:`S = X W^\\top`
        (0 in the columns that are not free variables)."""

    @abstractmethod
    def kkt_violation(self, problem, alpha, S):
        """The largest KKT violation at ``alpha`` with scores ``S``: 0 exactly at the optimum (a scalar of the
        namespace)."""

    @abstractmethod
    def bounds(self, problem):
        """``(lower, upper)``, (n, k) each: the box of alpha (infinite where an entry is free)."""

    @abstractmethod
    def feasible(self, problem, alpha):
        """The Euclidean projection of each row of ``alpha`` onto this loss's block set (a warm start)."""

    @abstractmethod
    def blank_block(self, problem):
        """The ``Block`` of a state that has taken no step yet."""

    @abstractmethod
    def block_picture(self, y, q, C, old, new, numbers, violation, moves):
        """The ``Block`` of one step of the loss's block kernel: sample of class ``y``, squared norm ``q``,
        bound ``C``, row ``old`` -> ``new``; ``numbers`` (3, k), ``violation`` and ``moves`` (-1: set aside by
        shrinking, 0: no step) as the kernel returned them."""

    @abstractmethod
    def dual_weights(self, problem, alpha):
        """(n,) one non-negative number per sample (the sum of its multipliers), for a bar chart."""

    @abstractmethod
    def dual_weight_bound(self, problem) -> float:
        """The largest value :meth:`dual_weights` can take (the bar chart's scale)."""

    # ---- written once from the above ---------------------------------------------------------
    def repair(self, problem, alpha):
        """``alpha`` after a parallel step, back in its bounds with the block's equality restored exactly
        (:meth:`feasible`, unless a loss can do it more cheaply)."""
        return self.feasible(problem, alpha)

    def weights(self, problem, alpha):
        """The (k, d) weights :math:`W(\\alpha) = A(\\alpha)^\\top X`, in float64; with :attr:`sum_to_zero` its
        columns re-centred: subtracting their rounding keeps :math:`\\sum_m w_m = 0` and a gap that is never
        negative at an optimum."""
        xp = problem.xp
        W = transpose_times(problem.design, self.weight_rows(problem, xp.astype(alpha, xp.float64)), xp).T
        return W - xp.mean(W, axis=0, keepdims=True) if self.sum_to_zero else W

    def primal(self, problem, W, S=None):
        """:math:`\\tfrac12 \\|W\\|_F^2 + \\sum_i C_i \\ell_i(W)`."""
        xp = problem.xp
        S = scores(problem, W) if S is None else S
        losses = self.sample_losses(problem, S)
        # without weights, C times the sum: the rounding of the unweighted primal
        penalty = problem.C * xp.sum(losses) if problem.sample_weight is None else xp.sum(problem.C_i * losses)
        return 0.5 * xp.sum(W * W) + penalty

    def dual(self, problem, alpha, W):
        """:math:`D(\\alpha) = \\ell(\\alpha) - \\tfrac12 \\|W\\|_F^2` at ``alpha`` with its weights ``W``."""
        xp = problem.xp
        return self.dual_linear(problem, alpha) - 0.5 * xp.sum(W * W)


#: The methods that say what a loss is (its primal and dual); the rest follows from them.
MATHEMATICS = ("weight_rows", "dual_linear", "sample_losses", "gradient", "bounds")


def mathematics_class(loss) -> type:
    """The class whose mathematics ``loss`` has: the most derived class of its type's ancestry that defines one
    of :data:`MATHEMATICS` (a subclass that only renames, or adds a solver default, keeps its parent's)."""
    return next(cls for cls in type(loss).__mro__ if any(name in vars(cls) for name in MATHEMATICS))


def row_kernels(loss):
    """``loss``'s compiled row kernels, or None when it has none, or when they were declared above the class
    whose mathematics it has (a subclass of Weston-Watkins that changes its gradient inherits kernels that
    would solve plain Weston-Watkins)."""
    owner = next((cls for cls in type(loss).__mro__ if "kernels" in vars(cls)), None)
    if owner is None or loss.kernels is None or not issubclass(owner, mathematics_class(loss)):
        return None
    return loss.kernels


# ---- helpers every loss uses ---------------------------------------------------------------------


def one_hot(problem):
    """(n, k) boolean matrix, True at (i, y_i)."""
    xp = problem.xp
    return problem.codes[:, None] == xp.arange(problem.k)[None, :]


def scores(problem, W):
    """(n, k) scores :math:`s_{im} = w_m^\\top x_i` in float64 (X dense or sparse, never copied whole)."""
    return times(problem.design, W.T, problem.xp)


def column_C(problem):
    """(n, 1) each sample's bound :math:`C_i`, to broadcast against (n, k) rows."""
    return problem.xp.reshape(problem.C_i, (-1, 1))


def box_violation_of(problem, alpha, G, entries):
    """The largest projected-gradient entry over the ``entries`` (an (n, k) boolean mask), each in its sample's
    box [0, C_i] (0 in a box {0}: nothing may move)."""
    xp, C = problem.xp, column_C(problem)
    pg = xp.where(alpha <= 0.0, xp.where(C > 0.0, xp.minimum(G, 0.0), 0.0),
                  xp.where(alpha >= C, xp.maximum(G, 0.0), G))
    return xp.max(xp.abs(xp.where(entries, pg, 0.0)))


def off_label_box_violation(problem, alpha, G):
    """:func:`box_violation_of` over the off-label entries (Weston-Watkins, Lee-Lin-Wahba)."""
    return box_violation_of(problem, alpha, G, ~one_hot(problem))
