"""The binary solvers against an independent QP solver, scikit-learn, and step invariants."""

import numpy as np
import pytest
from conftest import random_binary
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import binary_dual_optimum
from sklearn.svm import SVC

from svmteach import SMO, BinaryProblem, DualCoordinateAscent, PrimalSubgradient, data, iterate, solve
from svmteach import objectives as obj
from svmteach.solvers.numba_dual_cd import CoordinatePicture, Sweep
from svmteach.solvers.numba_smo import NO_PAIR, PairPicture
from svmteach.solvers.smo import RULES

KERNELS = [
    dict(kernel="linear"),
    dict(kernel="polynomial", gamma=0.5, degree=3, coef0=1.0),
    dict(kernel="gaussian", gamma=0.7),
]
CS = [0.01, 1.0, 100.0]


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


@pytest.mark.parametrize("kern", KERNELS, ids=lambda k: k["kernel"])
@pytest.mark.parametrize("C", CS)
@pytest.mark.parametrize("seed", [0, 1])
def test_smo_reaches_qp_optimum(kern, C, seed):
    X, y = random_binary(n=40, d=3, seed=seed)
    p = BinaryProblem(X, y, C=C, **kern)
    best, _ = binary_dual_optimum(np.array(p.gram), y, C, bias=True)
    for fast in (True, False):
        r = solve(SMO(random_state=0), p, tol=1e-10, max_iter=200_000, fast=fast)
        assert r.converged
        assert rel(r.dual, best) < 1e-6
        assert abs(float(np.sum(r.state.alpha * p.y))) < 1e-9 * max(C, 1)


@pytest.mark.parametrize("kern", KERNELS, ids=lambda k: k["kernel"])
@pytest.mark.parametrize("C", CS)
@pytest.mark.parametrize("seed", [0, 1])
def test_dual_cd_reaches_qp_optimum(kern, C, seed):
    X, y = random_binary(n=40, d=3, seed=seed)
    p = BinaryProblem(X, y, C=C, **kern)
    best, _ = binary_dual_optimum(np.array(p.gram), y, C, bias=False)
    r = solve(DualCoordinateAscent(random_state=seed), p, tol=1e-10, max_iter=2_000_000)
    assert r.converged
    assert rel(r.dual, best) < 1e-6


@pytest.mark.parametrize("rule", RULES)
def test_every_smo_rule_converges(rule):
    X, y = random_binary(n=30, d=2, seed=3)
    p = BinaryProblem(X, y, C=1.0, kernel="gaussian", gamma=0.5)
    best, _ = binary_dual_optimum(np.array(p.gram), y, 1.0, bias=True)
    r = solve(SMO(rule, random_state=1), p, tol=1e-9, max_iter=500_000)
    assert r.converged and rel(r.dual, best) < 1e-6


@pytest.mark.parametrize("kern", KERNELS, ids=lambda k: k["kernel"])
@pytest.mark.parametrize("C", [0.1, 10.0])
def test_smo_matches_sklearn_svc(kern, C):
    X, y = random_binary(n=60, d=3, seed=4)
    p = BinaryProblem(X, y, C=C, **kern)
    r = solve(SMO(), p, tol=1e-10, max_iter=200_000)
    ref = SVC(C=C, tol=1e-10, kernel={"polynomial": "poly", "gaussian": "rbf"}.get(kern["kernel"], "linear"),
              gamma=kern.get("gamma", "scale"), degree=kern.get("degree", 3), coef0=kern.get("coef0", 0.0)).fit(X, y)
    Z = np.random.default_rng(5).normal(size=(50, 3))
    ours = (r.state.alpha * p.y) @ p.kernel_with(Z) + r.state.b
    theirs = ref.decision_function(Z)
    np.testing.assert_allclose(ours, theirs, atol=1e-5 * max(1, np.abs(theirs).max()))


def test_subgradient_approaches_optimum_and_stays_dual_feasible():
    X, y = random_binary(n=40, d=2, seed=2)
    p = BinaryProblem(X, y, C=1.0)
    best, _ = binary_dual_optimum(np.array(p.gram), y, 1.0, bias=False)
    states = list(iterate(PrimalSubgradient(), p, max_iter=3000))
    final = states[-1]
    assert final.primal >= best - 1e-9  # weak duality: the primal lies above the optimum
    assert rel(final.primal, best) < 1e-2
    for s in states:
        assert np.all(s.alpha >= 0) and np.all(s.alpha <= p.C)
        assert s.dual <= best + 1e-9
    # the margins in the state are those of the iterate's w
    np.testing.assert_allclose(final.margins, y * (X @ final.w))
    np.testing.assert_array_equal(final.active, final.margins < 1)


# ---- invariants on every step (hypothesis) ----------------------------------------------

problems = st.builds(
    lambda n, d, seed, C, k: BinaryProblem(*random_binary(n=n, d=d, seed=seed, shift=1.0), C=C, **k),
    st.integers(4, 14), st.integers(1, 3), st.integers(0, 10_000),
    st.sampled_from([0.01, 0.3, 1.0, 7.0, 100.0]), st.sampled_from(KERNELS),
)
SOLVERS = st.sampled_from([
    SMO("second_order"), SMO("max_violating_pair"), SMO("random", random_state=3),
    DualCoordinateAscent(random_state=0), DualCoordinateAscent(init="uniform", random_state=1),
    PrimalSubgradient(), PrimalSubgradient("constant", 0.1),
])


def _frozen_copy(state):
    return [np.array(v, copy=True) if isinstance(v, np.ndarray) else v for v in state.flat().values()]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems, solver=SOLVERS)
def test_every_step_is_feasible_monotone_and_pure(problem, solver):
    X_before = problem.X.copy()
    state = solver.init(problem)
    for _ in range(3 * problem.n_samples):
        before = _frozen_copy(state)
        new = solver.step(problem, state)
        # the step left its input untouched
        for a, b in zip(before, state.flat().values()):
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, b)
            elif not (isinstance(a, float) and np.isnan(a)):
                assert a == b
        alpha = new.alpha
        assert np.all(alpha >= 0) and np.all(alpha <= problem.C)
        if solver.bias:
            assert abs(float(alpha @ problem.y)) <= 1e-9 * problem.C * problem.n_samples
        if not isinstance(solver, PrimalSubgradient):
            assert new.dual >= state.dual - 1e-10 * max(1.0, abs(state.dual))
            # the cached gradient is the true gradient 1 - Q alpha
            np.testing.assert_allclose(new.grad, 1 - problem.Q @ alpha, atol=1e-8 * max(1, problem.C))
        assert new.primal >= new.dual - 1e-8 * max(1.0, abs(new.primal))  # weak duality
        state = new
    np.testing.assert_array_equal(problem.X, X_before)


def test_history_is_a_true_film():
    X, y = random_binary(n=12, d=2, seed=7)
    p = BinaryProblem(X, y, C=1.0)
    r = solve(SMO(), p, tol=1e-8, fast=False, record_states=True, record_history=True)
    alphas = [s.alpha for s in r.states]
    assert len({a.tobytes() for a in alphas}) > 3  # the film shows different frames
    for s, nxt in zip(r.states, r.states[1:]):
        assert nxt.n_iter == s.n_iter + 1
    assert r.history["dual"] == [s.dual for s in r.states]


# ---- the fast path is the step path -------------------------------------------------------

@pytest.mark.parametrize("kern", KERNELS, ids=lambda k: k["kernel"])
@pytest.mark.parametrize("rule", RULES)
def test_smo_fast_path_equals_step_path(kern, rule):
    X, y = random_binary(n=25, d=3, seed=8)
    p = BinaryProblem(X, y, C=2.0, **kern)
    solver = SMO(rule, random_state=11)
    slow = solver.init(p)
    for _ in range(40):
        slow = solver.step(p, slow)
    fast = solver.advance(p, solver.init(p), 40)
    assert fast.n_iter == slow.n_iter == 40
    assert (fast.i, fast.j) == (slow.i, slow.j)
    np.testing.assert_allclose(fast.alpha, slow.alpha, atol=1e-10)
    np.testing.assert_allclose(fast.grad, slow.grad, atol=1e-9)
    for name in (*PairPicture._fields, "b", "dual"):  # the whole picture of the last step, by name
        assert getattr(fast, name) == pytest.approx(getattr(slow, name), rel=1e-9, abs=1e-9), name
        assert type(getattr(fast, name)) is type(getattr(slow, name)), name  # Python numbers on both paths


@pytest.mark.parametrize("kern", KERNELS, ids=lambda k: k["kernel"])
@pytest.mark.parametrize("init", ["zero", "uniform"])
@pytest.mark.parametrize("shrinking", [True, False])
def test_dual_cd_fast_path_equals_step_path(kern, init, shrinking):
    X, y = random_binary(n=20, d=3, seed=9)
    p = BinaryProblem(X, y, C=0.5, **kern)
    solver = DualCoordinateAscent(init=init, random_state=5, shrinking=shrinking)
    slow = solver.init(p)
    set_aside, fewest_active = 0, p.n_samples
    for _ in range(147):  # several epochs and a bit: crosses permutation boundaries, shrinks
        slow = solver.step(p, slow)
        set_aside += slow.shrunk
        fewest_active = min(fewest_active, int(slow.active.sum()))
    fast = solver.advance(p, solver.init(p), 13)
    while fast.n_iter < slow.n_iter:  # a call may hand back early, at the end of an epoch
        fast = solver.advance(p, fast, slow.n_iter - fast.n_iter)
    fast = solver.measure(p, fast)  # a compiled run's gradient and objectives come with a measure
    assert fast.n_iter == slow.n_iter and (fast.epoch, fast.pos, fast.i) == (slow.epoch, slow.pos, slow.i)
    np.testing.assert_array_equal(fast.active, slow.active)
    assert fast.n_active == slow.n_active
    np.testing.assert_array_equal(fast.index, slow.index)  # the same order, the same set aside
    if shrinking:  # shrinking took part: coordinates were set aside, and later epochs skipped them
        assert set_aside > 0 and fewest_active < p.n_samples
    else:  # nothing is ever set aside without it
        assert set_aside == 0 and fewest_active == p.n_samples
    np.testing.assert_allclose(fast.alpha, slow.alpha, atol=1e-10)
    np.testing.assert_allclose(fast.grad, slow.grad, atol=1e-9)
    for name in (*CoordinatePicture._fields, *Sweep._fields, "dual", "primal"):
        assert getattr(fast, name) == pytest.approx(getattr(slow, name), rel=1e-9, abs=1e-10, nan_ok=True), name
        assert type(getattr(fast, name)) is type(getattr(slow, name)), name  # Python numbers on both paths


def test_smo_fast_path_pictures_a_null_step_as_no_pair():
    p = BinaryProblem(np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1.0, -1.0]), C=1.0, kernel="linear")
    solver = SMO("max_violating_pair")
    done = solver.advance(p, solver.init(p), 100)  # one step solves it exactly (alpha = 1/2): the next is null
    assert done.n_iter == 2 and solver.select(p, done) == (-1, -1)
    np.testing.assert_array_equal(done.alpha, [0.5, 0.5])
    picture = PairPicture(**{name: getattr(done, name) for name in PairPicture._fields})
    assert (picture.i, picture.j) == (-1, -1) and repr(picture) == repr(NO_PAIR)  # NaN numbers: no step shown


@pytest.mark.parametrize("make", [lambda: SMO(random_state=0), lambda: DualCoordinateAscent(random_state=0),
                                  lambda: DualCoordinateAscent(random_state=0, shrinking=False)])
@pytest.mark.parametrize("kernel", ["linear", "gaussian"])
def test_advance_leaves_its_input_state_untouched(make, kernel):
    X, y = random_binary(n=30, d=3, seed=4)
    p = BinaryProblem(X, y, C=1.0, kernel=kernel)
    solver = make()
    state = solver.step(p, solver.init(p))
    copies = {name: np.array(v, copy=True) for name, v in state.flat().items() if isinstance(v, np.ndarray)}
    later = solver.advance(p, state, 3 * p.n_samples, tol=1e-12)
    assert later.n_iter > state.n_iter
    for name, before in copies.items():
        np.testing.assert_array_equal(getattr(state, name), before, err_msg=name)


def test_dual_cd_violation_is_liblinears_spread_of_the_last_epoch():
    """violation(state) is max(PGmax - PGmin, PGmax, -PGmin) over the coordinates the last completed
    epoch kept, recomputed here from the projected gradients of the step path's visits."""
    X, y = random_binary(n=60, d=3, seed=12)
    p = BinaryProblem(X, y, C=1.0)
    solver = DualCoordinateAscent(random_state=2)
    state = solver.init(p)
    assert solver.violation(state) == np.inf  # no epoch has ended: nothing to tell
    pgs, checked, shrunk_epochs = [], 0, 0
    while checked < 6:
        before = state
        g = before.grad[before.index[before.pos]]  # dual gradient of the coordinate visited
        state = solver.step(p, state)
        if not state.shrunk:
            a = before.alpha[state.i]
            G = -g  # LIBLINEAR's projected gradient of the minimisation gradient G
            pgs.append(min(G, 0.0) if a == 0 else max(G, 0.0) if a == p.C else G)
        if state.epoch > before.epoch:  # this step ended an epoch
            hi, lo = max(pgs), min(pgs)
            assert solver.violation(state) == pytest.approx(max(hi - lo, hi, -lo), abs=1e-12)
            assert state.epoch_active == len(pgs)
            shrunk_epochs += len(pgs) < p.n_samples
            pgs, checked = [], checked + 1
    assert shrunk_epochs > 0  # shrunk epochs were among those checked


def test_dual_cd_compiled_linear_epochs_cost_only_their_steps(monkeypatch):
    """Between measures the linear fast path touches X row by row in its loop only: no product with
    the whole of X (the gradient is rebuilt by measure, when solve asks for it)."""
    from svmteach.solvers import dual_cd

    X, y = random_binary(n=300, d=4, seed=13)
    p = BinaryProblem(X, y, C=1.0)
    solver = DualCoordinateAscent(random_state=0)
    state = solver.advance(p, solver.init(p), 10)  # makes w from alpha once
    passes = []
    for owner, name in ((dual_cd, "exact_gradient"), (dual_cd.obj, "linear_weights")):  # a pass over X each
        real = getattr(owner, name)
        monkeypatch.setattr(owner, name, lambda *a, real=real, name=name: passes.append(name) or real(*a))
    for _ in range(30):
        state = solver.advance(p, state, p.n_samples)
    assert passes == [] and state.grad is None
    measured = solver.measure(p, state)
    assert passes == ["exact_gradient"]
    np.testing.assert_allclose(measured.grad, 1 - p.Q @ state.alpha, atol=1e-10)


def test_dual_cd_shrinking_sets_coordinates_aside_and_still_converges():
    X, y = random_binary(n=200, d=3, seed=10)
    p = BinaryProblem(X, y, C=1.0)
    best, _ = binary_dual_optimum(np.array(p.gram), p.y, 1.0, bias=False)
    runs = {}
    for shrinking in (True, False):
        solver = DualCoordinateAscent(random_state=0, shrinking=shrinking)
        states = list(iterate(solver, p, max_iter=2000))
        set_aside = sum(s.shrunk for s in states)
        fewest_active = min(int(s.active.sum()) for s in states)
        if shrinking:  # most alphas sit at 0 or C: most coordinates are set aside
            assert set_aside > 0 and fewest_active < 100
        else:
            assert set_aside == 0 and fewest_active == 200
        # each epoch visits only the active coordinates, so epochs are shorter with shrinking
        assert (states[-1].epoch > 2000 // 200) == shrinking
        runs[shrinking] = r = solve(solver, p, tol=1e-10, max_iter=10**6)
        assert r.converged and rel(r.dual, best) < 1e-6  # the same optimum either way
    assert runs[True].n_iter < runs[False].n_iter / 2  # the steps it saves (same seed, same tol)


# ---- awkward but valid problems ---------------------------------------------------------------

def test_duplicate_points_with_opposite_labels_eta_zero():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [2.0, 0.5]])
    y = np.array([1, -1, 1, -1, 1])
    p = BinaryProblem(X, y, C=1.0)
    best, _ = binary_dual_optimum(np.array(p.gram), p.y, 1.0, bias=True)
    for rule in RULES:
        r = solve(SMO(rule, random_state=0), p, tol=1e-9, max_iter=100_000)
        assert np.all(np.isfinite(r.state.alpha)) and rel(r.dual, best) < 1e-6


def test_non_psd_kernel_never_divides_by_eta():
    # polynomial with negative coef0 and odd degree gives an indefinite Gram matrix
    X, y = random_binary(n=15, d=2, seed=3)
    with pytest.warns(RuntimeWarning, match="not positive semidefinite"):
        p = BinaryProblem(X, y, C=1.0, kernel="polynomial", gamma=1.0, coef0=-2.0, degree=3)
    assert np.linalg.eigvalsh(p.gram).min() < 0
    for solver in (SMO(), SMO("max_violating_pair"), DualCoordinateAscent(random_state=0)):
        state = solver.init(p)
        for _ in range(200):
            new = solver.step(p, state)
            assert np.all(np.isfinite(new.alpha)) and np.all((new.alpha >= 0) & (new.alpha <= 1))
            assert new.dual >= state.dual - 1e-9
            state = new


@pytest.mark.parametrize("fast", [False, True])
def test_huge_C_on_separable_data_reaches_the_hard_margin(fast):
    # C = 1e6 on a rank-2 K: the compiled path's former float32 kernel rows (an indefinite
    # perturbation of K, which a large C amplifies in the primal's hinge term) stalled at a gap
    # of 0.65 for 1e6 steps
    X, y = data.separable_blobs(80, margin=0.8, seed=3)
    oracle = BinaryProblem(X, y, C=1e6)
    best, _ = binary_dual_optimum(np.array(oracle.gram), oracle.y, 1e6, bias=True)
    p = BinaryProblem(X, y, C=1e6)  # no Gram matrix yet: the compiled path fills kernel rows
    r = solve(SMO(), p, tol=1e-3, max_iter=2000, fast=fast)
    assert r.converged and rel(r.dual, best) < 1e-6
    assert rel(r.dual, 1 / (2 * 0.8**2)) < 1e-6  # the blobs' promised margin is the hard margin
    # the cached gradient's rounding is dropped before anything is reported: the dual is alpha's
    assert r.dual == pytest.approx(obj.dual(p, r.state.alpha), rel=1e-12)


def test_zero_row_and_huge_C():
    X, y = random_binary(n=20, d=2, seed=1)
    X[3] = 0.0
    p = BinaryProblem(X, y, C=1.0)
    best, _ = binary_dual_optimum(np.array(p.gram), p.y, 1.0, bias=False)
    r = solve(DualCoordinateAscent(random_state=0), p, tol=1e-9, max_iter=10**6)
    assert rel(r.dual, best) < 1e-6
    assert r.state.alpha[3] == 1.0  # a zero row has K_ii = 0: its coordinate goes to C
    huge = BinaryProblem(X, y, C=1e8)
    for solver in (DualCoordinateAscent(random_state=0), SMO()):
        r = solve(solver, huge, tol=1e-6, max_iter=20_000)
        assert np.all(np.isfinite(r.state.alpha)) and np.all((r.state.alpha >= 0) & (r.state.alpha <= 1e8))
        assert np.isfinite(r.primal) and r.primal >= r.dual - 1e-6 * abs(r.primal)


def test_separable_data_large_C_is_the_hard_margin():
    from svmteach.data import separable_blobs

    X, y = separable_blobs(30, margin=1.0, seed=0)
    p = BinaryProblem(X, y, C=1e6)
    r = solve(SMO(), p, tol=1e-10, max_iter=100_000)
    f = obj.scores(p, r.state.alpha)
    margins = obj.margins(p, f, r.state.b)
    assert margins.min() == pytest.approx(1.0, abs=1e-6)  # support vectors sit on the margin
    assert np.all(r.state.alpha < 1e6 * (1 - 1e-9))  # no slack is paid


def test_a_warm_start_on_with_C_keeps_the_runs_kernel_row_cache():
    """After a C = 1e6 solve, a run warm-started on ``with_C(0.01)`` solves as a fresh problem does, reusing the
    rows of the first run's cache (its state's); the problems hold nothing of either run."""
    X, y = random_binary(n=60, d=2, seed=21, shift=0.3)
    kern = dict(kernel="gaussian", gamma=0.8)
    hard = BinaryProblem(X, y, C=1e6, **kern)
    first = solve(SMO(), hard, tol=1e-8, max_iter=200_000)
    cache = first.state.rows
    held = cache.have.copy()
    rows_before = cache.buffer[held].copy()
    soft = hard.with_C(0.01)
    assert soft.C == 0.01 and hard.C == 1e6
    warm = solve(SMO(), soft, tol=1e-8, state=first.state)
    assert warm.state.rows is cache  # kept: the rows depend on X and the kernel only
    r = solve(SMO(), soft, tol=1e-8)  # a cold run on the with_C copy: its own cache
    assert r.state.rows is not cache
    fresh = solve(SMO(), BinaryProblem(X, y, C=0.01, **kern), tol=1e-8)
    K = np.exp(-0.8 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    best, _ = binary_dual_optimum(K, y, 0.01, bias=True)
    assert r.converged and rel(r.dual, best) < 1e-6 and rel(fresh.dual, best) < 1e-6
    np.testing.assert_allclose(r.state.alpha, fresh.state.alpha, atol=1e-9)
    assert r.state.b == pytest.approx(fresh.state.b, abs=1e-6)
    # the warm run: the optimum too (no free support vector here, so b is any point of an interval: its gap
    # certifies it)
    assert warm.converged and warm.gap <= 1e-8 and rel(warm.dual, best) < 1e-6
    np.testing.assert_allclose(warm.state.alpha, fresh.state.alpha, atol=1e-8)
    assert np.all(cache.have[held])  # the rows already there were kept ...
    assert np.array_equal(cache.buffer[held], rows_before)  # ... unchanged
    np.testing.assert_allclose(cache.buffer[cache.have], K[cache.have], rtol=1e-12, atol=1e-12)
    # the problems hold their data and caches of X, y and the kernel only: nothing of a run
    cached = {"gram", "Q", "diag"}
    fields = {"X", "y", "C", "kernel", "device", "sample_weight", "bias", "C_i", "classes"}
    assert set(vars(hard)) <= fields | cached and set(vars(soft)) <= fields | cached


@pytest.mark.parametrize("kern", KERNELS + [dict(kernel="laplacian", gamma=0.5)], ids=lambda k: k["kernel"])
def test_smo_fast_path_with_kernel_rows_on_demand(kern):
    """Without a precomputed Gram matrix the compiled loop fills kernel rows as it needs them."""
    X, y = random_binary(n=50, d=3, seed=12)
    lazy = BinaryProblem(X, y, C=1.0, **kern)
    full = BinaryProblem(X, y, C=1.0, **kern)
    r_lazy = solve(SMO(), lazy, tol=1e-5)
    assert "gram" not in vars(lazy)  # it never built the whole matrix
    rows = r_lazy.state.rows
    assert rows.buffer.dtype == np.float64 and 0 < rows.have.sum() < len(y)  # only the rows steps needed
    np.testing.assert_allclose(rows.buffer[rows.have], full.gram[rows.have], rtol=1e-12, atol=1e-12)
    best, _ = binary_dual_optimum(np.array(full.gram), y, 1.0, bias=True)
    assert rel(r_lazy.dual, best) < 2e-5
    precise = solve(SMO(), lazy, tol=1e-10)
    assert precise.converged and rel(precise.dual, best) < 1e-6
    r_full = solve(SMO(), full, tol=1e-10, fast=False)
    np.testing.assert_allclose(precise.state.alpha, r_full.state.alpha, atol=1e-5)
