"""The Weston-Watkins margin scale M is a rescaling of C.

With V = M W the primal with margin scale M and parameter C is

.. math::

    P_{M,C}(W) = \\tfrac12 \\|W\\|_F^2 + C \\sum_i \\sum_{j \\ne y_i} \\max(0, 1 - M (w_{y_i} - w_j)^\\top x_i)
              = \\frac{1}{M^2} \\Bigl(\\tfrac12 \\|V\\|_F^2 + C M^2 \\sum_i \\sum_{j \\ne y_i}
                \\max(0, 1 - (v_{y_i} - v_j)^\\top x_i)\\Bigr) = \\frac{P_{1, CM^2}(MW)}{M^2},

so (M, C) and (1, C M^2) have the minimisers W* = V* / M and optimal values P* = P'* / M^2.  In the dual,
with W(alpha) = -M alpha' X, the same substitution is alpha' = M^2 alpha:
D_{1,CM^2}(M^2 alpha) = M^2 D_{M,C}(alpha), and the box [0, C] becomes [0, C M^2].

Checked two ways: algebraically on random points (to rounding), and by solving both problems to a relative
gap of 1e-10 and comparing the weights within what the gaps allow (the primal is 1-strongly convex, so
||W - W*||_F^2 <= 2 (P(W) - D(alpha)) for any feasible pair), the objectives and the predictions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from svmteach import MulticlassProblem, data, solve
from svmteach.solvers import WWExact, WWShark

from oracles import ww_dual_optimum

MS = (0.5, 0.7, 2.0)


def _problems(X, y, M, C):
    return (MulticlassProblem(X, y, C=C, loss="ww", M=M), MulticlassProblem(X, y, C=C * M * M, loss="ww", M=1.0))


@pytest.mark.parametrize("M", MS)
def test_primal_identity_on_random_weights(M):
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(30, 3)), rng.integers(0, 4, size=30)
    with_M, rescaled = _problems(X, y, M, C=1.3)
    loss = with_M.loss_object
    for _ in range(20):
        W = rng.normal(scale=rng.choice([0.01, 1.0, 10.0]), size=(4, 3))
        # P_{M,C}(W) = P_{1,CM^2}(MW) / M^2, term by term (the hinges are the same numbers)
        assert loss.primal(with_M, W) == pytest.approx(loss.primal(rescaled, M * W) / M**2, rel=1e-13, abs=1e-13)
        # the two problems' sample losses agree exactly in their arguments: 1 - M (w_y - w_j)'x = 1 - (v_y - v_j)'x
        S, SV = X @ W.T, X @ (M * W).T
        np.testing.assert_allclose(loss.sample_losses(with_M, S), loss.sample_losses(rescaled, SV), rtol=1e-12,
                                   atol=1e-12)


@pytest.mark.parametrize("M", MS)
def test_dual_identity_on_random_feasible_alpha(M):
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(25, 2)), rng.integers(0, 3, size=25)
    with_M, rescaled = _problems(X, y, M, C=0.8)
    loss = with_M.loss_object
    for _ in range(20):
        alpha = loss.feasible(with_M, rng.uniform(-0.2, 1.0, size=(25, 3)))  # a point of the (M, C) box
        alpha_r = M * M * alpha  # the same point of the (1, C M^2) box
        lo, hi = loss.bounds(rescaled)
        assert np.all(alpha_r >= lo) and np.all(alpha_r <= hi * (1 + 1e-15))
        W, V = loss.weights(with_M, alpha), loss.weights(rescaled, alpha_r)
        np.testing.assert_allclose(V, M * W, rtol=1e-12, atol=1e-14)  # V(alpha') = M W(alpha)
        assert loss.dual(rescaled, alpha_r, V) == pytest.approx(M**2 * loss.dual(with_M, alpha, W), rel=1e-12,
                                                               abs=1e-13)


@pytest.mark.parametrize("solver_cls", [WWExact, WWShark])
@pytest.mark.parametrize("M", MS)
def test_solved_problems_give_the_same_classifier(M, solver_cls):
    X, y = data.multiclass_blobs(60, k=4, seed=3)
    C = 1.0
    with_M, rescaled = _problems(X, y, M, C)
    a = solve(solver_cls(random_state=0), with_M, tol=1e-10, max_iter=10**6)
    b = solve(solver_cls(random_state=0), rescaled, tol=1e-10, max_iter=10**6)
    assert a.converged and b.converged
    loss = with_M.loss_object
    Wa, Vb = np.asarray(a.state.W), np.asarray(b.state.W)
    # the reported objectives are recomputable from the returned weights and duals
    assert a.primal == pytest.approx(loss.primal(with_M, Wa), rel=1e-12)
    assert b.dual == pytest.approx(loss.dual(rescaled, b.state.alpha, Vb), rel=1e-12)
    # each run within its gap of the oracle's optimum; and P*_{M,C} = P*_{1,CM^2} / M^2
    for problem, r in ((with_M, a), (rescaled, b)):
        opt = ww_dual_optimum(X, np.asarray(problem.codes), problem.C, problem.M)
        assert r.dual - 1e-6 * abs(opt) <= opt <= r.primal + 1e-6 * abs(opt)
    assert a.primal == pytest.approx(b.primal / M**2, rel=1e-9)
    assert a.dual == pytest.approx(b.dual / M**2, rel=1e-9)
    # ||W - W*||^2 <= 2 (P - D) for each run, and W* = V* / M: the distance both gaps allow
    gap_a, gap_b = a.primal - a.dual, b.primal - b.dual
    allowed = math.sqrt(2 * max(gap_a, 0)) + math.sqrt(2 * max(gap_b, 0)) / M
    assert np.linalg.norm(Wa - Vb / M) <= allowed + 1e-12
    # same predictions: argmax_m w_m'x = argmax_m v_m'x / M; checked on a grid away from ties
    grid = np.stack(np.meshgrid(np.linspace(-3, 3, 41), np.linspace(-3, 3, 41)), -1).reshape(-1, 2)
    Sa, Sb = grid @ Wa.T, grid @ Vb.T / M
    top2 = np.sort(Sa, axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 1e-3 * np.abs(Sa).max()
    assert clear.mean() > 0.9
    np.testing.assert_array_equal(np.argmax(Sa[clear], 1), np.argmax(Sb[clear], 1))
