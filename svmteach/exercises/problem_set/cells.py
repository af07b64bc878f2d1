"""The problem set's cells in the course notebooks: the student's ``## Problems`` section and the teacher's
worked solutions (re-exported by :mod:`svmteach.exercises.notebooks`, where the exercises' cells live).

A synced cell carries ``{"svmteach": {key: value}}`` with key ``"problems"`` (the heading cell),
``"problem"`` (a statement), ``"answer"`` (its check cell) or, in the teacher's edition only,
``"problem_solution"`` (the worked solution).  Syncing removes every such cell and writes them again, so it is
idempotent; the cells' ids are derived from the problem's name, so a second sync writes the same file.
"""

from __future__ import annotations

import re

from . import KINDS, PenProblem, expected_answer, problems
from .checking import NOT_ATTEMPTED, AnswerResult

SYNCED_KEYS = ("problems", "problem", "answer", "problem_solution")

HEADING = (
    "## Problems\n\n"
    "Pen-and-paper problems on this notebook: derive, prove, compute by hand, explain, predict. Work them on "
    "paper first. Where a problem has a numeric answer, the cell under it checks yours: replace `None` by your "
    "answer (a number, or a list of numbers in the order the problem asks) and run it. A number worked out by "
    "hand counts as right to 4 significant digits, rounded or cut off (3.142 or 3.141 for $\\pi$; a whole number, "
    "such as a count, exactly); with fewer digits the check says it is close and asks for more. It says whether the "
    "answer is right and, when it is not, which entries are off and what kind of slip it looks like; it never "
    "shows the right value. The worked solutions are in the teacher's edition (`svmteach lab --solutions`)."
)


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("svmteach", {}) or {}


def is_synced(cell) -> bool:
    """Whether ``cell`` was written by :func:`sync_problems` or :func:`fill_problem_solutions`."""
    return any(key in _meta(cell) for key in SYNCED_KEYS)


def _cell(nb, kind, source, meta, cell_id, outputs=None):
    import nbformat

    make = nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell
    cell = make(source=source, metadata={"svmteach": meta})
    if kind == "code":
        cell.outputs = outputs or []
    if (nb.get("nbformat"), nb.get("nbformat_minor", 0)) >= (4, 5):
        cell["id"] = cell_id
    else:
        cell.pop("id", None)
    return cell


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", name)


def statement_source(p: PenProblem) -> str:
    """The markdown of a problem's cell: its heading, its kind in words, its statement."""
    return f"### Problem {p.name}: {p.title}\n\n*{KINDS[p.kind]}.*\n\n{p.statement.strip()}\n"


def answer_source(name: str, value: str = "None") -> str:
    """The student's check cell: the one call, with ``None`` to replace."""
    return (f"from svmteach import exercises\n"
            f'exercises.check_answer("{name}", {value})  # replace {value} by your answer')


def _not_attempted_output(name: str) -> list:
    """The output of the student's check cell as every machine prints it (nothing computed)."""
    import nbformat

    result = AnswerResult(name, NOT_ATTEMPTED, "replace None by your answer")
    return [nbformat.v4.new_output("execute_result", data={"text/plain": result.text(),
                                                           "text/html": result._repr_html_()},
                                   execution_count=None)]


def _insertion_index(cells) -> int:
    for prefix in ("## Summary", "## References"):
        for k, cell in enumerate(cells):
            if cell.get("cell_type") == "markdown" and "".join(cell.get("source", "")).lstrip().startswith(prefix):
                return k
    return len(cells)


def sync_problems(nb, notebook_number) -> list[str]:
    """Write the ``## Problems`` section of notebook ``notebook_number`` into ``nb`` (nbformat), in place.

    Every earlier synced cell is removed first; the section goes before the cell that starts with
    ``## Summary``, else before ``## References``, else at the end.  Returns the problems' names.
    """
    nb.cells = [c for c in nb.cells if not is_synced(c)]
    chosen = problems(notebook_number)
    if not chosen:
        return []
    key = f"{int(notebook_number):02d}"
    new = [_cell(nb, "markdown", HEADING, {"problems": key}, f"problems-{key}")]
    for p in chosen:
        new.append(_cell(nb, "markdown", statement_source(p), {"problem": p.name}, f"problem-{_slug(p.name)}"))
        if p.answer is not None:
            new.append(_cell(nb, "code", answer_source(p.name), {"answer": p.name}, f"answer-{_slug(p.name)}",
                             outputs=_not_attempted_output(p.name)))
    at = _insertion_index(nb.cells)
    nb.cells[at:at] = new
    return [p.name for p in chosen]


def answer_literal(name: str) -> str:
    """The computed answer of ``name`` as Python source: a float, or a (nested) list of floats."""
    value = expected_answer(name) + 0.0  # + 0.0: no "-0.0" in the teacher's cell
    return repr(float(value)) if value.ndim == 0 else repr(value.tolist())


def filled_answer_source(name: str) -> str:
    """The teacher's check cell: the computed answer, asserted to pass."""
    return (f"from svmteach import exercises\n"
            f'result = exercises.check_answer("{name}", {answer_literal(name)})  # the computed answer\n'
            f"assert result.passed, result\n"
            f"result")


def solution_source(p: PenProblem) -> str:
    return f"**Worked solution.** {p.solution.strip()}\n"


def fill_problem_solutions(nb) -> list[str]:
    """The teacher's edition of ``nb``, in place: a worked-solution cell after each problem cell, and each
    answer cell filled with the computed answer (asserted to pass).  Returns the problems' names."""
    from . import PROBLEMS

    nb.cells = [c for c in nb.cells if "problem_solution" not in _meta(c)]
    cells, names = [], []
    for cell in nb.cells:
        cells.append(cell)
        meta = _meta(cell)
        name = meta.get("problem")
        if cell.get("cell_type") == "markdown" and name in PROBLEMS:
            cells.append(_cell(nb, "markdown", solution_source(PROBLEMS[name]), {"problem_solution": name},
                               f"solution-{_slug(name)}"))
            names.append(name)
        name = meta.get("answer")
        if cell.get("cell_type") == "code" and name in PROBLEMS and PROBLEMS[name].answer is not None:
            cell.source = filled_answer_source(name)
            cell.outputs, cell.execution_count = [], None
    nb.cells = cells
    return names
