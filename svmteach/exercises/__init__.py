"""Student exercises: write one step of an SVM solver, and the library says exactly where it is wrong.

>>> from svmteach import exercises
>>> [e.name for e in exercises.catalog()][:2]
['hinge_losses', 'hinge_subgradient']
>>> def smo_bounds(alpha_i, alpha_j, y_i, y_j, C):
...     return NotImplemented
>>> exercises.check("smo_bounds", smo_bounds).status
'not attempted yet'

- :func:`catalog`: every exercise with its notebook, title, signature and statement.
- :func:`check`: runs the student's function on many seeded cases (from small random instances, from
  the library's own solver runs, and the edge cases of each step), compares it with the reference
  and, once every case passes, runs a solver with the student's step plugged in and compares the
  optimum it reaches with the library's.  It never raises for a mistake in the student's function
  (an exception, ``SystemExit``, an answer that cannot be read, an infinite loop: each call has a time limit).
- :func:`solution`: the reference implementation, for teachers.
- ``python -m svmteach.exercises --solutions DIR``: the course with every stub filled in.
"""

from __future__ import annotations

from . import binary, kernels, multiclass
from .core import CASE_TIME_LIMIT, NOT_ATTEMPTED, RUN_TIME_LIMIT, CheckResult, Exercise, run_check

EXERCISES = {e.name: e for e in (*binary.EXERCISES, *kernels.EXERCISES, *multiclass.EXERCISES)}


def catalog(notebook: str | None = None) -> list[Exercise]:
    """The exercises in course order; only those of ``notebook`` (``"03"`` or ``3``) when given.

    Each has ``name``, ``notebook``, ``title``, ``signature`` and ``statement``.
    """
    exercises = list(EXERCISES.values())
    if notebook is None:
        return exercises
    key = f"{int(notebook):02d}" if str(notebook).isdigit() else str(notebook)
    return [e for e in exercises if e.notebook == key]


def exercise(name) -> Exercise:
    """The exercise called ``name``, or a ValueError that lists the names."""
    if not isinstance(name, str) or name not in EXERCISES:
        raise ValueError(f"name must be one of {', '.join(EXERCISES)}; got {name!r}")
    return EXERCISES[name]


def check(name: str, fn, *, time_limit: float = CASE_TIME_LIMIT, run_time_limit: float = RUN_TIME_LIMIT) -> CheckResult:
    """Check the student's function ``fn`` for the exercise ``name``; see the module docstring.

    Returns a :class:`~svmteach.exercises.core.CheckResult`: ``passed``, ``status``, ``n_cases`` and,
    when it fails, ``failure`` (the first failing case in plain words, with a hint).  Each call of ``fn``
    may take ``time_limit`` seconds and the solver run with it ``run_time_limit``: past that the check
    fails and says so (an infinite loop?).  Only an unknown ``name`` or a limit that is not a positive
    number raises (a ValueError).
    """
    return run_check(exercise(name), fn, time_limit, run_time_limit)


def solution(name: str):
    """The reference solution of ``name`` (a plain NumPy function), for teachers."""
    return exercise(name).reference


from .problem_set import check_answer  # noqa: E402  (the pen-and-paper problems' numeric answers)

__all__ = ["catalog", "check", "solution", "exercise", "CheckResult", "Exercise", "NOT_ATTEMPTED", "EXERCISES",
           "check_answer"]
