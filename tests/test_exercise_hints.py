"""The exercises' hints: two tiers (what is wrong with the answer, then the equation), never the solution's code;
the misdiagnoses of issue 28 fixed, each with the student function that triggered it; one source for each
exercise's statement (the package's ``intro``, synced into the notebooks' intro cells)."""

from __future__ import annotations

import inspect
import math
import re
import shutil
from pathlib import Path

import nbformat
import numpy as np
import pytest

from svmteach import exercises
from svmteach.exercises import multiclass as mc
from svmteach.exercises.notebooks import intro_name, intro_source, sync_intros

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ref = exercises.solution


def _box(v, lo, hi):
    return min(max(v, lo), hi)


def check1(name, fn):
    """The first tier, whatever was checked before in this session."""
    return exercises.check(name, fn, hint=1)


# ---- the misdiagnoses of issue 28 -----------------------------------------------------------------------


def cs229_pair_update(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, L, H):
    """The CS229 handout's step, alpha_j - y_j (E_i - E_j) / eta, typed with this course's eta (its negative)."""
    if eta <= 0:  # the handout skips such a pair
        return alpha_i, alpha_j
    new_j = _box(alpha_j - y_j * (E_i - E_j) / eta, L, H)
    return alpha_i + y_i * y_j * (alpha_j - new_j), new_j


def test_the_cs229_sign_convention_is_not_told_that_y_j_is_missing():
    r = check1("smo_pair_update", cs229_pair_update)
    assert not r.passed and r.failure.case == 1, r
    assert "CS229" in r.failure.hint and "the factor y_j is missing" not in r.failure.hint, r


def alpha_i_from_the_unclipped_alpha_j(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, L, H):
    if eta <= 0:
        return ref("smo_pair_update")(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, L, H)
    unclipped = alpha_j + y_j * (E_i - E_j) / eta
    return alpha_i + y_i * y_j * (alpha_j - unclipped), _box(unclipped, L, H)


def test_alpha_i_from_the_unclipped_alpha_j_is_told_so_not_to_clip_alpha_j():
    r = check1("smo_pair_update", alpha_i_from_the_unclipped_alpha_j)
    assert not r.passed and "clip" in r.failure.label, r
    assert "alpha_j is right, alpha_i is wrong" in r.failure.problem, r
    assert "UNCLIPPED" in r.failure.hint and "clip the new alpha_j" not in repr(r), r


def smo_bounds_with_i_and_j_swapped(alpha_i, alpha_j, y_i, y_j, C):
    """The segment of alpha_i instead of alpha_j."""
    if y_i != y_j:
        return max(0.0, alpha_i - alpha_j), min(C, C + alpha_i - alpha_j)
    return max(0.0, alpha_i + alpha_j - C), min(C, alpha_i + alpha_j)


def test_smo_bounds_with_i_and_j_swapped_is_not_told_the_label_patterns_are_swapped():
    r = check1("smo_bounds", smo_bounds_with_i_and_j_swapped)
    assert not r.passed and r.failure.case == 1, r
    assert "i and j swapped" in r.failure.hint and "label patterns" not in r.failure.hint, r
    # on case 1 the label-pattern mistake gives the same (L, H): the other cases tell the two apart
    case = exercises.exercise("smo_bounds").cases()[0]
    assert smo_bounds_with_i_and_j_swapped(*case.inputs.values()) == ref("smo_bounds")(
        case.inputs["alpha_i"], case.inputs["alpha_j"], -case.inputs["y_i"], case.inputs["y_j"], case.inputs["C"])


def test_the_label_patterns_swapped_are_still_told_so():
    r = check1("smo_bounds", lambda ai, aj, yi, yj, C: ref("smo_bounds")(ai, aj, -yi, yj, C))
    assert not r.passed and "label patterns are swapped" in r.failure.hint, r


def test_dca_update_returning_0_on_a_flat_zero_row_fails():
    def zero_when_flat(alpha_i, g_i, Q_ii, C):
        if Q_ii > 0:
            return _box(alpha_i + g_i / Q_ii, 0.0, C)
        return C if g_i > 0 else 0.0

    r = check1("dca_update", zero_when_flat)
    assert not r.passed and "flat" in r.failure.label, r
    assert "return alpha_i, not 0" in r.failure.hint, r
    assert "do not move: return $\\alpha_i$" in exercises.exercise("dca_update").intro


def test_relative_gap_with_a_zero_primal_is_specified_and_checked():
    ex = exercises.exercise("relative_gap")
    assert "infinite gap with the sign of $P - D$" in ex.intro
    assert ref("relative_gap")(0.0, -0.5) == math.inf and ref("relative_gap")(0.0, 1e-3) == -math.inf
    r = check1("relative_gap", lambda P, D: 0.0 if P == 0 else (P - D) / abs(P))
    assert not r.passed and "P = 0 and D < 0" in r.failure.label, r
    assert "infinite" in r.failure.hint, r
    r = check1("relative_gap", lambda P, D: (P - D) / abs(P) if P else (0.0 if D == 0 else math.nan))
    assert not r.passed and "NaN" in r.failure.problem, r
    r = check1("relative_gap", lambda P, D: (P - D) / abs(P))  # 0 / 0 and x / 0 raise: a failed result
    assert not r.passed and "raised ZeroDivisionError" in r.failure.problem, r
    assert exercises.check("relative_gap", lambda P, D: math.copysign(math.inf, P - D) if P == 0 and D != 0
                           else 0.0 if P == 0 else (P - D) / abs(P)).passed


def test_kkt_category_prints_its_inputs_at_full_precision():
    def exact(alpha_i, margin_i, C, tol):  # compares without tol
        if alpha_i == 0:
            return "zero" if margin_i >= 1 else "violated"
        if alpha_i == C:
            return "bound" if margin_i <= 1 else "violated"
        return "free" if margin_i == 1 else "violated"

    r = check1("kkt_category", exact)
    assert not r.passed and "within tol of C" in r.failure.label, r
    assert "alpha_i=9.999999999" in r.failure.inputs and "margin_i=1.00000001" in r.failure.inputs, r


def _d_by_k(fn):
    """A student's function that reads W as d x k (one column per class)."""
    return fn


@pytest.mark.parametrize("name, student", [
    ("ww_gradient", lambda W, X, y, M: ref("ww_gradient")(W.T, X, y, M)),
    ("cs_gradient", lambda W, x, y: W.T @ x + (np.arange(W.shape[1]) != y)),
    ("multiclass_primal", lambda W, X, y, C, loss, M: ref("multiclass_primal")(W.T, X, y, C, loss, M)),
])
def test_a_w_read_as_d_by_k_gets_the_orientation_hint_not_a_traceback(name, student):
    r = check1(name, student)
    assert not r.passed and r.failure is not None, r
    assert r.failure.hint == mc.ORIENTATION, r
    assert "k x d" in r.failure.hint and "Traceback" not in repr(r)


def test_the_simplex_cases_say_how_many_entries_are_cut():
    for case in exercises.exercise("project_simplex").cases():
        if "cut" not in case.label:
            continue
        zeros = int(np.count_nonzero(ref("project_simplex")(*case.inputs.values()) == 0))
        said = 0 if "nothing is cut" in case.label else 1 if "one entry" in case.label else int(case.label.split()[1])
        assert said == zeros, case.label
    labels = [c.label for c in exercises.exercise("project_simplex").cases()]
    assert "outside: 3 of the 5 entries are cut to 0" in labels


# ---- what the first tier says: sign, scale, shape, which entry ------------------------------------------


def test_the_first_tier_names_a_sign_a_scale_a_shape_and_the_wrong_entry():
    r = check1("relative_gap", lambda P, D: 2 * (P - D) / abs(P) if P else 0.0)
    assert "2 times the expected value" in r.failure.problem, r
    r = check1("gaussian_gram", lambda X, Z, g: -ref("gaussian_gram")(X, Z, g))
    assert "negative of the expected value" in r.failure.problem, r
    r = check1("gaussian_gram", lambda X, Z, g: ref("gaussian_gram")(X, Z, g).T)
    assert "transpose" in r.failure.problem, r
    r = check1("smo_bounds", lambda *a: tuple(reversed(ref("smo_bounds")(*a))))
    assert "swapped (L comes first)" in r.failure.problem, r


# ---- the tiers -------------------------------------------------------------------------------------------


def _flipped_dca(alpha_i, g_i, Q_ii, C):
    return _box(alpha_i - g_i / Q_ii, 0.0, C) if Q_ii > 0 else alpha_i


def test_a_second_failing_check_adds_the_nudge_a_third_the_equation_and_a_pass_forgets():
    ex = exercises.exercise("dca_update")
    exercises.check("dca_update", ref("dca_update"))  # a pass: the next failure is a first one
    first = exercises.check("dca_update", _flipped_dca)
    assert first.tier == 1 and ex.nudge not in repr(first) and ex.equation not in repr(first), first
    assert "hint=2" in repr(first), first
    second = exercises.check("dca_update", _flipped_dca)
    assert second.tier == 2 and f"a nudge: {ex.nudge}" in repr(second) and ex.equation not in repr(second), second
    assert "hint=3" in repr(second), second
    third = exercises.check("dca_update", _flipped_dca)
    assert third.tier == 3 and ex.nudge in repr(third) and f"the equation: {ex.equation}" in repr(third), third
    assert exercises.check("dca_update", _flipped_dca).tier == 3  # and it stays there
    assert exercises.check("dca_update", ref("dca_update")).passed
    assert exercises.check("dca_update", _flipped_dca).tier == 1


def test_hint_3_gives_the_equation_at_once_hint_2_the_nudge_and_hint_1_neither():
    ex = exercises.exercise("shark_step")
    wrong = lambda g, a, q, M, C: -ref("shark_step")(g, a, q, M, C)  # noqa: E731
    assert ex.equation in repr(exercises.check("shark_step", wrong, hint=3))
    two = repr(exercises.check("shark_step", wrong, hint=2))
    assert ex.nudge in two and ex.equation not in two
    for _ in range(3):
        one = repr(exercises.check("shark_step", wrong, hint=1))
        assert ex.equation not in one and ex.nudge not in one
    for bad in (0, 4, True, "2", 1.5):
        with pytest.raises(ValueError, match="hint must be 1, 2, 3 or None"):
            exercises.check("shark_step", wrong, hint=bad)


WORDS_OF_A_FORMULA = re.compile(r"=|\bclip|\bmax\(|\bmin\(|/ \(|\bexp\(")


def test_every_code_exercise_has_a_nudge_that_is_not_the_update():
    """The second tier says which quantity or which constraint to look at; the result itself waits for the third:
    no nudge writes the update (no '=' and no formula of the step), and none is the equation."""
    for e in exercises.catalog():
        if e.kind == "predict":
            assert not e.nudge, e.name  # a prediction's second tier is its reasoning
            continue
        assert e.nudge and e.nudge not in e.equation, e.name
        formula = re.sub(r"\(K \+ lambda I\)\^\{-1\}|G = |beta = r \(C_i - alpha_i - delta\)|"
                         r"g = 1 - Q alpha", "", e.nudge)  # the names the nudges use for their quantities
        assert not WORDS_OF_A_FORMULA.search(formula), (e.name, e.nudge)


def _code_lines(fn):
    """The lines of a reference solution's body that compute something (no docstring, no comment)."""
    body = inspect.getsource(fn).split('"""')[-1]
    return [line.split("#")[0].strip() for line in body.splitlines() if len(line.split("#")[0].strip()) > 12]


@pytest.mark.parametrize("name", list(exercises.EXERCISES))
def test_no_tier_prints_the_solution_code(name):
    ex = exercises.exercise(name)
    texts = [ex.equation, ex.intro, *(m.hint for m in ex.mistakes), *(v.hint for v in ex.variants),
             *(c.hint or "" for c in ex.cases())]
    for text in texts:
        for code in ("np.", "def ", "min(max(", "[:, None]"):
            assert code not in text, (name, code, text)
        assert not re.search(r"lambda( \w+(, \w+)*)?:", text), (name, text)
    r = exercises.check(name, lambda *args: None, hint=3)
    shown = repr(r)
    for line in _code_lines(ex.reference):
        assert line not in shown, (name, line)
    assert ex.equation in shown


# ---- derive first, and one source for each statement ----------------------------------------------------


def test_a_third_of_the_exercises_ask_to_derive_first_or_to_predict():
    """Issue 28, section 3: at least a third derive before implementing, or predict and explain."""
    derive = [e for e in exercises.catalog() if e.kind == "derive"]
    predict = [e for e in exercises.catalog() if e.kind == "predict"]
    assert len(derive) >= 12 and len(predict) >= 3 and 3 * (len(derive) + len(predict)) >= len(exercises.catalog())
    for e in derive:
        assert e.intro.startswith("**Derive, then write.**"), e.name
    for e in predict:
        assert e.intro.startswith("**Predict, then run.**"), e.name
    assert {e.name for e in derive} >= {"dca_update", "smo_bounds", "smo_pair_update", "shark_step", "cs_block_update",
                                        "loo_residuals", "ww_gradient",  # and issue 46's five more:
                                        "hinge_subgradient", "kkt_category", "dca_gradient_update", "cs_gradient",
                                        "project_simplex"}


DERIVED_IN_THE_TEXT = {  # what each newly derive-first exercise asks for, as the text before its intro would state it
    "hinge_subgradient": r"w - C \sum_{i:\, y_i w^\top x_i < 1} y_i x_i",
    "kkt_category": r"y_i f(x_i) \ge 1",
    "dca_gradient_update": "Q_{:, i}",
    "cs_gradient": r"w_m^\top x_i + \Delta_i^m",
    "project_simplex": "by sorting as section 4 derives",
}


@pytest.mark.parametrize("name", list(DERIVED_IN_THE_TEXT))
def test_a_derive_first_exercise_does_not_state_its_result_and_its_section_says_derive_first(name):
    e = exercises.exercise(name)
    assert DERIVED_IN_THE_TEXT[name] not in e.intro, e.intro
    nb = nbformat.read(next(NOTEBOOKS.glob(f"{e.notebook}_*.ipynb")), as_version=4)
    k = next(k for k, c in enumerate(nb.cells) if intro_name(c) == name)
    earlier = [c.source for c in nb.cells[:k] if c.cell_type == "markdown"]
    # the nearest "Derive first" note before the intro comes before the text that states the result
    notes = [j for j, text in enumerate(earlier) if "*Derive first.*" in text]
    assert notes, name
    assert "exercise" in earlier[notes[-1]].split("*Derive first.*")[1][:120], earlier[notes[-1]][:300]


def test_the_statement_is_the_intro_in_plain_text():
    for e in exercises.catalog():
        assert e.statement and "$" not in e.statement and "\\" not in e.statement and "`" not in e.statement, e.name
    assert "1/2 ||w||^2" in exercises.exercise("hinge_subgradient").statement
    assert "alpha_{i y_i}" in exercises.exercise("ww_gradient").statement


def test_sync_intros_writes_the_packages_text_and_nothing_else(tmp_path):
    source = NOTEBOOKS / "04_smo.ipynb"
    copy = tmp_path / source.name
    shutil.copy2(source, copy)
    nb = nbformat.read(copy, as_version=4)
    before = [(c.cell_type, c.source, dict(c.metadata)) for c in nb.cells]
    sync_intros(nb)
    assert sync_intros(nb) == []  # a second sync changes nothing
    nbformat.write(nb, copy)
    nb = nbformat.read(copy, as_version=4)
    names = []
    for (kind, text, meta), cell in zip(before, nb.cells):
        assert cell.cell_type == kind and dict(cell.metadata) == meta
        name = intro_name(cell)
        if name:
            names.append(name)
            assert cell.source == intro_source(name)
            assert cell.source.startswith(f"### Exercise: {exercises.exercise(name).title}\n\n")
        else:
            assert cell.source == text
    assert names == ["smo_pair_update", "smo_bounds", "predict_rule_race"]  # each before the text that answers it


@pytest.mark.parametrize("name, student", [
    ("ww_gradient", lambda W, X, y, M: M * ((X @ W)[np.arange(len(y)), y][:, None] - X @ W) - 1),
    ("multiclass_primal", lambda W, X, y, C, loss, M: 0.5 * np.sum(W * W) + C * np.sum(X @ W)),
])
def test_a_shape_error_with_w_read_as_d_by_k_reminds_the_orientation(name, student):
    """Wrong in more than the orientation, and raising where d != k: the hint still says what W is."""
    r = check1(name, student)
    assert not r.passed and r.failure.problem.startswith("raised ValueError"), r
    assert "the shapes do not fit together: here W has shape" in r.failure.hint, r
    assert mc.ORIENTATION_REMINDER in r.failure.hint, r


#: where each derive-first exercise's answer, or each prediction's reveal, starts in its notebook
ANSWERED_BY = {
    "dca_update": "## One coordinate: a parabola",
    "smo_pair_update": "## Step 2: the dual along the line is a parabola",
    "smo_bounds": "## Step 4: stay in the box",
    "loo_residuals": "**The derivation** (try the exercise above first)",
    "ww_gradient": "**The gradient, derived**",
    "shark_step": "### Shark's step: one coordinate at a time",
    "predict_C_grows": "## What $C$ does, and what it does not",
    "predict_support_vectors": "## 7. A worked example by hand",
    "predict_rule_race": 'for rule in ["random", "max_violating_pair", "second_order"]',
}
#: derive-first exercises that come after the derivation, and why (the lesson's flow needs it)
ANSWERED_BEFORE = {"cs_block_update": "it calls the student's project_simplex, whose exercise is in section 5",
                   # issue 46's five more: the section that answers opens with a "Derive first" note (tested below)
                   "hinge_subgradient": "its check runs the section's PrimalSubgradient, which the text introduces",
                   "kkt_category": "the KKT table closes Part II's proof of strong duality, which it completes",
                   "dca_gradient_update": "the notebook's derivation check follows the formula it derives",
                   "cs_gradient": "the slides' erratum on this gradient is shown before the exercise that avoids it",
                   "project_simplex": "the projection's figure (section 5) comes before its exercise"}


def test_each_derive_first_exercise_and_prediction_comes_before_its_answer():
    """The answer is not on the page above: the exercise's intro comes before the cell that derives or shows it."""
    asked = {e.name for e in exercises.catalog() if e.kind in ("derive", "predict")}
    assert asked == set(ANSWERED_BY) | set(ANSWERED_BEFORE)
    for name, marker in ANSWERED_BY.items():
        ex = exercises.exercise(name)
        (path,) = NOTEBOOKS.glob(f"{ex.notebook}_*.ipynb")
        cells = nbformat.read(path, as_version=4).cells
        intro = [k for k, c in enumerate(cells) if intro_name(c) == name]
        answer = [k for k, c in enumerate(cells) if marker in c.source]
        assert len(intro) == 1 and len(answer) == 1, (name, intro, answer)
        assert intro[0] < answer[0], f"{path.name}: {name}'s answer ({marker!r}) is above its exercise"
