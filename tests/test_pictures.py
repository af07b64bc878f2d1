"""What the explorers and the static figures DRAW, read back from the rendered pixels.

Each figure is rendered with Agg and its pixels are read (``fig.canvas.buffer_rgba()``); a data
point (x, y) sits at display pixel ``ax.transData.transform((x, y))``.  A region pixel is decoded
to a class by its hue: the region colour of class m must be a light tint of class m's point colour
(``1 - region`` parallel to ``1 - point``, a fraction of its length), so a region painted in any
other colour, or in the colour of another class, is caught.  The decoded regions are compared with
an independent classifier of the same problem (scikit-learn, LIBLINEAR through scikit-learn, the
Clarabel QP oracle, or the explorer's own coefficients put through scikit-learn's kernels) away from
its boundary, where a drawing on a grid may round either way.
"""

import math
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402
from sklearn.kernel_ridge import KernelRidge  # noqa: E402
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel  # noqa: E402
from sklearn.svm import SVC, LinearSVC  # noqa: E402

from oracles import binary_dual_optimum, solve_qp  # noqa: E402
from svmteach import data  # noqa: E402
from svmteach.viz.palette import class_colors  # noqa: E402  (the specification: class m is colour m)

GAMMA = 1.0  # the binary explorer's default gamma
OFFSETS = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)], dtype=float)


# ---- reading a figure back ---------------------------------------------------------------------

def render(fig):
    """(H, W, 3) RGB in [0, 1] of what the figure shows now."""
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(float) / 255.0


def point_colors(k):
    return np.array([to_rgb(c) for c in class_colors(k)])


def decode_regions(rgb, k):
    """Class index of each colour read as a light tint of a class colour, -1 where it is none.

    A tint of colour p towards white is ``1 - t (1 - p)`` for some t in (0, 1): its distance from
    white points the same way as p's and is a fraction of it.
    """
    P = 1.0 - point_colors(k)
    D = 1.0 - np.asarray(rgb).reshape(-1, 3)
    norm = np.linalg.norm(D, axis=1)
    cos = (D @ P.T) / (np.maximum(norm, 1e-12)[:, None] * np.linalg.norm(P, axis=1)[None, :])
    best = np.argmax(cos, axis=1)
    fraction = norm / np.linalg.norm(P[best], axis=1)
    ok = (cos[np.arange(len(best)), best] > 0.995) & (fraction > 0.1) & (fraction < 0.75)
    return np.where(ok, best, -1)


def decode_points(rgb, k):
    """Class index of each colour that is a class's point colour (within 4/255 a channel), -1 otherwise."""
    diff = np.abs(np.asarray(rgb).reshape(-1, 1, 3) - point_colors(k)[None]).max(axis=2)
    best = np.argmin(diff, axis=1)
    return np.where(diff[np.arange(len(best)), best] < 4.5 / 255, best, -1)


def pixel_rows_cols(ax, img, xy):
    """Row and column of the pixel showing each data point (rows counted from the top)."""
    disp = ax.transData.transform(np.atleast_2d(xy))
    return img.shape[0] - 1 - np.floor(disp[:, 1]).astype(int), np.floor(disp[:, 0]).astype(int)


def stable(predict, xy, ax, fraction=0.03):
    """True where ``predict`` gives the same class at a point and 8 neighbours ``fraction`` of the box away."""
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    h = fraction * np.array([x1 - x0, y1 - y0])
    ref = predict(xy)
    same = np.ones(len(xy), dtype=bool)
    for offset in OFFSETS:
        same &= predict(xy + offset * h) == ref
    return ref, same


def drawn_regions_agree(fig, ax, k, predict, stride=3, min_pixels=400):
    """Decode the region pixels of ``ax`` (away from lines, points and the boundary) and compare with
    ``predict`` (data points -> class indices).  Returns the number of pixels compared."""
    img = render(fig)
    box = ax.get_window_extent()
    H = img.shape[0]
    cols = np.arange(int(box.x0) + 4, int(box.x1) - 4, stride)
    rows = np.arange(H - int(box.y1) + 4, H - int(box.y0) - 4, stride)
    rr, cc = (a.ravel() for a in np.meshgrid(rows, cols, indexing="ij"))
    # a region pixel: its 5 x 5 neighbourhood is one colour (no line, point edge or text through it)
    patch = np.stack([img[rr + dr, cc + dc] for dr in range(-2, 3) for dc in range(-2, 3)])
    uniform = np.ptp(patch, axis=0).max(axis=1) < 1.5 / 255
    drawn = decode_regions(img[rr, cc], k)
    centres = np.column_stack([cc + 0.5, H - rr - 0.5])  # display coordinates of the pixel centres
    xy = ax.transData.inverted().transform(centres)
    ref, away = stable(predict, xy, ax)
    compared = uniform & (drawn >= 0) & away
    assert compared.sum() >= min_pixels, f"only {compared.sum()} region pixels could be read"
    wrong = drawn[compared] != ref[compared]
    assert not wrong.any(), (f"{wrong.sum()} of {compared.sum()} region pixels show another class than the "
                             f"reference, e.g. at {xy[compared][wrong][:3]}")
    shown = np.unique(ref[uniform & away])
    assert len(shown) >= 2 and set(np.unique(drawn[compared])) == set(shown)  # every class is there
    return int(compared.sum())


# ---- independent classifiers -------------------------------------------------------------------

def kernel_matrix(kernel, Z, X):
    return linear_kernel(Z, X) if kernel == "linear" else rbf_kernel(Z, X, gamma=GAMMA)


def binary_predictor(X, y, kernel, coef, b):
    """Class indices (0: y = -1, 1: y = +1) of :math:`f(z) = \\sum_i c_i k(x_i, z) + b`."""
    return lambda Z: (kernel_matrix(kernel, Z, X) @ coef + b > 0).astype(int)


def binary_optimum(X, y, C, kernel, bias):
    """The optimal classifier of the course's binary problem, from scikit-learn or the QP oracle."""
    if bias:  # LIBSVM (scikit-learn's SVC) solves exactly the problem with a bias
        svc = SVC(C=C, kernel="linear" if kernel == "linear" else "rbf", gamma=GAMMA, tol=1e-10).fit(X, y)
        return lambda Z: (svc.decision_function(Z) > 0).astype(int)
    if kernel == "linear":  # LIBLINEAR's dual coordinate descent, hinge loss, no intercept
        lin = LinearSVC(C=C, loss="hinge", dual=True, fit_intercept=False, tol=1e-12, max_iter=1_000_000).fit(X, y)
        return lambda Z: (Z @ lin.coef_[0] > 0).astype(int)
    _, a = binary_dual_optimum(rbf_kernel(X, gamma=GAMMA), y.astype(float), C, bias=False)
    return binary_predictor(X, y, kernel, a * y, 0.0)


def ww_optimum(X, codes, k, C, M=1.0):
    """W of the Weston-Watkins primal, solved as a QP over (W, xi):
    min 1/2 ||W||^2 + C sum xi_ij  s.t.  xi_ij >= 0,  xi_ij >= 1 - M (w_{y_i} - w_j)' x_i."""
    n, d = X.shape
    pairs = [(i, j) for i in range(n) for j in range(k) if j != codes[i]]
    nw, m = k * d, len(pairs)
    A = np.zeros((2 * m, nw + m))
    rhs = np.zeros(2 * m)
    for r, (i, j) in enumerate(pairs):
        A[r, nw + r] = -1.0  # -xi <= 0
        A[m + r, j * d:(j + 1) * d] = M * X[i]  # M (w_j - w_y)' x_i - xi <= -1
        A[m + r, codes[i] * d:(codes[i] + 1) * d] = -M * X[i]
        A[m + r, nw + r] = -1.0
        rhs[m + r] = -1.0
    P = np.zeros((nw + m, nw + m))
    P[:nw, :nw] = np.eye(nw)
    v = solve_qp(P, np.concatenate([np.zeros(nw), np.full(m, C)]), A_ineq=A, b_ineq=rhs)
    return v[:nw].reshape(k, d)


def cs_optimum(X, codes, C):
    """W of Crammer-Singer without bias, by LIBLINEAR (scikit-learn's LinearSVC, crammer_singer)."""
    lin = LinearSVC(C=C, multi_class="crammer_singer", fit_intercept=False, tol=1e-12, max_iter=1_000_000)
    return lin.fit(X, codes).coef_


# ---- the binary explorer -----------------------------------------------------------------------

BINARY_CASES = [(s, k) for s in ("smo", "dual_cd", "primal_subgradient") for k in ("linear", "gaussian")]


@pytest.fixture(scope="module")
def blobs():
    return data.overlapping_blobs(40, seed=1)


@pytest.mark.parametrize("solver, kernel", BINARY_CASES)
def test_binary_explorer_draws_its_own_classifier_after_10_steps(blobs, solver, kernel):
    from svmteach.widgets import BinaryExplorer

    ex = BinaryExplorer(*blobs, C=1.0, kernel=kernel, gamma=GAMMA, solver=solver)
    ex.buttons["10 steps"].click()
    assert ex.state.n_iter == 10
    X, y = np.asarray(ex.problem.X), np.asarray(ex.problem.y)
    # the state's alpha (every binary state has it); the bias only where the model has one:
    # SMO's state.b, and none (0) for dual coordinate ascent and the subgradient method
    b = ex.state.b if solver == "smo" else 0.0
    drawn_regions_agree(ex.fig, ex.ax_data, 2, binary_predictor(X, y, kernel, np.asarray(ex.state.alpha) * y, b))


@pytest.mark.parametrize("solver, kernel", BINARY_CASES)
def test_binary_explorer_draws_the_optimum_after_to_convergence(blobs, solver, kernel):
    from svmteach.widgets import BinaryExplorer

    ex = BinaryExplorer(*blobs, C=1.0, kernel=kernel, gamma=GAMMA, solver=solver, time_budget=math.inf)
    ex.buttons["to convergence"].click()
    assert ex.state.gap <= ex.tol
    X, y = np.asarray(ex.problem.X), np.asarray(ex.problem.y)
    drawn_regions_agree(ex.fig, ex.ax_data, 2, binary_optimum(X, y, 1.0, kernel, bias=solver == "smo"))


def test_binary_explorer_regions_and_points_share_the_palette(blobs):
    """The points' pixels are their class colours, the half-plane of y = +1 the tint of its colour."""
    from svmteach.widgets import BinaryExplorer

    ex = BinaryExplorer(*blobs, C=1.0, time_budget=math.inf)
    ex.buttons["to convergence"].click()
    ex._pair.set_visible(False)  # the gold rings of SMO's last pair
    img = render(ex.fig)
    X, y = np.asarray(ex.problem.X), np.asarray(ex.problem.y)
    rows, cols = pixel_rows_cols(ex.ax_data, img, X)
    isolated = _isolated(ex.ax_data, X)
    assert isolated.sum() >= 15
    np.testing.assert_array_equal(drawn_point_classes(img, rows, cols, 2)[isolated], (y[isolated] > 0).astype(int))


def _isolated(ax, X, radius_px=8):
    """Points with no other point within ``radius_px`` display pixels (its marker could cover them)."""
    disp = ax.transData.transform(X)
    dist = np.linalg.norm(disp[:, None] - disp[None], axis=2)
    np.fill_diagonal(dist, np.inf)
    return dist.min(axis=1) >= radius_px


def drawn_point_classes(img, rows, cols, k):
    """The class whose point colour fills the 3 x 3 pixels at each point's centre (most of them, and
    no pixel of another class's colour), -1 otherwise."""
    votes = np.stack([decode_points(img[rows + dr, cols + dc], k) for dr in (-1, 0, 1) for dc in (-1, 0, 1)])
    out = np.full(len(rows), -1)
    for m in range(k):
        mine, others = (votes == m).sum(axis=0), ((votes >= 0) & (votes != m)).sum(axis=0)
        out[(mine >= 5) & (others == 0)] = m
    return out


# ---- the multiclass explorer -------------------------------------------------------------------

MULTI_CASES = [("ww", "exact"), ("ww", "shark"), ("ww", "parallel"), ("cs", "blondel"), ("cs", "parallel")]


@pytest.fixture(scope="module")
def three_blobs():
    return data.multiclass_blobs(45, k=3, seed=2)


def _argmax_predictor(W):
    return lambda Z: np.argmax(Z @ np.asarray(W).T, axis=1)


@pytest.mark.parametrize("loss, solver", MULTI_CASES)
def test_multiclass_explorer_draws_its_own_classifier_after_10_steps(three_blobs, loss, solver):
    from svmteach.widgets import MulticlassExplorer

    X, y = three_blobs
    ex = MulticlassExplorer(X, y, C=1.0, loss=loss, solver=solver)
    ex.buttons["10 steps"].click()
    alpha = np.asarray(ex.state.alpha)  # (n, k) in the course's convention
    # W from the dual variables: w_m = -M sum_i alpha_im x_i (WW), w_m = sum_i alpha_im x_i (CS)
    W = (-ex.M if loss == "ww" else 1.0) * alpha.T @ X
    assert np.abs(W).max() > 0
    drawn_regions_agree(ex.fig, ex.ax_data, 3, _argmax_predictor(W))


@pytest.mark.parametrize("loss, solver", MULTI_CASES)
def test_multiclass_explorer_draws_the_optimum_after_to_convergence(three_blobs, loss, solver):
    from svmteach.widgets import MulticlassExplorer

    X, y = three_blobs
    ex = MulticlassExplorer(X, y, C=1.0, loss=loss, solver=solver, time_budget=math.inf)
    ex.buttons["to convergence"].click()
    assert ex.state.gap <= ex.tol
    W = ww_optimum(X, y, 3, 1.0) if loss == "ww" else cs_optimum(X, y, 1.0)
    drawn_regions_agree(ex.fig, ex.ax_data, 3, _argmax_predictor(W))


# ---- the RLS path explorer ---------------------------------------------------------------------

@pytest.mark.parametrize("lam", [1e-3, 0.1, 3.0])
def test_rls_path_explorer_draws_kernel_ridge(lam):
    from svmteach.widgets import RLSPathExplorer

    X, y = data.moons(60, seed=0)
    ex = RLSPathExplorer(X, y, gamma=2.0, lams=np.logspace(-3, 1, 21))
    ex.sliders["lambda"].value = lam
    ref = KernelRidge(alpha=ex.state["lam"], kernel="rbf", gamma=2.0).fit(X, np.where(y > 0, 1.0, -1.0))
    drawn_regions_agree(ex.fig, ex.ax_data, 2, lambda Z: (ref.predict(Z) > 0).astype(int))


def test_rls_path_explorer_draws_one_versus_rest_kernel_ridge():
    from svmteach.widgets import RLSPathExplorer

    X, y = data.multiclass_blobs(45, k=3, seed=1)
    ex = RLSPathExplorer(X, y, kernel="linear", lams=[0.01, 0.1, 1.0])
    ex.sliders["lambda"].value = 0.1
    Y = np.where(y[:, None] == np.arange(3)[None, :], 1.0, -1.0)
    ref = KernelRidge(alpha=0.1, kernel="linear").fit(X, Y)
    drawn_regions_agree(ex.fig, ex.ax_data, 3, lambda Z: np.argmax(ref.predict(Z), axis=1))


# ---- the static region figures of the notebooks ----------------------------------------------

def check_static_figure(fig, ax, X, codes, k, predict):
    """Every isolated point is drawn in its class colour; under every correctly classified point
    away from the boundary the region is its class's tint (read with all else on the axes hidden)."""
    img = render(fig)
    rows, cols = pixel_rows_cols(ax, img, X)
    legend = ax.get_legend()
    covered = np.zeros(len(X), dtype=bool)
    if legend is not None:  # a point under the legend is not visible
        box, disp = legend.get_window_extent(), ax.transData.transform(X)
        covered = ((disp[:, 0] > box.x0 - 5) & (disp[:, 0] < box.x1 + 5)
                   & (disp[:, 1] > box.y0 - 5) & (disp[:, 1] < box.y1 + 5))
    isolated = _isolated(ax, X) & ~covered
    assert isolated.sum() >= len(X) // 4
    np.testing.assert_array_equal(drawn_point_classes(img, rows, cols, k)[isolated], codes[isolated])
    # the regions alone: hide points, lines, contours, the legend
    for artist in [*ax.collections, *ax.lines, *ax.texts] + ([legend] if legend is not None else []):
        artist.set_visible(False)
    img = render(fig)
    ref, away = stable(predict, X, ax)
    correct = (ref == codes) & away
    assert correct.sum() >= len(X) // 2
    np.testing.assert_array_equal(decode_regions(img[rows, cols], k)[correct], codes[correct])
    plt.close(fig)


def test_draw_decision_regions_svm_and_rls_notebook_5():
    from svmteach import BinarySVC
    from svmteach.estimators import RLSClassifier
    from svmteach.viz import draw_decision_regions

    X, y = data.moons(120, noise=0.2, seed=0)
    for model in (BinarySVC(kernel="rbf", gamma=2.0, C=1.0).fit(X, y),
                  RLSClassifier(lams=np.logspace(-4, 2, 40), kernel="rbf", gamma=2.0).fit(X, y)):
        fig, ax = plt.subplots(figsize=(5, 4))
        draw_decision_regions(ax, model, X, y)
        codes = (y > 0).astype(int)
        check_static_figure(fig, ax, X, codes, 2, lambda Z, m=model: (m.predict(Z) > 0).astype(int))


@pytest.mark.parametrize("loss, M", [("ww", 1.0), ("ww", 0.5), ("cs", 1.0)])
def test_draw_decision_regions_multiclass_notebooks_6_and_7(loss, M):
    from svmteach import MulticlassSVC
    from svmteach.viz import draw_decision_regions, draw_score_lines

    X, y = data.multiclass_blobs(90, k=4, seed=0)
    model = MulticlassSVC(fit_intercept=False, loss=loss, M=M, C=1.0, tol=1e-6, random_state=0).fit(X, y)
    fig, ax = plt.subplots(figsize=(5, 4.5))
    draw_decision_regions(ax, model, X, y)
    draw_score_lines(ax, model.coef_)
    check_static_figure(fig, ax, X, np.asarray(y), 4, lambda Z: model.predict(Z))


def test_draw_binary_notebook_1():
    from svmteach import BinarySVC
    from svmteach.viz import draw_binary

    X, y = data.overlapping_blobs(n=60, seed=1)
    model = BinarySVC(C=1.0, solver="smo", tol=1e-8).fit(X, y)  # SMO's bias: the problem keeps its 2-D X
    fig, ax = plt.subplots(figsize=(5, 5))
    draw_binary(ax, model.problem_for(X, y), model.alpha_, model.intercept_[0], legend=True)
    w, b = model.coef_[0], model.intercept_[0]
    check_static_figure(fig, ax, X, (y > 0).astype(int), 2, lambda Z: (Z @ w + b > 0).astype(int))


def test_palette_gives_class_m_colour_m_and_refuses_what_it_cannot_draw():
    from svmteach.viz import class_indices, draw_class_regions, region_colors

    assert class_colors(3) == class_colors(8)[:3]
    with pytest.raises(ValueError, match="^k must be between 1 and 8"):
        class_colors(9)
    with pytest.raises(TypeError, match="^k must be an integer"):
        class_colors(2.0)
    np.testing.assert_array_equal(class_indices(np.array([1.0, -1.0, 1.0]), np.array([-1.0, 1.0])), [1, 0, 1])
    with pytest.raises(ValueError, match="^labels must all be among the classes"):
        class_indices(np.array([0, 5]), np.array([0, 1]))
    # an image holding only index 2 of 4 is painted in class 2's region colour (vmin/vmax fixed)
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.set_axis_off()
    draw_class_regions(ax, np.full((5, 5), 2), (0, 1, 0, 1), 4)
    img = render(fig)
    centre = img[img.shape[0] // 2, img.shape[1] // 2]
    np.testing.assert_allclose(centre, region_colors(4)[2], atol=1.5 / 255)
    assert decode_regions(centre, 4)[0] == 2
    plt.close(fig)


# ---- the step views: where the clipped point and the segment's ends are drawn --------------------

def _pixels_of(img, ax, color, tol=0.06):
    """(k, 2) display coordinates (x right, y up) of the pixels of ``color`` inside ``ax``'s box."""
    x0, y0, x1, y1 = ax.get_window_extent().extents
    height = img.shape[0]
    rows, cols = np.nonzero(np.all(np.abs(img - np.asarray(to_rgb(color))) <= tol, axis=-1))
    x, y = cols + 0.5, height - rows - 0.5
    inside = (x > x0 + 2) & (x < x1 - 2) & (y > y0 + 2) & (y < y1 - 2)
    return np.column_stack([x[inside], y[inside]])


@pytest.mark.parametrize("solver", ["smo", "dual_cd"])
def test_the_step_views_draw_the_clipped_point_where_the_state_says(solver):
    """Rendered after each of several steps: the red star of the step view sits at the state's clipped
    point (SMO: (alpha_j_new, alpha_i_new); dual coordinate ascent: (alpha_i new, its gain)), to within
    a few pixels."""
    from svmteach.viz.smo_box import SMOBoxView
    from svmteach.widgets import BinaryExplorer

    X, y = data.overlapping_blobs(30, seed=3)
    ex = BinaryExplorer(X, y, solver=solver, C=0.5)
    star = ex.step_view.after.get_color()
    for _ in range(6):
        ex.buttons["step"].click()
        img = render(ex.fig)
        p, ax = ex.step_view.picture, ex.ax_step
        point = (p.after if isinstance(ex.step_view, SMOBoxView) else (p.clipped, p.gain_clipped))
        expected = ax.transData.transform(point)
        found = _pixels_of(img, ax, star)
        assert len(found) > 20, "no star drawn"
        assert np.linalg.norm(found.mean(axis=0) - expected) <= 4.0, (found.mean(axis=0), expected)


# ---- the boundaries between class regions ------------------------------------------------------

def drawn_boundary_points(lines):
    """The vertices of every boundary line the explorer drew (its contour sets), as one (m, 2) array."""
    segments = [seg for cs in lines for level in cs.allsegs for seg in level if len(seg)]
    assert segments, "no boundary drawn"
    return np.vstack(segments)


def assert_on_ties(points, scores, rtol=1e-7):
    """Each point lies where the two largest of its ``scores`` (an independent model's) tie; returns the
    pairs of classes found on the boundaries."""
    S = scores(points)
    top = np.sort(S, axis=1)
    scale = np.abs(S).max()
    worst = np.max(top[:, -1] - top[:, -2]) / scale
    assert worst <= rtol, f"a boundary point is {worst:.2e} (relative) off the tie of its two largest scores"
    leaders = np.sort(np.argsort(-S, axis=1)[:, :2], axis=1)
    return {tuple(pair) for pair in leaders}


def test_multiclass_boundaries_follow_the_scores_not_the_class_numbers():
    """Four classes: the boundary between classes whose numbers are not adjacent (0 and 3, 1 and 3, ...)
    is a line where their scores tie, drawn once; a contour over the class numbers drew it as a staircase
    on the grid's cells, three times over (levels 0.5, 1.5, 2.5).  Checked against W computed here from
    the state's alpha (w_m = -M sum_i alpha_im x_i), and the regions' pixels against its argmax."""
    from svmteach.widgets import MulticlassExplorer

    X, y = data.multiclass_blobs(60, k=4, seed=2)
    ex = MulticlassExplorer(X, y, C=1.0, loss="ww", solver="exact")
    ex.buttons["10 steps"].click()
    W = -ex.M * np.asarray(ex.state.alpha).T @ X
    pairs = assert_on_ties(drawn_boundary_points(ex._lines), lambda Z: Z @ W.T)
    assert any(b - a >= 2 for a, b in pairs)  # a boundary between classes whose numbers are not adjacent
    assert len(ex._lines) == len(pairs)  # each boundary drawn once
    drawn_regions_agree(ex.fig, ex.ax_data, 4, _argmax_predictor(W))


def test_rls_boundaries_follow_the_scores_of_kernel_ridge():
    """One-versus-rest RLS on four classes (linear kernel): the boundaries lie where the two largest of
    scikit-learn's KernelRidge scores tie, and the regions are its argmax."""
    from svmteach.widgets import RLSPathExplorer

    X, y = data.multiclass_blobs(60, k=4, seed=2)
    ex = RLSPathExplorer(X, y, kernel="linear", lams=[0.01, 0.1, 1.0])
    ex.sliders["lambda"].value = 0.1
    Y = np.where(y[:, None] == np.arange(4)[None, :], 1.0, -1.0)
    ref = KernelRidge(alpha=0.1, kernel="linear").fit(X, Y)
    pairs = assert_on_ties(drawn_boundary_points(ex._lines), ref.predict, rtol=1e-6)
    assert any(b - a >= 2 for a, b in pairs) and len(ex._lines) == len(pairs)
    drawn_regions_agree(ex.fig, ex.ax_data, 4, lambda Z: np.argmax(ref.predict(Z), axis=1))


def test_score_boundaries_of_two_classes_is_the_zero_level():
    from svmteach.viz.regions import cell_grid, score_boundaries

    xx, yy, grid = cell_grid((-1, 1), (-1, 1), 20)
    (a, b, d), = score_boundaries(xx, yy, (grid[:, 0] - 0.3)[:, None])
    assert (a, b) == (0, 1) and np.allclose(d, xx - 0.3)
    assert score_boundaries(xx, yy, np.ones((len(grid), 1))) == []  # one class everywhere: no boundary


def test_an_edge_is_kept_where_two_classes_still_tie_everywhere():
    """Early in a run two rows of W can be equal: classes 1 and 2 tie everywhere, and class 1 takes the tie
    (argmax).  Every edge between the coloured regions (the argmax over the grid, the oracle) is still drawn:
    masking by the two largest scores lost the edges of class 1."""
    import matplotlib.pyplot as plt

    from svmteach.viz.regions import cell_grid, draw_score_boundaries

    W = np.array([[1.0, 0.3], [-0.3, 1.0], [-0.3, 1.0], [-0.5, -1.0]])
    xx, yy, grid = cell_grid((-2, 2), (-2, 2), 120)
    S = grid @ W.T
    region = np.argmax(S, axis=1).reshape(xx.shape)
    meeting = {tuple(sorted(p)) for p in zip(region[:, :-1].ravel(), region[:, 1:].ravel()) if p[0] != p[1]}
    fig, ax = plt.subplots()
    sets = draw_score_boundaries(ax, xx, yy, S)
    points = np.vstack([seg for cs in sets for path in cs.get_paths() for seg in [path.vertices] if len(seg)])
    plt.close(fig)
    at = points @ W.T  # the scores where the lines are drawn: two lead and tie
    top = np.sort(at, axis=1)[:, ::-1]
    assert np.allclose(top[:, 0], top[:, 1], atol=1e-9 * np.abs(at).max() + 1e-9)
    lead = {tuple(sorted(set(np.flatnonzero(np.isclose(row, row.max(), atol=1e-9))) - {2})) for row in at}
    assert meeting == {(0, 1), (0, 3), (1, 3)} and meeting <= lead


# ---- the relative gap's own log10 axis -----------------------------------------------------------

def _label_value(text):
    """The number a tick label of a log10 axis stands for ("1e-3" or "0.9986"); matplotlib may write a minus as U+2212."""
    return float(text.replace("\u2212", "-"))


@pytest.mark.parametrize("low", [0.998, 0.9999, 0.3, 1e-6])
def test_relative_gap_axis_labels_differ_and_read_as_their_values(tmp_path, low):
    """A relative gap that spans less than a decade (1 down to 0.998) on its own log10 axis, as the explorers draw
    it: three significant digits labelled two ticks "0.999"; every label must differ and read (to half a tick
    spacing) as 10 to the power of its tick. Spans of several decades keep whole powers ("1e-3")."""
    from svmteach.viz.log_ticks import log10_axis

    steps = np.arange(40)
    gap = 1.0 - (1.0 - low) * (1 - np.exp(-steps / 8.0)) if low > 0.01 else np.logspace(0, np.log10(low), 40)
    fig, ax = plt.subplots(figsize=(5, 3.5), dpi=100)
    gap_ax = ax.twinx()
    ax.plot(steps, np.log10(50 + steps))
    gap_ax.plot(steps, np.log10(gap), color="#31a354")
    log10_axis(gap_ax.yaxis)
    ax.set_xlabel("steps")
    ax.set_ylabel("objective (log10)")
    gap_ax.set_ylabel("relative gap (green)")
    render(fig)
    lo, hi = sorted(gap_ax.get_ylim())
    ticks = [(t.get_loc(), t.label2.get_text()) for t in gap_ax.yaxis.get_major_ticks() if lo <= t.get_loc() <= hi]
    fig.savefig(tmp_path / f"gap_axis_{low:g}.png", bbox_inches="tight")  # to look at
    plt.close(fig)
    labels = [text for _, text in ticks]
    assert len(ticks) >= 2 and all(labels), ticks
    assert len(set(labels)) == len(labels), labels                    # no "0.999" twice
    spacing = min(np.diff([loc for loc, _ in ticks]))
    for loc, text in ticks:                                         # each reads as the value it marks
        assert abs(math.log10(_label_value(text)) - loc) < spacing / 2, (loc, text)
    if low < 0.01:
        assert all(re.fullmatch(r"1e[-\u2212]?\d+", text) for text in labels), labels
