"""The geometry of the binary SVM, drawn for a lecture: distance to a hyperplane, the convex-hull
view of the hard margin, and the hinge, 0-1 and logistic losses on one axis.

Notebook 1 draws its pictures before any algebra with these functions.  Each one draws what it
is given (a hyperplane ``w, b``, the closest points ``p, q`` of two hulls) and computes nothing
that a test could not recompute: the lines carry a ``gid`` so that a test reads them back.
Fonts and line widths are sized for a projector.
"""

from __future__ import annotations

import numpy as np

from .palette import class_colors, region_colors

#: Font size of titles, labels and legends in these figures (readable from the back of a hall).
FONT = 15
#: Line width of the boundary, margins and loss curves.
LINE = 2.6


def hyperplane_segment(w, b, level, xlim, ylim):
    """The two end points of the line :math:`w^\\top x + b = \\text{level}` inside the box
    ``xlim x ylim``, as an array of shape (2, 2), or None when the line misses the box."""
    w = np.asarray(w, dtype=float)
    (x0, x1), (y0, y1) = xlim, ylim
    points = []
    if abs(w[1]) > 1e-15:  # crossings of the vertical sides
        for x in (x0, x1):
            points.append((x, (level - b - w[0] * x) / w[1]))
    if abs(w[0]) > 1e-15:  # crossings of the horizontal sides
        for yv in (y0, y1):
            points.append(((level - b - w[1] * yv) / w[0], yv))
    tol = 1e-9 * max(1.0, x1 - x0, y1 - y0)
    inside = [p for p in points if x0 - tol <= p[0] <= x1 + tol and y0 - tol <= p[1] <= y1 + tol]
    if len(inside) < 2:
        return None
    inside = np.array(inside)
    direction = np.array([-w[1], w[0]])
    order = np.argsort(inside @ direction)
    return inside[[order[0], order[-1]]]


def _hull_vertices(points):
    """The convex hull of ``points`` (m, 2) as a closed polygon's vertices, in order."""
    points = np.asarray(points, dtype=float)
    if len(points) >= 3:
        from scipy.spatial import ConvexHull, QhullError

        try:
            return points[ConvexHull(points).vertices]
        except QhullError:  # collinear points: the hull is a segment
            pass
    if len(points) == 1:
        return points
    centred = points - points.mean(axis=0)
    direction = np.linalg.svd(centred)[2][0]
    t = centred @ direction
    return points[[int(np.argmin(t)), int(np.argmax(t))]]


def _box(X, extra, pad):
    pts = np.vstack([np.asarray(X, dtype=float)] + [np.atleast_2d(e) for e in extra])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    span = max(float(np.max(hi - lo)), 1.0)
    return (lo[0] - pad * span, hi[0] + pad * span), (lo[1] - pad * span, hi[1] + pad * span)


def _lines(ax, w, b, xlim, ylim, levels=(-1.0, 0.0, 1.0)):
    """The boundary (solid) and the margins (dashed) of ``w, b`` inside the box."""
    styles = {0.0: ("-", "boundary", "boundary  $w^\\top x + b = 0$"),
              1.0: ("--", "margin+1", "margins  $w^\\top x + b = \\pm 1$"),
              -1.0: ("--", "margin-1", None)}
    for level in levels:
        seg = hyperplane_segment(w, b, level, xlim, ylim)
        if seg is None:
            continue
        style, gid, label = styles[level]
        ax.plot(seg[:, 0], seg[:, 1], style, color="black", lw=LINE, gid=gid, label=label, zorder=3)


def _points(ax, X, y, size=90):
    neg, pos = class_colors(2)
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    for sign, colour, label in ((-1, neg, "$y = -1$"), (1, pos, "$y = +1$")):
        sel = y == sign
        ax.scatter(X[sel, 0], X[sel, 1], s=size, color=colour, edgecolor="white", linewidth=1.0, zorder=4,
                   label=label, gid=f"points{sign:+d}")


def _frame(ax, xlim, ylim, title):
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("$x_1$", fontsize=FONT)
    ax.set_ylabel("$x_2$", fontsize=FONT)
    ax.tick_params(labelsize=FONT - 2)
    if title:
        ax.set_title(title, fontsize=FONT)


def draw_hull_view(ax, X, y, w, b, p, q, title=None, pad=0.15, legend=True):
    """The convex-hull view of the hard-margin SVM on ``ax``.

    Draws the points, the convex hull of each class (filled in the class's region colour), the
    segment from ``p`` (the closest point of the hull of class -1) to ``q`` (of class +1), and the
    boundary and margins of ``w, b``.  When ``w, b`` is the hard-margin SVM and ``p, q`` the
    closest points of the hulls, ``q - p`` is parallel to ``w``, ``p`` and ``q`` lie on the two
    margins and ``||q - p|| = 2 / ||w||``.  Gids: ``hull-1``, ``hull+1``, ``closest``,
    ``boundary``, ``margin+1``, ``margin-1``.  Returns ``ax``.
    """
    from matplotlib.patches import Polygon

    X, y = np.asarray(X, dtype=float), np.asarray(y)
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    xlim, ylim = _box(X, [p, q], pad)
    neg_region, pos_region = region_colors(2)
    neg, pos = class_colors(2)
    for sign, fill, edge in ((-1, neg_region, neg), (1, pos_region, pos)):
        hull = _hull_vertices(X[y == sign])
        ax.add_patch(Polygon(hull, closed=True, facecolor=fill, edgecolor=edge, lw=2.0, alpha=0.9, zorder=1,
                             gid=f"hull{sign:+d}", label=f"convex hull of class ${sign:+d}$"))
    _lines(ax, w, b, xlim, ylim)
    ax.plot([p[0], q[0]], [p[1], q[1]], "-", color="#d01c8b", lw=LINE + 0.8, marker="D", markersize=11,
            markeredgecolor="black", zorder=5, gid="closest", label="closest points of the hulls")
    _points(ax, X, y)
    _frame(ax, xlim, ylim, title)
    if legend:
        ax.legend(fontsize=FONT - 3, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax


def draw_distance_to_hyperplane(ax, w, b, x0, xlim=(-1.0, 4.0), ylim=(-1.0, 4.0), title=None):
    """The distance from a point ``x0`` to the hyperplane :math:`w^\\top x + b = 0`.

    Draws the hyperplane, the normal ``w`` as an arrow from the hyperplane, the point ``x0``
    and its orthogonal projection :math:`x_0 - \\frac{w^\\top x_0 + b}{\\|w\\|^2} w` joined by
    a dotted segment (gid ``distance``) of length :math:`|w^\\top x_0 + b| / \\|w\\|`.
    Returns the projection.
    """
    w, x0 = np.asarray(w, dtype=float), np.asarray(x0, dtype=float)
    f0 = float(w @ x0 + b)
    foot = x0 - f0 / float(w @ w) * w  # the orthogonal projection onto the hyperplane
    _lines(ax, w, b, xlim, ylim, levels=(0.0,))
    base = hyperplane_segment(w, b, 0.0, xlim, ylim).mean(axis=0)
    unit = w / np.linalg.norm(w)
    ax.annotate("", xy=base + unit, xytext=base, gid="normal",
                arrowprops=dict(arrowstyle="-|>", lw=LINE, color="#31a354", mutation_scale=25))
    ax.text(*(base + 1.1 * unit), "$w$", fontsize=FONT + 2, color="#31a354")
    ax.plot([x0[0], foot[0]], [x0[1], foot[1]], ":", color="#d01c8b", lw=LINE, gid="distance",
            label=f"distance $|w^\\top x_0 + b| / \\|w\\| = {abs(f0) / np.linalg.norm(w):.3g}$")
    ax.scatter(*x0, s=110, color="black", zorder=5, gid="x0")
    ax.text(x0[0] + 0.1, x0[1] + 0.1, "$x_0$", fontsize=FONT + 2)
    ax.scatter(*foot, s=70, facecolor="white", edgecolor="black", zorder=5, gid="foot")
    _frame(ax, xlim, ylim, title)
    ax.legend(fontsize=FONT - 3, loc="lower left")
    return foot


def loss_values(t):
    """The three losses at the margins ``t`` = y f(x): a dict of arrays.

    hinge :math:`\\max(0, 1 - t)`; 0-1 :math:`\\mathbb 1[t \\le 0]` (a point on the boundary counts as
    an error); logistic :math:`\\log_2(1 + e^{-t})`, scaled by :math:`1/\\ln 2` so that it passes
    through (0, 1) and, like the hinge, lies above the 0-1 loss.
    """
    t = np.asarray(t, dtype=float)
    return {"hinge": np.maximum(0.0, 1.0 - t),
            "zero-one": (t <= 0).astype(float),
            "logistic": np.logaddexp(0.0, -t) / np.log(2.0)}


def draw_losses(ax, t_range=(-2.5, 3.0), num=1101, title="Three losses of the margin $y\\,f(x)$"):
    """Hinge, 0-1 and (base-2) logistic loss against the margin :math:`y f(x)` on one axis.

    Lines carry the gids ``hinge``, ``zero-one`` and ``logistic``; the 0-1 loss is drawn as
    its two flat pieces (``zero-one``) with the jump dotted.  Returns ``ax``.
    """
    t = np.linspace(*t_range, num)
    values = loss_values(t)
    ax.plot(t, values["hinge"], color="#e6550d", lw=LINE, gid="hinge", label="hinge  $\\max(0, 1 - t)$")
    ax.plot(t, values["logistic"], color="#3182bd", lw=LINE, gid="logistic",
            label="logistic  $\\log_2(1 + e^{-t})$")
    step = np.where(t <= 0, 1.0, 0.0)
    step[np.flatnonzero(np.diff(step)) + 1] = np.nan  # no vertical line drawn at the jump
    ax.plot(t, step, color="black", lw=LINE, gid="zero-one", label="0-1  $\\mathbf{1}[t \\leq 0]$")
    ax.plot([0, 0], [0, 1], ":", color="black", lw=1.2)
    ax.axvline(1.0, color="#636363", lw=1.0, ls="--")
    ax.set_xlim(*t_range)
    ax.set_ylim(-0.1, max(3.6, float(values["hinge"].max()) + 0.1))
    ax.set_xlabel("margin  $t = y\\,f(x)$", fontsize=FONT)
    ax.set_ylabel("loss", fontsize=FONT)
    ax.tick_params(labelsize=FONT - 2)
    ax.legend(fontsize=FONT - 2, loc="upper right")
    if title:
        ax.set_title(title, fontsize=FONT)
    return ax
