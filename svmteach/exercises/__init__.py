"""Student exercises: write one step of an SVM solver, and the library says exactly where it is wrong.

>>> from svmteach import exercises
>>> [e.name for e in exercises.catalog()][:2]
['hinge_losses', 'hinge_subgradient']
>>> def smo_bounds(alpha_i, alpha_j, y_i, y_j, C):
...     return NotImplemented
>>> exercises.check("smo_bounds", smo_bounds).status
'not attempted yet'

- :func:`catalog`: every exercise with its notebook, title, signature and statement.
- Most exercises ask for one step of a solver; the ``"predict"`` ones (:mod:`~svmteach.exercises.predict`) ask
  the student to predict what a cell further down will show (which points are support vectors, what C does,
  which working-set rule wins) and check the prediction against the truth computed on the notebook's data.
- :func:`check`: runs the student's function on many seeded cases (from small random instances, from
  the library's own solver runs, and the edge cases of each step), compares it with the reference
  and, once every case passes, runs a solver with the student's step plugged in and compares the
  optimum it reaches with the library's.  It never raises for a mistake in the student's function
  (an exception, ``SystemExit``, an answer that cannot be read, an infinite loop: each call has a time limit).
  Its hints come in three tiers: the first failure names the case and what is wrong with the answer (a
  sign, a scale, a shape, a clip, a misread input); a second failing check of the same exercise in the
  same session, or ``hint=2``, adds a nudge (which quantity, which constraint to look at); a third, or
  ``hint=3``, the equation of the step.  It never prints the solution's code.
- :func:`solution`: the reference implementation, for teachers.
- Each exercise's ``intro`` (markdown) is the one source of its notebook cell
  (:func:`~svmteach.exercises.notebooks.sync_intros`) and of its plain-text ``statement``.
- ``python -m svmteach.exercises --solutions DIR``: the course with every stub filled in.
"""

from __future__ import annotations

from collections import Counter

from . import binary, kernels, multiclass, predict
from .core import CASE_TIME_LIMIT, FAILED, HINT_TIERS, NOT_ATTEMPTED, RUN_TIME_LIMIT, CheckResult, Exercise, run_check

#: every exercise, in course order (by notebook; within one, as its cells come)
EXERCISES = {e.name: e for e in sorted((*binary.EXERCISES, *kernels.EXERCISES, *multiclass.EXERCISES,
                                        *predict.EXERCISES), key=lambda e: e.notebook)}


def catalog(notebook: str | None = None) -> list[Exercise]:
    """The exercises in course order; only those of ``notebook`` (``"03"`` or ``3``) when given.

    Each has ``name``, ``notebook``, ``title``, ``signature``, ``intro`` (markdown), ``statement`` (its plain
    text) and ``equation``.
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


#: failed checks per exercise in this session (this kernel), for the hint tiers; a pass forgets them
_FAILED_BEFORE: Counter = Counter()


def check(name: str, fn, *, hint: int | None = None, time_limit: float = CASE_TIME_LIMIT,
          run_time_limit: float = RUN_TIME_LIMIT) -> CheckResult:
    """Check the student's function ``fn`` for the exercise ``name``; see the module docstring.

    Returns a :class:`~svmteach.exercises.core.CheckResult`: ``passed``, ``status``, ``n_cases`` and,
    when it fails, ``failure`` (the first failing case in plain words, with a hint).  ``hint``: 1 names the
    failing case and what is wrong with the answer; 2 adds a nudge (which quantity, which constraint); 3 adds the
    equation of the step; None (the default) gives 1 on the first failing check of ``name``, 2 on the second and 3
    on the next ones, until one passes.  Each call of
    ``fn`` may take ``time_limit`` seconds and the solver run with it ``run_time_limit``: past that the check
    fails and says so (an infinite loop?).  Only an unknown ``name``, a ``hint`` other than 1, 2, 3 or None, or
    a limit that is not a positive number raises (a ValueError).
    """
    ex = exercise(name)
    if hint is None:
        tier = min(1 + _FAILED_BEFORE[name], HINT_TIERS[-1])
    elif isinstance(hint, int) and not isinstance(hint, bool) and hint in HINT_TIERS:
        tier = hint
    else:
        raise ValueError(f"hint must be 1, 2, 3 or None, got {hint!r}")
    result = run_check(ex, fn, time_limit, run_time_limit, tier)
    if result.status == FAILED:
        _FAILED_BEFORE[name] += 1
    elif result.passed:
        _FAILED_BEFORE.pop(name, None)
    return result


def solution(name: str):
    """The reference solution of ``name`` (a plain NumPy function), for teachers."""
    return exercise(name).reference


from .problem_set import check_answer  # noqa: E402  (the pen-and-paper problems' numeric answers)

__all__ = ["catalog", "check", "solution", "exercise", "CheckResult", "Exercise", "NOT_ATTEMPTED", "EXERCISES",
           "check_answer"]
