"""Dragging a point in the binary and multiclass explorers, driven by the matplotlib mouse events they handle.

A press on a point, motions and a release are sent through the figure canvas's own callbacks (real
``MouseEvent`` objects at the pixels of data coordinates, as ipympl sends them): the point moves, the fit follows
from a warm start of the solution shown, and the regions read back from the rendered figure agree with an
independent classifier of the moved data (scikit-learn's SVC; LIBLINEAR's Crammer-Singer).
"""

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.backend_bases import MouseEvent  # noqa: E402
from sklearn.svm import SVC, LinearSVC  # noqa: E402

from svmteach import data  # noqa: E402
from svmteach.widgets import BinaryExplorer, MulticlassExplorer  # noqa: E402
from svmteach.widgets import explorer as explorer_module  # noqa: E402
from test_pictures import drawn_regions_agree  # noqa: E402


def send(ex, name, xy, button=1, key=None):
    """Send the mouse event ``name`` at the data point ``xy`` of the data panel through the canvas's callbacks."""
    px, py = ex.ax_data.transData.transform(np.asarray(xy, dtype=float))
    event = MouseEvent(name, ex.fig.canvas, px, py, button=button, key=key)
    ex.fig.canvas.callbacks.process(name, event)
    return event


def spy_on_warm_starts(ex):
    """Record the alpha each ``solver.warm_start`` of the explorer's solver is given."""
    calls = []
    original = ex.solver.warm_start

    def warm_start(problem, state):
        calls.append(np.array(state.alpha))
        return original(problem, state)

    ex.solver.warm_start = warm_start
    return calls


def support_vector_to_drag(ex, alpha):
    """A support vector no other point is near (in pixels), so that a press on it picks it up."""
    pix = ex.ax_data.transData.transform(ex.X)
    d = np.sqrt(((pix[:, None] - pix[None]) ** 2).sum(-1)) + np.eye(len(pix)) * 1e9
    support = np.flatnonzero(np.asarray(alpha).reshape(len(ex.X), -1).any(axis=1))
    return int(support[np.argmax(d[support].min(axis=1))])


@pytest.fixture
def blobs():
    return data.overlapping_blobs(40, seed=1)


@pytest.mark.parametrize("kernel", ["linear", "gaussian"])
def test_dragging_a_point_moves_it_and_the_smo_fit_follows_by_warm_start(blobs, kernel):
    X, y = blobs
    ex = BinaryExplorer(X, y, C=1.0, kernel=kernel, solver="smo", time_budget=math.inf)
    ex.buttons["to convergence"].click()
    shown, steps = np.array(ex.state.alpha), int(ex.state.n_iter)
    i = support_vector_to_drag(ex, shown)
    start = ex.X[i].copy()
    (x0, x1), (y0, y1) = ex.ax_data.get_xlim(), ex.ax_data.get_ylim()
    # across the data: to the far side of the box from where the point is
    target = np.array([x0 + 0.8 * (x1 - x0) if start[0] < (x0 + x1) / 2 else x0 + 0.2 * (x1 - x0),
                       y0 + 0.8 * (y1 - y0) if start[1] < (y0 + y1) / 2 else y0 + 0.2 * (y1 - y0)])
    calls = spy_on_warm_starts(ex)
    limits = (ex.ax_data.get_xlim(), ex.ax_data.get_ylim())

    send(ex, "button_press_event", start)
    assert len(ex.X) == 40 and not calls  # a press on a point picks it up: nothing added, nothing solved yet
    send(ex, "motion_notify_event", (start + target) / 2)
    assert len(calls) == 1 and np.allclose(ex.X[i], (start + target) / 2, atol=1e-9)  # the fit follows the motion
    np.testing.assert_array_equal(calls[0], shown)  # from the solution shown: a warm start
    assert (ex.ax_data.get_xlim(), ex.ax_data.get_ylim()) == limits  # the panel holds still under the mouse
    ex._drag_fit_at = -math.inf  # the next motion is past DRAG_INTERVAL
    send(ex, "motion_notify_event", target)
    send(ex, "button_release_event", target)

    np.testing.assert_allclose(ex.X[i], target, atol=1e-9)
    keep = np.arange(40) != i
    np.testing.assert_array_equal(ex.X[keep], X[keep])
    np.testing.assert_array_equal(ex.y, y)
    assert ex._drag is None and ex.state.gap <= ex.tol
    assert int(ex.state.n_iter) >= steps and len(ex.history) > 1  # the run went on, not restarted at 0
    assert f"point {i} moved to" in ex.status.text
    assert ex.narration.text.endswith(".")  # the narration follows the state shown
    # the figure shows the optimum of the moved data: LIBSVM (scikit-learn's SVC) solves the same problem
    svc = SVC(C=1.0, kernel=kernel if kernel == "linear" else "rbf", gamma=1.0, tol=1e-10).fit(ex.X, y)
    before = SVC(C=1.0, kernel=kernel if kernel == "linear" else "rbf", gamma=1.0, tol=1e-10).fit(X, y)
    drawn_regions_agree(ex.fig, ex.ax_data, 2, lambda Z: (svc.decision_function(Z) > 0).astype(int))
    grid = np.column_stack([a.ravel() for a in np.meshgrid(np.linspace(x0, x1, 40), np.linspace(y0, y1, 40))])
    assert np.any((svc.decision_function(grid) > 0) != (before.decision_function(grid) > 0))  # the drag mattered


@pytest.mark.parametrize("solver", ["dual_cd", "primal_subgradient"])
def test_the_other_binary_solvers_follow_a_drag_from_a_warm_start(blobs, solver):
    X, y = blobs
    ex = BinaryExplorer(X, y, C=1.0, solver=solver)
    ex.buttons["10 steps"].click()
    shown = np.array(ex.state.alpha)
    i = support_vector_to_drag(ex, shown)
    calls = spy_on_warm_starts(ex)
    send(ex, "button_press_event", ex.X[i])
    send(ex, "motion_notify_event", ex.X[i] + 0.3)
    send(ex, "button_release_event", X[i] + 0.3)
    np.testing.assert_allclose(ex.X[i], X[i] + 0.3, atol=1e-9)
    np.testing.assert_array_equal(calls[0], shown)
    assert ex.state.n_iter >= 10


def test_dragging_a_point_in_the_multiclass_explorer_follows_crammer_singer():
    X, y = data.multiclass_blobs(45, k=3, seed=2)
    ex = MulticlassExplorer(X, y, C=1.0, loss="cs", time_budget=math.inf)
    ex.buttons["to convergence"].click()
    shown = np.array(ex.state.alpha)
    i = support_vector_to_drag(ex, shown)
    calls = spy_on_warm_starts(ex)
    (x0, x1), (y0, y1) = ex.ax_data.get_xlim(), ex.ax_data.get_ylim()
    target = np.array([x0 + 0.15 * (x1 - x0), y0 + 0.85 * (y1 - y0)])
    send(ex, "button_press_event", ex.X[i])
    send(ex, "motion_notify_event", target)
    send(ex, "button_release_event", target)
    np.testing.assert_allclose(ex.X[i], target, atol=1e-9)
    np.testing.assert_array_equal(calls[0], shown)
    assert ex.state.gap <= ex.tol
    codes = np.searchsorted(np.unique(y), y)
    lin = LinearSVC(C=1.0, multi_class="crammer_singer", fit_intercept=False, tol=1e-12, max_iter=1_000_000)
    W = lin.fit(ex.X, codes).coef_
    drawn_regions_agree(ex.fig, ex.ax_data, 3, lambda Z: np.argmax(Z @ W.T, axis=1))


def test_a_press_on_a_point_released_in_place_is_still_a_click(blobs):
    X, y = blobs
    ex = BinaryExplorer(X, y, C=1.0)
    i = support_vector_to_drag(ex, np.ones(40))
    send(ex, "button_press_event", ex.X[i])
    assert len(ex.X) == 40
    send(ex, "button_release_event", ex.X[i])
    assert len(ex.X) == 41 and ex.y[-1] == 1 and np.allclose(ex.X[-1], X[i], atol=0.05)  # "add +1" at the click
    ex.dropdowns["click"].value = "remove"
    send(ex, "button_press_event", ex.X[i])
    send(ex, "button_release_event", ex.X[i])
    assert len(ex.X) == 40  # the remove mode's click


def test_a_press_away_from_points_or_with_a_key_is_the_click_it_was(blobs):
    X, y = blobs
    ex = BinaryExplorer(X, y, C=1.0)
    (x0, x1), (y0, y1) = ex.ax_data.get_xlim(), ex.ax_data.get_ylim()
    pix = ex.ax_data.transData.transform(ex.X)
    corner = (x0 + 0.02 * (x1 - x0), y0 + 0.02 * (y1 - y0))
    assert np.min(np.hypot(*(pix - ex.ax_data.transData.transform(corner)).T)) > explorer_module.PICK_RADIUS_PX
    send(ex, "button_press_event", corner)  # away from every point: the click adds at once
    assert len(ex.X) == 41 and ex._drag is None
    i = support_vector_to_drag(ex, np.ones(41))
    send(ex, "button_press_event", ex.X[i], key="control")  # ctrl on a point: remove, not drag
    assert len(ex.X) == 40 and ex._drag is None
    send(ex, "motion_notify_event", corner)  # a motion with nothing held changes nothing
    send(ex, "button_release_event", corner)
    assert len(ex.X) == 40


def test_a_quick_drag_refits_at_most_every_interval_and_lands_where_released(blobs, monkeypatch):
    X, y = blobs
    ex = BinaryExplorer(X, y, C=1.0)
    monkeypatch.setattr(explorer_module, "DRAG_INTERVAL", 3600.0)
    i = support_vector_to_drag(ex, np.ones(40))
    calls = spy_on_warm_starts(ex)
    send(ex, "button_press_event", ex.X[i])
    for k in range(1, 6):
        send(ex, "motion_notify_event", X[i] + 0.05 * k)
    assert len(calls) == 1  # the first motion refits; the others only wait for the interval
    np.testing.assert_allclose(ex.X[i], X[i] + 0.05, atol=1e-9)
    send(ex, "button_release_event", X[i] + 0.25)
    assert len(calls) == 2
    np.testing.assert_allclose(ex.X[i], X[i] + 0.25, atol=1e-9)


def test_move_point_refuses_what_is_not_a_point(blobs):
    ex = BinaryExplorer(*blobs, C=1.0)
    before = ex.X.copy()
    with pytest.raises(ValueError, match="x1, x2"):
        ex.move_point(0, float("nan"), 0.0)
    with pytest.raises(IndexError, match="i must index"):
        ex.move_point(40, 0.0, 0.0)
    np.testing.assert_array_equal(ex.X, before)


def test_a_release_where_the_last_motion_left_the_point_solves_on_without_a_new_warm_start(blobs, monkeypatch):
    X, y = blobs
    ex = BinaryExplorer(X, y, C=1.0, solver="primal_subgradient", time_budget=math.inf)
    monkeypatch.setattr(explorer_module, "DRAG_SECONDS", 1e-9)  # a motion's fit: one chunk, short of tol
    i = support_vector_to_drag(ex, np.ones(40))
    calls = spy_on_warm_starts(ex)
    send(ex, "button_press_event", ex.X[i])
    moved = send(ex, "motion_notify_event", X[i] + 0.2)
    assert len(calls) == 1 and not ex.state.gap <= ex.tol
    send(ex, "button_release_event", (moved.xdata, moved.ydata))
    assert len(calls) == 1 and ex.state.gap <= ex.tol  # the same point: no second warm start, solved to tol
    np.testing.assert_allclose(ex.X[i], X[i] + 0.2, atol=1e-9)


@pytest.mark.parametrize("make", [lambda: BinaryExplorer(*data.overlapping_blobs(40, seed=1)),
                                  lambda: MulticlassExplorer(*data.multiclass_blobs(45, k=3, seed=2), loss="ww")])
def test_a_drag_keeps_the_legend_and_the_panels_where_they_are(make):
    """A drag redraws many times a second: the data change, not the markers or the titles, so the legend is not
    pasted again nor the panels laid out again (the figure holds still around the point)."""
    ex = make()
    legend = ex._legend
    places = [tuple(ax.get_position().bounds) for ax in ex.fig.axes]
    i = support_vector_to_drag(ex, np.ones(len(ex.X)))
    send(ex, "button_press_event", ex.X[i])
    send(ex, "motion_notify_event", ex.X[i] + 0.2)
    send(ex, "button_release_event", ex.X[i] + 0.1)
    assert ex._legend is legend and [tuple(ax.get_position().bounds) for ax in ex.fig.axes] == places
    ex.dropdowns["solver"].value = ex.dropdowns["solver"].options[1]  # another solver: its own legend
    assert ex._legend is not legend
