"""Drawing a binary SVM: points, decision boundary, the +-1 margins, support vectors by KKT category."""

from __future__ import annotations

import numpy as np

from .. import objectives as obj
from ..backend import to_numpy

CATEGORY_STYLE = {
    obj.AT_ZERO: dict(edgecolors="none", s=30, label=r"$\alpha_i = 0$"),
    obj.FREE: dict(edgecolors="black", linewidths=1.5, s=70, label=r"$0 < \alpha_i < C$ (on the margin)"),
    obj.AT_C: dict(edgecolors="red", linewidths=1.5, s=70, label=r"$\alpha_i = C$ (inside or wrong side)"),
}


def decision_grid(problem, alpha, b, xlim, ylim, resolution=150):
    """``(xx, yy, f)``: the decision function on a grid over the 2-D box ``xlim x ylim``."""
    xx, yy = np.meshgrid(np.linspace(*xlim, resolution), np.linspace(*ylim, resolution))
    grid = np.column_stack([xx.ravel(), yy.ravel()])
    coef = to_numpy(alpha) * to_numpy(problem.y)
    keep = np.flatnonzero(coef)
    if keep.size == 0:
        f = np.full(grid.shape[0], float(b))
    else:
        from ..kernels import gram

        f = coef[keep] @ gram(to_numpy(problem.X)[keep], grid, problem.kernel) + b
    return xx, yy, f.reshape(xx.shape)


def draw_binary(ax, problem, alpha, b=0.0, title=None, pad=0.5):
    """Draw a 2-D binary problem and the classifier of ``alpha`` (and bias ``b``) on ``ax``.

    The boundary f = 0 is solid, the margins f = +-1 dashed; the points are
    coloured by class and outlined by their KKT category.  Returns ``ax``.
    """
    X, y = to_numpy(problem.X), to_numpy(problem.y)
    if X.shape[1] != 2:
        raise ValueError(f"draw_binary needs 2-D points, X has {X.shape[1]} features")
    xlim = (X[:, 0].min() - pad, X[:, 0].max() + pad)
    ylim = (X[:, 1].min() - pad, X[:, 1].max() + pad)
    xx, yy, f = decision_grid(problem, alpha, b, xlim, ylim)
    ax.contourf(xx, yy, f, levels=[-1e9, 0, 1e9], colors=["#fde0dd", "#deebf7"], alpha=0.8)
    if np.ptp(f) > 0:
        ax.contour(xx, yy, f, levels=[-1, 0, 1], colors="k", linestyles=["--", "-", "--"], linewidths=1)
    cats = to_numpy(obj.kkt_categories(problem, alpha))
    colors = np.where(y > 0, "#3182bd", "#e6550d")
    for cat, style in CATEGORY_STYLE.items():
        mask = cats == cat
        if mask.any():
            ax.scatter(X[mask, 0], X[mask, 1], c=colors[mask], zorder=3, **style)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    ax.set_aspect("equal")
    if title:
        ax.set_title(title)
    return ax


def draw_curves(ax, history, label="", keys=("gap",)):
    """Plot curves of a solver history (``solve(..., record_history=True).history``) on a log scale."""
    n_iter = np.asarray(history["n_iter"])
    for key in keys:
        values = np.maximum(np.asarray(history[key], dtype=float), 1e-16)
        ax.semilogy(n_iter, values, label=f"{label} {key}".strip())
    ax.set_xlabel("steps")
    ax.legend()
    return ax
