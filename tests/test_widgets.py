"""The explorers driven as a user would: set sliders, click buttons, look at the state and the figure."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from svmteach import data  # noqa: E402
from svmteach.widgets import BinaryExplorer  # noqa: E402


@pytest.fixture
def explorer():
    X, y = data.overlapping_blobs(40, seed=1)
    return BinaryExplorer(X, y, C=1.0)


def test_controls_exist(explorer):
    assert set(explorer.buttons) == {"step", "10 steps", "to convergence", "reset"}
    assert {"C", "gamma"} <= set(explorer.sliders) and {"kernel", "solver", "selection"} <= set(explorer.dropdowns)
    assert explorer.widget.children and explorer.state.n_iter == 0


def test_step_buttons_advance_the_state_and_the_figure(explorer):
    def bars():  # the heights of the alpha bars (one collection of vertical segments)
        return [seg[1][1] for seg in explorer.ax_alpha.collections[0].get_segments()]

    bars_before = bars()
    explorer.buttons["step"].click()
    assert explorer.state.n_iter == 1 and explorer.state.i >= 0
    explorer.buttons["10 steps"].click()
    assert explorer.state.n_iter == 11
    np.testing.assert_allclose(bars(), explorer.state.alpha)  # the bars are the state's alphas
    assert bars() != bars_before and "step 11" in explorer.ax_data.get_title()
    assert "step 11" in explorer.status.text


def test_to_convergence_and_reset(explorer):
    explorer.buttons["to convergence"].click()
    assert explorer.state.gap <= explorer.tol
    explorer.buttons["reset"].click()
    assert explorer.state.n_iter == 0 and np.all(explorer.state.alpha == 0)


def test_moving_C_resolves_and_changes_the_solution(explorer):
    explorer.buttons["to convergence"].click()
    alpha_1 = explorer.state.alpha.copy()
    explorer.sliders["C"].value = 0.01
    assert explorer.problem.C == pytest.approx(0.01)
    assert explorer.state.gap <= explorer.tol and explorer.state.alpha.max() <= 0.01 + 1e-12
    assert not np.allclose(explorer.state.alpha, alpha_1)
    assert "C = 0.01" in explorer.ax_data.get_title()


def test_kernel_solver_and_rule_controls(explorer):
    explorer.dropdowns["kernel"].value = "gaussian"
    assert explorer.problem.kernel.name == "gaussian"
    explorer.sliders["gamma"].value = 2.0
    assert explorer.problem.kernel.gamma == pytest.approx(2.0)
    explorer.dropdowns["solver"].value = "dual_cd"
    explorer.buttons["step"].click()
    assert type(explorer.state).__name__ == "DualCDState"
    explorer.dropdowns["solver"].value = "smo"
    explorer.dropdowns["selection"].value = "random"
    explorer.buttons["10 steps"].click()
    assert explorer.solver.selection == "random" and explorer.state.n_iter == 10


def test_play_steps_and_points_can_be_added(explorer):
    explorer.play.value = 1
    explorer.play.value = 2
    assert explorer.state.n_iter == 2
    n = len(explorer.X)
    explorer.add_point(0.0, 3.0, positive=False)
    assert len(explorer.problem.X) == n + 1 and explorer.problem.y[-1] == -1.0 and explorer.state.n_iter == 2


@pytest.mark.parametrize("solver", ["smo", "dual_cd", "primal_subgradient"])
def test_a_click_keeps_the_solution_warm_starts_and_marks_the_new_point(solver):
    """Adding a point goes on from the solution shown: the state after the click is the solver's warm start
    from the previous alpha with alpha = 0 for the new point (the step count carries on, nothing restarts
    at 0), and a black square is drawn at the click."""
    from types import SimpleNamespace

    X, y = data.overlapping_blobs(40, seed=1)
    ex = BinaryExplorer(X, y, C=1.0, solver=solver)
    ex.buttons["10 steps"].click()
    before, n, steps = np.array(ex.state.alpha), len(ex.y), ex.state.n_iter
    ex._on_click(SimpleNamespace(inaxes=ex.ax_data, xdata=0.25, ydata=-0.5, button=1, key=None))
    assert ex.state.n_iter == steps and len(ex.state.alpha) == n + 1
    expected = ex.solver.warm_start(ex.problem, ex.solver.init(ex.problem)._replace(
        alpha=np.append(before, 0.0), n_iter=steps))
    np.testing.assert_allclose(ex.state.alpha, expected.alpha)
    np.testing.assert_allclose(ex.state.alpha[:n], before)  # already feasible: kept as it was
    assert ex.state.alpha[n] == 0.0 and ex.state.primal == pytest.approx(expected.primal)
    np.testing.assert_allclose(ex._added.get_offsets(), [[0.25, -0.5]])  # the mark is at the click
    assert ex._added.get_visible() and ex._added.get_paths()  # drawn as a marker
    assert "point added at (0.25, -0.50)" in ex.status.text and "warm start" in ex.status.text
    assert len(ex.history) == 12  # the curves go on
    ex.buttons["step"].click()
    assert ex.state.n_iter == steps + 1
    ex.remove_point(0.25, -0.5)  # removing restarts and the mark goes
    assert len(ex._added.get_offsets()) == 0


def test_a_multiclass_click_keeps_the_solution_and_marks_the_new_point(multi):
    multi.buttons["10 steps"].click()
    before, n = np.array(multi.state.alpha), len(multi.y)
    multi.add_point(0.5, 0.5, multi.labels[1])
    assert multi.state.n_iter == 10 and multi.state.alpha.shape == (n + 1, 3)
    np.testing.assert_allclose(multi.state.alpha[:n], before)
    np.testing.assert_array_equal(multi.state.alpha[n], 0.0)
    np.testing.assert_allclose(multi._added.get_offsets(), [[0.5, 0.5]])


def test_the_rule_dropdown_is_active_only_for_a_solver_with_a_rule(explorer):
    assert not explorer.dropdowns["selection"].disabled  # SMO's working-set rule
    for solver in ("dual_cd", "primal_subgradient"):
        explorer.dropdowns["solver"].value = solver
        assert explorer.dropdowns["selection"].disabled
    explorer.dropdowns["solver"].value = "smo"
    assert not explorer.dropdowns["selection"].disabled


def test_the_status_line_keeps_numbers_whole_and_prints_no_negative_zero():
    from svmteach.widgets.figure import NOWRAP, StatusLine, nowrap_numbers

    line = StatusLine()
    line.value = "<b>smo</b> step 3: primal 1.5, dual -0, relative gap 8.68e-01, x -0.00e+00"
    line.value += " (stopped at the time budget of 3 s)"
    assert line.text == "smo step 3: primal 1.5, dual 0, relative gap 8.68e-01, x 0.00e+00 (stopped at the time budget of 3 s)"
    for number in ("3", "1.5", "0", "8.68e-01", "0.00e+00"):
        assert f"{NOWRAP}{number}</span>" in line.value
    assert nowrap_numbers(line.value) == line.value  # wrapped once
    assert " -0" not in line.text


def test_an_explorer_at_the_start_says_dual_0_not_minus_0(explorer):
    assert explorer.state.n_iter == 0 and explorer.state.dual == 0
    assert "dual 0," in explorer.status.text and "dual -0" not in explorer.status.text


def test_clicks_on_the_plot_add_points_of_either_class(explorer):
    from types import SimpleNamespace

    n = len(explorer.X)
    explorer._on_click(SimpleNamespace(inaxes=explorer.ax_data, xdata=1.0, ydata=2.0, button=1, key=None))
    explorer._on_click(SimpleNamespace(inaxes=explorer.ax_data, xdata=-1.0, ydata=0.5, button=1, key="shift"))
    explorer._on_click(SimpleNamespace(inaxes=explorer.ax_alpha, xdata=0.0, ydata=0.0, button=1, key=None))
    assert len(explorer.X) == n + 2
    assert list(explorer.problem.y[-2:]) == [1.0, -1.0]


def test_simplex_projection_explorer():
    from svmteach.widgets import SimplexProjectionExplorer

    ex = SimplexProjectionExplorer(beta_hat=[2.5, 1.8, 0.9, 0.4, -0.3], z=4.0)
    np.testing.assert_allclose(ex.state["beta"], [2.1, 1.4, 0.5, 0.0, 0.0])
    assert ex.state["theta"] == pytest.approx(0.4)
    bars = ex._artists[1]
    ex.sliders["z"].value = 1.0  # a smaller mass: a higher threshold, fewer entries kept
    assert ex.state["theta"] == pytest.approx(1.65) and ex.state["support"].sum() == 2
    np.testing.assert_allclose(sorted((b.get_height() for b in bars), reverse=True), [0.85, 0.15, 0, 0, 0])
    assert ex._artists[1] is bars  # updated in place, not re-created
    ex.buttons["random point"].click()
    assert ex.state["beta"].sum() == pytest.approx(1.0) and np.all(ex.state["beta"] >= 0)
    with pytest.raises(ValueError, match="^beta_hat must be a 1-D vector"):
        SimplexProjectionExplorer(beta_hat=[1.0])


def _click(ax, x, y, button=1, key=None):
    from types import SimpleNamespace

    return SimpleNamespace(inaxes=ax, xdata=x, ydata=y, button=button, key=key)


def test_points_can_be_removed_by_click_mode_or_ctrl_click(explorer):
    n = len(explorer.X)
    target = explorer.X[5]
    explorer.dropdowns["click"].value = "remove"
    explorer._on_click(_click(explorer.ax_data, *target))
    assert len(explorer.problem.X) == n - 1
    assert not np.any(np.all(explorer.problem.X == target, axis=1))  # the nearest point went
    explorer.dropdowns["click"].value = "add -1"
    explorer._on_click(_click(explorer.ax_data, 0.5, 0.5))
    assert explorer.problem.y[-1] == -1.0
    explorer._on_click(_click(explorer.ax_data, 0.5, 0.5, key="control"))  # ctrl-click removes whatever the mode
    assert len(explorer.problem.X) == n - 1
    # the last point of a class stays
    two = BinaryExplorer([[0.0, 0.0], [1.0, 1.0], [1.2, 1.0]], [1, -1, -1])
    two.remove_point(0.0, 0.0)
    assert len(two.X) == 3 and "last of its class" in two.status.text


# ---- MulticlassExplorer -----------------------------------------------------------------------

@pytest.fixture
def multi():
    from svmteach.widgets import MulticlassExplorer

    X, y = data.multiclass_blobs(45, k=3, seed=2)
    return MulticlassExplorer(X, y, C=1.0)


def test_multiclass_explorer_steps_and_bars(multi):
    from svmteach import objectives as obj

    assert set(multi.buttons) == {"step", "10 steps", "to convergence", "reset"}
    assert {"C"} <= set(multi.sliders) and {"loss", "solver", "click"} <= set(multi.dropdowns)
    multi.buttons["step"].click()
    assert multi.state.n_iter == 1 and multi.state.i >= 0
    multi.buttons["10 steps"].click()
    assert multi.state.n_iter == 11 and "step 11" in multi.status.text
    weights = [p.get_height() for p in multi.ax_alpha.patches]
    Y = obj.one_hot(multi.problem)
    np.testing.assert_allclose(weights, -multi.state.alpha[Y])  # WW: sum_{j != y} alpha_ij
    multi.buttons["to convergence"].click()
    assert multi.state.gap <= multi.tol
    multi.play.value = 1
    assert multi.state.n_iter > 11


def test_multiclass_explorer_loss_solver_and_C(multi):
    multi.dropdowns["loss"].value = "cs"
    assert multi.dropdowns["solver"].options == ("blondel", "parallel")
    assert type(multi.state).__name__ == "CSBlondelState" and multi.problem.loss == "cs"
    multi.dropdowns["solver"].value = "parallel"
    multi.buttons["10 steps"].click()
    assert type(multi.state).__name__ == "ParallelBlockState" and multi.state.n_iter == 10
    multi.sliders["C"].value = 10.0
    assert multi.problem.C == pytest.approx(10.0) and multi.state.gap <= multi.tol
    assert "C = 10" in multi.ax_data.get_title()
    multi.buttons["reset"].click()
    assert multi.state.n_iter == 0


def test_multiclass_explorer_clicks(multi):
    n = len(multi.X)
    multi.dropdowns["click"].value = "add 2"
    multi._on_click(_click(multi.ax_data, 0.0, 0.0))
    assert len(multi.X) == n + 1 and multi.y[-1] == 2
    multi._on_click(_click(multi.ax_data, 0.0, 0.0, button=3))  # right click: the next class
    assert multi.y[-1] == 0
    multi._on_click(_click(multi.ax_data, 0.0, 0.0, key="control"))
    assert len(multi.X) == n + 1
    with pytest.raises(ValueError, match="^label must be one of the classes"):
        multi.add_point(0.0, 0.0, 7)


def test_multiclass_explorer_bad_input():
    from svmteach.widgets import MulticlassExplorer

    X, y = data.multiclass_blobs(30, k=3)
    with pytest.raises(ValueError, match="^X must hold 2-D points"):
        MulticlassExplorer(np.hstack([X, X]), y)
    with pytest.raises(ValueError, match="^solver must be one of"):
        MulticlassExplorer(X, y, loss="cs", solver="shark")
    with pytest.raises(ValueError, match="^loss must be one of"):
        MulticlassExplorer(X, y, loss="svm")


# ---- RLSPathExplorer --------------------------------------------------------------------------

def test_rls_path_explorer_matches_direct_solves_and_loo():
    from sklearn.kernel_ridge import KernelRidge

    from svmteach.widgets import RLSPathExplorer

    X, y = data.moons(60, seed=0)
    ex = RLSPathExplorer(X, y, gamma=2.0, lams=np.logspace(-3, 1, 21))
    assert set(ex.sliders) == {"lambda", "gamma"} and set(ex.buttons) == {"best lambda"}
    assert ex.state["lam"] == ex.state["best_lam"] == ex.lams[int(np.argmin(ex.state["loo_mse"]))]
    ex.sliders["lambda"].value = 0.1
    lam = ex.state["lam"]
    assert lam == pytest.approx(0.1)
    ref = KernelRidge(alpha=lam, kernel="rbf", gamma=2.0).fit(X, np.where(y > 0, 1.0, -1.0))
    np.testing.assert_allclose(ex.state["coef"][:, 0], ref.dual_coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(ex.decision(X[:5])[:, 0], ref.predict(X[:5]), rtol=1e-6, atol=1e-9)
    assert ex._markers[0].get_xdata()[0] == pytest.approx(lam)  # the path's marker moved
    # leave-one-out against a brute-force refit for one sample
    i, Y = 7, np.where(y > 0, 1.0, -1.0)
    keep = np.arange(len(y)) != i
    f_i = KernelRidge(alpha=lam, kernel="rbf", gamma=2.0).fit(X[keep], Y[keep]).predict(X[i:i + 1])[0]
    index = ex.state["index"]
    resid = Y - np.array([KernelRidge(alpha=lam, kernel="rbf", gamma=2.0).fit(X[np.arange(len(y)) != j],
                          Y[np.arange(len(y)) != j]).predict(X[j:j + 1])[0] for j in range(len(y))])
    assert ex.state["loo_mse"][index] == pytest.approx(np.mean(resid ** 2), rel=1e-6)
    assert Y[i] - f_i == pytest.approx(resid[i])
    ex.sliders["gamma"].value = 0.5
    assert ex.state["gamma"] == pytest.approx(0.5) and ex.state["lam"] == pytest.approx(lam)
    ex.buttons["best lambda"].click()
    assert ex.state["lam"] == ex.state["best_lam"]


def test_rls_path_explorer_multiclass_and_bad_input():
    from svmteach.widgets import RLSPathExplorer

    X, y = data.multiclass_blobs(45, k=3, seed=1)
    ex = RLSPathExplorer(X, y, kernel="linear", lams=[0.01, 0.1, 1.0])
    assert ex.state["coef"].shape == (45, 3) and ex.state["path"].shape == (3, 45, 3)
    with pytest.raises(ValueError, match="^lams must be increasing"):
        RLSPathExplorer(X, y, lams=[1.0, 0.1])
    with pytest.raises(ValueError, match="^X must hold 2-D points"):
        RLSPathExplorer(np.hstack([X, X]), y)


def test_curves_show_primal_dual_and_gap(explorer):
    explorer.buttons["10 steps"].click()
    primal, dual, gap = (line.get_ydata() for line in explorer._curves)
    # the relative gap (a ratio, 1 at the start) on its own axis, labelled, not on the objectives' axis
    assert explorer._curves[2].axes is explorer.ax_gap is not explorer.ax_curve
    assert [line.axes for line in explorer._curves[:2]] == [explorer.ax_curve] * 2
    assert explorer.ax_gap.get_ylabel().startswith("relative gap") and explorer._curves[2].get_label() == "relative gap"
    assert "gap" not in explorer.ax_curve.get_ylabel() and "gap" not in explorer.ax_curve.get_title()
    gap_limits = explorer.ax_gap.get_ylim()
    assert gap_limits[0] <= np.nanmin(gap) and gap_limits[1] >= np.nanmax(gap)
    h = np.array(explorer.history)
    np.testing.assert_allclose(primal, np.log10(h[:, 1]))
    np.testing.assert_allclose(gap, np.log10(np.maximum(h[:, 3], 1e-16)))
    assert np.isnan(dual[0]) and np.allclose(dual[1:], np.log10(h[1:, 2]))  # the dual starts at 0: not drawn
    assert explorer.ax_curve.get_xlim()[0] <= 0 and explorer.ax_curve.get_xlim()[1] >= 10  # every step in view


def test_converge_says_when_it_stops_short(multi):
    multi.converge(max_steps=5)
    assert multi.state.gap > multi.tol and multi.state.n_iter == 5
    assert "stopped at the step limit of 5, 5 steps this time" in multi.status.text


# ---- what a notebook shows, and input an explorer refuses -------------------------------------

def test_explorers_display_a_hint_as_plain_text(explorer, multi):
    from svmteach.widgets import RLSPathExplorer, SimplexProjectionExplorer
    from svmteach.widgets.figure import HINT

    X, y = data.moons(30, seed=0)
    for ex in (explorer, multi, RLSPathExplorer(X, y, lams=[0.1, 1.0]), SimplexProjectionExplorer()):
        for shown in (ex, ex.widget):  # a cell may end with the explorer or with its widget
            bundle = shown._repr_mimebundle_()
            assert bundle["text/plain"] == HINT
            assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == ex.widget.model_id


def test_the_hint_says_run_the_cells_inside_jupyterlab():
    from svmteach.widgets.figure import HINT

    assert "run the cells above" in HINT and "svmteach lab" in HINT and "run this notebook in JupyterLab" not in HINT


def test_committed_notebooks_show_the_hint_for_every_explorer():
    """Read on GitHub or nbviewer, an explorer cell shows the hint, never ``VBox(children=...)``."""
    import json
    from pathlib import Path

    from svmteach.widgets.figure import HINT

    seen = 0
    for path in sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            for out in cell.get("outputs", []):
                plain = "".join(out.get("data", {}).get("text/plain", ""))
                if "application/vnd.jupyter.widget-view+json" in out.get("data", {}) and "Explorer" in "".join(cell["source"]):
                    seen += 1
                    assert plain == HINT, (path.name, plain[:60])
                assert "VBox(" not in plain, path.name
    assert seen >= 6


def test_binary_explorer_refuses_points_that_are_not_2d():
    X, y = data.overlapping_blobs(20, seed=0)
    for bad in (X[:, :1], np.hstack([X, X[:, :1]])):
        with pytest.raises(ValueError, match="^X must hold 2-D points"):
            BinaryExplorer(bad, y)


@pytest.mark.parametrize("alias, name", [("rbf", "gaussian"), ("poly", "polynomial"), ("gaussian", "gaussian")])
def test_binary_explorer_accepts_kernel_aliases(alias, name):
    X, y = data.overlapping_blobs(20, seed=0)
    ex = BinaryExplorer(X, y, kernel=alias)
    assert ex.dropdowns["kernel"].value == name and ex.problem.kernel.name == name
    ex.buttons["step"].click()
    assert ex.state.n_iter == 1


def test_binary_explorer_bad_choices_name_the_argument():
    X, y = data.overlapping_blobs(20, seed=0)
    with pytest.raises(ValueError, match="kernel"):
        BinaryExplorer(X, y, kernel="sigmoid")
    with pytest.raises(ValueError, match="^solver must be one of"):
        BinaryExplorer(X, y, solver="pegasos")
    with pytest.raises(ValueError, match="^time_budget must be a positive number"):
        BinaryExplorer(X, y, time_budget=0)


@pytest.mark.parametrize("point", [(np.nan, 0.0), (0.0, np.inf), (-np.inf, np.nan)])
def test_adding_a_non_finite_point_is_refused_and_changes_nothing(explorer, multi, point):
    X, y = explorer.X.copy(), explorer.y.copy()
    with pytest.raises(ValueError, match="^x1, x2 must be finite numbers"):
        explorer.add_point(*point)
    np.testing.assert_array_equal(explorer.X, X)
    np.testing.assert_array_equal(explorer.y, y)
    explorer.buttons["10 steps"].click()  # the explorer still works
    explorer.sliders["C"].value = 0.1
    assert np.all(np.isfinite(explorer.state.alpha)) and explorer.state.gap <= explorer.tol
    n = len(multi.X)
    with pytest.raises(ValueError, match="^x1, x2 must be finite numbers"):
        multi.add_point(*point, multi.labels[0])
    assert len(multi.X) == n and np.all(np.isfinite(multi.X))


def test_a_C_move_of_the_subgradient_explorer_stops_at_its_time_budget():
    """At C = 1000 the subgradient method needs millions of steps: the move stops at the explorer's
    budget (here half a second), says so, and 'to convergence' goes on from there."""
    X, y = data.overlapping_blobs(40, seed=1)
    ex = BinaryExplorer(X, y, solver="primal_subgradient", time_budget=0.5)
    ex.sliders["C"].value = 1000.0
    assert ex.problem.C == pytest.approx(1000.0) and ex.state.gap > ex.tol
    first = ex.state.n_iter
    assert first > 0 and "stopped at the time budget of 0.5 s" in ex.status.text
    assert f"step {first}:" in ex.status.text and len(ex.history) == first + 1
    ex.buttons["to convergence"].click()
    assert ex.state.n_iter > first and "stopped at the time budget of 0.5 s" in ex.status.text
    assert f"{ex.state.n_iter - first} steps this time" in ex.status.text


def test_every_press_makes_progress_however_small_the_budget():
    """A budget used up before the first epoch (a loaded machine, a paused process) must not make a
    press a no-op: the first epoch always runs, then the budget stops the press."""
    X, y = data.overlapping_blobs(40, seed=1)
    ex = BinaryExplorer(X, y, solver="primal_subgradient", time_budget=1e-12)
    for _ in range(3):
        before = ex.state.n_iter
        ex.buttons["to convergence"].click()
        assert ex.state.n_iter > before
        assert "stopped at the time budget" in ex.status.text


def test_a_non_live_explorer_leaves_no_figure_to_pyplot():
    """Inline notebooks print every figure pyplot knows at the next plt.show(): an explorer shown in an
    Output widget must not be one of them (notebook 7 showed a stray copy of the simplex explorer)."""
    import matplotlib.pyplot as plt

    from svmteach.widgets import MulticlassExplorer, RLSPathExplorer, SimplexProjectionExplorer

    before = set(plt.get_fignums())
    X, y = data.multiclass_blobs(30, k=3, seed=0)
    SimplexProjectionExplorer()
    BinaryExplorer(*data.overlapping_blobs(20, seed=0))
    MulticlassExplorer(X, y)
    RLSPathExplorer(X, y, lams=[0.1, 1.0])
    assert set(plt.get_fignums()) == before


# ---- the step views: dual coordinate ascent's parabola, SMO's box -------------------------------

def _dual(X, y, alpha):
    """The binary dual without bias, computed from the data (linear kernel): 1'a - 1/2 ||sum_i a_i y_i x_i||^2."""
    w = X.T @ (alpha * y)
    return float(alpha.sum() - 0.5 * w @ w)


def test_parabola_view_draws_the_step_it_took():
    """Press step: the parabola drawn is the dual along coordinate i (computed from the data), its vertex
    and the clipped point are where the dual is largest on the line and on [0, C], and the drawing moves."""
    X, y = data.overlapping_blobs(30, seed=2)
    ex = BinaryExplorer(X, y, solver="dual_cd", C=1.0)
    view, C = ex.step_view, 1.0
    assert view.picture is None and len(view.curve.get_xdata()) == 0  # no step yet: nothing drawn
    seen = {"inside": 0, "clipped": 0}
    last_curve = None
    for _ in range(40):
        before = np.array(ex.state.alpha, dtype=float)
        ex.buttons["step"].click()
        s, p = ex.state, view.picture
        i = s.i
        assert p.i == i and "coordinate %d" % i in ex.status.text
        # the dual along coordinate i, from the data: D(alpha + (x - alpha_i) e_i) - D(alpha)
        def along(x):
            a = before.copy()
            a[i] = x
            return _dual(X, y, a) - _dual(X, y, before)
        xs, ys = view.curve.get_data()
        np.testing.assert_allclose(ys[::17], [along(x) for x in xs[::17]], rtol=1e-9, atol=1e-12)
        # the vertex: where the quadratic along the line is largest (from three of its values)
        c2, c1, _ = np.polyfit([0.0, 0.5, 1.0], [along(0.0), along(0.5), along(1.0)], 2)
        vertex = -c1 / (2 * c2)
        assert p.unclipped == pytest.approx(vertex, rel=1e-8, abs=1e-10)
        assert p.clipped == pytest.approx(min(max(vertex, 0.0), C), rel=1e-8, abs=1e-10)
        assert p.old == before[i]
        np.testing.assert_allclose(view.after.get_data(), [[p.clipped], [along(p.clipped)]], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(view.before.get_data(), [[before[i]], [0.0]])
        if p.arrow == 0:  # the vertex is in view: drawn where it is, at the top of the curve
            np.testing.assert_allclose(view.vertex.get_data(), [[vertex], [along(vertex)]], rtol=1e-8, atol=1e-12)
            assert xs[np.argmax(ys)] == pytest.approx(vertex, abs=np.ptp(xs) / len(xs))
        else:  # far outside the box: an arrow at the edge, on the vertex's side
            assert view.arrow.get_visible() and np.sign(vertex - 0.5 * C) == p.arrow
        seen["inside" if 0 <= vertex <= C else "clipped"] += 1
        if last_curve is not None:
            assert not np.array_equal(ys, last_curve)  # the drawing changed with the step
        last_curve = ys.copy()
        if min(seen.values()) >= 2:
            break
    assert min(seen.values()) >= 2, seen


def test_parabola_view_marks_a_far_vertex_with_an_arrow():
    """At C = 0.001 the first vertex lies 50 C right of the box: the view stops and an arrow points to it."""
    X, y = data.overlapping_blobs(30, seed=2)
    ex = BinaryExplorer(X, y, solver="dual_cd", C=0.001)
    ex.buttons["step"].click()
    p = ex.step_view.picture
    assert p.unclipped > 50 * p.C and p.arrow == 1 and p.clipped == p.C
    assert ex.step_view.arrow.get_visible() and len(ex.step_view.vertex.get_xdata()) == 0
    assert p.xlim[1] < p.unclipped and "vertex" in ex.step_view.arrow.get_text()
    assert ex.ax_step.get_xlim() == pytest.approx(p.xlim)


def test_smo_box_view_draws_the_pair_its_segment_L_and_H():
    """Press step: the box view shows the pair's segment between L and H (found here by brute force on a
    grid of the box), of slope -y_i y_j, the point before, the unclipped maximiser of the dual along the
    line and the clipped one (the dual's maximiser on the segment, by brute force), and it changes."""
    X, y = data.overlapping_blobs(30, seed=3)
    C = 0.5
    ex = BinaryExplorer(X, y, solver="smo", selection="max_violating_pair", C=C)
    view = ex.step_view
    kinds, last = set(), None
    for _ in range(60):
        before = np.array(ex.state.alpha, dtype=float)
        ex.buttons["step"].click()
        s, p = ex.state, view.picture
        i, j = s.i, s.j
        same = y[i] == y[j]

        def pair(aj):  # the pair's alpha on the constraint line y_i a_i + y_j a_j = const
            a = before.copy()
            a[i] = before[i] + y[i] * y[j] * (before[j] - aj)
            a[j] = aj
            return a

        grid = np.linspace(0.0, C, 20001)
        ai = before[i] + y[i] * y[j] * (before[j] - grid)
        feasible = grid[(ai >= -1e-12) & (ai <= C + 1e-12)]
        assert p.L == pytest.approx(feasible.min(), abs=C / 20000) and p.H == pytest.approx(feasible.max(), abs=C / 20000)
        (xL, yL), (xH, yH) = np.array(view.segment.get_data()).T
        assert (xL, xH) == pytest.approx((p.L, p.H)) and (yH - yL) == pytest.approx(-y[i] * y[j] * (xH - xL))
        assert p.slope == (-1.0 if same else 1.0)
        np.testing.assert_allclose(view.before.get_data(), [[before[j]], [before[i]]])
        # the clipped point: the dual's maximiser over the segment (bias: y'alpha = 0 holds along it)
        on_segment = np.linspace(p.L, p.H, 2001)
        best = on_segment[np.argmax([_dual(X, y, pair(aj)) for aj in on_segment])]
        assert p.after[0] == pytest.approx(best, abs=(p.H - p.L) / 2000 + 1e-12)
        np.testing.assert_allclose(view.after.get_data(), [[s.alpha_j_new], [s.alpha_i_new]])
        np.testing.assert_allclose(np.array(ex.state.alpha)[[j, i]], [s.alpha_j_new, s.alpha_i_new])
        # the unclipped point: the vertex of the dual along the whole line
        c2, c1, _ = np.polyfit([-1.0, 0.0, 1.0], [_dual(X, y, pair(t)) for t in (-1.0, 0.0, 1.0)], 2)
        assert p.unclipped[0] == pytest.approx(-c1 / (2 * c2), rel=1e-7, abs=1e-9)
        assert p.clipped == (not p.L <= p.unclipped[0] <= p.H)
        assert f"pair ({i}, {j})" in ex.status.text and f"pair ({i}, {j})" in ex.ax_step.get_title()
        kinds.add((bool(same), p.clipped))
        drawn = (view.segment.get_data(), view.after.get_data())
        if last is not None:
            assert not all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(drawn, last))
        last = drawn
        if {(True, True), (False, True), (False, False)} <= kinds:
            break
    assert {(True, True), (False, True), (False, False)} <= kinds, kinds


def test_the_subgradient_explorer_has_no_step_view_but_says_why():
    X, y = data.overlapping_blobs(20, seed=0)
    ex = BinaryExplorer(X, y, solver="primal_subgradient")
    ex.buttons["step"].click()
    assert ex.step_view is None and "every" in ex.ax_step.texts[0].get_text()


def test_switching_solver_switches_the_step_view(explorer):
    from svmteach.viz.parabola import ParabolaView
    from svmteach.viz.smo_box import SMOBoxView

    assert isinstance(explorer.step_view, SMOBoxView)
    explorer.dropdowns["solver"].value = "dual_cd"
    explorer.buttons["step"].click()
    assert isinstance(explorer.step_view, ParabolaView) and explorer.step_view.picture.i == explorer.state.i


# ---- warm start, sizes, legend, labels, snapshots -----------------------------------------------

def test_moving_C_warm_starts_from_the_solution_shown(explorer):
    """The move hands the state shown to the solver's warm_start, and the result is the optimum at the
    new C (QP oracle); the step count carries on and the status line says so."""
    from oracles import binary_dual_optimum

    explorer.buttons["to convergence"].click()
    shown, calls = explorer.state, []
    original = explorer.solver.warm_start

    def spy(problem, state):
        calls.append((problem.C, state))
        return original(problem, state)

    explorer.solver.warm_start = spy
    explorer.sliders["C"].value = 0.5
    assert len(calls) == 1 and calls[0][0] == pytest.approx(0.5) and calls[0][1] is shown
    assert explorer.state.n_iter >= shown.n_iter and explorer.history[0][0] == shown.n_iter
    X, y = explorer.problem.X, explorer.problem.y
    optimum, _ = binary_dual_optimum(X @ X.T, y, 0.5, bias=True)
    assert explorer.state.dual == pytest.approx(optimum, rel=1e-4)
    assert explorer.state.alpha.max() <= 0.5 + 1e-12 and abs(explorer.state.alpha @ y) < 1e-9
    assert "warm start from the solution at C = 1" in explorer.status.text


def test_sizes_fit_their_windows_and_classroom_fonts_read_from_the_back():
    from svmteach.widgets.figure import FIGURE_DPI, SIZES

    X, y = data.overlapping_blobs(20, seed=0)
    default = BinaryExplorer(X, y)
    assert default.fig.bbox.width <= 592  # the notebook column of a 1024 px window with the side bar open
    classroom = BinaryExplorer(X, y, solver="dual_cd", size="classroom")
    classroom.buttons["step"].click()
    assert classroom.fig.bbox.width == SIZES["classroom"].width_px
    for ax in classroom.fig.axes:
        for label in ax.get_xticklabels() + ax.get_yticklabels():
            assert label.get_fontsize() * FIGURE_DPI / 72 >= 14  # pixels on the page
        assert ax.title.get_fontsize() * FIGURE_DPI / 72 >= 14
    with pytest.raises(ValueError, match="^size must be one of"):
        BinaryExplorer(X, y, size="huge")


def test_every_panel_is_labelled_and_the_legend_shows_the_kkt_outlines(explorer):
    from svmteach.viz.binary import KKT_OUTLINE
    from svmteach import objectives as obj

    explorer.buttons["10 steps"].click()
    for ax in (explorer.ax_data, explorer.ax_step, explorer.ax_alpha, explorer.ax_curve):
        assert ax.get_xlabel() and ax.get_ylabel()
    # the legend, pasted under the panels: the magenta ring of alpha = C is in its rows of the picture
    explorer.fig.canvas.draw()
    img = np.asarray(explorer.fig.canvas.buffer_rgba())[..., :3].astype(int)
    legend = explorer._legend.get_array()
    band = img[img.shape[0] - 2 - legend.shape[0]:img.shape[0] - 2]
    magenta = np.array([int(KKT_OUTLINE[obj.AT_C][0][k:k + 2], 16) for k in (1, 3, 5)])
    assert np.any(np.all(np.abs(band - magenta) <= 12, axis=-1))
    top = np.min([ax.get_position().y0 for ax in explorer.fig.axes])
    assert top * explorer.fig.bbox.height >= legend.shape[0]  # no panel reaches into the legend


def test_snapshot_is_the_figure_as_png(explorer):
    from IPython.display import Image

    png = explorer.snapshot_png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image as mpimg
    from io import BytesIO

    picture = mpimg.imread(BytesIO(png))
    assert picture.shape[:2] == (round(explorer.fig.bbox.height), round(explorer.fig.bbox.width))
    assert isinstance(explorer.snapshot(), Image)


def test_rls_explorer_error_curves_against_refits():
    """Training, leave-one-out and held-out error rates at every lambda: a scikit-learn KernelRidge refit
    at one lambda agrees on training and held-out data; a larger gamma fits the training data better
    while its held-out error grows (the panel's point)."""
    from sklearn.kernel_ridge import KernelRidge

    from svmteach.widgets import RLSPathExplorer

    X, y = data.moons(120, noise=0.2, seed=0)
    Xt, yt = data.moons(300, noise=0.2, seed=1)
    ex = RLSPathExplorer(X, y, gamma=2.0, lams=np.logspace(-4, 1, 11), X_test=Xt, y_test=yt)
    for gamma in (2.0, 100.0):
        ex.sliders["gamma"].value = gamma
        for index in (0, 5):
            lam = ex.lams[index]
            ref = KernelRidge(alpha=lam, kernel="rbf", gamma=gamma).fit(X, np.where(y > 0, 1.0, -1.0))
            assert ex.state["train_error_rate"][index] == pytest.approx(np.mean(np.where(ref.predict(X) > 0, 1, -1) != y))
            assert ex.state["test_error_rate"][index] == pytest.approx(np.mean(np.where(ref.predict(Xt) > 0, 1, -1) != yt))
        labels = [line.get_label() for line in ex.ax_loo.get_lines()]
        assert {"training", "leave-one-out", "held-out"} <= set(labels)
        held_out = ex.ax_loo.get_lines()[labels.index("held-out")]
        np.testing.assert_allclose(held_out.get_ydata(), ex.state["test_error_rate"])
    assert "held-out" in ex.status.text and ex.ax_loo.get_xlabel() and ex.ax_loo.get_ylabel()
    small = 0  # the smallest lambda: gamma = 100 fits the training data at least as well, and predicts worse
    ex.sliders["gamma"].value = 2.0
    fit_2, test_2 = ex.state["train_error_rate"][small], ex.state["test_error_rate"][small]
    ex.sliders["gamma"].value = 100.0
    assert ex.state["train_error_rate"][small] <= fit_2 and ex.state["test_error_rate"][small] > test_2
    with pytest.raises(ValueError, match="^X_test and y_test must be given together"):
        RLSPathExplorer(X, y, X_test=Xt)
    with pytest.raises(ValueError, match="^y_test's labels must be among"):
        RLSPathExplorer(X, y, X_test=Xt, y_test=np.full(len(Xt), 7))
    with pytest.raises(ValueError, match="^size must be one of"):
        RLSPathExplorer(X, y, size=3)


def test_committed_notebooks_keep_each_explorers_first_picture():
    """Read without a kernel (GitHub, nbviewer) a widget is only text: the cell after every explorer cell
    shows a snapshot of that explorer (its first picture, or a second one's after a few steps) as a PNG."""
    import json
    from pathlib import Path

    seen = 0
    for path in sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        for k, cell in enumerate(cells):
            source = "".join(cell["source"])
            if cell["cell_type"] != "code" or "Explorer(" not in source or ".snapshot()" in source:
                continue
            after = cells[k + 1]
            assert ".snapshot()" in "".join(after["source"]), (path.name, k)
            assert any("image/png" in out.get("data", {}) for out in after.get("outputs", [])), (path.name, k)
            seen += 1
    assert seen >= 6


# ---- text that fits: nothing cut at the figure's edge, no offset labels ------------------------

def _explorers(size):
    from svmteach.widgets import MulticlassExplorer, RLSPathExplorer, SimplexProjectionExplorer

    X, y = data.overlapping_blobs(40, seed=1)
    smo = BinaryExplorer(X, y, C=100.0, size=size)  # "H = 100" at the box's right edge
    smo.buttons["10 steps"].click()
    cd = BinaryExplorer(X, y, C=1.0, solver="dual_cd", size=size)
    cd.buttons["10 steps"].click()
    X4, y4 = data.multiclass_blobs(60, k=4, seed=2)
    ww = MulticlassExplorer(X4, y4, loss="ww", solver="shark", size=size)
    ww.buttons["10 steps"].click()
    cs = MulticlassExplorer(X4, y4, loss="cs", size=size)
    cs.buttons["10 steps"].click()
    sets = MulticlassExplorer(*data.rings(), loss="ww", solver="working_set", kernel="gaussian", size=size)
    sets.buttons["10 steps"].click()  # the working set's panel: its samples along the top, the values by the markers
    return [smo, cd, ww, cs, sets, RLSPathExplorer(X4, y4, lams=[0.01, 0.1, 1.0], size=size),
            SimplexProjectionExplorer(size=size)]


@pytest.mark.parametrize("size", ["notebook", "classroom"])
def test_every_explorer_keeps_its_text_inside_the_figure_and_labels_its_axes(size):
    """Every text the figure shows (titles, labels, tick labels, L and H of SMO's box, notes) lies inside
    the figure, no axis has an offset label ("1e-5+1.439e-1"), and every 2-D panel has both axis labels;
    at every size, the simplex explorer included (its x label was cut)."""
    from matplotlib.text import Text

    from svmteach.widgets.figure import SIZES

    for ex in _explorers(size):
        fig = ex.fig
        fig.canvas.draw()
        assert fig.bbox.width == SIZES[size].width_px
        renderer = fig.canvas.get_renderer()

        def inside(box, what):
            assert box.x0 >= -1 and box.y0 >= -1 and box.x1 <= fig.bbox.width + 1 and box.y1 <= fig.bbox.height + 1, (
                type(ex).__name__, what, box)

        ticks = {id(t.label1) for ax in fig.axes for axis in (ax.xaxis, ax.yaxis) for t in axis.get_major_ticks()}
        ticks |= {id(t.label2) for ax in fig.axes for axis in (ax.xaxis, ax.yaxis) for t in axis.get_major_ticks()}
        for text in fig.findobj(Text):  # titles, axis labels, annotations, notes (tick labels: below)
            if text.get_visible() and text.get_text() and id(text) not in ticks:
                inside(text.get_window_extent(renderer), text.get_text())
        for ax in fig.axes:  # what each panel draws, its tick labels in view included
            inside(ax.get_tightbbox(renderer), ax.get_title() or ax.get_ylabel())
        for ax in fig.axes:
            assert ax.xaxis.get_offset_text().get_text() == "" and ax.yaxis.get_offset_text().get_text() == ""
            if ax.get_xticks().size or ax.get_yticks().size or ax.get_xlabel():  # a panel (not a twin's shadow)
                assert ax.get_ylabel(), (type(ex).__name__, ax.get_title())
                assert ax.get_xlabel() or getattr(ex, "ax_gap", None) is ax, (type(ex).__name__, ax.get_title())


def test_the_gap_axis_labels_never_repeat_when_the_gap_spans_less_than_a_decade(explorer):
    """The explorers' curves use viz.log_ticks: a relative gap from 1 to 0.998 read "0.999" twice with the old labels."""
    explorer.history = [(0, 10.0, 1.0, 1.0), (1, 10.0, 5.0, 0.9995), (2, 10.0, 6.0, 0.998)]
    explorer._update_curves()
    explorer.fig.canvas.draw()
    labels = [t.get_text() for t in explorer.ax_gap.get_yticklabels() if t.get_text()]
    assert len(labels) >= 2 and len(set(labels)) == len(labels), labels
