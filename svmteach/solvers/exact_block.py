"""One sample's block solved exactly per step, for any multiclass loss.

With everything but sample i's dual variables fixed, the dual is a small quadratic over the
sample's block; every loss of :mod:`svmteach.losses` solves it exactly (Weston-Watkins by
sorting breakpoints, Wang and Scott 2021; Crammer-Singer by a simplex projection, Blondel,
Fujino and Ueda 2014; Lee-Lin-Wahba by the root of a piecewise-linear equation).  This solver
visits the samples in a random order each epoch and asks the problem's loss for that step:
``block_step`` on the step path (with its picture), ``epoch`` compiled on the fast path.  The
weights follow the step: :math:`W \\leftarrow W + A(\\delta)^\\top x_i` for the change δ of
:math:`\\alpha_i`, where :math:`W = A(\\alpha)^\\top X` is the loss's ``weight_rows``.  Sample i's
block lives in the box or simplex of its own penalty :math:`C_i` (``problem.C_i``: C times its
sample weight).

:class:`WWExact` and :class:`CSBlondel` are this solver restricted to one loss (the names the
course uses); CSBlondel adds Blondel's ``skip_tol``.
"""

from __future__ import annotations

from ..losses import CrammerSinger, WestonWatkins
from .base import check_tol
from .multiclass_base import MulticlassSolver, MulticlassState, replace_row, sample_arrays


class ExactBlockState(MulticlassState):
    """State of :class:`ExactBlock`: the fields of :class:`MulticlassState` (n_iter, alpha, W, epoch,
    pos, perm, seed, i, primal, dual, gap, kkt, violation, block), with ``block`` the loss's ``Block`` picture of
    the last step (:class:`~svmteach.losses.weston_watkins.WWBlock`,
    :class:`~svmteach.losses.crammer_singer.CSBlock` or :class:`~svmteach.losses.lee_lin_wahba.LLWBlock`)."""

    __slots__ = ()


class ExactBlock(MulticlassSolver):
    """Exact block coordinate descent on the dual of any multiclass loss (see the module).

    Parameters
    ----------
    random_state : int, Generator or None
        Seeds the visiting orders.
    shrinking : bool
        Set aside, on the fast path, the samples whose block is 0 with its loss 0 with room to spare
        (:mod:`~svmteach.solvers.multiclass_base`); False visits every sample every epoch.
    """

    State = ExactBlockState
    name = "exact"

    def blank_block(self, problem):
        return problem.loss_object.blank_block(problem)

    def block_options(self) -> dict:
        """Options passed to the loss's block step (none here; CSBlondel's ``skip_tol``)."""
        return {}

    def update(self, problem, state, i):
        xp, loss = problem.xp, problem.loss_object
        x, q, yi, s = sample_arrays(problem, state, i)
        alpha_i = state.alpha[i, :]
        new, block = loss.block_step(problem, alpha_i, s, q, yi, C=float(problem.C_i[i]), **self.block_options())
        row = loss.weight_rows(problem, (new - alpha_i)[None, :])[0, :]  # W moves by A(delta)' x_i
        return state._replace(alpha=replace_row(xp, state.alpha, i, new), W=state.W + row[:, None] * x[None, :],
                              block=block)

    def _epoch(self, problem, alpha, W, order, active, margin, classes):
        return problem.loss_object.epoch(problem, alpha, W, order, active=active, margin=margin, classes=classes,
                                         **self.block_options())


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
        The default 0 skips only samples that are exactly optimal: any positive threshold
        caps the accuracy the run can reach (a gap of 1e-8 at C = 100 with 1e-10).
    random_state : int, Generator or None
    shrinking : bool
        As :class:`ExactBlock`.
    """

    State = CSBlondelState
    loss_class = CrammerSinger
    name = "blondel"

    def __init__(self, skip_tol: float = 0.0, random_state=None, shrinking: bool = True):
        super().__init__(random_state, shrinking)
        self.skip_tol = check_tol(skip_tol, "skip_tol")

    def shrink_floor(self) -> float:
        """Above ``skip_tol``: blocks within it are never stepped on, so a shrunk epoch's violation may
        stay just under it."""
        return max(super().shrink_floor(), 2.0 * self.skip_tol)

    def block_options(self) -> dict:
        return {"skip_tol": self.skip_tol}
