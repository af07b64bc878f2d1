"""Drawing a binary SVM: the two half-planes, the boundary and the +-1 margins, points outlined by KKT category.

Classes follow the palette (:mod:`svmteach.viz.palette`): y = -1 is class 0, y = +1 class 1.
The explorer (:class:`svmteach.widgets.BinaryExplorer`) builds on the same pieces and updates
them in place; :func:`draw_binary` draws one state for a static figure.
"""

from __future__ import annotations

import numpy as np

from .. import objectives as obj
from ..backend import to_numpy
from .palette import class_colors, draw_class_regions
from .regions import cell_grid, data_box, frame_data_axes

#: The outline of a point in each KKT category: (edge colour, edge width, marker size).
KKT_OUTLINE = {
    obj.AT_ZERO: ("none", 0.0, 30.0),
    obj.FREE: ("black", 1.8, 70.0),
    obj.AT_C: ("#d01c8b", 1.8, 70.0),  # magenta: seen on both class colours (a red ring vanished on orange)
}
KKT_LABELS = {
    obj.AT_ZERO: "\u03b1 = 0",
    obj.FREE: "0 < \u03b1 < C (on the margin)",
    obj.AT_C: "\u03b1 = C (inside or wrong side)",
}


def kkt_outlines(categories):
    """``(edgecolors, linewidths, sizes)`` arrays for points of the given KKT ``categories``."""
    cats = np.asarray(categories)
    edge, width, size = (np.array([KKT_OUTLINE[c][f] for c in (obj.AT_ZERO, obj.FREE, obj.AT_C)]) for f in range(3))
    return edge[cats], width[cats].astype(float), size[cats].astype(float)


def binary_legend_handles():
    """Legend handles of the two classes (fill colours) and the three KKT categories (outlines)."""
    from matplotlib.lines import Line2D

    neg, pos = class_colors(2)
    handles = [Line2D([], [], ls="none", marker="o", markersize=7, markerfacecolor=c, markeredgecolor="none",
                      label=label) for c, label in ((neg, "y = \u22121"), (pos, "y = +1"))]
    for cat, (edge, width, size) in KKT_OUTLINE.items():
        handles.append(Line2D([], [], ls="none", marker="o", markersize=np.sqrt(size), markerfacecolor="#bdbdbd",
                              markeredgecolor=edge if edge != "none" else "#bdbdbd", markeredgewidth=width,
                              label=KKT_LABELS[cat]))
    return handles


def binary_legend(ax, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=10, **kwargs):
    """A legend of the two classes (fill colours) and the three KKT categories (outlines), by default
    outside the axes on the right, where it covers no point."""
    return ax.legend(handles=binary_legend_handles(), loc=loc, bbox_to_anchor=bbox_to_anchor, fontsize=fontsize,
                     **kwargs)


def decision_values(problem, alpha, b, points):
    """:math:`f(z) = \\sum_i \\alpha_i y_i k(x_i, z) + b` at the rows of ``points``; shape (m,)."""
    coef = to_numpy(alpha) * to_numpy(problem.y)
    keep = np.flatnonzero(coef)  # only the support vectors contribute
    if keep.size == 0:
        return np.full(len(points), float(b))
    from ..kernels import gram

    return coef[keep] @ gram(to_numpy(problem.X)[keep], points, problem.kernel) + float(b)


def draw_binary(ax, problem, alpha, b=0.0, title=None, pad=0.5, resolution=150, legend=False):
    """Draw a 2-D binary problem and the classifier of ``alpha`` (and bias ``b``) on ``ax``.

    The half-plane f > 0 is painted in class +1's region colour and f < 0 in class -1's;
    the boundary f = 0 is solid, the margins f = +-1 dashed; the points are filled in
    their class colour and outlined by their KKT category.  Returns ``ax``.
    """
    X, y = to_numpy(problem.X), to_numpy(problem.y)
    xlim, ylim = data_box(X, pad)
    xx, yy, grid = cell_grid(xlim, ylim, resolution)
    f = decision_values(problem, alpha, b, grid).reshape(xx.shape)
    draw_class_regions(ax, (f > 0).astype(int), (*xlim, *ylim), 2)
    if np.ptp(f) > 0:
        ax.contour(xx, yy, f, levels=[-1, 0, 1], colors="k", linestyles=["--", "-", "--"], linewidths=1, zorder=1)
    edges, widths, sizes = kkt_outlines(to_numpy(obj.kkt_categories(problem, alpha)))
    ax.scatter(X[:, 0], X[:, 1], c=np.asarray(class_colors(2))[(y > 0).astype(int)], s=sizes, edgecolors=edges,
               linewidths=widths, zorder=3)
    frame_data_axes(ax, xlim, ylim, title)
    if legend:
        binary_legend(ax)
    return ax


def draw_curves(ax, history, label="", keys=("gap",), steps_per_epoch=None):
    """Plot curves of a solver history (``solve(..., record_history=True).history``) on a log scale.

    With ``steps_per_epoch`` the x-axis counts epochs (passes over the data: ``n_iter / steps_per_epoch``),
    so that solvers whose steps cost differently (one coordinate, a pair, a full pass) compare fairly.
    """
    x = np.asarray(history["n_iter"], dtype=float)
    if steps_per_epoch is not None:
        x = x / steps_per_epoch
    for key in keys:
        values = np.maximum(np.asarray(history[key], dtype=float), 1e-16)
        ax.semilogy(x, values, label=f"{label} {key}".strip() if len(keys) > 1 or not label else label)
    ax.set_xlabel("steps" if steps_per_epoch is None else "epochs (passes over the data)")
    ax.legend()
    return ax
