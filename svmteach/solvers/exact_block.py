"""One sample's block solved exactly per step, for any multiclass loss.

With everything but sample i's dual variables fixed, the dual is a small quadratic over its block
(box or simplex of :math:`C_i`, ``problem.C_i``), which every loss solves exactly (Weston-Watkins by
sorting breakpoints, Wang and Scott 2021; Crammer-Singer by a simplex projection, Blondel, Fujino
and Ueda 2014; Lee-Lin-Wahba by the root of a piecewise-linear equation), in its compiled row kernel (its
``kernels``, in the loss's module: :mod:`~svmteach.losses.row_kernels`); the loss draws the picture
(``block_picture``).  W follows: :math:`W \\leftarrow W + A(\\delta)^\\top x_i`, where
:math:`W = A(\\alpha)^\\top X` is the loss's ``weight_rows``.

:class:`WWExact` and :class:`CSBlondel` are this solver restricted to one loss (the names the
course uses); CSBlondel adds Blondel's ``skip_tol``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..losses import CrammerSinger, MulticlassLoss, WestonWatkins
from ..losses.base import row_kernels
from ..losses.row_kernels import params
from ..problems import MulticlassProblem
from .base import check_tol
from .multiclass_base import MulticlassSolver, MulticlassState


class ExactBlockState(MulticlassState):
    """State of :class:`ExactBlock`: :class:`MulticlassState`, with ``block`` the loss's ``Block`` picture
    of the last step (:class:`~svmteach.losses.weston_watkins.WWBlock`,
    :class:`~svmteach.losses.crammer_singer.CSBlock` or :class:`~svmteach.losses.lee_lin_wahba.LLWBlock`)."""

    __slots__ = ()


class ExactBlock(MulticlassSolver):
    """Exact block coordinate descent on the dual of any multiclass loss (see the module).

    Parameters
    ----------
    random_state : int, Generator or None
        Seeds the visiting orders.
    shrinking : bool
        Set aside the samples at rest (:mod:`~svmteach.solvers.multiclass_base`).
    order : {"adaptive", "shuffled"}
        How a shrunk epoch visits its active samples: by their preferences (adaptive coordinate frequencies), or
        each once as LIBLINEAR (:mod:`~svmteach.solvers.multiclass_base`).
    """

    State = ExactBlockState
    name = "exact"

    def blank_block(self, problem: MulticlassProblem) -> NamedTuple:
        return problem.loss_object.blank_block(problem)

    @classmethod
    def solves(cls, loss: MulticlassLoss) -> bool:
        """Whether this solver solves ``loss``: one with its own compiled row kernels
        (:func:`~svmteach.losses.base.row_kernels`)."""
        return super().solves(loss) and row_kernels(loss) is not None

    def block_kernels(self, problem: MulticlassProblem):
        return row_kernels(problem.loss_object)

    def picture(self, problem: MulticlassProblem, y: int, q: float, C: float, old: np.ndarray, new: np.ndarray,
                numbers: np.ndarray, record: np.ndarray, violation: float, moves: int) -> NamedTuple:
        return problem.loss_object.block_picture(y, q, C, old, new, numbers, violation, moves)


class WWExactState(ExactBlockState):
    """State of :class:`WWExact`: as :class:`ExactBlockState`, ``block`` a
    :class:`~svmteach.losses.weston_watkins.WWBlock` (y, grad, u, breakpoints, t, beta, delta)."""

    __slots__ = ()


class WWExact(ExactBlock):
    """:class:`ExactBlock` on the Weston-Watkins dual (Wang and Scott 2021), any M > 0."""

    State = WWExactState
    loss_class = WestonWatkins


class CSBlondelState(ExactBlockState):
    """State of :class:`CSBlondel`: as :class:`ExactBlockState`, ``block`` a
    :class:`~svmteach.losses.crammer_singer.CSBlock` (y, grad, violation, skipped, beta_hat, z, beta,
    theta, delta)."""

    __slots__ = ()


class CSBlondel(ExactBlock):
    """Blondel's block coordinate descent for the Crammer-Singer dual.

    Parameters
    ----------
    skip_tol : float
        Samples whose violation v_i is at most this are skipped (Algorithm 3, line 10).
        The default 0 skips only exactly optimal samples: any positive value caps the reachable gap.
    random_state : int, Generator or None
    shrinking : bool
        As :class:`ExactBlock`.
    order : {"shuffled", "adaptive"}
        As :class:`ExactBlock`, but LIBLINEAR's ``"shuffled"`` by default: measured (``benchmarks/RESULTS.md``,
        issue 47), adaptive frequencies saved Crammer-Singer a quarter of the time on MNIST, digits and sparse text
        and cost it 1.3x the visits on generated 12-class problems, where Weston-Watkins gained everywhere.
    """

    State = CSBlondelState
    loss_class = CrammerSinger
    name = "blondel"

    def __init__(self, skip_tol: float = 0.0, random_state: int | np.random.Generator | np.random.RandomState | None = None,
                 shrinking: bool = True, order: str = "shuffled") -> None:
        super().__init__(random_state, shrinking, order=order)
        self.skip_tol = check_tol(skip_tol, "skip_tol")

    def shrink_floor(self) -> float:
        """Above ``skip_tol``: blocks within it are never stepped on, so a shrunk epoch's violation may
        stay just under it."""
        return max(super().shrink_floor(), 2.0 * self.skip_tol)

    def kernel_params(self, problem: MulticlassProblem) -> tuple[float, float, int]:
        return params(problem.M, inner_tol=self.skip_tol)
