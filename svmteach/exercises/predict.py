"""Predict-and-explain exercises: before a cell shows what an algorithm or a
parameter does, the student writes down a prediction and checks it.

Each is an :class:`~svmteach.exercises.core.Exercise` of kind ``"predict"``: the student completes a
function of no arguments that returns the prediction (words from a list, or point numbers); the
reference computes the truth on the notebook's own data with the library or scikit-learn (so a
change of data or solver changes the answer the checker expects, never a stale constant).  The
checker names which part of the prediction is wrong, never the right answer; each usual wrong
prediction has its own hint, and ``hint=2`` gives the reasoning.

- 01 ``predict_C_grows``: as C grows from 0.01 to 1, fewer or more support vectors, a wider or
  narrower margin (scikit-learn's SVC on the notebook's 60 points).
- 02 ``predict_support_vectors``: which of six points (the worked example and three more) are
  support vectors at C = 10 (scikit-learn's SVC).
- 04 ``predict_rule_race``: which working-set rule reaches a relative gap of 1e-6 in fewer pair
  steps on the notebook's 200 moons, and why (the library's SMO, as the notebook's race runs it).
"""

from __future__ import annotations

import functools
import itertools

from .core import Case, Exercise, Mistake

#: the notebooks' prediction cells start with this, as their unchecked predictions do
PREDICT_HEAD = "**Predict, then run.**"


def _answer_mistakes(parts, choices, truth, hints):
    """A :class:`Mistake` for every wrong tuple of answers: its hint joins the hint of each wrong part
    (``hints[part][word]``), so that each usual wrong prediction gets its own message."""
    mistakes = []
    for combo in itertools.product(*choices):
        if combo == truth:
            continue
        said = [hints[part][w] for part, w, t in zip(parts, combo, truth) if w != t and w in hints[part]]
        if said:
            mistakes.append(Mistake(lambda combo=combo: combo, " ".join(said)))
    return tuple(mistakes)


# ---- 01: what C does -------------------------------------------------------------------------------------


def predict_C_grows():
    """The truth: (support vectors, margin) as C grows from 0.01 to 1 on notebook 1's 60 points, from
    scikit-learn's SVC (an independent solver)."""
    import numpy as np
    from sklearn.svm import SVC

    from svmteach import data

    X, y = data.overlapping_blobs(n=60, seed=1)
    fits = [SVC(kernel="linear", C=C, tol=1e-8).fit(X, y) for C in (0.01, 1.0)]
    n_sv = [len(m.support_) for m in fits]
    width = [2.0 / np.linalg.norm(m.coef_) for m in fits]
    trend = {(True, False): "more", (False, True): "fewer", (False, False): "same"}
    margin = "wider" if width[1] > width[0] * (1 + 1e-6) else "narrower" if width[1] < width[0] * (1 - 1e-6) else "same"
    return trend[(n_sv[1] > n_sv[0], n_sv[1] < n_sv[0])], margin


C_PARTS = ("the support vectors", "the margin")
C_CHOICES = (("more", "fewer", "same"), ("wider", "narrower", "same"))
C_HINTS = {
    "the support vectors": {
        "more": ("A larger C makes slack dearer, so the solver lets fewer points sit inside the margin band, and a "
                 "point beyond its margin (y_i f(x_i) > 1) has alpha_i = 0: it is no support vector. (On this data; "
                 "the text below says why this half is not a theorem.)"),
        "same": ("The support vectors are the points on or inside their margin band, and the band changes with C: "
                 "count how many points it holds when it is wide and when it is narrow."),
    },
    "the margin": {
        "wider": ("C multiplies the slack, not ||w||^2 (it is the inverse of a regularisation strength): a larger C "
                  "makes slack dearer, and the solver buys less slack with a larger ||w||. What does that do to the "
                  "width 2/||w||?"),
        "same": ("The margin 2/||w|| moves with C: weigh 1/2 ||w||^2 against C times the total slack at two values of "
                 "C."),
    },
}

PREDICT_C_GROWS = Exercise(
    name="predict_C_grows", notebook="01", title="What happens as C grows",
    signature="predict_C_grows() -> (support_vectors, margin)",
    intro=(PREDICT_HEAD + r" The next cells fit the 60 points above at $C = 0.01$, $0.1$ and $1$ and draw each "
           r"solution. Before you run them: as $C$ grows from $0.01$ to $1$, do **more** or **fewer** points become "
           r"support vectors (or the **same** number), and does the margin $2/\|w\|$ get **wider** or **narrower** "
           r"(or stay the **same**)? Write `predict_C_grows()` returning the pair of words, e.g. "
           r"`('same', 'wider')`. Then explain your answer in one sentence with the primal "
           r"$\tfrac12\|w\|^2 + C\sum_i \xi_i$, and read on: the text below says which half of it is a theorem."),
    equation=("P(w, b) = 1/2 ||w||^2 + C * (total hinge loss): comparing the optima at C1 < C2 gives "
              "(C2 - C1)(H2 - H1) <= 0, so the total hinge loss falls and ||w|| grows with C; a support vector is "
              "a point with y_i f(x_i) <= 1, inside or on the margin band"),
    reference=predict_C_grows, cases=lambda: [Case("notebook 1's 60 points, C from 0.01 to 1", {})],
    output="answers", parts=C_PARTS, choices=C_CHOICES, kind="predict",
    mistakes=_answer_mistakes(C_PARTS, C_CHOICES, ("fewer", "narrower"), C_HINTS),
)


# ---- 02: where the support vectors are --------------------------------------------------------------------

#: six points: the course's worked example (points 1, 3, 5) and three more, at C = 10
SV_POINTS = ((2.0, 1.0), (0.0, 0.0), (-1.0, 0.5), (2.0, 0.0), (3.0, 3.0), (0.0, 2.0))
SV_LABELS = (1, -1, -1, 1, 1, 1)


def predict_support_vectors():
    """The truth: the numbers (from 0) of the support vectors of the six points at C = 10, from
    scikit-learn's SVC (an independent solver)."""
    import numpy as np
    from sklearn.svm import SVC

    X = np.array([(2.0, 1.0), (0.0, 0.0), (-1.0, 0.5), (2.0, 0.0), (3.0, 3.0), (0.0, 2.0)])
    y = np.array([1, -1, -1, 1, 1, 1])
    model = SVC(kernel="linear", C=10.0, tol=1e-10).fit(X, y)
    return tuple(sorted(int(i) for i in model.support_))


PREDICT_SUPPORT_VECTORS = Exercise(
    name="predict_support_vectors", notebook="02", title="Where the support vectors will be",
    signature="predict_support_vectors() -> list of point numbers",
    intro=(PREDICT_HEAD + r" Six points: the course's worked example and three more, numbered from $0$.\n\n"
           r"| point | 0 | 1 | 2 | 3 | 4 | 5 |\n|---|---|---|---|---|---|---|\n"
           r"| $x_i$ | $(2, 1)$ | $(0, 0)$ | $(-1, \tfrac12)$ | $(2, 0)$ | $(3, 3)$ | $(0, 2)$ |\n"
           r"| $y_i$ | $+1$ | $-1$ | $-1$ | $+1$ | $+1$ | $+1$ |\n\n"
           r"Without solving anything numerically: which of them will be support vectors ($\alpha_i > 0$) of the "
           r"soft-margin SVM with a bias at $C = 10$? Write `predict_support_vectors()` returning their numbers, "
           r"e.g. `[0, 4]`. Use the KKT table above: where must a point lie to have $\alpha_i > 0$? And do the "
           r"three extra points change the solution of the worked example (notebook 1)?").replace(r"\n", "\n"),
    equation=("KKT: alpha_i > 0 only if y_i f(x_i) <= 1, and y_i f(x_i) > 1 forces alpha_i = 0. The worked example's "
              "solution (w = (1, 1), b = -1, alpha = (1, 1/2, 1/2)) is optimal for every C >= 1; it stays optimal "
              "with the extra points (alpha_i = 0 for them) if each extra point has y_i f(x_i) >= 1 there: compute "
              "y_i (w'x_i + b) for each"),
    reference=predict_support_vectors, cases=lambda: [Case("the six points at C = 10", {})],
    output="indices", parts=("a support vector", "support vectors"), choices=tuple(range(6)), kind="predict",
    mistakes=(
        Mistake(lambda: (0, 1, 2, 3, 4, 5),
                "not every point is a support vector: complementary slackness gives alpha_i = 0 to every point with "
                "y_i f(x_i) > 1, and such a point does not enter w = sum_i alpha_i y_i x_i"),
        Mistake(lambda: (2, 4), "the support vectors are the points on or inside their margin, the ones nearest the "
                "boundary, not the extreme points of each class"),
        Mistake(lambda: (0, 2, 4), "the support vectors are the points on or inside their margin, the ones nearest "
                "the boundary, not the extreme points of each class"),
        Mistake(lambda: (0, 1, 3, 5),
                "(2, 1) lies between two points of the worked example, but what counts is its margin y f(x) under the "
                "worked example's solution: compute it"),
        Mistake(lambda: (1, 3), "both (2, 0) and (0, 2) lie on their margin line y f(x) = 1 of the worked example; "
                "the equality y'alpha = 0 and w = sum_i alpha_i y_i x_i need both"),
        Mistake(lambda: (1, 5), "both (2, 0) and (0, 2) lie on their margin line y f(x) = 1 of the worked example; "
                "the equality y'alpha = 0 and w = sum_i alpha_i y_i x_i need both"),
        Mistake(lambda: (3, 5), "a support vector of each class is needed: with a bias, y'alpha = 0 makes the "
                "negative point's alpha equal the positives' sum"),
    ),
)


# ---- 04: which working-set rule wins --------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _race():
    from svmteach import SMO, BinaryProblem, data, solve

    Xg, yg = data.moons(200, seed=0)
    moons = BinaryProblem(Xg, yg, C=10.0, kernel="gaussian", gamma=2.0)
    # the notebook's race without its curves: the same rules, problem, tol and shrinking=False; the notebook measures
    # every 20-step chunk for its curves, this run by the cheap stop, so the counts differ by where each checks its gap
    # (1,540 and 420 here, 1,400 and 390 in the notebook on this machine), the winner does not
    return tuple((rule, solve(SMO(rule, random_state=0, shrinking=False), moons, tol=1e-6, max_iter=100_000).n_iter)
                 for rule in ("max_violating_pair", "second_order"))


def smo_race() -> dict:
    """``{rule: pair steps}``: the library's SMO with each rule on notebook 4's 200 moons (C = 10, gaussian kernel
    with gamma = 2) to a relative gap of 1e-6, the notebook's race on the compiled path (computed once per session)."""
    return dict(_race())


def predict_rule_race():
    """The truth: the rule that reaches a relative gap of 1e-6 in fewer pair steps on notebook 4's 200 moons
    (the library's SMO, as the notebook's race runs it), and the reason that explains it."""
    from svmteach.exercises.predict import smo_race

    steps = smo_race()
    winner = min(steps, key=steps.get)
    return winner, {"second_order": "a", "max_violating_pair": "b"}[winner]


RULE_PARTS = ("the rule", "the reason")
RULE_CHOICES = (("max_violating_pair", "second_order"), ("a", "b", "c"))
RULE_HINTS = {
    "the rule": {
        "max_violating_pair": ("The largest violation is the steepest slope, but a step's gain is slope^2 / (2 eta): "
                               "a steep pair with a large curvature eta can gain less than a gentler pair with a "
                               "small one."),
    },
    "the reason": {
        "b": ("Reason (b) is the first-order argument, and it is wrong: the steepest pair is not the one that gains "
              "the most, because the gain of a pair step also depends on its curvature eta_it."),
        "c": ("Reason (c) is wrong: both rules pick the same i, but not the same j, and the partner j decides how far "
              "the step goes and how much it gains."),
    },
}

PREDICT_RULE_RACE = Exercise(
    name="predict_rule_race", notebook="04", title="Which working-set rule wins",
    signature="predict_rule_race() -> (rule, reason)",
    intro=(PREDICT_HEAD + r" The cell below races the rules on 200 moons ($C = 10$, gaussian kernel with "
           r"$\gamma = 2$) to a relative gap of $10^{-6}$, counting pair steps. Before you run it: which rule "
           r"reaches the tolerance in fewer pair steps, `'max_violating_pair'` (first order) or `'second_order'`? "
           r"And which reason explains it?\n\n"
           r"- (a) it picks the partner whose step gains the most, weighing the violation by the curvature: "
           r"$(y_i g_i - y_t g_t)^2 / \eta_{it}$;\n"
           r"- (b) it picks the pair with the largest violation $y_i g_i - y_j g_j$, and the steepest pair always "
           r"gains the most;\n"
           r"- (c) both rules pick the same pair $(i, j)$; only the cost of a step differs.\n\n"
           r"Write `predict_rule_race()` returning the rule's name and the letter, e.g. "
           r"`('max_violating_pair', 'c')`. (The random rule of the race is left out of the question: guess "
           r"where it lands too.)").replace(r"\n", "\n"),
    equation=("before clipping, a pair step on (i, t) gains (y_i g_i - y_t g_t)^2 / (2 eta_it) with eta_it = K_ii + "
              "K_tt - 2 K_it; max_violating_pair takes the largest numerator, second_order the largest whole gain "
              "over the partners t that violate with i"),
    reference=predict_rule_race, cases=lambda: [Case("notebook 4's 200 moons, to a relative gap of 1e-6", {})],
    output="answers", parts=RULE_PARTS, choices=RULE_CHOICES, kind="predict",
    mistakes=(Mistake(lambda: ("max_violating_pair", "a"),
                      "Reason (a) weighs the violation by the curvature, which is what the second-order rule does, not "
                      "the first-order one: does it fit the rule you chose?"),
              *_answer_mistakes(RULE_PARTS, RULE_CHOICES, ("second_order", "a"), RULE_HINTS)),
)

EXERCISES = (PREDICT_C_GROWS, PREDICT_SUPPORT_VECTORS, PREDICT_RULE_RACE)
