"""The claims notebooks 1 and 2 make, held to independent oracles (scikit-learn's SVC, brute force).  The checks
of the library that the notebooks moved to their teacher appendix are in tests/test_derivations.py
(test_the_library_computes_what_the_notebooks_derive), with those of the other notebooks."""

import numpy as np
import pytest
import sympy as sp
from sklearn.svm import SVC

from svmteach import BinarySVC, data
from svmteach.derivations import VERIFIED, general_duality

WORKED_X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
WORKED_Y = np.array([-1.0, 1.0, 1.0])


def test_every_general_duality_step_is_verified():
    steps = general_duality.steps()
    assert len(steps) == 6
    assert [(s.name, s.verdict) for s in steps if s.status != VERIFIED] == []
    assert general_duality.check("conjugate of the hinge").ok


def test_a_wrong_worked_example_fails(monkeypatch):
    right = general_duality.worked_example

    def wrong(C_value):  # alpha_1 halved: y'alpha = 0 breaks, P != D
        r = right(C_value)
        r["alpha"] = r["alpha"].copy()
        r["alpha"][0] = r["alpha"][0] / 2
        return r

    monkeypatch.setattr(general_duality, "worked_example", wrong)
    assert {s.name for s in general_duality.steps() if s.status != VERIFIED} == {
        "worked example at C = 1", "worked example at C = 1/4"}


@pytest.mark.parametrize("C", [1.0, 0.25, 0.1, 0.75, 3.0])
def test_the_worked_example_matches_svc_and_the_library(C):
    exact = general_duality.worked_example(sp.nsimplify(C))
    alpha = np.array(exact["alpha"], dtype=float).ravel()
    w, b = np.array(exact["w"], dtype=float).ravel(), float(exact["b"])
    svc = SVC(kernel="linear", C=C, tol=1e-12).fit(WORKED_X, WORKED_Y)
    np.testing.assert_allclose(svc.coef_[0], w, atol=1e-8)
    np.testing.assert_allclose(svc.intercept_[0], b, atol=1e-8)
    full = np.zeros(3)
    full[svc.support_] = np.abs(svc.dual_coef_[0])
    np.testing.assert_allclose(full, alpha, atol=1e-8)
    ours = BinarySVC(C=C, tol=1e-12, solver="smo").fit(WORKED_X, WORKED_Y)
    np.testing.assert_allclose(ours.coef_[0], w, atol=1e-8)
    np.testing.assert_allclose(ours.intercept_[0], b, atol=1e-8)
    np.testing.assert_allclose(ours.alpha_, alpha, atol=1e-8)
    # below C = 1/2 the negative point is on the wrong side: y_1 f(x_1) = 2C - 1
    margins = np.array(exact["margins"], dtype=float).ravel()
    np.testing.assert_allclose(margins[0], 2 * min(C, 1) - 1)


def test_the_margin_never_widens_as_C_grows():
    X, y = data.overlapping_blobs(20, seed=2)
    norms = [np.linalg.norm(SVC(kernel="linear", C=C, tol=1e-12).fit(X, y).coef_)
             for C in np.geomspace(0.01, 10, 25)]
    assert np.all(np.diff(norms) >= -1e-7)


def test_the_number_of_support_vectors_can_grow_with_C():
    X, y = data.overlapping_blobs(20, seed=2)
    counts = []
    for C in (0.04, 0.05, 0.06):
        svc = SVC(kernel="linear", C=C, tol=1e-12).fit(X, y)
        a = np.abs(svc.dual_coef_[0])
        assert np.all((a > 1e-4 * C) | (a < 1e-9 * C))  # no multiplier near the cut-off: the count is clear
        counts.append(len(svc.support_))
        assert len(BinarySVC(C=C, tol=1e-12, solver="smo").fit(X, y).support_) == counts[-1]
    assert counts == [14, 15, 14]


def test_the_nonconvex_gap_by_brute_force():
    # p* over the feasible set {0, 2} with x <= 1; d* by a grid over (lambda, nu), the inner inf over a wide x grid
    xs = np.linspace(-50, 50, 20001)
    assert min(-v for v in (0.0, 2.0) if v <= 1) == 0
    best = -np.inf
    for lam in np.linspace(0, 3, 31):
        for nu in np.linspace(0, 2, 41):
            best = max(best, np.min(-xs + lam * (xs - 1) + nu * xs * (xs - 2)))
    assert -1.0 - 1e-9 <= best <= -1.0 + 1e-3


def test_boyd_exercise_5_21_has_a_gap_of_one_numerically():
    t = np.geomspace(1, 1e6, 50)
    for lam in (0.0, 1.0, 100.0):
        L = np.exp(-t) + lam * t**2 / t**3  # along x = t, y = t^3
        assert L[-1] < 1e-3 and np.all(L >= 0)  # positive in exact arithmetic; e^{-t} underflows to 0
