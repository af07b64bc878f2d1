"""Weston-Watkins dual by Shark's coordinate steps (the blog post "The Weston-Watkins SVM dual problem", 2020; Shark's ``QpMcLinearWW``).

For sample i, with scores :math:`s = W x_i`, the negative gradient of the dual
(a minimisation) in coordinate :math:`j \\ne y_i` is (the blog post, 'Derivatives')

.. math::

    -\\frac{\\partial f}{\\partial \\alpha_{ij}} = 1 - M (s_{y_i} - s_j).

Moving :math:`\\alpha_{ij}` by m and :math:`\\alpha_{iy_i}` by -m (to stay feasible),
the dual changes by a parabola with curvature :math:`2 M^2 \\|x_i\\|^2`, so the greedy
step is :math:`m = -\\partial f / \\partial \\alpha_{ij} \\,/\\, (2 M^2 \\|x_i\\|^2)`
(the blog post, 'Greedy step size'), clipped to :math:`\\alpha_{ij} \\in [0, C_i]` (``problem.C_i``).
The step moves :math:`w_j` by :math:`-M m x_i` and :math:`w_{y_i}` by :math:`+M m x_i`,
so the negative gradient drops by :math:`2 M^2 m \\|x_i\\|^2` at j and by
:math:`M^2 m \\|x_i\\|^2` at every other :math:`t \\ne y_i` ('Computing the step vector').

The inner loop is Shark's: the visited sample's coordinate of largest KKT violation is stepped on
until the largest violation is below ``inner_tol`` or ``10 k`` moves were made (Shark's
``MAXITER_MULTIPLIER``).  One solver step is one sample visit, its moves all in the state.  Shark
uses M = 1/2; any M > 0 works.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..losses import WestonWatkins
from ..losses.row_kernels import params
from ..problems import MulticlassProblem
from . import numba_shark
from .base import check_max_iter, check_tol
from .multiclass_base import MulticlassSolver, MulticlassState

MAXITER_MULTIPLIER = 10
#: The inner loop, compiled with Shark's row kernel (:func:`~svmteach.solvers.numba_shark.shark_inner`).
shark_inner = numba_shark.shark_inner


class SharkMoves(NamedTuple):
    """The picture of one visit of :class:`WWShark` to a sample (empty before the first step).

    Attributes
    ----------
    y : int, the sample's class.
    grads : (n_moves + 1, k) the negative gradient before the first move and after each move
        (0 in the y column).
    moves_j : (n_moves,) int, the coordinate chosen by each move.
    moves_m_unclipped, moves_m : (n_moves,) the greedy step before and after clipping.
    delta : (k,) the total change of alpha_i.
    """

    y: int
    grads: np.ndarray
    moves_j: np.ndarray
    moves_m_unclipped: np.ndarray
    moves_m: np.ndarray
    delta: object


class WWSharkState(MulticlassState):
    """State of :class:`WWShark`: :class:`~svmteach.solvers.multiclass_base.MulticlassState`, with ``block``
    the :class:`SharkMoves` of the last visit."""

    __slots__ = ()


class WWShark(MulticlassSolver):
    """Shark's greedy coordinate steps on the Weston-Watkins dual.

    Parameters
    ----------
    inner_tol : float
        A sample's inner loop stops once its largest KKT violation is below this (Shark: 0.1 x its
        stopping accuracy); a larger value caps the gap the run can reach.
    max_inner : int or None
        Most moves per sample visit; None means Shark's ``10 k``.
    random_state : int, Generator or None
    shrinking : bool
        Set aside the samples at rest (:mod:`~svmteach.solvers.multiclass_base`).
    order : {"adaptive", "shuffled"}
        How a shrunk epoch visits its active samples (:mod:`~svmteach.solvers.multiclass_base`).
    """

    State = WWSharkState
    loss_class = WestonWatkins
    name = "shark"

    def __init__(self, inner_tol: float = 1e-12, max_inner: int | None = None,
                 random_state: int | np.random.Generator | np.random.RandomState | None = None, shrinking: bool = True,
                 order: str = "adaptive") -> None:
        super().__init__(random_state, shrinking, order=order)
        self.inner_tol = check_tol(inner_tol, "inner_tol")  # a violation: finite and >= 0 (float(-1) was taken)
        self.max_inner = None if max_inner is None else check_max_iter(max_inner, "max_inner")

    def _max_inner(self, problem):
        return MAXITER_MULTIPLIER * problem.k if self.max_inner is None else int(self.max_inner)

    def blank_block(self, problem: MulticlassProblem) -> NamedTuple:
        empty = np.zeros(0)
        return SharkMoves(y=-1, grads=np.zeros((0, problem.k)), moves_j=np.zeros(0, dtype=np.int64),
                          moves_m_unclipped=empty, moves_m=empty, delta=None)

    def block_kernels(self, problem: MulticlassProblem):
        return numba_shark.KERNELS

    def kernel_params(self, problem: MulticlassProblem) -> tuple[float, float, int]:
        return params(problem.M, self.inner_tol, self._max_inner(problem))

    def _record(self, problem):
        return np.zeros((self._max_inner(problem), problem.k + 3))

    def picture(self, problem: MulticlassProblem, y: int, q: float, C: float, old: np.ndarray, new: np.ndarray,
                numbers: np.ndarray, record: np.ndarray, violation: float, moves: int) -> NamedTuple:
        rec = record[: max(moves, 0)]
        return SharkMoves(y=y, grads=np.vstack([numbers[0][None, :], rec[:, 3:]]), moves_j=rec[:, 0].astype(np.int64),
                          moves_m_unclipped=rec[:, 1].copy(), moves_m=rec[:, 2].copy(), delta=new - old)

    def shrink_floor(self) -> float:
        """Above ``inner_tol``: a visit stops once its block's violation is below it."""
        return max(super().shrink_floor(), 2.0 * self.inner_tol)
