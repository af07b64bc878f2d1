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
    assert "step 11" in explorer.status.value


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
    assert len(explorer.problem.X) == n + 1 and explorer.problem.y[-1] == -1.0 and explorer.state.n_iter == 0


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
    assert len(two.X) == 3 and "last of its class" in two.status.value


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
    assert multi.state.n_iter == 11 and "step 11" in multi.status.value
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
    h = np.array(explorer.history)
    np.testing.assert_allclose(primal, np.log10(h[:, 1]))
    np.testing.assert_allclose(gap, np.log10(np.maximum(h[:, 3], 1e-16)))
    assert np.isnan(dual[0]) and np.allclose(dual[1:], np.log10(h[1:, 2]))  # the dual starts at 0: not drawn


def test_converge_says_when_it_stops_short(multi):
    multi.converge(max_steps=5)
    assert multi.state.gap > multi.tol and multi.state.n_iter == 5
    assert "stopped at the step limit of 5, 5 steps this time" in multi.status.value


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
    assert first > 0 and "stopped at the time budget of 0.5 s" in ex.status.value
    assert f"step {first}:" in ex.status.value and len(ex.history) == first + 1
    ex.buttons["to convergence"].click()
    assert ex.state.n_iter > first and "stopped at the time budget of 0.5 s" in ex.status.value
    assert f"{ex.state.n_iter - first} steps this time" in ex.status.value


def test_every_press_makes_progress_however_small_the_budget():
    """A budget used up before the first epoch (a loaded machine, a paused process) must not make a
    press a no-op: the first epoch always runs, then the budget stops the press."""
    X, y = data.overlapping_blobs(40, seed=1)
    ex = BinaryExplorer(X, y, solver="primal_subgradient", time_budget=1e-12)
    for _ in range(3):
        before = ex.state.n_iter
        ex.buttons["to convergence"].click()
        assert ex.state.n_iter > before
        assert "stopped at the time budget" in ex.status.value


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
