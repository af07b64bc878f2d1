"""The interior-point solver at the edges of float64 (issue 26): boxes spanning 1e12 keep y'alpha = 0 through the
polish; tiny and huge C, features and weights get the optimum (Clarabel on the scaled equivalent problem) or a
clear error naming the arguments; a problem too large is refused before anything of its size is built."""

import tracemalloc
import warnings

import numpy as np
import pytest
from conftest import random_binary
from oracles import binary_dual_optimum
from sklearn.datasets import make_blobs

from svmteach import BinaryProblem, BinarySVC
from svmteach.estimators.direct import finish_directly
from svmteach.solvers import solve
from svmteach.solvers.interior_point import MAX_DENSE, Float64RangeError, InteriorPoint


def recomputed_binary(problem, alpha, b):
    """(P, D) of (alpha, b) from the course's formulas, each sample's C_i."""
    y, C_i, K = (np.asarray(a, float) for a in (problem.y, problem.C_i, problem.gram))
    f = K @ (alpha * y)
    norm2 = float((alpha * y) @ f)
    return 0.5 * norm2 + C_i @ np.maximum(0.0, 1.0 - y * (f + b)), alpha.sum() - 0.5 * norm2


def separable(n=30, d=3, seed=0):
    """Two classes a margin apart (through the origin too): at any C their optimum has no sample at C."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 0] += 0.5 * np.sign(X[:, 0])
    return X, np.sign(X[:, 0])


# ---- item 1: class weights 1e6 / 1e-6 ----------------------------------------------------------------------


def blobs_with_extreme_weights():
    X, y = make_blobs(n_samples=24, centers=2, random_state=3, cluster_std=3.0)
    y = np.where(y == 0, -1.0, 1.0)
    return X, y, np.where(y < 0, 1e6, 1e-6)


def test_class_weights_spanning_1e12_keep_y_alpha_zero():
    """The polish put an entry 4.6e-7 below 0 back on 0 (its slack was read as 1e-12 of C_i = 1e6), which broke
    y'alpha = 0 by 4.6e-7 of a total of 2.4e-5: InfeasibleStateError, gap -0.021.  Now the gap reaches tol and is
    that of the returned alpha, which is feasible; Clarabel (absolute tolerances 1e-11, an optimum of 2.4e-5)
    agrees to its own accuracy."""
    X, y, w = blobs_with_extreme_weights()
    problem = BinaryProblem(X, y, C=1.0, sample_weight=w, kernel="rbf")
    solver = InteriorPoint(bias=True)
    result = solve(solver, problem, tol=1e-6)
    alpha, b = solver.coefficients(problem, result.state)
    assert np.all(alpha >= 0) and np.all(alpha <= w)
    assert abs(alpha @ y) <= 1e-12 * np.abs(alpha).sum()
    P, D = recomputed_binary(problem, alpha, b)
    assert P == pytest.approx(result.primal, rel=1e-9) and D == pytest.approx(result.dual, rel=1e-9)
    assert -1e-12 <= (P - D) / P <= 1e-6
    optimum = binary_dual_optimum(np.asarray(problem.gram), y, w, True)[0]
    assert D == pytest.approx(optimum, rel=1e-5)


def test_the_estimator_with_extreme_class_weights_fits():
    X, y, _ = blobs_with_extreme_weights()
    with warnings.catch_warnings():
        warnings.simplefilter("error", category=RuntimeWarning)
        model = BinarySVC(kernel="rbf", tol=1e-6, class_weight={-1: 1e6, 1: 1e-6}, solver="interior_point").fit(X, y)
    alpha = model.alpha_
    assert abs(model.dual_coef_.sum()) <= 1e-12 * alpha.sum()  # y'alpha = 0


# ---- item 2: tiny and huge C, features, weights ------------------------------------------------------------


def clarabel_dual(X, y, C, bias):
    """The optimum of the dual at (C, X) from Clarabel at (1, sqrt(C) X): D(C, X) = C D(1, sqrt(C) X) (alpha = C a),
    so that Clarabel's absolute tolerances see an optimum of the size of n."""
    return C * binary_dual_optimum(C * (X @ X.T), y, 1.0, bias)[0]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("C, scale, weight", [(1e-300, 1.0, 1.0), (1e-200, 1.0, 1.0), (1.0, 1.0, 1e-310),
                                               (1.0, 1e-150, 1.0)])
def test_tiny_C_weights_and_features_reach_the_scaled_optimum(bias, C, scale, weight):
    """C = 1e-300 and weights 1e-310 raised ZeroDivisionError (the equality's a'N^{-1}a underflowed to 0)."""
    X, y = random_binary(n=30, d=3, seed=4)
    problem = BinaryProblem(X * scale, y, C=C, sample_weight=np.full(30, weight))
    solver = InteriorPoint(bias=bias)
    result = solve(solver, problem, tol=1e-8)
    assert result.gap <= 1e-8 and np.isfinite(result.primal) and np.isfinite(result.dual)
    alpha, b = solver.coefficients(problem, result.state)
    assert np.all(alpha >= 0) and np.all(alpha <= C * weight)
    # C_i = 1e-310 is subnormal: the objectives carry its few digits only
    Ci, rel = C * weight, (1e-6 if C * weight > 1e-300 else 1e-4)
    assert result.dual == pytest.approx(clarabel_dual(X * scale, y, Ci, bias), rel=rel)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("C, scale", [(1e100, 1.0), (1e300, 1.0), (1.0, 1e50), (1.0, 1e100), (1.0, 1e150)])
def test_huge_C_or_features_on_separable_data_reach_the_hard_margin(bias, C, scale):
    """Separable data: the optimum at any C past the hard margin is the hard margin's (no sample at C), whose
    dual on s X is 1/s^2 that on X: Clarabel at C = 100 on X (its alpha below 100 proves it is the hard margin).
    X * 1e100 raised a bare SciPy "array must not contain infs or NaNs" (a box 1e200 wide in the scaled variables)."""
    X, y = separable()
    problem = BinaryProblem(X * scale, y, C=C)
    solver = InteriorPoint(bias=bias)
    result = solve(solver, problem, tol=1e-8, max_iter=200)
    assert result.gap <= 1e-8 and np.isfinite(result.primal)
    value, a = binary_dual_optimum(X @ X.T, y, 100.0, bias)
    assert np.max(a) < 50.0  # the hard margin
    assert result.dual == pytest.approx(value / (scale * scale), rel=1e-6)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("C, scale, weight", [(1e100, 1.0, 1.0), (1e300, 1.0, 1.0), (1.0, 1e50, 1.0),
                                               (1.0, 1e100, 1.0), (1.0, 1e150, 1.0), (1.0, 1.0, 1e300)])
def test_an_optimum_beyond_float64_is_a_clear_error(bias, C, scale, weight):
    """Overlapping classes at C ||x||^2 >= 1e50: the samples at their bound C_i carry score terms C_i K_ii that
    float64 rounds by more than a margin, so no float64 alpha is the answer.  It was a ZeroDivisionError, a bare
    SciPy error, an overflow, or P = inf and D = -inf; it is an error naming C and X."""
    X, y = random_binary(n=30, d=3, seed=4)
    problem = BinaryProblem(X * scale, y, C=C, sample_weight=np.full(30, weight))
    with warnings.catch_warnings():
        warnings.simplefilter("error", category=RuntimeWarning)  # no overflow on the way
        with pytest.raises(Float64RangeError, match="C and X: float64 cannot represent"):
            solve(InteriorPoint(bias=bias), problem, tol=1e-8, max_iter=200)


def test_a_huge_intercept_scaling_is_named():
    X, y = random_binary(n=30, d=3, seed=4)
    with pytest.raises(Float64RangeError, match="intercept_scaling"):
        solve(InteriorPoint(bias=False), BinaryProblem(X, y, C=1.0, bias=1e150), tol=1e-8, max_iter=200)


def test_the_direct_finish_warns_instead_of_crashing():
    """The default's direct finish reached the same ZeroDivisionError; beyond float64 it now warns, naming C,
    and leaves the coordinate run's result."""
    X, y = random_binary(n=30, d=3, seed=4)
    problem = BinaryProblem(X, y, C=1e300)

    class Stopped:  # a coordinate run that stopped short
        converged = False

    with pytest.warns(Warning, match="C and X: float64 cannot represent"):
        assert finish_directly(problem, Stopped(), 1e-3, True, False) is None


# ---- item 3: the size is checked first ---------------------------------------------------------------------


@pytest.mark.parametrize("kernel, method", [("rbf", "auto"), ("linear", "dense")])
def test_a_problem_too_large_is_refused_before_it_is_built(kernel, method):
    """n = 12,001 with a Gaussian kernel was refused after 62 s and 5.5 GB (the Gram matrix and the dense Hessian
    were built first); now at once, with a few kB traced."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(MAX_DENSE + 1, 3))
    problem = BinaryProblem(X, np.where(X[:, 0] > 0, 1.0, -1.0), C=1.0, kernel=kernel)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=f"MAX_DENSE = {MAX_DENSE}"):
            solve(InteriorPoint(method=method), problem, max_iter=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 * X.nbytes  # far below the n^2 Gram matrix (1.2 GB)
