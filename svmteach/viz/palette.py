"""The one class palette of the course: class m is drawn in colour m everywhere.

Points (and anything else that stands for a class: bars, lines) take ``class_colors(k)[m]``,
regions the light version ``region_colors(k)[m]`` of the same hue.  Class m is the m-th
label in sorted order (the ``codes`` of a problem, the ``classes_`` order of an estimator),
so for a binary problem y = -1 is class 0 and y = +1 class 1.

:func:`draw_class_regions` paints a grid of class indices with ``imshow`` and a
``ListedColormap`` whose ``vmin``/``vmax`` are fixed, so index m always gets colour m
(``contourf`` with a named colormap spreads its few levels over the whole map, and the
regions stop matching the points).
"""

from __future__ import annotations

import numpy as np

#: Point colours of up to eight classes (ColorBrewer-like, distinguishable in print and on a projector).
CLASS_COLORS = ("#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363", "#d6616b", "#8c6d31", "#17becf")

#: How far a region colour goes from its class colour towards white (0: the class colour, 1: white).
REGION_LIGHTNESS = 0.72

MAX_CLASSES = len(CLASS_COLORS)


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer number of classes, got {type(k).__name__} {k!r}")
    if not 1 <= k <= MAX_CLASSES:
        raise ValueError(f"k must be between 1 and {MAX_CLASSES} classes to be drawn, got {k}")
    return int(k)


def class_colors(k):
    """The point colours of ``k`` classes, as a tuple of hex strings (class m: entry m)."""
    return CLASS_COLORS[:_check_k(k)]


def region_colors(k):
    """The region colours of ``k`` classes: each class colour mixed with white,
    :math:`c_{\\text{region}} = (1 - t)\\, c + t \\cdot 1` with :math:`t` = ``REGION_LIGHTNESS``; (k, 3) RGB in [0, 1]."""
    from matplotlib.colors import to_rgb

    rgb = np.array([to_rgb(c) for c in class_colors(k)])
    return (1.0 - REGION_LIGHTNESS) * rgb + REGION_LIGHTNESS


def class_cmap(k, light=False):
    """A ``ListedColormap`` of the ``k`` class colours (``light``: the region colours)."""
    from matplotlib.colors import ListedColormap

    return ListedColormap(region_colors(k) if light else class_colors(k))


def draw_class_regions(ax, regions, extent, k, **kwargs):
    """Paint ``regions``, a 2-D array of class indices in {0, ..., k-1} on a regular grid, on ``ax``.

    Parameters
    ----------
    regions : (rows, columns) int array; row r is the r-th y value of the grid (from the bottom).
    extent : (x_min, x_max, y_min, y_max) of the grid's cells.
    k : the number of classes (fixes the colour of each index, whatever indices occur).
    kwargs : passed to ``imshow`` (``zorder``, say).

    Returns the ``AxesImage``: update it with ``image.set_data(new_regions)``.  Nearest-neighbour
    interpolation and ``vmin = -0.5``, ``vmax = k - 0.5`` put index m exactly on colour m.
    """
    style = dict(origin="lower", interpolation="nearest", aspect="auto", zorder=0)
    style.update(kwargs)
    return ax.imshow(np.asarray(regions), extent=tuple(extent), cmap=class_cmap(k, light=True),
                     vmin=-0.5, vmax=k - 0.5, **style)


def class_indices(labels, classes):
    """Indices into the sorted ``classes`` of each entry of ``labels`` (as in ``np.unique``'s order)."""
    classes = np.asarray(classes)
    index = np.searchsorted(classes, labels)
    if np.any(index >= len(classes)) or np.any(classes[np.minimum(index, len(classes) - 1)] != labels):
        raise ValueError("labels must all be among the classes")
    return index
