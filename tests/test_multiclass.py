"""Multiclass solvers against an independent QP solver, LIBLINEAR's Crammer-Singer, and step invariants."""

import warnings

import numpy as np
import pytest
from conftest import agree_to_their_gap
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import cs_dual_optimum, ww_dual_optimum
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmteach import (
    CSBlondel,
    MulticlassProblem,
    MulticlassSVC,
    OneVsOneSVC,
    OneVsRestSVC,
    WWExact,
    WWShark,
    solve,
)
from svmteach import objectives as obj
from svmteach.solvers import ExactBlock


def random_multiclass(n=30, d=3, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    centers = rng.normal(scale=2.0, size=(k, d))
    X = centers[y] + rng.normal(size=(n, d))
    return X, y


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


SOLVERS = [("ww", 1.0, WWExact), ("ww", 0.5, WWExact), ("ww", 1.0, WWShark), ("ww", 0.5, WWShark),
           ("cs", 1.0, CSBlondel)]


@pytest.mark.parametrize("loss, M, Solver", SOLVERS, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
@pytest.mark.parametrize("k", [3, 5, 8])
def test_reaches_qp_optimum(loss, M, Solver, C, k):
    X, y = random_multiclass(n=3 * k, d=3, k=k, seed=k)
    p = MulticlassProblem(X, y, C=C, loss=loss, M=M)
    best = ww_dual_optimum(X, p.codes, C, M) if loss == "ww" else cs_dual_optimum(X, p.codes, C)
    r = solve(Solver(random_state=0), p, tol=1e-9, max_iter=3_000_000)
    assert r.converged
    assert rel(r.dual, best) < 1e-6
    assert rel(r.primal, best) < 1e-6


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_crammer_singer_matches_liblinear(C):
    X, y = random_multiclass(n=60, d=4, k=4, seed=1)
    ours = MulticlassSVC(fit_intercept=False, C=C, loss="cs", tol=1e-10, max_iter=100_000, random_state=0).fit(X, y)
    ref = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C, tol=1e-12, max_iter=10**6).fit(X, y)
    p = ours.problem_for(X, y)
    assert obj.multiclass_primal(p, ours.coef_) == pytest.approx(obj.multiclass_primal(p, ref.coef_), rel=1e-7)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-4 * max(1, np.abs(ref.coef_).max()))
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


def test_shark_and_exact_agree_and_M_rescales():
    X, y = random_multiclass(n=40, d=3, k=3, seed=2)
    exact = MulticlassSVC(fit_intercept=False, loss="ww", solver="exact", tol=1e-10, max_iter=10**5, random_state=0).fit(X, y)
    shark = MulticlassSVC(fit_intercept=False, loss="ww", solver="shark", tol=1e-10, max_iter=10**5, random_state=0).fit(X, y)
    np.testing.assert_allclose(exact.coef_, shark.coef_, atol=1e-5)
    # M scales the margin: WW with (C, M) has optimum W = W_1(C M^2 ... ) / M at C' = C: check the primal
    half = MulticlassSVC(fit_intercept=False, loss="ww", M=0.5, tol=1e-10, max_iter=10**5, random_state=0).fit(X, y)
    p_half = half.problem_for(X, y)
    assert obj.multiclass_primal(p_half, half.coef_) <= obj.multiclass_primal(p_half, exact.coef_) + 1e-9


# ---- invariants on every step ------------------------------------------------------------

mc_problems = st.builds(
    lambda n, k, seed, C, loss, M: MulticlassProblem(*random_multiclass(n=n, d=2, k=k, seed=seed), C=C, loss=loss, M=M),
    st.integers(6, 14), st.integers(3, 5), st.integers(0, 10_000), st.sampled_from([0.01, 1.0, 50.0]),
    st.sampled_from(["ww", "cs"]), st.sampled_from([1.0, 0.5]),
)


def _feasible(p, alpha):
    Y = np.asarray(obj.one_hot(p))
    if p.loss == "ww":
        others = alpha[~Y]
        return (others >= -1e-12).all() and (others <= p.C + 1e-12).all() and np.allclose(
            alpha[Y], -(alpha * ~Y).sum(axis=1), atol=1e-10)
    upper = np.where(Y, p.C, 0.0)
    return (alpha <= upper + 1e-12).all() and np.allclose(alpha.sum(axis=1), 0.0, atol=1e-10)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=mc_problems, seed=st.integers(0, 100))
def test_every_step_is_feasible_monotone_and_pure(problem, seed):
    solver = {"ww": WWExact, "cs": CSBlondel}[problem.loss](random_state=seed)
    shark = WWShark(random_state=seed) if problem.loss == "ww" else None
    for s in (solver, shark):
        if s is None:
            continue
        state = s.measure(problem, s.init(problem))
        for _ in range(3 * problem.n_samples):
            alpha_before, W_before = state.alpha.copy(), state.W.copy()
            new = s.measure(problem, s.step(problem, state))
            np.testing.assert_array_equal(state.alpha, alpha_before)  # the input state is untouched
            np.testing.assert_array_equal(state.W, W_before)
            assert _feasible(problem, new.alpha)
            assert new.dual >= state.dual - 1e-10 * max(1.0, abs(state.dual))
            assert new.primal >= new.dual - 1e-9 * max(1.0, abs(new.primal))
            np.testing.assert_allclose(new.W, obj.multiclass_weights(problem, new.alpha), atol=1e-9)
            state = new


@pytest.mark.parametrize("loss, M, Solver", SOLVERS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_fast_path_equals_step_path(loss, M, Solver):
    X, y = random_multiclass(n=25, d=3, k=4, seed=5)
    assert_fast_path_equals_step_path(MulticlassProblem(X, y, C=0.7, loss=loss, M=M), Solver)


def assert_fast_path_equals_step_path(p, Solver):
    """83 single steps (three epochs of 25 and a bit) and two compiled chunks (10 + 73) reach the same state."""
    solver = Solver(random_state=3, shrinking=False)  # the step path never shrinks
    slow = solver.init(p)
    for _ in range(83):
        slow = solver.step(p, slow)
    fast = solver.advance(p, solver.advance(p, solver.init(p), 10), 73)
    assert (fast.n_iter, fast.epoch, fast.pos, fast.i) == (slow.n_iter, slow.epoch, slow.pos, slow.i)
    np.testing.assert_allclose(fast.alpha, slow.alpha, atol=1e-10)
    np.testing.assert_allclose(fast.W, slow.W, atol=1e-10)


def test_states_show_the_step():
    X, y = random_multiclass(n=12, d=2, k=4, seed=6)
    ww = MulticlassProblem(X, y, C=1.0, loss="ww")
    s = WWExact(random_state=0).step(ww, WWExact(random_state=0).init(ww)).block  # the step's picture
    assert s.u.shape == (3,) and s.breakpoints.shape == (6,) and np.all(np.diff(s.breakpoints) >= 0)
    np.testing.assert_allclose(s.beta, np.clip(s.u - s.t, 0, 1.0))  # the block's KKT conditions
    sh = WWShark(random_state=0).step(ww, WWShark(random_state=0).init(ww)).block
    assert len(sh.moves_j) >= 1 and sh.grads.shape == (len(sh.moves_j) + 1, 4)
    assert np.all(np.abs(sh.moves_m) <= np.abs(sh.moves_m_unclipped) + 1e-15)
    cs = MulticlassProblem(X, y, C=1.0, loss="cs")
    cs_state = CSBlondel(random_state=0).step(cs, CSBlondel(random_state=0).init(cs))
    c = cs_state.block
    assert not c.skipped and c.beta.sum() == pytest.approx(c.z)
    np.testing.assert_allclose(c.beta, np.maximum(c.beta_hat - c.theta, 0), atol=1e-12)
    # the picture is in Blondel's scale (the course's): beta_hat = r (C_i - alpha_i) + g / r, z = C r,
    # and the new block is alpha_i = C_i - beta / r, with r = ||x_i||
    r = np.linalg.norm(cs.X[cs_state.i])
    Ci = np.where(np.arange(4) == cs.codes[cs_state.i], 1.0, 0.0)
    np.testing.assert_allclose(c.beta_hat, r * Ci + c.grad / r, atol=1e-12)  # alpha_i was 0
    assert c.z == pytest.approx(r)
    np.testing.assert_allclose(cs_state.alpha[cs_state.i], Ci - c.beta / r, atol=1e-12)


def test_history_per_epoch_with_paused_clock():
    X, y = random_multiclass(n=40, d=3, k=3, seed=7)
    m = MulticlassSVC(fit_intercept=False, loss="cs", tol=1e-6, record_history=True, random_state=0).fit(X, y)
    h = m.history_
    # one entry per epoch; with shrinking (the default) the later epochs may visit fewer than n = 40 samples
    assert h["n_iter"][1] == 40 and h["n_iter"][-1] == m.result_.n_iter and m.n_iter_ == -(-m.result_.n_iter // 40)
    assert all(0 < b - a <= 40 for a, b in zip(h["n_iter"], h["n_iter"][1:])) and len(h["time"]) >= m.n_iter_ + 1
    assert all(t2 >= t1 for t1, t2 in zip(h["time"], h["time"][1:]))
    assert h["gap"][-1] <= 1e-6 and all(p >= d - 1e-9 for p, d in zip(h["primal"], h["dual"]))


# ---- bad and awkward input -------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, exc, match", [
    ({"C": 0}, ValueError, "^The 'C' parameter"),
    ({"C": np.inf}, ValueError, "^The 'C' parameter"),
    ({"loss": "hinge"}, ValueError, "^loss must be one of"),
    ({"solver": "newton"}, ValueError, "^solver must be one of"),
    ({"loss": "cs", "solver": "exact"}, ValueError, "^solver must be one of"),
    ({"M": 0}, ValueError, "^The 'M' parameter"),
    ({"M": -0.5}, ValueError, "^The 'M' parameter"),
    ({"M": "1"}, TypeError, "^The 'M' parameter"),
    ({"max_iter": 0}, ValueError, "^The 'max_iter' parameter"),
])
def test_bad_parameters(kwargs, exc, match):
    X, y = random_multiclass()
    with pytest.raises(exc, match=match):
        MulticlassSVC(fit_intercept=False, **kwargs).fit(X, y)


@pytest.mark.parametrize("X, y, match", [
    (np.array([[np.nan, 1.0], [0, 1], [1, 1]]), [0, 1, 2], "^X contains NaN"),
    (np.ones((3, 2)), [0, 1], "^y has 2 labels but X has 3"),
    (np.ones((3, 2)), [1, 1, 1], "^y has one class"),
    (np.ones(3), [0, 1, 2], "^X must be 2-D"),
])
def test_bad_data(X, y, match):
    with pytest.raises(ValueError, match=match):
        MulticlassSVC(fit_intercept=False).fit(X, y)
    with pytest.raises(ValueError, match=match):
        MulticlassProblem(X, y)


def test_problem_and_solver_must_share_the_loss():
    X, y = random_multiclass()
    with pytest.raises(ValueError, match="solves the 'cs' loss"):
        CSBlondel().init(MulticlassProblem(X, y, loss="ww"))


@pytest.mark.parametrize("loss, solver", [("ww", "exact"), ("ww", "shark"), ("cs", "blondel")])
def test_awkward_input_is_solved(loss, solver):
    X, y = random_multiclass(n=30, d=3, k=3, seed=8)
    X[2] = 0.0  # zero row
    X = np.vstack([X, X[:4]])  # duplicates with other labels
    y = np.concatenate([y, (y[:4] + 1) % 3])
    labels = np.array(["ant", "bee", "cat"])[y]
    for X_, C in ((X.astype(np.float32), 1.0), (X, 1e6)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            m = MulticlassSVC(fit_intercept=False, loss=loss, solver=solver, C=C, max_iter=300, random_state=0).fit(X_, labels)
        assert np.all(np.isfinite(m.coef_)) and np.all(np.isfinite(m.alpha_))
        assert set(m.predict(X_)) <= set(labels)
        assert _feasible(m.problem_for(X_, labels), m.alpha_) or C == 1e6
    # the zero row's block is at its optimum: its hinge is 1 whatever W is, so
    # WW puts every alpha_ij (j != y) at C, and CS puts alpha_i^{y_i} at C
    m = MulticlassSVC(fit_intercept=False, loss=loss, solver=solver, tol=1e-8, max_iter=10**4, random_state=0).fit(X, labels)
    y2 = m.problem_for(X, labels).codes[2]
    if loss == "ww":
        np.testing.assert_allclose(np.delete(m.alpha_[2], y2), 1.0)
    else:
        assert m.alpha_[2, y2] == pytest.approx(1.0)


@pytest.mark.parametrize("scale", [1.0, 1e-3, 1e-6, 1e-8, 1e-10, 1e-20, 1e-87, 1e-160, 1e-300])
@pytest.mark.parametrize("fast", [True, False])
def test_crammer_singer_on_rows_of_tiny_norm(scale, fast):
    """Rows of norm 1e-6 left rows of alpha summing to 1e-4, at 1e-10 to infinity (then NaN), 'converged'."""
    X, y = random_multiclass(n=12, d=3, k=3, seed=1)
    X = scale * X / np.linalg.norm(X, axis=1, keepdims=True)
    p = MulticlassProblem(X, y, C=1.0, loss="cs")
    r = solve(CSBlondel(random_state=0), p, tol=1e-9, max_iter=10**5, fast=fast)
    alpha = r.state.alpha
    assert r.converged and np.all(np.isfinite(alpha))
    np.testing.assert_allclose(alpha.sum(axis=1), 0.0, atol=1e-15)
    assert _feasible(p, alpha)
    np.testing.assert_allclose(r.state.W, obj.multiclass_weights(p, alpha), rtol=1e-12, atol=1e-300)
    # the oracle on the data itself while X X' is representable; below that on its limit X = 0 (a linear
    # program), which differs from the true optimum by at most ||W||^2 / 2 <= (n C max ||x_i||)^2 < 1e-14
    best = cs_dual_optimum(X if scale >= 1e-8 else np.zeros_like(X), p.codes, 1.0)
    assert rel(r.dual, best) < 1e-6 and rel(r.primal, best) < 1e-6


def test_crammer_singer_on_the_issues_tiny_rows():
    m = MulticlassSVC(fit_intercept=False, loss="cs").fit(np.full((2, 5), 2.2e-87), [0, 1])
    assert m.result_.converged and np.all(np.isfinite(m.alpha_))
    np.testing.assert_allclose(m.alpha_.sum(axis=1), 0.0, atol=1e-15)
    np.testing.assert_allclose(m.alpha_, [[1.0, -1.0], [-1.0, 1.0]])  # the linear block's vertices


def test_convergence_warning():
    X, y = random_multiclass(n=40, seed=9)
    with pytest.warns(ConvergenceWarning, match="max_iter=1 epochs"):  # a solver named: it is not replaced
        MulticlassSVC(fit_intercept=False, solver="exact", max_iter=1, tol=1e-12).fit(X, y)
    # solver=None: the small problem the exact solver left short is finished by Newton steps, without a warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        m = MulticlassSVC(fit_intercept=False, max_iter=1, tol=1e-12).fit(X, y)
    assert m.solver_ == "interior_point" and m.result_.converged and m.result_.gap <= 1e-12


# ---- reductions ---------------------------------------------------------------------------------

def test_reductions_agree_with_sklearn():
    from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier
    from sklearn.svm import SVC

    X, y = random_multiclass(n=60, d=2, k=3, seed=10)
    base = SVC(kernel="rbf", gamma=0.5, C=1.0, tol=1e-8)
    for ours, ref in ((OneVsRestSVC(kernel="rbf", gamma=0.5, tol=1e-8), OneVsRestClassifier(base)),
                      (OneVsOneSVC(kernel="rbf", gamma=0.5, tol=1e-8), OneVsOneClassifier(base))):
        ours.fit(X, y)
        ref.fit(X, y)
        assert (ours.predict(X) == ref.predict(X)).mean() >= 0.98
    assert len(OneVsOneSVC().fit(X, y).estimators_) == 3


@parametrize_with_checks([MulticlassSVC(), MulticlassSVC(loss="cs"), MulticlassSVC(solver="shark"), MulticlassSVC(kernel="rbf"),
                          OneVsRestSVC(), OneVsOneSVC()], expected_failed_checks=agree_to_their_gap)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def _block_violation(p, alpha_i, s, y):
    """One block's KKT violation, written here from the losses' definitions (the test's oracle).

    Weston-Watkins and Lee-Lin-Wahba: the largest projected-gradient entry of the off-label entries in
    [0, C], with gradient M (s_y - s_j) - 1 (WW) or -(1 + s_j) (LLW); Crammer-Singer: Blondel's
    v_i = max_m g_m - min_{m: alpha_m < C [m = y]} g_m with g = s + [m != y].
    """
    k, C = p.k, p.C
    if p.loss == "cs":
        g = s + (np.arange(k) != y)
        upper = np.where(np.arange(k) == y, C, 0.0)
        return g.max() - g[alpha_i < upper].min()
    g = p.M * (s[y] - s) - 1.0 if p.loss == "ww" else -(1.0 + s)
    worst = 0.0
    for j in range(k):
        if j != y:
            pg = min(g[j], 0.0) if alpha_i[j] <= 0 else (max(g[j], 0.0) if alpha_i[j] >= C else g[j])
            worst = max(worst, abs(pg))
    return worst


VIOLATION_RUNS = [("ww", 1.0, WWExact), ("ww", 0.5, WWShark), ("cs", 1.0, CSBlondel), ("llw", 1.0, ExactBlock)]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("loss, M, Solver", VIOLATION_RUNS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_the_epoch_measures_the_largest_block_violation(loss, M, Solver, sparse):
    """``state.violation`` after a fast advance is the largest violation of the blocks its compiled epochs
    visited, each before its step (every visit of the call, its last included), and small at a solution."""
    X, y = random_multiclass(n=40, d=4, k=4, seed=3)
    X[5] = 0.0  # a zero row: a linear block
    p = MulticlassProblem(scipy.sparse.csr_array(X) if sparse else X, y, C=1.0, loss=loss, M=M)
    solver = Solver(random_state=2, shrinking=False)  # an epoch's worth of steps, across the epoch's end
    start = solver.advance(p, solver.init(p), p.n_samples + 7)  # off zero, inside an epoch
    assert not np.isnan(start.violation) and np.isnan(solver.step(p, start).violation)
    n_steps = p.n_samples  # one epoch's worth, across the epoch's end: two compiled calls
    fast = solver.advance(p, start, n_steps)
    state, worst = start, 0.0
    for _ in range(n_steps):  # the compiled visits, replayed here by the step path
        new = solver.step(p, state)
        i = new.i
        x = np.asarray(p.X[[i], :].toarray()[0] if sparse else X[i], dtype=np.float64)
        worst = max(worst, _block_violation(p, np.asarray(state.alpha[i]), np.asarray(state.W) @ x, int(p.codes[i])))
        state = new
    assert worst > 1e-3  # the blocks were not yet solved
    assert solver.violation(fast) == fast.violation
    assert fast.violation == pytest.approx(worst, abs=1e-12)
    done = solve(solver, p, tol=1e-10, max_iter=10**6)
    assert done.converged
    assert solver.advance(p, done.state, p.n_samples).violation < 1e-4


def test_violation_is_nan_where_no_epoch_measured_it():
    """NaN after init, a step (the step path keeps no violation) and a warm start; a fast advance measures every
    visit it makes, a single one included."""
    X, y = random_multiclass(n=12, d=3, k=3, seed=4)
    p = MulticlassProblem(X, y, loss="ww")
    solver = WWExact(random_state=0, shrinking=False)
    state = solver.init(p)
    assert np.isnan(state.violation) and np.isnan(solver.violation(state))
    assert np.isnan(solver.step(p, state).violation)
    one = solver.advance(p, state, 1)
    assert one.violation == one.sweep_violation >= 0  # the first visit's, the only one of its epoch so far
    moved = solver.advance(p, state, 2 * p.n_samples)
    assert moved.violation >= 0
    assert np.isnan(solver.warm_start(MulticlassProblem(X, y, C=2.0, loss="ww"), moved).violation)
