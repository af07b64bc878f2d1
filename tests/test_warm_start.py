"""Continuing a run on another problem (another C): the state is checked, projected into the new
box and re-measured, and the run reaches the independent QP solver's optimum of the new problem.

Before warm starts existed, a state of C = 10 handed to a problem with C = 0.1 stopped after 0 steps
as "converged" (a gap of -69), or with a stale gap of 2e-7 at a primal 32 times the optimum.
"""

import array_api_strict as xps
import numpy as np
import pytest
from conftest import random_binary
from oracles import binary_dual_optimum, cs_dual_optimum, ww_dual_optimum
from test_multiclass import _feasible, random_multiclass, rel

from svmteach import (
    SMO,
    BinaryProblem,
    CSBlondel,
    DualCoordinateAscent,
    MulticlassProblem,
    ParallelBlock,
    PrimalSubgradient,
    WWExact,
    WWShark,
    iterate,
    solve,
)
from svmteach import objectives as obj
from svmteach.solvers.base import InfeasibleStateError

MULTICLASS = [("ww", WWExact), ("ww", WWShark), ("cs", CSBlondel), ("ww", ParallelBlock), ("cs", ParallelBlock)]


def make(Solver):
    return Solver() if Solver is ParallelBlock else Solver(random_state=0)


def optimum(p):
    if p.loss == "ww":
        return ww_dual_optimum(np.asarray(p.X), np.asarray(p.codes), p.C, p.M)
    return cs_dual_optimum(np.asarray(p.X), np.asarray(p.codes), p.C)


@pytest.mark.parametrize("loss, Solver", MULTICLASS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_multiclass_warm_start_down_and_up_reaches_the_qp_optimum(loss, Solver):
    X, y = random_multiclass(n=24, d=3, k=4, seed=1)
    big, small = (MulticlassProblem(X, y, C=C, loss=loss, M=0.5) for C in (10.0, 0.1))
    solver = make(Solver)
    tol = 1e-8 if Solver is ParallelBlock else 1e-9  # the parallel solver's rounding floor is near 1e-9
    state = solve(solver, big, tol=tol, max_iter=10**6).state
    for p in (small, big):  # down to C = 0.1, then back up to C = 10
        warm = solver.warm_start(p, state)
        alpha = np.asarray(warm.alpha)
        assert _feasible(p, alpha)  # projected into the new box
        np.testing.assert_allclose(np.asarray(warm.W), obj.multiclass_weights(p, alpha), atol=1e-12)
        assert warm.primal >= warm.dual  # a feasible point: weak duality, no negative gap
        r = solve(solver, p, tol=tol, max_iter=10**6, state=state)
        assert r.converged and r.n_iter > state.n_iter  # it had to work: C changed a hundredfold
        best = optimum(p)
        assert rel(r.dual, best) < 1e-6 and rel(r.primal, best) < 1e-6
        assert _feasible(p, np.asarray(r.state.alpha))
        state = r.state


@pytest.mark.parametrize("loss", ["ww", "cs"])
def test_parallel_warm_state_reports_the_new_problems_gap(loss):
    """The stale-gap bug: a state that was exact for C = 10 kept its gap when measured for C = 0.1."""
    X, y = random_multiclass(n=30, d=3, k=4, seed=0)
    big, small = (MulticlassProblem(X, y, C=C, loss=loss) for C in (10.0, 0.1))
    state = solve(ParallelBlock(), big, tol=1e-8).state
    warm = ParallelBlock().warm_start(small, state)
    assert warm.primal == pytest.approx(obj.multiclass_primal(small, obj.multiclass_weights(small, warm.alpha)))
    assert warm.dual == pytest.approx(obj.multiclass_dual(small, warm.alpha, obj.multiclass_weights(small, warm.alpha)))
    assert np.all(warm.step_alpha == 0)  # the previous step belonged to the other problem


def test_subgradient_warm_start_down_and_up():
    X, y = random_binary(n=30, d=3, seed=2)
    big, small = BinaryProblem(X, y, C=10.0), BinaryProblem(X, y, C=0.1)
    solver = PrimalSubgradient("1/sqrt(t)")  # the step count carries on: 1/t would crawl after a long run
    state = solve(solver, big, tol=1e-2, max_iter=100_000).state
    for p in (small, big):
        warm = solver.warm_start(p, state)
        assert np.all((warm.alpha >= 0) & (warm.alpha <= p.C)) and warm.primal >= warm.dual
        r = solve(solver, p, tol=1e-2, max_iter=100_000, state=state)
        best, _ = binary_dual_optimum(X @ X.T, p.y, p.C, bias=False)
        assert r.converged and r.dual <= best * (1 + 1e-9) and r.primal >= best * (1 - 1e-9)
        assert rel(r.dual, best) < 1e-2
        state = r.state


def test_iterate_warm_starts_too():
    X, y = random_multiclass(n=20, d=2, k=3, seed=3)
    big, small = (MulticlassProblem(X, y, C=C, loss="ww") for C in (10.0, 0.1))
    state = solve(WWExact(random_state=0), big, tol=1e-8).state
    first = next(iterate(WWExact(random_state=0), small, max_iter=5, state=state))
    assert _feasible(small, first.alpha) and first.gap >= 0


def test_an_unprojected_state_is_an_error_not_convergence():
    """What a warm start prevents: an infeasible state's negative gap is refused, never 'converged'."""
    X, y = random_multiclass(n=20, d=2, k=3, seed=3)
    big, small = (MulticlassProblem(X, y, C=C, loss="ww") for C in (10.0, 0.1))
    state = solve(WWExact(random_state=0), big, tol=1e-8).state
    raw = WWExact().measure(small, state)  # measured for C = 0.1, not projected
    with pytest.raises(InfeasibleStateError, match="not feasible"):
        WWExact().converged(raw, 1e-3)


def test_wrong_states_give_clear_errors():
    X, y = random_multiclass(n=20, d=2, k=3, seed=4)
    ww, cs = MulticlassProblem(X, y, loss="ww"), MulticlassProblem(X, y, loss="cs")
    ww_state = solve(WWExact(random_state=0), ww, max_iter=40).state
    with pytest.raises(TypeError, match="^state must be a CSBlondelState"):  # another solver's state
        solve(CSBlondel(), cs, state=ww_state)
    with pytest.raises(TypeError, match="^state must be a WWExactState"):
        solve(WWExact(), ww, state={"alpha": np.zeros((20, 3))})
    with pytest.raises(ValueError, match="solves the 'ww' loss"):  # a problem of another loss
        solve(WWExact(), cs, state=ww_state)
    X2, y2 = random_multiclass(n=21, d=2, k=3, seed=4)
    with pytest.raises(ValueError, match=r"^state.alpha has shape \(20, 3\) but this problem needs \(21, 3\)"):
        solve(WWExact(), MulticlassProblem(X2, y2), state=ww_state)
    X4, y4 = random_multiclass(n=20, d=2, k=4, seed=4)
    with pytest.raises(ValueError, match=r"^state.alpha has shape \(20, 3\) but this problem needs \(20, 4\)"):
        list(iterate(WWExact(), MulticlassProblem(X4, y4), state=ww_state, max_iter=3))
    par = solve(ParallelBlock(), ww, max_iter=3).state
    with pytest.raises(ValueError, match=r"^state.alpha has shape"):
        solve(ParallelBlock(), MulticlassProblem(X2, y2), state=par)
    with pytest.raises(TypeError, match="^state.alpha lives in array_api_strict"):  # another device's state
        solve(ParallelBlock(), ww, state=par._replace(alpha=xps.asarray(par.alpha)))
    Xb, yb = random_binary(n=20)
    sub = solve(PrimalSubgradient(), BinaryProblem(Xb, yb), max_iter=3).state
    with pytest.raises(ValueError, match=r"^state.alpha has shape \(20,\) but this problem needs \(21,\)"):
        solve(PrimalSubgradient(), BinaryProblem(*random_binary(n=21)), state=sub)
    with pytest.raises(ValueError, match="^state.alpha contains NaN"):
        solve(PrimalSubgradient(), BinaryProblem(Xb, yb), state=sub._replace(alpha=np.full(20, np.nan)))


@pytest.mark.parametrize("make_solver", [lambda: SMO(), lambda: DualCoordinateAscent(random_state=0),
                                         lambda: WWExact(random_state=0)], ids=["smo", "dual_cd", "ww_exact"])
def test_max_iter_counts_the_steps_of_this_call(make_solver):
    """A run continued from a long one takes max_iter new steps, as iterate does: max_iter counted
    from the old run's n_iter left a warm start at a new C with nothing to do (0 steps, not converged)."""
    X, y = random_multiclass(n=30, d=3, k=3, seed=4)
    if isinstance(make_solver(), WWExact):
        first, second = (MulticlassProblem(X, y, C=C) for C in (10.0, 0.1))
    else:
        y = np.where(y == 0, 1, -1)
        first, second = (BinaryProblem(X, y, C=C) for C in (10.0, 0.1))
    solver = make_solver()
    state = solve(solver, first, tol=1e-9, max_iter=10**6).state
    budget = 5
    assert state.n_iter > budget  # the old run is longer than this call's budget
    r = solve(solver, second, tol=1e-12, max_iter=budget, state=state)
    assert r.n_iter - state.n_iter == budget  # exactly the new steps it was allowed
    steps = list(iterate(solver, second, max_iter=budget, state=state))
    assert steps[-1].n_iter - state.n_iter == budget  # the same rule as iterate's
