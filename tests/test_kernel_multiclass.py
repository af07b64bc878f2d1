"""Kernel multiclass SVMs against the same problem over an explicit feature map.

A kernel matrix K + B^2 (the intercept's constant feature B) factors as L L'; the rows of L are features on
which the *linear* problem is the kernel problem.  Clarabel solves that linear dual (tests/oracles.py), which
shares no code with the solvers, and a new point z has the features Lambda^(-1/2) U' (k(z, X) + B^2), so the
fitted model must predict new points as the explicit one does.
"""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from svmteach import MulticlassSVC, data
from svmteach.kernels import gram, make_kernel
from svmteach.losses import get_loss
from svmteach.problems import MulticlassProblem
from svmteach.solvers import InteriorPoint, make_multiclass_solver, solve

from oracles import multiclass_dual_optimum

KERNELS = {"rbf": dict(kernel="rbf", gamma=0.7), "poly": dict(kernel="poly", gamma=0.5, degree=2, coef0=1.0),
           "laplacian": dict(kernel="laplacian", gamma=0.5)}
SOLVERS = [("ww", "exact"), ("ww", "shark"), ("cs", "blondel"), ("llw", "exact"), ("mmr", "exact")]
#: ... and the working sets (svmteach.solvers.working_set), every loss
EVERY_SOLVER = SOLVERS + [(loss, "working_set") for loss in ("ww", "cs", "llw", "mmr")]


def rings(n=30, seed=0):
    """Three noisy concentric rings (:func:`svmteach.data.rings`, radial noise 0.2)."""
    return data.rings(n, noise=0.2, seed=seed)


def feature_map(X, kernel, B):
    """``(L, features_of)``: L L' = K + B^2 on X (eigenvalues below 1e-12 of the largest dropped), and the map of
    new points to the same coordinates."""
    K = gram(X, X, kernel) + B * B
    lam, U = np.linalg.eigh(0.5 * (K + K.T))
    keep = lam > 1e-12 * lam.max()
    lam, U = lam[keep], U[:, keep]
    return U * np.sqrt(lam), lambda Z: (gram(Z, X, kernel) + B * B) @ U / np.sqrt(lam)


def explicit_optimum(X, y, C, loss, kernel, B, M=1.0):
    """``(D*, scores_of)``: the optimum of the linear problem over the explicit features and its model's scores."""
    L, features_of = feature_map(X, kernel, B)
    linear = MulticlassProblem(L, y, C=C, loss=loss, M=M)
    D, alpha = multiclass_dual_optimum(linear)
    W = np.asarray(get_loss(loss).weights(linear, alpha))
    return D, lambda Z: features_of(Z) @ W.T


@pytest.mark.parametrize("C", [0.1, 10.0])
@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("loss, solver", EVERY_SOLVER)
def test_the_kernel_fit_reaches_the_explicit_feature_maps_optimum(loss, solver, kernel, C):
    X, y = rings()
    M = 0.5 if solver == "shark" else 1.0  # Shark's margin scale; the exact solver runs M = 1
    est = MulticlassSVC(loss=loss, solver=solver, M=M, C=C, tol=1e-8, max_iter=20000, **KERNELS[kernel]).fit(X, y)
    kern = make_kernel(est.kernel, est.gamma, est.degree, est.coef0, X)
    D, scores_of = explicit_optimum(X, y, C, loss, kern, B=1.0, M=M)
    assert est.result_.converged
    assert abs(est.result_.primal - D) <= 1e-6 * abs(D)  # strong duality: the kernel primal meets the oracle's dual
    Z = np.random.default_rng(1).uniform(-4, 4, (50, 2))
    np.testing.assert_allclose(est.scores(Z), scores_of(Z), atol=2e-3 * max(1.0, np.abs(scores_of(Z)).max()))


@pytest.mark.parametrize("loss", ["ww", "cs", "llw", "mmr"])
def test_the_interior_point_method_solves_the_kernel_dual(loss):
    X, y = rings(24, seed=2)
    problem = MulticlassProblem(X, y, C=1.0, loss=loss, bias=1.0, kernel="rbf", gamma=0.7)
    result = solve(InteriorPoint(), problem, max_iter=200, tol=1e-10)
    D, _ = explicit_optimum(X, y, 1.0, loss, problem.kernel, B=1.0)
    assert result.converged and abs(result.state.dual - D) <= 1e-8 * abs(D)


@pytest.mark.parametrize("loss, solver", EVERY_SOLVER)
def test_the_reported_objectives_are_those_of_the_returned_alpha(loss, solver):
    """P and D recomputed from alpha alone, through the explicit features: the gap a kernel fit reports is true."""
    X, y = rings(27, seed=3)
    est = MulticlassSVC(loss=loss, solver=solver, C=2.0, tol=1e-4, kernel="rbf", gamma=0.7).fit(X, y)
    L, _ = feature_map(X, make_kernel("rbf", 0.7), 1.0)
    linear = MulticlassProblem(L, y, C=2.0, loss=loss)
    from svmteach import objectives as obj

    W = obj.multiclass_weights(linear, est.alpha_)
    P, D, _ = obj.multiclass_measures(linear, est.alpha_, W)
    assert abs(P - est.result_.primal) <= 1e-9 * abs(P) and abs(D - est.result_.dual) <= 1e-9 * abs(D)


@pytest.mark.parametrize("loss, solver", SOLVERS)
@pytest.mark.parametrize("shrinking", [False, True])
def test_the_step_path_and_the_fast_path_are_one_run_on_a_kernel_problem(loss, solver, shrinking):
    X, y = rings(21, seed=4)
    problem = MulticlassProblem(X, y, C=3.0, loss=loss, bias=1.0, kernel="rbf", gamma=0.7)
    make = lambda: make_multiclass_solver(solver, problem.loss_object, 0, kernel="rbf", shrinking=shrinking)  # noqa: E731
    slow, fast = make(), make()
    a = slow.init(problem)
    for _ in range(5 * problem.n_samples):
        a = slow.step(problem, a)
    b = fast.init(problem)
    while b.n_iter < a.n_iter:  # with shrinking, a call returns at the end of each epoch over all samples
        b = fast.advance(problem, b, a.n_iter - b.n_iter)
    assert a.n_iter == b.n_iter
    np.testing.assert_allclose(np.asarray(b.alpha), np.asarray(a.alpha), rtol=0, atol=1e-11)
    np.testing.assert_allclose(np.asarray(b.W), np.asarray(a.W), rtol=0, atol=1e-10)  # the scores S = K A


def test_a_cache_of_two_rows_gives_the_same_run():
    X, y = rings(30, seed=5)
    problem = MulticlassProblem(X, y, C=1.0, loss="ww", bias=1.0, kernel="rbf", gamma=0.7)
    runs = [solve(make_multiclass_solver("exact", problem.loss_object, 0, kernel="rbf", cache_size=size), problem,
                  tol=1e-9, max_iter=10**5) for size in (1e-9, 200.0)]  # 2 rows, then all of them
    assert runs[0].state.rows.buffer.shape[0] == 2 and runs[1].state.rows.buffer.shape[0] == 30
    np.testing.assert_allclose(runs[0].state.alpha, runs[1].state.alpha, rtol=0, atol=1e-12)


def test_a_warm_start_from_another_C_reaches_the_oracle():
    X, y = rings(30, seed=6)
    est = MulticlassSVC(loss="cs", C=0.1, kernel="rbf", gamma=0.7, warm_start=True, tol=1e-9, max_iter=10**4)
    est.fit(X, y)
    est.set_params(C=5.0).fit(X, y)
    D, _ = explicit_optimum(X, y, 5.0, "cs", make_kernel("rbf", 0.7), B=1.0)
    assert est.result_.converged and abs(est.result_.primal - D) <= 1e-6 * abs(D)


@pytest.mark.parametrize("solver", ["exact", None])
def test_a_kernel_fit_holds_no_n_by_n_matrix(solver):
    """n = 3,000 with a 1 MB row cache: the (n, k) arrays, the cache (the epochs) or the working set's rows (the
    default when the cache cannot hold K) and blocks of kernel rows, far below K's 72 MB."""
    rng = np.random.default_rng(7)
    X, y = rng.standard_normal((3000, 5)), rng.integers(0, 3, 3000)
    est = MulticlassSVC(loss="ww", kernel="rbf", C=0.1, cache_size=1.0, max_iter=3, solver=solver)
    MulticlassSVC(loss="ww", kernel="rbf", solver=solver or "working_set").fit(*rings())  # compiled code loaded first
    tracemalloc.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 3 epochs may not converge, and say so
        est.fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert est.solver_ == (solver or "working_set")
    assert peak < 1.2e7, peak  # K would be 7.2e7 bytes


def test_bad_input_is_refused_naming_it():
    X, y = rings(30)
    with pytest.raises(TypeError, match="X is sparse"):
        MulticlassSVC(kernel="rbf").fit(sp.csr_matrix(X), y)
    with pytest.raises(ValueError, match="solver='parallel' does not take kernel"):
        MulticlassSVC(kernel="rbf", solver="parallel").fit(X, y)
    with pytest.raises(ValueError, match="gamma"):
        MulticlassSVC(kernel="rbf", gamma=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="cache_size"):
        MulticlassSVC(kernel="rbf", cache_size=0).fit(X, y)
    est = MulticlassSVC(kernel="rbf").fit(X, y)
    with pytest.raises(AttributeError, match="coef_ is only available when kernel='linear'"):
        est.coef_  # noqa: B018
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :1])


def test_the_fitted_model_keeps_the_support_vectors_only():
    X, y = rings(60, seed=8)
    est = MulticlassSVC(loss="cs", kernel="rbf", gamma=0.7, C=1.0).fit(X, y)
    np.testing.assert_array_equal(est.support_vectors_, X[est.support_])
    assert 0 < len(est.support_) < len(y)
    assert est.predict(X).shape == (60,) and est.decision_function(X).shape == (60, 3)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("sparse", [False, True])
def test_advance_writes_its_own_copies_never_the_input_state(kernel, sparse):
    """The fast path works on copies of alpha and the model and moves them in place for its last visit too."""
    if sparse and kernel != "linear":
        pytest.skip("a kernel takes dense X")
    X, y = rings(24, seed=9)
    problem = MulticlassProblem(sp.csr_matrix(X) if sparse else X, y, C=2.0, loss="cs", bias=1.0, kernel=kernel)
    solver = make_multiclass_solver("blondel", problem.loss_object, 0, kernel=kernel)
    state = solver.advance(problem, solver.init(problem), 30)
    alpha, W = np.array(state.alpha), np.array(state.W)
    later = solver.advance(problem, state, 50)
    np.testing.assert_array_equal(state.alpha, alpha)
    np.testing.assert_array_equal(state.W, W)
    assert not np.shares_memory(later.alpha, state.alpha) and not np.shares_memory(later.W, state.W)


def test_the_block_path_picture_undoes_a_kernel_step():
    """The Weston-Watkins step picture rebuilds the state before the step (S, not W, on a kernel problem): the exact
    block it recomputes from there is the step the exact solver took."""
    from svmteach.solvers import WWExact
    from svmteach.viz.shark_path import block_path_picture

    X, y = rings(21, seed=10)
    problem = MulticlassProblem(X, y, C=1.0, loss="ww", bias=1.0, kernel="rbf", gamma=0.7)
    solver = WWExact(random_state=0, shrinking=False)
    state = solver.init(problem)
    for _ in range(30):
        state = solver.step(problem, state)
        picture = block_path_picture(problem, state)
        if picture is not None:
            np.testing.assert_allclose(picture.exact_after, np.asarray(state.alpha)[state.i], rtol=0, atol=1e-12)


def test_the_course_names_for_the_objectives_are_right_or_refuse_on_a_kernel_problem():
    """multiclass_dual at the model S is the measured dual (||W||^2 = <A, S>, not sum(S * S)); multiclass_primal, which
    has no alpha to compute ||W||^2 with, refuses a kernel problem, naming what to call instead."""
    from svmteach import objectives as obj

    X, y = rings(24, seed=11)
    problem = MulticlassProblem(X, y, C=1.0, loss="cs", bias=1.0, kernel="rbf", gamma=0.7)
    result = solve(make_multiclass_solver("blondel", problem.loss_object, 0, kernel="rbf"), problem, tol=1e-6)
    alpha = np.asarray(result.state.alpha)
    S = obj.multiclass_weights(problem, alpha)
    D, _ = explicit_optimum(X, y, 1.0, "cs", problem.kernel, B=1.0)
    assert abs(obj.multiclass_dual(problem, alpha, S) - D) <= 1e-5 * abs(D)
    with pytest.raises(ValueError, match="multiclass_measures"):
        obj.multiclass_primal(problem, S)
