"""svmteach.exercises: the reference solutions against the library's own steps and independent oracles;
every checker accepts its reference and rejects wrong solutions (the course's errata, sign errors,
off-by-ones, missing clips, functions that are right and then wrong, that raise, that modify their
inputs) with a message naming the failing case; the notebooks hold a stub and a check for each.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
from oracles import binary_dual_optimum, cs_dual_optimum, ww_dual_optimum

from svmteach import (SMO, BinaryProblem, CSBlondel, DualCoordinateAscent, MulticlassProblem, MulticlassSVC,
                      PrimalSubgradient, WWShark, data, iterate, solve)
from svmteach import exercises
from svmteach.exercises import multiclass as mc
from svmteach.exercises.notebooks import check_name, fill_solutions, stub_name
from svmteach.kernels import Kernel, gram
from svmteach.projections import project_simplex_sort
from svmteach.rls import loo_errors

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ref = exercises.solution


def picture(state):
    """The picture of a multiclass step: ``state.block`` where the state has one, else the state's own fields."""
    return getattr(state, "block", state)


# ---- the reference solutions against the library ------------------------------------------------------


def test_hinge_losses_give_the_solvers_primal():
    X, y = data.overlapping_blobs(40, seed=2)
    r = solve(SMO(), BinaryProblem(X, y, C=0.7), tol=1e-10)
    w = X.T @ (np.asarray(r.state.alpha) * y)
    P = 0.5 * w @ w + 0.7 * ref("hinge_losses")(w, r.state.b, X, y).sum()
    assert P == pytest.approx(r.primal, rel=1e-12)


def test_hinge_subgradient_drives_primal_subgradient_exactly():
    X, y = data.overlapping_blobs(25, seed=4)
    states = list(iterate(PrimalSubgradient("1/t"), BinaryProblem(X, y, C=2.0), max_iter=60))
    for t, (s, s_next) in enumerate(zip(states, states[1:])):
        w_next = s.w - ref("hinge_subgradient")(s.w, X, y, 2.0) / (t + 1)
        np.testing.assert_allclose(w_next, s_next.w, rtol=1e-10, atol=1e-12)


def test_kkt_category_agrees_with_an_independent_qp_optimum():
    X, y = data.overlapping_blobs(30, seed=6)
    K = gram(X, None, Kernel("gaussian", 0.5))
    _, alpha = binary_dual_optimum(K, y, 1.0, bias=True)
    r = solve(SMO(), BinaryProblem(X, y, C=1.0, kernel="gaussian", gamma=0.5), tol=1e-12)
    margins = y * (K @ (np.asarray(r.state.alpha) * y) + r.state.b)
    found = [ref("kkt_category")(a, m, 1.0, 1e-5) for a, m in zip(r.state.alpha, margins)]
    assert "violated" not in found
    # the categories of the QP oracle's alpha, where it is clearly at a bound or inside
    for a_qp, cat in zip(alpha, found):
        if a_qp < 1e-4:
            assert cat in ("zero", "free")  # a free alpha may be tiny
        elif a_qp > 1 - 1e-4:
            assert cat in ("bound", "free")
        else:
            assert cat == "free"
    assert ref("kkt_category")(0.0, 0.5, 1.0, 1e-6) == "violated"


def test_dual_objective_is_smos_dual_at_every_step():
    X, y = data.overlapping_blobs(20, seed=1)
    problem = BinaryProblem(X, y, C=1.0, kernel="gaussian", gamma=1.0)
    K = gram(X, None, problem.kernel)
    for s in iterate(SMO("random", random_state=0), problem, max_iter=30):
        assert ref("dual_objective")(np.asarray(s.alpha), y, K) == pytest.approx(s.dual, rel=1e-10, abs=1e-12)


def _dca_states(zero_row):
    X, y = data.overlapping_blobs(15, seed=8)
    X = np.array(X)
    if zero_row:
        X[3] = 0.0
    problem = BinaryProblem(X, y, C=0.3)
    return problem, list(iterate(DualCoordinateAscent(random_state=2, shrinking=False), problem, max_iter=80))


@pytest.mark.parametrize("zero_row", [False, True])
def test_dca_steps_are_the_solvers(zero_row):
    problem, states = _dca_states(zero_row)
    Q = np.asarray(problem.Q)
    for prev, s in zip(states, states[1:]):
        i = s.i
        new = ref("dca_update")(float(prev.alpha[i]), float(prev.grad[i]), float(Q[i, i]), problem.C)
        assert new == pytest.approx(s.alpha_clipped, rel=1e-12, abs=1e-15)
        grad = ref("dca_gradient_update")(np.asarray(prev.grad), Q, i, new - float(prev.alpha[i]))
        np.testing.assert_allclose(grad, s.grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("rule", ["random", "max_violating_pair", "second_order"])
def test_smo_bounds_and_pair_step_are_the_solvers(rule):
    X, y = data.overlapping_blobs(20, seed=5)
    X = np.vstack([X, X[:2]])  # duplicates: eta = 0 for some pairs
    y = np.concatenate([y, y[:2]])
    problem = BinaryProblem(X, y, C=0.8)
    checked = 0
    for s in iterate(SMO(rule, random_state=3), problem, max_iter=60):
        if s.i < 0:
            continue
        yi, yj = float(y[s.i]), float(y[s.j])
        L, H = ref("smo_bounds")(s.alpha_i_old, s.alpha_j_old, yi, yj, 0.8)
        assert (L, H) == pytest.approx((s.L, s.H), rel=1e-12, abs=1e-15)
        new = ref("smo_pair_update")(s.alpha_i_old, s.alpha_j_old, yi, yj, s.E_i, s.E_j, s.eta, s.L, s.H)
        assert new == pytest.approx((s.alpha_i_new, s.alpha_j_new), rel=1e-9, abs=1e-12)
        checked += 1
    assert checked > 20


def test_smo_pair_step_with_eta_zero_takes_the_better_end():
    # two identical points of opposite labels: eta = 0, the dual rises linearly towards H
    ai, aj = ref("smo_pair_update")(0.2, 0.2, 1.0, -1.0, -1.0, 1.0, 0.0, 0.0, 1.0)
    assert (ai, aj) == (1.0, 1.0)


def test_gaussian_gram_is_the_librarys():
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(7, 3)), rng.normal(size=(4, 3))
    for gamma in (1e-6, 0.3, 5.0):
        np.testing.assert_allclose(ref("gaussian_gram")(X, Z, gamma), gram(X, Z, Kernel("gaussian", gamma)),
                                   rtol=1e-12, atol=1e-300)


def test_loo_residuals_are_the_librarys_and_the_refits():
    X, y = data.moons(25, noise=0.2, seed=1)
    K = gram(X, None, Kernel("gaussian", 1.5))
    for lam in (1e-3, 0.3, 10.0):
        r = ref("loo_residuals")(K, y, lam)
        np.testing.assert_allclose(r, loo_errors(K, y, [lam])[0, :, 0], rtol=1e-7)
        for i in (0, 11, 24):  # brute force: refit without point i
            keep = np.arange(25) != i
            c = np.linalg.solve(K[np.ix_(keep, keep)] + lam * np.eye(24), y[keep])
            assert r[i] == pytest.approx(y[i] - K[i, keep] @ c, rel=1e-7)


def test_ww_gradient_is_the_derivative_of_the_dual():
    X, y = data.multiclass_blobs(12, k=3, seed=1)
    M = 0.7
    model = MulticlassSVC(loss="ww", M=M, C=1.0, tol=1e-6, random_state=0).fit(X, y)
    alpha, codes = model.alpha_, np.searchsorted(model.classes_, y)
    np.testing.assert_allclose(model.coef_, -M * alpha.T @ X, atol=1e-10)

    def f(a):  # the dual, minimised, with alpha_{i y_i} = -sum of the others
        a = a.copy()
        a[np.arange(12), codes] = 0.0
        a[np.arange(12), codes] = -a.sum(axis=1)
        W = -M * a.T @ X
        return 0.5 * np.sum(W * W) - (a.sum() - a[np.arange(12), codes].sum())

    G = ref("ww_gradient")(model.coef_, X, codes, M)
    h = 1e-6
    for i, j in [(0, 1), (3, 0), (7, 2), (11, 1)]:
        if j == codes[i]:
            continue
        e = np.zeros_like(alpha)
        e[i, j] = h
        assert G[i, j] == pytest.approx((f(alpha + e) - f(alpha - e)) / (2 * h), abs=1e-6)
    assert np.all(G[np.arange(12), codes] == 0)


def test_shark_step_and_gradient_are_wwsharks():
    X, y = data.multiclass_blobs(15, k=4, seed=2)
    problem = MulticlassProblem(X, y, C=0.5, loss="ww", M=0.5)
    codes = np.asarray(problem.codes)
    states = list(iterate(WWShark(random_state=0), problem, max_iter=30))
    moves = 0
    for prev, s in zip(states, states[1:]):
        p, i = picture(s), s.i
        q = float(X[i] @ X[i])
        # the gradient before the first move is -(Shark's negative gradient)
        G = ref("ww_gradient")(np.asarray(prev.W), X[i : i + 1], codes[i : i + 1], 0.5)[0]
        np.testing.assert_allclose(G, -p.grads[0], atol=1e-12)
        a = np.array(prev.alpha[i], dtype=float)
        for t, j in enumerate(p.moves_j):
            m = ref("shark_step")(-p.grads[t][j], a[j], q, 0.5, 0.5)
            assert m == pytest.approx(p.moves_m[t], rel=1e-12, abs=1e-15)
            a[j] += m
            a[codes[i]] -= m
            moves += 1
    assert moves > 20


def test_cs_gradient_and_block_update_are_blondels():
    X, y = data.multiclass_blobs(15, k=3, seed=3)
    problem = MulticlassProblem(X, y, C=0.8, loss="cs")
    codes = np.asarray(problem.codes)
    states = list(iterate(CSBlondel(random_state=0), problem, max_iter=30))
    updated = 0
    for prev, s in zip(states, states[1:]):
        p, i = picture(s), s.i
        g = ref("cs_gradient")(np.asarray(prev.W), X[i], int(codes[i]))
        np.testing.assert_allclose(g, p.grad, atol=1e-12)
        if not p.skipped:
            new = ref("cs_block_update")(np.asarray(prev.alpha[i]), g, int(codes[i]), float(X[i] @ X[i]), 0.8)
            np.testing.assert_allclose(new, np.asarray(s.alpha[i]), atol=1e-12)
            np.testing.assert_allclose(ref("project_simplex")(np.asarray(p.beta_hat), p.z), p.beta, atol=1e-12)
            updated += 1
    assert updated > 10


def test_project_simplex_is_the_librarys():
    rng = np.random.default_rng(4)
    for k in (1, 2, 5, 9):
        for z in (1e-6, 1.0, 7.0):
            v = rng.normal(size=k) * 3
            v[: k // 2] = v[-1]  # ties
            np.testing.assert_allclose(ref("project_simplex")(v, z), project_simplex_sort(v[None, :], z)[0],
                                       atol=1e-12)


def test_relative_gap_and_multiclass_primal_are_the_solvers():
    X, y = data.overlapping_blobs(30, seed=3)
    for C in (0.01, 1.0, 100.0):
        r = solve(SMO(), BinaryProblem(X, y, C=C), tol=1e-2)
        assert ref("relative_gap")(r.primal, r.dual) == pytest.approx(r.gap, rel=1e-12)
    Xm, ym = data.multiclass_blobs(20, k=3, seed=5)
    for loss in ("ww", "cs"):
        model = MulticlassSVC(loss=loss, M=0.5, C=2.0, tol=1e-4, random_state=0, fit_intercept=False).fit(Xm, ym)
        codes = np.searchsorted(model.classes_, ym)
        P = ref("multiclass_primal")(model.coef_, Xm, codes, 2.0, loss, 0.5)
        assert P == pytest.approx(model.result_.primal, rel=1e-10)


def test_the_multiclass_drivers_reach_the_qp_optimum():
    """The plain-NumPy runs that drive a student's step: with the reference steps, the QP oracle's optimum."""
    X, codes = mc.clouds(12, 3, 1)
    run = None
    for run in mc.shark_run(X, codes, 3, 1.0, 0.7, ref("ww_gradient"), ref("shark_step"), 200):
        pass
    assert mc._ww_dual(run[1], X, codes, 0.7) == pytest.approx(ww_dual_optimum(X, codes, 1.0, 0.7), rel=1e-7)
    for run in mc.cs_run(X, codes, 3, 1.0, ref("cs_gradient"), ref("cs_block_update"), 200):
        pass
    assert mc._cs_dual(run[1], X, codes) == pytest.approx(cs_dual_optimum(X, codes, 1.0), rel=1e-7)


# ---- the checkers --------------------------------------------------------------------------------------

NAMES = list(exercises.EXERCISES)
#: the exercises that ask for a step of a solver (the predictions have their own tests: test_exercise_predict.py)
CODE_NAMES = [n for n in NAMES if exercises.exercise(n).kind != "predict"]


def test_the_catalog():
    cat = exercises.catalog()
    assert len(cat) >= 12
    for nb in ["01", "02", "03", "04", "05", "06", "07", "08"]:
        assert len(exercises.catalog(nb)) >= 2, nb
    for e in cat:
        assert e.name and e.title and e.signature.startswith(e.name + "(") and len(e.statement) > 60
    assert [e.name for e in exercises.catalog(4)] == ["smo_bounds", "smo_pair_update", "predict_rule_race"]
    with pytest.raises(ValueError, match="name must be one of"):
        exercises.check("smo_bound", lambda *a: 0)


@pytest.mark.parametrize("name", CODE_NAMES)
def test_every_checker_accepts_its_reference_and_runs_the_solver(name):
    result = exercises.check(name, exercises.solution(name))
    assert result.passed, result
    assert result.n_cases >= 6 and result.failure is None
    assert result.solver_run, "a passing check reports the run with the student's step"
    assert "passed" in repr(result) and "passed" in result._repr_html_()


@pytest.mark.parametrize("name", NAMES)
def test_a_stub_is_not_attempted_yet(name):
    def stub(*args):
        return NotImplemented

    def raising_stub(*args):
        raise NotImplementedError

    for fn in (stub, raising_stub):
        result = exercises.check(name, fn)
        assert result.status == exercises.NOT_ATTEMPTED and not result.passed
        assert "not attempted yet" in repr(result)


def _perturbed(value):
    """A value of the same kind, slightly wrong."""
    if isinstance(value, str):
        return "free" if value != "free" else "zero"
    if isinstance(value, tuple):
        return tuple(v + 0.5 for v in value)
    return np.asarray(value) + 0.5 if isinstance(value, np.ndarray) else value + 0.5


def right_then_wrong(fn, calls=3):
    """Right on the first ``calls`` calls, then slightly wrong: the mistake of a function with hidden state."""
    count = [0]

    def wrapped(*args):
        count[0] += 1
        value = fn(*args)
        return value if count[0] <= calls else _perturbed(value)
    return wrapped


def raises(*args):
    raise ValueError("operands could not be broadcast together")


def _sign_error(fn):
    def wrapped(*args):
        value = fn(*args)
        if isinstance(value, tuple):
            return tuple(-v for v in value)
        return -np.asarray(value) if isinstance(value, np.ndarray) else -value
    return wrapped


def _box(v, lo, hi):
    return min(max(v, lo), hi)


# exercise -> [(what, wrong function, words the hint must contain or None)]
WRONG = {
    "hinge_losses": [
        ("no max(0, .)", lambda w, b, X, y: 1 - y * (X @ w + b), "negative"),
        ("the bias left out", lambda w, b, X, y: np.maximum(0, 1 - y * (X @ w)), "bias"),
        ("off by one: 2 - margin", lambda w, b, X, y: np.maximum(0, 2 - y * (X @ w + b)), "margin 2"),
    ],
    "hinge_subgradient": [
        ("a sign error", lambda w, X, y, C: w + C * X[y * (X @ w) < 1].T @ y[y * (X @ w) < 1], "sign"),
    ],
    "kkt_category": [
        ("the MIT 9.520 strict inequalities (an erratum)",
         lambda a, m, C, t: ("zero" if m > 1 else "violated") if a <= t * C else
         ("bound" if m < 1 else "violated") if a >= C - t * C else ("free" if abs(m - 1) <= t else "violated"),
         "MIT 9.520"),
        ("zero and bound swapped",
         lambda a, m, C, t: ("bound" if m >= 1 - t else "violated") if a <= t * C else
         ("zero" if m <= 1 + t else "violated") if a >= C - t * C else ("free" if abs(m - 1) <= t else "violated"),
         "'zero' and 'bound' are swapped"),
        ("returns a number", lambda a, m, C, t: 0, "'zero'"),
    ],
    "dual_objective": [
        ("labels left out", lambda a, y, K: a.sum() - 0.5 * a @ K @ a, "labels"),
        ("off by a factor 2", lambda a, y, K: a.sum() - (a * y) @ K @ (a * y), "1/2"),
    ],
    "dca_update": [
        ("a missing clip", lambda a, g, q, C: a + g / q if q > 0 else C, "clip"),
        ("a sign error", lambda a, g, q, C: _box(a - g / q, 0, C) if q > 0 else C, None),
        ("divides by Q_ii = 0", lambda a, g, q, C: _box(a + g / q, 0, C), "Q_ii"),
    ],
    "dca_gradient_update": [
        ("a sign error", lambda g, Q, i, d: g + d * Q[:, i], "lowers"),
        ("only entry i", lambda g, Q, i, d: np.where(np.arange(len(g)) == i, g - d * Q[i, i], g), "every entry"),
        ("the row of the next coordinate (off by one)", lambda g, Q, i, d: g - d * Q[:, (i + 1) % len(g)],
         "the next coordinate, i + 1"),
    ],
    "smo_bounds": [
        ("label patterns swapped", lambda ai, aj, yi, yj, C: ref("smo_bounds")(ai, aj, -yi, yj, C), "swapped"),
        ("no cap at C", lambda ai, aj, yi, yj, C: (max(0, aj - ai), C + aj - ai) if yi != yj else
         (max(0, ai + aj - C), ai + aj), "H can pass C"),
    ],
    "smo_pair_update": [
        ("the CISC 371 eq. 30.13 (an erratum)",
         lambda ai, aj, yi, yj, Ei, Ej, eta, L, H: (ai + yi * yj * (aj - _box(aj + (Ej - Ei) / eta, L, H)),
                                                     _box(aj + (Ej - Ei) / eta, L, H)), "CISC 371"),
        ("the factor y_j missing",
         lambda ai, aj, yi, yj, Ei, Ej, eta, L, H: (ai + yi * yj * (aj - _box(aj + (Ei - Ej) / eta, L, H)),
                                                     _box(aj + (Ei - Ej) / eta, L, H)), "y_j"),
        ("a missing clip",
         lambda ai, aj, yi, yj, Ei, Ej, eta, L, H: (ai - yi * (Ei - Ej) / eta, aj + yj * (Ei - Ej) / eta), None),
    ],
    "gaussian_gram": [
        ("the Laplacian", lambda X, Z, g: np.exp(-g * np.sqrt(((X[:, None] - Z[None]) ** 2).sum(2))), "Laplacian"),
        ("transposed", lambda X, Z, g: ref("gaussian_gram")(Z, X, g), None),
    ],
    "loo_residuals": [
        ("the diagonal of K + lambda I", lambda K, y, lam: np.linalg.solve(K + lam * np.eye(len(y)), y)
         / np.diag(K + lam * np.eye(len(y))), "INVERSE"),
        ("the training residual", lambda K, y, lam: y - K @ np.linalg.solve(K + lam * np.eye(len(y)), y), "training"),
    ],
    "ww_gradient": [
        ("the negative gradient", lambda W, X, y, M: -ref("ww_gradient")(W, X, y, M), "NEGATIVE"),
        ("the y column not zeroed", lambda W, X, y, M: M * ((X @ W.T)[np.arange(len(y)), y][:, None] - X @ W.T) - 1,
         "not a free"),
    ],
    "shark_step": [
        ("the factor 2 missing", lambda g, a, q, M, C: _box(a - g / (M * M * q), 0, C) - a if q > 0 else
         (C - a if g < 0 else -a), "squared length 2"),
        ("a missing clip", lambda g, a, q, M, C: -g / (2 * M * M * q) if q > 0 else 0.0, None),
    ],
    "cs_gradient": [
        ("Algorithm 3, line 6: -2 (an erratum)", lambda W, x, y: W @ x + 1 - 2.0 * (np.arange(len(W)) == y),
         "Algorithm 3"),
        ("no Delta", lambda W, x, y: W @ x, None),
    ],
    "project_simplex": [
        ("clip and rescale", lambda v, z: np.maximum(v, 0) * z / max(np.maximum(v, 0).sum(), 1e-300), "rescaling"),
        ("off by one in the count", lambda v, z: np.maximum(v - _theta(v, z, extra=1), 0), "off by one"),
    ],
    "cs_block_update": [
        ("the slides' Taylor expansion without ||x_i||^2 (an erratum)",
         lambda a, g, y, q, C: ref("cs_block_update")(a, g, y, 1.0, C), "Taylor"),
        ("mass C instead of C ||x_i||",
         lambda a, g, y, q, C: (lambda r, Ci: Ci - ref("project_simplex")(r * (Ci - a) + g / r, C) / r)(
             np.sqrt(q), np.where(np.arange(len(a)) == y, C, 0.0)), "mass"),
    ],
    "relative_gap": [
        ("divides by D", lambda P, D: (P - D) / abs(D) if D else 0.0, "not by the dual"),
        ("absolute value of P - D", lambda P, D: abs(P - D) / abs(P) if P else 0.0, "sign"),
    ],
    "multiclass_primal": [
        ("Weston-Watkins sums over j = y_i too",
         lambda W, X, y, C, loss, M: ref("multiclass_primal")(W, X, y, C, loss, M) + C * len(y) * (loss == "ww"),
         "rivals"),
        ("no 1/2", lambda W, X, y, C, loss, M: ref("multiclass_primal")(W, X, y, C, loss, M) + 0.5 * np.sum(W * W),
         "1/2"),
    ],
}


def _theta(v, z, extra=0):
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - z
    rho = np.nonzero(u - css / np.arange(1, len(v) + 1) > 0)[0][-1]
    return css[rho] / (rho + 1 + extra)


def test_every_exercise_has_wrong_solutions():
    assert set(WRONG) == set(CODE_NAMES)


CASE_LINE = re.compile(r"case (\d+) \(([^)]+)\)")


def assert_rejected(result, name, words=None):
    assert not result.passed, f"{name}: a wrong solution passed:\n{result}"
    text = repr(result)
    if result.failure is not None:
        m = CASE_LINE.search(text)
        assert m and int(m.group(1)) == result.failure.case >= 1, text  # the failing case, named
        assert "inputs:" in text, text
    else:  # right on every case, wrong in the run: the run says where
        assert "differs from the step at" in result.solver_run or "differ" in result.solver_run, text
    if words:
        assert words in text, f"{name}: the hint should mention {words!r}:\n{text}"


@pytest.mark.parametrize("name, what, fn, words",
                         [(n, what, fn, words) for n, rows in WRONG.items() for what, fn, words in rows],
                         ids=[f"{n}: {what}" for n, rows in WRONG.items() for what, _, _ in rows])
def test_wrong_solutions_are_rejected_with_the_failing_case(name, what, fn, words):
    assert_rejected(exercises.check(name, fn), name, words)


@pytest.mark.parametrize("name", CODE_NAMES)
def test_generic_mistakes_are_rejected(name):
    reference = exercises.solution(name)
    r = exercises.check(name, raises)
    assert_rejected(r, name, "raised ValueError: operands could not be broadcast")
    r = exercises.check(name, right_then_wrong(reference))
    assert_rejected(r, name)
    assert r.failure is None or r.failure.case >= 4, r  # the first three calls were right
    if name != "kkt_category":
        assert_rejected(exercises.check(name, _sign_error(reference)), name)
    r = exercises.check(name, lambda *args: None)
    assert_rejected(r, name)
    assert "returned None" in r.failure.problem


def test_a_function_that_goes_wrong_late_is_caught_by_the_second_call_or_the_run():
    r = exercises.check("loo_residuals", right_then_wrong(ref("loo_residuals"), calls=7))
    assert not r.passed and "called again" in r.failure.label


def test_a_step_right_on_every_case_but_wrong_later_is_caught_in_the_run_where_it_goes_wrong():
    n_cases = len(exercises.exercise("dca_update").cases())
    r = exercises.check("dca_update", right_then_wrong(ref("dca_update"), calls=60))
    assert not r.passed and r.failure is None, r
    m = re.search(r"differs from the step at coordinate step (\d+): on the state the run reached there "
                  r"\(alpha_i=([-\d.e]+), g_i=([-\d.e]+), Q_ii=([-\d.e]+), C=([-\d.e]+)\) your function returned "
                  r"([-\d.e]+), the step gives ([-\d.e]+)", r.solver_run)
    assert m, r.solver_run
    # the cases and the repeated first call took n_cases + 1 calls: the 61st call in all, the first wrong one,
    # is the run's (60 - n_cases)th
    assert int(m.group(1)) == 60 - n_cases
    a, g, q, C = (float(m.group(k)) for k in range(2, 6))
    assert float(m.group(7)) == pytest.approx(ref("dca_update")(a, g, q, C), rel=1e-5, abs=1e-6)
    assert m.group(6) != m.group(7)


def test_a_pair_may_come_back_as_an_array():
    r = exercises.check("smo_bounds", lambda *a: np.array(ref("smo_bounds")(*a)))
    assert r.passed, r


def test_modifying_an_input_in_place_fails_and_says_so():
    def in_place(grad, Q, i, delta):
        grad -= delta * Q[:, i]
        return grad

    r = exercises.check("dca_gradient_update", in_place)
    assert not r.passed and "modified its input 'grad'" in r.failure.problem


def test_wrong_shape_type_nan_and_non_functions_fail_without_raising():
    r = exercises.check("gaussian_gram", lambda X, Z, g: ref("gaussian_gram")(X, Z, g).T)
    assert "expected shape" in r.failure.problem
    r = exercises.check("smo_bounds", lambda *a: [0.0, 1.0, 2.0])
    assert "pair of numbers" in r.failure.problem
    r = exercises.check("relative_gap", lambda P, D: float("nan"))
    assert "NaN" in r.failure.problem
    r = exercises.check("dca_update", lambda a, g: a)  # wrong number of arguments
    assert "raised TypeError" in r.failure.problem
    r = exercises.check("dca_update", 3.0)
    assert not r.passed and "not a function" in r.failure.problem


# ---- the notebooks -------------------------------------------------------------------------------------


def test_every_exercise_has_a_stub_and_a_check_in_its_notebook():
    seen = {}
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        stubs = [stub_name(c) for c in nb.cells]
        checks = [check_name(c) for c in nb.cells]
        for k, name in enumerate(stubs):
            if name is None:
                continue
            seen[name] = path.name[:2]
            later = checks[k + 1 :]
            assert name in later, f"{path.name}: no check cell after the stub of {name}"
            # the committed output of the check says 'not attempted yet'
            out = nb.cells[k + 1 + later.index(name)].get("outputs", [])
            shown = " ".join(str(o.get("data", {}).get("text/plain", "")) for o in out)
            assert "not attempted yet" in shown, f"{path.name}: {name}'s check shows {shown!r}"
            assert "return NotImplemented" in nb.cells[k].source or "NotImplementedError" in nb.cells[k].source
        assert "Predict, then run" in " ".join(c.source for c in nb.cells if c.cell_type == "markdown"), path.name
    assert seen == {e.name: e.notebook for e in exercises.catalog()}


def test_the_solutions_copy_fills_every_stub(tmp_path):
    from svmteach.exercises.notebooks import copy_course

    written = copy_course(tmp_path, solutions=True)
    assert len(written) == len(list(NOTEBOOKS.glob("*.ipynb")))
    filled = [stub_name(c) for p in written for c in nbformat.read(p, as_version=4).cells if stub_name(c)]
    assert sorted(filled) == sorted(NAMES)
    nb = nbformat.read(tmp_path / "04_smo.ipynb", as_version=4)
    cells = [c for c in nb.cells if stub_name(c) == "smo_pair_update"]
    assert len(cells) == 1 and "def smo_pair_update" in cells[0].source and "NotImplemented" not in cells[0].source
    assert fill_solutions(nb) == ["smo_pair_update", "smo_bounds", "predict_rule_race"]  # the copy still finds them
    # an existing notebook is kept, as `svmteach lab` keeps a student's work
    (tmp_path / "01_binary_svm.ipynb").write_text("mine")
    assert copy_course(tmp_path, solutions=True) == []
    assert (tmp_path / "01_binary_svm.ipynb").read_text() == "mine"


def test_the_notebooks_intro_cells_are_the_packages_text():
    """One source: each intro cell reads exactly what ``sync_intros`` writes from the exercise's ``intro``."""
    from svmteach.exercises.notebooks import intro_name, intro_source

    seen = set()
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            name = intro_name(cell)
            if name:
                seen.add(name)
                assert cell.source == intro_source(name), f"{path.name}: run sync_intros on it ({name})"
    assert seen == set(NAMES)
