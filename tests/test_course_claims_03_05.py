"""The claims of notebooks 3, 4 and 5 that test the library rather than teach, and the numbers the notebooks
print, checked against oracles (SymPy, the Clarabel QP of tests/oracles.py, hand arithmetic).

Notebook 3: the constant feature c turns the bias constraint into the penalty (c^2/2)(y'alpha)^2, its bias
b = c^2 y'alpha tends to the free bias, and a run that stops at its budget is flagged (its bias can be far
off).  Notebook 4: the SMO step worked by hand on the course's three points is the step the library takes.
The derivation-against-code comparisons the notebooks no longer show are in tests/test_derivations.py
(test_the_library_computes_what_the_notebooks_derive), with those of every notebook.
"""

import numpy as np
import pytest
import sympy as sp
from oracles import binary_dual_optimum, solve_qp

from svmteach import BinaryProblem, DualCoordinateAscent, SMO, data, iterate, solve
from svmteach.solvers import numba_smo

# ---- notebook 3: the constant feature -----------------------------------------------------------------

X0, Y0 = data.overlapping_blobs(60, seed=1)
FAR = X0 + 4.0                       # notebook 3's data: the clouds moved away from the origin
BUDGET = 20_000 * len(Y0)            # notebook 3's budget: 20,000 epochs


def with_constant(c):
    return np.hstack([FAR, np.full((len(Y0), 1), c)])


def qp_bias(c):
    """The bias c * w~_{d+1} of the primal with the constant feature c, by the QP oracle (the primal in
    (w~, xi): 1/2 ||w~||^2 + sum_i xi_i, y_i w~'x~_i >= 1 - xi_i, xi >= 0; better conditioned than the dual
    for a large c)."""
    F = with_constant(c)
    n, d = F.shape
    P = np.zeros((d + n, d + n))
    P[:d, :d] = np.eye(d)
    q = np.concatenate([np.zeros(d), np.ones(n)])                 # C = 1
    margin = np.hstack([-Y0[:, None] * F, -np.eye(n)])             # -y_i x~_i'w~ - xi_i <= -1
    slack = np.hstack([np.zeros((n, d)), -np.eye(n)])              # -xi_i <= 0
    z = solve_qp(P, q, A_ineq=np.vstack([margin, slack]), b_ineq=np.concatenate([-np.ones(n), np.zeros(n)]))
    return c * z[d - 1]


def qp_free_bias():
    """The free bias of the dual with y'alpha = 0 (QP oracle): the mean of y_t - w'x_t over the free points."""
    _, alpha = binary_dual_optimum(FAR @ FAR.T, Y0, 1.0, bias=True)
    w = FAR.T @ (alpha * Y0)
    free = (alpha > 1e-6) & (alpha < 1.0 - 1e-6)
    assert free.any()
    return float(np.mean(Y0[free] - FAR[free] @ w))


def test_the_constant_feature_adds_the_penalty_c2_over_2_of_y_alpha_squared():
    """SymPy, three general points in the plane: the dual with K + c^2 equals the no-bias dual minus
    (c^2/2)(y'alpha)^2, and the bias c * w_{d+1} is c^2 y'alpha."""
    n = 3
    c = sp.Symbol("c", positive=True)
    X = sp.Matrix(n, 2, lambda i, j: sp.Symbol(f"x{i}{j}", real=True))
    y = sp.Matrix([sp.Symbol(f"y{i}", real=True) for i in range(n)])
    a = sp.Matrix([sp.Symbol(f"a{i}", real=True) for i in range(n)])
    F = X.row_join(sp.ones(n, 1) * c)
    Q = lambda M: sp.diag(*y) * (M * M.T) * sp.diag(*y)  # noqa: E731
    D = lambda M: sum(a) - (a.T * Q(M) * a)[0] / 2       # noqa: E731
    assert sp.expand(D(F) - (D(X) - c ** 2 * (y.T * a)[0] ** 2 / 2)) == 0
    w_tilde = F.T * sp.diag(*y) * a                        # w~ = sum_i alpha_i y_i x~_i
    assert sp.expand(c * w_tilde[2] - c ** 2 * (y.T * a)[0]) == 0


def test_the_penalised_bias_tends_to_the_free_bias_and_the_notebook_runs_find_it():
    free = qp_free_bias()
    smo = solve(SMO(), BinaryProblem(FAR, Y0, C=1.0), tol=1e-8)
    assert smo.converged and smo.state.b == pytest.approx(free, abs=1e-4)
    distances = []
    for c in (0.3, 1.0, 3.0, 10.0):
        exact = qp_bias(c)
        F = with_constant(c)
        r = solve(DualCoordinateAscent(random_state=0), BinaryProblem(F, Y0, C=1.0), tol=1e-6, max_iter=BUDGET)
        assert r.converged, c
        assert c * (F.T @ (r.state.alpha * Y0))[-1] == pytest.approx(exact, abs=2e-3), c
        distances.append(abs(exact - free))
    assert np.all(np.diff(distances) < 0) and distances[-1] < 1e-3


def test_a_run_that_stops_at_its_budget_is_flagged_and_its_bias_can_be_far_off():
    """The notebook's earlier cell (tol 1e-8, the default budget) printed c = 100's bias, -2.92, with no
    warning; the QP says -6.20.  The run's converged flag and gap say so, and the notebook prints them."""
    F = with_constant(100.0)
    r = solve(DualCoordinateAscent(random_state=0), BinaryProblem(F, Y0, C=1.0), tol=1e-8)
    bias = 100.0 * (F.T @ (r.state.alpha * Y0))[-1]
    assert not r.converged and r.gap > 0.1
    assert abs(bias - qp_bias(100.0)) > 1.0
    # the notebook's sweep: c <= 10 converge within 20,000 epochs, c >= 30 do not (and are marked)
    for c, expected in ((10.0, True), (30.0, False), (1000.0, False)):
        F = with_constant(c)
        r = solve(DualCoordinateAscent(random_state=0), BinaryProblem(F, Y0, C=1.0), tol=1e-6, max_iter=BUDGET)
        assert r.converged == expected, c


# ---- notebook 4: the worked SMO step ------------------------------------------------------------------

X3 = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
Y3 = np.array([-1.0, 1.0, 1.0])
BY_HAND = [dict(i=1, j=0, E_i=-1.0, E_j=1.0, eta=4.0, L=0.0, H=1.0, alpha_j_unclipped=0.5, alpha_j_new=0.5,
                alpha_i_new=0.5),
           dict(i=2, j=0, E_i=-2.0, E_j=0.0, eta=4.0, L=0.5, H=1.0, alpha_j_unclipped=1.0, alpha_j_new=1.0,
                alpha_i_new=0.5)]


def test_the_worked_smo_steps_are_the_steps_of_numba_smo_pair_step():
    """The pair step itself, from alpha = 0 and b = 0, then from the state after it (b = -1)."""
    K = X3 @ X3.T
    alpha, b = np.zeros(3), 0.0
    v, up, low = numba_smo.working_sets(Y3, np.ones(3), alpha, np.ones(3))  # v = y g, g = 1 at alpha = 0
    for hand, b_after in zip(BY_HAND, (-1.0, -1.0)):
        picture = numba_smo.pair_step(Y3, np.ones(3), alpha, v, up, low, hand["i"], hand["j"], K[hand["i"]].copy(),
                                      K[hand["j"]].copy(), b)
        for name, value in hand.items():
            assert getattr(picture, name) == pytest.approx(value, abs=1e-12), name
        w = X3.T @ (alpha * Y3)
        free = (alpha > 0) & (alpha < 1)
        b = float(np.mean(Y3[free] - X3[free] @ w))   # LIBSVM's rule, as in the notebook
        assert b == pytest.approx(b_after, abs=1e-12)
    assert np.allclose(alpha, [1.0, 0.5, 0.5]) and np.allclose(X3.T @ (alpha * Y3), [1.0, 1.0])


@pytest.mark.parametrize("rule", ["max_violating_pair", "second_order"])
def test_smo_picks_the_pairs_worked_by_hand_and_stops_at_the_course_solution(rule):
    states = list(iterate(SMO(rule), BinaryProblem(X3, Y3, C=1.0), max_iter=3))
    for s, hand in zip(states[1:3], BY_HAND):
        assert all(getattr(s, k) == pytest.approx(v, abs=1e-12) for k, v in hand.items()), (rule, s.n_iter)
        assert s.b == pytest.approx(-1.0, abs=1e-12)
    assert states[3].i == -1                              # no violating pair is left
    assert np.allclose(states[3].alpha, [1.0, 0.5, 0.5]) and states[3].gap < 1e-12


# ---- notebooks 3, 4, 5: the derivation against the code the solvers run --------------------------------
