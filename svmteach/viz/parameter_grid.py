"""Choosing C and gamma: a heatmap of validation accuracy and a grid of decision boundaries.

The two figures of scikit-learn's gallery example "RBF SVM parameters", drawn for any fitted
binary classifiers (this library's ``BinarySVC`` in the course).  The models are fitted by the
caller, ``models[r][c]`` for ``gammas[r]`` and ``Cs[c]`` (:func:`fit_grid` does it from a factory),
so that this module, like the rest of ``viz``, only draws.

- :func:`grid_accuracy`: the fraction of held-out points each model classifies correctly;
- :func:`draw_accuracy_heatmap`: those accuracies as coloured cells, each with its value written in it;
- :func:`draw_boundary_grid`: one panel per model, its class regions, the points and its support
  vectors ringed (:func:`mark_support_vectors`).
"""

from __future__ import annotations

import numpy as np

from .palette import class_indices, draw_class_regions
from .regions import cell_grid, data_box, frame_data_axes, scatter_classes

#: The ring drawn around a support vector: a black circle, larger than the point, not filled.
SUPPORT_VECTOR_STYLE = dict(s=110, facecolors="none", edgecolors="black", linewidths=1.3, zorder=4)


def fit_grid(make_model, X, y, Cs, gammas):
    """``models[r][c]``: ``make_model(C=Cs[c], gamma=gammas[r])`` fitted on ``(X, y)``, one row per gamma."""
    return [[make_model(C=C, gamma=gamma).fit(X, y) for C in Cs] for gamma in gammas]


def grid_accuracy(models, X, y):
    """``(len(gammas), len(Cs))`` array: the fraction of the points ``X`` that each model labels as ``y``."""
    y = np.asarray(y)
    return np.array([[float(np.mean(model.predict(X) == y)) for model in row] for row in models])


def _tick_label(value):
    """A grid value as short text: 0.01, 0.1, 1, 10, 100 (no trailing '.0')."""
    return f"{value:g}"


def draw_accuracy_heatmap(ax, accuracy, Cs, gammas, cmap="viridis", vmin=None, vmax=1.0, fontsize=11):
    """Draw ``accuracy[r, c]`` (gamma ``gammas[r]``, C ``Cs[c]``) as a heatmap, each value written in its cell.

    Rows are gamma (smallest at the bottom), columns C (smallest at the left), as in the gallery
    example.  The values are written to two decimals, in white on dark cells and black on light ones.
    Returns the ``AxesImage`` (its array is ``accuracy``; the texts are ``ax.texts``, row by row).
    """
    accuracy = np.asarray(accuracy, dtype=np.float64)
    if accuracy.shape != (len(gammas), len(Cs)):
        raise ValueError(f"accuracy must have shape (len(gammas), len(Cs)) = {(len(gammas), len(Cs))}, "
                         f"got {accuracy.shape}")
    vmin = float(np.floor(accuracy.min() * 10) / 10) if vmin is None else vmin
    image = ax.imshow(accuracy, origin="lower", cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto",
                      interpolation="nearest")
    middle = (vmin + vmax) / 2
    for r in range(len(gammas)):
        for c in range(len(Cs)):
            value = accuracy[r, c]
            ax.text(c, r, f"{value:.2f}", ha="center", va="center", fontsize=fontsize,
                    color="black" if value > middle else "white")
    ax.set_xticks(range(len(Cs)), [_tick_label(C) for C in Cs])
    ax.set_yticks(range(len(gammas)), [_tick_label(g) for g in gammas])
    ax.set_xlabel("C")
    ax.set_ylabel(r"$\gamma$")
    return image


def mark_support_vectors(ax, points, label="support vector", **kwargs):
    """Ring the 2-D ``points`` (the support vectors) in black on ``ax``; returns the collection."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    style = dict(SUPPORT_VECTOR_STYLE)
    style.update(kwargs)
    return ax.scatter(points[:, 0], points[:, 1], label=label, **style)


def draw_boundary_grid(axes, models, X, y, Cs, gammas, pad=0.5, resolution=150, s=18, fontsize=11):
    """Draw, on ``axes[r][c]``, the class regions of ``models[r][c]`` with the points ``(X, y)`` and
    the model's support vectors ringed (``support_vectors_``, or ``X[support_]``).

    Each panel is titled with its C and gamma and labelled :math:`x_1`, :math:`x_2`.  The regions are
    painted from ``predict`` on the centres of a ``resolution x resolution`` grid over the data's box
    (``draw_class_regions``: class m of ``classes_`` in region colour m).  Returns a dict per panel,
    ``{"regions": AxesImage, "support": PathCollection}``, in the shape of ``models``.
    """
    X = np.asarray(X, dtype=np.float64)
    xlim, ylim = data_box(X, pad)
    xx, _, grid = cell_grid(xlim, ylim, resolution)
    drawn = []
    for r, (row_axes, row_models) in enumerate(zip(axes, models)):
        drawn_row = []
        for c, (ax, model) in enumerate(zip(row_axes, row_models)):
            classes = np.asarray(model.classes_)
            k = len(classes)
            regions = class_indices(model.predict(grid), classes).reshape(xx.shape)
            image = draw_class_regions(ax, regions, (*xlim, *ylim), k)
            scatter_classes(ax, X, class_indices(np.asarray(y), classes), k, s=s)
            support = getattr(model, "support_vectors_", None)
            support = X[np.asarray(model.support_)] if support is None else np.asarray(support)
            ring = mark_support_vectors(ax, support, s=3.5 * s)
            frame_data_axes(ax, xlim, ylim,
                            f"C = {_tick_label(Cs[c])}, $\\gamma$ = {_tick_label(gammas[r])}\n"
                            f"{len(support)} support vectors")
            ax.title.set_fontsize(fontsize)
            ax.set_xlabel("$x_1$", fontsize=fontsize)
            ax.set_ylabel("$x_2$", fontsize=fontsize)
            ax.tick_params(labelsize=fontsize - 2)
            drawn_row.append({"regions": image, "support": ring})
        drawn.append(drawn_row)
    return drawn
