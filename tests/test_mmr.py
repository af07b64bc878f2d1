"""Maximum-margin regression, the loss that proves the row-kernel seam: one module and one registry entry, solved
by the exact, parallel and interior-point solvers, dense, sparse and with a kernel, at Clarabel's optimum of the
primal and of the kernel dual written out by hand in tests/oracles.py (independent of the loss object), with its
picture in the explorer read back from the rendered figure.

Every certificate is recomputed here from what the solver returns, with NumPy and the formulas of the module
docstring: W = (alpha - mean alpha)' X, P = 1/2 ||W||^2 + sum C_i max(0, 1 - w_{y_i}' x_i), D = sum alpha_{iy_i} -
1/2 ||W||^2."""

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from sklearn.metrics.pairwise import rbf_kernel  # noqa: E402

from svmteach import MulticlassProblem, MulticlassSVC, data  # noqa: E402
from svmteach.losses import LOSSES, PACKAGE_LOSSES, MaximumMarginRegression  # noqa: E402
from svmteach.losses.maximum_margin_regression import MMRBlock, block  # noqa: E402
from svmteach.losses.row_kernels import params, scratch  # noqa: E402
from svmteach.solvers import ExactBlock, InteriorPoint, ParallelBlock, solve  # noqa: E402
from svmteach.solvers.registry import multiclass_solver_names  # noqa: E402
from oracles import mmr_kernel_dual_optimum, mmr_primal_optimum  # noqa: E402
from test_pictures import drawn_regions_agree  # noqa: E402


def blobs(n=45, k=4, d=3, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    centres = rng.normal(scale=2.0, size=(k, d))
    return scale * (centres[y] + rng.normal(size=(n, d))), y


def certificate(X, y, C_i, alpha):
    """``(W, P, D)`` recomputed from alpha alone (the module docstring's formulas, NumPy)."""
    assert np.all(alpha[np.arange(len(y)), y] >= 0) and np.all(alpha[np.arange(len(y)), y] <= C_i * (1 + 1e-12))
    off = np.ones_like(alpha, dtype=bool)
    off[np.arange(len(y)), y] = False
    assert np.all(alpha[off] == 0.0)  # only the label entry is a variable
    W = (alpha - alpha.mean(axis=1, keepdims=True)).T @ X
    assert np.allclose(W.sum(axis=0), 0.0, atol=1e-10 * (1 + np.abs(W).max()))
    s_y = np.einsum("ij,ij->i", X, W[y])
    half = 0.5 * np.sum(W * W)
    return W, half + np.sum(C_i * np.maximum(1.0 - s_y, 0.0)), alpha[np.arange(len(y)), y].sum() - half


def run(solver, problem, tol):
    """``(result, alpha)``: a run to ``tol`` and the alpha it returns (the solver's ``coefficients``)."""
    result = solve(solver, problem, tol=tol, max_iter=10**6)
    return result, np.asarray(solver.coefficients(problem, result.state)[0], dtype=np.float64)


def test_the_loss_is_one_module_and_one_registry_entry():
    loss = LOSSES["mmr"]
    assert isinstance(loss, MaximumMarginRegression) and loss in PACKAGE_LOSSES
    assert loss.kernels.block is block
    assert set(multiclass_solver_names(loss)) >= {"exact", "parallel", "interior_point"}


@pytest.mark.parametrize("Solver", [ExactBlock, ParallelBlock, InteriorPoint])
@pytest.mark.parametrize("C", [0.05, 1.0, 50.0])
def test_every_solver_reaches_clarabels_primal_with_a_true_certificate(Solver, C):
    X, y = blobs(seed=int(C * 100) % 7)
    W_star, P_star = mmr_primal_optimum(X, y, C)
    problem = MulticlassProblem(X, y, C=C, loss="mmr")
    result, alpha = run(Solver(), problem, 1e-9)
    assert result.converged
    W, P, D = certificate(X, y, np.full(len(y), C), alpha)
    assert P == pytest.approx(result.primal, rel=1e-9, abs=1e-12)  # what it reports is what it returns
    assert D == pytest.approx(result.dual, rel=1e-9, abs=1e-12)
    assert D <= P_star * (1 + 1e-9) + 1e-12 and P >= P_star * (1 - 1e-9) - 1e-12  # weak duality both sides
    assert P == pytest.approx(P_star, rel=1e-6)
    assert np.abs(W - W_star).max() <= 1e-3 * (1 + np.abs(W_star).max())


def test_sample_weights_and_sparse_rows_reach_the_weighted_optimum():
    X, y = blobs(n=40, seed=3)
    rng = np.random.default_rng(3)
    weights = rng.choice([0.0, 0.3, 1.0, 4.0], size=len(y))
    W_star, P_star = mmr_primal_optimum(X, y, 1.0, sample_C=weights)
    for design in (X, sp.csr_matrix(X)):
        problem = MulticlassProblem(design, y, C=1.0, loss="mmr", sample_weight=weights)
        result, alpha = run(ExactBlock(), problem, 1e-10)
        W, P, _ = certificate(X, y, weights, alpha)
        assert P == pytest.approx(P_star, rel=1e-7)
        assert np.all(alpha[weights == 0] == 0.0)


def test_with_a_gaussian_kernel_it_reaches_the_kernel_duals_optimum():
    X, y = data.multiclass_blobs(60, k=3, seed=4)
    K = rbf_kernel(X, X, gamma=0.7)
    D_star, beta = mmr_kernel_dual_optimum(K, y, 2.0)
    problem = MulticlassProblem(X, y, C=2.0, loss="mmr", kernel="gaussian", gamma=0.7)
    for Solver in (ExactBlock, InteriorPoint):
        result, alpha = run(Solver(), problem, 1e-10)
        b = alpha[np.arange(len(y)), y]
        Q = K * ((y[:, None] == y[None, :]) - 1.0 / 3)
        assert b.sum() - 0.5 * b @ Q @ b == pytest.approx(D_star, rel=1e-8)
        assert result.dual == pytest.approx(D_star, rel=1e-8)
        # the primal with a kernel, from alpha: S = K A, P = 1/2 <A, K A> + C sum max(0, 1 - S_iy)
        A = alpha - alpha.mean(axis=1, keepdims=True)
        S = K @ A
        P = 0.5 * np.sum(A * S) + 2.0 * np.sum(np.maximum(1.0 - S[np.arange(len(y)), y], 0.0))
        assert P == pytest.approx(result.primal, rel=1e-8)
        assert P - D_star <= 1e-7 * abs(D_star)


def test_the_estimator_predicts_as_the_primal_optimum_does():
    X, y = blobs(n=80, k=3, d=2, seed=5)
    W_star, _ = mmr_primal_optimum(X, y, 1.0)
    model = MulticlassSVC(loss="mmr", C=1.0, fit_intercept=False, tol=1e-9).fit(X, y)
    S = X @ W_star.T
    top = np.sort(S, axis=1)
    clear = top[:, -1] - top[:, -2] > 1e-3  # away from ties
    assert clear.sum() > 60
    np.testing.assert_array_equal(model.predict(X)[clear], np.argmax(S, axis=1)[clear])
    np.testing.assert_allclose(model.coef_, W_star, atol=1e-4 * (1 + np.abs(W_star).max()))


# ---- the block kernel against its formula, degenerate blocks included ------------------------------------------

def run_block(s, a, y, q, C, shrink=False, margin=np.inf):
    k = len(s)
    picture = np.zeros((3, k))
    a = np.array(a, dtype=float)
    violation, moves = block(np.array(s, float), a, y, float(q), float(C), params(), (margin, shrink, False),
                             np.ones(k, dtype=bool), scratch(k), picture)
    return a, violation, moves, picture


@pytest.mark.parametrize("seed", range(20))
def test_the_block_is_the_clipped_vertex_of_its_parabola(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 7))
    y = int(rng.integers(k))
    q = float(rng.choice([1e-3, 1.0, 40.0]))
    C = float(rng.choice([1e-6, 0.5, 1e6]))
    s = rng.normal(scale=3.0, size=k)
    a = np.zeros(k)
    a[y] = rng.choice([0.0, rng.uniform(0, C), C])  # at a bound or inside
    new, violation, moves, _ = run_block(s, a, y, q, C)
    h = q * (k - 1) / k
    expected = min(max(a[y] - (s[y] - 1.0) / h, 0.0), C)
    assert new[y] == pytest.approx(expected, rel=1e-12, abs=1e-300)
    assert np.all(np.delete(new, y) == 0.0)
    g = s[y] - 1.0
    expected_violation = max(-g, 0.0) if a[y] <= 0 else (max(g, 0.0) if a[y] >= C else abs(g))
    assert violation == pytest.approx(expected_violation, rel=1e-12)
    # the new value minimises the block on [0, C]: f(a + t) - f(a) = g t + h/2 t^2
    grid = np.linspace(0, C, 201)
    f = g * (grid - a[y]) + 0.5 * h * (grid - a[y]) ** 2
    assert g * (new[y] - a[y]) + 0.5 * h * (new[y] - a[y]) ** 2 <= f.min() + 1e-12 * (1 + abs(f).max())


def test_a_zero_row_goes_to_the_bound_its_gradient_points_to():
    for s_y, expected in ((0.3, 7.0), (1.4, 0.0)):  # s_y < 1: the hinge is active, alpha goes up; > 1: down
        s = np.array([0.0, s_y, 0.0])
        new, _, moves, picture = run_block(s, [0.0, 2.0, 0.0], 1, 0.0, 7.0)
        assert new[1] == expected and moves == 1
        assert math.isinf(picture[1, 0])  # no vertex: a line


def test_a_huge_C_and_a_tiny_scale_give_the_exact_step():
    for q, C in ((1e-30, 1e30), (1e30, 1e-30)):
        s = np.array([0.0, -2.0])
        new, _, _, _ = run_block(s, [0.0, 0.0], 1, q, C)
        h = q / 2
        assert new[1] == pytest.approx(min(3.0 / h, C), rel=1e-14)


def test_shrinking_sets_aside_a_block_pushed_into_its_bound():
    s = np.array([0.0, 5.0, 0.0])  # s_y - 1 = 4 > margin at alpha = 0: at rest
    new, _, moves, _ = run_block(s, [0.0, 0.0, 0.0], 1, 1.0, 1.0, shrink=True, margin=1.0)
    assert moves == -1 and np.all(new == 0.0)
    new, _, moves, _ = run_block(s, [0.0, 0.0, 0.0], 1, 1.0, 1.0, shrink=True, margin=10.0)
    assert moves == 0  # within the slack, not at rest; and nothing to do (violation 0 at the bound)


def test_the_picture_is_the_parabola_of_the_step():
    problem = MulticlassProblem(*blobs(n=12, k=3), C=1.0, loss="mmr")
    loss = problem.loss_object
    s = np.array([0.2, -0.5, 0.3])
    old = np.array([0.0, 0.4, 0.0])
    new, violation, moves, picture = run_block(s, old, 1, 2.0, 1.0)
    b = loss.block_picture(1, 2.0, 1.0, old, new, picture, violation, moves)
    assert isinstance(b, MMRBlock)
    h = 2.0 * 2 / 3
    assert b.curvature == pytest.approx(h) and b.grad == pytest.approx(-1.5)
    assert b.alpha_unclipped == pytest.approx(0.4 + 1.5 / h) and b.alpha_clipped == new[1] == 1.0
    # the parabola a (x^2 - old^2) + b (x - old) is the dual's change along alpha_{iy}: D rises by -(g t + h/2 t^2)
    t = new[1] - old[1]
    assert b.a * (new[1] ** 2 - 0.4 ** 2) + b.b * t == pytest.approx(-(-1.5 * t + 0.5 * h * t * t))


# ---- the explorer ------------------------------------------------------------------------------------------

def test_the_explorer_draws_its_parabola_and_the_optimum():
    from svmteach.viz.parabola import ParabolaView
    from svmteach.widgets import MulticlassExplorer

    X, y = data.multiclass_blobs(45, k=3, seed=2)
    ex = MulticlassExplorer(X, y, C=1.0, loss="mmr", time_budget=math.inf)
    assert isinstance(ex.step_view, ParabolaView)
    for _ in range(3):
        ex.buttons["step"].click()
    i = int(ex.state.i)
    p = ex.step_view.picture
    alpha = np.asarray(ex.state.alpha)
    assert p.i == i and p.clipped == pytest.approx(alpha[i, y[i]])  # the red star is the new alpha_{i y_i}
    star = ex.step_view.after.get_xdata()[0]
    assert star == pytest.approx(alpha[i, y[i]])
    assert "Maximum-margin regression's block for sample" in ex.narration.value
    ex.buttons["to convergence"].click()
    assert ex.state.gap <= ex.tol
    W_star, _ = mmr_primal_optimum(X, y, 1.0)
    drawn_regions_agree(ex.fig, ex.ax_data, 3, lambda Z: np.argmax(Z @ W_star.T, axis=1))


@pytest.mark.parametrize("B", [1.0, 10.0])
def test_with_an_intercept_it_reaches_the_optimum_over_the_augmented_columns(B):
    X, y = blobs(n=60, k=3, d=2, seed=6)
    X = X + np.array([4.0, -3.0])  # away from the origin: the intercept matters
    model = MulticlassSVC(loss="mmr", C=0.5, intercept_scaling=B, tol=1e-10, max_iter=10**5).fit(X, y)
    XB = np.hstack([X, np.full((len(y), 1), B)])
    W_star, P_star = mmr_primal_optimum(XB, y, 0.5)  # the bias a feature B of its own, penalised
    W = np.hstack([model.coef_, model.intercept_[:, None] / B])
    s_y = np.einsum("ij,ij->i", XB, W[y])
    P = 0.5 * np.sum(W * W) + 0.5 * np.sum(np.maximum(1.0 - s_y, 0.0))
    assert P == pytest.approx(P_star, rel=1e-6)
    assert model.result_.primal == pytest.approx(P, rel=1e-9)
    assert abs(model.intercept_.sum()) < 1e-8 * max(1.0, np.abs(model.intercept_).max())  # sum-to-zero holds there too


def test_the_explorers_title_stays_inside_the_figure_for_a_long_loss_title():
    """"maximum-margin regression (exact), step n: C = 1, gamma = 0.7" is wider than the data panel allows: the step
    goes to a second line instead of the title touching (or, a digit later, running off) the figure's left edge."""
    from svmteach.widgets import MulticlassExplorer

    X, y = data.rings(30, noise=0.2, seed=0)
    ex = MulticlassExplorer(X, y, C=1.0, loss="mmr", kernel="rbf", gamma=0.7, time_budget=math.inf)
    ex.buttons["to convergence"].click()
    assert ex.state.n_iter >= 100  # a step count of three digits or more: the one-line title is too wide
    ex.fig.canvas.draw()
    box = ex.ax_data.title.get_window_extent(ex.fig.canvas.get_renderer())
    assert 0.01 * ex.fig.bbox.width <= box.x0 and box.x1 <= 0.99 * ex.fig.bbox.width
    assert box.y1 <= ex.fig.bbox.height  # both lines inside the figure: the panels were placed with them
    assert ex.ax_data.get_title().startswith("maximum-margin regression (exact),\nstep ")
