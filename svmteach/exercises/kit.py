"""The teacher's kit of the course guide: how long each notebook takes, an exam drawn from the problem set
with its marking scheme, and its answer key (teacher's edition only).

>>> from svmteach.exercises.kit import EXAM
>>> len(EXAM), sum(q.points for q in EXAM)
(10, 100)

- :func:`notebook_counts`: what a notebook holds, counted: the words of its prose (markdown outside the
  exercises' and problems' cells), its code cells (not the exercises' stubs and checks, nor the problems'
  answer cells), its "Predict, then run" cells of the lecture (a prediction exercise counts in the lab), its
  code and prediction exercises and its problems.
- :func:`estimate`: the minutes of a lecture and of a lab for those counts, at the rates of :data:`RATES`.
  These are estimates from reading, not times measured in a classroom; the guide says so.
- :data:`EXAM`: ten problems of the problem set, notebooks 01 to 09, each with a marking scheme (points per
  step) and a reference answer typed as a teacher writes it; ``tests/test_teachers_kit.py`` checks each typed
  answer against the problem's computed answer, so the key cannot go stale.
- ``python -m svmteach.exercises.kit``: prints the counts and the estimates;
  ``python -m svmteach.exercises.kit --sync``: writes the guide's two kit cells from them (the cells carry
  ``{"svmteach": {"kit": "times"}}`` and ``{"svmteach": {"kit": "exam"}}``).  The teacher's edition
  (:func:`fill_exam_key`, called by ``svmteach lab --solutions``) adds the answer key after the exam.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

#: the rates behind the estimates (minutes); a teacher who talks faster or whose students derive slower
#: scales the table
RATES = {
    "words_per_minute": 100,      # prose presented from the projector, explained rather than read aloud
    "code_cell": 1.0,             # a code cell run and its output discussed
    "predict_cell": 3.0,          # a "Predict, then run" cell: the students commit to an answer first
    "code_exercise": 20.0,        # an exercise in pairs: read, derive, write, check (twice on average)
    "predict_exercise": 10.0,     # a prediction exercise: predict, check, run on
    "problem": 15.0,              # a pen-and-paper problem
}

#: the markdown cells that belong to the lab, not the lecture (by their ``svmteach`` metadata key)
LAB_KEYS = ("intro", "problems", "problem", "problem_solution")


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("svmteach", {}) or {}


def words(text: str) -> int:
    """The words of a markdown text: runs of letters or digits, with the LaTeX between dollars dropped
    (a formula is read as it is explained, which the code-cell and prediction rates cover)."""
    text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$", " ", text, flags=re.DOTALL)
    text = re.sub(r"`[^`]*`", " x ", text)  # a name in backticks is one word
    return len(re.findall(r"[A-Za-z0-9]+(?:['\u2019-][A-Za-z0-9]+)*", text))


@dataclass(frozen=True)
class Counts:
    """What one notebook holds (see :func:`notebook_counts`)."""

    notebook: str
    prose_words: int
    code_cells: int
    predict_cells: int
    code_exercises: int
    predict_exercises: int
    problems: int


def notebook_counts(path) -> Counts:
    """Count the lecture's prose and cells and the lab's exercises and problems of the notebook at ``path``."""
    from . import EXERCISES

    path = Path(path)
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    prose = code = predict_cells = code_ex = predict_ex = problems = 0
    for cell in cells:
        meta = _meta(cell)
        if cell["cell_type"] == "markdown":
            if "problem" in meta:
                problems += 1
            if not any(key in meta for key in LAB_KEYS):
                prose += words(_source(cell))
                if "predict" in meta or "Predict, then run" in _source(cell):
                    predict_cells += 1
        elif cell["cell_type"] == "code":
            name = meta.get("exercise")
            if name in EXERCISES:
                if EXERCISES[name].kind == "predict":
                    predict_ex += 1
                else:
                    code_ex += 1
            elif not ({"check", "answer"} & set(meta)):
                code += 1
    return Counts(path.stem, prose, code, predict_cells, code_ex, predict_ex, problems)


def estimate(c: Counts) -> tuple[int, int]:
    """(lecture minutes, lab minutes) of a notebook at :data:`RATES`, each rounded to 5 minutes."""
    r = RATES
    lecture = c.prose_words / r["words_per_minute"] + c.code_cells * r["code_cell"] + c.predict_cells * r["predict_cell"]
    lab = c.code_exercises * r["code_exercise"] + c.predict_exercises * r["predict_exercise"] + c.problems * r["problem"]
    return int(5 * round(lecture / 5)), int(5 * round(lab / 5))


def _course_folder() -> Path:
    """``notebooks/`` of the checkout (as :func:`svmteach.exercises.notebooks.course_source`, which imports this
    module for the teacher's edition: importing it back would be a circle)."""
    return Path(__file__).resolve().parents[2] / "notebooks"


def course_counts(folder=None) -> list[Counts]:
    """The counts of every lesson notebook (01 to 09) of ``folder`` (default: the course's notebooks)."""
    folder = Path(folder) if folder is not None else _course_folder()
    return [notebook_counts(p) for p in sorted(folder.glob("[0-9][0-9]_*.ipynb")) if not p.name.startswith("00")]


def _hundreds(n: int) -> str:
    return f"{int(round(n, -2)):,}"


def times_markdown(counts) -> str:
    """The guide's cell "Time per lecture and per lab", from ``counts`` (:func:`course_counts`)."""
    r = RATES
    rows = []
    total_lecture = total_lab = 0
    for c in counts:
        lecture, lab = estimate(c)
        total_lecture += lecture
        total_lab += lab
        rows.append(f"| `{c.notebook}` | {_hundreds(c.prose_words)} | {c.code_cells} | {c.predict_cells} | "
                    f"{c.code_exercises} + {c.predict_exercises} | {c.problems} | {lecture} | {lab} |")
    return (
        "### Time per lecture and per lab\n\n"
        "An estimate from reading, not a time measured in a classroom. A script counts what each notebook "
        "holds (`python -m svmteach.exercises.kit`): the words of its prose (the markdown outside the exercises' "
        "and the problems' cells, formulas left out, rounded here to the hundred), its code cells, its "
        "**Predict, then run** cells, its exercises (code + prediction) and its pen-and-paper problems. The "
        f"minutes follow from these rates: prose presented at {r['words_per_minute']} words a minute (explained "
        f"from the projector, slower than reading aloud), {r['code_cell']:g} minute a code cell run and "
        f"discussed, {r['predict_cell']:g} minutes a prediction cell; in the lab, {r['code_exercise']:g} minutes "
        f"a code exercise in pairs, {r['predict_exercise']:g} a prediction exercise and {r['problem']:g} a "
        "problem. Each time is rounded to 5 minutes.\n\n"
        "| notebook | words of prose | code cells | predict cells | exercises | problems | lecture (min) | "
        "lab (min) |\n"
        "|---|---|---|---|---|---|---|---|\n"
        + "\n".join(rows) + "\n\n"
        f"In all about {total_lecture} minutes of lectures and {total_lab} of lab work. A lecture longer than 50 "
        "minutes (02 has two in the plan) leaves part of its prose to reading; the lab work is more than three "
        "two-hour labs hold, which is why the plan gives some problems as homework. Time the first run of each "
        "lecture with your own students and scale the rates."
    )


@dataclass(frozen=True)
class ExamQuestion:
    """One exam question: a problem of the set, its marking scheme and its reference answer.

    Attributes
    ----------
    problem : the problem's name (``"02.3"``); the question is the problem's statement.
    scheme : ``((points, what earns them), ...)``, one entry per step; the points sum to :attr:`points`.
    partial : what partial credit is given for (and what earns none).
    answer : the reference answer as a teacher writes it (markdown).
    values : the same answer as numbers (a float, or a tuple), in the order the problem asks for; a test compares
        them with the problem's computed answer.
    """

    problem: str
    scheme: tuple
    partial: str
    answer: str
    values: object

    @property
    def points(self) -> int:
        return sum(p for p, _ in self.scheme)


EXAM = (
    ExamQuestion(
        "01.2",
        ((2, "the points drawn and a separating line given"),
         (3, "the symmetry argument: unique optimal $w$, so $w_1 = w_2$"),
         (3, "the constraints reduced to $-b \\ge 1$, $2a + b \\ge 1$ and minimised: $a = 1$, $b = -1$"),
         (2, "the margin width $\\sqrt2$, every point on the margin")),
        "A right $(w, b)$ without the symmetry argument (by guessing) earns the last 5 points, not the 3 of the "
        "argument; $w$ right and $b$ with a sign slip loses 1.",
        "$w = (1, 1)$, $b = -1$; width $\\sqrt 2 \\approx 1.414$", (1.0, 1.0, -1.0)),
    ExamQuestion(
        "02.3",
        ((2, "why $\\alpha = (1, \\tfrac12, \\tfrac12)$ is infeasible ($\\alpha_1 > C$)"),
         (3, "the reduced dual with the box solved: $\\alpha = (C, C/2, C/2)$"),
         (3, "the KKT table: point 1 bound, points 2 and 3 free, $b$ from a free point"),
         (2, "point 1 misclassified, $P = D = \\tfrac7{16}$; the general $C < \\tfrac12$")),
        "Full marks for the KKT step only when $b$ comes from a free support vector (from the bound point 1 it "
        "is wrong: no credit for that line). An arithmetic slip carried through correctly loses 1 once.",
        "$\\alpha = (\\tfrac14, \\tfrac18, \\tfrac18)$, $b = \\tfrac12$", (0.25, 0.125, 0.125, 0.5)),
    ExamQuestion(
        "03.4",
        ((3, "the clipped vertex maximises the parabola on $[0, C]$, both cases $Q_{ii} > 0$ and $Q_{ii} = 0$"),
         (4, "the exact expansion $g_i t - \\tfrac12 Q_{ii} t^2$ and why it is $\\ge 0$ ($t = 0$ is allowed)"),
         (1, "the gain $g_i^2 / (2 Q_{ii})$ at an interior vertex"),
         (2, "the number for problem 03.1's first visit")),
        "The proof without the case $Q_{ii} = 0$ earns 2 of the first 3. The number alone earns its 2 points "
        "only; the proof does not rest on it.",
        "gain $\\tfrac18$", 0.125),
    ExamQuestion(
        "04.1",
        ((3, "$g = (1, 1, 1)$, $I_{\\rm up} = \\{2, 3\\}$, $I_{\\rm low} = \\{1\\}$, the pair $i = 2$, $j = 1$"),
         (4, "$E$, $\\eta = 4$, the unclipped $\\alpha_j$, $L = 0$, $H = 1$ and the new $\\alpha$"),
         (2, "the new bias from $b_1$ and $b_2$, checked on the free points"),
         (1, "point 3 misclassified though the dual grew")),
        "A wrong pair carried through correctly earns half of the later steps. $L, H$ with the formula of "
        "equal labels loses 2.",
        "$L = 0$, $H = 1$, $\\alpha = (\\tfrac12, \\tfrac12, 0)$, $b = -1$", (0.0, 1.0, 0.5, 0.5, 0.0, -1.0)),
    ExamQuestion(
        "05.4",
        ((3, "$K$, $G = K + \\lambda I$ and $c = (-\\tfrac34, \\tfrac14, \\tfrac14)$"),
         (3, "the diagonal of $G^{-1}$ by cofactors and the residuals $c_i / [G^{-1}]_{ii}$"),
         (2, "the refit without point 2 agrees"),
         (2, "all three left-out points misclassified, and why")),
        "Residuals from a $G^{-1}$ computed with the wrong $\\lambda$ (or from $K^{-1}$) earn the method's 1 "
        "point of the second step; the refit earns its points even when it disagrees, if it is right.",
        "$r = (-\\tfrac97, \\tfrac{15}{11}, \\tfrac{15}{11}) \\approx (-1.286, 1.364, 1.364)$",
        (-9 / 7, 15 / 11, 15 / 11)),
    ExamQuestion(
        "06.2",
        ((2, "$D$ in the four free variables, and why it splits per sample ($x_1^\\top x_2 = 0$)"),
         (4, "the stationary point $\\alpha_{11} = \\alpha_{12} = \\tfrac13$ inside the box, $W$ and "
             "$D^\\star = \\tfrac23$"),
         (2, "$P = D^\\star$: every hinge zero"),
         (2, "$w_2 \\ne 0$ and the predictions; $C = \\tfrac14$ at the bound")),
        "A $W$ with the sign of $w_m = -M\\sum_i \\alpha_{im} x_i$ flipped loses 2 of the 4 and the check of "
        "part 3 then fails: credit it if the student says so.",
        "$W = \\begin{pmatrix} 2/3 & -1/3 \\\\ -1/3 & 2/3 \\\\ -1/3 & -1/3 \\end{pmatrix}$",
        ((2 / 3, -1 / 3), (-1 / 3, 2 / 3), (-1 / 3, -1 / 3))),
    ExamQuestion(
        "07.1",
        ((4, "$z = 1$: the sort, the test for $\\rho = 2$, $\\theta = 0.35$ and $\\beta$"),
         (2, "the optimality conditions, $\\kappa_3 = 0.75 \\ge 0$"),
         (2, "$z = 3$: $\\rho = 3$, a negative threshold, nothing cut"),
         (2, "the shift by $s$ changes the objective by a constant on the simplex")),
        "A $\\rho$ off by one (the test stopped one step early or late) loses 2 of the 4; the mass check, if "
        "written, earns 1 back when it exposes the slip.",
        "$\\beta = (0.85, 0.15, 0)$", (0.85, 0.15, 0.0)),
    ExamQuestion(
        "07.3",
        ((2, "$g_i = (0.4, 1.6, 0)$ and $v_i = 1.2$: visit it"),
         (2, "$\\hat\\beta = (2.2, 0.8, 0)$ and $z = 2$"),
         (3, "the projection: $\\rho = 2$, $\\theta = 0.5$, $\\beta = (1.7, 0.3, 0)$"),
         (2, "$\\alpha_i = (0.15, -0.15, 0)$, its entries sum to 0 within the bounds"),
         (1, "the new violation is 0: the block solved exactly")),
        "Each step is marked on the student's previous numbers (an early slip costs once).",
        "$\\alpha_i = (0.15, -0.15, 0)$", (0.15, -0.15, 0.0)),
    ExamQuestion(
        "08.5",
        ((2, "the scores $W x_i$"),
         (4, "each sample's WW and CS loss, and both primals"),
         (4, "the proof that WW $\\ge$ CS, equality when at most one hinge is positive, the samples of each "
             "case")),
        "A primal without the $\\tfrac12\\|W\\|_F^2$ term loses 1; the proof by the example only earns 1 of 4.",
        "$P_{\\rm WW} = 7.5$, $P_{\\rm CS} = 5.5$", (7.5, 5.5)),
    ExamQuestion(
        "09.1",
        ((2, "$A$ feasible for the Crammer-Singer dual"),
         (3, "$K$ and $S = KA$, each point classified right"),
         (3, "$\\lVert W\\rVert_F^2 = \\langle A, KA\\rangle = \\tfrac{51}{32}$"),
         (2, "the feature-space check of $\\lVert w_0\\rVert^2 = \\tfrac{13}{16}$")),
        "$S = AK$ (or $A^\\top K$) in place of $KA$ earns none of its 3; the penalty from a wrong $S$ carried "
        "through correctly earns 2 of 3.",
        "$S_{2\\cdot} = (-\\tfrac{11}4, \\tfrac{23}8, -\\tfrac18)$, $\\lVert W\\rVert_F^2 = \\tfrac{51}{32}$",
        (-2.75, 2.875, -0.125, 51 / 32)),
)


def exam_markdown() -> str:
    """The guide's exam cell, as committed (the students' edition too): the questions and their points per step;
    the marking scheme in words and the answers are in :func:`exam_key_markdown` (teacher's edition only), since
    a step's description gives its numbers away."""
    from .problem_set import PROBLEMS

    lines = [
        "### An exam of ten questions",
        "",
        "Ten problems of the problem set, one or two per notebook from 01 to 09, 100 points in all, for a "
        "written exam of three hours (each problem is about 15 minutes of lab work; the rest is time to check). "
        "Hand out each problem's statement as its notebook prints it (the cell `### Problem ...`); for an exam "
        "the students have not seen as homework, take these problems out of the plan's homework. The points of "
        "each step are given below; the **marking scheme** (what each step's points are for, what partial credit "
        "is for) and the **reference answers** are in the teacher's edition of this guide (`svmteach lab "
        "--solutions`), in the cell after this one, since a step's description gives its numbers away.",
        "",
        "| # | problem | title | points (per step) |",
        "|---|---|---|---|",
    ]
    for k, q in enumerate(EXAM, start=1):
        steps = " + ".join(str(points) for points, _ in q.scheme)
        title = PROBLEMS[q.problem].title.replace("<", "&lt;").replace(">", "&gt;")  # <A, KA> is not a tag
        lines.append(f"| {k} | {q.problem} | {title} | {q.points} ({steps}) |")
    return "\n".join(lines)


def exam_key_markdown() -> str:
    """The marking scheme and the answer key (teacher's edition only)."""
    lines = ["### The exam's marking scheme and answer key (teacher's edition)", "",
             "Mark each step as below; a slip carried forward correctly costs once. Each reference answer is the "
             "problem's answer (its worked solution in its notebook gives every step); "
             "`tests/test_teachers_kit.py` checks each against the problem set's computed answer.", ""]
    for k, q in enumerate(EXAM, start=1):
        steps = "; ".join(f"{points} for {what}" for points, what in q.scheme)
        lines.append(f"{k}. **Problem {q.problem}** ({q.points} points): {steps}. *Partial credit:* {q.partial} "
                     f"*Answer:* {q.answer}.")
    return "\n".join(lines)


def kit_cell(nb, key):
    """The guide's cell that carries ``{"svmteach": {"kit": key}}``, or None."""
    for cell in nb["cells"] if isinstance(nb, dict) else nb.cells:
        if _meta(cell).get("kit") == key:
            return cell
    return None


def fill_exam_key(nb) -> bool:
    """The teacher's edition of the guide ``nb`` (nbformat), in place: the answer key after the exam cell.
    Returns whether ``nb`` has the exam cell (only the guide has)."""
    from .problem_set.cells import _cell

    exam = kit_cell(nb, "exam")
    if exam is None:
        return False
    nb.cells = [c for c in nb.cells if _meta(c).get("kit") != "exam_key"]
    at = nb.cells.index(exam) + 1
    nb.cells.insert(at, _cell(nb, "markdown", exam_key_markdown(), {"kit": "exam_key"}, "kit-exam-key"))
    return True


def sync_guide(path=None) -> None:
    """Write the guide's kit cells (``kit: times`` and ``kit: exam``) from the counts and :data:`EXAM`."""
    import nbformat

    path = Path(path) if path is not None else _course_folder() / "00_guide.ipynb"
    nb = nbformat.read(path, as_version=4)
    for key, source in (("times", times_markdown(course_counts(path.parent))), ("exam", exam_markdown())):
        cell = kit_cell(nb, key)
        if cell is None:
            raise ValueError(f"{path} has no cell with the metadata {{'svmteach': {{'kit': {key!r}}}}}")
        cell.source = source
    nbformat.write(nb, path)


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m svmteach.exercises.kit",
                                     description="The teacher's kit: counts and time estimates per notebook.")
    parser.add_argument("--sync", action="store_true", help="write the guide's kit cells from the counts")
    args = parser.parse_args(argv)
    counts = course_counts()
    for c in counts:
        lecture, lab = estimate(c)
        print(f"{c.notebook:28s} words {c.prose_words:5d}  code {c.code_cells:3d}  predict {c.predict_cells}  "
              f"exercises {c.code_exercises}+{c.predict_exercises}  problems {c.problems}  "
              f"lecture {lecture:3d} min  lab {lab:3d} min")
    if args.sync:
        sync_guide()
        print("the guide's kit cells written")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
