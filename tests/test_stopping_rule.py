"""The stopping policy is written once (:class:`svmteach.solvers.stopping.StoppingRule`) and shared.

Two kinds of check: every registered solver's ``advance`` stops exactly where the shared rule says (a spy on
the rule, so a private copy of the rule in some ``advance`` would be seen); and :func:`solve` and the shared
``Solver.advance`` behave as the policy written out plainly here (the cheap stop's threshold schedule, the
geometric schedule, the NaN and fixed-point give-ups; the measure and stop of an advance), compared step
count for step count, measure for measure, on small problems.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import random_binary

from svmteach import BinaryProblem, MulticlassProblem, solve
from svmteach.solvers import (SMO, SOLVERS, CSBlondel, DualCoordinateAscent, ParallelBlock, PrimalSubgradient,
                              WWExact)
from svmteach.solvers.stopping import KKT_PER_TOL, MIN_CHUNKS_BETWEEN_MEASURES, StoppingRule


TOL = 0.05  # every solver reaches it within a few hundred steps or epochs here


def binary_problem(kernel="linear", chunked=False):
    """A small binary problem in memory, or with ``chunked`` the same as a dask array in three row chunks (solved in
    this process)."""
    X, y = random_binary(n=60, d=3, seed=4)
    if chunked:
        import dask.array as da
        from svmteach.chunked_problem import ChunkedBinaryProblem, Here

        return ChunkedBinaryProblem(da.from_array(X, chunks=(20, 3)), y, C=1.0, executor=Here())
    return BinaryProblem(X, y, C=1.0, kernel=kernel)


def multiclass_problem(loss, chunked=False, kernel="linear"):
    """A small multiclass problem in memory, or with ``chunked`` the same as a dask array in three row chunks
    (solved in this process: the chunked solvers')."""
    rng = np.random.default_rng(2)
    y = np.arange(60) % 3
    X = rng.normal(scale=2.0, size=(3, 4))[y] + rng.normal(size=(60, 4))
    if chunked:
        import dask.array as da

        from svmteach.chunked_problem import ChunkedMulticlassProblem, Here

        return ChunkedMulticlassProblem(da.from_array(X, chunks=(20, 4)), y, C=1.0, loss=loss, executor=Here())
    return MulticlassProblem(X, y, C=1.0, loss=loss, kernel=kernel)


def make(cls):
    try:
        return cls(random_state=0)
    except TypeError:
        return cls()


def registered_cases():
    for name, cls in SOLVERS.items():
        if cls.binary:
            yield pytest.param(cls, "binary", id=f"{name}-binary")
        if cls.multiclass:
            for loss in ("ww", "cs", "llw"):
                if cls.solves(multiclass_problem(loss).loss_object):
                    yield pytest.param(cls, loss, id=f"{name}-{loss}")


def spied(cls):
    """A subclass of ``cls`` that counts its measures."""

    class Spy(cls):
        measures = 0

        def measure(self, problem, state):
            self.measures += 1
            return super().measure(problem, state)

    Spy.__name__ = cls.__name__
    return Spy


@pytest.mark.parametrize("cls, kind", list(registered_cases()))
def test_every_advance_stops_where_the_shared_rule_says(cls, kind, monkeypatch):
    """A spy on StoppingRule.reached: ``advance(..., tol)`` returns the state the rule said stop at, the first
    it said so of; without tol the rule stops nothing."""
    if cls.chunked:
        pytest.importorskip("dask.array")
    kernel = "linear" if "linear" in cls.kernels else "rbf"  # a solver of kernel problems only: the gaussian's
    problem = (binary_problem(chunked=cls.chunked) if kind == "binary" else
               multiclass_problem(kind, cls.chunked, kernel))
    verdicts = []
    reached = StoppingRule.reached

    def spy(self, state):
        verdict = reached(self, state)
        verdicts.append((int(state.n_iter), verdict))
        return verdict

    monkeypatch.setattr(StoppingRule, "reached", spy)
    solver = make(cls)
    start = solver.init(problem)
    n_steps = max(200 * solver.steps_per_epoch(problem), 2000)
    state = solver.advance(problem, start, n_steps, tol=TOL)
    assert verdicts, f"{cls.__name__}.advance never asked the shared rule"
    assert verdicts[-1] == (int(state.n_iter), True) and int(state.n_iter) < start.n_iter + n_steps
    # no earlier stop: a True before is the running gap's hint at this same state, then its measure
    assert all(n == int(state.n_iter) for n, verdict in verdicts if verdict)
    assert solver.converged(solver.measure(problem, state), TOL)  # a state solve would accept
    verdicts.clear()
    solver.advance(problem, solver.init(problem), 2 * solver.steps_between_measures(problem))
    assert not any(verdict for _, verdict in verdicts)


def plain_solve(solver, problem, tol, max_iter):
    """The cheap stop written out: measure when the free violation is at most the threshold (first
    KKT_PER_TOL * tol, then violation * clip(sqrt(tol / gap), 1/4, 9/10) after a measure short of tol) or
    after max(MIN_CHUNKS_BETWEEN_MEASURES, chunks at the last measure // 2) chunks without one; stop on a
    measured gap <= tol, a measured NaN gap, or an epoch that moved no alpha (still_is_fixed_point)."""
    state = solver.measure(problem, solver.init(problem))
    threshold = KKT_PER_TOL * tol
    chunks = unmeasured = measured_at = since = 0
    last = np.array(state.alpha, copy=True)
    while not (unmeasured == 0 and float(state.gap) <= tol) and state.n_iter < max_iter:
        n_steps = min(solver.steps_between_measures(problem), max_iter - state.n_iter)
        state = solver.advance(problem, state, n_steps)
        chunks, unmeasured = chunks + 1, unmeasured + 1
        violation = float(solver.violation(state))
        small = math.isnan(violation) or violation <= threshold
        if small or unmeasured >= max(MIN_CHUNKS_BETWEEN_MEASURES, measured_at // 2):
            state = solver.measure(problem, state)
            unmeasured, measured_at = 0, chunks
            gap = float(state.gap)
            if small and not math.isnan(violation) and not gap <= tol:
                factor = min(max(math.sqrt(tol / gap), 0.25), 0.9) if 0 < gap < math.inf else 0.5
                threshold = violation * factor
            if math.isnan(gap):
                break
        since += n_steps
        if solver.still_is_fixed_point and since >= solver.steps_per_epoch(problem):
            if np.array_equal(state.alpha, last):
                break
            last, since = np.array(state.alpha, copy=True), 0
    if unmeasured:
        state = solver.measure(problem, state)
    return state


@pytest.mark.parametrize("cls, kwargs, make_problem", [
    (DualCoordinateAscent, dict(random_state=0), binary_problem),
    (DualCoordinateAscent, dict(random_state=0, shrinking=False), lambda: binary_problem("gaussian")),
    (SMO, dict(random_state=0), lambda: binary_problem("gaussian")),
    (PrimalSubgradient, {}, binary_problem),
    (CSBlondel, dict(random_state=0), lambda: multiclass_problem("cs")),
    (WWExact, dict(random_state=0, shrinking=False), lambda: multiclass_problem("ww")),
    (ParallelBlock, {}, lambda: multiclass_problem("llw")),
], ids=["dual_cd", "dual_cd-rbf-noshrink", "smo-rbf", "subgradient", "cs", "ww-noshrink", "parallel-llw"])
@pytest.mark.parametrize("tol", [1e-2, 1e-6])
def test_solve_follows_the_policy_written_plainly(cls, kwargs, make_problem, tol):
    problem = make_problem()
    ours, plain = spied(cls)(**kwargs), spied(cls)(**kwargs)
    result = solve(ours, problem, tol=tol, max_iter=3000)
    state = plain_solve(plain, problem, tol, 3000)
    assert result.n_iter == state.n_iter
    assert ours.measures == plain.measures
    np.testing.assert_array_equal(np.asarray(result.state.alpha), np.asarray(state.alpha))
    assert result.gap == float(state.gap) and result.converged == (float(state.gap) <= tol)


@pytest.mark.parametrize("tol", [1e-1, 1e-3])
def test_the_shared_advance_measures_as_written_plainly(tol):
    """Solver.advance: a step at a time, measured when the running gap reached tol or every
    steps_between_measures steps (but the last), stopping at the first measured converged state."""
    problem = binary_problem()
    ours, plain = spied(PrimalSubgradient)(), spied(PrimalSubgradient)()
    n_steps, every = 500, plain.steps_between_measures(problem)
    state = plain.init(problem)
    for k in range(1, n_steps + 1):
        state = plain.step(problem, state)
        if float(state.gap) <= tol or (k % every == 0 and k < n_steps):
            state = plain.measure(problem, state)
            if float(state.gap) <= tol:
                break
    got = ours.advance(problem, ours.init(problem), n_steps, tol)
    assert got.n_iter == state.n_iter and ours.measures == plain.measures
    np.testing.assert_array_equal(got.alpha, state.alpha)
    assert float(got.gap) == float(state.gap)


def test_parallel_advance_measures_only_when_its_running_gap_reaches_tol():
    """ParallelBlock's advance never measures on a schedule (a measure makes W and S exact: another run)."""
    problem, tol = multiclass_problem("ww"), 1e-3
    ours, plain = spied(ParallelBlock)(), spied(ParallelBlock)()
    state = plain.init(problem)
    for _ in range(60):
        state = plain.step(problem, state)
        if float(state.gap) <= tol:
            state = plain.measure(problem, state)
            if float(state.gap) <= tol:
                break
    got = ours.advance(problem, ours.init(problem), 60, tol)
    assert got.n_iter == state.n_iter and ours.measures == plain.measures
    np.testing.assert_array_equal(got.alpha, state.alpha)


def test_a_running_gap_below_zero_asks_for_a_measure_and_does_not_raise():
    """A running gap's rounding is no proof of infeasibility: hints says measure; the measure decides."""

    class Stale(PrimalSubgradient):
        def step(self, problem, state):
            return super().step(problem, state)._replace(gap=-1.0)  # a running gap that lies

        def measure(self, problem, state):  # the gap of its own primal and dual
            return state._replace(gap=(state.primal - state.dual) / abs(state.primal))

    problem = binary_problem()
    solver = Stale()
    rule = StoppingRule(solver, problem, 1e-3)
    assert rule.hints(solver.step(problem, solver.init(problem)))
    state = solver.advance(problem, solver.init(problem), 5, tol=1e-12)  # measured at each step, never stops
    assert state.n_iter == 5
