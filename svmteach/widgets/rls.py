"""RLSPathExplorer: regularized least squares along its whole regularization path (MIT 9.520, Class 06;
Rifkin and Lippert 2007).

The path ``c(lambda) = (K + lambda I)^{-1} Y`` for every lambda of a grid, and the
leave-one-out residuals for every lambda, come from one decomposition of K
(:func:`svmteach.rls.regularization_path`, :func:`svmteach.rls.loo_errors`), so moving
the lambda slider costs nothing but a redraw; moving the kernel or gamma recomputes
the decomposition.  The figure shows the classifier at the chosen lambda, the
coefficients c_i(lambda) of a few samples along the path, and the error rates against
lambda: on the training data, leave-one-out, and on held-out data when some are given.
The training error falls as gamma grows and lambda shrinks; the leave-one-out and held-out
errors do not follow it, which is the point of the panel: a better fit of the training data is
not a better classifier.
"""

from __future__ import annotations

import numpy as np

from ..kernels import make_kernel
from ..validation import check_labels, check_X
from ..rls import check_lambdas, loo_errors, regularization_path
from ..viz import class_colors, draw_class_regions
from ..viz.palette import MAX_CLASSES
from ..viz.regions import cell_grid, data_box, draw_score_boundaries, label_text
from .explorer import log_slider_range
from .narration import rls_sentence
from .figure import (FIGURE_DPI, Displayed, ExplorerBox, FigureView, StatusLine, check_size, figure_inches,
                     fix_layout, paste_legend, style_axes)

KERNELS = ("gaussian", "linear", "polynomial", "laplacian")
GRID = 70
SHOWN_PATHS = 12  # coefficient paths drawn (the samples with the largest |c| at the smallest lambda)


class RLSPathExplorer(Displayed):
    """Explore the RLS regularization path and its leave-one-out curve on 2-D data.

    Parameters
    ----------
    X, y : 2-D points and labels (two classes: one +-1 column; more: one +-1 column per class).
    kernel : str;  gamma : positive float (outside 1e-2..1e2 it widens the slider's range);
    lams : increasing grid of lambdas (default 10^-4 .. 10^2, 61 values);
    lam : the lambda shown first (default: the leave-one-out best).
    X_test, y_test : held-out 2-D points and their labels (among y's classes), or None: their error
        rate against lambda is drawn beside the training and leave-one-out ones.
    size : {"notebook", "classroom", "wide"} or None (None: "notebook", or
    "classroom" after ``svmteach.classroom()``), the figure's width and fonts (:data:`svmteach.widgets.figure.SIZES`).

    Attributes
    ----------
    widget : what to display.  sliders : {"lambda", "gamma"};  dropdowns : {"kernel"};
    buttons : {"best lambda"};  narration : the line under the figure
    (:func:`~svmteach.widgets.narration.rls_sentence`);  state : dict with ``lam``, ``index`` (into ``lams``), ``kernel``,
    ``gamma``, ``coef`` (n, t) at lam, ``path`` (L, n, t), ``loo_mse`` (L,), ``loo_error_rate`` (L,),
    ``train_error_rate`` (L,), ``test_error_rate`` (L,) or None without held-out data, ``best_lam``.
    """

    def __init__(self, X, y, kernel="gaussian", gamma=1.0, lams=None, lam=None, X_test=None, y_test=None,
                 size=None):
        import ipywidgets as w

        self.X = np.asarray(check_X(X, "X", dtype=np.float64))
        if self.X.shape[1] != 2:
            raise ValueError(f"X must hold 2-D points (shape (n, 2)) to be drawn, got shape {self.X.shape}")
        self.classes, self.codes = check_labels(y, self.X.shape[0], "y")
        if not 2 <= len(self.classes) <= MAX_CLASSES:
            raise ValueError(f"y must have 2 to {MAX_CLASSES} classes, got {len(self.classes)}")
        self.lams = check_lambdas(np.logspace(-4, 2, 61) if lams is None else lams)
        if np.any(np.diff(self.lams) <= 0):
            raise ValueError("lams must be increasing")
        if len(self.classes) == 2:
            self.Y = np.where(self.codes == 1, 1.0, -1.0)[:, None]
        else:
            self.Y = np.where(self.codes[:, None] == np.arange(len(self.classes))[None, :], 1.0, -1.0)
        if (X_test is None) != (y_test is None):
            raise ValueError("X_test and y_test must be given together (or neither)")
        self.X_test = self.test_codes = None
        if X_test is not None:
            self.X_test = np.asarray(check_X(X_test, "X_test", dtype=np.float64))
            if self.X_test.shape[1] != 2:
                raise ValueError(f"X_test must hold 2-D points (shape (m, 2)), got shape {self.X_test.shape}")
            y_test = np.asarray(y_test)
            if y_test.shape != (self.X_test.shape[0],):
                raise ValueError(f"y_test must have one label per row of X_test ({self.X_test.shape[0]}), "
                                 f"got shape {y_test.shape}")
            if not np.all(np.isin(y_test, self.classes)):
                raise ValueError(f"y_test's labels must be among y's classes {list(self.classes)}")
            self.test_codes = np.searchsorted(self.classes, y_test)
        self.size = check_size(size)
        lo, hi = np.log10(self.lams[0]), np.log10(self.lams[-1])
        step = (hi - lo) / max(len(self.lams) - 1, 1)
        gamma, gamma_low, gamma_high = log_slider_range("gamma", gamma, -2, 2)  # widened, never clamped
        long = dict(layout=w.Layout(width=f"{self.size.width_px}px"), style={"description_width": "60px"})
        self.sliders = {
            "lambda": w.FloatLogSlider(value=self.lams[0], base=10, min=lo, max=hi, step=step or 0.1,
                                       description="lambda", continuous_update=False, **long),
            "gamma": w.FloatLogSlider(value=gamma, base=10, min=gamma_low, max=gamma_high, step=0.05,
                                      description="gamma", continuous_update=False, **long),
        }
        self.dropdowns = {"kernel": w.Dropdown(options=KERNELS, value=kernel, description="kernel",
                                               layout=w.Layout(width="auto"))}
        self.buttons = {"best lambda": w.Button(description="best lambda", layout=w.Layout(width="auto"))}
        self.status = StatusLine(layout=w.Layout(width=f"{self.size.width_px}px"))
        # under the figure: the lambda shown in a sentence (narration.rls_sentence)
        self.narration = StatusLine(layout=w.Layout(width=f"{self.size.width_px}px"))
        self._figure()
        self._compute()
        self.sliders["lambda"].value = self.state["best_lam"] if lam is None else float(lam)
        self.show(self.sliders["lambda"].value)
        fix_layout(self.fig, self._legend)  # once the first artists exist
        self._figure_view.refresh()
        self.sliders["lambda"].observe(lambda ch: self.show(ch["new"]), names="value")
        self.sliders["gamma"].observe(lambda ch: self._recompute(), names="value")
        self.dropdowns["kernel"].observe(lambda ch: self._recompute(), names="value")
        self.buttons["best lambda"].on_click(lambda _: self._to_best())
        self.widget = ExplorerBox([self.sliders["lambda"], self.sliders["gamma"],
                                   w.HBox([self.dropdowns["kernel"], self.buttons["best lambda"]]),
                                   self.status, self._figure_view.view, self.narration])

    # ---- model -------------------------------------------------------------------------------
    def _compute(self):
        """The path and the leave-one-out residuals for every lambda, from one decomposition each."""
        self.kernel = make_kernel(self.dropdowns["kernel"].value, self.sliders["gamma"].value, 3, 1.0, self.X)
        K = self.kernel(self.X)
        path = regularization_path(K, self.Y, self.lams)  # (L, n, t)
        R = loo_errors(K, self.Y, self.lams)
        loo_scores = self.Y[None] - R
        if self.Y.shape[1] == 1:
            wrong = np.sign(loo_scores[..., 0]) != self.Y[None, :, 0]
        else:
            wrong = np.argmax(loo_scores, axis=2) != self.codes[None, :]
        loo_mse = np.mean(R ** 2, axis=(1, 2))
        # training scores f(x_j) = sum_i c_i(lambda) k(x_i, x_j) for every lambda: K @ path
        train_error = self._error_rates(np.einsum("jm,lmt->ljt", K, path), self.codes)
        test_error = None
        if self.X_test is not None:
            test_error = self._error_rates(np.einsum("jm,lmt->ljt", self.kernel(self.X_test, self.X), path),
                                           self.test_codes)
        self.state = dict(kernel=self.kernel.name, gamma=self.kernel.gamma, path=path, loo_mse=loo_mse,
                          loo_error_rate=wrong.mean(axis=1), train_error_rate=train_error,
                          test_error_rate=test_error, best_lam=float(self.lams[int(np.argmin(loo_mse))]),
                          lam=float("nan"), index=-1, coef=None)
        self._artists = None

    def _error_rates(self, scores, codes):
        """(L,) the fraction of points misclassified at each lambda, from their (L, m, t) scores: the sign
        of the one column (two classes), else the largest column (one versus all)."""
        if scores.shape[2] == 1:
            predicted = (scores[..., 0] > 0).astype(int)
        else:
            predicted = np.argmax(scores, axis=2)
        return np.mean(predicted != codes[None, :], axis=1)

    def _recompute(self):
        self._compute()
        self.show(self.sliders["lambda"].value)

    def _to_best(self):
        self.sliders["lambda"].value = self.state["best_lam"]  # the observer redraws
        self.show(self.state["best_lam"])

    def show(self, lam):
        """Show the path's solution at the grid lambda nearest to ``lam`` (no solve: the path has it)."""
        index = int(np.argmin(np.abs(np.log(self.lams) - np.log(float(lam)))))
        self.state.update(lam=float(self.lams[index]), index=index, coef=self.state["path"][index])
        self.redraw()

    def decision(self, Z):
        """(m, t) scores of new points at the chosen lambda: :math:`f(z) = \\sum_i c_i k(x_i, z)`."""
        return self.kernel(np.asarray(Z, dtype=np.float64), self.X) @ self.state["coef"]

    # ---- drawing -------------------------------------------------------------------------------
    def _figure(self):
        """The data on the left; the coefficient paths and the error rates against lambda on the right."""
        import matplotlib.pyplot as plt

        with plt.ioff():
            self.fig = plt.figure(figsize=figure_inches(self.size), dpi=FIGURE_DPI)
        grid = self.fig.add_gridspec(2, 2, width_ratios=(1.1, 1))
        self.ax_data = self.fig.add_subplot(grid[:, 0])
        self.ax_path, self.ax_loo = self.fig.add_subplot(grid[0, 1]), self.fig.add_subplot(grid[1, 1])
        self._legend = None
        self._figure_view = FigureView(self.fig)

    def _init_artists(self):
        from matplotlib.lines import Line2D

        X, s, k, size = self.X, self.state, len(self.classes), self.size
        xlim, ylim = data_box(X if self.X_test is None else np.vstack([X, self.X_test]), 0.7)
        self._grid = cell_grid(xlim, ylim, GRID)
        for ax in (self.ax_data, self.ax_path, self.ax_loo):
            ax.clear()
        self._lines = []
        self._regions = draw_class_regions(self.ax_data, np.zeros((GRID, GRID), dtype=int), (*xlim, *ylim), k)
        colors = class_colors(k)
        self.ax_data.scatter(X[:, 0], X[:, 1], c=np.asarray(colors)[self.codes], s=30, zorder=3)
        if self.X_test is not None:  # held-out points: hollow, in their class colour
            self.ax_data.scatter(self.X_test[:, 0], self.X_test[:, 1], s=16, zorder=2, facecolors="none",
                                 edgecolors=np.asarray(colors)[self.test_codes], linewidths=0.8)
        self.ax_data.set_xlim(xlim)
        self.ax_data.set_ylim(ylim)
        self.ax_data.set_aspect("equal")
        style_axes(self.ax_data, size, xlabel="x\u2081", ylabel="x\u2082")
        path = s["path"][:, :, 0]
        shown = np.argsort(-np.abs(path[0]))[:SHOWN_PATHS]
        for i in shown:
            self.ax_path.semilogx(self.lams, path[:, i], color=colors[self.codes[i]], lw=1)
        self.ax_path.axhline(0, color="gray", lw=0.5)
        style_axes(self.ax_path, size, title=f"coefficients of {len(shown)} samples", xlabel="\u03bb",
                   ylabel="c\u1d62(\u03bb)")
        # black and greys: the class colours stay for the classes
        ax = self.ax_loo
        ax.semilogx(self.lams, s["train_error_rate"], color="#969696", lw=1.5, label="training")
        ax.semilogx(self.lams, s["loo_error_rate"], color="black", lw=2, label="leave-one-out")
        if s["test_error_rate"] is not None:
            ax.semilogx(self.lams, s["test_error_rate"], color="black", lw=1.5, ls="--", label="held-out")
        best = int(np.argmin(s["loo_mse"]))
        ax.plot([self.lams[best]], [s["loo_error_rate"][best]], "k*", ms=11,
                label="best \u03bb (LOO squared residual)")
        ax.set_ylim(bottom=0)
        style_axes(ax, size, title=f"error rates, \u03b3 = {s['gamma']:.3g}", xlabel="\u03bb", ylabel="error rate")
        ax.legend(fontsize=size.font - 1.5, loc="lower right", framealpha=0.85)
        self._markers = [self.ax_path.axvline(self.lams[0], color="k", ls="--", lw=1),
                         self.ax_loo.axvline(self.lams[0], color="k", ls="--", lw=1)]
        if self._legend is None:  # the classes; hollow: held-out points
            handles = [Line2D([], [], ls="none", marker="o", markersize=7, markerfacecolor=c, markeredgecolor="none",
                              label=f"class {label_text(label)}") for c, label in zip(colors, self.classes)]
            if self.X_test is not None:
                handles.append(Line2D([], [], ls="none", marker="o", markersize=7, markerfacecolor="none",
                                      markeredgecolor="#636363", label="held-out point"))
            self._legend = paste_legend(self.fig, handles, size, ncol=min(len(handles), 4))
        self._artists = True

    def redraw(self):
        if self._artists is None:
            self._init_artists()
        s = self.state
        xx, yy, grid = self._grid
        scores = self.decision(grid)
        # two classes: one column, class 1 where f > 0; more: one column per class, the largest score wins
        region = (scores[:, 0] > 0).astype(int) if scores.shape[1] == 1 else np.argmax(scores, axis=1)
        region = region.reshape(xx.shape)
        self._regions.set_data(region)
        for artist in self._lines:
            artist.remove()
        # the boundaries from the scores (where the two largest tie), not a contour of the class numbers
        self._lines = draw_score_boundaries(self.ax_data, xx, yy, scores)
        for m in self._markers:
            m.set_xdata([s["lam"], s["lam"]])
        i = s["index"]
        self.ax_data.set_title(f"RLS, {s['kernel']} kernel: \u03bb = {s['lam']:.3g}", fontsize=self.size.font)
        held_out = "" if s["test_error_rate"] is None else f", held-out {s['test_error_rate'][i]:.3f}"
        self.status.value = (f"lambda = {s['lam']:.3g}, gamma = {s['gamma']:.3g}: error rate training "
                             f"{s['train_error_rate'][i]:.3f}, leave-one-out {s['loo_error_rate'][i]:.3f}{held_out}; "
                             f"leave-one-out mean squared residual {s['loo_mse'][i]:.4f}; best lambda {s['best_lam']:.3g}")
        self.narration.value = rls_sentence(s, len(self.X))
        self._figure_view.refresh()
