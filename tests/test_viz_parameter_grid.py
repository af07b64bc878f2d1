"""The C x gamma figures of notebook 5 (svmteach.viz.parameter_grid), read back from what they draw and
compared with scikit-learn's SVC fitted with the same C and gamma (LIBSVM: an independent solver of the same
problem, f(x) = sum_i alpha_i y_i exp(-gamma ||x_i - x||^2) + b with a free bias).

- the heatmap: the accuracies in its image and the numbers written in its cells are SVC's validation accuracies;
- the boundary grid: the colour of the rendered pixels (away from SVC's boundary, the points and the frame) is the
  region colour of the class SVC predicts there; the ringed points are SVC's support vectors.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from svmteach import BinarySVC, data  # noqa: E402
from svmteach.viz.palette import region_colors  # noqa: E402
from svmteach.viz.parameter_grid import (draw_accuracy_heatmap, draw_boundary_grid, fit_grid,  # noqa: E402
                                         grid_accuracy, mark_support_vectors)

CS = [0.1, 10.0, 1000.0]
GAMMAS = [0.1, 1.0, 100.0]
OFFSETS = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)], dtype=float)


@pytest.fixture(scope="module")
def problem():
    X, y = data.moons(60, noise=0.3, seed=0)
    X_val, y_val = data.moons(150, noise=0.3, seed=1)
    models = fit_grid(lambda C, gamma: BinarySVC(kernel="rbf", C=C, gamma=gamma, tol=1e-8), X, y, CS, GAMMAS)
    oracle = [[SVC(C=C, gamma=gamma, tol=1e-8).fit(X, y) for C in CS] for gamma in GAMMAS]
    return X, y, X_val, y_val, models, oracle


def test_fit_grid_puts_gamma_on_the_rows_and_C_on_the_columns(problem):
    _, _, _, _, models, _ = problem
    assert [[(m.C, m.gamma) for m in row] for row in models] == [[(C, g) for C in CS] for g in GAMMAS]


def test_the_heatmap_draws_the_validation_accuracy_of_libsvm(problem):
    X, y, X_val, y_val, models, oracle = problem
    expected = np.array([[np.mean(svc.predict(X_val) == y_val) for svc in row] for row in oracle])
    fig, ax = plt.subplots()
    image = draw_accuracy_heatmap(ax, grid_accuracy(models, X_val, y_val), CS, GAMMAS)
    fig.canvas.draw()
    drawn = np.asarray(image.get_array())
    written = np.array([float(t.get_text()) for t in ax.texts]).reshape(len(GAMMAS), len(CS))
    plt.close(fig)
    # at most one of the 150 points on the other side (a point within rounding of the boundary)
    assert np.abs(drawn - expected).max() <= 1 / len(y_val) + 1e-12, (drawn, expected)
    assert np.abs(written - expected).max() <= 1 / len(y_val) + 0.005 + 1e-12, (written, expected)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.1", "10", "1000"]
    assert ax.get_xlabel() == "C" and ax.get_ylabel() == r"$\gamma$"


def test_the_heatmap_refuses_a_transposed_grid(problem):
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="shape"):
        draw_accuracy_heatmap(ax, np.zeros((len(CS) + 1, len(GAMMAS))), CS, GAMMAS)
    plt.close(fig)


def _rendered(fig):
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(float) / 255.0


def test_the_boundary_grid_paints_the_regions_of_libsvm(problem):
    """Each panel's pixels, decoded to the nearest region colour, are the class SVC predicts there."""
    X, y, _, _, models, oracle = problem
    fig, axes = plt.subplots(len(GAMMAS), len(CS), figsize=(9, 9), dpi=60)
    draw_boundary_grid(axes, models, X, y, CS, GAMMAS)
    fig.tight_layout()                                   # no label of one panel over its neighbour
    pixels = _rendered(fig)
    height = pixels.shape[0]
    colours = region_colors(2)                           # class 0 (y = -1), class 1 (y = +1)
    rng = np.random.default_rng(0)
    for r in range(len(GAMMAS)):
        for c in range(len(CS)):
            ax, svc = axes[r][c], oracle[r][c]
            (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
            probe = np.column_stack([rng.uniform(x0, x1, 600), rng.uniform(y0, y1, 600)])
            display = ax.transData.transform(probe)
            point_pixels = ax.transData.transform(X)
            far_from_points = np.min(np.linalg.norm(display[:, None] - point_pixels[None], axis=2), axis=1) > 10
            box = ax.bbox                                # and from the frame (spines, ticks)
            inside = ((display[:, 0] > box.x0 + 3) & (display[:, 0] < box.x1 - 3)
                      & (display[:, 1] > box.y0 + 3) & (display[:, 1] < box.y1 - 3))
            # away from the boundary: SVC gives the same class one grid cell away in every direction
            # (the regions are painted on a 150 x 150 grid of cells and may round either way near it)
            cell = np.array([(x1 - x0) / 150, (y1 - y0) / 150])
            labels = np.stack([svc.predict(probe + cell * offset) for offset in OFFSETS])
            settled = np.all(labels == labels[0], axis=0)
            clear = settled & far_from_points & inside
            assert clear.sum() > 50, (r, c)
            rows = (height - display[clear, 1]).astype(int)
            cols = display[clear, 0].astype(int)
            seen = pixels[rows, cols]
            decoded = np.argmin(np.linalg.norm(seen[:, None] - colours[None], axis=2), axis=1)
            assert np.linalg.norm(seen - colours[decoded], axis=1).max() < 0.05, "a pixel not in a region colour"
            expected = (svc.predict(probe[clear]) == 1).astype(int)
            assert np.array_equal(decoded, expected), (CS[c], GAMMAS[r], np.mean(decoded != expected))
    plt.close(fig)


def test_the_boundary_grid_rings_the_support_vectors_of_libsvm(problem):
    X, y, _, _, models, oracle = problem
    fig, axes = plt.subplots(len(GAMMAS), len(CS))
    drawn = draw_boundary_grid(axes, models, X, y, CS, GAMMAS)
    for r in range(len(GAMMAS)):
        for c in range(len(CS)):
            ringed = {tuple(p) for p in np.round(drawn[r][c]["support"].get_offsets(), 9)}
            expected = {tuple(p) for p in np.round(oracle[r][c].support_vectors_, 9)}
            assert ringed == expected, (CS[c], GAMMAS[r], len(ringed ^ expected))
            assert f"{len(expected)} support vectors" in axes[r][c].get_title()
            assert axes[r][c].get_xlabel() and axes[r][c].get_ylabel()
    plt.close(fig)


def test_mark_support_vectors_rings_exactly_the_given_points():
    fig, ax = plt.subplots()
    points = np.array([[0.0, 1.0], [2.0, -1.0]])
    ring = mark_support_vectors(ax, points)
    assert np.array_equal(np.asarray(ring.get_offsets()), points)
    assert ring.get_facecolors().size == 0 or ring.get_facecolors()[:, 3].max() == 0  # hollow
    plt.close(fig)
