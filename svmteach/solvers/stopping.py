"""The stopping policy, :class:`StoppingRule`, written once: :func:`~svmteach.solvers.base.solve` drives
one over a run, and every ``advance(problem, state, n_steps, tol)`` consults one for its "measure, then
stop if the gap reached tol".

**What a measure decides.**  A run stops only on a measured state whose ``solver.converged(state, tol)``
says yes (:func:`gap_reached`: a relative duality gap at most ``tol``; NaN never; below ``-NEGATIVE_GAP``
an infeasible state).  A state's running gap (kept by its steps, not measured) is a reason to measure,
never to stop.

**When solve measures (the cheap stop).**  Measuring costs about an epoch, so :func:`solve` measures
only when the solver's free ``violation`` is at most a threshold: first ``KKT_PER_TOL * tol`` (0.1 at tol
1e-3, LIBLINEAR's default ``eps``), then lowered by :func:`next_threshold_factor` after each measure that
finds the gap above ``tol``; and at the latest after ``max(MIN_CHUNKS_BETWEEN_MEASURES, chunks / 2)``
chunks without one, so a stalled violation cannot hide a converged run (O(log) measures in all).  Without
the cheap stop (``record_history=True``, ``fast=False``) it measures after every chunk.

**When solve gives up, not converged.**  On a measured NaN gap (nothing later can certify one), and, for
a ``still_is_fixed_point`` solver, after an epoch that moved no dual variable.
"""

from __future__ import annotations

import math
from typing import Any

#: The cheap stop's first threshold on ``violation``, per unit of ``tol`` (0.1 at tol = 1e-3).
KKT_PER_TOL = 100.0
#: The cheap stop measures at the latest after this many chunks, or half the chunks so far if more.
MIN_CHUNKS_BETWEEN_MEASURES = 4

#: A relative duality gap below minus this cannot come from rounding: weak duality says
#: P(w) >= D(alpha) for every feasible pair, so the state is not feasible for the problem.
NEGATIVE_GAP = 1e-8


class InfeasibleStateError(ValueError):
    """A state whose dual exceeds its primal: it is not a feasible point of the problem."""


def gap_reached(gap: float, tol: float) -> bool:
    """True when the relative duality gap is at most ``tol``; NaN is never converged.

    Raises :class:`InfeasibleStateError` for a gap below ``-NEGATIVE_GAP`` (a dual above
    the primal), which an infeasible state reports and no feasible one can.
    """
    gap = float(gap)
    if gap < -NEGATIVE_GAP:
        raise InfeasibleStateError(
            f"the relative duality gap is {gap:.3g} < 0: the dual exceeds the primal, so the state is not "
            "feasible for this problem (a state from another problem or C?)"
        )
    return gap <= tol


def next_threshold_factor(gap: float, tol: float) -> float:
    """How much smaller a violation the cheap stop asks for after a measure at which the gap was still above tol.

    Near an optimum the gap shrinks as the square of the gradient, so the violation that gives
    ``tol`` is about ``violation * sqrt(tol / gap)``; clipped to [1/4, 9/10] (each measure costs
    about an epoch; the estimate supports no bigger jump).  A NaN gap asks for half.
    """
    if not (gap > 0 and math.isfinite(gap)):
        return 0.5
    return min(max(math.sqrt(tol / gap), 0.25), 0.9)


class StoppingRule:
    """When ``solver`` measures ``problem``'s states and when a measure stops the run (module docstring).

    Parameters
    ----------
    solver, problem : the run's solver and problem; the rule calls ``solver.measure``,
        ``solver.converged``, ``solver.violation`` and ``solver.steps_per_epoch``.
    tol : float or None
        The relative duality gap that stops the run; None: nothing stops it (``advance`` without tol).
    cheap : bool
        Measure by the cheap stop's schedule in :meth:`after_chunk`; False: after every chunk.
    state : the run's first state, or None
        With a ``still_is_fixed_point`` solver, where the fixed-point watch of :meth:`gives_up` starts.
    """

    def __init__(self, solver: Any, problem: Any, tol: float | None, cheap: bool = False, state: Any = None) -> None:
        self.solver, self.problem, self.tol, self.cheap = solver, problem, tol, cheap
        self.threshold = math.nan if tol is None else KKT_PER_TOL * tol  # the cheap stop's, on violation
        self.chunks = self.unmeasured = self.measured_at = 0  # chunks so far; since the last measure; at it
        # the fixed-point watch: alpha an epoch ago, and the steps since
        watch = state is not None and solver.still_is_fixed_point
        self.last_alpha = problem.xp.asarray(state.alpha, copy=True) if watch else None
        self.epoch = solver.steps_per_epoch(problem) if watch else None
        self.since = 0

    @property
    def watching(self) -> bool:
        """Whether a tol was given: without one nothing is measured and nothing stops."""
        return self.tol is not None

    def reached(self, state: Any) -> bool:
        """Whether the measured ``state``'s gap reached tol: ``solver.converged(state, tol)``."""
        return self.tol is not None and bool(self.solver.converged(state, self.tol))

    def hints(self, state: Any) -> bool:
        """Whether an unmeasured ``state``'s running gap asks for a measure: it reached tol, or it is below
        ``-NEGATIVE_GAP`` (a running gap's rounding is no proof of infeasibility; the measure decides)."""
        try:
            return self.reached(state)
        except InfeasibleStateError:
            return True

    def measured(self, state: Any) -> tuple[Any, bool]:
        """``(state measured, whether its gap stops the run)``."""
        state = self.solver.measure(self.problem, state)
        self.unmeasured, self.measured_at = 0, self.chunks
        return state, self.reached(state)

    def steps(self, step, state: Any, n_steps: int, every: int | None) -> Any:
        """``n_steps`` calls of ``step`` (an ``advance`` by the step path): a state is measured when its running
        gap :meth:`hints` so, or every ``every`` steps (None: never) but the last (its caller measures that);
        stops at the first measured state that :meth:`reached` tol."""
        for k in range(1, int(n_steps) + 1):
            state = step(state)
            periodic = self.watching and every is not None and k % every == 0 and k < n_steps
            if self.hints(state) or periodic:
                state, stop = self.measured(state)
                if stop:
                    break
        return state

    # ---- solve's schedule ---------------------------------------------------------------------------

    def done(self, state: Any) -> bool:
        """Whether solve stops here, converged: ``state`` is measured and its gap reached tol."""
        return self.unmeasured == 0 and self.reached(state)

    def after_chunk(self, state: Any) -> Any:
        """The state after one more chunk of solve, measured when the cheap stop (or, without it, always) says."""
        self.chunks += 1
        self.unmeasured += 1
        violation = float(self.solver.violation(state)) if self.cheap else math.nan
        small = not violation > self.threshold  # NaN (no cheap measure) counts as small: measure
        if not self.cheap or small or self.unmeasured >= max(MIN_CHUNKS_BETWEEN_MEASURES, self.measured_at // 2):
            state, stop = self.measured(state)
            if self.cheap and small and violation == violation and not stop:
                self.threshold = violation * next_threshold_factor(float(state.gap), self.tol)
        return state

    def gives_up(self, state: Any, n_steps: int) -> bool:
        """Whether solve stops, not converged, after a chunk of ``n_steps`` that led to ``state``: its measured
        gap is NaN, or a whole epoch since the last look moved no dual variable (the fixed-point watch)."""
        if self.unmeasured == 0 and math.isnan(float(state.gap)):
            return True
        self.since += n_steps
        if self.last_alpha is not None and self.since >= self.epoch:
            xp = self.problem.xp
            if bool(xp.all(state.alpha == self.last_alpha)):
                return True
            self.last_alpha, self.since = xp.asarray(state.alpha, copy=True), 0
        return False
