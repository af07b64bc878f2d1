"""The teacher's kit of the course guide (issue 46, section 3): its times come from counting the notebooks, its
exam is ten problems of the problem set whose typed reference answers are the problems' computed answers, and
the marking scheme and answer key are in the teacher's edition only.

- Exam: ten questions, notebooks 01 to 09 all drawn from, each id a problem of the set, 10 points each; each
  question's typed answer (``values``) passes ``check_answer`` and equals the computed answer to 1e-9; the
  numbers written in its markdown answer are those values.
- Times: the guide's table lists every lesson notebook with the counts of :func:`notebook_counts` on the
  committed notebooks (exercise, problem and cell counts exactly; words within 5%, minutes within 5), and
  the minutes follow from the counts at the stated rates.
- Editions: the committed guide (the students') has the exam's points but no answer; the teacher's edition
  (``solution_copy``, what ``svmteach lab --solutions`` writes) has the answer key right after the exam.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from svmteach.exercises import kit
from svmteach.exercises.problem_set import PROBLEMS, check_answer, expected_answer

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "notebooks" / "00_guide.ipynb"


def guide_cell(key):
    cell = kit.kit_cell(json.loads(GUIDE.read_text(encoding="utf-8")), key)
    assert cell is not None, f"the guide has no kit cell {key!r}"
    return "".join(cell["source"])


def test_the_exam_has_ten_questions_from_every_notebook_worth_100_points():
    names = [q.problem for q in kit.EXAM]
    assert len(names) == 10 and len(set(names)) == 10
    missing = [n for n in names if n not in PROBLEMS]
    assert not missing, f"exam questions that are not problems of the set: {missing}"
    assert {n[:2] for n in names} == {f"{k:02d}" for k in range(1, 10)}, "the exam spans notebooks 01-09"
    assert all(q.points == 10 for q in kit.EXAM) and sum(q.points for q in kit.EXAM) == 100


@pytest.mark.parametrize("q", kit.EXAM, ids=lambda q: q.problem)
def test_each_reference_answer_is_the_problems_computed_answer(q):
    assert PROBLEMS[q.problem].answer is not None, f"{q.problem} has no numeric answer to key"
    typed = np.asarray(q.values, dtype=float)
    expected = expected_answer(q.problem)
    assert typed.shape == expected.shape, (typed.shape, expected.shape)
    np.testing.assert_allclose(typed, expected, rtol=1e-9, atol=1e-12)
    assert check_answer(q.problem, typed.tolist()).passed


def _numbers(markdown):
    """The numbers a markdown answer writes: decimals, a/b, \\tfrac ab, \\tfrac{a}{b}, with their signs."""
    text = re.sub(r"\\tfrac\s*\{(\d+)\}\s*(?:\{(\d+)\}|(\d))", lambda m: f"{m[1]}/{m[2] or m[3]}", markdown)
    text = re.sub(r"\\tfrac\s*(\d)(\d)", r"\1/\2", text)
    text = re.sub(r"\\sqrt\s*\d+", " ", text)  # a width beside the answer
    return [float(Fraction(m)) for m in re.findall(r"-?\d+(?:\.\d+)?(?:/\d+)?", text)]


@pytest.mark.parametrize("q", kit.EXAM, ids=lambda q: q.problem)
def test_each_written_answer_says_the_same_numbers(q):
    written = _numbers(q.answer)
    for value in np.ravel(np.asarray(q.values, dtype=float)):
        assert any(abs(value - w) <= 5e-4 * max(1.0, abs(value)) for w in written), (q.answer, value)


@pytest.mark.parametrize("q", kit.EXAM, ids=lambda q: q.problem)
def test_each_scheme_has_points_per_step_and_says_what_partial_credit_is_for(q):
    assert len(q.scheme) >= 3 and all(isinstance(p, int) and p > 0 and what for p, what in q.scheme)
    assert q.partial.strip()


def test_the_guides_exam_cell_is_the_kits_and_gives_no_answer():
    text = guide_cell("exam")
    assert text == kit.exam_markdown()
    for k, q in enumerate(kit.EXAM, start=1):
        steps = " + ".join(str(p) for p, _ in q.scheme)
        assert f"| {k} | {q.problem} |" in text and f"{q.points} ({steps})" in text
        assert q.answer not in text and q.partial not in text
    assert "teacher's edition" in text


def test_the_teachers_edition_of_the_guide_has_the_answer_key_after_the_exam(tmp_path):
    import nbformat

    from svmteach.exercises.notebooks import solution_copy

    solution_copy(GUIDE, tmp_path / GUIDE.name)
    cells = nbformat.read(tmp_path / GUIDE.name, as_version=4).cells
    keys = [c.get("metadata", {}).get("svmteach", {}).get("kit") for c in cells]
    at = keys.index("exam")
    assert keys[at + 1] == "exam_key" and keys.count("exam_key") == 1
    key = cells[at + 1].source
    for q in kit.EXAM:
        assert f"**Problem {q.problem}**" in key and q.answer in key and q.partial in key
        for points, what in q.scheme:
            assert f"{points} for {what}" in key
    # the students' copy (`svmteach lab`) is the committed guide: no key in it
    assert "exam_key" not in GUIDE.read_text(encoding="utf-8")


def _table(text):
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\| `(\d\d_\w+)` \| ([\d,]+) \| (\d+) \| (\d+) \| (\d+) \+ (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", line)
        if m:
            rows[m.group(1)] = (int(m.group(2).replace(",", "")), *map(int, m.group(3, 4, 5, 6, 7, 8, 9)))
    return rows


def test_the_times_table_is_counted_from_the_notebooks_at_the_stated_rates():
    text = guide_cell("times")
    rows = _table(text)
    counts = kit.course_counts(ROOT / "notebooks")
    assert sorted(rows) == [c.notebook for c in counts], "every lesson notebook has its row"
    for c in counts:
        words, code, predict, code_ex, predict_ex, problems, lecture, lab = rows[c.notebook]
        assert (code, predict, code_ex, predict_ex, problems) == (
            c.code_cells, c.predict_cells, c.code_exercises, c.predict_exercises, c.problems), (
            f"{c.notebook}: the counts changed; run `python -m svmteach.exercises.kit --sync`")
        assert abs(words - c.prose_words) <= 0.05 * c.prose_words + 50, (c.notebook, words, c.prose_words)
        now_lecture, now_lab = kit.estimate(c)
        assert abs(lecture - now_lecture) <= 5 and lab == now_lab, (c.notebook, lecture, lab, kit.estimate(c))
    # the rates the text states are the ones the estimate uses
    r = kit.RATES
    for stated in (f"{r['words_per_minute']} words a minute", f"{r['code_cell']:g} minute a code cell",
                   f"{r['predict_cell']:g} minutes a prediction cell", f"{r['code_exercise']:g} minutes a code exercise",
                   f"{r['predict_exercise']:g} a prediction exercise", f"{r['problem']:g} a problem"):
        assert stated in text, stated
    assert "estimate" in text and "python -m svmteach.exercises.kit" in text


def test_counting_a_notebook():
    """The counter on a small notebook: prose words without formulas, code cells without the exercises' and
    problems' cells, predictions, exercises by kind, problems."""
    nb = {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# Title\n\nTwo words $x^2 + y$ and `code`."},
        {"cell_type": "markdown", "metadata": {"svmteach": {"predict": "p"}}, "source": "**Predict, then run.** Go."},
        {"cell_type": "code", "metadata": {}, "source": "1 + 1"},
        {"cell_type": "markdown", "metadata": {"svmteach": {"intro": "dca_update"}}, "source": "many words here"},
        {"cell_type": "code", "metadata": {"svmteach": {"exercise": "dca_update"}}, "source": ""},
        {"cell_type": "code", "metadata": {"svmteach": {"check": "dca_update"}}, "source": ""},
        {"cell_type": "code", "metadata": {"svmteach": {"exercise": "predict_C_grows"}}, "source": ""},
        {"cell_type": "markdown", "metadata": {"svmteach": {"problem": "03.1"}}, "source": "a problem"},
        {"cell_type": "code", "metadata": {"svmteach": {"answer": "03.1"}}, "source": ""},
    ]}
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "99_tiny.ipynb"
        path.write_text(json.dumps(nb), encoding="utf-8")
        c = kit.notebook_counts(path)
    # "Title Two words and x" + "Predict then run Go" = 5 + 4 words
    assert (c.prose_words, c.code_cells, c.predict_cells, c.code_exercises, c.predict_exercises, c.problems) == (
        9, 1, 1, 1, 1, 1)
