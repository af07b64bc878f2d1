"""Class regions of a classifier on the plane, and the grid they are evaluated on.

The explorers and the notebooks' static figures share these: a box around the data, a grid of
cell centres over it (so that ``imshow`` with ``extent = box`` puts each value on its own
cell), and the regions painted in the class palette with the points on top.
"""

from __future__ import annotations

import numpy as np

from .palette import class_colors, class_indices, draw_class_regions


def data_box(X, pad):
    """``(xlim, ylim)``: the box around the 2-D points ``X`` widened by ``pad`` on every side."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must hold 2-D points (shape (n, 2)) to be drawn, got shape {X.shape}")
    return (X[:, 0].min() - pad, X[:, 0].max() + pad), (X[:, 1].min() - pad, X[:, 1].max() + pad)


def cell_grid(xlim, ylim, resolution):
    """``(xx, yy, points)``: the centres of a ``resolution x resolution`` grid of cells covering
    ``xlim x ylim`` (``xx[r, c]`` is column c's x, ``yy[r, c]`` row r's y, rows from the bottom), and
    the same centres as rows of a (resolution**2, 2) array for a decision function."""
    def centres(lo, hi):  # lo + (i + 1/2) (hi - lo) / resolution, i = 0 .. resolution - 1
        return lo + (np.arange(resolution) + 0.5) * (hi - lo) / resolution

    xx, yy = np.meshgrid(centres(*xlim), centres(*ylim))
    return xx, yy, np.column_stack([xx.ravel(), yy.ravel()])


def frame_data_axes(ax, xlim, ylim, title=None):
    """The data panel's frame: its box, equal scales on both axes, and the title if any."""
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    ax.set_aspect("equal")
    if title:
        ax.set_title(title)


def scatter_classes(ax, X, codes, k, **kwargs):
    """The points ``X`` in their class colours (``codes``: class indices in 0 .. k-1); returns the collection."""
    style = dict(s=30, zorder=3, edgecolors="white", linewidths=0.5)
    style.update(kwargs)
    return ax.scatter(X[:, 0], X[:, 1], c=np.asarray(class_colors(k))[np.asarray(codes)], **style)


def label_text(value):
    """A class label as text: whole numbers without their ".0" (labels -1.0 and 1.0 read -1 and 1)."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def class_legend(ax, classes, loc="best", fontsize=11, title="class", **kwargs):
    """A legend with one filled marker per class, in the palette (the points' colours)."""
    from matplotlib.lines import Line2D

    colors = class_colors(len(classes))
    handles = [Line2D([], [], ls="none", marker="o", markersize=7, markerfacecolor=c, markeredgecolor="white",
                      label=label_text(label)) for c, label in zip(colors, classes)]
    return ax.legend(handles=handles, loc=loc, fontsize=fontsize, title=title, title_fontsize=fontsize, **kwargs)


def draw_decision_regions(ax, model, X, y, pad=1.0, resolution=200, title=None, legend=True, s=30):
    """Draw the class regions of a fitted classifier and its 2-D training points on ``ax``.

    Parameters
    ----------
    model : a fitted scikit-learn style classifier (``predict`` and ``classes_``), of 2 to 8 classes.
    X, y : (n, 2) points and their labels (drawn in their classes' colours).
    pad : how far the drawn box reaches beyond the points.
    resolution : cells per side of the grid the regions are evaluated on.
    title : str or None;  legend : draw a legend of the classes;  s : marker size.

    The region of class m is painted in ``region_colors(k)[m]`` and its points in
    ``class_colors(k)[m]`` (class m = the m-th entry of ``model.classes_``).  Returns ``ax``.
    """
    classes = np.asarray(model.classes_)
    k = len(classes)
    xlim, ylim = data_box(X, pad)
    xx, _, grid = cell_grid(xlim, ylim, resolution)
    regions = class_indices(model.predict(grid), classes).reshape(xx.shape)
    draw_class_regions(ax, regions, (*xlim, *ylim), k)
    scatter_classes(ax, np.asarray(X, dtype=np.float64), class_indices(np.asarray(y), classes), k, s=s)
    frame_data_axes(ax, xlim, ylim, title)
    if legend:
        class_legend(ax, classes)
    return ax


def draw_score_lines(ax, W, **kwargs):
    """Dashed lines :math:`w_m^\\top x = 0`, one per row of ``W`` (k, 2), in the class colours, across ``ax``'s box."""
    W = np.asarray(W, dtype=np.float64)
    colors = class_colors(len(W))
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    style = dict(lw=1.5, ls="--", zorder=2)
    style.update(kwargs)
    lines = []
    for m, w in enumerate(W):
        if abs(w[1]) >= abs(w[0]) and w[1] != 0:  # x2 = -w1 x1 / w2
            x1 = np.array(xlim)
            lines += ax.plot(x1, -w[0] * x1 / w[1], color=colors[m], **style)
        elif w[0] != 0:  # x1 = -w2 x2 / w1: a steep line drawn along x2
            x2 = np.array(ylim)
            lines += ax.plot(-w[1] * x2 / w[0], x2, color=colors[m], **style)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return lines


def score_boundaries(xx, yy, scores):
    """The boundaries between class regions, from the scores: ``[(a, b, d), ...]``, one per pair of classes
    a < b that meet, with ``d`` the masked (rows, columns) array of :math:`s_a - s_b` on the grid, kept only
    where a and b lead (elsewhere masked).

    The region of z is :math:`\\arg\\max_m s_m(z)`; the boundary between a and b is where
    :math:`s_a = s_b` and no other score is larger, the zero level of ``d``.  "a and b lead" where no other
    score exceeds the smaller of the two, except one exactly equal to the larger: two classes whose rows of
    W are still equal (early steps) tie everywhere, and the edge of the one that takes the tie is kept.
    A contour over the class numbers instead (levels 0.5, 1.5, ...) follows the grid's cells as a staircase, and draws the
    boundary between classes 0 and 3 three times (levels 0.5, 1.5 and 2.5).  For linear scores the zero
    level of ``d`` interpolated on the grid is exact.  One column of scores (two classes, class 1 where
    :math:`s > 0`) has the one boundary ``(0, 1, s)``.
    """
    S = np.asarray(scores, dtype=np.float64).reshape(*np.shape(xx), -1)
    if S.shape[2] == 1:
        return [(0, 1, np.ma.masked_invalid(S[..., 0]))] if S.min() < 0 < S.max() else []
    k = S.shape[2]
    found = []
    for a in range(k):
        for b in range(a + 1, k):
            lo, hi = np.minimum(S[..., a], S[..., b]), np.maximum(S[..., a], S[..., b])
            others = S[..., [m for m in range(k) if m not in (a, b)]]
            # a and b lead: no other class above the lower of the two, but for one tied exactly with the leader
            lead = np.all((others <= lo[..., None]) | (others == hi[..., None]), axis=2)
            if not lead.any():
                continue
            d = np.ma.array(S[..., a] - S[..., b], mask=~lead)
            if d.min() < 0 < d.max():  # both sides of the tie occur where the two lead
                found.append((a, b, d))
    return found


def draw_score_boundaries(ax, xx, yy, scores, **kwargs):
    """Draw the boundaries of :func:`score_boundaries` on ``ax`` (black lines of width 1 unless ``kwargs``
    say otherwise); returns the list of contour sets (``remove()`` each to redraw)."""
    style = dict(colors="k", linewidths=1, zorder=1)
    style.update(kwargs)
    return [ax.contour(xx, yy, d, levels=[0.0], **style) for _, _, d in score_boundaries(xx, yy, scores)]
