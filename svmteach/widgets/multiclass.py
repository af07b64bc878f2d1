"""MulticlassExplorer: watch the multiclass solvers on 2-D data with a few classes.

Controls: a log-scale C slider, the loss (every loss of :mod:`svmteach.losses`) and its solver
(the registry's choices for that loss, :func:`svmteach.solvers.multiclass_solver_names`), buttons "step", "10 steps", "to
convergence", "reset", a Play widget, and what a click on the plot does (add a point of
the chosen class, or remove the nearest point; shift-click or right-click adds a point
of the next class, ctrl-click removes).  The figure shows the class regions (argmax of
the scores, in the class palette of :mod:`svmteach.viz.palette`), the lines where two classes'
scores tie, the sample the last step visited (for the solvers that visit one sample a step),
each sample's dual weight as a bar, and the relative duality gap on a log scale.
"""

from __future__ import annotations

import numpy as np

from ..backend import to_numpy
from ..losses import LOSSES, get_loss
from ..problems import MulticlassProblem
from ..solvers import MulticlassState, make_multiclass_solver, multiclass_solver_names
from ..viz import class_colors, draw_class_regions
from ..viz.palette import MAX_CLASSES
from ..viz.regions import cell_grid, data_box
from .editing import with_point
from .explorer import TIME_BUDGET, SolverExplorer, check_time_budget

#: The solvers offered for each loss, by name, the loss's default first.
SOLVERS = {name: multiclass_solver_names(loss) for name, loss in LOSSES.items()}
GRID = 70  # points per side of the grid the regions are drawn on


class MulticlassExplorer(SolverExplorer):
    """An interactive explorer of the multiclass solvers.

    Parameters
    ----------
    X, y : 2-D points and their labels (2 to 8 classes).
    C : float;  loss : {"ww", "cs", "llw"};  solver : a solver of that loss (see ``SOLVERS``);
    M : float, WW's margin scale;  tol : the relative gap "to convergence" stops at;
    random_state : int;  time_budget : seconds one press of "to convergence" or one move of C
    may run before it stops short (and says so).

    Attributes
    ----------
    widget : what to display.  sliders, buttons, dropdowns : dicts of the controls by name.
    play : the ipywidgets.Play driving animation.  state : the solver state shown (measured).
    problem : the MulticlassProblem being solved.  history : list of (n_iter, primal, dual, gap).
    """

    def __init__(self, X, y, C=1.0, loss="ww", solver=None, M=1.0, tol=1e-4, random_state=0,
                 time_budget=TIME_BUDGET):
        import ipywidgets as w

        self.X = np.array(X, dtype=np.float64)
        self.y = np.asarray(y)
        if self.X.ndim != 2 or self.X.shape[1] != 2:
            raise ValueError(f"X must hold 2-D points (shape (n, 2)) to be drawn, got shape {self.X.shape}")
        get_loss(loss)  # a ValueError naming loss
        solver = solver if solver is not None else SOLVERS[loss][0]
        if solver not in SOLVERS[loss]:
            raise ValueError(f"solver must be one of {tuple(SOLVERS[loss])} for loss {loss!r}, got {solver!r}")
        self.labels = np.unique(self.y)
        if not 2 <= len(self.labels) <= MAX_CLASSES:
            raise ValueError(f"y must have 2 to {MAX_CLASSES} classes to be drawn, got {len(self.labels)}")
        self.M, self.tol, self.random_state = float(M), float(tol), random_state
        self.time_budget = check_time_budget(time_budget)
        self._switching = False
        self.sliders = {"C": w.FloatLogSlider(value=C, base=10, min=-3, max=3, step=0.05, description="C",
                                              continuous_update=False)}
        self.dropdowns = {
            "loss": w.Dropdown(options=tuple(SOLVERS), value=loss, description="loss"),
            "solver": w.Dropdown(options=tuple(SOLVERS[loss]), value=solver, description="solver"),
            "click": w.Dropdown(options=[f"add {c}" for c in self.labels] + ["remove"],
                                value=f"add {self.labels[0]}", description="click"),
        }
        self._start([w.HBox([self.sliders["C"], self.dropdowns["loss"], self.dropdowns["solver"]])])
        self.sliders["C"].observe(lambda ch: self._on_C(), names="value")
        self.dropdowns["loss"].observe(lambda ch: self._on_loss(), names="value")
        self.dropdowns["solver"].observe(lambda ch: None if self._switching else self._rebuild(), names="value")

    # ---- model -------------------------------------------------------------------------------
    def _make_solver(self):
        return make_multiclass_solver(self.dropdowns["solver"].value, get_loss(self.dropdowns["loss"].value),
                                      self.random_state)

    def _rebuild(self, redraw=True):
        self.problem = MulticlassProblem(self.X, self.y, C=self.sliders["C"].value,
                                         loss=self.dropdowns["loss"].value, M=self.M)
        self.reset(redraw)

    def _on_loss(self):
        """A new loss brings its own solvers; the first one is chosen."""
        self._switching = True  # the solver list changes its value: rebuild once, below
        try:
            self.dropdowns["solver"].options = tuple(SOLVERS[self.dropdowns["loss"].value])
        finally:
            self._switching = False
        self._rebuild()

    def _on_C(self):
        """A new C: re-solve to ``tol`` and redraw once."""
        self._rebuild(redraw=False)
        self.converge()

    def _add_clicked(self, x1, x2, mode, other):
        """The class chosen under "click" (the first in "remove" mode), or the next one for a shift/right click."""
        index = 0 if mode == "remove" else [f"add {c}" for c in self.labels].index(mode)
        self.add_point(x1, x2, self.labels[(index + 1) % len(self.labels)] if other else self.labels[index])

    def add_point(self, x1, x2, label):
        """Add a training point of class ``label`` (one of the labels present) and restart."""
        if label not in self.labels:
            raise ValueError(f"label must be one of the classes {list(self.labels)}, got {label!r}")
        self.X, self.y = with_point(self.X, self.y, x1, x2, label)
        self._rebuild()

    # ---- drawing -------------------------------------------------------------------------------
    def _init_artists(self):
        X, codes, k = self.X, to_numpy(self.problem.codes), self.problem.k
        self._xlim, self._ylim = data_box(X, 0.7)
        self._grid = cell_grid(self._xlim, self._ylim, GRID)
        for ax in (self.ax_data, self.ax_alpha, self.ax_curve):
            ax.clear()
        self._lines = []
        self._regions = draw_class_regions(self.ax_data, np.zeros((GRID, GRID), dtype=int),
                                           (*self._xlim, *self._ylim), k)
        colors = np.asarray(class_colors(k))[codes]
        self._points = self.ax_data.scatter(X[:, 0], X[:, 1], c=colors, s=40, zorder=3, edgecolors="none")
        self._visited = self.ax_data.scatter([], [], s=220, facecolors="none", edgecolors="gold", linewidths=2.5,
                                             zorder=4)
        self.ax_data.set_xlim(self._xlim)
        self.ax_data.set_ylim(self._ylim)
        self.ax_data.set_aspect("equal")
        self._bars = self.ax_alpha.bar(np.arange(len(codes)), np.zeros(len(codes)), color=colors)
        self._C_line = self.ax_alpha.axhline(self.problem.C, color="red", lw=0.8, ls="--")
        self._init_curves()
        self._artists_for = self.problem.X

    def sample_weights(self, alpha=None):
        """(n,) each sample's dual weight, as the loss defines it (``dual_weights``): :math:`\\sum_{j \\ne y_i}
        \\alpha_{ij}` (WW, LLW) or :math:`\\alpha_i^{y_i}` (CS), between 0 and the loss's ``dual_weight_bound``;
        0 for a sample that is not a support vector."""
        if alpha is None:
            alpha = self.solver.coefficients(self.problem, self.state)[0]
        return to_numpy(self.problem.loss_object.dual_weights(self.problem, self.problem.xp.asarray(alpha)))

    def visited(self):
        """The sample the last step visited, as a list of at most one index: the solvers that visit one
        sample a step document it as their state's ``i`` (-1 before the first step); ParallelBlock
        updates every sample at once and highlights none."""
        if not isinstance(self.state, MulticlassState):  # ParallelBlock moves every sample at once
            return []
        i = self.state.i
        return [int(i)] if i is not None and i >= 0 else []

    def redraw(self):
        """Update the figure in place: regions, the visited sample, bars, the gap curve, the status."""
        if getattr(self, "_artists_for", None) is not self.problem.X:
            self._init_artists()
        s, k = self.state, self.problem.k
        alpha, W = self.solver.coefficients(self.problem, s)  # the solver's own (n, k) duals and (k, 2) weights
        W = to_numpy(W)
        xx, yy, grid = self._grid
        scores = grid @ W.T  # s_m(z) = w_m' z; the region of z is argmax_m s_m(z)
        region = np.argmax(scores, axis=1).reshape(xx.shape)
        self._regions.set_data(region)
        for artist in self._lines:
            artist.remove()
        self._lines = []
        if np.ptp(region) > 0:
            self._lines.append(self.ax_data.contour(xx, yy, region, levels=np.arange(k) + 0.5, colors="k",
                                                    linewidths=1, zorder=1))
        weights = self.sample_weights(alpha)
        support = weights > 1e-12
        self._points.set_edgecolors(np.where(support, "black", "none"))
        self._points.set_linewidths(np.where(support, 1.5, 0.0))
        i = self.visited()
        self._visited.set_offsets(self.X[i] if i else np.empty((0, 2)))
        name = self.dropdowns["solver"].value
        self.ax_data.set_title(f"{self.problem.loss_object.title} ({name}), step {s.n_iter}: C = {self.problem.C:.3g}")
        for bar, height in zip(self._bars, weights):
            bar.set_height(height)
        top = self.problem.loss_object.dual_weight_bound(self.problem)
        self._C_line.set_ydata([top, top])
        self.ax_alpha.set_ylim(0, 1.05 * top)
        self.ax_alpha.set_title("each sample's dual weight (dashed: its bound)")
        self._update_curves()
        self.status.value = (f"<b>{self.problem.loss_object.title}, {name}</b> step {s.n_iter}: primal {s.primal:.5g}, "
                             f"dual {s.dual:.5g}, relative gap {s.gap:.2e}, KKT violation {s.kkt:.2e}, "
                             f"{int(support.sum())} support vectors")
        self._figure_view.refresh()
