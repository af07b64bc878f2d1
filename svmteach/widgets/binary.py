"""BinaryExplorer: watch SMO, dual coordinate ascent or the primal subgradient method solve a 2-D problem.

Controls: a log-scale C slider, the kernel and gamma, the solver and SMO's
working-set rule, buttons "step", "10 steps", "to convergence", "reset", and a
Play widget that steps on every tick.  The figure shows the data, the decision
boundary and the +-1 margins, the points outlined by KKT category, the dual
variables as bars, and primal / dual / gap curves on a log scale.  Clicking the
plot adds a point of class +1 (shift-click or right-click: class -1) or, in the
"remove" mode of the click control (or with ctrl-click), removes the nearest
point, as in LIBSVM's svm-toy.

With ipympl (``%matplotlib widget``) the canvas is itself a widget and is redrawn
in place; elsewhere the figure is shown in an ``Output`` widget and re-rendered.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from .. import objectives as obj
from ..problems import BinaryProblem
from ..solvers import BINARY_SOLVERS, SMO, DualCoordinateAscent, PrimalSubgradient
from ..solvers.smo import RULES
from .editing import with_point
from .explorer import SolverExplorer
from .figure import plot_grid

KERNELS = ("linear", "gaussian", "polynomial", "laplacian")
GRID = 60  # points per side of the grid the decision function is drawn on


class BinaryExplorer(SolverExplorer):
    """An interactive explorer of the binary solvers.

    Parameters
    ----------
    X, y : the 2-D points and their two labels.
    C : float;  kernel : str;  gamma : float;  solver : {"smo", "dual_cd", "primal_subgradient"};
    selection : SMO's working-set rule;  tol : the relative gap "to convergence" stops at;
    random_state : int.

    Attributes
    ----------
    widget : what to display.  sliders, buttons, dropdowns : dicts of the controls by name.
    play : the ipywidgets.Play driving animation.  state : the solver state shown.
    problem : the BinaryProblem being solved.  history : list of (n_iter, primal, dual, gap).
    """

    def __init__(self, X, y, C=1.0, kernel="linear", gamma=1.0, solver="smo", selection="second_order",
                 tol=1e-4, random_state=0):
        import ipywidgets as w

        self.X = np.array(X, dtype=np.float64)
        self.y = np.array(y)
        self.tol = float(tol)
        self.random_state = random_state
        self.sliders = {
            "C": w.FloatLogSlider(value=C, base=10, min=-3, max=3, step=0.05, description="C",
                                  continuous_update=False),
            "gamma": w.FloatLogSlider(value=gamma, base=10, min=-2, max=2, step=0.05, description="gamma",
                                      continuous_update=False),
        }
        self.dropdowns = {
            "kernel": w.Dropdown(options=KERNELS, value=kernel, description="kernel"),
            "solver": w.Dropdown(options=tuple(BINARY_SOLVERS), value=solver, description="solver"),
            "selection": w.Dropdown(options=RULES, value=selection, description="rule"),
            "click": w.ToggleButtons(options=("add +1", "add -1", "remove"), value="add +1",
                                     description="click"),
        }
        self._start([w.HBox([self.sliders["C"], self.sliders["gamma"]]),
                     w.HBox([self.dropdowns[k] for k in ("kernel", "solver", "selection")])])
        self.sliders["C"].observe(lambda ch: self._on_C(), names="value")
        for ctl in (self.sliders["gamma"], *(d for k, d in self.dropdowns.items() if k != "click")):
            ctl.observe(lambda ch: self._rebuild(), names="value")

    # ---- model -------------------------------------------------------------------------------
    def _make_solver(self):
        name = self.dropdowns["solver"].value
        if name == "smo":
            return SMO(self.dropdowns["selection"].value, random_state=self.random_state)
        if name == "dual_cd":
            return DualCoordinateAscent(random_state=self.random_state)
        return PrimalSubgradient()

    def _rebuild(self):
        """New problem (kernel, gamma, data) and a fresh solver state."""
        self.problem = BinaryProblem(self.X, self.y, C=self.sliders["C"].value, kernel=self.dropdowns["kernel"].value,
                                     gamma=self.sliders["gamma"].value, degree=3, coef0=1.0)
        self.reset()

    def _on_C(self):
        """Moving C keeps the Gram matrix, re-solves to ``tol`` and redraws once (as in class)."""
        self.problem = self.problem.with_C(self.sliders["C"].value)
        self.reset(redraw=False)
        self.converge()

    def _add_clicked(self, x1, x2, mode, other):
        self.add_point(x1, x2, positive=(mode == "add -1") == other)

    def add_point(self, x1, x2, positive=True):
        """Add a training point (the plot's click handler calls this) and restart the solver."""
        labels = np.unique(self.y)
        self.X, self.y = with_point(self.X, self.y, x1, x2, labels[-1] if positive else labels[0])
        self._rebuild()

    # ---- drawing -------------------------------------------------------------------------------
    def _init_artists(self):
        """Create the artists once per data set; :meth:`redraw` only updates them."""
        X, y = self.problem.X, self.problem.y
        self._xlim, self._ylim, self._grid = plot_grid(X, 0.5, GRID)
        for ax in (self.ax_data, self.ax_alpha, self.ax_curve):
            ax.clear()
        self._contours = []
        # the two half-planes as one image (updated with set_data), the lines f = -1, 0, 1 as contours
        from matplotlib.colors import ListedColormap

        self._sides = self.ax_data.imshow(np.zeros((GRID, GRID)), extent=(*self._xlim, *self._ylim), origin="lower",
                                          cmap=ListedColormap(["#fde0dd", "#deebf7"]), vmin=0, vmax=1,
                                          interpolation="nearest", aspect="auto", alpha=0.8, zorder=0)
        face = np.where(y > 0, "#3182bd", "#e6550d")
        self._points = self.ax_data.scatter(X[:, 0], X[:, 1], c=face, s=40, zorder=3)
        self._pair = self.ax_data.scatter([], [], s=220, facecolors="none", edgecolors="gold", linewidths=2.5, zorder=4)
        self.ax_data.set_xlim(self._xlim)
        self.ax_data.set_ylim(self._ylim)
        self.ax_data.set_aspect("equal")
        # one collection of vertical bars (not n Rectangles): one artist to update and draw
        width = max(1.0, min(6.0, 300.0 / len(y)))
        self._bars = self.ax_alpha.vlines(np.arange(len(y)), 0.0, np.zeros(len(y)), colors="#bbbbbb", linewidths=width)
        self.ax_alpha.set_xlim(-1, len(y))
        self._C_line = self.ax_alpha.axhline(self.problem.C, color="red", lw=0.8, ls="--")
        self.ax_alpha.set_title("dual variables \u03b1\u1d62 (dashed: C)")  # plain text: no mathtext parse per draw
        self._init_curves()
        # few tick labels: laying out text is most of a redraw.  The data panel needs no
        # coordinates (as in svm-toy), the bars no sample numbers.
        self.ax_data.set_xticks([])
        self.ax_data.set_yticks([])
        self.ax_alpha.set_xticks([])
        self.ax_alpha.yaxis.set_major_locator(MaxNLocator(4))
        # the kernel between the training points and the grid does not depend on C: computed once
        self._grid_kernel = self.problem.kernel_with(self._grid[2])
        self._artists_for = self.problem.X

    def redraw(self):
        """Update the figure in place: contours, outlines, bars, the gap curve, the status line."""
        if getattr(self, "_artists_for", None) is not self.problem.X:
            self._init_artists()
        s = self.state
        alpha = np.asarray(s.alpha)
        b = float(getattr(s, "b", 0.0))
        xx, yy, grid = self._grid
        coef = alpha * np.asarray(self.problem.y)
        keep = np.flatnonzero(coef)
        f = (coef[keep] @ self._grid_kernel[keep] + b if keep.size else np.full(len(grid), b))
        f = f.reshape(xx.shape)
        for cs in self._contours:
            cs.remove()
        self._sides.set_data((f > 0).astype(float))
        self._contours = []
        if np.ptp(f) > 0:
            self._contours.append(self.ax_data.contour(xx, yy, f, levels=[-1, 0, 1], colors="k",
                                                       linestyles=["--", "-", "--"], linewidths=1, zorder=1))
        cats = np.asarray(obj.kkt_categories(self.problem, alpha))
        self._points.set_edgecolors(np.array(["none", "black", "red"])[cats])
        self._points.set_linewidths(np.where(cats == obj.AT_ZERO, 0.0, 1.5))
        self._points.set_sizes(np.where(cats == obj.AT_ZERO, 30.0, 70.0))
        pair = [k for k in (getattr(s, "i", -1), getattr(s, "j", -1)) if k is not None and k >= 0]
        self._pair.set_offsets(self.problem.X[pair] if pair else np.empty((0, 2)))
        self.ax_data.set_title(f"step {s.n_iter}: C = {self.problem.C:.3g}")
        bar_colors = np.array(["#bbbbbb", "black", "red"])[cats]
        idx = np.arange(len(alpha))
        self._bars.set_segments(np.stack([np.column_stack([idx, np.zeros_like(alpha)]), np.column_stack([idx, alpha])], axis=1))
        self._bars.set_colors(bar_colors)
        self._C_line.set_ydata([self.problem.C, self.problem.C])
        self.ax_alpha.set_ylim(0, 1.05 * self.problem.C)
        self._update_curves()
        self.status.value = (f"<b>{self.dropdowns['solver'].value}</b> step {s.n_iter}: primal {s.primal:.5g}, "
                             f"dual {s.dual:.5g}, relative gap {s.gap:.2e}, KKT violation {s.kkt:.2e}")
        self._figure_view.refresh()
