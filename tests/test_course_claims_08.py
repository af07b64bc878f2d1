"""What notebook 08 (at scale) claims, checked against oracles that share no code with svmteach.

- The bias: on iris a model without one loses more than 10 points (13 to 18 here), and a constant feature
  (x, 1) gives it back; on digits the single machines need none, one-vs-rest does.
- The checked cells print these as claims with room (a test point of 45 or 5 of 540 either way, issue 26):
  each holds for svmteach's models with that room, and for LIBLINEAR's, with and without an intercept.
  Oracle: scikit-learn's LinearSVC with
  ``multi_class="crammer_singer"`` (LIBLINEAR's Crammer-Singer solver), with and without its intercept.
- The picture behind it: the origin's distance to the bisector of two class means, ``r_ab``, computed by the
  notebook's own function, against the distance measured from the midpoint of the means.
- Two runs certified to a relative gap eps agree on the primal to eps max(P1, P2): both runs (sequential,
  parallel) against the dual optimum of a general QP solver (Clarabel, ``oracles.py``).

The notebook prints these claims in its checked cells (nbval); these tests hold them to an oracle.
"""

import json
import warnings
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from oracles import cs_dual_optimum, ww_dual_optimum
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from svmteach import MulticlassProblem, MulticlassSVC, OneVsOneSVC, OneVsRestSVC, data
from svmteach import objectives as obj

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "08_at_scale.ipynb"


def split(X, y, constant):
    """The notebook's split: standardised features, with a constant 1 appended if asked, 30% held out."""
    X = StandardScaler().fit_transform(X)
    if constant:
        X = np.hstack([X, np.ones((len(X), 1))])
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


def accuracy(model, X, y, constant):
    Xtr, Xte, ytr, yte = split(X, y, constant)
    return (model.fit(Xtr, ytr).predict(Xte) == yte).mean()


def liblinear_cs(C):
    """LIBLINEAR's Crammer-Singer (no intercept: the features decide), solved tightly."""
    return LinearSVC(C=C, multi_class="crammer_singer", fit_intercept=False, tol=1e-8, max_iter=100_000)


@pytest.mark.parametrize("loss", ["ww", "cs"])
def test_on_iris_the_missing_bias_costs_and_the_constant_feature_restores_it(loss):
    X, y = data.iris()
    ours = [accuracy(MulticlassSVC(loss=loss, C=1.0, fit_intercept=False, random_state=0), X, y, c) for c in (False, True)]
    oracle = [accuracy(liblinear_cs(1.0), X, y, c) for c in (False, True)]
    assert oracle[0] <= 0.85 and oracle[1] >= 0.95, oracle  # the effect is the problem's, not the library's
    assert ours[0] <= 0.85 and ours[1] >= 0.95, ours
    assert np.allclose(ours, oracle, atol=0.03), (ours, oracle)  # within one test flower of the oracle


def test_on_digits_the_single_machines_need_no_bias_and_one_vs_rest_does():
    X, y = data.digits()
    for model in (MulticlassSVC(loss="ww", C=0.1, fit_intercept=False, random_state=0),
                  MulticlassSVC(loss="cs", C=0.1, fit_intercept=False, random_state=0), liblinear_cs(0.1)):
        without, with_ = (accuracy(model, X, y, c) for c in (False, True))
        assert abs(with_ - without) <= 0.01, (model, without, with_)
    ovr = [accuracy(OneVsRestSVC(C=0.1, solver="dual_cd", fit_intercept=False, random_state=0), X, y, c)
           for c in (False, True)]
    assert ovr[1] - ovr[0] >= 0.05, ovr


def liblinear_ovr_with_bias(C):
    """LIBLINEAR's one-vs-rest hinge-loss SVM with an intercept (a constant feature of 10: a lightly penalised
    bias; converged at tol 1e-4, where a constant of 100 takes LIBLINEAR 15 s on digits and does not converge)."""
    return LinearSVC(C=C, loss="hinge", fit_intercept=True, intercept_scaling=10, tol=1e-4, max_iter=100_000)


def model_accuracies(X, y, C):
    """The test accuracies of notebook 8's four models (the two reductions by SMO, the two single machines
    without a bias) at C, as its sections 1 and 3 fit them."""
    return {name: accuracy(model, X, y, False) for name, model in [
        ("ovr", OneVsRestSVC(C=C, solver="smo")), ("ovo", OneVsOneSVC(C=C, solver="smo")),
        ("ww", MulticlassSVC(loss="ww", C=C, fit_intercept=False, random_state=0)),
        ("cs", MulticlassSVC(loss="cs", C=C, fit_intercept=False, random_state=0))]}


def test_the_checked_claims_of_sections_1_and_3_hold_with_the_room_they_state():
    """Section 1 (iris, 45 test flowers): each reduction gets at most 3 wrong and each single machine tests more
    than 10 points below each reduction, still true with one flower moved against either claim; section 3 (digits,
    540 test digits): every model above 0.95 and each single machine within 3 points of the better reduction,
    still true with 5 digits moved against either.  LIBLINEAR (one-vs-rest with an intercept, Crammer-Singer without) says the same."""
    X, y = data.iris()
    ours = model_accuracies(X, y, C=1.0)
    flower = 1 / 45
    assert min(ours["ovr"], ours["ovo"]) - flower >= 42 / 45, ours
    assert max(ours["ww"], ours["cs"]) + flower < min(ours["ovr"], ours["ovo"]) - 0.10, ours
    reduction, single = accuracy(liblinear_ovr_with_bias(1.0), X, y, False), accuracy(liblinear_cs(1.0), X, y, False)
    assert reduction >= 42 / 45 and single < reduction - 0.10, (reduction, single)

    X, y = data.digits()
    ours = model_accuracies(X, y, C=0.1)
    room = 5 / 540
    assert min(ours.values()) - room > 0.95, ours
    assert min(ours["ww"], ours["cs"]) - room >= max(ours["ovr"], ours["ovo"]) - 0.03, ours
    reduction, single = accuracy(liblinear_ovr_with_bias(0.1), X, y, False), accuracy(liblinear_cs(0.1), X, y, False)
    assert min(reduction, single) > 0.95 and single >= reduction - 0.03, (reduction, single)


def notebook_function(name):
    """The function ``name`` as the notebook defines it (its cell's source, executed here)."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    (source,) = ["".join(c["source"]) for c in cells if f"def {name}(" in "".join(c["source"])]
    namespace = {"np": np, "StandardScaler": StandardScaler, "combinations": combinations}
    exec(source.split("\nr_iris")[0], namespace)  # the definition, not the lines that print
    return namespace[name]


def test_origin_to_bisector_is_the_distance_to_the_bisector_of_the_means():
    origin_to_bisector = notebook_function("origin_to_bisector")
    for X, y in (data.iris(), data.digits()):
        r = origin_to_bisector(X, y)
        Z = StandardScaler().fit_transform(X)
        for a, b in combinations(np.unique(y), 2):
            mu_a, mu_b = Z[y == a].mean(axis=0), Z[y == b].mean(axis=0)
            v, midpoint = mu_a - mu_b, (mu_a + mu_b) / 2  # the bisector: v'x = v'midpoint
            origin = abs(v @ midpoint) / np.linalg.norm(v)
            mean = abs(v @ (mu_a - midpoint)) / np.linalg.norm(v)  # = ||v|| / 2
            assert r[(a, b)] == pytest.approx(origin / mean, rel=1e-12)
    r_iris, r_digits = origin_to_bisector(*data.iris()), origin_to_bisector(*data.digits())
    assert max(r_iris, key=r_iris.get) == (1, 2) and r_iris[(1, 2)] > 1  # versicolor, virginica: origin not between
    assert max(r_digits.values()) <= 0.6 and len(r_digits) == 45


@pytest.mark.parametrize("loss", ["ww", "cs"])
def test_two_certified_runs_agree_on_the_primal_to_the_gap(loss):
    Xd, yd = data.digits()
    sample = np.random.default_rng(1).choice(len(yd), size=80, replace=False)
    X, y = Xd[sample], yd[sample]
    eps = 1e-4
    seq = MulticlassSVC(loss=loss, C=0.1, tol=eps, fit_intercept=False, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="solver='parallel' is meant for a GPU", category=UserWarning)
        par = MulticlassSVC(loss=loss, C=0.1, tol=eps, solver="parallel", max_iter=20_000, fit_intercept=False).fit(X, y)
    p = MulticlassProblem(X, y, C=0.1, loss=loss)
    best = ww_dual_optimum(X, p.codes, 0.1, 1.0) if loss == "ww" else cs_dual_optimum(X, p.codes, 0.1)
    P = [obj.multiclass_primal(p, m.coef_) for m in (seq, par)]
    assert seq.result_.gap <= eps and par.result_.gap <= eps
    for value in P:  # P* = D* <= P <= P* + eps P
        assert best * (1 - 1e-8) <= value <= best + eps * value, (value, best)
    assert abs(P[0] - P[1]) <= eps * max(P)
