"""The parallel multiclass solver, the device choice and the GPU paths.

Without a GPU: the parallel solver reaches the QP oracle's and the sequential solvers'
optimum, never lets the dual decrease, and runs unchanged on array-api-strict arrays.
Tests marked ``gpu`` run the same checks on CuPy and skip where there is no CUDA GPU.
"""

import warnings

import array_api_strict as xps
import numpy as np
import pytest
from conftest import random_binary
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import cs_dual_optimum, ww_dual_optimum
from sklearn.exceptions import ConvergenceWarning
from test_multiclass import _feasible, random_multiclass, rel

from svmteach import (
    SMO,
    BinaryProblem,
    BinarySVC,
    CSBlondel,
    MulticlassProblem,
    MulticlassSVC,
    ParallelBlock,
    WWExact,
    WWShark,
    iterate,
    solve,
)
from svmteach import objectives as obj
from svmteach import problems
from svmteach.backend import array_namespace, cupy_available, to_numpy

gpu = pytest.mark.skipif(not cupy_available(), reason="needs CuPy and a CUDA GPU")


@pytest.mark.parametrize("loss, M", [("ww", 1.0), ("ww", 0.5), ("cs", 1.0)])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("k", [3, 5])
def test_parallel_reaches_qp_optimum(loss, M, C, k):
    X, y = random_multiclass(n=4 * k, d=3, k=k, seed=k)
    p = MulticlassProblem(X, y, C=C, loss=loss, M=M)
    best = ww_dual_optimum(X, p.codes, C, M) if loss == "ww" else cs_dual_optimum(X, p.codes, C)
    r = solve(ParallelBlock(), p, tol=1e-7, max_iter=200_000)
    assert r.converged
    assert rel(r.dual, best) < 1e-6
    assert rel(r.primal, best) < 1e-6
    assert _feasible(p, to_numpy(r.state.alpha))


@pytest.mark.parametrize("loss, Sequential", [("ww", WWExact), ("cs", CSBlondel)])
def test_parallel_agrees_with_the_sequential_solver(loss, Sequential):
    X, y = random_multiclass(n=300, d=10, k=6, seed=3)
    p = MulticlassProblem(X, y, C=1.0, loss=loss)
    seq = solve(Sequential(random_state=0), p, tol=1e-8, max_iter=10**7)
    par = solve(ParallelBlock(), p, tol=1e-6, max_iter=50_000)
    assert par.converged and par.gap <= 1e-6
    assert rel(par.primal, seq.primal) < 1e-4  # the 1e-4; the gap certifies 1e-6
    assert rel(par.dual, seq.dual) < 1e-4


def test_plane_search_beats_the_line_search_alone():
    X, y = random_multiclass(n=200, d=8, k=5, seed=4)
    p = MulticlassProblem(X, y, C=1.0, loss="ww")
    with_plane = solve(ParallelBlock(), p, tol=1e-6, max_iter=50_000)
    line_only = solve(ParallelBlock(momentum=False), p, tol=1e-6, max_iter=50_000)
    assert with_plane.converged and line_only.converged
    assert with_plane.n_iter < line_only.n_iter
    assert rel(with_plane.dual, line_only.dual) < 1e-5


parallel_problems = st.builds(
    lambda n, k, seed, C, loss, M: MulticlassProblem(*random_multiclass(n=n, d=2, k=k, seed=seed), C=C, loss=loss, M=M),
    st.integers(6, 30), st.integers(2, 5), st.integers(0, 10_000), st.sampled_from([0.01, 1.0, 50.0]),
    st.sampled_from(["ww", "cs"]), st.sampled_from([1.0, 0.5]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=parallel_problems, momentum=st.booleans())
def test_every_parallel_step_is_feasible_monotone_and_pure(problem, momentum):
    solver = ParallelBlock(momentum=momentum)
    state = solver.init(problem)
    for _ in range(25):
        before = [a.copy() for a in (state.alpha, state.W, state.S)]
        new = solver.step(problem, state)
        for a, b in zip((state.alpha, state.W, state.S), before):
            np.testing.assert_array_equal(a, b)  # the input state is untouched
        assert _feasible(problem, new.alpha)
        assert new.dual >= state.dual - 1e-10 * max(1.0, abs(state.dual))
        exact = solver.measure(problem, new)  # W recomputed from alpha: the certified gap
        np.testing.assert_allclose(exact.W, new.W, atol=1e-9 * max(1.0, float(np.abs(exact.W).max())))
        assert exact.primal >= exact.dual - 1e-9 * max(1.0, abs(exact.primal))
        assert 0.0 <= new.t <= 1.0
        state = new


def test_state_shows_the_step():
    X, y = random_multiclass(n=40, d=3, k=4, seed=6)
    p = MulticlassProblem(X, y, loss="cs")
    solver = ParallelBlock()
    states = list(iterate(solver, p, max_iter=5))
    first, later = states[1], states[-1]
    assert first.target.shape == (40, 4) and not first.used_plane and np.isnan(first.plane[0])
    # the step is t (T - alpha) on the first step, a (T - alpha) + b P later
    np.testing.assert_allclose(first.step_alpha, first.t * (first.target - states[0].alpha), atol=1e-12)
    assert not np.isnan(later.plane[0])
    np.testing.assert_allclose(later.step_alpha, later.alpha - states[-2].alpha)
    # each block target is the sequential solver's exact block step from the same W
    i = 7
    seq = CSBlondel()
    s0 = seq.init(p)._replace(alpha=states[2].alpha, W=states[2].W)
    np.testing.assert_allclose(seq.update(p, s0, i).alpha[i], states[3].target[i], atol=1e-10)


def test_ww_block_target_is_the_exact_block_step():
    X, y = random_multiclass(n=30, d=3, k=4, seed=7)
    p = MulticlassProblem(X, y, loss="ww", M=0.5)
    solver = ParallelBlock()
    states = list(iterate(solver, p, max_iter=3))
    seq = WWExact()
    s0 = seq.init(p)._replace(alpha=states[2].alpha, W=states[2].W)
    for i in (0, 11, 29):
        np.testing.assert_allclose(seq.update(p, s0, i).alpha[i], states[3].target[i], atol=1e-10)


@pytest.mark.parametrize("loss", ["ww", "cs"])
def test_parallel_step_path_on_array_api_strict_equals_numpy(loss):
    X, y = random_multiclass(n=20, d=3, k=4, seed=8)
    strict = MulticlassProblem(xps.asarray(X), y, loss=loss)
    plain = MulticlassProblem(X, y, loss=loss)
    a = solve(ParallelBlock(), strict, tol=1e-6, max_iter=500)
    b = solve(ParallelBlock(), plain, tol=1e-6, max_iter=500)
    assert array_namespace(a.state.alpha) is array_namespace(strict.X)
    # the same arithmetic up to the order of a sum: rounding may flip a plane / line choice, so the runs are
    # compared by their certified optimum, not step for step
    assert a.converged and b.converged
    assert a.dual == pytest.approx(b.dual, rel=2e-6)


@pytest.mark.parametrize("Solver, loss", [(WWExact, "ww"), (WWShark, "ww"), (CSBlondel, "cs")])
def test_sequential_step_paths_on_array_api_strict_equal_numpy(Solver, loss):
    X, y = random_multiclass(n=12, d=3, k=3, seed=9)
    a = list(iterate(Solver(random_state=0), MulticlassProblem(xps.asarray(X), y, loss=loss), max_iter=30))[-1]
    b = list(iterate(Solver(random_state=0), MulticlassProblem(X, y, loss=loss), max_iter=30))[-1]
    np.testing.assert_allclose(to_numpy(a.alpha), b.alpha, atol=1e-12)
    np.testing.assert_allclose(to_numpy(a.W), b.W, atol=1e-12)


@pytest.mark.parametrize("loss", ["ww", "cs"])
def test_parallel_awkward_input(loss):
    X, y = random_multiclass(n=30, d=3, k=3, seed=8)
    X[2] = 0.0  # a zero row: its block is linear
    X = np.vstack([X, X[:4]])  # duplicates with other labels
    y = np.concatenate([y, (y[:4] + 1) % 3])
    m = MulticlassSVC(fit_intercept=False, loss=loss, solver="parallel", tol=1e-6, max_iter=50_000).fit(X.astype(np.float32), y)
    ref = MulticlassSVC(fit_intercept=False, loss=loss, tol=1e-10, max_iter=10**5, random_state=0).fit(X, y)
    p = ref.problem_for(X, y)
    assert m.result_.converged
    assert rel(obj.multiclass_primal(p, m.coef_), obj.multiclass_primal(p, ref.coef_)) < 1e-5
    y2 = p.codes[2]
    if loss == "ww":
        np.testing.assert_allclose(np.delete(m.alpha_[2], y2), 1.0)
    else:
        assert m.alpha_[2, y2] == pytest.approx(1.0)
    # all rows zero: every block is linear, the optimum is at the bounds
    Z = np.zeros((6, 2))
    z = MulticlassSVC(fit_intercept=False, loss=loss, solver="parallel").fit(Z, [0, 1, 2, 0, 1, 2])
    assert z.result_.converged and np.all(z.coef_ == 0)


def test_parallel_estimator_agrees_and_warns():
    X, y = random_multiclass(n=90, d=4, k=3, seed=11)
    par = MulticlassSVC(fit_intercept=False, solver="parallel", tol=1e-6, max_iter=10_000).fit(X, y)
    seq = MulticlassSVC(fit_intercept=False, tol=1e-8, max_iter=10_000, random_state=0).fit(X, y)
    np.testing.assert_array_equal(par.predict(X), seq.predict(X))
    assert isinstance(par.coef_, np.ndarray) and isinstance(par.alpha_, np.ndarray)
    with pytest.warns(ConvergenceWarning, match="max_iter=2 epochs"):
        MulticlassSVC(fit_intercept=False, solver="parallel", max_iter=2, tol=1e-12).fit(X, y)


def test_bad_parallel_parameters():
    with pytest.raises(ValueError, match="^refresh must be a positive integer"):
        ParallelBlock(refresh=0)
    X, y = random_binary()
    with pytest.raises(TypeError, match="^problem must be a MulticlassProblem"):
        ParallelBlock().init(BinaryProblem(X, y))
    with pytest.raises(ValueError, match="^solver must be one of"):
        MulticlassSVC(fit_intercept=False, solver="gpu").fit(*random_multiclass())


# ---- devices ----------------------------------------------------------------------------------

def test_device_argument():
    X, y = random_multiclass()
    with pytest.raises(ValueError, match="^device must be one of"):
        MulticlassProblem(X, y, device="tpu")
    with pytest.raises(ValueError, match="'device' parameter of MulticlassSVC must be a str among"):
        MulticlassSVC(fit_intercept=False, device="cuda").fit(X, y)
    if not cupy_available():
        with pytest.raises(ValueError, match="^device='gpu' needs CuPy"):
            BinarySVC(device="gpu").fit(*random_binary())
    # "cpu" brings arrays of another library to NumPy; None leaves them where they are
    assert isinstance(MulticlassProblem(xps.asarray(X), y, device="cpu").X, np.ndarray)
    assert array_namespace(MulticlassProblem(xps.asarray(X), y).X) is xps
    auto = MulticlassSVC(fit_intercept=False, device="auto", solver="parallel").fit(X, y)
    assert isinstance(auto.coef_, np.ndarray)


def test_smo_kernel_rows_on_demand_equal_the_cached_matrix(monkeypatch):
    X, y = random_binary(n=40, d=3, seed=3)
    cached = list(iterate(SMO(), BinaryProblem(X, y, kernel="rbf", gamma=0.7), max_iter=25))[-1]
    monkeypatch.setattr(problems, "FULL_GRAM_UP_TO", 10)  # 40 > 10: rows are computed one at a time
    p = BinaryProblem(X, y, kernel="rbf", gamma=0.7)
    rows = list(iterate(SMO(), p, max_iter=25))[-1]
    assert "gram" not in p.__dict__  # the (n, n) matrix was never formed
    np.testing.assert_allclose(rows.alpha, cached.alpha, atol=1e-12)
    assert rows.dual == pytest.approx(cached.dual, rel=1e-12)


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("loss", ["ww", "cs"])
def test_parallel_on_gpu_equals_numpy(loss):
    X, y = random_multiclass(n=500, d=20, k=5, seed=12)
    g = MulticlassProblem(X.astype(np.float32), y, loss=loss, device="gpu")
    c = MulticlassProblem(X.astype(np.float32), y, loss=loss)
    assert type(g.X).__module__.startswith("cupy")
    a = solve(ParallelBlock(), g, tol=1e-5, max_iter=20_000)
    b = solve(ParallelBlock(), c, tol=1e-5, max_iter=20_000)
    assert type(a.state.alpha).__module__.startswith("cupy")  # it stayed on the GPU
    assert a.converged and b.converged
    assert rel(a.dual, b.dual) < 1e-5


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("Solver, loss", [(WWExact, "ww"), (CSBlondel, "cs")])
def test_sequential_step_paths_on_gpu_equal_numpy(Solver, loss):
    X, y = random_multiclass(n=12, d=3, k=3, seed=9)
    a = list(iterate(Solver(random_state=0), MulticlassProblem(X, y, loss=loss, device="gpu"), max_iter=30))[-1]
    b = list(iterate(Solver(random_state=0), MulticlassProblem(X, y, loss=loss), max_iter=30))[-1]
    np.testing.assert_allclose(to_numpy(a.alpha), b.alpha, atol=1e-10)


@pytest.mark.gpu
@gpu
def test_smo_on_gpu_with_kernel_rows(monkeypatch):
    X, y = random_binary(n=60, d=3, seed=4)
    ref = BinarySVC(kernel="rbf", gamma=0.5, tol=1e-6).fit(X, y)
    monkeypatch.setattr(problems, "FULL_GRAM_UP_TO", 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gpu_fit = BinarySVC(kernel="rbf", gamma=0.5, tol=1e-6, device="gpu").fit(X, y)
    np.testing.assert_allclose(gpu_fit.decision_function(X), ref.decision_function(X), atol=1e-4)
    assert isinstance(gpu_fit.alpha_, np.ndarray)


@pytest.mark.gpu
@gpu
def test_estimator_on_gpu():
    X, y = random_multiclass(n=200, d=5, k=4, seed=13)
    g = MulticlassSVC(fit_intercept=False, solver="parallel", device="gpu", tol=1e-6, max_iter=10_000).fit(X, y)
    c = MulticlassSVC(fit_intercept=False, solver="parallel", tol=1e-6, max_iter=10_000).fit(X, y)
    assert isinstance(g.coef_, np.ndarray)
    np.testing.assert_allclose(g.coef_, c.coef_, atol=1e-4 * max(1.0, np.abs(c.coef_).max()))


# ---- svmteach bench ---------------------------------------------------------------------------

def test_bench_runs_and_reports(tmp_path, capsys):
    import json

    from svmteach.cli import bench_harness, main

    harness = bench_harness()
    Progress, cpu_model, liblinear_available = harness.Progress, harness.cpu_model, harness.liblinear_available

    out = tmp_path / "bench.json"
    assert main(["bench", "--sizes", "1000", "--d", "20", "--k", "3", "--tol", "1e-2", "--repeat", "2",
                 "--json", str(out)]) == 0
    printed = capsys.readouterr()
    assert "| ww | 1000 |" in printed.out and "| cs | 1000 |" in printed.out
    assert cpu_model() in printed.out and "cores" in printed.out and "numba threads" in printed.out
    assert "[" in printed.err and "gap" in printed.err  # the progress bar
    rows = json.loads(out.read_text())["rows"]
    assert {r["loss"] for r in rows} == {"ww", "cs"}
    for r in rows:
        assert r["cpu_converged"] and r["parallel_converged"]
        assert r["cpu_gap"] <= 1e-2 and r["parallel_gap"] <= 1e-2
        assert r["parallel_device"] == ("gpu" if cupy_available() else "cpu")
        assert len(r["cpu_times"]) == len(r["parallel_times"]) == 2  # repeated; the median between them
        assert min(r["cpu_times"]) <= r["cpu_seconds"] <= max(r["cpu_times"])
        assert not r["speedup_text"].startswith(("<", ">"))  # both finished: a plain ratio
    if liblinear_available():
        assert "LIBLINEAR -s 4" in printed.out
        (cs,) = [r for r in rows if r["loss"] == "cs"]
        assert len(cs["liblinear_times"]) == 2
        # weak duality: LIBLINEAR's primal is at least every dual value svmteach reached
        assert cs["liblinear_subopt_bound"] >= -1e-12 and cs["liblinear_primal"] > 0
    bar = Progress("x", tol=1e-3, budget=0.0)
    assert bar.fraction(1.0) == 0.0 and bar.fraction(1e-3) == 1.0 and 0 < bar.fraction(3e-2) < 1
    with pytest.raises(SystemExit, match="at least 1000"):
        main(["bench", "--sizes", "10"])


# ---- the CuPy code path without a GPU ---------------------------------------------------------

@pytest.mark.parametrize("loss", ["ww", "cs"])
def test_parallel_solver_through_the_cupy_code_path(compat_namespace, loss):
    X, y = random_multiclass(n=60, d=4, k=4, seed=14)
    X = X.astype(np.float32)
    via_compat = solve(ParallelBlock(), MulticlassProblem(X, y, loss=loss), tol=1e-5, max_iter=20_000)
    assert via_compat.converged
    from svmteach import backend

    backend_is_cupy = backend._is_cupy
    backend._is_cupy = lambda a: False  # plain NumPy, for the reference
    try:
        plain = solve(ParallelBlock(), MulticlassProblem(X, y, loss=loss), tol=1e-5, max_iter=20_000)
    finally:
        backend._is_cupy = backend_is_cupy
    # the same steps up to the rounding of the float64 products (a block at a time on NumPy): compared by
    # their certified optimum, not step for step (rounding may flip a plane / line choice)
    assert plain.converged
    assert via_compat.dual == pytest.approx(plain.dual, rel=2e-5)


def test_step_paths_through_the_cupy_code_path(compat_namespace):
    Xm, ym = random_multiclass(n=15, d=3, k=3, seed=15)
    for Solver, loss in ((WWExact, "ww"), (WWShark, "ww"), (CSBlondel, "cs")):
        state = solve(Solver(random_state=0), MulticlassProblem(Xm, ym, loss=loss), tol=1e-6, max_iter=20_000)
        assert state.converged  # the step-by-step path (advance steps one at a time off NumPy)
    Xb, yb = random_binary(n=40, d=3, seed=5)
    fit = BinarySVC(kernel="rbf", gamma=0.5, tol=1e-6).fit(Xb, yb)
    assert fit.result_.converged and isinstance(fit.alpha_, np.ndarray)


def test_a_run_that_stops_moving_stops_and_says_so():
    """A step with t = 0 and no plane is a fixed point: the run used to spin there until max_iter.
    (Crammer-Singer at C = 10 reaches one near a gap of 3e-10; a tol below it used to hang.)"""
    X, y = random_multiclass(n=24, d=3, k=4, seed=1)
    p = MulticlassProblem(X, y, C=10.0, loss="cs")
    r = solve(ParallelBlock(), p, tol=1e-300, max_iter=10**6)
    assert not r.converged and r.n_iter < 10**5 and 0 <= r.gap < 1e-8  # stopped, at the floor, and says so
    again = ParallelBlock().step(p, r.state)
    # it really was a fixed point: the last state is measured (W recomputed from alpha, its rounding
    # another than the steps' W), so a step from it may move an entry by an ulp, no more
    np.testing.assert_allclose(again.alpha, r.state.alpha, rtol=0, atol=4 * np.finfo(float).eps * np.abs(r.state.alpha).max())
    with pytest.warns(ConvergenceWarning, match="before max_iter=1000000 epochs, because its steps no longer changed"):
        MulticlassSVC(fit_intercept=False, loss="cs", C=10.0, solver="parallel", tol=1e-300, max_iter=10**6).fit(X, y)


def test_a_nan_gap_stops_the_run():
    X, y = random_multiclass(n=12, d=2, k=3, seed=2)
    p = MulticlassProblem(X, y, loss="ww")

    class Broken(ParallelBlock):
        def measure(self, problem, state):
            return super().measure(problem, state)._replace(gap=np.nan)

    r = solve(Broken(), p, tol=1e-6, max_iter=10**6)
    assert not r.converged and r.n_iter == Broken().refresh  # one chunk, then the NaN stops it


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), loss=st.sampled_from(["ww", "cs", "llw", "mmr"]),
       scale=st.sampled_from([0.1, 1.0, 10.0]), n_steps=st.integers(1, 40))
def test_the_fast_path_and_the_step_path_are_one_run(seed, loss, scale, n_steps):
    """A measure observes and does not change the run (the step itself refreshes W and S every ``refresh`` steps):
    ``advance`` by n steps is n steps each followed by a measure, bit for bit, on the small ill-conditioned problems
    (4 samples, C = 100, an intercept) where a measure that replaced W and S once made the two paths 30 and 5,783
    steps long."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 5))
    X, y = scale * rng.normal(size=(4, 2)), np.arange(4) % k
    problem = MulticlassProblem(X, y, C=100.0, loss=loss, bias=1.0)
    solver = ParallelBlock()
    start = solver.measure(problem, solver.init(problem))
    fast = solver.advance(problem, start, n_steps, None)
    stepped = start
    for _ in range(n_steps):
        stepped = solver.measure(problem, solver.step(problem, stepped))
    np.testing.assert_array_equal(fast.alpha, stepped.alpha)
    np.testing.assert_array_equal(fast.W, stepped.W)
    assert solver.measure(problem, fast).gap == stepped.gap
