"""The course guide, ``notebooks/00_guide.ipynb``: its three-week plan covers the whole course, its notation
table is the docs' one, and the docs and the README lead to it (issue 28: a course guide with a plan).

- Every lesson notebook is taught in one week of the plan; every exercise of ``svmteach.exercises`` is
  assigned in the week that teaches the notebook holding its stub; every problem the plan assigns belongs
  to a lesson notebook of that week, and exists in ``svmteach.exercises.problem_set`` once that package
  has problems of its notebook (until then only the notebook number is checked); every problem of the set
  is assigned.
- The notation table is written once, in ``docs/notation.md``; the guide's copy must be the same rows.
- The set-up cell's printed solution of the worked example is the hard-margin optimum found by Clarabel.

These tests read the committed files; the set-up cell's output is checked by nbval as well.
"""

import importlib
import json
import re
from pathlib import Path

import numpy as np
import pytest
from oracles import binary_dual_optimum

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
GUIDE = NOTEBOOKS / "00_guide.ipynb"
LESSONS = sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb") if not p.name.startswith("00"))
#: a problem or a range of problems: "02.3", "02.1-02.5" (a hyphen or an en dash)
PROBLEM_RANGE = re.compile(r"\b(\d\d)\.(\d+)(?:\s*[-\u2013]\s*(\d\d)\.(\d+))?\b")
#: lessons that have no pen-and-paper problems yet (the plan and the map assign none); empty since notebook 9's
#: problems landed.  A lesson added before its problems goes here, and once the problem set has problems of it,
#: the exemption must go (tested).
NO_PROBLEMS_YET: set[str] = set()


def cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def markdown(path):
    return ["".join(c["source"]) for c in cells(path) if c["cell_type"] == "markdown"]


def weeks():
    """The plan: one Markdown cell per week, ``### Week n: ...``."""
    found = [text for text in markdown(GUIDE) if text.startswith("### Week ")]
    assert len(found) == 3, "the plan has three weeks, one cell each"
    return found


def taught(week):
    """The lesson notebooks a week's cell names (as `01_binary_svm`)."""
    return {p.stem for p in LESSONS if f"`{p.stem}`" in week}


def problems_assigned(text):
    """The problem names a text assigns, ranges expanded: {"02.1", "02.2", ...}."""
    names = set()
    for a, i, b, j in PROBLEM_RANGE.findall(text):
        if b and b != a:
            raise AssertionError(f"a range of problems across two notebooks: {a}.{i}-{b}.{j}")
        last = int(j) if j else int(i)
        names |= {f"{a}.{m}" for m in range(int(i), last + 1)}
    return names


def stubs_by_notebook():
    """Each exercise's notebook, from the stub cells of the committed notebooks."""
    where = {}
    for path in LESSONS:
        for cell in cells(path):
            name = cell.get("metadata", {}).get("svmteach", {}).get("exercise")
            if name:
                where[name] = path.stem
    return where


def test_the_plan_teaches_every_lesson_once():
    per_week = [taught(week) for week in weeks()]
    everything = [stem for week in per_week for stem in week]
    assert sorted(set(everything)) == [p.stem for p in LESSONS], per_week
    # 02 is taught over two lectures of one week; no notebook is spread over two weeks
    assert len(everything) == len(set(everything)), per_week


def test_the_plan_assigns_every_exercise_in_the_week_of_its_notebook():
    from svmteach.exercises import EXERCISES

    where = stubs_by_notebook()
    assert set(where) == set(EXERCISES), "each exercise has its stub in a lesson notebook"
    for name in EXERCISES:
        assigned = [k for k, week in enumerate(weeks()) if f"`{name}`" in week]
        assert len(assigned) == 1, f"{name} is assigned in weeks {assigned}, not in exactly one"
        assert where[name] in taught(weeks()[assigned[0]]), f"{name} ({where[name]}) is not taught that week"


def test_the_plan_assigns_problems_of_the_notebooks_of_each_week():
    numbers = {p.name[:2] for p in LESSONS}
    covered = set()
    for week in weeks():
        names = problems_assigned(week)
        week_numbers = {stem[:2] for stem in taught(week)} - NO_PROBLEMS_YET
        assert {n[:2] for n in names} == week_numbers, (names, week_numbers)  # every notebook of the week, no other
        covered |= names
    assert {n[:2] for n in covered} == numbers - NO_PROBLEMS_YET  # every lesson has problems assigned
    try:
        problem_set = importlib.import_module("svmteach.exercises.problem_set")
    except ModuleNotFoundError as missing:  # the problem set has not landed: the notebook numbers above suffice
        assert missing.name == "svmteach.exercises.problem_set", missing
        return
    landed = {name[:2] for name in problem_set.PROBLEMS}  # B's notebooks 05-08 may land after A's 01-04
    assert not landed & NO_PROBLEMS_YET, f"the problem set has problems of {sorted(landed & NO_PROBLEMS_YET)}: assign them"
    missing = sorted(name for name in covered if name[:2] in landed and name not in problem_set.PROBLEMS)
    assert not missing, f"the plan assigns problems that the problem set does not have: {missing}"
    unassigned = sorted(set(problem_set.PROBLEMS) - covered)
    assert not unassigned, f"problems of the set that the plan does not assign: {unassigned}"


def test_the_map_lists_every_lesson_with_its_exercises_and_problems():
    (table,) = [text for text in markdown(GUIDE) if text.startswith("## The map of the course")]
    rows = {line.split("|")[1].strip().strip("`"): line for line in table.splitlines() if line.startswith("| `")}
    assert sorted(rows) == [p.stem for p in LESSONS]
    for name, stem in stubs_by_notebook().items():
        assert f"`{name}`" in rows[stem], f"the map's row of {stem} does not name {name}"
    for stem, row in rows.items():
        assert {n[:2] for n in problems_assigned(row)} == {stem[:2]} - NO_PROBLEMS_YET, row


def table_rows(text):
    """The rows of the notation table (from its header to the first line that is not a row)."""
    lines = text[text.index("| symbol |"):].splitlines()
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append(line.strip())
    return rows


def test_the_guide_notation_table_is_the_docs_notation_page():
    docs = table_rows((ROOT / "docs" / "notation.md").read_text(encoding="utf-8"))
    (guide,) = [text for text in markdown(GUIDE) if text.startswith("## Notation")]
    assert table_rows(guide) == docs
    symbols = [row.split("|")[1] for row in docs[2:]]
    for needed in ("$W$", "$\\alpha_{im}$", "$Q$", "$M$", "$\\gamma$", "$\\lambda$", "$\\beta$", "$P$, $D$"):
        assert any(needed in s for s in symbols), needed
    assert "our class $m - 1$" in guide, "how the sources' classes 1..k map to ours"


def test_the_docs_and_the_readme_lead_to_the_guide():
    assert "course/00_guide" in (ROOT / "docs" / "course.md").read_text(encoding="utf-8")
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    toctree = index[index.index("```{toctree}"):]
    assert re.search(r"^notation$", toctree, re.MULTILINE) and "course/00_guide" in index
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    course = readme[readme.index("## The course"):]
    assert "00_guide" in course[:course.index("\n## ", 3)]


def test_the_setup_cell_prints_the_worked_examples_hard_margin_solution():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
    y = np.array([-1.0, 1.0, 1.0])
    _, alpha = binary_dual_optimum(X @ X.T, y, C=10.0, bias=True)  # C >= 1: the hard margin
    w = (alpha * y) @ X
    free = int(np.argmax(np.minimum(alpha, 10.0 - alpha)))
    b = y[free] - w @ X[free]
    (code,) = [c for c in cells(GUIDE) if c["cell_type"] == "code"]
    printed = "".join(o.get("text", "") if isinstance(o.get("text"), str) else "".join(o.get("text", []))
                      for o in code["outputs"])
    numbers = [float(v) for v in re.findall(r"-?\d+\.\d*", printed)]
    assert numbers == pytest.approx(np.concatenate([w, [b], alpha]), abs=1e-3), printed
