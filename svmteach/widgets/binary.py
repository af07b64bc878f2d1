"""BinaryExplorer: watch SMO, dual coordinate ascent or the primal subgradient method solve a 2-D problem.

Controls: a log-scale C slider, the kernel and gamma, the solver and SMO's
working-set rule, buttons "step", "10 steps", "to convergence", "reset", and a
Play widget that steps on every tick.  The figure shows the data, the two half-planes in
the class palette (:mod:`svmteach.viz.palette`: y = -1 is class 0, y = +1 class 1), the
decision boundary and the +-1 margins, the points outlined by KKT category (the legend
under the figure says which outline is which); the last step as its solver sees it (SMO: the
box [0, C]^2 of the pair with the constraint's segment, L and H, the unclipped and the clipped
point, :mod:`svmteach.viz.smo_box`; dual coordinate ascent: the parabola of the chosen
coordinate on [0, C], :mod:`svmteach.viz.parabola`); the dual variables as bars, and the primal and
dual curves on a log scale with the relative gap on its own axis.  Moving C warm-starts the solver from the solution it shows
(``solver.warm_start``: alpha scaled or clipped into the new box), as LIBLINEAR does for a
parameter search, and re-solves to ``tol`` within the time budget.  The classifier drawn
is the solver's own ``coefficients(problem, state)``: ``(alpha, b)``, with b = 0 for the
methods without a bias.  Clicking the
plot adds a point of class +1 (shift-click or right-click: class -1; the run goes on from the solution
shown, the point ringed by a black square) or, in the
"remove" mode of the click control (or with ctrl-click), removes the nearest
point, as in LIBSVM's svm-toy.  Dragging a point moves it, the fit following live from a warm start
(:meth:`~svmteach.widgets.explorer.SolverExplorer.move_point`).  Under the figure, one sentence says what the step
shown did and why (:mod:`svmteach.widgets.narration`).

With ipympl (``%matplotlib widget``) the canvas is itself a widget and is redrawn
in place; elsewhere the figure is shown in an ``Output`` widget and re-rendered.
"""

from __future__ import annotations

import inspect

import numpy as np
from matplotlib.ticker import MaxNLocator

from .. import objectives as obj
from ..problems import BinaryProblem
from ..validation import check_X
from ..solvers import BINARY_SOLVERS, SMO, DualCoordinateAscent, make_solver
from ..solvers.base import check_choice, check_tol
from ..solvers.smo import RULES
from ..viz import binary_legend_handles, class_colors, draw_class_regions, kkt_outlines
from ..viz.parabola import ParabolaView
from ..viz.regions import cell_grid
from ..viz.smo_box import SMOBoxView
from .editing import with_point
from .explorer import TIME_BUDGET, SolverExplorer, check_time_budget, kernel_controls, log_slider_range
from .figure import style_axes

GRID = 60  # points per side of the grid the decision function is drawn on


def offered_solvers() -> tuple:
    """The solvers the explorer offers: the registry's binary solvers whose steps can be watched
    (``explorable``: not the interior-point method's Newton steps)."""
    return tuple(name for name, cls in BINARY_SOLVERS.items() if cls.explorable)


class BinaryExplorer(SolverExplorer):
    """An interactive explorer of the binary solvers.

    Parameters
    ----------
    X, y : the 2-D points (shape (n, 2): the explorer draws the plane) and their two labels.
    C : positive float;  kernel : {"linear", "gaussian", "polynomial", "laplacian"} (or the aliases
    "rbf", "poly");  gamma : positive float (a C or gamma outside its slider's range, 1e-3..1e3 and
    1e-2..1e2, widens that slider's range rather than being clamped to it);
    solver : {"smo", "dual_cd", "primal_subgradient"} (:func:`offered_solvers`);
    selection : SMO's working-set rule;  tol : positive, the relative gap "to convergence" stops at;
    random_state : int;  time_budget : seconds one press of "to convergence" or one move of C
    may run before it stops short (and says so);  size : {"notebook", "classroom", "wide"} or None (None: "notebook", or
    "classroom" after ``svmteach.classroom()``), the
    figure's width and fonts (:data:`svmteach.widgets.figure.SIZES`; "classroom": for a projector).

    Attributes
    ----------
    widget : what to display.  sliders, buttons, dropdowns : dicts of the controls by name.
    play : the ipywidgets.Play driving animation.  state : the solver state shown.
    problem : the BinaryProblem being solved.  history : list of (n_iter, primal, dual, gap).
    narration : the line under the figure (:func:`~svmteach.widgets.narration.narrate` of the state shown).
    step_view : the picture of the last step in ``ax_step`` (a ParabolaView, an SMOBoxView, or None
    for the subgradient method, whose steps move every alpha at once).
    """

    def __init__(self, X, y, C=1.0, kernel="linear", gamma=1.0, solver="smo", selection="second_order",
                 tol=1e-4, random_state=0, time_budget=TIME_BUDGET, size=None):
        import ipywidgets as w

        self.X = np.array(check_X(X, "X", dtype=np.float64))
        if self.X.shape[1] != 2:
            raise ValueError(f"X must hold 2-D points (shape (n, 2)): the explorer draws the plane, "
                             f"got shape {self.X.shape}")
        self.y = np.array(y)
        check_choice("solver", solver, offered_solvers())
        check_choice("selection", selection, RULES)
        self.tol = check_tol(tol, "tol", positive=True)
        self.random_state = random_state
        self.time_budget = check_time_budget(time_budget)
        self.size = size
        C, C_low, C_high = log_slider_range("C", C, -3, 3)
        narrow = dict(layout=w.Layout(width="auto"), style={"description_width": "initial"})
        kernel_dropdown, gamma_slider = kernel_controls(kernel, gamma, narrow)
        self.sliders = {
            "C": w.FloatLogSlider(value=C, base=10, min=C_low, max=C_high, step=0.05, description="C",
                                  continuous_update=False),
            "gamma": gamma_slider,
        }
        self.dropdowns = {
            "kernel": kernel_dropdown,
            "solver": w.Dropdown(options=offered_solvers(), value=solver, description="solver", **narrow),
            "selection": w.Dropdown(options=RULES, value=selection, description="rule", **narrow),
            "click": w.Dropdown(options=("add +1", "add -1", "remove"), value="add +1", description="click",
                                **narrow),
        }
        self._start([(self.sliders["C"], self.sliders["gamma"]),
                     w.HBox([self.dropdowns[k] for k in ("kernel", "solver", "selection")],
                            layout=w.Layout(flex_flow="row wrap"))], step_view=True)
        self.sliders["C"].observe(lambda ch: self._on_C(), names="value")
        for ctl in (self.sliders["gamma"], *(d for k, d in self.dropdowns.items() if k != "click")):
            ctl.observe(lambda ch: self._rebuild(), names="value")

    # ---- model -------------------------------------------------------------------------------
    def _make_solver(self):
        # the rule dropdown only for a solver that has a working-set rule (SMO's selection): greyed out otherwise
        takes_rule = "selection" in inspect.signature(BINARY_SOLVERS[self.dropdowns["solver"].value]).parameters
        self.dropdowns["selection"].disabled = not takes_rule
        rule = {"selection": self.dropdowns["selection"].value} if takes_rule else {}  # another solver refuses it
        return make_solver(self.dropdowns["solver"].value, "binary", kernel=self.dropdowns["kernel"].value,
                           random_state=self.random_state, **rule)

    def _problem_on(self, X, y):
        """The problem of the controls (C, kernel, gamma) on the data ``(X, y)``."""
        return BinaryProblem(X, y, C=self.sliders["C"].value, kernel=self.dropdowns["kernel"].value,
                             gamma=self.sliders["gamma"].value, degree=3, coef0=1.0)

    def _rebuild(self):
        """New problem (kernel, gamma, data) and a fresh solver state."""
        self.problem = self._problem_on(self.X, self.y)
        self.reset()

    def _on_C(self):
        """Moving C keeps the Gram matrix and warm-starts from the solution shown: ``solver.warm_start``
        puts its alpha into the new box [0, C] (SMO scales it, keeping y' alpha = 0; the methods
        without a bias clip it), then "to convergence" re-solves to ``tol`` and redraws once.  The
        curves start again at the warm-started state (its step count carries on)."""
        old_C = self.problem.C
        self.problem = self.problem.with_C(self.sliders["C"].value)
        self.state = self.solver.warm_start(self.problem, self.state)
        self.history = [self._record()]
        self.converge()
        self.status.value += f" <i>(warm start from the solution at C = {old_C:.3g})</i>"

    def _add_clicked(self, x1, x2, mode, other):
        self.add_point(x1, x2, positive=(mode == "add -1") == other)

    def add_point(self, x1, x2, positive=True):
        """Add a training point (the plot's click handler calls this) and go on from the solution shown
        (:meth:`_add_with_warm_start`); the point is ringed by a black square."""
        labels = np.unique(self.y)
        self._add_with_warm_start(*with_point(self.X, self.y, x1, x2, labels[-1] if positive else labels[0]))

    # ---- drawing -------------------------------------------------------------------------------
    def _init_artists(self):
        """Create the artists once per data set; :meth:`redraw` only updates them."""
        same_kind = getattr(self, "_artists_for", (None, None))[1] is type(self.solver)
        X, y = self.problem.X, self.problem.y
        self._xlim, self._ylim = self._data_box(X, 0.5)
        self._grid = cell_grid(self._xlim, self._ylim, GRID)
        for ax in (self.ax_data, self.ax_step, self.ax_alpha, self.ax_curve):
            ax.clear()
        self._contours = []
        # the two half-planes as one image of class indices (updated with set_data), the lines f = -1, 0, 1 as contours
        self._sides = draw_class_regions(self.ax_data, np.zeros((GRID, GRID), dtype=int), (*self._xlim, *self._ylim), 2)
        self._points = self.ax_data.scatter(X[:, 0], X[:, 1], c=np.asarray(class_colors(2))[(y > 0).astype(int)],
                                            s=40, zorder=3)
        self._pair = self.ax_data.scatter([], [], s=220, facecolors="none", edgecolors="gold", linewidths=2.5, zorder=4)
        self._added = self._added_marker()
        self.ax_data.set_xlim(self._xlim)
        self.ax_data.set_ylim(self._ylim)
        self.ax_data.set_aspect("equal")
        # one collection of vertical bars (not n Rectangles): one artist to update and draw
        width = max(1.0, min(6.0, 300.0 / len(y)))
        self._bars = self.ax_alpha.vlines(np.arange(len(y)), 0.0, np.zeros(len(y)), colors="#bbbbbb", linewidths=width)
        self.ax_alpha.set_xlim(-1, len(y))
        self._C_line = self.ax_alpha.axhline(self.problem.C, color="red", lw=0.8, ls="--")
        # plain text (no mathtext parse per draw); the bars' colours are the points' outlines
        style_axes(self.ax_alpha, self.size, title="dual variables (dashed: C)", xlabel="sample i",
                   ylabel="\u03b1\u1d62")
        self._init_curves()
        # few tick labels: laying out text is most of a redraw.  The data panel needs no
        # coordinates (as in svm-toy), the bars no sample numbers.
        self.ax_data.set_xticks([])
        self.ax_data.set_yticks([])
        style_axes(self.ax_data, self.size, xlabel="x\u2081", ylabel="x\u2082")
        self.ax_alpha.set_xticks([])
        self.ax_alpha.yaxis.set_major_locator(MaxNLocator(4))
        self._init_step_view()
        if not (same_kind and self._legend is not None):  # new data, same solver: the same markers
            self._figure_legend(binary_legend_handles() + (self.step_view.handles() if self.step_view else [])
                                + [self._added_handle()])
        # the kernel between the training points and the grid does not depend on C: computed once
        self._grid_kernel = self.problem.kernel_with(self._grid[2])
        self._artists_for = (self.problem.X, type(self.solver))

    def _init_step_view(self):
        """The panel of the last step: SMO's box, dual coordinate ascent's parabola, or a note."""
        ax, font = self.ax_step, self.size.font - 1
        if isinstance(self.solver, SMO):
            self.step_view = SMOBoxView(ax, fontsize=font, legend=False, labelsize=self.size.font)
        elif isinstance(self.solver, DualCoordinateAscent):
            self.step_view = ParabolaView(ax, fontsize=font, legend=False, labelsize=self.size.font)
        else:
            self.step_view = None
            ax.text(0.5, 0.5, "a subgradient step moves\nevery \u03b1\u1d62 at once:\nsee the bars below",
                    transform=ax.transAxes, ha="center", va="center", fontsize=self.size.font, color="#636363")
            ax.set_xticks([])
            ax.set_yticks([])
        style_axes(ax, self.size)

    def step_text(self):
        """What the last step did, in words (for the status line), from the step view's picture."""
        p = getattr(self.step_view, "picture", None)
        if p is None:
            return ""
        if isinstance(self.step_view, SMOBoxView):
            moved = (f"\u03b1\u2c7c {p.before[0]:.3g} \u2192 {p.after[0]:.3g}"
                     + (f" (unclipped {p.unclipped[0]:.3g}, clipped to [L, H] = [{p.L:.3g}, {p.H:.3g}])"
                        if p.clipped else f" (inside [L, H] = [{p.L:.3g}, {p.H:.3g}])"))
            return f"; pair ({p.i}, {p.j}): {moved}"
        if p.shrunk:
            return f"; coordinate {p.i} set aside by shrinking"
        return (f"; coordinate {p.i}: \u03b1\u1d62 {p.old:.3g} \u2192 {p.clipped:.3g} (vertex {p.unclipped:.3g}"
                + (", clipped to [0, C])" if p.unclipped != p.clipped else ")"))

    def highlighted(self):
        """Indices of the points the last step worked on: SMO's pair (i, j), dual coordinate ascent's
        coordinate i (documented fields of those solvers' states, -1 before the first step); none for
        the subgradient method, whose steps use every point."""
        s = self.state
        if isinstance(self.solver, SMO):
            chosen = (s.i, s.j)
        elif isinstance(self.solver, DualCoordinateAscent):
            chosen = (s.i,)
        else:
            chosen = ()
        return [int(k) for k in chosen if k is not None and k >= 0]

    def redraw(self):
        """Update the figure in place: half-planes, lines, outlines, bars, the gap curve, the status line."""
        drawn = getattr(self, "_artists_for", (None, None))
        if drawn[0] is not self.problem.X or drawn[1] is not type(self.solver):
            self._init_artists()
        s = self.state
        alpha, b = self.solver.coefficients(self.problem, s)  # b = 0 for the methods without a bias
        alpha, b = np.asarray(alpha), float(b)
        xx, yy, grid = self._grid
        coef = alpha * np.asarray(self.problem.y)
        keep = np.flatnonzero(coef)
        # f(z) = sum_i alpha_i y_i k(x_i, z) + b on the grid, from the support vectors only
        f = (coef[keep] @ self._grid_kernel[keep] + b if keep.size else np.full(len(grid), b))
        f = f.reshape(xx.shape)
        for cs in self._contours:
            cs.remove()
        self._sides.set_data((f > 0).astype(int))  # class 1 (y = +1) where f > 0
        self._contours = []
        if np.ptp(f) > 0:
            self._contours.append(self.ax_data.contour(xx, yy, f, levels=[-1, 0, 1], colors="k",
                                                       linestyles=["--", "-", "--"], linewidths=1, zorder=1))
        cats = np.asarray(obj.kkt_categories(self.problem, alpha))
        edges, widths, sizes = kkt_outlines(cats)
        self._points.set_edgecolors(edges)
        self._points.set_linewidths(widths)
        self._points.set_sizes(sizes)
        self._show_added()
        pair = self.highlighted()
        self._pair.set_offsets(self.problem.X[pair] if pair else np.empty((0, 2)))
        self.ax_data.set_title(f"step {s.n_iter}: C = {self.problem.C:.3g}", fontsize=self.size.font)
        bar_colors = np.where(edges == "none", "#bbbbbb", edges)  # bars coloured as the points' outlines
        idx = np.arange(len(alpha))
        self._bars.set_segments(np.stack([np.column_stack([idx, np.zeros_like(alpha)]), np.column_stack([idx, alpha])], axis=1))
        self._bars.set_colors(bar_colors)
        self._C_line.set_ydata([self.problem.C, self.problem.C])
        self.ax_alpha.set_ylim(0, 1.05 * self.problem.C)
        self._update_curves()
        if isinstance(self.step_view, SMOBoxView):
            self.step_view.update(s, self.problem.y, self.problem.C)
        elif self.step_view is not None:
            self.step_view.update(s, self.problem.C)
        self.status.value = (f"<b>{self.dropdowns['solver'].value}</b> step {s.n_iter}: primal {s.primal:.5g}, "
                             f"dual {s.dual:.5g}, relative gap {s.gap:.2e}, KKT violation {s.kkt:.2e}"
                             f"{self.step_text()}")
        self._narrate()
        self._figure_view.refresh()
