"""The predict-and-explain exercises (svmteach.exercises.predict, issue 28 section 3): the truth the checker
expects agrees with independent oracles (the library where the reference asks scikit-learn, hand reasoning
on the worked example, the notebook's own race), a right prediction passes, each usual wrong prediction gets
its own message naming the wrong part, and no failure ever prints the answer."""

from __future__ import annotations

import numpy as np
import pytest

from svmteach import BinarySVC, data, exercises
from svmteach.exercises import predict
from svmteach.exercises.notebooks import PREDICT_LINE, intro_source

PREDICTIONS = ["predict_C_grows", "predict_support_vectors", "predict_rule_race"]
TRUTH = {"predict_C_grows": ("fewer", "narrower"), "predict_support_vectors": (1, 3, 5),
         "predict_rule_race": ("second_order", "a")}


def check1(name, answer):
    """The first tier of the check of ``answer``, whatever was checked before in this session."""
    return exercises.check(name, lambda: answer, hint=1)


# ---- the truth, against independent oracles ----------------------------------------------------------


def test_the_predictions_are_the_kind_predict_in_their_notebooks():
    assert [e.name for e in exercises.catalog() if e.kind == "predict"] == PREDICTIONS
    assert {n: exercises.exercise(n).notebook for n in PREDICTIONS} == {
        "predict_C_grows": "01", "predict_support_vectors": "02", "predict_rule_race": "04"}
    for name in PREDICTIONS:
        assert intro_source(name).endswith(PREDICT_LINE)


def test_as_C_grows_the_library_also_finds_fewer_support_vectors_and_a_narrower_margin():
    """The reference asks scikit-learn's SVC; the library's SMO on notebook 1's points says the same."""
    X, y = data.overlapping_blobs(n=60, seed=1)
    fits = [BinarySVC(C=C, tol=1e-8, solver="smo").fit(X, y) for C in (0.01, 1.0)]
    assert len(fits[1].support_) < len(fits[0].support_)
    assert 2 / np.linalg.norm(fits[1].coef_) < 2 / np.linalg.norm(fits[0].coef_)
    assert exercises.solution("predict_C_grows")() == TRUTH["predict_C_grows"]


def test_the_support_vectors_are_the_worked_examples_points():
    """By hand: w = (1, 1), b = -1 is optimal for the worked example at C >= 1, and the three extra points
    have y f(x) > 1 under it, so they keep alpha = 0; the library's SMO agrees with scikit-learn's SVC."""
    X, y = np.array(predict.SV_POINTS), np.array(predict.SV_LABELS)
    margins = y * (X @ np.array([1.0, 1.0]) - 1.0)
    assert np.allclose(margins[[1, 3, 5]], 1.0) and np.all(margins[[0, 2, 4]] > 1.0)
    model = BinarySVC(C=10.0, tol=1e-12, solver="smo").fit(X, y)
    assert tuple(int(i) for i in np.flatnonzero(model.alpha_ > 1e-8)) == TRUTH["predict_support_vectors"]
    assert np.allclose(model.alpha_[[1, 3, 5]], [1.0, 0.5, 0.5], atol=1e-8)
    assert exercises.solution("predict_support_vectors")() == TRUTH["predict_support_vectors"]


def test_the_second_order_rule_wins_the_race_as_the_notebook_runs_it():
    steps = predict.smo_race()
    assert steps["second_order"] < steps["max_violating_pair"] / 2  # notebook 4 prints this comparison
    assert exercises.solution("predict_rule_race")() == TRUTH["predict_rule_race"]


# ---- the checker ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PREDICTIONS)
def test_a_right_prediction_passes_in_any_form_a_student_writes(name):
    answer = TRUTH[name]
    forms = [answer, list(answer)]
    if name == "predict_support_vectors":
        forms += [[5, 3, 1], {1, 3, 5}, np.array([1, 3, 5]), [1, 1, 3, 5]]
    else:
        forms += [tuple(f"  {w.upper().replace('_', '-')} " for w in answer)]
    for form in forms:
        r = exercises.check(name, lambda form=form: form)
        assert r.passed, (form, r)


@pytest.mark.parametrize("name", PREDICTIONS)
def test_a_stub_is_not_attempted_and_a_failure_never_prints_the_answer(name):
    assert exercises.check(name, lambda: NotImplemented).status == exercises.NOT_ATTEMPTED
    wrong = ("same", "same") if name == "predict_C_grows" else (0, 2) if name == "predict_support_vectors" \
        else ("max_violating_pair", "c")
    for tier in (1, 2):
        text = repr(exercises.check(name, lambda: wrong, hint=tier))
        assert "FAILED" in text and "expected:" not in text
        assert repr(TRUTH[name]) not in text and str(list(TRUTH[name])) not in text
    assert "the reasoning: " + exercises.exercise(name).equation in text  # tier 2: the reasoning


C_GROWS_WRONG = [
    (("more", "narrower"), "your answer about the support vectors is wrong (about the margin: right)",
     "is no support vector"),
    (("fewer", "wider"), "your answer about the margin is wrong (about the support vectors: right)",
     "inverse of a regularisation strength"),
    (("more", "wider"), "your answers about the support vectors and the margin are wrong",
     "inverse of a regularisation strength"),
    (("fewer", "same"), "your answer about the margin is wrong", "weigh 1/2 ||w||^2 against C"),
    (("same", "narrower"), "your answer about the support vectors is wrong", "count how many points it holds"),
]
SV_WRONG = [
    ([0, 1, 2, 3, 4, 5], "points 0, 2, 4 of your answer are not support vectors", "complementary slackness"),
    ([0, 1, 3, 5], "point 0 of your answer is not a support vector", "(2, 1) lies between"),
    ([2, 4], "points 2, 4 of your answer are not support vectors; 3 of the support vectors are missing",
     "not the extreme points"),
    ([1, 3], "1 of the support vectors is missing from your answer", "need both"),
    ([3, 5], "1 of the support vectors is missing from your answer", "a support vector of each class"),
    ([2, 4, 6], "returned point 6, but the points are numbered 0 to 5", None),
    ([1.5, 3], "returned 1.5 among the point numbers: each must be a whole number", None),
    ("1, 3, 5", "expected a list of point numbers", None),
]
RULE_WRONG = [
    (("max_violating_pair", "b"), "your answers about the rule and the reason are wrong", "slope^2 / (2 eta)"),
    (("second_order", "b"), "your answer about the reason is wrong (about the rule: right)",
     "Reason (b) is the first-order argument"),
    (("second_order", "c"), "your answer about the reason is wrong (about the rule: right)",
     "not the same j"),
    (("max_violating_pair", "a"), "your answer about the rule is wrong (about the reason: right)",
     "does it fit the rule you chose"),
    (("random", "a"), "answer 1 of your tuple is 'random', which is not one of 'max_violating_pair', 'second_order'",
     None),
    ("second_order", "expected a tuple of 2 answers", None),
]


@pytest.mark.parametrize("name, answer, problem, hint",
                         [("predict_C_grows", *row) for row in C_GROWS_WRONG]
                         + [("predict_support_vectors", *row) for row in SV_WRONG]
                         + [("predict_rule_race", *row) for row in RULE_WRONG],
                         ids=lambda v: str(v)[:40])
def test_each_usual_wrong_prediction_gets_its_own_message(name, answer, problem, hint):
    r = check1(name, answer)
    assert not r.passed and r.failure is not None
    assert problem in r.failure.problem, r
    if hint is not None:
        assert hint in r.failure.hint, r
    other_hints = {m.hint for m in exercises.exercise(name).mistakes} - {r.failure.hint}
    assert r.failure.hint not in other_hints
