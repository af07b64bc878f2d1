"""RLSPathExplorer: regularized least squares along its whole regularization path (seeds 003 and 004).

The path ``c(lambda) = (K + lambda I)^{-1} Y`` for every lambda of a grid, and the
leave-one-out residuals for every lambda, come from one decomposition of K
(:func:`svmteach.rls.regularization_path`, :func:`svmteach.rls.loo_errors`), so moving
the lambda slider costs nothing but a redraw; moving the kernel or gamma recomputes
the decomposition.  The figure shows the classifier at the chosen lambda, the
coefficients c_i(lambda) of a few samples along the path, and the leave-one-out curve
(mean squared residual and error rate) with the chosen and the best lambda.
"""

from __future__ import annotations

import numpy as np

from ..kernels import make_kernel
from ..problems import check_labels, check_X
from ..rls import check_lambdas, loo_errors, regularization_path
from ..viz import class_colors, draw_class_regions
from ..viz.palette import MAX_CLASSES
from ..viz.regions import cell_grid, data_box
from .figure import FIGURE_DPI, Displayed, ExplorerBox, FigureView

KERNELS = ("gaussian", "linear", "polynomial", "laplacian")
GRID = 70
SHOWN_PATHS = 12  # coefficient paths drawn (the samples with the largest |c| at the smallest lambda)


class RLSPathExplorer(Displayed):
    """Explore the RLS regularization path and its leave-one-out curve on 2-D data.

    Parameters
    ----------
    X, y : 2-D points and labels (two classes: one +-1 column; more: one +-1 column per class).
    kernel : str;  gamma : float;  lams : increasing grid of lambdas (default 10^-4 .. 10^2, 61 values);
    lam : the lambda shown first (default: the leave-one-out best).

    Attributes
    ----------
    widget : what to display.  sliders : {"lambda", "gamma"};  dropdowns : {"kernel"};
    buttons : {"best lambda"};  state : dict with ``lam``, ``index`` (into ``lams``), ``kernel``,
    ``gamma``, ``coef`` (n, t) at lam, ``path`` (L, n, t), ``loo_mse`` (L,), ``loo_error_rate`` (L,),
    ``best_lam``.
    """

    def __init__(self, X, y, kernel="gaussian", gamma=1.0, lams=None, lam=None):
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
        lo, hi = np.log10(self.lams[0]), np.log10(self.lams[-1])
        step = (hi - lo) / max(len(self.lams) - 1, 1)
        self.sliders = {
            "lambda": w.FloatLogSlider(value=self.lams[0], base=10, min=lo, max=hi, step=step or 0.1,
                                       description="lambda", continuous_update=False),
            "gamma": w.FloatLogSlider(value=gamma, base=10, min=-2, max=2, step=0.05, description="gamma",
                                      continuous_update=False),
        }
        self.dropdowns = {"kernel": w.Dropdown(options=KERNELS, value=kernel, description="kernel")}
        self.buttons = {"best lambda": w.Button(description="best lambda")}
        self.status = w.HTML()
        self._figure()
        self._compute()
        self.sliders["lambda"].value = self.state["best_lam"] if lam is None else float(lam)
        self.show(self.sliders["lambda"].value)
        self.sliders["lambda"].observe(lambda ch: self.show(ch["new"]), names="value")
        self.sliders["gamma"].observe(lambda ch: self._recompute(), names="value")
        self.dropdowns["kernel"].observe(lambda ch: self._recompute(), names="value")
        self.buttons["best lambda"].on_click(lambda _: self._to_best())
        self.widget = ExplorerBox([
            w.HBox([self.sliders["lambda"], self.sliders["gamma"], self.dropdowns["kernel"], self.buttons["best lambda"]]),
            self.status, self._figure_view.view])

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
        self.state = dict(kernel=self.kernel.name, gamma=self.kernel.gamma, path=path, loo_mse=loo_mse,
                          loo_error_rate=wrong.mean(axis=1), best_lam=float(self.lams[int(np.argmin(loo_mse))]),
                          lam=float("nan"), index=-1, coef=None)
        self._artists = None

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
        import matplotlib.pyplot as plt

        with plt.ioff():
            self.fig, (self.ax_data, self.ax_path, self.ax_loo) = plt.subplots(
                1, 3, figsize=(10.5, 3.5), dpi=FIGURE_DPI, gridspec_kw={"width_ratios": [1.2, 1, 1]})
            self.fig.subplots_adjust(left=0.05, right=0.98, bottom=0.15, top=0.9, wspace=0.32)
        self._figure_view = FigureView(self.fig)

    def _init_artists(self):
        X, s, k = self.X, self.state, len(self.classes)
        xlim, ylim = data_box(X, 0.7)
        self._grid = cell_grid(xlim, ylim, GRID)
        for ax in (self.ax_data, self.ax_path, self.ax_loo):
            ax.clear()
        self._lines = []
        self._regions = draw_class_regions(self.ax_data, np.zeros((GRID, GRID), dtype=int), (*xlim, *ylim), k)
        colors = class_colors(k)
        self.ax_data.scatter(X[:, 0], X[:, 1], c=np.asarray(colors)[self.codes], s=30, zorder=3)
        self.ax_data.set_xlim(xlim)
        self.ax_data.set_ylim(ylim)
        self.ax_data.set_aspect("equal")
        path = s["path"][:, :, 0]
        shown = np.argsort(-np.abs(path[0]))[:SHOWN_PATHS]
        for i in shown:
            self.ax_path.semilogx(self.lams, path[:, i], color=colors[self.codes[i]], lw=1)
        self.ax_path.axhline(0, color="gray", lw=0.5)
        self.ax_path.set_title(f"coefficients $c_i(\\lambda)$ ({len(shown)} samples, first output)")
        self.ax_path.set_xlabel(r"$\lambda$")
        # black and grey: the class colours stay for the classes
        self.ax_loo.loglog(self.lams, s["loo_mse"], color="black", label="mean squared LOO residual")
        self.ax_loo.loglog(self.lams, np.maximum(s["loo_error_rate"], 1e-3), color="#969696", ls="--",
                           label="LOO error rate (floor 1e-3)")
        best = int(np.argmin(s["loo_mse"]))
        self.ax_loo.plot([self.lams[best]], [s["loo_mse"][best]], "k*", ms=10, label="best")
        self.ax_loo.set_xlabel(r"$\lambda$")
        self.ax_loo.legend(fontsize=8, loc="lower right")
        self._markers = [self.ax_path.axvline(self.lams[0], color="k", ls="--", lw=1),
                         self.ax_loo.axvline(self.lams[0], color="k", ls="--", lw=1)]
        self._artists = True

    def redraw(self):
        if self._artists is None:
            self._init_artists()
        s = self.state
        xx, yy, grid = self._grid
        scores = self.decision(grid)
        k = len(self.classes)
        # two classes: one column, class 1 where f > 0; more: one column per class, the largest score wins
        region = (scores[:, 0] > 0).astype(int) if scores.shape[1] == 1 else np.argmax(scores, axis=1)
        region = region.reshape(xx.shape)
        self._regions.set_data(region)
        for artist in self._lines:
            artist.remove()
        self._lines = []
        if np.ptp(region) > 0:
            self._lines.append(self.ax_data.contour(xx, yy, region, levels=np.arange(k) + 0.5, colors="k",
                                                    linewidths=1, zorder=1))
        for m in self._markers:
            m.set_xdata([s["lam"], s["lam"]])
        i = s["index"]
        self.ax_data.set_title(f"RLS, {s['kernel']} kernel: lambda = {s['lam']:.3g}")
        self.status.value = (f"lambda = {s['lam']:.3g}: leave-one-out mean squared residual {s['loo_mse'][i]:.4f}, "
                             f"error rate {s['loo_error_rate'][i]:.3f}; best lambda {s['best_lam']:.3g}")
        self._figure_view.refresh()
