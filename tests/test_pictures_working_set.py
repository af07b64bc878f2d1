"""The multiclass explorer's working-set solver (issue 44, item 3): what its figure DRAWS, read back from the pixels
and the artists, against independent computations.

A step of ``solver="working_set"`` solves the b samples ``state.chosen`` together (the sub-problem of their blocks, the
other samples held fixed) and records its largest block violation in its first and last inner epoch
(``state.start``, ``state.end``), its epochs and its visits.  Here:

- the gold rings of the data panel are exactly ``state.chosen`` (gold pixels around each of them, none around an
  isolated other point);
- the sub-problem the step reports is replayed by another solver's readable step: the loss's exact block solver
  (``update``, its own kernel rows from the row cache) visiting only the chosen samples, in index order, epoch after
  epoch from the state before the step, gives the same first and last largest violation, the same number of epochs
  (the stop rule, 1% of the first, holds at the last epoch and at no earlier one) and the same alpha;
- the step panel draws those numbers: its circle and star where (1, start) and (epochs, end) fall on its log axis
  (found by their colours in the pixels), their values printed, the samples along its top in their class colours;
- after "to convergence" the regions are the explicit feature map's optimum (Clarabel, as
  tests/test_pictures_kernel_multiclass.py) and the dual is the exact solver's optimum;
- every other solver the explorer offers draws the step view it drew before.
"""

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402
from test_pictures import render  # noqa: E402
from test_pictures_kernel_multiclass import AGREE, explicit_predictor, region_agreement  # noqa: E402

from svmteach import data, solve  # noqa: E402
from svmteach.kernels import make_kernel  # noqa: E402
from svmteach.solvers import MulticlassState, make_multiclass_solver  # noqa: E402
from svmteach.viz.palette import class_colors  # noqa: E402
from svmteach.viz.parabola import ParabolaView  # noqa: E402
from svmteach.viz.shark_path import SharkPathView  # noqa: E402
from svmteach.viz.simplex import SimplexView  # noqa: E402
from svmteach.viz.working_set import END_COLOR, START_COLOR, WorkingSetView  # noqa: E402
from svmteach.widgets import MulticlassExplorer  # noqa: E402
from svmteach.widgets.multiclass import WORKING_SET, offered_solvers  # noqa: E402

LOSSES = ("ww", "cs", "llw", "mmr")
GOLD = to_rgb("gold")


def explorer(loss, **kwargs):
    X, y = data.rings()  # notebook 9's data, 60 points
    return MulticlassExplorer(X, y, C=1.0, loss=loss, solver="working_set", kernel="gaussian", gamma=1.0, **kwargs)


def near_pixels(img, centre, color, radius, tol):
    """(m, 2) display coordinates (x right, y up) of the pixels of ``color`` within ``radius`` of ``centre``."""
    H, W = img.shape[:2]
    cx, cy = centre
    r0, r1 = max(0, int(H - cy - radius) - 1), min(H, int(H - cy + radius) + 2)  # the window around it
    c0, c1 = max(0, int(cx - radius) - 1), min(W, int(cx + radius) + 2)
    rows, cols = np.nonzero(np.all(np.abs(img[r0:r1, c0:c1] - np.asarray(color)) <= tol, axis=-1))
    xy = np.column_stack([c0 + cols + 0.5, H - (r0 + rows) - 0.5])
    return xy[np.linalg.norm(xy - np.asarray(centre), axis=1) <= radius]


# ---- the explorer offers it where it runs ------------------------------------------------------------------

def test_the_working_set_solver_is_offered_with_every_nonlinear_kernel_and_never_the_linear_one():
    for loss in LOSSES:
        assert "working_set" not in offered_solvers(loss, "linear")
        for kernel in ("gaussian", "rbf", "polynomial", "laplacian"):
            assert offered_solvers(loss, kernel)[-1] == "working_set"
            assert offered_solvers(loss, kernel)[0] != "working_set"  # the loss's default stays first
    ex = explorer("ww")
    assert ex.solver.working_set == WORKING_SET < ex.problem.n_samples // 4  # a step solves a few samples, not all
    ex.dropdowns["kernel"].value = "linear"  # the solver gives way to the loss's first
    assert ex.dropdowns["solver"].value == "exact" and "working_set" not in ex.dropdowns["solver"].options


# ---- a step: the rings, the sub-problem, the picture ---------------------------------------------------------

def replay(problem, before, chosen, epochs, fraction):
    """The sub-problem of ``chosen`` solved by the loss's exact block solver's readable step (no shrinking) from the
    state ``before``, ``epochs`` epochs in index order: ``(largest violation of each epoch, alpha of chosen)``."""
    exact = make_multiclass_solver(None, problem.loss_object, 0, kernel=problem.kernel.name, shrinking=False)
    state = exact.init(problem)._replace(alpha=np.array(before.alpha), W=np.array(before.W))
    worst = []
    for _ in range(epochs):
        state = state._replace(sweep_violation=math.nan)
        for i in chosen:
            state = exact.update(problem, state, int(i))
        worst.append(float(state.sweep_violation))
    return np.array(worst), np.asarray(state.alpha)[chosen]


@pytest.mark.parametrize("loss", LOSSES)
def test_each_step_rings_its_working_set_and_draws_its_sub_problem(loss):
    ex = explorer(loss, size="classroom")  # the larger data panel: more points stand apart from the rings
    assert isinstance(ex.step_view, WorkingSetView) and ex.step_view.picture is None
    assert "press step" in ex.step_view.note.get_text() and ex.visited() == []
    labels = [h.get_label() for h in ex._legend_handles()]
    assert "working set just solved" in labels and "sample just visited" not in labels
    X, codes, k = ex.X, np.asarray(ex.problem.codes), ex.problem.k
    fraction = ex.solver.inner_fraction
    for _ in range(4):
        before = ex.state
        ex.buttons["step"].click()
        s, chosen = ex.state, np.asarray(ex.state.chosen)
        assert 1 <= chosen.size <= WORKING_SET and np.all(np.diff(chosen) > 0)

        # the sub-problem, replayed by the exact block solver on the chosen samples alone
        worst, alpha_B = replay(ex.problem, before, chosen, s.inner_epochs, fraction)
        # (the step's kernel rows are float32, the replay's float64: they differ by up to 1e-7 here)
        np.testing.assert_allclose([s.start, s.end], worst[[0, -1]], rtol=1e-4, atol=1e-6)
        assert all(w > fraction * worst[0] for w in worst[:-1])  # it stops at its first epoch at 1% ...
        assert worst[-1] <= fraction * worst[0] * (1 + 1e-4) or s.inner_epochs == ex.solver.inner_epochs  # ... or the cap
        assert s.visits == s.inner_epochs * chosen.size
        np.testing.assert_allclose(np.asarray(s.alpha)[chosen], alpha_B, rtol=1e-4, atol=5e-6)
        others = np.setdiff1d(np.arange(len(X)), chosen)
        np.testing.assert_array_equal(np.asarray(s.alpha)[others], np.asarray(before.alpha)[others])

        img = render(ex.fig)
        # the data panel: gold rings around exactly the chosen samples
        assert ex.visited() == chosen.tolist()
        np.testing.assert_array_equal(ex._visited.get_offsets(), X[chosen])
        disp = ex.ax_data.transData.transform(X)
        for i in chosen:
            assert len(near_pixels(img, disp[i], GOLD, 12, 0.1)) >= 20, f"no ring around sample {i}"
        # a ring's outer edge is some 10 px from its centre: a point 23 px from every ring has none within 12 px
        far = np.linalg.norm(disp[:, None] - disp[chosen][None], axis=2).min(axis=1) > 23
        assert far.sum() >= 5
        for i in np.flatnonzero(far):
            assert len(near_pixels(img, disp[i], GOLD, 12, 0.1)) == 0, f"sample {i} ringed, not in the working set"

        # the step panel: the circle at (1, start) and the star at (epochs, end) on the log axis, their values
        ax, view = ex.ax_step, ex.step_view
        for (x, v), color in (((1, s.start), START_COLOR), ((s.inner_epochs, s.end), END_COLOR)):
            if v <= 0:
                continue  # a last violation of 0 is drawn under the stop line (checked by its label below)
            at = ax.transData.transform((x, math.log10(v)))
            found = near_pixels(img, at, to_rgb(color), 9, 0.06)
            assert len(found) >= 25, f"no {color} marker at {x, v}"
            assert np.linalg.norm(found.mean(axis=0) - at) <= 3.0
            decade_px = ax.transData.transform((x, 1.0))[1] - ax.transData.transform((x, 0.0))[1]
            read = ax.transData.inverted().transform(found.mean(axis=0))  # the value the pixels stand for
            assert abs(read[1] - math.log10(v)) <= 3.0 / decade_px, (10 ** read[1], v)
        assert [float(view.first_value.get_text()), float(view.last_value.get_text())] == pytest.approx(
            [s.start, s.end], rel=0.051, abs=1e-300)
        assert [float(t.get_text()) for t in ax.get_xticklabels() if t.get_text()] == sorted({1, s.inner_epochs})
        assert ax.get_title() == f"{chosen.size} samples: {s.inner_epochs} inner epochs, {s.visits} visits"
        stop = view.stop_line.get_ydata()[0]
        assert 10 ** stop == pytest.approx(fraction * s.start, rel=1e-9)
        # along the top: the chosen samples in their class colours, each with its index
        np.testing.assert_allclose(view.samples.get_facecolors()[:, :3],
                                   [to_rgb(c) for c in np.asarray(class_colors(k))[codes[chosen]]])
        assert [int(t.get_text()) for t in view._indices] == chosen.tolist()
        top = ax.transAxes.transform(view.samples.get_offsets())
        for (cx, cy), m in zip(top, codes[chosen]):
            assert len(near_pixels(img, (cx, cy), to_rgb(class_colors(k)[m]), 3, 0.06)) >= 5
        # the status line says it in words
        assert (f"working set of {chosen.size} samples: its largest violation {s.start:.2g} \u2192 {s.end:.2g} in "
                f"{s.inner_epochs} inner epochs") in ex.status.text


def test_a_warm_start_shows_no_working_set_until_the_next_step():
    ex = explorer("ww", time_budget=math.inf)
    ex.buttons["10 steps"].click()
    ex.add_point(0.0, 0.0, ex.labels[0])  # a warm start from the solution shown: no step since
    assert ex.visited() == [] and ex.step_view.picture is None and "press step" in ex.step_view.note.get_text()
    ex.buttons["step"].click()
    assert ex.visited() == np.asarray(ex.state.chosen).tolist() and ex.step_view.picture is not None


# ---- to convergence: the regions and the optimum ---------------------------------------------------------------

@pytest.mark.parametrize("loss", LOSSES)
def test_to_convergence_reaches_the_exact_solvers_optimum_and_draws_its_regions(loss):
    from test_kernel_multiclass import explicit_optimum

    ex = explorer(loss, tol=1e-5, time_budget=math.inf)
    ex.buttons["to convergence"].click()
    assert ex.state.gap <= ex.tol and ex.state.n_iter > 10  # many working sets, not the whole set at once
    # the same optimum as the exact solver's, and as Clarabel's over the explicit feature map
    exact = solve(make_multiclass_solver(None, ex.problem.loss_object, 0, kernel="gaussian"), ex.problem, tol=1e-9,
                  max_iter=10**6)
    assert exact.converged
    D, _ = explicit_optimum(ex.X, ex.y, 1.0, loss, make_kernel("rbf", 1.0), 0.0)
    for optimum in (exact.dual, D):
        assert abs(ex.state.dual - optimum) <= ex.tol * abs(ex.state.primal)
        assert ex.state.dual <= optimum * (1 + 1e-9) + 1e-12
    if loss == "mmr":
        return  # its regions are tested with the other solvers (tests/test_mmr.py); here its optimum
    predict = explicit_predictor(ex.X, ex.y, 1.0, loss, make_kernel("rbf", 1.0))
    agree, compared = region_agreement(ex.fig, ex.ax_data, 3, predict)
    print(f"working-set explorer {loss}: {agree:.4f} of {compared} pixels")
    assert compared >= 400 and agree >= AGREE
    # the scores drawn are those of the explicit argmax from alpha: S = K A on the grid by kernels.gram
    from svmteach.kernels import gram

    A = np.asarray(ex.problem.loss_object.weight_rows(ex.problem, np.asarray(ex.state.alpha)))
    Z = ex._grid[2]
    np.testing.assert_array_equal(np.argmax(ex.scores_of(Z), axis=1),
                                  np.argmax(gram(Z, ex.X, make_kernel("rbf", 1.0)) @ A, axis=1))


# ---- every other solver keeps its picture ----------------------------------------------------------------------

#: The step view each other solver the explorer offers drew before the working sets came (None: a note instead).
OLD_VIEWS = {("ww", "exact"): SharkPathView, ("ww", "shark"): SharkPathView, ("ww", "parallel"): None,
             ("cs", "blondel"): SimplexView, ("cs", "parallel"): None,
             ("llw", "exact"): None, ("llw", "parallel"): None,
             ("mmr", "exact"): ParabolaView, ("mmr", "parallel"): None}
OLD_NOTES = {"parallel": "the parallel solver moves\nevery block at once:\nsee the bars below"}


@pytest.mark.parametrize("kernel", ["linear", "gaussian"])
@pytest.mark.parametrize("loss", LOSSES)
def test_every_other_solver_draws_the_step_view_it_drew_before(loss, kernel):
    X, y = data.multiclass_blobs(45, k=3, seed=2)
    names = [name for name in offered_solvers(loss, kernel) if name != "working_set"]
    assert {(loss, name) for name in names} <= set(OLD_VIEWS)
    for name in names:
        ex = MulticlassExplorer(X, y, C=1.0, loss=loss, solver=name, kernel=kernel)
        ex.buttons["step"].click()
        View = OLD_VIEWS[(loss, name)]
        labels = [h.get_label() for h in ex._legend_handles()]
        assert "working set just solved" not in labels
        if View is None:
            assert ex.step_view is None and ex.step_text() == ""
            note = OLD_NOTES.get(name, f"{ex.problem.loss_object.title}: each step\nsolves one sample's block\n"
                                       "exactly (no picture of it here)")
            assert [t.get_text() for t in ex.ax_step.texts] == [note]
        else:
            assert type(ex.step_view) is View and ex.step_view.picture is not None
            assert [h.get_label() for h in ex.step_view.handles()] == labels[-1 - len(ex.step_view.handles()):-1]
        if isinstance(ex.state, MulticlassState):  # one sample a step, ringed
            assert "sample just visited" in labels and ex.visited() == [int(ex.state.i)]
            np.testing.assert_array_equal(ex._visited.get_offsets(), X[[int(ex.state.i)]])
        else:
            assert ex.visited() == [] and len(ex._visited.get_offsets()) == 0
