"""The text's errors and clashes of issue 46, section 2, each against the notebook's own numbers or the library:
NB04's I_up, NB04's margin, problem 06.5's first ratio, NB01's kernel-cost conclusion, its geometric margin and the
slides' constant step, NB08's place in the course, the two numberings of the slides' classes, and NB07's
multipliers."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import numpy as np

from svmteach.exercises.problem_set import problem

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def cells(name):
    return nbformat.read(next(NOTEBOOKS.glob(f"{name}*.ipynb")), as_version=4).cells


def markdown(name) -> str:
    return "\n".join(c.source for c in cells(name) if c.cell_type == "markdown")


def test_nb04_step_two_lists_every_point_of_i_up():
    """I_up after SMO's first step on the course's three points, from the library's own step."""
    from svmteach import SMO, BinaryProblem, iterate

    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
    y = np.array([-1.0, 1.0, 1.0])
    C = 1.0
    first = list(iterate(SMO("max_violating_pair"), BinaryProblem(X, y, C=C), max_iter=1))[-1]
    alpha = np.asarray(first.alpha)
    assert np.allclose(alpha, [0.5, 0.5, 0.0])  # the state the notebook's step 2 starts from
    up = [t + 1 for t in range(3) if (y[t] > 0 and alpha[t] < C) or (y[t] < 0 and alpha[t] > 0)]
    text = markdown("04_")
    step2 = text[text.index("**Step 2.**"):]
    said = re.search(r"\$I_\{\\rm up\} = \\\{([\d, ]+)\\\}\$", step2).group(1)
    assert [int(v) for v in said.split(",")] == up == [1, 2, 3]


def test_nb04_writes_the_margin_with_f_including_b():
    assert "y_t(f(x_t) + b)" not in markdown("04_")


def test_problem_06_5_quotes_the_ratio_the_notebook_prints():
    """The first ratio m_2 / m_1 of notebook 6's Shark visit, recomputed from the library's run."""
    from svmteach import MulticlassProblem, WWShark, data, iterate

    X, y = data.multiclass_blobs(90, k=4, seed=0)
    block = list(iterate(WWShark(random_state=2), MulticlassProblem(X, y, C=1.0, loss="ww", M=1.0), max_iter=3))[-1].block
    ratio = f"{block.moves_m[1] / block.moves_m[0]:.2f}"
    assert ratio == "0.38"
    p = problem("06.5")
    assert f"about ${ratio}$" in p.statement and ratio in p.solution and "0.23" not in p.statement + p.solution
    assert f"about ${ratio}$" in markdown("06_")


def test_nb01_kernel_panel_says_what_the_two_runs_differ_in():
    text = markdown("01_")
    assert "with a kernel SMO wins" not in text
    paragraph = text[text.index("The right panel is no verdict on kernels"):][:900]
    for words in ("linear problem", "second-order", "random order", "bias"):
        assert words in paragraph, words


def test_nb01_geometric_margin_is_a_signed_distance():
    text = markdown("01_")
    assert "*signed* distance" in text and "and it is its distance to the boundary" not in text


def test_nb01_says_the_slides_constant_step_does_not_converge_and_shows_it():
    nb = cells("01_")
    text = markdown("01_")
    assert "*constant* step" in text and "does not converge" in text
    code = [c for c in nb if c.cell_type == "code" and 'step_size=rule' in c.source]
    assert len(code) == 1 and "NBVAL_CHECK_OUTPUT" in code[0].source
    out = "".join(o.get("text", "") for o in code[0].get("outputs", []))
    assert "constant step" in out and "less than over steps 1000-2000: False" in out
    assert "less than over steps 1000-2000: True" in out


def test_nb08_is_not_the_last_notebook():
    assert "It is the last notebook of the course" not in markdown("08_")
    assert "notebook 9" in markdown("08_") and list(NOTEBOOKS.glob("09_*.ipynb"))


def test_the_guide_and_nb07_state_both_numberings_of_the_slides():
    for name in ("00_", "07_"):
        text = markdown(name)
        i = text.index("table of symbols")
        near = text[i - 300:i + 400]
        assert r"\{0, 1, \dots, k-1\}" in near and r"m = 1, \dots, k" in near, name


def test_nb07_multipliers_keep_one_name_each():
    """Section 4's kappa_m (the projection's bounds) and section 3's nu_i (a sample's equality): the problems too."""
    text = markdown("07_")
    assert r"\kappa_m \ge 0" in text and r"\nu_i" in text
    p1, p2 = problem("07.1"), problem("07.2")
    assert r"\nu_m" not in p1.statement + p1.solution and r"\kappa_m" in p1.statement + p1.solution
    assert r"\eta" not in p2.solution and r"\nu" in p2.solution


def test_nb05_names_g_once_and_the_guide_lists_its_exceptions():
    """G = K + lambda I in notebook 5's text and in its exercise (the inverse is G^{-1}); the guide no longer
    promises what the notebooks do not keep, and names each local reuse."""
    from svmteach import exercises

    nb05 = markdown("05_")
    assert r"G = (K + \lambda I)^{-1}" not in nb05 and r"G = K + \lambda I" in nb05
    assert "G = (K + lambda I)^{-1}" not in exercises.exercise("loo_residuals").equation
    guide = markdown("00_")
    assert "No symbol has two meanings in one notebook" not in guide
    for local in ("$g$ for the dual function", "$Q$ for the eigenvectors", "parabola's coefficient"):
        assert local in guide, local
