"""The multiclass explorer's views driven as a user would (buttons, sliders, dropdowns), each checked
against the state it draws and against independent solutions: the Weston-Watkins block (Shark's path,
the exact jump, a QP oracle of the block), the Crammer-Singer block's simplex projection (a bisection
for the threshold), the M slider's rescaling, the warm start on C (the QP oracle of the dual), every
registered loss (Lee-Lin-Wahba's regions against an independent fit)."""

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from oracles import solve_qp, ww_dual_optimum  # noqa: E402

from svmteach import MulticlassProblem, data, solve  # noqa: E402
from svmteach.losses import LOSSES  # noqa: E402
from svmteach.solvers import ExactBlock, SharkMoves, WWExact  # noqa: E402
from svmteach.viz.shark_path import SharkPathView  # noqa: E402
from svmteach.viz.simplex import SimplexView  # noqa: E402
from svmteach.widgets import MulticlassExplorer  # noqa: E402


@pytest.fixture(scope="module")
def blobs():
    return data.multiclass_blobs(90, k=4, seed=0)  # notebook 6's data


def _before_step(explorer):
    """The visited sample's row and scores before the last step, from the state after it (W = -M alpha'X)."""
    s, problem = explorer.state, explorer.problem
    i = s.i
    x = np.asarray(problem.X[i], dtype=float)
    delta = np.asarray(s.block.delta, dtype=float)
    before = np.asarray(s.alpha[i], dtype=float) - delta
    W_before = np.asarray(s.W, dtype=float) + problem.M * np.outer(delta, x)
    return i, x, before, W_before @ x


def _ww_block_oracle(problem, i, before, scores):
    """The Weston-Watkins block of sample i solved by a general QP solver, in the full row alpha_i (k,):
    min_alpha_i  M^2 q / 2 ||alpha_i||^2 - alpha_i'(M W'x_i + M^2 q alpha_i_old + 1_{not y})  (notebook 6,
    section 3), with 0 <= alpha_ij <= C (j != y) and 1'alpha_i = 0."""
    k, M, C = problem.k, problem.M, problem.C
    y = int(problem.codes[i])
    q = float(problem.sqnorm[i])
    W_x = scores  # W x_i with W = W_old
    lin = M * W_x + M * M * q * before + (np.arange(k) != y)
    rows = [np.eye(k)[j] for j in range(k) if j != y]
    A = np.vstack(rows + [-r for r in rows])
    b = np.concatenate([np.full(k - 1, C), np.zeros(k - 1)])
    return solve_qp(M * M * q * np.eye(k), -lin, A_eq=np.ones((1, k)), b_eq=[0.0], A_ineq=A, b_ineq=b)


@pytest.mark.parametrize("solver", ["shark", "exact"])
def test_ww_step_view_draws_sharks_moves_and_the_exact_jump(blobs, solver):
    X, y = blobs
    e = MulticlassExplorer(X, y, C=1.0, loss="ww", solver=solver)
    view = e.step_view
    assert isinstance(view, SharkPathView) and view.picture is None
    e.buttons["step"].click()
    e.buttons["step"].click()
    for _ in range(40):  # step until a visit that Shark takes in several moves (the epoch's order decides which)
        path_before = np.array(view.path.get_xydata())
        png_before = e.snapshot_png()
        e.buttons["step"].click()
        p = view.picture
        if len(p.moves_j) >= 2:
            break
    assert e.state.n_iter >= 3 and p.i == e.state.i and p.ran == solver
    i, x, before, scores = _before_step(e)
    np.testing.assert_array_equal(p.before, before)
    # the path's vertices are the moves: the row before, then alpha_ij += m, alpha_iy -= m, move by move
    if solver == "shark":
        moves = e.state.block
        assert isinstance(moves, SharkMoves)
        np.testing.assert_array_equal(p.moves_j, moves.moves_j)
        np.testing.assert_array_equal(p.moves_m, moves.moves_m)
    row, expected = before.copy(), [before.copy()]
    for j, m in zip(p.moves_j, p.moves_m):
        row[j] += m
        row[p.y] -= m
        expected.append(row.copy())
    expected = np.array(expected)
    a, b = p.axes
    np.testing.assert_allclose(p.vertices, expected[:, [a, b]], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(np.array(view.path.get_xydata()), p.vertices)  # what is drawn
    assert len(p.moves_j) >= 2  # a zigzag, not one step
    # the exact jump: the block's minimiser, checked by a QP solver; the state after an exact step is it
    oracle = _ww_block_oracle(e.problem, i, before, scores)
    np.testing.assert_allclose(p.exact_after, oracle, atol=1e-6)
    np.testing.assert_allclose(np.array(view.exact.get_xydata())[0], oracle[[a, b]], atol=1e-6)
    np.testing.assert_allclose(view.jump.xy, oracle[[a, b]], atol=1e-6)
    np.testing.assert_allclose(view.jump.xyann, before[[a, b]])
    after = np.asarray(e.state.alpha[i])
    np.testing.assert_allclose(after, p.shark_after if solver == "shark" else p.exact_after, atol=1e-13)
    # Shark's many moves end where the exact block jumps (its inner loop runs until the violation is tiny)
    np.testing.assert_allclose(p.shark_after, oracle, atol=1e-6)
    # the drawing changed with the step, and the status line says what the step did
    assert not np.array_equal(path_before, np.array(view.path.get_xydata()))
    assert e.snapshot_png() != png_before
    assert f"sample {i}" in e.status.text and f"Shark's {len(p.moves_j)} moves" in e.status.text


def _bisect_theta(beta_hat, z):
    """The threshold of the projection onto {beta >= 0, sum = z}: sum max(beta_hat - theta, 0) = z, by bisection."""
    lo, hi = beta_hat.min() - z, beta_hat.max()
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if np.maximum(beta_hat - mid, 0).sum() > z else (lo, mid)
    return 0.5 * (lo + hi)


def test_cs_step_view_draws_the_blocks_projection(blobs):
    X, y = blobs
    e = MulticlassExplorer(X, y, C=1.0, loss="cs")
    view = e.step_view
    assert isinstance(view, SimplexView) and view.picture is None
    e.buttons["step"].click()
    heights_before = [bar.get_height() for bar in view._beta]
    e.buttons["step"].click()
    block, p = e.state.block, view.picture
    assert not block.skipped and p is not None
    # the picture is the state's block, in Blondel's scale: beta_hat, z, beta, theta
    np.testing.assert_array_equal(p.beta_hat, np.asarray(block.beta_hat))
    np.testing.assert_array_equal(p.beta, np.asarray(block.beta))
    assert p.theta == block.theta and p.z == block.z
    # ... and it is the projection: theta by bisection, beta = max(beta_hat - theta, 0), mass z = C ||x_i||
    r = math.sqrt(float(e.problem.sqnorm[e.state.i]))
    assert p.z == pytest.approx(e.problem.C * r, rel=1e-14)
    theta = _bisect_theta(p.beta_hat, p.z)
    assert p.theta == pytest.approx(theta, abs=1e-9)
    np.testing.assert_allclose(p.beta, np.maximum(p.beta_hat - theta, 0.0), atol=1e-9)
    # what is drawn: the bars sorted by beta_hat, the dashed line at theta
    order = np.argsort(-p.beta_hat, kind="stable")
    np.testing.assert_allclose([bar.get_height() for bar in view._hat], p.beta_hat[order])
    np.testing.assert_allclose([bar.get_height() for bar in view._beta], p.beta[order])
    assert view.theta_line.get_ydata()[0] == pytest.approx(theta, abs=1e-9)
    assert [bar.get_height() for bar in view._beta] != heights_before
    assert f"\u03b8 = {p.theta:.3g}" in e.ax_step.get_title()
    # the block's move is the projection undone: delta = C_i - beta ||x_i|| ... in the course's scale
    i = e.state.i
    upper = np.where(np.arange(e.problem.k) == block.y, e.problem.C, 0.0)
    np.testing.assert_allclose(np.asarray(e.state.alpha[i]), upper - p.beta / r, atol=1e-12)


def test_the_simplex_explorer_draws_the_same_view():
    from svmteach.widgets import SimplexProjectionExplorer

    ex = SimplexProjectionExplorer()
    ex.sliders["z"].value = 2.0
    p = ex.view.picture
    assert p.theta == pytest.approx(_bisect_theta(ex.beta_hat, 2.0), abs=1e-9)
    assert ex.view.theta_line.get_ydata()[0] == pytest.approx(p.theta)
    ex.buttons["random point"].click()
    assert ex.view.picture.beta_hat.tolist() == ex.beta_hat.tolist()


def test_the_M_slider_rescales_C(blobs):
    X, y = blobs
    e = MulticlassExplorer(X, y, C=1.0, loss="ww", time_budget=math.inf)
    assert "(1, 1)" in e.m_text.value
    e.sliders["M"].value = 0.5
    assert e.problem.M == pytest.approx(0.5) and e.state.gap <= e.tol
    M, C = e.problem.M, e.problem.C
    assert f"(1, {C * M * M:.3g})" in e.m_text.value and "W = V / M" in e.m_text.value
    assert "M = 0.5" in e.ax_data.get_title()
    # the problem (1, C M^2), solved independently: V / M is the explorer's W within what the gaps allow
    rescaled = MulticlassProblem(X, y, C=C * M * M, loss="ww", M=1.0)
    r = solve(WWExact(random_state=1), rescaled, tol=1e-10, max_iter=10**7)
    W = np.asarray(e.state.W)
    allowed = math.sqrt(2 * (e.state.primal - e.state.dual)) + math.sqrt(2 * max(r.primal - r.dual, 0)) / M
    assert np.linalg.norm(W - np.asarray(r.state.W) / M) <= allowed
    assert e.state.primal == pytest.approx(r.primal / M**2, rel=2 * e.tol)
    # the M slider is Weston-Watkins' only
    e.dropdowns["loss"].value = "cs"
    assert e.sliders["M"].disabled and "has none" in e.m_text.value
    e.dropdowns["loss"].value = "ww"
    assert not e.sliders["M"].disabled


def test_the_loss_dropdown_offers_every_loss_and_llw_draws_its_classifier(blobs):
    X, y = blobs
    e = MulticlassExplorer(X, y, C=1.0, loss="ww", time_budget=math.inf)
    assert e.dropdowns["loss"].options == tuple(LOSSES)
    e.dropdowns["loss"].value = "llw"
    assert e.problem.loss == "llw" and e.step_view is None
    e.buttons["10 steps"].click()
    assert e.state.n_iter == 10
    e.buttons["to convergence"].click()
    assert e.state.gap <= e.tol
    # the regions drawn against an independent classifier: argmax of the scores of W solved to 1e-8
    ref = solve(ExactBlock(random_state=5), MulticlassProblem(X, y, C=1.0, loss="llw"), tol=1e-8, max_iter=10**7)
    assert ref.converged
    W = np.asarray(ref.state.W)
    _, _, grid = e._grid
    S = grid @ W.T
    top2 = np.sort(S, axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 0.05 * np.abs(S).max()  # away from the lines where two scores tie
    drawn = np.asarray(e._regions.get_array()).ravel()
    assert clear.mean() > 0.8
    np.testing.assert_array_equal(drawn[clear], np.argmax(S[clear], axis=1))
    # and in the rendered image: cells away from the points and the lines show one colour per class, a
    # different one for each class
    from collections import Counter

    e.fig.canvas.draw()
    img = np.asarray(e.fig.canvas.buffer_rgba())[..., :3]
    far = np.min(np.linalg.norm(grid[:, None, :] - X[None, :, :], axis=2), axis=1) > 0.4
    seen = {}
    for idx in np.flatnonzero(clear & far):
        px, py = e.ax_data.transData.transform(grid[idx])
        seen.setdefault(int(np.argmax(S[idx])), Counter())[tuple(img[img.shape[0] - 1 - int(py), int(px)])] += 1
    assert len(seen) == e.problem.k
    majority = {c: counts.most_common(1)[0] for c, counts in seen.items()}
    assert all(n >= 0.9 * sum(seen[c].values()) for c, (_, n) in majority.items())
    assert len({colour for colour, _ in majority.values()}) == e.problem.k


def test_moving_C_warm_starts_and_reaches_the_optimum_at_C_1000(blobs):
    X, y = blobs
    e = MulticlassExplorer(X, y, C=1.0, loss="ww", solver="exact", time_budget=math.inf)
    e.buttons["to convergence"].click()
    start = e.state.n_iter
    e.sliders["C"].value = 1000.0
    assert e.problem.C == pytest.approx(1000.0) and e.state.gap <= e.tol
    assert "warm start from the solution at C = 1" in e.status.text
    # the dual reached is the QP oracle's optimum to the gap
    opt = ww_dual_optimum(X, np.asarray(e.problem.codes), e.problem.C, e.problem.M)
    assert e.state.dual <= opt * (1 + 1e-9) and e.state.primal >= opt * (1 - 1e-9)
    assert (opt - e.state.dual) <= e.tol * e.state.primal
    # far fewer visits than a start from the old alpha as it is (4.8 million on this data; a million visits
    # left the gap at 5e-2 before)
    assert e.state.n_iter - start < 500_000
    assert e.history[0][0] == start  # the curves start again at the warm-started state


def test_a_C_move_that_cannot_finish_says_how_far_it_got(blobs):
    X, y = blobs
    e = MulticlassExplorer(X, y, C=1.0, loss="ww", time_budget=1e-9)  # one epoch a press
    e.sliders["C"].value = 1000.0
    assert e.state.gap > e.tol
    assert "Not converged" in e.status.text and "epochs closed the gap" in e.status.text
    assert f"{e.state.gap:.1e}" in e.status.text


def test_sizes_and_legend(blobs):
    X, y = blobs
    e = MulticlassExplorer(X, y, size="classroom")
    assert e.fig.get_figwidth() * e.fig.dpi == pytest.approx(840)
    for ax in (e.ax_data, e.ax_step, e.ax_alpha, e.ax_curve):
        labels = ax.get_xticklabels() + ax.get_yticklabels()
        assert all(t.get_fontsize() * e.fig.dpi / 72 >= 14 for t in labels)
    names = [h.get_label() for h in e._legend_handles()]
    assert {"support vector", "sample just visited", "Shark's moves", "exact block"} <= set(names)
    assert all(f"class {c}" in names for c in np.unique(y))
    with pytest.raises(ValueError, match="^size must be one of"):
        MulticlassExplorer(X, y, size="huge")
    with pytest.raises(ValueError, match="^M must be a number between 0.1 and 10"):
        MulticlassExplorer(X, y, M=0.0)


def test_titles_stay_inside_the_figure_after_switches_and_moves(blobs):
    X, y = blobs
    e = MulticlassExplorer(X, y, C=1.0, loss="ww")

    def inside():
        e.fig.canvas.draw()
        height = e.fig.bbox.height
        for ax in (e.ax_data, e.ax_step, e.ax_alpha, e.ax_curve):
            box = ax.title.get_window_extent()
            assert ax.get_title() == "" or (0 <= box.y0 and box.y1 <= height), (ax.get_title(), box, height)

    e.buttons["step"].click()
    inside()
    data_axes = e.ax_data.get_position().bounds
    e.sliders["C"].value = 3.0  # a move of C keeps the artists and the layout
    assert e.ax_data.get_position().bounds == data_axes
    inside()
    e.dropdowns["loss"].value = "cs"  # a new step view: the panels placed again, with their titles
    e.buttons["step"].click()
    inside()


def test_a_block_that_barely_moves_says_it_is_already_optimal(blobs):
    """At the optimum a visit moves alpha_i by rounding only: the step panel says "already optimal" and
    shows the whole box [0, C]^2 (zoomed in, it was a flat line on a 1e-6 axis with an offset label)."""
    from svmteach.viz.shark_path import STILL, block_movement

    X, y = blobs
    e = MulticlassExplorer(X, y, C=1.0, loss="ww", solver="shark", time_budget=math.inf)
    e.buttons["to convergence"].click()
    seen = 0
    for _ in range(30):
        e.buttons["step"].click()
        p = e.step_view.picture
        moved = max(np.abs(p.shark_after - p.before).max(), np.abs(p.exact_after - p.before).max())
        assert block_movement(p) == pytest.approx(moved)
        C = float(e.problem.C_i[p.i])
        if moved <= STILL * C:
            seen += 1
            assert "already optimal" in e.step_view.note.get_text() and "already optimal" in e.ax_step.get_title()
            assert e.ax_step.get_xlim() == pytest.approx((-0.1 * C, 1.1 * C))
        else:
            assert e.step_view.note.get_text() == ""
            assert np.ptp(e.ax_step.get_xlim()) < 1.3 * C
    assert seen > 0
    e.fig.canvas.draw()
    assert e.ax_step.xaxis.get_offset_text().get_text() == "" and e.ax_step.yaxis.get_offset_text().get_text() == ""


# ---- the kernel and gamma controls (issue 29) ----------------------------------------------------

def _rings(n=45, seed=0):
    return data.rings(n, seed=seed)


def test_the_kernel_and_gamma_controls_are_the_binary_explorers(blobs):
    from svmteach.widgets import BinaryExplorer

    X, y = blobs
    e = MulticlassExplorer(X, y, C=1.0, loss="ww")
    b = BinaryExplorer(X[y < 2], np.where(y[y < 2] == 0, -1, 1))
    assert e.dropdowns["kernel"].options == b.dropdowns["kernel"].options
    for name in ("value", "min", "max", "step", "base", "description", "continuous_update"):
        assert getattr(e.sliders["gamma"], name) == getattr(b.sliders["gamma"], name), name
    # the default is today's explorer: the linear kernel (gamma greyed out), every solver of the loss
    assert e.problem.kernel.is_linear and e.sliders["gamma"].disabled
    assert "parallel" in e.dropdowns["solver"].options and "\u03b3" not in e.ax_data.get_title()
    # a kernel: the parallel solver (which refuses kernels) is not offered; the one shown gives way to the first
    e.dropdowns["solver"].value = "parallel"
    e.dropdowns["kernel"].value = "gaussian"
    assert e.problem.kernel.name == "gaussian" and e.problem.kernel.gamma == pytest.approx(1.0)
    assert "parallel" not in e.dropdowns["solver"].options and e.dropdowns["solver"].value == "exact"
    assert not e.sliders["gamma"].disabled and "\u03b3 = 1" in e.ax_data.get_title()
    # a solver that takes the kernel stays across a kernel switch
    e.dropdowns["solver"].value = "shark"
    e.dropdowns["kernel"].value = "laplacian"
    assert e.dropdowns["solver"].value == "shark" and e.problem.kernel.name == "laplacian"
    # a move of gamma is a new problem, and the run starts again from alpha = 0
    e.buttons["10 steps"].click()
    e.sliders["gamma"].value = 3.0
    assert e.problem.kernel.gamma == pytest.approx(3.0, rel=1e-6) and e.state.n_iter == 0
    assert not np.asarray(e.state.alpha).any()
    with pytest.raises(ValueError, match="solver must be one of"):
        MulticlassExplorer(X, y, kernel="rbf", solver="parallel")
    assert MulticlassExplorer(X, y, kernel="rbf", gamma=0.5).dropdowns["kernel"].value == "gaussian"


def test_a_C_move_with_a_kernel_warm_starts_to_the_explicit_feature_maps_optimum():
    from test_kernel_multiclass import explicit_optimum

    from svmteach import multiclass_model
    from svmteach.kernels import make_kernel

    X, y = _rings()
    e = MulticlassExplorer(X, y, C=1.0, loss="ww", kernel="rbf", gamma=1.0, time_budget=math.inf)
    e.buttons["to convergence"].click()
    e.sliders["C"].value = 10.0
    assert e.problem.C == pytest.approx(10.0) and e.state.gap <= e.tol
    assert "warm start from the solution at C = 1" in e.status.text
    D, _ = explicit_optimum(X, y, e.problem.C, "ww", make_kernel("rbf", 1.0), 0.0)  # Clarabel, no intercept
    assert e.state.dual <= D * (1 + 1e-9) and D - e.state.dual <= e.tol * e.state.primal
    # the training scores the state keeps are those of its alpha
    np.testing.assert_allclose(np.asarray(e.state.W), multiclass_model.model(e.problem, e.state.alpha), atol=1e-9)
    # a click adds a point and goes on from the solution shown: the old rows of alpha kept, the new one 0
    before = np.asarray(e.state.alpha).copy()
    e.add_point(0.0, 0.0, 2)
    np.testing.assert_allclose(np.asarray(e.state.alpha)[:-1], before, atol=1e-12)
    assert not np.asarray(e.state.alpha)[-1].any() and e.problem.kernel.name == "gaussian"
    np.testing.assert_allclose(np.asarray(e.state.W), multiclass_model.model(e.problem, e.state.alpha), atol=1e-9)
