"""What the geometry figures of notebook 1 DRAW, read back from the rendered figure and compared with
independent oracles: the closest points of the two convex hulls by a quadratic programme
(Clarabel, tests/oracles.py), the hard-margin SVM by scikit-learn's SVC, and the losses and distances by their formulas.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402
from matplotlib.path import Path  # noqa: E402
from scipy.spatial import cKDTree  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from oracles import solve_qp  # noqa: E402
from svmteach import BinarySVC, data  # noqa: E402
from svmteach.viz.geometry import (  # noqa: E402
    draw_distance_to_hyperplane, draw_hull_view, draw_losses, hyperplane_segment, loss_values,
)
from svmteach.viz.palette import region_colors  # noqa: E402

WORKED_X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
WORKED_Y = np.array([-1.0, 1.0, 1.0])


def closest_hull_points(A, B):
    """The closest points of conv(A) and conv(B): min ||A'u - B'v||^2 over two simplices (Clarabel QP)."""
    na, nb = len(A), len(B)
    M = np.hstack([A.T, -B.T])                      # M z = A'u - B'v for z = (u, v)
    A_eq = np.zeros((2, na + nb))
    A_eq[0, :na] = A_eq[1, na:] = 1.0
    z = solve_qp(2 * M.T @ M, np.zeros(na + nb), A_eq, np.ones(2), -np.eye(na + nb), np.zeros(na + nb))
    return A.T @ z[:na], B.T @ z[na:]


def line(ax, gid):
    found = [artist for artist in ax.lines if artist.get_gid() == gid]
    assert len(found) == 1, f"one line with gid {gid!r}, found {len(found)}"
    return np.column_stack(found[0].get_data()).astype(float)


def hull_figure(X, y):
    """The library's hard-margin SVM drawn with the oracle's closest points; also the SVC oracle's (w, b)."""
    p, q = closest_hull_points(X[y < 0], X[y > 0])
    model = BinarySVC(C=1e4, tol=1e-10, solver="smo").fit(X, y)
    fig, ax = plt.subplots(figsize=(7, 6))
    draw_hull_view(ax, X, y, model.coef_[0], model.intercept_[0], p, q, title="hull view")
    oracle = SVC(kernel="linear", C=1e6, tol=1e-10).fit(X, y)
    return fig, ax, p, q, oracle.coef_[0], oracle.intercept_[0]


CASES = [("worked example", WORKED_X, WORKED_Y)] + [
    (f"separable blobs, seed {s}", *data.separable_blobs(30, margin=0.8, seed=s)) for s in (0, 1, 2)]


@pytest.mark.parametrize("name, X, y", CASES, ids=[c[0] for c in CASES])
def test_the_drawn_closest_points_join_the_margins_along_w(name, X, y):
    fig, ax, p, q, w, b = hull_figure(X, y)
    seg = line(ax, "closest")
    np.testing.assert_allclose(seg, [p, q], atol=1e-9)  # the segment is drawn where the QP put it
    d = seg[1] - seg[0]
    # parallel to the oracle's w, as long as the oracle's margin width, p and q on the two margins
    np.testing.assert_allclose(d / np.linalg.norm(d), w / np.linalg.norm(w), atol=2e-4)
    np.testing.assert_allclose(np.linalg.norm(d), 2 / np.linalg.norm(w), rtol=2e-4)
    np.testing.assert_allclose([seg[0] @ w + b, seg[1] @ w + b], [-1, 1], atol=5e-4)
    # the drawn boundary and margins are the oracle's lines f = 0, +-1
    for gid, level in (("boundary", 0.0), ("margin+1", 1.0), ("margin-1", -1.0)):
        drawn = line(ax, gid)
        np.testing.assert_allclose(drawn @ w + b, level, atol=5e-4)
        assert np.linalg.norm(drawn[1] - drawn[0]) > 0.5  # a line across the box, not a dot
    plt.close(fig)


def test_the_worked_example_closest_points_are_not_both_data_points():
    fig, ax, p, q, w, b = hull_figure(WORKED_X, WORKED_Y)
    seg = line(ax, "closest")
    np.testing.assert_allclose(seg, [[0, 0], [1, 1]], atol=1e-9)
    np.testing.assert_allclose(w, [1, 1], atol=1e-6)
    assert np.min(np.linalg.norm(WORKED_X - seg[1], axis=1)) > 1.0  # (1, 1) is not a data point
    plt.close(fig)


@pytest.mark.parametrize("name, X, y", CASES[1:2], ids=[c[0] for c in CASES[1:2]])
def test_each_hull_holds_its_class_and_is_painted_in_its_region_colour(name, X, y):
    fig, ax, *_ = hull_figure(X, y)
    fig.canvas.draw()
    img = np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(float) / 255
    height = img.shape[0]
    for sign, region in ((-1, region_colors(2)[0]), (1, region_colors(2)[1])):
        patch = [p for p in ax.patches if p.get_gid() == f"hull{sign:+d}"]
        assert len(patch) == 1
        vertices = patch[0].get_xy()
        path = Path(vertices)
        assert path.contains_points(X[y == sign], radius=1e-9).all() or all(
            path.contains_point(x, radius=1e-6) or path.contains_point(x, radius=-1e-6) for x in X[y == sign])
        # every vertex is a data point of the class
        assert all(np.min(np.linalg.norm(X[y == sign] - v, axis=1)) < 1e-12 for v in vertices[:-1])
        # pixels well inside the hull (shrunk towards its centroid), away from the points, show the region colour
        centre = vertices[:-1].mean(axis=0)
        inner = Path(centre + 0.6 * (vertices - centre))
        px = ax.transData.transform(X)
        rows, cols = np.mgrid[0:height, 0:img.shape[1]]
        display = np.column_stack([cols.ravel() + 0.5, height - rows.ravel() - 0.5])
        inside = inner.contains_points(ax.transData.inverted().transform(display))
        far = cKDTree(px).query(display)[0] > 12
        sample = img.reshape(-1, 3)[inside & far]
        assert len(sample) > 200
        expected = 0.9 * np.array(to_rgb(region)) + 0.1  # alpha 0.9 over white
        share = np.mean(np.all(np.abs(sample - expected) < 0.04, axis=1))
        assert share > 0.9, share
    plt.close(fig)


def test_the_losses_are_drawn_with_their_values():
    fig, ax = plt.subplots()
    draw_losses(ax)
    t = np.array([-2.0, -1.0, -0.5, 0.25, 0.5, 1.0, 2.0])
    expect = {"hinge": [3.0, 2.0, 1.5, 0.75, 0.5, 0.0, 0.0],
              "logistic": [np.log2(1 + np.exp(2.0)), np.log2(1 + np.e), np.log2(1 + np.exp(0.5)),
                           np.log2(1 + np.exp(-0.25)), np.log2(1 + np.exp(-0.5)), np.log2(1 + np.exp(-1.0)),
                           np.log2(1 + np.exp(-2.0))],
              "zero-one": [1, 1, 1, 0, 0, 0, 0]}
    for gid, values in expect.items():
        drawn = line(ax, gid)
        keep = np.isfinite(drawn[:, 1])
        np.testing.assert_allclose(np.interp(t, drawn[keep, 0], drawn[keep, 1]), values, atol=2e-3)
        np.testing.assert_allclose(loss_values(t)[gid], values, atol=1e-12)
    # the 0-1 loss has no vertical line drawn at its jump; the logistic loss passes through (0, 1)
    zero_one = line(ax, "zero-one")
    assert np.isnan(zero_one[:, 1]).sum() == 1
    logistic = line(ax, "logistic")
    assert abs(np.interp(0.0, logistic[:, 0], logistic[:, 1]) - 1.0) < 2e-3
    # both surrogates lie on or above the 0-1 loss
    for gid in ("hinge", "logistic"):
        assert np.all(line(ax, gid)[:, 1] >= loss_values(line(ax, gid)[:, 0])["zero-one"] - 1e-12)
    assert ax.get_xlabel() and ax.get_ylabel()
    plt.close(fig)


@pytest.mark.parametrize("w, b, x0", [([1.0, 1.0], -1.0, [2.5, 2.0]), ([2.0, -0.5], 0.3, [0.5, 3.0])])
def test_the_distance_to_a_hyperplane_is_drawn_to_the_orthogonal_foot(w, b, x0):
    fig, ax = plt.subplots()
    foot = draw_distance_to_hyperplane(ax, w, b, x0)
    seg = line(ax, "distance")
    w, x0 = np.array(w), np.array(x0)
    # oracle: the nearest point of the line by a least-norm solve of w'(x0 + d) + b = 0
    d = np.linalg.lstsq(w[None, :], [-(w @ x0 + b)], rcond=None)[0]
    np.testing.assert_allclose(seg, [x0, x0 + d], atol=1e-12)
    np.testing.assert_allclose(foot, x0 + d, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(d), abs(w @ x0 + b) / np.linalg.norm(w), rtol=1e-12)
    assert ax.get_xlabel() and ax.get_ylabel()
    plt.close(fig)


def test_a_hyperplane_segment_spans_the_box_or_is_none():
    seg = hyperplane_segment([1.0, 1.0], -1.0, 0.0, (0, 2), (0, 2))
    np.testing.assert_allclose(sorted(map(tuple, seg)), [(0, 1), (1, 0)])
    assert hyperplane_segment([1.0, 0.0], -5.0, 0.0, (0, 2), (0, 2)) is None
    vertical = hyperplane_segment([1.0, 0.0], -1.0, 0.0, (0, 2), (-1, 3))
    np.testing.assert_allclose(sorted(map(tuple, vertical)), [(1, -1), (1, 3)])
