"""Honest to the last bit (issue 26): a run that says ``converged`` has a true relative gap <= tol, the gap of
its returned alpha and b recomputed here in exact rational arithmetic (fractions); where float64 cannot
resolve the gap (C = 1e12 .. 1e300, features offset by 1e6 and more) the run says so instead."""

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs

from svmteach import SMO, BinaryProblem, DualCoordinateAscent, InteriorPoint, MulticlassProblem, solve
from svmteach.solvers.exact_block import ExactBlock

TOL = 1e-3


def rational_rows(X):
    """Each row of X (dense or sparse) as {j: Fraction(x_ij)} over its nonzeros."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    return [{j: Fraction(float(row[j])) for j in np.flatnonzero(row)} for row in X]


def exact_gap(X, y, C_i, alpha, b):
    """(P - D) / |P| of (alpha, b) in rationals: w = sum_i alpha_i y_i x_i exactly, no rounding anywhere."""
    X = rational_rows(X)
    y = [Fraction(float(v)) for v in y]
    a = [Fraction(float(v)) for v in alpha]
    C = [Fraction(float(v)) for v in C_i]
    w = {}
    for i in range(len(a)):
        for j, v in X[i].items():
            w[j] = w.get(j, 0) + a[i] * y[i] * v
    norm2 = sum(v * v for v in w.values())
    hinge = sum(C[i] * max(Fraction(0), 1 - y[i] * (sum(v * w.get(j, 0) for j, v in X[i].items()) + Fraction(float(b))))
                for i in range(len(a)))
    P = norm2 / 2 + hinge
    D = sum(a) - norm2 / 2
    return float((P - D) / abs(P)), float(P)


def separable(offset=0.0):
    X, y = make_blobs(20, 2, centers=[[-3.0, 0.0], [3.0, 0.0]], random_state=0, cluster_std=1.0)
    return X + offset, y


SOLVERS = {"smo": lambda: SMO(random_state=0), "dual_cd": lambda: DualCoordinateAscent(random_state=0),
           "interior_point": lambda: InteriorPoint(bias=True)}


@pytest.mark.parametrize("name", list(SOLVERS))
@pytest.mark.parametrize("C, offset", [(1.0, 0.0), (1e12, 0.0), (1e300, 0.0), (1.0, 1e6), (1.0, 1e8)])
def test_converged_means_the_exact_gap_is_within_tol(name, C, offset):
    X, y = separable(offset)
    # dual CD's intercept is a constant feature (LIBLINEAR's -B, the estimators' default)
    problem = BinaryProblem(X, y, C=C, bias=1.0 if name == "dual_cd" else None)
    try:
        with np.errstate(all="ignore"):
            result = solve(SOLVERS[name](), problem, max_iter=20_000, tol=TOL)
    except ValueError as error:  # the interior point may refuse what float64 cannot represent: saying so is honest
        assert "float64" in str(error)
        return
    alpha, b = SOLVERS[name]().coefficients(problem, result.state)
    if name == "dual_cd":
        b = 0.0
    if result.converged:
        gap, _ = exact_gap(np.asarray(problem.X), problem.y, problem.C_i, alpha, b)
        assert gap <= TOL, (gap, result.gap, result.rounding)
        assert result.reason == "" and result.rounding <= TOL * abs(result.primal)
    elif result.gap <= TOL:  # the gap said tol, float64 could not say it: told, with the bound
        assert result.reason.startswith("float64 cannot certify this gap")
        assert result.rounding > TOL * abs(result.primal)


def test_huge_C_is_not_certified_by_a_rounding_gap():
    # C = 1e300 on separable data: dual CD (and SMO) end with margins of 1 within rounding, where a hinge of 1e-16
    # costs 1e284; its float64 gap (6.6e-9) claimed convergence
    X, y = separable()
    problem = BinaryProblem(X, y, C=1e300, bias=1.0)
    result = solve(DualCoordinateAscent(random_state=0), problem, max_iter=20_000, tol=TOL)
    assert 0 <= result.gap <= TOL  # what float64 measured
    assert not result.converged
    assert result.rounding > 1e200 and "float64 cannot certify this gap" in result.reason
    result = solve(SMO(random_state=0), BinaryProblem(X, y, C=1e300), max_iter=20_000, tol=TOL)
    assert not result.converged  # where float64 measured a gap within tol (this CPU), the rounding says why not
    assert result.gap > TOL or "float64 cannot certify this gap" in result.reason  # (a generic x86-64 target: gap 1)
    # the same data at C = 1: converged, and the bound is at rounding level
    result = solve(DualCoordinateAscent(random_state=0), BinaryProblem(X, y, C=1.0, bias=1.0), max_iter=20_000, tol=TOL)
    assert result.converged and result.rounding < 1e-12 * result.primal


def test_the_scores_magnitudes_certify_what_cauchy_schwarz_cannot():
    # sparse data (two features of 6,000 a row): Cauchy-Schwarz bounds |x_i' x_k| by |x_i| |x_k| where it is
    # mostly 0, and its bound (1e-12 of P) could not certify a gap of 5e-15 at tol 2e-14 (nor could a root sum
    # of squares of it, 4e-14); the scores' actual magnitudes (|x_i|' sum_k alpha_k |x_k|) bound it by 6e-15
    rng = np.random.default_rng(1)
    n, d = 600, 6000
    X = sp.csr_matrix((rng.uniform(0.5, 2.0, 2 * n), (np.repeat(np.arange(n), 2), rng.integers(0, d, 2 * n))),
                      shape=(n, d))
    y = np.where(rng.random(n) < 0.5, 1, -1)
    problem, solver, tol = BinaryProblem(X, y, C=1.0), DualCoordinateAscent(random_state=0), 2e-14
    result = solve(solver, problem, tol=tol, max_iter=200_000)
    assert result.converged and result.reason == "", result.reason
    assert solver.gap_rounding(problem, result.state) > tol * result.primal  # the cheap bound alone: not certified
    alpha, _ = solver.coefficients(problem, result.state)
    gap, _ = exact_gap(X, y, problem.C_i, alpha, 0.0)
    assert gap <= tol, gap


# ---- multiclass -------------------------------------------------------------------------------


def exact_multiclass_gap(problem, alpha, W):
    """(P(W) - D(alpha)) / |P(W)| in rationals: P at the returned W, D with W(alpha) = A(alpha)' X exact.

    Written from the course's definitions (not from svmteach.losses): WW (margin scale M), CS, LLW, MMR."""
    X = [[Fraction(float(v)) for v in row] for row in np.asarray(problem.X)]
    n, d, k = len(X), len(X[0]), problem.k
    codes = [int(c) for c in problem.codes]
    a = [[Fraction(float(v)) for v in row] for row in alpha]
    Wr = [[Fraction(float(v)) for v in row] for row in W]
    C = [Fraction(float(v)) for v in problem.C_i]
    M, zero = Fraction(float(problem.M)), Fraction(0)
    if problem.loss == "ww":
        A = [[-M * v for v in row] for row in a]
        lin = -sum(a[i][codes[i]] for i in range(n))
    elif problem.loss == "cs":
        A = a
        lin = sum(a[i][codes[i]] for i in range(n))
    elif problem.loss == "llw":
        A = [[-(v - sum(row) / k) for v in row] for row in a]
        lin = sum(a[i][m] for i in range(n) for m in range(k) if m != codes[i])
    else:
        assert problem.loss == "mmr"
        A = [[v - sum(row) / k for v in row] for row in a]
        lin = sum(a[i][codes[i]] for i in range(n))
    Wa = [[sum(A[i][m] * X[i][j] for i in range(n)) for j in range(d)] for m in range(k)]
    D = lin - sum(v * v for row in Wa for v in row) / 2
    P = sum(v * v for row in Wr for v in row) / 2
    for i in range(n):
        s = [sum(Wr[m][j] * X[i][j] for j in range(d)) for m in range(k)]
        yi, off = codes[i], [m for m in range(k) if m != codes[i]]
        if problem.loss == "ww":
            loss = sum(max(zero, 1 - M * (s[yi] - s[m])) for m in off)
        elif problem.loss == "cs":
            loss = max(zero, 1 + max(s[m] for m in off) - s[yi])
        elif problem.loss == "llw":
            loss = sum(max(zero, 1 + s[m]) for m in off)
        else:
            loss = max(zero, 1 - s[yi])
        P += C[i] * loss
    return float((P - D) / abs(P))


def three_blobs():
    from sklearn.datasets import make_blobs

    return make_blobs(24, 2, centers=[[-3.0, 0.0], [3.0, 0.0], [0.0, 4.0]], random_state=0, cluster_std=0.5)


@pytest.mark.parametrize("loss", ["ww", "cs", "llw", "mmr"])
@pytest.mark.parametrize("C, scale, offset", [(1.0, 1.0, 0.0), (1e12, 1.0, 0.0), (1e-16, 1e8, 0.0),
                                              (1e-14, 1.0, 1e7), (1.0, 1e-8, 0.0)])
def test_multiclass_converged_means_the_exact_gap_is_within_tol(loss, C, scale, offset):
    X, y = three_blobs()
    problem = MulticlassProblem(X * scale + offset, y, C=C, loss=loss)
    with np.errstate(all="ignore"):
        result = solve(ExactBlock(random_state=0), problem, tol=TOL, max_iter=20_000)
    alpha, W = ExactBlock().coefficients(problem, result.state)
    if result.converged:
        assert exact_multiclass_gap(problem, alpha, W) <= TOL
        assert result.reason == "" and result.rounding <= TOL * abs(result.primal)
    elif result.gap <= TOL:
        assert result.reason.startswith("float64 cannot certify this gap")
        assert result.rounding > TOL * abs(result.primal)


def test_multiclass_huge_C_is_not_certified_by_a_rounding_gap():
    # Weston-Watkins at C = 1e12: the float64 gap (7.9e-4) says tol 1e-3, but C times the scores' rounding (1e-15) may
    # move P by 1e-2 of itself: float64 cannot tell this gap from 1e-2, and the result says so (it said converged)
    X, y = three_blobs()
    problem = MulticlassProblem(X, y, C=1e12, loss="ww")
    result = solve(ExactBlock(random_state=0), problem, tol=TOL, max_iter=20_000)
    assert not result.converged
    if result.gap <= TOL:  # what float64 measured on this CPU (a generic x86-64 target stops at max_iter, gap 2e-3)
        assert result.rounding > TOL * result.primal and "float64 cannot certify this gap" in result.reason
