"""The solver contract and the two drivers every solver shares: :func:`iterate` and :func:`solve`.

A solver holds hyperparameters only.  It offers

- ``init(problem) -> state``: the starting state;
- ``step(problem, state) -> state``: one pure step (never writes into ``state``
  or ``problem``), so that a list of states is a true film of the run;
- ``converged(state, tol) -> bool``: the stopping test on the state's own measure;
- ``advance(problem, state, n_steps) -> state``: ``n_steps`` steps at once, by the
  compiled fast path where there is one (the same mathematics as ``step``);
- ``measure(problem, state) -> state``: the state with its objectives evaluated;
- ``steps_per_epoch(problem)``: how many steps make one pass (the history's unit
  on the fast path);
- ``warm_start(problem, state) -> state``: a state of another run (another C, say)
  made feasible for ``problem``: its dual variables scaled or projected into this
  problem's box, every cached quantity recomputed from them, measured.
  :func:`iterate` and :func:`solve` call it on every ``state=`` they are given.

``converged`` is :func:`gap_reached` on the state's relative gap: a gap below
``-NEGATIVE_GAP`` is no rounding error but a dual above the primal, an infeasible
point, and raises :class:`InfeasibleStateError` instead of passing as converged.

Every state is an immutable ``NamedTuple`` with at least ``n_iter``,
``primal``, ``dual``, ``gap`` (relative duality gap) and ``kkt`` (KKT violation).
The binary solvers keep these up to date at every step (O(n) with their
cached gradient); the multiclass solvers, whose objectives cost a pass over
the data, update them only in ``measure``, which :func:`solve` calls once per
epoch with its clock paused, so that time curves show solver time only.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

HISTORY_KEYS = ("n_iter", "time", "primal", "dual", "gap", "kkt")

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


class SolveResult(NamedTuple):
    """What :func:`solve` returns (in the spirit of SciPy's ``OptimizeResult``).

    Attributes
    ----------
    state : the final solver state.
    n_iter : int, steps taken.
    converged : bool, whether the relative duality gap reached ``tol``.
    primal, dual, gap, kkt : float, the objectives, relative gap and KKT violation at the end.
    history : dict of lists (keys ``HISTORY_KEYS``) or None. ``time`` is solver time in
        seconds, with the clock paused while the objectives are evaluated.
    states : list of states (step-by-step runs with ``record_states=True``) or None.
    """

    state: Any
    n_iter: int
    converged: bool
    primal: float
    dual: float
    gap: float
    kkt: float
    history: dict | None
    states: list | None


def iterate(solver, problem, max_iter: int = 1000, tol: float | None = None, state=None):
    """Yield the starting state, then the state after each step.

    Stops after ``max_iter`` steps, or earlier once ``solver.converged(state, tol)``
    when ``tol`` is given (each state is then measured, which costs a pass over
    the data for the multiclass solvers).  Pass ``state`` to continue a run.
    """
    state = solver.init(problem) if state is None else state
    yield state
    for _ in range(int(max_iter)):
        if tol is not None:
            state = solver.measure(problem, state)
            if solver.converged(state, tol):
                return
        state = solver.step(problem, state)
        yield state


def _record(history, state, elapsed):
    history["n_iter"].append(int(state.n_iter))
    history["time"].append(elapsed)
    for key in ("primal", "dual", "gap", "kkt"):
        history[key].append(float(getattr(state, key)))


def solve(
    solver,
    problem,
    max_iter: int = 100_000,
    tol: float = 1e-3,
    *,
    fast: bool = True,
    record_history: bool = False,
    record_states: bool = False,
    callback=None,
    state=None,
) -> SolveResult:
    """Run ``solver`` on ``problem`` until the relative duality gap is at most ``tol``.

    Parameters
    ----------
    max_iter : int
        Most steps to take (SMO pairs, coordinates, or subgradient iterations).
    tol : float
        Stop when the state's relative duality gap ``(P - D) / |P|`` is at most ``tol``.
    fast : bool
        Use the solver's ``advance`` (compiled where available), one epoch at a time;
        the history then has one entry per epoch.  ``False`` steps one at a time
        through ``step`` and records every step.
    record_history : bool
        Keep the curves (n_iter, time, primal, dual, gap, kkt).
    record_states : bool
        Keep every state (step-by-step runs only): a film of the run.
    callback : callable or None
        Called with each recorded state; returning True stops the run.
    """
    state = solver.measure(problem, solver.init(problem) if state is None else state)
    history = {k: [] for k in HISTORY_KEYS} if record_history else None
    states = [state] if (record_states and not fast) else None
    elapsed = 0.0
    if history is not None:
        _record(history, state, elapsed)
    chunk = solver.steps_per_epoch(problem) if fast else 1
    while not solver.converged(state, tol) and state.n_iter < max_iter:
        n_steps = min(chunk, int(max_iter) - int(state.n_iter))
        t0 = time.perf_counter()
        if fast:
            state = solver.advance(problem, state, n_steps, tol)
        else:
            state = solver.step(problem, state)
        elapsed += time.perf_counter() - t0
        state = solver.measure(problem, state)  # clock paused
        if history is not None:
            _record(history, state, elapsed)
        if states is not None:
            states.append(state)
        if callback is not None and callback(state):
            break
    return SolveResult(
        state=state,
        n_iter=int(state.n_iter),
        converged=bool(solver.converged(state, tol)),
        primal=float(state.primal),
        dual=float(state.dual),
        gap=float(state.gap),
        kkt=float(state.kkt),
        history=history,
        states=states,
    )


def check_choice(name: str, value, choices):
    """Raise a ValueError naming ``name`` unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def seed_from(random_state) -> int:
    """An integer seed stored in the state, so that steps are pure and replayable."""
    import numpy as np

    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**31 - 1))
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)):
        raise TypeError(f"random_state must be None, an int or a NumPy generator, got {random_state!r}")
    return int(random_state)
