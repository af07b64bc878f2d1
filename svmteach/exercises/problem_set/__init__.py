"""The course's pen-and-paper problem set: problems per notebook, each with a worked solution (teacher's
edition only) and, where the answer is a number, an independent computation of it for :func:`check_answer`.

>>> from svmteach.exercises.problem_set import PROBLEMS, check_answer
>>> check_answer("01.2", None).status
'not attempted yet'

- :class:`PenProblem`: one problem (what the student reads, the worked solution, how the answer is computed).
- :data:`PROBLEMS`: every problem by name (``"02.3"``), collected from the modules ``nb01`` ... ``nb09`` of
  this package that exist (each defines ``PROBLEMS = (PenProblem(...), ...)``).
- :func:`check_answer`: the student's numeric answer against the computed one; it says right, not
  attempted, wrong shape or wrong (with a hint where a usual slip explains it) and never shows the right value.
- ``python -m svmteach.exercises.problem_set --sync [DIR]``: writes each notebook's ``## Problems`` section
  (:func:`svmteach.exercises.notebooks.sync_problems`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

#: The kinds of problem, and how a notebook names each.
KINDS = {
    "derive": "Derive",
    "prove": "Prove",
    "compute": "Compute by hand",
    "explain": "Explain",
    "predict": "Predict, then check",
}


@dataclass(frozen=True)
class PenProblem:
    """One pen-and-paper problem.

    Attributes
    ----------
    name : ``"02.3"``: the notebook's number, a dot, the problem's number in it.
    title : a few words.
    kind : one of :data:`KINDS` (``"derive"``, ``"prove"``, ``"compute"``, ``"explain"``, ``"predict"``).
    statement : markdown (LaTeX in ``$...$``): what the student reads; it says in what form to give the answer.
    solution : markdown: the full worked solution, for the teacher's edition only.
    answer : ``answer() -> value`` or None: COMPUTES the numeric answer (SymPy, NumPy or the library's
        solvers), never a number typed in; None for a problem without a numeric answer.
    rtol, atol : how close a computed number must be: ``|got - expected| <= atol + rtol |expected|``; a number
        right to 4 significant digits (a hand computation's) is right too (see :func:`check_answer`).
    slips : the problem's own usual mistakes: ``(wrong_answer, hint)`` pairs, ``wrong_answer() -> value`` COMPUTING
        the whole answer the mistake gives (never a number typed in), ``hint`` naming the mistake (never the value).
        A wrong answer that is a slip's, on every entry it gets wrong, is told that slip's hint, before the
        usual ones (a sign, a factor 2) that say less.
    """

    name: str
    title: str
    kind: str
    statement: str
    solution: str
    answer: Callable[[], Any] | None = None
    rtol: float = 1e-6
    atol: float = 1e-9
    slips: tuple = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {self.kind!r}")

    @property
    def notebook(self) -> str:
        """The notebook's number, ``"02"``."""
        return self.name.split(".")[0]

    def __repr__(self):
        return f"PenProblem({self.name!r}, {self.kind}: {self.title})"


#: The modules holding the problems of notebooks 01 to 09 (one may not exist yet: it is skipped).
MODULES = tuple(f"nb{k:02d}" for k in range(1, 10))


def _collect() -> dict[str, PenProblem]:
    problems = {}
    for module_name in MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{module_name}")
        except ModuleNotFoundError as e:  # only the module itself missing is skipped, not an import inside it
            if e.name != f"{__name__}.{module_name}":
                raise
            continue
        for problem in module.PROBLEMS:
            if problem.name in problems:
                raise ValueError(f"problem {problem.name} is defined twice")
            if problem.notebook != module_name[2:]:
                raise ValueError(f"problem {problem.name} is in {module_name}.py, not nb{problem.notebook}.py")
            problems[problem.name] = problem
    return problems


PROBLEMS: dict[str, PenProblem] = _collect()


def problems(notebook=None) -> list[PenProblem]:
    """The problems in course order; only those of ``notebook`` (``"03"`` or ``3``) when given."""
    ordered = sorted(PROBLEMS.values(), key=lambda p: tuple(int(part) for part in p.name.split(".")))
    if notebook is None:
        return ordered
    key = f"{int(notebook):02d}"
    return [p for p in ordered if p.notebook == key]


def problem(name) -> PenProblem:
    """The problem called ``name``, or a ValueError that lists the names."""
    if not isinstance(name, str) or name not in PROBLEMS:
        raise ValueError(f"name must be one of {', '.join(PROBLEMS)}; got {name!r}")
    return PROBLEMS[name]


from .checking import AnswerResult, check_answer, expected_answer  # noqa: E402  (checking reads PROBLEMS)

__all__ = ["PenProblem", "PROBLEMS", "KINDS", "problems", "problem", "check_answer", "AnswerResult",
           "expected_answer"]
