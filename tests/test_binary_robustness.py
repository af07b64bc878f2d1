"""The binary solvers on awkward but valid problems: what they report is what they return.

Oracles: the QP solver of ``oracles.py``, scikit-learn's SVC (LIBSVM), the hard-margin
dual value :math:`1 / (2 m^2)` of data whose margin m is known, and objectives recomputed
in float64 from the returned alpha and b.
"""

import numpy as np
import pytest
from conftest import random_binary
from oracles import binary_dual_optimum
from sklearn.svm import SVC

from svmteach import SMO, BinaryProblem, BinarySVC, DualCoordinateAscent, data, iterate, solve
from svmteach import objectives as obj
from svmteach.kernels import Kernel
from svmteach.solvers.base import InfeasibleStateError

EPS = np.finfo(np.float64).eps
SOLVERS = [lambda: SMO(), lambda: SMO("max_violating_pair"), lambda: DualCoordinateAscent(random_state=0)]


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def random_problem(seed):
    """A small random problem: n 2-30, d 1-5, features scaled by 1e-4 .. 1e4, C log-uniform in
    [1e-3, 1e3], a duplicated row now and then, and one of three kernels."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(2, 31)), int(rng.integers(1, 6))
    X = rng.normal(size=(n, d)) * 10.0 ** rng.choice([-4, -2, 0, 2, 4])
    if rng.random() < 0.3:
        X[rng.integers(n)] = X[0]
    y = np.where(rng.random(n) < 0.5, 1, -1)
    y[0], y[1] = 1, -1
    kernel = str(rng.choice(["linear", "rbf", "poly"]))
    return X, y, dict(C=10 ** rng.uniform(-3, 3), kernel=kernel, **({} if kernel == "linear" else {"gamma": "scale"}))


def recomputed(X, y, kwargs, alpha, b):
    """P, D and the rounding float64 allows them: (P, D, slack), from a fresh problem."""
    q = BinaryProblem(X, y, **kwargs)
    alpha = np.asarray(alpha, dtype=np.float64)
    f = obj.scores(q, alpha)
    P, D = obj.primal(q, alpha, b, f), obj.dual(q, alpha, f)
    # one rounding of f_t = sum_s alpha_s y_s K_st is up to eps sum_s alpha_s |K_st|; P adds
    # (sum alpha / 2 + C n) of those, D sum alpha / 2
    err_f = EPS * (alpha @ np.abs(q.gram).max(axis=1) + 1.0 + abs(b))
    return P, D, (alpha.sum() + q.C * q.n_samples) * err_f


@pytest.mark.parametrize("make, fast", [(SOLVERS[0], True), (SOLVERS[0], False), (SOLVERS[2], True)],
                         ids=["smo-fast", "smo-steps", "dual_cd-fast"])
def test_reported_objectives_are_those_of_the_returned_alpha(make, fast):
    # the compiled SMO's former float32 kernel rows let its cached gradient drift: it reported a dual
    # of 1.075 against a true 0.325, a negative gap, or converged at 2x tol
    tol = 1e-3
    for seed in range(40 if fast else 12):
        X, y, kwargs = random_problem(seed)
        solver = make()
        r = solve(solver, BinaryProblem(X, y, **kwargs), tol=tol, max_iter=20_000, fast=fast)
        alpha, b = solver.coefficients(None, r.state)
        P, D, slack = recomputed(X, y, kwargs, alpha, b)
        assert abs(r.primal - P) <= 1e-9 * abs(P) + slack, seed
        assert abs(r.dual - D) <= 1e-9 * abs(P) + slack, seed
        assert abs(r.gap - (P - D) / P) <= 1e-9 * max(tol, abs(r.gap)) + 2 * slack / P, seed
        if r.converged:
            assert (P - D) / P <= tol * (1 + 1e-9) + 2 * slack / P, seed


# ---- warm starts ------------------------------------------------------------------------------

@pytest.mark.parametrize("kern", [dict(kernel="linear"), dict(kernel="rbf", gamma=0.5)], ids=["linear", "rbf"])
@pytest.mark.parametrize("make, bias", [(SMO, True), (DualCoordinateAscent, False)], ids=["smo", "dual_cd"])
@pytest.mark.parametrize("C_from, C_to", [(10.0, 0.1), (0.1, 10.0)])
def test_warm_start_from_another_C_reaches_the_oracle(kern, make, bias, C_from, C_to):
    # a state of C = 10 given to C = 0.1 stopped at once, "converged", with a gap of -69
    X, y = random_binary(n=40, d=3, seed=0)
    start = BinaryProblem(X, y, C=C_from, **kern)
    p = start.with_C(C_to)
    best, _ = binary_dual_optimum(np.array(p.gram), p.y, C_to, bias=bias)
    previous = solve(make(), start, tol=1e-8).state
    first = next(iterate(make(), p, state=previous, max_iter=1))
    alpha = np.asarray(first.alpha)
    assert np.all((alpha >= 0) & (alpha <= C_to)) and alpha.max() == pytest.approx(min(C_to, previous.alpha.max()))
    if bias:
        assert abs(alpha @ p.y) <= 1e-12 * C_to * p.n_samples
    P, D, slack = recomputed(X, y, dict(C=C_to, **kern), alpha, make().coefficients(p, first)[1])
    assert first.primal == pytest.approx(P, abs=slack + 1e-12 * P) and first.dual == pytest.approx(D, abs=slack)
    for fast in (True, False):
        r = solve(make(), p, state=previous, tol=1e-10, max_iter=100_000, fast=fast)
        assert r.converged and r.n_iter > previous.n_iter and rel(r.dual, best) < 1e-6


def test_warm_start_refuses_states_that_do_not_fit():
    X, y = random_binary(n=20, d=2, seed=1)
    p = BinaryProblem(X, y, C=1.0)
    smo_state = solve(SMO(), p, tol=1e-6).state
    other = BinaryProblem(X[:15], y[:15], C=1.0)
    for make in (SMO, lambda: DualCoordinateAscent(random_state=0)):
        state = solve(make(), p, tol=1e-6).state
        with pytest.raises(ValueError, match="^state.alpha has shape \\(20,\\) but this problem needs \\(15,\\)"):
            make().warm_start(other, state)
        with pytest.raises(ValueError, match="^state.alpha has shape"):
            solve(make(), other, state=state)
    with pytest.raises(TypeError, match="^state must be a DualCDState"):
        DualCoordinateAscent().warm_start(p, smo_state)
    with pytest.raises(ValueError, match="^state.alpha has negative entries"):
        SMO().warm_start(p, smo_state._replace(alpha=np.where(np.arange(20) == 3, -1.0, smo_state.alpha)))
    with pytest.raises(ValueError, match="^state.alpha has y'alpha = .* != 0"):
        SMO().warm_start(BinaryProblem(X, -y, C=1.0), smo_state._replace(alpha=smo_state.alpha + np.eye(20)[0]))
    with pytest.raises(ValueError, match="^state.alpha contains NaN"):
        SMO().warm_start(p, smo_state._replace(alpha=np.full(20, np.nan)))
    # an infeasible state that reaches a solver without warm_start is refused, never "converged"
    too_big = smo_state._replace(alpha=smo_state.alpha * 100, gap=-3.0)
    with pytest.raises(InfeasibleStateError):
        SMO().converged(too_big, 1e-3)


# ---- the hard-margin limit: alpha_i / C far below 1e-12 -----------------------------------------

HARD = data.separable_blobs(80, margin=0.8, seed=3)  # the blobs' hard margin is 0.8


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("C, scale", [(1e12, 1.0), (1.0, 1e6)], ids=["C=1e12", "features*1e6"])
def test_smo_leaves_zero_when_alpha_is_tiny_against_C(C, scale, fast):
    # alpha = 1e-12 C was snapped to 0: accuracy 0.5, only a ConvergenceWarning
    X, y = HARD
    p = BinaryProblem(X * scale, y, C=C)
    r = solve(SMO(), p, tol=1e-6, max_iter=3000, fast=fast)
    f = obj.scores(p, r.state.alpha) + r.state.b
    assert np.all(np.sign(f) == p.y)
    margin = 0.8 * scale
    assert rel(r.dual, 1 / (2 * margin**2)) < 1e-6  # the hard-margin SVM's dual value
    assert rel(obj.dual(p, r.state.alpha), 1 / (2 * margin**2)) < 1e-6
    assert np.all(r.state.alpha < C * 1e-6)  # no slack is paid
    ref = SVC(C=C, kernel="linear").fit(X * scale, y)  # LIBSVM separates them too
    assert ref.score(X * scale, y) == 1.0


def exact_poly_gap(p, alpha, b, degree):
    """(P - D) / P of (alpha, b) in rationals for the kernel (x'z + 1)^degree (gamma 1, coef0 1)."""
    from fractions import Fraction

    X = [[Fraction(float(v)) for v in row] for row in np.asarray(p.X)]
    y = [int(v) for v in p.y]
    a = [Fraction(float(v)) for v in alpha]
    support = [k for k in range(len(a)) if a[k]]
    f = [sum(a[k] * y[k] * (sum(u * v for u, v in zip(X[i], X[k])) + 1) ** degree for k in support)
         for i in range(len(a))]
    norm2 = sum(a[i] * y[i] * f[i] for i in support)
    P = norm2 / 2 + sum(max(Fraction(0), 1 - y[i] * (f[i] + Fraction(float(b)))) for i in range(len(a)))
    return float((P - (sum(a) - norm2 / 2)) / P)


@pytest.mark.parametrize("fast", [True, False])
def test_polynomial_of_degree_30(fast):
    # K ~ 1e39: alphas of 1e-7 (were snapped to 0); float32 kernel rows would overflow
    X, y = HARD
    kw = dict(kernel="poly", degree=30, gamma=1.0, coef0=1.0)
    p = BinaryProblem(X, y, C=1.0, **kw)
    # tol 1e-7, not 1e-8: P is 1.04e-7, and its four support vectors' margins of 1 are known to 2e-16 each, so
    # float64 resolves this gap to about 3e-8 of P (the fast path's model, gap 1.5e-15 in float64, has an
    # exact gap of 1.4e-8: it was never within 1e-8)
    tol = 1e-7
    r = solve(SMO(), p, tol=tol, fast=fast)
    ref = SVC(C=1.0, tol=1e-10, **kw).fit(X, y)
    a = np.zeros(len(y))
    a[ref.support_] = np.abs(ref.dual_coef_[0])
    assert r.converged and rel(r.dual, obj.dual(p, a)) < 1e-6
    alpha, b = SMO().coefficients(p, r.state)
    assert exact_poly_gap(p, alpha, b, kw["degree"]) <= tol
    f = obj.scores(p, r.state.alpha) + r.state.b
    assert np.all(np.sign(f) == p.y) and ref.score(X, y) == 1.0


def test_estimator_on_the_hard_margin_limit():
    X, y = HARD
    for C, scale in ((1e12, 1.0), (1.0, 1e6)):
        assert BinarySVC(C=C).fit(X * scale, y).score(X * scale, y) == 1.0


# ---- kernels as the solvers see them ------------------------------------------------------

@pytest.mark.parametrize("fast", [True, False])
def test_kernel_objects_with_aliases_through_smo(fast):
    # Kernel("rbf") computed the Laplacian kernel, and the compiled SMO raised KeyError on it
    X, y = random_binary(n=50, d=3, seed=4)
    p = BinaryProblem(X, y, C=1.0, kernel=Kernel("rbf", 0.5))
    r = solve(SMO(), p, tol=1e-10, fast=fast)
    ref = SVC(C=1.0, kernel="rbf", gamma=0.5, tol=1e-10).fit(X, y)
    Z = np.random.default_rng(5).normal(size=(30, 3))
    ours = (r.state.alpha * p.y) @ p.kernel_with(Z) + r.state.b
    np.testing.assert_allclose(ours, ref.decision_function(Z), atol=1e-5)


@pytest.mark.parametrize("name", ["gaussian", "laplacian"])
def test_large_gamma_kernel_rows_have_a_unit_diagonal(name):
    # |x|^2 + |z|^2 - 2x'z left K_ii = 6.6e-17 instead of 1 at large gamma, on both paths
    rng = np.random.default_rng(3)
    X = 30 * rng.normal(size=(40, 3))
    X[7] = X[6] + 1e-4  # a near-duplicate pair with a kernel value between 0 and 1
    y = np.where(rng.random(40) < 0.5, 1, -1)
    y[6], y[7] = 1, -1
    gamma = 1e6 if name == "gaussian" else 1e3
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    K = np.exp(-gamma * (D2 if name == "gaussian" else np.sqrt(D2)))  # the explicit-difference oracle
    best, _ = binary_dual_optimum(K, y.astype(float), 1.0, bias=True)
    lazy = BinaryProblem(X, y, C=1.0, kernel=name, gamma=gamma)
    r = solve(SMO(), lazy, tol=1e-8)  # the compiled loop fills its own rows
    rows = r.state.rows
    np.testing.assert_allclose(rows.buffer[rows.have], K[rows.have], rtol=1e-9, atol=1e-300)
    assert np.all(np.diag(rows.buffer)[rows.have] == 1.0)
    assert r.converged and rel(r.dual, best) < 1e-6
    np.testing.assert_allclose(lazy.gram, K, rtol=1e-9, atol=1e-300)
    assert rel(solve(SMO(), lazy, tol=1e-8, fast=False).dual, best) < 1e-6


# ---- parameters ---------------------------------------------------------------------------------

@pytest.mark.parametrize("make, exc, match", [
    (lambda: SMO(selection=3), TypeError, "^selection must be one of"),
    (lambda: SMO(selection=["random"]), TypeError, "^selection must be one of"),
    (lambda: SMO(selection="best"), ValueError, "^selection must be one of"),
    (lambda: SMO(random_state=-1), ValueError, "^random_state must be between 0 and 2\\*\\*32 - 1"),
    (lambda: SMO(random_state=1.5), TypeError, "^random_state must be None, an int or a NumPy generator"),
    (lambda: SMO(random_state="0"), TypeError, "^random_state must be None"),
    (lambda: DualCoordinateAscent(init=None), TypeError, "^init must be one of"),
    (lambda: DualCoordinateAscent(init="ones"), ValueError, "^init must be one of"),
    (lambda: DualCoordinateAscent(random_state=2**40), ValueError, "^random_state must be between"),
    (lambda: DualCoordinateAscent(shrinking="no"), TypeError, "^shrinking must be True or False"),
    (lambda: DualCoordinateAscent(shrinking=None), TypeError, "^shrinking must be True or False"),
])
def test_solver_parameters_are_checked_when_the_solver_is_made(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


def test_solver_parameters_of_the_right_types_are_accepted():
    assert SMO("random", np.int64(3)).random_state == 3
    assert DualCoordinateAscent(shrinking=np.True_).shrinking is True
    DualCoordinateAscent(random_state=np.random.default_rng(0))


@pytest.mark.parametrize("make", [SMO, lambda: DualCoordinateAscent(random_state=0)])
def test_a_tiny_primal_does_not_converge_at_step_0(make):
    # relative_gap divided by max(|P|, 1e-300): with |P| ~ 1e-304 the gap of alpha = 0 read 2e-4 (it is 1)
    X, y = random_binary(n=20, d=2, seed=0)
    r = solve(make(), BinaryProblem(X, y, C=1e-305), tol=1e-3, max_iter=10_000)
    assert r.n_iter > 0
    assert r.gap == pytest.approx((r.primal - r.dual) / r.primal, rel=1e-12, abs=1e-12)
