"""SMO's shrinking (LIBSVM's): samples set aside from the working-set rules, brought back, the stop certified.

Oracles: the gradient recomputed from alpha (:func:`exact_gradient`), a QP solver's optimum, the run without
shrinking, and the step path (the twins, with shrinking, are in ``test_smo_twin.py``).
"""

import numpy as np
import pytest
from conftest import random_binary
from oracles import binary_dual_optimum

from svmteach import SMO, BinaryProblem, solve
from svmteach.solvers.kernel_scores import exact_gradient
from svmteach.solvers.smo import RULES

from test_smo_twin import _same


def _problem(seed=19, C=1.0, n=60):
    X, y = random_binary(n=n, d=2, seed=seed)
    return BinaryProblem(X, y, C=C, kernel="rbf", gamma=1.0)


@pytest.mark.parametrize("rule", RULES)
def test_every_state_carries_the_exact_gradient_and_both_paths_agree(rule):
    """A run that sets samples aside and judges them again every n steps: each state's gradient (the set-aside
    samples' too) is the one recomputed from alpha, and the fast path takes each step as the step path."""
    p = _problem()
    solver = SMO(rule, random_state=0)
    states = [solver.init(p)]
    for _ in range(200):
        states.append(solver.step(p, states[-1]))
    assert min(len(s.active) for s in states) < p.n_samples
    for before, after in zip(states[:-1], states[1:]):
        np.testing.assert_allclose(after.grad, exact_gradient(p, after.alpha, after.rows), rtol=0, atol=1e-12)
        _same(solver.advance(p, before, 1), after)
    _same(solver.advance(p, states[0], len(states) - 1), states[-1])


@pytest.mark.parametrize("rule", RULES)
def test_no_pair_among_the_active_samples_brings_every_sample_back(rule):
    """A state whose active samples hold no violating pair (one free sample): the step looks at every sample
    and takes a pair from among them that raises the dual, on both paths; the next step shrinks again (LIBSVM's
    counter = 1)."""
    p = _problem()
    solver = SMO(rule, random_state=0)
    state = solver.advance(p, solver.init(p), 30)
    free = np.flatnonzero((state.alpha > 0) & (state.alpha < p.C_i))
    forced = state._replace(active=free[:1], shrink_in=5)
    slow = solver.step(p, forced)
    _same(solver.advance(p, forced, 1), slow)
    assert slow.i >= 0 and {slow.i, slow.j} != {free[0]} and slow.dual > state.dual
    assert len(slow.active) == p.n_samples and slow.shrink_in == 0
    assert solver.step(p, slow).shrink_in == p.n_samples - 1  # it shrank: the countdown started again


@pytest.mark.parametrize("rule", ["random", "max_violating_pair", "second_order"])
@pytest.mark.parametrize("fast", [True, False])
def test_shrinking_runs_reach_the_qp_optimum_certified(rule, fast):
    """A run that sets samples aside (n = 120, shrinking every 120 steps) stops on a measured gap: the QP's
    optimum to 1e-6, the gap recomputed from the exact gradient."""
    X, y = random_binary(n=120, d=3, seed=2)
    p = BinaryProblem(X, y, C=5.0, kernel="rbf", gamma=0.5)
    best, _ = binary_dual_optimum(np.array(p.gram), y, 5.0, bias=True)
    r = solve(SMO(rule, random_state=0), p, tol=1e-9, max_iter=200_000, fast=fast)
    assert r.converged and r.n_iter > 120  # long enough to have shrunk
    assert abs(r.dual - best) <= 1e-6 * abs(best)
    again = SMO(rule).measure(p, r.state)
    assert again.gap == pytest.approx(r.gap, rel=1e-9, abs=1e-15)


def test_advance_with_tol_from_a_shrunk_state_stops_on_a_measured_gap():
    """advance with tol from a state with samples set aside: the state it returns is measured (the exact
    gradient's gap over every sample) and its gap reached tol."""
    p = _problem()
    solver = SMO("second_order")
    state = solver.advance(p, solver.init(p), 90)  # shrunk at step 60
    assert len(state.active) < p.n_samples
    out = solver.advance(p, state, 5000, tol=1e-6)
    assert out.gap <= 1e-6
    np.testing.assert_array_equal(out.grad, exact_gradient(p, out.alpha, out.rows))
    assert solver.measure(p, out).gap == out.gap


def test_without_shrinking_nothing_is_set_aside():
    p = _problem()
    state = SMO("second_order", shrinking=False).advance(p, SMO("second_order", shrinking=False).init(p), 250)
    assert len(state.active) == p.n_samples


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_shrinking_must_be_a_bool(bad):
    with pytest.raises(TypeError, match="^shrinking must be True or False"):
        SMO(shrinking=bad)
