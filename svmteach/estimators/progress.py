"""``verbose`` progress of a fit: one line per measured state of the run (epoch, objectives, gap, time).

An estimator's ``fit`` wraps its :func:`~svmteach.solvers.solve` call::

    with fit_progress(self, solver, problem, verbose) as progress:
        result = solve(solver, problem, ..., callback=progress)
        direct = ...  # the interior-point finish's result, or None (:mod:`.direct`)
        if progress is not None:
            progress.finish(result, direct)

With ``verbose=0`` the callback is None.  Otherwise a line goes to standard output at every state whose
objectives :func:`solve` measured, and :meth:`Progress.finish` prints the last state and how the fit ended.
"""

from __future__ import annotations

import math
import numbers
import sys
import time
from contextlib import contextmanager

COLUMNS = f"{'epoch':>10} {'step':>11} {'primal':>15} {'dual':>15} {'rel. gap':>10} {'time (s)':>9}"


def check_verbose(value, name: str = "verbose") -> int:
    """``value`` as an int >= 0 (a bool counts as 0 or 1), or a TypeError / ValueError naming ``name``."""
    if not isinstance(value, numbers.Integral):  # bool is an Integral
        raise TypeError(f"{name} must be an int >= 0 or a bool, got {type(value).__name__} {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return int(value)


class Progress:
    """The callback :func:`solve` calls after each chunk: prints the states it finds newly measured.

    A state is newly measured when its ``(primal, dual)`` differ from the previous call's (between measures,
    states carry the last measure's objectives); the first call's state is measured here.
    """

    def __init__(self, est, solver, problem, out=None):
        self.solver, self.problem = solver, problem
        self.out = sys.stdout if out is None else out
        self.start = time.perf_counter()
        self.printed = None  # (n_iter, primal, dual) of the last line
        self.previous = None  # (primal, dual) the previous call's state carried
        self.write(f"{type(est).__name__}: solver {solver.name}, {problem.n_samples} samples, "
                   f"{problem.n_features} features, {len(problem.classes)} classes")
        self.write(COLUMNS)

    def write(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def line(self, state) -> None:
        """One row: epochs (steps / steps per epoch), steps, primal, dual, relative gap, seconds so far."""
        steps = int(state.n_iter)
        epochs = steps / self.solver.steps_per_epoch(self.problem)
        primal, dual, gap = float(state.primal), float(state.dual), float(state.gap)
        elapsed = time.perf_counter() - self.start
        self.write(f"{epochs:>10.1f} {steps:>11d} {primal:>15.9g} {dual:>15.9g} {gap:>10.3g} {elapsed:>9.3f}")
        self.printed = (steps, primal, dual)

    def __call__(self, state):
        carried = (float(state.primal), float(state.dual))
        if self.previous is None:
            self.line(self.solver.measure(self.problem, state))  # one pass over the data, once per fit
        elif carried != self.previous:
            self.line(state)
        self.previous = carried
        return None  # never asks solve to stop

    def finish(self, result, direct=None) -> None:
        """The run's last state, unless just printed, and how the fit ended; with ``direct`` (the
        interior-point finish's result, :mod:`.direct`) a line for it too."""
        state = result.state
        if self.printed != (int(state.n_iter), float(state.primal), float(state.dual)):
            self.line(state)
        if direct is not None:
            self.write(f"{self.solver.name} stopped short of tol: {result.n_iter} steps, relative gap "
                       f"{_gap(result.gap)}; finished by the interior-point method")
            self.write(f"interior-point finish: {direct.n_iter} Newton steps, primal {float(direct.primal):.9g}, "
                       f"dual {float(direct.dual):.9g}, relative gap {_gap(direct.gap)}")
            result = direct
        how = ("interrupted (Ctrl-C): the model is the last state above" if getattr(result, "interrupted", False)
               else "converged" if result.converged else "not converged")
        self.write(f"{how}: {result.n_iter} {'Newton ' if direct is not None else ''}steps, relative gap "
                   f"{_gap(result.gap)}, {time.perf_counter() - self.start:.3f} s")


def _gap(gap: float) -> str:
    return "nan" if math.isnan(gap) else f"{gap:.3g}"


@contextmanager
def fit_progress(est, solver, problem, verbose):
    """Yield the :class:`Progress` callback for ``solve`` when ``verbose`` (checked: an int >= 0 or a
    bool) is positive, else None."""
    yield Progress(est, solver, problem) if check_verbose(verbose) > 0 else None
