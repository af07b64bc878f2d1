"""Per-sample penalties C_i = C w_i in every multiclass loss and solver, against independent oracles.

The weighted primal is :math:`\\tfrac12 \\|W\\|_F^2 + \\sum_i C_i \\ell_i(W)`; each dual bounds sample i's
block by :math:`C_i` in place of C.  The oracle here solves the weighted *primal* as a QP (Clarabel, with
one slack per hinge), so it shares no derivation with the solvers' duals; the objectives a result
reports are recomputed below from its alpha and W with the formulas written out here.
"""

import array_api_strict as xps
import numpy as np
import pytest
import scipy.sparse
from oracles import solve_qp
from sklearn.svm import LinearSVC
from test_multiclass import assert_fast_path_equals_step_path, random_multiclass

from svmteach import MulticlassProblem, ParallelBlock, iterate, solve
from svmteach.backend import to_numpy
from svmteach.solvers import CSBlondel, ExactBlock, WWExact, WWShark

# ---- the oracle: the weighted primal as a QP -------------------------------------------------------


def hinge_rows(X, codes, k, loss, M):
    """The hinges of the primal, each as ``(i, slack, a)``: sample i's loss has the term
    ``max(0, 1 + a'w)`` (w = W flattened by rows), Crammer-Singer's sharing one slack per sample."""
    n, d = X.shape
    rows = []
    for i in range(n):
        y = codes[i]
        for m in range(k):
            if m == y:
                continue
            a = np.zeros(k * d)
            if loss == "ww":  # 1 - M (w_y - w_m)'x_i
                a[m * d:(m + 1) * d] += M * X[i]
                a[y * d:(y + 1) * d] -= M * X[i]
            elif loss == "cs":  # 1 + w_m'x_i - w_y'x_i, max over m: one slack for the sample
                a[m * d:(m + 1) * d] += X[i]
                a[y * d:(y + 1) * d] -= X[i]
            else:  # llw: 1 + w_m'x_i
                a[m * d:(m + 1) * d] += X[i]
            rows.append((i, i if loss == "cs" else len(rows), a))
    return rows


def weighted_primal_optimum(X, codes, k, C_i, loss, M=1.0):
    """``W*`` of ``min 1/2 |W|^2 + sum_i C_i loss_i(W)`` (LLW with sum_m w_m = 0), by Clarabel on the QP
    with a slack per hinge (one per sample for CS): ``a'w - xi <= -1``, ``xi >= 0``.  A sample with
    C_i = 0 is left out: its loss costs nothing."""
    X = np.asarray(X, dtype=np.float64)
    keep = C_i > 0
    X, codes, C_i = X[keep], codes[keep], C_i[keep]
    n, d = X.shape
    rows = hinge_rows(X, codes, k, loss, M)
    n_slack = n if loss == "cs" else len(rows)
    nw = k * d
    P = np.zeros((nw + n_slack, nw + n_slack))
    P[:nw, :nw] = np.eye(nw)
    cost = np.zeros(n_slack)
    for i, s, _ in rows:
        cost[s] = C_i[i]
    q = np.concatenate([np.zeros(nw), cost])
    A = np.zeros((len(rows) + n_slack, nw + n_slack))
    for r, (i, s, a) in enumerate(rows):
        A[r, :nw] = a
        A[r, nw + s] = -1.0
    A[len(rows):, nw:] = -np.eye(n_slack)
    b = np.concatenate([-np.ones(len(rows)), np.zeros(n_slack)])
    A_eq = np.hstack([np.tile(np.eye(d), (1, k)), np.zeros((d, n_slack))]) if loss == "llw" else None
    z = solve_qp(P, q, A_eq, np.zeros(d) if loss == "llw" else None, A, b)
    return z[:nw].reshape(k, d)


# ---- the objectives, written out -------------------------------------------------------------------


def primal(X, codes, C_i, W, loss, M=1.0):
    """``1/2 |W|^2 + sum_i C_i loss_i(W)``, each loss from its definition."""
    S = np.asarray(X @ W.T)
    total = 0.0
    for i, y in enumerate(codes):
        others = [m for m in range(W.shape[0]) if m != y]
        if loss == "ww":
            li = sum(max(0.0, 1.0 - M * (S[i, y] - S[i, m])) for m in others)
        elif loss == "cs":
            li = max(0.0, 1.0 + max(S[i, m] for m in others) - S[i, y])
        else:
            li = sum(max(0.0, 1.0 + S[i, m]) for m in others)
        total += C_i[i] * li
    return 0.5 * float(np.sum(W * W)) + total


def dual_and_weights(X, codes, C_i, alpha, loss, M=1.0):
    """``(D(alpha), W(alpha))`` with the course's conventions, after checking that alpha is in the weighted set."""
    n, k = alpha.shape
    Y = np.arange(k)[None, :] == codes[:, None]
    C = C_i[:, None]
    tol = 1e-12 * max(1.0, float(C_i.max()))
    if loss == "cs":  # alpha_i^m <= C_i [m = y_i], sum_m alpha_i^m = 0; W = alpha'X; D = sum_i alpha_i^{y_i} - |W|^2/2
        assert np.all(alpha <= np.where(Y, C, 0.0) + tol)
        np.testing.assert_allclose(alpha.sum(axis=1), 0.0, atol=tol)
        W = np.asarray(X.T @ alpha).T
        linear = float(alpha[Y].sum())
    else:  # 0 <= alpha_im <= C_i off the label; linear term sum_{m != y_i} alpha_im
        off = alpha[~Y]
        assert np.all(off >= -tol) and np.all(alpha <= C + tol)
        linear = float(off.sum())
        if loss == "ww":  # alpha_{i y_i} = -sum_{j != y_i} alpha_ij; W = -M alpha'X
            np.testing.assert_allclose(alpha.sum(axis=1), 0.0, atol=tol)
            W = -M * np.asarray(X.T @ alpha).T
        else:  # llw: alpha_{i y_i} = 0; w_m = -sum_i (alpha_im - mean_m alpha_i) x_i
            assert np.all(alpha[Y] == 0.0)
            W = -np.asarray(X.T @ (alpha - alpha.mean(axis=1, keepdims=True))).T
    return linear - 0.5 * float(np.sum(W * W)), W


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


def weighted_problem(seed, n=24, k=4, zeros=0, sparse=False):
    """A random problem with positive weights in [0.1, 5] (some of them exactly 0)."""
    X, y = random_multiclass(n=n, d=3, k=k, seed=seed)
    rng = np.random.default_rng(seed + 100)
    w = rng.uniform(0.1, 5.0, size=n)
    w[rng.choice(n, size=zeros, replace=False)] = 0.0
    return (scipy.sparse.csr_array(X) if sparse else X), X, y, w


RUNS = [("ww", 1.0, WWExact), ("ww", 0.5, WWExact), ("ww", 1.0, WWShark), ("ww", 0.5, WWShark),
        ("cs", 1.0, CSBlondel), ("cs", 1.0, ExactBlock), ("llw", 1.0, ExactBlock),
        ("ww", 1.0, ParallelBlock), ("ww", 0.5, ParallelBlock), ("cs", 1.0, ParallelBlock),
        ("llw", 1.0, ParallelBlock)]


def make_solver(Solver, shrinking=True):
    return Solver() if Solver is ParallelBlock else Solver(random_state=0, shrinking=shrinking)


def tight(Solver, tol):
    """``tol``, or 1e-7 for the parallel solver, whose plane search stalls near 1e-9 where blocks repeat
    (duplicated samples, without weights too)."""
    return max(tol, 1e-7) if Solver is ParallelBlock else tol


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("zeros", [0, 5], ids=["positive", "some-zero"])
@pytest.mark.parametrize("loss, M, Solver", RUNS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_weighted_optimum_matches_the_primal_qp(loss, M, Solver, zeros, sparse):
    Xp, X, y, w = weighted_problem(seed=3, zeros=zeros, sparse=sparse)
    p = MulticlassProblem(Xp, y, C=0.8, loss=loss, M=M, sample_weight=w)
    C_i = 0.8 * w
    r = solve(make_solver(Solver), p, tol=tight(Solver, 1e-9), max_iter=2_000_000)
    assert r.converged
    alpha, W = (np.asarray(to_numpy(a), dtype=np.float64) for a in (r.state.alpha, r.state.W))
    # the reported numbers, recomputed from what the result returns
    D, W_alpha = dual_and_weights(X, p.codes, C_i, alpha, loss, M)
    np.testing.assert_allclose(W, W_alpha, atol=1e-9 * max(1.0, np.abs(W_alpha).max()))
    P = primal(X, p.codes, C_i, W_alpha, loss, M)
    assert r.primal == pytest.approx(P, rel=1e-10)
    assert r.dual == pytest.approx(D, rel=1e-10, abs=1e-12)
    assert r.gap == pytest.approx((P - D) / abs(P), abs=1e-12)
    assert np.all(alpha[w == 0] == 0.0)  # a weight 0 holds its block at 0
    # the optimum, against the primal QP
    W_star = weighted_primal_optimum(X, p.codes, p.k, C_i, loss, M)
    P_star = primal(X, p.codes, C_i, W_star, loss, M)
    assert rel(P, P_star) < 1e-6
    assert rel(D, P_star) < 1e-6
    np.testing.assert_allclose(W_alpha, W_star, atol=1e-3 * max(1.0, np.abs(W_star).max()))


@pytest.mark.parametrize("loss, M, Solver", RUNS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_integer_weights_equal_duplicated_samples(loss, M, Solver):
    X, y = random_multiclass(n=18, d=3, k=3, seed=7)
    w = np.random.default_rng(8).integers(0, 4, size=len(y))  # 0 drops a sample, 3 triples it
    weighted = MulticlassProblem(X, y, C=1.3, loss=loss, M=M, sample_weight=w)
    copies = MulticlassProblem(np.repeat(X, w, axis=0), np.repeat(y, w), C=1.3, loss=loss, M=M)
    a = solve(make_solver(Solver), weighted, tol=tight(Solver, 1e-10), max_iter=2_000_000)
    b = solve(make_solver(Solver), copies, tol=tight(Solver, 1e-10), max_iter=2_000_000)
    assert a.converged and b.converged
    Wa, Wb = to_numpy(a.state.W), to_numpy(b.state.W)
    Pa = primal(X, weighted.codes, 1.3 * w.astype(float), Wa, loss, M)
    Pb = primal(np.repeat(X, w, axis=0), copies.codes, np.full(int(w.sum()), 1.3), Wb, loss, M)
    assert rel(Pa, Pb) < 1e-6
    np.testing.assert_allclose(Wa, Wb, atol=1e-3 * max(1.0, np.abs(Wb).max()))


def test_all_weights_one_is_the_unweighted_run():
    """Weights of 1 give the unweighted iterates exactly (the same arithmetic, C_i = C)."""
    X, y = random_multiclass(n=30, d=3, k=4, seed=2)
    for loss, Solver in (("ww", WWExact), ("ww", WWShark), ("cs", CSBlondel), ("llw", ExactBlock)):
        plain = MulticlassProblem(X, y, C=0.7, loss=loss)
        ones = MulticlassProblem(X, y, C=0.7, loss=loss, sample_weight=np.ones(len(y)))
        a = Solver(random_state=1).advance(plain, Solver(random_state=1).init(plain), 200)
        b = Solver(random_state=1).advance(ones, Solver(random_state=1).init(ones), 200)
        np.testing.assert_array_equal(a.alpha, b.alpha)
        np.testing.assert_array_equal(a.W, b.W)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("loss, M, Solver", RUNS[:7], ids=lambda v: getattr(v, "__name__", str(v)))
def test_weighted_fast_path_equals_step_path(loss, M, Solver, sparse):
    Xp, X, y, w = weighted_problem(seed=5, n=25, zeros=4, sparse=sparse)
    assert_fast_path_equals_step_path(MulticlassProblem(Xp, y, C=0.7, loss=loss, M=M, sample_weight=w), Solver)


@pytest.mark.parametrize("loss, Solver", [("ww", WWExact), ("cs", CSBlondel), ("llw", ExactBlock), ("ww", ParallelBlock),
                                          ("cs", ParallelBlock), ("llw", ParallelBlock)],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_weighted_step_paths_on_array_api_strict_equal_numpy(loss, Solver):
    """The array-API code on both namespaces, step for step.  The parallel solver's block targets come from the
    loss's compiled row kernels on either (a namespace without a CUDA target copies its rows to the host for them)."""
    _, X, y, w = weighted_problem(seed=9, n=12, k=3, zeros=2)
    strict = MulticlassProblem(xps.asarray(X), y, C=0.9, loss=loss, sample_weight=w)
    plain = MulticlassProblem(X, y, C=0.9, loss=loss, sample_weight=w)
    a = list(iterate(make_solver(Solver), strict, max_iter=30))[-1]
    b = list(iterate(make_solver(Solver), plain, max_iter=30))[-1]
    np.testing.assert_allclose(to_numpy(a.alpha), b.alpha, atol=1e-12)
    np.testing.assert_allclose(to_numpy(a.W), b.W, atol=1e-12)


@pytest.mark.parametrize("loss, Solver", [("ww", WWExact), ("ww", WWShark), ("cs", CSBlondel), ("llw", ExactBlock)],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_shrinking_sets_zero_weight_samples_aside(loss, Solver):
    """A sample of weight 0 has the block {0}: the first compiled epoch sets it aside (no slack is asked of
    it), and it stays at 0."""
    _, X, y, w = weighted_problem(seed=6, n=30, zeros=6)
    p = MulticlassProblem(X, y, C=1.0, loss=loss, sample_weight=w)
    solver = Solver(random_state=0)
    state = solver.advance(p, solver.init(p), p.n_samples)
    zero = np.flatnonzero(w == 0)
    assert not state.active[zero[zero != state.i]].any()  # (the last visit is the step path's: it never shrinks)
    assert state.active[w > 0].sum() > 0
    assert np.all(state.alpha[zero] == 0.0)


def test_warm_start_projects_into_the_weighted_set():
    """A state of the unweighted problem, warm-started on a weighted one, lands in its set: rows of
    zero weight at 0, every other inside its own box."""
    _, X, y, w = weighted_problem(seed=4, n=20, zeros=3)
    for loss, Solver in (("ww", WWExact), ("cs", CSBlondel), ("llw", ExactBlock), ("cs", ParallelBlock)):
        plain = MulticlassProblem(X, y, C=2.0, loss=loss)
        weighted = MulticlassProblem(X, y, C=2.0, loss=loss, sample_weight=w)
        solver = make_solver(Solver)
        state = solver.warm_start(weighted, solve(solver, plain, tol=1e-6, max_iter=10**5).state)
        alpha = to_numpy(state.alpha)
        dual_and_weights(X, weighted.codes, 2.0 * w, alpha, loss)  # asserts feasibility
        assert np.all(alpha[w == 0] == 0.0)


def test_a_step_on_a_sample_of_weight_0_leaves_its_block_at_0():
    """The step path bounds each block by its own C_i (the compiled kernel is given problem.C_i[i])."""
    X, y = random_multiclass(n=6, d=2, k=3, seed=1)
    for loss, Solver in (("ww", WWExact), ("cs", CSBlondel), ("llw", ExactBlock)):
        p = MulticlassProblem(X, y, loss=loss, sample_weight=np.arange(0.0, 6.0))  # sample 0 weighs nothing
        solver = Solver(random_state=0)
        state = solver.update(p, solver.init(p), 0)
        np.testing.assert_array_equal(state.alpha[0], 0.0)
        assert solver.update(p, solver.init(p), 1).alpha[1].any()  # a weighted one moves


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_crammer_singer_with_weights_matches_liblinear(C):
    X, y = random_multiclass(n=60, d=4, k=4, seed=1)
    w = np.random.default_rng(2).uniform(0.0, 3.0, size=len(y))
    w[::7] = 0.0
    p = MulticlassProblem(X, y, C=C, loss="cs", sample_weight=w)
    ours = solve(CSBlondel(random_state=0), p, tol=1e-10, max_iter=10**7)
    assert ours.converged
    # LIBLINEAR's -s 4 minimises 1/2 |W|^2 + sum_i C w_i max(0, 1 + max_{m != y_i} w_m'x_i - w_{y_i}'x_i)
    ref = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C, tol=1e-12, max_iter=10**6)
    ref.fit(X, y, sample_weight=w)
    P_ref = primal(X, p.codes, C * w, ref.coef_, "cs")
    P_ours = primal(X, p.codes, C * w, to_numpy(ours.state.W), "cs")
    assert rel(P_ours, P_ref) < 1e-4
    assert P_ours <= P_ref * (1 + 1e-9)  # ours is certified to 1e-10; LIBLINEAR stops on its own tolerance
