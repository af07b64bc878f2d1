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
    bars_before = [p.get_height() for p in explorer.ax_alpha.patches]
    explorer.buttons["step"].click()
    assert explorer.state.n_iter == 1 and explorer.state.i >= 0
    explorer.buttons["10 steps"].click()
    assert explorer.state.n_iter == 11
    bars = [p.get_height() for p in explorer.ax_alpha.patches]
    np.testing.assert_allclose(bars, explorer.state.alpha)  # the bars are the state's alphas
    assert bars != bars_before and "step 11" in explorer.ax_data.get_title()
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
