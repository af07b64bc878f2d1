"""What the kernel multiclass pictures DRAW, read back from the rendered pixels (issue 29).

The multiclass explorer with a gaussian kernel, and notebook 9's static region figure, on data no straight
boundary separates (three rings, three moons).  The region pixels are decoded to classes by their hue (as in
tests/test_pictures.py) and compared with an INDEPENDENT classifier of the same problem: the kernel problem
is the linear problem over an explicit feature map (K + B^2 = L L', features of a new point z:
Lambda^(-1/2) U' (k(z, X) + B^2); tests/test_kernel_multiclass.py), solved by Clarabel, which shares no code
with the solvers, the seam or the explorer, and predicts the grid.  Pixels where the reference's class changes
within 3% of the box (the boundary, where a drawing on a grid may round either way) are left out; at least 98%
of the rest must agree (in practice all of them do: the measured fractions are printed with ``-s``).
"""

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from test_kernel_multiclass import explicit_optimum, feature_map  # noqa: E402
from test_pictures import check_static_figure, decode_regions, render, stable  # noqa: E402

from svmteach import data  # noqa: E402
from svmteach.kernels import make_kernel  # noqa: E402

GAMMA = 1.0  # the explorers' default gamma
AGREE = 0.98  # the brief's floor on the pixels that show the reference's class


three_rings, three_moons = data.rings, data.three_moons  # the notebook's data, written once

DATA = {"rings": three_rings, "moons": three_moons}


def region_agreement(fig, ax, k, predict, stride=2):
    """``(agree, compared)``: the fraction of the region pixels of ``ax`` (5 x 5 patches of one colour, decoded
    to a class by their hue) away from the reference's boundary that show ``predict``'s class, and how many
    pixels were compared; every class of the reference must be among them."""
    img = render(fig)
    box, H = ax.get_window_extent(), img.shape[0]
    cols = np.arange(int(box.x0) + 4, int(box.x1) - 4, stride)
    rows = np.arange(H - int(box.y1) + 4, H - int(box.y0) - 4, stride)
    rr, cc = (a.ravel() for a in np.meshgrid(rows, cols, indexing="ij"))
    patch = np.stack([img[rr + dr, cc + dc] for dr in range(-2, 3) for dc in range(-2, 3)])
    uniform = np.ptp(patch, axis=0).max(axis=1) < 1.5 / 255  # no line, point or text through it
    drawn = decode_regions(img[rr, cc], k)
    xy = ax.transData.inverted().transform(np.column_stack([cc + 0.5, H - rr - 0.5]))
    ref, away = stable(predict, xy, ax)
    compared = uniform & (drawn >= 0) & away
    assert set(np.unique(ref[compared])) == set(range(k)), "not every class's region could be read"
    return float(np.mean(drawn[compared] == ref[compared])), int(compared.sum())


def explicit_predictor(X, y, C, loss, kernel, B=0.0):
    """Class indices of new points under the optimum of the problem over the explicit feature map."""
    _, scores_of = explicit_optimum(X, y, C, loss, kernel, B)
    return lambda Z: np.argmax(scores_of(Z), axis=1)


@pytest.mark.parametrize("name", list(DATA))
@pytest.mark.parametrize("loss", ["ww", "cs", "llw"])
def test_the_kernel_explorer_draws_the_explicit_feature_maps_optimum(name, loss):
    from svmteach.widgets import MulticlassExplorer

    X, y = DATA[name]()
    ex = MulticlassExplorer(X, y, C=1.0, loss=loss, kernel="rbf", gamma=GAMMA, tol=1e-5, time_budget=math.inf)
    ex.buttons["to convergence"].click()
    assert ex.state.gap <= ex.tol
    predict = explicit_predictor(X, y, 1.0, loss, make_kernel("rbf", GAMMA))  # the explorer: no intercept, B = 0
    agree, compared = region_agreement(ex.fig, ex.ax_data, 3, predict)
    print(f"explorer {name} {loss}: {agree:.4f} of {compared} pixels")
    assert compared >= 400 and agree >= AGREE
    # the kernel's classifier fits data the straight one cannot (on the rings, it gets a third of it right)
    linear = np.mean(explicit_predictor(X, y, 1.0, loss, make_kernel("linear"))(X) == y)
    kernel = np.mean(predict(X) == y)
    assert kernel >= 0.9 and kernel > linear + 0.1 and (name != "rings" or linear < 0.6)


def test_the_kernel_explorer_draws_its_own_classifier_after_10_steps():
    """Mid-run: the regions are the state's alpha put through the explicit features (w_m = sum_i A_im phi(x_i),
    with phi the rows of L), not the seam's kernel_scores that drew them."""
    from svmteach.losses import get_loss
    from svmteach.widgets import MulticlassExplorer

    X, y = three_rings()
    ex = MulticlassExplorer(X, y, C=1.0, loss="ww", solver="exact", kernel="rbf", gamma=GAMMA)
    ex.buttons["10 steps"].click()
    assert ex.state.n_iter == 10
    L, features_of = feature_map(X, make_kernel("rbf", GAMMA), 0.0)
    A = np.asarray(get_loss("ww").weight_rows(ex.problem, np.asarray(ex.state.alpha)))
    W = A.T @ L  # (k, rank): the weights in the explicit feature space
    assert np.abs(W).max() > 0
    agree, compared = region_agreement(ex.fig, ex.ax_data, 3, lambda Z: np.argmax(features_of(Z) @ W.T, axis=1))
    print(f"explorer after 10 steps: {agree:.4f} of {compared} pixels")
    assert compared >= 400 and agree >= AGREE


@pytest.mark.parametrize("loss", ["ww", "cs", "llw"])
def test_notebook_9s_region_figure_draws_the_explicit_feature_maps_optimum(loss):
    """The notebook's static figure: ``draw_decision_regions`` of a MulticlassSVC with the gaussian kernel and
    its intercept (B = 1 added to the kernel), against the explicit optimum of the same problem: the points in
    their colours, the regions under them and every region pixel away from the boundary."""
    from svmteach import MulticlassSVC
    from svmteach.viz import draw_decision_regions

    X, y = three_moons()
    model = MulticlassSVC(loss=loss, C=1.0, kernel="rbf", gamma=GAMMA, tol=1e-6, random_state=0).fit(X, y)
    predict = explicit_predictor(X, y, 1.0, loss, make_kernel("rbf", GAMMA), B=1.0)
    fig, ax = plt.subplots(figsize=(5, 4))
    draw_decision_regions(ax, model, X, y, legend=False)
    agree, compared = region_agreement(fig, ax, 3, predict)
    print(f"notebook figure {loss}: {agree:.4f} of {compared} pixels")
    assert compared >= 400 and agree >= AGREE
    check_static_figure(fig, ax, X, np.asarray(y), 3, predict)
