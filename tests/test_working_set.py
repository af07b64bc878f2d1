"""The working-set solver of kernel multiclass problems (svmteach.solvers.working_set).

Its optimum is checked against the explicit feature map's QP in tests/test_kernel_multiclass.py (every loss and
kernel, C = 0.1 and 10); here: one working set of one sample solved by one epoch is the exact block solver's
visit of that sample (another code path: the row cache's column and the step path's own update), the scores it
keeps are K A of its alpha, what a step chose, and its refusals; and the GPU's code path, run on the CPU through
CuPy's namespace on NumPy arrays (conftest.cupy_code_path), against the compiled CPU steps and the QP.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import cupy_code_path

from svmteach import MulticlassSVC, data
from svmteach import objectives as obj
from svmteach.problems import MulticlassProblem
from svmteach.backend import cupy_available, is_numpy, to_numpy
from svmteach.solvers import CSBlondel, ExactBlock, InteriorPoint, WorkingSet, solve
from svmteach.solvers.violations import block_violations

LOSSES = ("ww", "cs", "llw", "mmr")


def problem(loss, n=40, seed=0, C=2.0):
    X, y = data.rings(n, noise=0.2, seed=seed)
    return MulticlassProblem(X, y, C=C, loss=loss, bias=1.0, kernel="rbf", gamma=0.7)


@pytest.mark.parametrize("loss", LOSSES)
def test_a_working_set_of_one_sample_is_the_exact_blocks_visit(loss):
    p = problem(loss)
    ws = WorkingSet(working_set=1, inner_epochs=1, row_dtype="float64", random_state=3)
    exact = ExactBlock(random_state=0, shrinking=False)
    state = ws.init(p)
    for _ in range(3 * p.n_samples):
        before = exact.init(p)._replace(alpha=state.alpha.copy(), W=state.W.copy())
        after = ws.step(p, state)
        (i,) = after.chosen
        twin = exact.update(p, before, int(i))
        np.testing.assert_allclose(after.alpha, twin.alpha, rtol=0, atol=1e-13)
        kept = state.active  # the scores the step keeps: a shrunk sample's wait for the next measure
        assert np.isin(after.chosen, kept).all()
        np.testing.assert_allclose(after.W[kept], twin.W[kept], rtol=0, atol=1e-12)
        state = after


@pytest.mark.parametrize("loss", LOSSES)
def test_the_scores_it_keeps_are_those_of_its_alpha_and_the_dual_never_falls(loss):
    p = problem(loss, seed=1)
    ws = WorkingSet(working_set=7, row_dtype="float64", random_state=0)
    state = ws.init(p)
    dual = state.dual
    for _ in range(30):
        state = ws.measure(p, ws.step(p, state))
        assert state.dual >= dual - 1e-12 * abs(dual)
        dual = state.dual
    unmeasured = ws.step(p, state)
    exact = np.asarray(obj.multiclass_weights(p, unmeasured.alpha))
    np.testing.assert_allclose(unmeasured.W, exact, rtol=0, atol=1e-11 * max(1.0, np.abs(exact).max()))


@pytest.mark.parametrize("loss", ("llw", "mmr"))
def test_a_centred_losss_sub_problem_keeps_the_shared_move_apart_and_its_scores_are_its_kernel_times_the_change(loss):
    from svmteach.losses.base import row_kernels
    from svmteach.losses.row_kernels import params
    from svmteach.solvers import numba_multiclass as nm
    from svmteach.solvers.working_set import kernel_rows

    p = problem(loss, n=60, seed=2)
    ws = WorkingSet(working_set=9, row_dtype="float64", random_state=1)
    state = ws.init(p)
    for _ in range(8):  # a state part way: alpha off 0, the scores those of its alpha
        state = ws.measure(p, ws.step(p, state))
    chosen = np.sort(np.random.default_rng(0).choice(p.n_samples, 24, replace=False))
    K = np.asarray(kernel_rows(p, chosen, chosen, np.float64))
    drivers = nm.drivers(row_kernels(p.loss_object))
    data = nm.Samples(*(np.asarray(a)[chosen] for a in (p.sqnorm, p.codes, p.C_i)))
    runs = []
    for centred in (True, False):  # False: every class's row moved on its own, as for the other losses
        alpha, S, change = np.array(state.alpha[chosen]), np.array(state.W[chosen]), np.empty((24, p.k))
        visits, epochs, start, end = drivers.subproblem(drivers.code, K, S, alpha, data, params(p.M), 1e-6, 30,
                                                        centred, change)
        assert epochs > 1 and end < start
        # the set's scores: its own start plus its kernel matrix times the change of A(alpha)
        np.testing.assert_allclose(S, state.W[chosen] + K @ change, rtol=0, atol=1e-12 * max(1.0, np.abs(S).max()))
        np.testing.assert_allclose(change.sum(axis=1), 0.0, atol=1e-12)  # a centred loss's rows of A sum to 0
        runs.append((alpha, S))
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=0, atol=1e-10)
    np.testing.assert_allclose(runs[0][1], runs[1][1], rtol=0, atol=1e-10 * max(1.0, np.abs(runs[1][1]).max()))


def test_an_epoch_solves_each_violating_sample_once_and_the_next_takes_those_still_violating():
    p = problem("cs", n=60, seed=2)
    ws = WorkingSet(working_set=16, random_state=1)
    state = ws.init(p)
    assert state.epoch == 1 and sorted(state.perm.tolist()) == list(range(p.n_samples))  # alpha = 0: all violate
    chosen = []
    while state.epoch == 1:
        state = ws.step(p, state)
        assert np.all(np.diff(state.chosen) > 0) and state.inner_epochs >= 1
        chosen.append(state.chosen)
    assert [len(c) for c in chosen] == [16, 16, 16, 12] and state.rows_computed == p.n_samples
    assert sorted(np.concatenate(chosen).tolist()) == list(range(p.n_samples))
    v = block_violations(p, state.alpha, state.W)
    assert sorted(state.perm.tolist()) == np.flatnonzero(v > 1e-12).tolist() and state.violation == v.max()


def test_the_rows_it_holds_fit_cache_size():
    p = problem("ww", n=60)
    assert WorkingSet(working_set=256, cache_size=60 * 8 * 5 / 2**20).block_size(p) == 5
    assert WorkingSet(working_set=10).block_size(p) == 10 and WorkingSet(working_set=1000).block_size(p) == 60


def test_an_estimator_fits_with_it_and_predicts_as_the_epochs_do():
    X, y = data.rings(90, noise=0.2, seed=4)
    a = MulticlassSVC(kernel="rbf", gamma=0.7, solver="working_set", tol=1e-8, random_state=0).fit(X, y)
    b = MulticlassSVC(kernel="rbf", gamma=0.7, tol=1e-8, random_state=0).fit(X, y)
    assert a.result_.converged and a.solver_ == "working_set"
    assert b.solver_ == "exact"  # the default below 2,000 samples while the row cache holds K (test_kernel_multiclass)
    Z = np.random.default_rng(0).uniform(-3, 3, (40, 2))
    np.testing.assert_allclose(a.decision_function(Z), b.decision_function(Z), atol=1e-3)


def test_the_estimators_default_is_the_working_sets_from_2000_samples_or_beyond_the_cache():
    from svmteach.estimators.multiclass import WORKING_SETS_FROM

    rng = np.random.default_rng(0)
    for n, cache_size, expected in ((WORKING_SETS_FROM - 1, 200, "exact"), (WORKING_SETS_FROM, 200, "working_set"),
                                    (300, 300**2 * 8 / 2 / 2**20, "working_set")):  # K in the cache; at 2,000; beyond
        X, y = rng.standard_normal((n, 3)), np.arange(n) % 3
        est = MulticlassSVC(kernel="rbf", cache_size=cache_size)
        p = MulticlassProblem(X, y, C=1.0, loss="ww", bias=1.0, kernel="rbf", gamma=1.0)
        assert est.solver_for(est.make_solver(), p).name == expected, (n, cache_size)
        assert MulticlassSVC(kernel="linear").solver_for(est.make_solver(), MulticlassProblem(X, y, C=1.0)).name == "exact"


def test_bad_input_is_refused_naming_it():
    for bad in (0, 1.5, True, "8"):
        with pytest.raises(ValueError, match="working_set"):
            WorkingSet(working_set=bad)
    for bad in (0.0, 1.5, -0.1, True, "0.1"):
        with pytest.raises(ValueError, match="inner_fraction"):
            WorkingSet(inner_fraction=bad)
    with pytest.raises(ValueError, match="inner_epochs"):
        WorkingSet(inner_epochs=0)
    with pytest.raises(ValueError, match="cache_size"):
        WorkingSet(cache_size=-1)
    for bad in ("float16", np.float32, None, ["float32"]):
        with pytest.raises(ValueError, match="row_dtype"):
            WorkingSet(row_dtype=bad)
    X, y = data.rings(30, noise=0.2, seed=0)
    with pytest.raises(ValueError, match="kernel"):
        MulticlassSVC(solver="working_set").fit(X, y)
    with pytest.raises(ValueError, match="kernel"):
        solve(WorkingSet(), MulticlassProblem(X, y, C=1.0, loss="ww"))


@pytest.mark.parametrize("loss", ("ww", "cs"))
def test_shrinking_sets_samples_aside_computes_fewer_kernel_entries_and_reaches_the_same_optimum(loss):
    X, y = data.rings(300, noise=0.15, seed=5)
    p = MulticlassProblem(X, y, C=1.0, loss=loss, bias=1.0, kernel="rbf", gamma=0.7)
    runs = {shrink: solve(WorkingSet(working_set=32, shrinking=shrink, random_state=0), p, tol=1e-8)
            for shrink in (True, False)}
    shrunk, full = runs[True], runs[False]
    assert shrunk.converged and full.converged
    assert shrunk.state.kernel_values < 0.8 * full.state.kernel_values
    np.testing.assert_allclose(shrunk.state.dual, full.state.dual, rtol=1e-7)
    # the certified state's scores are K A(alpha) for every sample, shrunk during the run or not
    exact = np.asarray(obj.multiclass_weights(p, shrunk.state.alpha))
    np.testing.assert_allclose(shrunk.state.W, exact, rtol=0, atol=1e-10 * np.abs(exact).max())
    # along a run the kept scores are exact for the active samples; the others, set aside where their block held
    # (some at a weight that moves scores), are never chosen and do not move
    ws = WorkingSet(working_set=32, row_dtype="float64", random_state=0)
    state, weighty = ws.init(p), False
    for _ in range(60):
        before, state = state, ws.step(p, state)
        rest = np.setdiff1d(np.arange(p.n_samples), before.active)
        assert np.isin(state.chosen, before.active).all()
        np.testing.assert_array_equal(state.alpha[rest], before.alpha[rest])
        exact = np.asarray(obj.multiclass_weights(p, state.alpha))
        np.testing.assert_allclose(state.W[state.active], exact[state.active], rtol=0, atol=1e-10)
        weighty |= np.any(np.asarray(p.loss_object.weight_rows(p, state.alpha))[rest] != 0)
    assert weighty


@pytest.mark.parametrize("kernel", ("rbf", "poly", "laplacian"))
def test_its_kernel_rows_in_column_blocks_are_the_gram_matrix(kernel, monkeypatch):
    from svmteach import kernels
    from svmteach.solvers import working_set

    X, y = data.rings(70, noise=0.2, seed=6)
    X = np.vstack([X, X[:3]])  # duplicates: a distance of 0 off the diagonal
    y = np.concatenate([y, y[:3]])
    p = MulticlassProblem(X, y, C=1.0, loss="cs", bias=1.0, kernel=kernel, gamma=0.7)
    K = np.asarray(kernels.gram(X, X, p.kernel)) + p.kernel_offset
    chosen, columns = np.array([0, 5, 70, 72]), np.array([1, 2, 5, 30, 40, 41, 70, 71, 72])
    monkeypatch.setattr(working_set, "COLUMN_BLOCK_BYTES", 3 * 8 * X.shape[1])  # three columns a block
    np.testing.assert_allclose(working_set.kernel_rows(p, chosen), K[chosen], rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(working_set.kernel_rows(p, chosen, columns), K[np.ix_(chosen, columns)],
                               rtol=1e-13, atol=1e-14)
    # in float32: the same entries to float32's precision (the guard's explicit differences keep the duplicates' 1)
    for columns_taken in (None, columns):
        rows = working_set.kernel_rows(p, chosen, columns_taken, np.float32)
        assert rows.dtype == np.float32
        expected = K[chosen] if columns_taken is None else K[np.ix_(chosen, columns)]
        np.testing.assert_allclose(rows, expected, rtol=2e-6, atol=1e-6 * np.abs(expected).max())


@pytest.mark.parametrize("kernel", ("rbf", "poly", "laplacian"))
def test_its_tiled_products_are_the_gram_matrix_times_the_coefficients(kernel, monkeypatch):
    """add_kernel_products makes K's entries a tile at a time and adds each tile's product at once: the sum is
    (K + B^2) @ coef over every sample or the given ones, whatever the tiles (a narrower last one included)."""
    from svmteach import kernels
    from svmteach.solvers import working_set

    X, y = data.rings(70, noise=0.2, seed=6)
    X = np.vstack([X, X[:3]])  # duplicates: a distance of 0 off the diagonal
    y = np.concatenate([y, y[:3]])
    p = MulticlassProblem(X, y, C=1.0, loss="cs", bias=1.0, kernel=kernel, gamma=0.7)
    K = np.asarray(kernels.gram(X, X, p.kernel)) + p.kernel_offset
    rng = np.random.default_rng(0)
    chosen, columns = np.array([0, 5, 70, 72]), np.sort(rng.choice(73, size=31, replace=False))
    coef = rng.normal(size=(chosen.size, p.k))
    start = rng.normal(size=(p.n_samples, p.k))
    monkeypatch.setattr(working_set, "TILE_COLUMNS", 8)  # tiles of 8 columns; the last of the 31 has 7
    for taken, dtype, rtol in ((None, np.float64, 1e-12), (columns, np.float64, 1e-12), (None, np.float32, 2e-6),
                               (columns, np.float32, 2e-6)):
        S = start.copy()
        made = working_set.add_kernel_products(p, chosen, coef, S, taken, dtype)
        rows = np.arange(p.n_samples) if taken is None else taken
        expected = start.copy()
        expected[rows] += K[np.ix_(rows, chosen)] @ coef
        scale = np.abs(K[np.ix_(rows, chosen)]).max() * np.abs(coef).sum(axis=0).max()
        np.testing.assert_allclose(S, expected, rtol=0, atol=rtol * scale)
        untouched = np.setdiff1d(np.arange(p.n_samples), rows)
        np.testing.assert_array_equal(S[untouched], start[untouched])
        assert S.dtype == np.float64 and made == chosen.size * rows.size


@pytest.mark.parametrize("loss", ("ww", "cs"))
def test_float32_rows_reach_the_float64_rows_optimum_and_certify_in_float64(loss):
    X, y = data.rings(200, noise=0.15, seed=7)
    p = MulticlassProblem(X, y, C=10.0, loss=loss, bias=1.0, kernel="rbf", gamma=0.7)
    runs = {dtype: solve(WorkingSet(working_set=32, row_dtype=dtype, random_state=0), p, tol=1e-9)
            for dtype in ("float32", "float64")}
    assert runs["float32"].converged and runs["float64"].converged
    np.testing.assert_allclose(runs["float32"].state.dual, runs["float64"].state.dual, rtol=1e-8)
    # the certified state's scores are K A(alpha) in float64, recomputed from alpha: its gap is alpha's alone
    state = runs["float32"].state
    exact = np.asarray(obj.multiclass_weights(p, state.alpha))
    assert state.W.dtype == np.float64
    np.testing.assert_allclose(state.W, exact, rtol=0, atol=1e-11 * np.abs(exact).max())
    P, D, _ = obj.multiclass_measures(p, state.alpha, exact)
    assert state.gap == pytest.approx(obj.relative_gap(P, D), rel=1e-9)
    # between measures the float32 steps' scores stay within float32's rounding of K A(alpha)
    ws = WorkingSet(working_set=32, random_state=0)
    state = ws.init(p)
    for _ in range(40):
        state = ws.step(p, state)
        exact = np.asarray(obj.multiclass_weights(p, state.alpha))
        np.testing.assert_allclose(state.W[state.active], exact[state.active], rtol=0,
                                   atol=1e-5 * max(1.0, np.abs(exact).max()))


def test_a_measure_adds_the_rows_of_the_samples_that_moved_since_the_last_and_its_scores_are_k_times_a():
    X, y = data.rings(300, noise=0.15, seed=5)
    p = MulticlassProblem(X, y, C=1.0, loss="cs", bias=1.0, kernel="rbf", gamma=0.7)
    ws = WorkingSet(working_set=16, random_state=0)
    state = ws.init(p)
    for _ in range(12):
        state = ws.step(p, state)
    state = ws.measure(p, state)  # every support vector moved since alpha = 0: their rows times A
    fewer = 0
    for _ in range(6):
        for _ in range(12):
            state = ws.step(p, state)
        A_before = state.exact_weights  # A(alpha) at the last measure
        A = np.asarray(p.loss_object.weight_rows(p, state.alpha))
        moved = np.any(A != A_before, axis=1).sum()
        support = np.any(A != 0, axis=1).sum()
        measured = ws.measure(p, state)
        # the rows of the samples that moved, where fewer than the support vectors' (a row gone to zero moved too)
        assert measured.kernel_values - state.kernel_values == min(moved, support) * p.n_samples
        fewer += 0 < moved < support
        exact = np.asarray(obj.multiclass_weights(p, measured.alpha))
        np.testing.assert_allclose(measured.W, exact, rtol=0, atol=1e-12 * np.abs(exact).max())
        np.testing.assert_array_equal(measured.exact_weights, A)
        state = measured
    assert fewer >= 2
    # a warm start on other points forgets the scores of these: S is the new X's K A
    X2 = X + 0.3
    p2 = MulticlassProblem(X2, y, C=2.0, loss="cs", bias=1.0, kernel="rbf", gamma=0.7)
    warm = ws.warm_start(p2, state)
    exact = np.asarray(obj.multiclass_weights(p2, warm.alpha))
    np.testing.assert_allclose(warm.W, exact, rtol=0, atol=1e-12 * np.abs(exact).max())


# ---- the GPU's code path without a GPU: NumPy arrays through CuPy's namespace (conftest.cupy_code_path) -----------

@pytest.mark.parametrize("loss", LOSSES)
def test_on_cupys_code_path_its_steps_are_the_compiled_cpu_steps(loss, monkeypatch):
    """Float64 rows: the device's tiles (kernels.gram, array-API code), its host copies of the working set's rows
    and its index writes take the steps the CPU's compiled tiles take, to rounding, shrinking and measures too."""
    X, y = data.rings(80, noise=0.2, seed=8)

    def run():
        p = MulticlassProblem(X, y, C=2.0, loss=loss, bias=1.0, kernel="rbf", gamma=0.7)
        ws = WorkingSet(working_set=9, row_dtype="float64", random_state=2)
        states = [ws.init(p)]
        for t in range(40):
            states.append(ws.step(p, states[-1]))
            if t % 10 == 9:
                states[-1] = ws.measure(p, states[-1])
        return p, ws, states

    p_cpu, ws, on_cpu = run()
    assert is_numpy(p_cpu.xp)
    cupy_code_path(monkeypatch)
    p_dev, _, on_dev = run()
    assert not is_numpy(p_dev.xp)
    for a, b in zip(on_cpu, on_dev):
        np.testing.assert_array_equal(a.chosen, b.chosen)
        np.testing.assert_array_equal(a.active, b.active)
        np.testing.assert_allclose(np.asarray(b.alpha), a.alpha, rtol=0, atol=1e-12)
        np.testing.assert_allclose(np.asarray(b.W)[a.active], a.W[a.active], rtol=0, atol=1e-11)
    assert on_dev[-1].gap == pytest.approx(on_cpu[-1].gap, rel=1e-8, abs=1e-14)
    alpha, S = ws.coefficients(p_dev, on_dev[-1])
    assert type(alpha) is np.ndarray and type(S) is np.ndarray


@pytest.mark.parametrize("loss", ("ww", "cs"))
def test_on_cupys_code_path_float32_rows_reach_the_qps_optimum(loss, monkeypatch):
    X, y = data.rings(120, noise=0.15, seed=9)
    oracle = solve(InteriorPoint(), MulticlassProblem(X, y, C=5.0, loss=loss, bias=1.0, kernel="rbf", gamma=0.7))
    cupy_code_path(monkeypatch)
    p = MulticlassProblem(X, y, C=5.0, loss=loss, bias=1.0, kernel="rbf", gamma=0.7)
    run = solve(WorkingSet(working_set=16, random_state=0), p, tol=1e-8)
    assert not is_numpy(p.xp) and run.converged
    assert run.state.dual == pytest.approx(oracle.state.dual, rel=1e-7)
    # the certified gap is of alpha alone: recomputed from the fit's alpha on the CPU
    alpha = np.asarray(run.state.alpha)
    monkeypatch.undo()
    cpu = MulticlassProblem(X, y, C=5.0, loss=loss, bias=1.0, kernel="rbf", gamma=0.7)
    P, D, _ = obj.multiclass_measures(cpu, alpha, np.asarray(obj.multiclass_weights(cpu, alpha)))
    assert run.state.gap == pytest.approx(obj.relative_gap(P, D), rel=1e-6, abs=1e-12)


def test_on_cupys_code_path_the_estimator_fits_by_working_sets_at_every_size(monkeypatch):
    """Below 2,000 samples the CPU's default is the epochs (K in the row cache); off NumPy the epochs would compute
    a kernel row per visit, so the working sets are the default there: the same classifier."""
    X, y = data.rings(90, noise=0.2, seed=4)
    cpu = MulticlassSVC(kernel="rbf", gamma=0.7, tol=1e-8, random_state=0).fit(X, y)
    cupy_code_path(monkeypatch)
    dev = MulticlassSVC(kernel="rbf", gamma=0.7, tol=1e-8, random_state=0).fit(X, y)
    assert cpu.solver_ == "exact" and dev.solver_ == "working_set" and dev.result_.converged
    Z = np.random.default_rng(0).uniform(-3, 3, (40, 2))
    np.testing.assert_allclose(dev.decision_function(Z), cpu.decision_function(Z), atol=1e-3)
    assert type(dev.support_vectors_) is np.ndarray


@pytest.mark.parametrize("Solver", (ExactBlock, CSBlondel))
def test_on_cupys_code_path_the_epochs_step_path_reaches_the_same_optimum(Solver, monkeypatch):
    """The epochs off NumPy (no compiled row cache there) read the problem's kernel rows one at a time."""
    X, y = data.rings(50, noise=0.2, seed=6)
    loss = "cs" if Solver is CSBlondel else "ww"
    oracle = solve(InteriorPoint(), MulticlassProblem(X, y, C=3.0, loss=loss, bias=1.0, kernel="rbf", gamma=0.7))
    cupy_code_path(monkeypatch)
    p = MulticlassProblem(X, y, C=3.0, loss=loss, bias=1.0, kernel="rbf", gamma=0.7)
    run = solve(Solver(random_state=0), p, tol=1e-8)
    assert not is_numpy(p.xp) and run.converged
    assert run.state.dual == pytest.approx(oracle.state.dual, rel=1e-7)
    np.testing.assert_allclose(np.asarray(p.kernel_row(3)), np.asarray(p.gram)[3] - p.kernel_offset, atol=1e-14)


def test_on_a_namespace_without_index_writes_it_is_refused_naming_the_namespace():
    import array_api_strict as xps

    X, y = data.rings(30, noise=0.2, seed=0)
    p = MulticlassProblem(xps.asarray(X), y, C=1.0, loss="ww", kernel="rbf", gamma=0.7)
    with pytest.raises(ValueError, match="working_set.*NumPy or CuPy.*array_api_strict"):
        solve(WorkingSet(), p)


@pytest.mark.gpu
@pytest.mark.skipif(not cupy_available(), reason="needs CuPy and a CUDA GPU")
@pytest.mark.parametrize("loss", ("ww", "cs"))
def test_on_a_gpu_its_steps_are_the_cpus_and_the_estimator_the_same_classifier(loss):
    """On the card itself (``benchmarks/gpu.py --check`` runs it): cuBLAS's products round otherwise than the CPU's
    compiled tiles, so float64 steps agree to rounding, not bit for bit."""
    X, y = data.rings(200, noise=0.2, seed=8)
    runs = {}
    for device in ("cpu", "gpu"):
        p = MulticlassProblem(X, y, C=2.0, loss=loss, bias=1.0, kernel="rbf", gamma=0.7, device=device)
        ws = WorkingSet(working_set=16, row_dtype="float64", random_state=2)
        state = ws.init(p)
        for _ in range(30):
            state = ws.step(p, state)
        runs[device] = ws.measure(p, state)
    cpu, gpu = runs["cpu"], runs["gpu"]
    assert type(gpu.alpha).__module__.startswith("cupy") and type(gpu.W).__module__.startswith("cupy")
    np.testing.assert_array_equal(cpu.chosen, gpu.chosen)
    np.testing.assert_allclose(to_numpy(gpu.alpha), cpu.alpha, rtol=0, atol=1e-9)
    assert gpu.gap == pytest.approx(cpu.gap, rel=1e-6, abs=1e-12)
    on_cpu = MulticlassSVC(kernel="rbf", gamma=0.7, loss=loss, tol=1e-6, random_state=0).fit(X, y)
    on_gpu = MulticlassSVC(kernel="rbf", gamma=0.7, loss=loss, tol=1e-6, random_state=0, device="gpu").fit(X, y)
    assert on_gpu.solver_ == "working_set" and isinstance(on_gpu.dual_coef_, np.ndarray)
    Z = np.random.default_rng(0).uniform(-3, 3, (40, 2))
    np.testing.assert_allclose(on_gpu.decision_function(Z), on_cpu.decision_function(Z), atol=1e-3)
