"""The cheap stop of :func:`svmteach.solve`: a violation measured for free decides when to pay for the
duality gap, and only a measured gap can stop a run.

Every result is checked against objectives recomputed here from what it returns (alpha, W), never
against the state's own fields; measures are counted by a spy.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import random_binary

from svmteach import (BinaryProblem, CSBlondel, DualCoordinateAscent, MulticlassProblem, WWExact,
                      WWShark, solve)
from svmteach.losses.base import scores
from svmteach.solvers.exact_block import ExactBlock
from svmteach.solvers.stopping import KKT_PER_TOL, MIN_CHUNKS_BETWEEN_MEASURES, next_threshold_factor


def counting(solver_class, violation=None):
    """A subclass of ``solver_class`` that counts ``measure`` calls and, with ``violation``, reports
    that function of the chunk number instead of its own violation."""

    class Spy(solver_class):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.measures = 0
            self.chunks = 0

        def measure(self, problem, state):
            self.measures += 1
            return super().measure(problem, state)

        def advance(self, problem, state, n_steps, tol=None):
            self.chunks += 1
            return super().advance(problem, state, n_steps, tol)

        def violation(self, state):
            return super().violation(state) if violation is None else violation(self.chunks)

    return Spy


def recomputed_gap(problem, alpha):
    """The relative duality gap of ``alpha`` from scratch: W(alpha), the primal at W, the dual."""
    loss = problem.loss_object
    W = loss.weights(problem, alpha)
    P = loss.primal(problem, W, scores(problem, W))
    D = loss.dual(problem, alpha, W)
    return (P - D) / abs(P)


def multiclass_problem(loss="cs", C=1.0):
    rng = np.random.default_rng(5)
    y = np.arange(120) % 4
    X = rng.normal(scale=2.0, size=(4, 6))[y] + rng.normal(size=(120, 6))
    return MulticlassProblem(X, y, C=C, loss=loss)


@pytest.mark.parametrize("solver_class, loss", [(CSBlondel, "cs"), (WWExact, "ww"), (WWShark, "ww"),
                                                 (ExactBlock, "llw")])
@pytest.mark.parametrize("tol", [1e-2, 1e-4])
def test_a_converged_result_reports_the_gap_of_what_it_returns(solver_class, loss, tol):
    problem = multiclass_problem(loss)
    solver = counting(solver_class)(random_state=0)
    result = solve(solver, problem, tol=tol, max_iter=10**6)
    assert result.converged
    gap = recomputed_gap(problem, result.state.alpha)
    assert result.gap == pytest.approx(gap, rel=1e-6, abs=1e-12)
    assert gap <= tol
    W = problem.loss_object.weights(problem, result.state.alpha)
    np.testing.assert_allclose(result.state.W, W, rtol=0, atol=1e-12 * max(1.0, np.abs(W).max()))


@pytest.mark.parametrize("solver_class, loss", [(CSBlondel, "cs"), (WWExact, "ww"), (WWShark, "ww"),
                                                 (ExactBlock, "llw")])
def test_the_cheap_stop_measures_rarely_where_the_solver_has_a_violation(solver_class, loss):
    problem = multiclass_problem(loss)
    cheap = counting(solver_class)(random_state=0)
    every = counting(solver_class)(random_state=0)
    a = solve(cheap, problem, tol=1e-6, max_iter=10**6)
    b = solve(every, problem, tol=1e-6, max_iter=10**6, record_history=True)  # measures every epoch
    assert a.converged and b.converged
    assert not math.isnan(cheap.violation(a.state))  # the epochs measure it for free
    assert every.measures >= every.chunks  # one measure per chunk (and at the start)
    assert cheap.measures <= cheap.chunks / 2 + 3, (cheap.measures, cheap.chunks)
    for result in (a, b):
        assert recomputed_gap(problem, result.state.alpha) <= 1e-6


def test_a_violation_that_never_looks_small_still_stops_on_a_geometric_schedule():
    problem = multiclass_problem("cs")
    solver = counting(CSBlondel, violation=lambda chunk: math.inf)(random_state=0)
    result = solve(solver, problem, tol=1e-8, max_iter=10**6)
    assert result.converged and recomputed_gap(problem, result.state.alpha) <= 1e-8
    # measures at chunks 4, 8, 12, 18, 27, ... : logarithmically many
    bound = 2 + math.log(max(solver.chunks, 2) / MIN_CHUNKS_BETWEEN_MEASURES) / math.log(1.5) + 1
    assert solver.measures <= bound, (solver.measures, solver.chunks)


def test_a_violation_that_lies_cannot_stop_a_run_early():
    """A violation of 0 from the start would stop a run that trusted it; the gap is what decides."""
    problem = multiclass_problem("ww", C=10.0)
    solver = counting(WWExact, violation=lambda chunk: 0.0)(random_state=0)
    result = solve(solver, problem, tol=1e-7, max_iter=10**6)
    assert result.converged and recomputed_gap(problem, result.state.alpha) <= 1e-7
    assert solver.measures >= solver.chunks  # every chunk measured: the violation was small each time


def test_a_budget_stopped_run_reports_its_measured_gap():
    problem = multiclass_problem("ww", C=100.0)
    solver = counting(WWExact, violation=lambda chunk: math.inf)(random_state=0)
    result = solve(solver, problem, tol=1e-12, max_iter=3 * problem.n_samples + 7)
    assert not result.converged
    assert result.gap == pytest.approx(recomputed_gap(problem, result.state.alpha), rel=1e-6)
    assert result.n_iter == 3 * problem.n_samples + 7


def test_the_first_threshold_is_liblinears_eps_at_the_default_tol():
    assert KKT_PER_TOL * 1e-3 == pytest.approx(0.1)


def test_the_binary_linear_solver_certifies_its_gap_too():
    X, y = random_binary(n=300, d=5, seed=2)
    problem = BinaryProblem(X, y, C=1.0)
    result = solve(DualCoordinateAscent(random_state=0), problem, tol=1e-6, max_iter=10**6)
    assert result.converged
    alpha = np.asarray(result.state.alpha, dtype=np.float64)
    w = problem.X.T @ (alpha * problem.y)
    P = 0.5 * w @ w + problem.C * np.sum(np.maximum(0.0, 1.0 - problem.y * (problem.X @ w)))
    D = alpha.sum() - 0.5 * w @ w
    assert result.gap == pytest.approx((P - D) / abs(P), rel=1e-6, abs=1e-12)
    assert (P - D) / abs(P) <= 1e-6


def test_after_a_failed_certificate_the_threshold_follows_the_square_root_of_the_gap_ratio():
    assert next_threshold_factor(4e-3, 1e-3) == pytest.approx(0.5)  # gap 4x too big: half the violation
    assert next_threshold_factor(1.1e-3, 1e-3) == 0.9  # nearly there: a tenth off, not a leap
    assert next_threshold_factor(1.0, 1e-3) == 0.25  # far: at most a quarter
    assert next_threshold_factor(math.nan, 1e-3) == 0.5 and next_threshold_factor(math.inf, 1e-3) == 0.5
