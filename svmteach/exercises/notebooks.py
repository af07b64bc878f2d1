"""The exercises' cells in the course notebooks, and the copies of the course (``svmteach lab``'s).

A stub cell carries the metadata ``{"svmteach": {"exercise": name}}`` and starts with the line
``# Exercise <name>: ...``; its check cell carries ``{"svmteach": {"check": name}}``.  The
solutions copy replaces each stub by the reference solution's source and makes each check cell
assert that the check passed, so that running the copy (nbval, or "Run All") proves every
reference solution right in its notebook.
"""

from __future__ import annotations

import inspect
import re
import shutil
from pathlib import Path

STUB_LINE = re.compile(r"^# Exercise (\w+):")


def stub_name(cell) -> str | None:
    """The exercise a code cell is the stub of (by its metadata, else by its first line), or None."""
    if cell.get("cell_type") != "code":
        return None
    name = cell.get("metadata", {}).get("svmteach", {}).get("exercise")
    if name:
        return name
    m = STUB_LINE.match(cell.get("source", ""))
    return m.group(1) if m else None


def check_name(cell) -> str | None:
    """The exercise a code cell checks, or None."""
    if cell.get("cell_type") != "code":
        return None
    return cell.get("metadata", {}).get("svmteach", {}).get("check")


def solution_source(name: str) -> str:
    """The source of the stub cell in the solutions copy: the reference solution, self-contained."""
    from . import solution

    return (f"# Exercise {name}: the reference solution (svmteach.exercises.solution({name!r}))\n"
            f"import numpy as np\n\n\n{inspect.getsource(solution(name)).rstrip()}\n")


def check_source(name: str) -> str:
    """The check cell of the solutions copy: the check, asserted."""
    return (f"from svmteach import exercises\n"
            f"result = exercises.check({name!r}, {name})\n"
            f"assert result.passed, result\n"
            f"result")


def fill_solutions(nb) -> list[str]:
    """Replace every stub of the notebook ``nb`` (nbformat) by its solution, in place; return the names."""
    from . import EXERCISES

    filled = []
    for cell in nb.cells:
        name = stub_name(cell)
        if name in EXERCISES:
            cell.source = solution_source(name)
            cell.outputs, cell.execution_count = [], None
            filled.append(name)
        name = check_name(cell)
        if name in EXERCISES:
            cell.source = check_source(name)
            cell.outputs, cell.execution_count = [], None
    return filled


def solution_copy(source, dest) -> list[str]:
    """Write the notebook ``source`` to ``dest`` with its stubs filled (:func:`fill_solutions`); return the names."""
    import nbformat

    nb = nbformat.read(source, as_version=4)
    names = fill_solutions(nb)
    fill_problem_solutions(nb)  # the problem set's worked solutions and computed answers (teacher's edition)
    from .kit import fill_exam_key

    fill_exam_key(nb)  # the guide's exam: its answer key (teacher's edition only)
    nbformat.write(nb, dest)
    return names


def course_source() -> Path:
    """The course notebooks: ``notebooks/`` of the source checkout svmteach is installed from."""
    checkout = Path(__file__).resolve().parents[2] / "notebooks"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"the course notebooks were not found at {checkout}; install svmteach from a clone "
        "of its repository with `python -m pip install -e .`"
    )


def copy_course(target: Path, solutions: bool = False, progress=None) -> list[Path]:
    """Copy the notebooks that ``target`` does not have yet; never overwrite a student's work.

    With ``solutions`` every exercise stub is replaced by its reference solution and every exercise
    check asserts that it passed (:mod:`svmteach.exercises`): the teacher's copy of the course.
    ``progress(i, n, dest)``, if given, is called before the i-th of the n notebooks to write is made
    (i from 1): the teacher's edition computes every answer, which takes a while the first time."""
    target.mkdir(parents=True, exist_ok=True)
    todo = [(nb, target / nb.name) for nb in sorted(course_source().glob("*.ipynb"))
            if not (target / nb.name).exists()]
    copied = []
    for i, (nb, dest) in enumerate(todo, start=1):
        if progress is not None:
            progress(i, len(todo), dest)
        if solutions:
            solution_copy(nb, dest)
        else:
            shutil.copy2(nb, dest)
        copied.append(dest)
    return copied


def print_progress(out=None):
    """A ``progress`` for :func:`copy_course` that prints one line a notebook, at once (flushed):
    ``svmteach: making the teacher's edition, notebook 3 of 10: 03_dual_coordinate_ascent.ipynb``."""
    import sys

    def progress(i, n, dest):
        stream = sys.stdout if out is None else out
        if i == 1:
            print(f"svmteach: making the teacher's edition of {n} notebook(s), every answer computed (the first "
                  "run also compiles the solvers: it can take minutes, once)", file=stream, flush=True)
        print(f"svmteach: making the teacher's edition, notebook {i} of {n}: {dest.name}", file=stream, flush=True)

    return progress


# ---- the problem set (svmteach.exercises.problem_set): its cells live in problem_set/cells.py ---------------


def sync_problems(nb, notebook_number) -> list[str]:
    """Write the ``## Problems`` section of notebook ``notebook_number`` into ``nb`` (nbformat), in place,
    before ``## Summary`` (else ``## References``, else at the end), replacing earlier synced cells; return the
    problems' names.  See :mod:`svmteach.exercises.problem_set.cells`."""
    from .problem_set.cells import sync_problems as sync

    return sync(nb, notebook_number)


def fill_problem_solutions(nb) -> list[str]:
    """The teacher's edition of ``nb``, in place: each problem's worked solution after its statement and its
    answer cell filled with the computed answer, asserted to pass; return the problems' names."""
    from .problem_set.cells import fill_problem_solutions as fill

    return fill(nb)


# ---- the intro cells: one source, the package's text ------------------------------------------------

#: the last paragraph of every intro cell: how the check answers
CHECK_LINE = ("Run the cell after it to check your function: it names the first case that goes wrong and what is "
              "wrong with your answer. Run the check again (or pass `hint=2`) for a nudge, which quantity or which "
              "constraint to look at, and once more (`hint=3`) for the equation behind the step; it never shows the "
              "solution.")


def intro_name(cell) -> str | None:
    """The exercise a markdown cell introduces (its metadata ``{"svmteach": {"intro": name}}``), or None."""
    if cell.get("cell_type") != "markdown":
        return None
    return cell.get("metadata", {}).get("svmteach", {}).get("intro")


#: the last paragraph of a prediction's intro cell (an exercise of kind "predict")
PREDICT_LINE = ("Write your prediction before you run the cells below, then run the cell after the function: it says "
                "which part of your prediction is wrong and why, never the answer. Run the check again (or pass "
                "`hint=2`) for the reasoning; then run on and see.")


def intro_source(name: str) -> str:
    """The source of the intro cell of ``name``: its title as a heading, the package's ``intro``, the check line
    (:data:`PREDICT_LINE` for a prediction)."""
    from . import exercise

    ex = exercise(name)
    return f"### Exercise: {ex.title}\n\n{ex.intro}\n\n{PREDICT_LINE if ex.kind == 'predict' else CHECK_LINE}"


def sync_intros(nb) -> list[str]:
    """Write every intro cell of the notebook ``nb`` (nbformat) from the package (:func:`intro_source`), in place,
    keeping its metadata; return the names of the intros whose text changed."""
    from . import EXERCISES

    changed = []
    for cell in nb.cells:
        name = intro_name(cell)
        if name in EXERCISES:
            source = intro_source(name)
            if cell.source != source:
                cell.source = source
                changed.append(name)
    return changed
